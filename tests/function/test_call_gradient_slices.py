"""A GradientTape outside a tw.function: the call op's gradient keeps IndexedSlices (gather in
the function) as TensorFlow's does; values against NumPy, and finite differences."""
from __future__ import annotations

import numpy as np

import twinflow as tw

TABLE = np.array([[1.0, -1.0], [2.0, 0.5], [3.0, 1.5]])


def _numeric(fn, x0, eps=1e-4):
    num = np.zeros_like(x0)
    for i in np.ndindex(x0.shape):
        d = np.zeros_like(x0)
        d[i] = eps
        num[i] = (float(fn(tw.constant(x0 + d))) - float(fn(tw.constant(x0 - d)))) / (2 * eps)
    return num


def test_gather_of_an_input_gives_indexed_slices():
    @tw.function
    def loss(x):
        return tw.reduce_sum(tw.gather(x, [2, 0, 2]) ** 2)

    x = tw.constant(TABLE)
    with tw.GradientTape() as tape:
        tape.watch(x)
        y = loss(x)
    g = tape.gradient(y, x)
    assert isinstance(g, tw.IndexedSlices)
    assert g.indices.numpy().tolist() == [2, 0, 2]
    want = np.zeros_like(TABLE)
    for i in (2, 0, 2):
        want[i] += 2 * TABLE[i]
    np.testing.assert_allclose(tw.convert_to_tensor(g).numpy(), want)
    np.testing.assert_allclose(want, _numeric(loss, TABLE), rtol=1e-4)


def test_gather_of_a_variable_gives_indexed_slices():
    v = tw.Variable(TABLE)

    @tw.function
    def loss():
        return tw.reduce_sum(tw.gather(v, [2, 0]) * tw.gather(v, [2, 2]))

    with tw.GradientTape() as tape:
        y = loss()
    g = tape.gradient(y, v)
    assert isinstance(g, tw.IndexedSlices)
    want = np.zeros_like(TABLE)
    want[2] += TABLE[2] * 2 + TABLE[0]
    want[0] += TABLE[2]
    np.testing.assert_allclose(tw.convert_to_tensor(g).numpy(), want)
    tw.keras.optimizers.SGD(0.5).apply_gradients([(g, v)])
    np.testing.assert_allclose(v.numpy()[1], TABLE[1])  # an untouched row stays


def test_dense_uses_and_second_order_stay_dense():
    @tw.function
    def loss(x):
        return tw.reduce_sum(tw.gather(x, [1]) ** 2) + tw.reduce_sum(x ** 3)

    x = tw.constant(TABLE)
    with tw.GradientTape() as outer:
        outer.watch(x)
        with tw.GradientTape() as tape:
            tape.watch(x)
            y = loss(x)
        g = tape.gradient(y, x)
        s = tw.reduce_sum(tw.convert_to_tensor(g))
    assert not isinstance(g, tw.IndexedSlices)  # mixed with a dense gradient: summed densely
    np.testing.assert_allclose(g.numpy(), _numeric(loss, TABLE), rtol=1e-4)
    want2 = 6 * TABLE
    want2[1] += 2
    np.testing.assert_allclose(outer.gradient(s, x).numpy(), want2, rtol=1e-5)
