"""tape.jacobian and tape.batch_jacobian against analytic results and finite differences."""
from __future__ import annotations

import numpy as np
import pytest

import twinflow as tw
from twinflow.compiler import run_graph
from twinflow.eager.execute import bind
from twinflow.graph.core_ops import Placeholder


def numeric_jacobian(f, x0: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    y0 = np.asarray(f(x0))
    jac = np.zeros(y0.shape + x0.shape)
    for i in np.ndindex(x0.shape):
        xp, xm = x0.copy(), x0.copy()
        xp[i] += eps
        xm[i] -= eps
        jac[(Ellipsis,) + i] = (np.asarray(f(xp)) - np.asarray(f(xm))) / (2 * eps)
    return jac


def test_elementwise_jacobian_is_diagonal():
    x = tw.constant([1.0, 2.0, 3.0])
    with tw.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    j = tape.jacobian(y, x)
    assert j.shape == (3, 3)
    np.testing.assert_allclose(j.numpy(), np.diag([2.0, 4.0, 6.0]))


def test_matmul_jacobian_matches_finite_differences():
    rng = np.random.default_rng(1)
    w0 = rng.normal(size=(3, 2))
    x0 = rng.normal(size=(2, 3))
    x, w = tw.constant(x0), tw.constant(w0)
    with tw.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = tw.matmul(x, w) * tw.matmul(x, w)
    j = tape.jacobian(y, x)
    assert j.shape == (2, 2, 2, 3)
    expected = numeric_jacobian(lambda a: (a @ w0) ** 2, x0)
    np.testing.assert_allclose(j.numpy(), expected, rtol=1e-6, atol=1e-8)


def test_jacobian_of_scalar_equals_gradient():
    x = tw.constant([1.0, -2.0])
    with tw.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = tw.reduce_sum(x * x * x)
    np.testing.assert_allclose(tape.jacobian(y, x).numpy(), tape.gradient(y, x).numpy())


def test_jacobian_nested_sources_and_variables():
    v = tw.Variable([1.0, 2.0])
    s = tw.constant(3.0)
    with tw.GradientTape() as tape:
        tape.watch(s)
        y = v * s
    out = tape.jacobian(y, {"v": v, "s": [s]})
    np.testing.assert_allclose(out["v"].numpy(), np.diag([3.0, 3.0]))
    np.testing.assert_allclose(out["s"][0].numpy(), [1.0, 2.0])


def test_jacobian_unconnected():
    x, u = tw.constant([1.0, 2.0]), tw.constant([[1.0, 1.0, 1.0]])
    with tw.GradientTape(persistent=True) as tape:
        tape.watch([x, u])
        y = x * x
    assert tape.jacobian(y, u) is None
    z = tape.jacobian(y, u, unconnected_gradients=tw.UnconnectedGradients.ZERO)
    assert z.shape == (2, 1, 3)
    np.testing.assert_array_equal(z.numpy(), 0)
    assert tape.jacobian(y, u, unconnected_gradients="zero").shape == (2, 1, 3)


def test_jacobian_ignores_pfor_flag_and_respects_persistence():
    x = tw.constant([1.0, 2.0])
    with tw.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    tape.jacobian(y, x, experimental_use_pfor=False)
    with pytest.raises(RuntimeError):
        tape.jacobian(y, x)


def test_hessian_with_nested_tapes():
    x = tw.constant([1.0, 2.0])
    with tw.GradientTape() as outer:
        outer.watch(x)
        with tw.GradientTape() as inner:
            inner.watch(x)
            y = tw.reduce_sum(x * x * x)
        g = inner.gradient(y, x)
    h = outer.jacobian(g, x)
    np.testing.assert_allclose(h.numpy(), np.diag([6.0, 12.0]))


def test_batch_jacobian():
    rng = np.random.default_rng(2)
    x0 = rng.normal(size=(4, 3))
    w0 = rng.normal(size=(3, 2))
    x, w = tw.constant(x0), tw.constant(w0)
    with tw.GradientTape() as tape:
        tape.watch(x)
        y = tw.matmul(x * x, w)
    bj = tape.batch_jacobian(y, x)
    assert bj.shape == (4, 2, 3)
    for b in range(4):
        expected = numeric_jacobian(lambda r, b=b: (r ** 2) @ w0, x0[b])
        np.testing.assert_allclose(bj.numpy()[b], expected, rtol=1e-6, atol=1e-8)


def test_batch_jacobian_matches_full_jacobian_blocks():
    x = tw.constant(np.arange(6.0).reshape(2, 3))
    with tw.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
    bj = tape.batch_jacobian(y, x).numpy()
    full = tape.jacobian(y, x).numpy()
    for b in range(2):
        np.testing.assert_allclose(bj[b], full[b, :, b, :])


def test_batch_jacobian_bad_shapes():
    x = tw.constant(np.ones((2, 3)))
    with tw.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = tw.reduce_sum(x)
    with pytest.raises(ValueError):
        tape.batch_jacobian(y, x)


def test_jacobian_in_graph():
    g = tw.Graph()
    with g.as_default():
        x = bind(Placeholder, [], {"dtype": tw.float32, "shape": tw.TensorShape([3])})
        with tw.GradientTape() as tape:
            tape.watch(x)
            y = x * x * x
        j = tape.jacobian(y, x)
    assert j.shape == (3, 3)
    got, = run_graph([j], {id(x): np.array([1.0, 2.0, 3.0], np.float32)})
    np.testing.assert_allclose(got, np.diag([3.0, 12.0, 27.0]))


def test_batch_jacobian_in_graph():
    g = tw.Graph()
    with g.as_default():
        x = bind(Placeholder, [], {"dtype": tw.float32, "shape": tw.TensorShape([2, 2])})
        with tw.GradientTape() as tape:
            tape.watch(x)
            y = x * x
        bj = tape.batch_jacobian(y, x)
    got, = run_graph([bj], {id(x): np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)})
    np.testing.assert_allclose(got, [np.diag([2.0, 4.0]), np.diag([6.0, 8.0])])


def test_jacobian_needs_static_shape_in_graph():
    g = tw.Graph()
    with g.as_default():
        x = bind(Placeholder, [], {"dtype": tw.float32, "shape": tw.TensorShape([None])})
        with tw.GradientTape() as tape:
            tape.watch(x)
            y = x * x
        with pytest.raises(ValueError, match="static"):
            tape.jacobian(y, x)


def test_jacobian_and_variable_gradient_in_function():
    v = tw.Variable(2.0)

    @tw.function
    def f(x):
        with tw.GradientTape(persistent=True) as tape:
            tape.watch(x)
            y = x * x * v
        return tape.jacobian(y, x), tape.gradient(y, v)

    j, gv = f(tw.constant([1.0, 2.0]))
    np.testing.assert_allclose(j.numpy(), np.diag([4.0, 8.0]))
    assert float(gv) == 5.0
