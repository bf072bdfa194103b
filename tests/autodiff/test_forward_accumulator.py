"""tw.autodiff.ForwardAccumulator: Jacobian-vector products against finite differences, eagerly
and inside tw.function."""
import numpy as np
import pytest

import twinflow as tw


def _fd_jvp(f, x, v, eps=1e-3):
    x = np.asarray(x, np.float64)
    return (f(x + eps * v) - f(x - eps * v)) / (2 * eps)


def test_jvp_matches_finite_differences():
    x0 = np.array([0.3, -1.2, 2.0])
    v0 = np.array([1.0, 0.5, -2.0])
    x = tw.constant(x0)
    with tw.autodiff.ForwardAccumulator(x, tw.constant(v0)) as acc:
        y = tw.reduce_sum(tw.sin(x) * tw.exp(x)) + tw.tanh(x) * x
    expected = _fd_jvp(lambda a: np.sum(np.sin(a) * np.exp(a)) + np.tanh(a) * a, x0, v0)
    np.testing.assert_allclose(acc.jvp(y).numpy(), expected, rtol=1e-5)


def test_variables_structures_and_unconnected():
    w = tw.Variable([[1.0, 2.0], [3.0, 4.0]])
    b = tw.Variable([1.0, -1.0])
    tangents = (tw.ones_like(w), tw.constant([0.5, 0.5]))
    with tw.autodiff.ForwardAccumulator((w, b), tangents) as acc:
        z = tw.matmul(w, w)
        out = {"z": z, "s": tw.reduce_sum(b * b)}
        c = tw.constant(3.0)
    jv = acc.jvp(out)
    np.testing.assert_allclose(jv["z"], [[7.0, 9.0], [11.0, 13.0]])  # V W + W V
    np.testing.assert_allclose(jv["s"], 0.0)  # 2 b . t = 1 - 1
    assert acc.jvp(c) is None
    assert float(acc.jvp(c, unconnected_gradients="zero")) == 0.0
    with pytest.raises(ValueError, match="same structure"):
        tw.autodiff.ForwardAccumulator([w, b], [tw.ones_like(w)])
    with pytest.raises(ValueError, match="shape"):
        tw.autodiff.ForwardAccumulator(b, tw.ones([3]))


def test_jvp_inside_function():
    @tw.function
    def f(x, v):
        with tw.autodiff.ForwardAccumulator(x, v) as acc:
            y = tw.exp(x) * 2.0
        return acc.jvp(y)
    x0 = np.array([0.0, 1.0], np.float32)
    out = f(tw.constant(x0), tw.constant([1.0, 1.0]))
    np.testing.assert_allclose(out, 2 * np.exp(x0), rtol=1e-6)
    assert tw.autodiff.GradientTape is tw.GradientTape
