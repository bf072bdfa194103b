"""Variables read inside branches and loop bodies get gradients (tape inside and outside
tw.function)."""
from __future__ import annotations

import numpy as np

import twinflow as tw


def _model(v, x):
    if x > 0:
        y = v * x
    else:
        y = v * v
    i = 0
    while i < 2:
        y = y * v
        i += 1
    return y


def test_variable_gradient_tape_outside_function():
    v = tw.Variable(2.0)
    f = tw.function(lambda x: _model(v, x))
    for x, want in ((3.0, 3 * 4.0 * 3.0), (-3.0, 4 * 8.0)):
        with tw.GradientTape() as t:
            y = f(tw.constant(x))
        np.testing.assert_allclose(t.gradient(y, v).numpy(), want)
        with tw.GradientTape() as t:
            y = _model(v, tw.constant(x))
        np.testing.assert_allclose(t.gradient(y, v).numpy(), want)


def test_variable_gradient_tape_inside_function():
    v = tw.Variable([1.0, 2.0])

    @tw.function
    def step(x):
        with tw.GradientTape() as t:
            y = tw.cond(tw.reduce_sum(x) > 0, lambda: v * x, lambda: v * v)
            _, z = tw.while_loop(lambda i, z: i < 2, lambda i, z: (i + 1, z * v), [0, y])
            z = tw.reduce_sum(z)
        return t.gradient(z, v)
    vv = np.array([1.0, 2.0])
    # x > 0: z = sum(x v^3), dz/dv = 3 x v^2;  x < 0: z = sum(v^4), dz/dv = 4 v^3
    np.testing.assert_allclose(step(tw.constant([3.0, 1.0])).numpy(),
                               3 * np.array([3.0, 1.0]) * vv ** 2, rtol=1e-5)
    np.testing.assert_allclose(step(tw.constant([-3.0, -1.0])).numpy(), 4 * vv ** 3,
                               rtol=1e-5)


def test_assign_inside_tensor_while():
    v = tw.Variable(0)

    @tw.function
    def count(n):
        i = 0
        while i < n:
            v.assign_add(i)
            i += 1
        return v.read_value()
    assert int(count(tw.constant(5))) == 10
