"""tw.custom_gradient: user-supplied gradients, with variables, nested tapes and in graphs."""
from __future__ import annotations

import numpy as np
import pytest

import twinflow as tw
from twinflow.compiler import run_graph
from twinflow.eager.execute import bind
from twinflow.graph.core_ops import Placeholder


@tw.custom_gradient
def log1pexp(x):
    e = tw.exp(x)

    def grad(dy):
        return dy * (1 - 1 / (1 + e))
    return tw.math.log(1 + e), grad


def grad_log1pexp(x):
    with tw.GradientTape() as tape:
        tape.watch(x)
        value = log1pexp(x)
    return tape.gradient(value, x)


def test_log1pexp_stable():
    assert grad_log1pexp(tw.constant(0.0)).numpy() == 0.5
    assert grad_log1pexp(tw.constant(100.0)).numpy() == 1.0


def test_value_unchanged_and_no_tape_fast_path():
    y = log1pexp(tw.constant(0.0))
    np.testing.assert_allclose(y.numpy(), np.log(2.0), rtol=1e-6)


def test_grad_fn_overrides_real_gradient():
    @tw.custom_gradient
    def times_three_backward(x):
        return x * x, lambda dy: dy * 3.0

    x = tw.constant([1.0, 2.0])
    with tw.GradientTape() as tape:
        tape.watch(x)
        y = times_three_backward(x)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [3.0, 3.0])


def test_clip_gradient_by_norm_two_args():
    @tw.custom_gradient
    def clip_gradient_by_norm(x, norm):
        y = tw.identity(x)

        def grad_fn(dresult):
            return [tw.clip_by_norm(dresult, norm), None]
        return y, grad_fn

    x = tw.constant([3.0, 4.0])
    with tw.GradientTape() as tape:
        tape.watch(x)
        y = clip_gradient_by_norm(x, 1.0) * 10.0
    g = tape.gradient(y, x)
    np.testing.assert_allclose(g.numpy(), [0.5 ** 0.5, 0.5 ** 0.5], rtol=1e-6)  # dy = [10, 10]
    np.testing.assert_allclose(np.linalg.norm(g.numpy()), 1.0, rtol=1e-6)


def test_multiple_inputs_and_outputs():
    @tw.custom_gradient
    def f(a, b):
        def grad(da, db):
            return da * 2.0 + db, da + db * 5.0
        return [a * b, a + b], grad

    a, b = tw.constant(1.0), tw.constant(2.0)
    with tw.GradientTape() as tape:
        tape.watch([a, b])
        p, s = f(a, b)
        total = p + s
    ga, gb = tape.gradient(total, [a, b])
    assert (float(ga), float(gb)) == (3.0, 6.0)


def test_unused_output_gets_zero_dy():
    seen = []

    @tw.custom_gradient
    def f(a):
        def grad(d1, d2):
            seen.append(float(tw.reduce_sum(d2)))
            return d1
        return [a * 1.0, a * 1.0], grad

    a = tw.constant([1.0, 2.0])
    with tw.GradientTape() as tape:
        tape.watch(a)
        y1, _ = f(a)
    np.testing.assert_allclose(tape.gradient(y1, a).numpy(), [1.0, 1.0])
    assert seen == [0.0]


def test_variables_read_inside():
    w = tw.Variable(3.0)

    @tw.custom_gradient
    def scaled(x):
        def grad(dy, variables=None):
            assert variables == [w] or list(variables) == [w]
            return dy * w * 10.0, [dy * x * 100.0]
        return x * w, grad

    x = tw.constant(2.0)
    with tw.GradientTape() as tape:
        tape.watch(x)
        y = scaled(x)
    gx, gw = tape.gradient(y, [x, w])
    assert float(gx) == 30.0
    assert float(gw) == 200.0


def test_variables_need_variables_kwarg():
    w = tw.Variable(3.0)

    @tw.custom_gradient
    def bad(x):
        return x * w, lambda dy: dy

    with tw.GradientTape() as tape:
        x = tw.constant(1.0)
        tape.watch(x)
        with pytest.raises(TypeError, match="variables"):
            bad(x)


def test_wrong_number_of_gradients():
    @tw.custom_gradient
    def f(a, b):
        return a * b, lambda dy: [dy, dy, dy]

    a, b = tw.constant(1.0), tw.constant(2.0)
    with tw.GradientTape() as tape:
        tape.watch([a, b])
        y = f(a, b)
    with pytest.raises(ValueError, match="expected to return 2 gradients"):
        tape.gradient(y, [a, b])


def test_variable_argument():
    v = tw.Variable(2.0)

    @tw.custom_gradient
    def f(x):
        return x * x, lambda dy: dy * 7.0

    with tw.GradientTape() as tape:
        y = f(v)
    assert float(tape.gradient(y, v)) == 7.0


def _gelu_approximate(x):
    return 0.5 * x * (1 + tw.tanh(tw.sqrt(2 / tw.constant(3.1415926535))
                                  * (x + 0.044715 * tw.pow(x, 3))))


@tw.custom_gradient
def custom_gelu(x):
    def grad(dy):
        cdf = 0.5 * (1.0 + tw.tanh(tw.sqrt(2 / tw.constant(3.1415926535))
                                   * (x + 0.044715 * tw.pow(x, 3))))
        pdf = tw.exp(-0.5 * tw.square(x)) / tw.sqrt(2 * tw.constant(3.1415926535))
        return dy * (cdf + x * pdf)
    return _gelu_approximate(x), grad


def _gelu_grad_np(x):
    cdf = 0.5 * (1.0 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))
    pdf = np.exp(-0.5 * x * x) / np.sqrt(2 * np.pi)
    return cdf + x * pdf


def test_gelu_second_order():
    x = tw.Variable(2.0, dtype=tw.float32)
    with tw.GradientTape() as tape1:
        with tw.GradientTape() as tape2:
            y = custom_gelu(x)
        first = tape2.gradient(y, x)
    second = tape1.gradient(first, x)
    np.testing.assert_allclose(float(first), _gelu_grad_np(2.0), rtol=1e-5)
    eps = 1e-4
    fd = (_gelu_grad_np(2.0 + eps) - _gelu_grad_np(2.0 - eps)) / (2 * eps)
    np.testing.assert_allclose(float(second), fd, rtol=1e-3)


def test_custom_gradient_in_graph():
    g = tw.Graph()
    with g.as_default():
        x = bind(Placeholder, [], {"dtype": tw.float32, "shape": tw.TensorShape([])})
        with tw.GradientTape() as tape:
            tape.watch(x)
            y = log1pexp(x)
        dx = tape.gradient(y, x)
    assert "CustomGradient" in {op.type for op in g.get_operations()}
    got = run_graph([y, dx], {id(x): np.float32(100.0)})
    assert float(got[1]) == 1.0  # the value overflows float32, as in TensorFlow
    got = run_graph([y, dx], {id(x): np.float32(0.0)})
    np.testing.assert_allclose(got, [np.log(2.0), 0.5], rtol=1e-6)


def test_custom_gradient_graph_def_serializes():
    g = tw.Graph()
    with g.as_default():
        x = bind(Placeholder, [], {"dtype": tw.float32, "shape": tw.TensorShape([])})
        log1pexp(x)
    assert "CustomGradient" in str(g.as_graph_def())


def test_custom_gradient_with_variables_in_graph():
    w = tw.Variable(3.0)

    @tw.custom_gradient
    def scaled(x):
        def grad(dy, variables=None):
            return dy * w * 10.0, [dy * x * 100.0]
        return x * w, grad

    g = tw.Graph()
    with g.as_default():
        x = bind(Placeholder, [], {"dtype": tw.float32, "shape": tw.TensorShape([])})
        with tw.GradientTape() as tape:
            tape.watch(x)
            y = scaled(x)
        gx, gw = tape.gradient(y, [x, w])
    got = run_graph([y, gx, gw], {id(x): np.float32(2.0)})
    assert [float(v) for v in got] == [6.0, 30.0, 200.0]


def test_custom_gradient_with_variables_in_function():
    w = tw.Variable(3.0)

    @tw.custom_gradient
    def scaled(x):
        def grad(dy, variables=None):
            return dy * w * 10.0, [dy * x * 100.0]
        return x * w, grad

    @tw.function
    def f(x):
        with tw.GradientTape() as tape:
            tape.watch(x)
            y = scaled(x)
        return tape.gradient(y, [x, w])

    gx, gw = f(tw.constant(2.0))
    assert (float(gx), float(gw)) == (30.0, 200.0)


@tw.custom_gradient
def _clipped_square(x):
    def grad(dy):
        return dy * 2.0 * x  # closes over the traced input
    return x * x, grad


def test_custom_gradient_in_function_under_outer_tape():
    # The function's gradient is traced on a copy of its graph; grad_fn's closure (x, and
    # log1pexp's intermediate e) must resolve to that copy.
    @tw.function
    def f(x):
        return _clipped_square(x) * 3.0 + log1pexp(x)

    x = tw.constant(2.0)
    with tw.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    expected = 6.0 * 2.0 + 1.0 / (1.0 + np.exp(-2.0))
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), expected, rtol=1e-6)


def test_custom_gradient_in_function_under_nested_tapes():
    @tw.function
    def f(x):
        return _clipped_square(x) * 3.0

    x = tw.constant(2.0)
    with tw.GradientTape() as outer:
        outer.watch(x)
        with tw.GradientTape() as inner:
            inner.watch(x)
            y = f(x)
        dx = inner.gradient(y, x)
    assert dx.numpy() == 12.0
    assert outer.gradient(dx, x).numpy() == 6.0


def test_foreign_tensor_still_refused_outside_custom_gradient():
    g = tw.Graph()
    with g.as_default():
        leaked = tw.constant(1.0) + 1.0
    with tw.Graph().as_default(), pytest.raises(Exception, match="same graph|another graph"):
        tw.identity(leaked)
