"""GradientTape: watching, persistence, nesting, structures, unconnected and integer sources."""
from __future__ import annotations

import numpy as np
import pytest

import twinflow as tw
from twinflow.compiler import run_graph
from twinflow.core.context import ctx
from twinflow.eager.execute import bind
from twinflow.graph.core_ops import Placeholder


def c(v, dtype="float32"):
    return tw.constant(np.asarray(v, dtype=dtype))


def test_watch_constant():
    x = c([1.0, 2.0])
    with tw.GradientTape() as tape:
        tape.watch(x)
        y = tw.reduce_sum(x * x)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [2.0, 4.0])


def test_unwatched_constant_gives_none():
    x = c(3.0)
    with tw.GradientTape() as tape:
        y = x * x
    assert tape.gradient(y, x) is None


def test_variable_watched_automatically():
    v = tw.Variable(3.0)
    with tw.GradientTape() as tape:
        y = v * v
    assert tape.watched_variables() == (v,)
    assert float(tape.gradient(y, v)) == 6.0


def test_watch_accessed_variables_false():
    a, b = tw.Variable(2.0), tw.Variable(5.0)
    with tw.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(a)
        y = a * b
    ga, gb = tape.gradient(y, [a, b])
    assert float(ga) == 5.0
    assert gb is None
    assert tape.watched_variables() == (a,)


def test_non_trainable_variable_not_watched():
    v = tw.Variable(2.0, trainable=False)
    with tw.GradientTape() as tape:
        y = v * v
    assert tape.gradient(y, v) is None


def test_non_persistent_used_twice_raises():
    x = c(2.0)
    with tw.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    tape.gradient(y, x)
    with pytest.raises(RuntimeError, match="non-persistent"):
        tape.gradient(y, x)


def test_persistent_several_gradients():
    x = c(3.0)
    with tw.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        z = y * y
    assert float(tape.gradient(z, x)) == 108.0  # 4 x^3
    assert float(tape.gradient(y, x)) == 6.0
    assert float(tape.gradient(z, y)) == 18.0   # dz/dy = 2y
    del tape


def test_second_order_x_cubed():
    x = tw.Variable(2.0)
    with tw.GradientTape() as t1:
        with tw.GradientTape() as t2:
            y = x * x * x
        dy = t2.gradient(y, x)
    d2y = t1.gradient(dy, x)
    assert float(dy) == 12.0
    assert float(d2y) == 12.0


def test_third_order():
    x = c(2.0)
    with tw.GradientTape() as t1:
        t1.watch(x)
        with tw.GradientTape() as t2:
            t2.watch(x)
            with tw.GradientTape() as t3:
                t3.watch(x)
                y = x * x * x * x
            g1 = t3.gradient(y, x)
        g2 = t2.gradient(g1, x)
    g3 = t1.gradient(g2, x)
    assert (float(g1), float(g2), float(g3)) == (32.0, 48.0, 48.0)


def test_persistent_inner_gradient_recorded_by_same_tape():
    x = c(3.0)
    with tw.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x * x
        g = tape.gradient(y, x)   # computed while recording: not recorded by itself
    assert float(g) == 27.0
    assert tape.gradient(g, x) is None


def test_stop_recording():
    x = c(2.0)
    with tw.GradientTape() as tape:
        tape.watch(x)
        y = x * x
        with tape.stop_recording():
            z = y * x           # not recorded
        w = y + z
    assert float(tape.gradient(w, x)) == 4.0


def test_stop_recording_outside_raises():
    tape = tw.GradientTape()
    with pytest.raises(ValueError):
        with tape.stop_recording():
            pass


def test_reset():
    x = c(2.0)
    with tw.GradientTape() as tape:
        tape.watch(x)
        y = x * x
        tape.reset()
        tape.watch(x)
        y = x * x * x
    assert float(tape.gradient(y, x)) == 12.0


def test_reset_forgets_watches():
    x = c(2.0)
    with tw.GradientTape() as tape:
        tape.watch(x)
        tape.reset()
        y = x * x
    assert tape.gradient(y, x) is None


def test_output_gradients():
    x = c([1.0, 2.0, 3.0])
    with tw.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    g = tape.gradient(y, x, output_gradients=c([1.0, 0.0, 2.0]))
    np.testing.assert_allclose(g.numpy(), [2.0, 0.0, 12.0])


def test_output_gradients_count_mismatch():
    x = c(1.0)
    with tw.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    with pytest.raises(ValueError):
        tape.gradient([y, y], x, output_gradients=[c(1.0)])


@pytest.mark.parametrize("mode", [tw.UnconnectedGradients.ZERO, "zero", "ZERO"])
def test_unconnected_zero(mode):
    x, u = c([1.0, 2.0]), c([[1.0, 2.0, 3.0]])
    with tw.GradientTape() as tape:
        tape.watch([x, u])
        y = x * x
    gx, gu = tape.gradient(y, [x, u], unconnected_gradients=mode)
    np.testing.assert_allclose(gx.numpy(), [2.0, 4.0])
    assert gu.shape == (1, 3) and gu.dtype == tw.float32
    np.testing.assert_array_equal(gu.numpy(), np.zeros((1, 3)))


@pytest.mark.parametrize("mode", [tw.UnconnectedGradients.NONE, "none"])
def test_unconnected_none(mode):
    x, u = c(1.0), c(2.0)
    with tw.GradientTape() as tape:
        tape.watch([x, u])
        y = x * x
    assert tape.gradient(y, u, unconnected_gradients=mode) is None


def test_unconnected_bad_value():
    x = c(1.0)
    with tw.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    with pytest.raises(ValueError):
        tape.gradient(y, x, unconnected_gradients="maybe")


def test_unconnected_zero_variable():
    v = tw.Variable([1.0, 2.0])
    x = c(1.0)
    with tw.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    g = tape.gradient(y, v, unconnected_gradients="zero")
    np.testing.assert_array_equal(g.numpy(), [0.0, 0.0])


def test_nested_structures_of_sources_and_targets():
    a, b = tw.Variable(2.0), tw.Variable(3.0)
    with tw.GradientTape(persistent=True) as tape:
        y1 = a * b
        y2 = a * a
    grads = tape.gradient({"p": y1, "q": [y2]}, {"first": a, "rest": [b, (a,)]})
    assert set(grads) == {"first", "rest"}
    assert float(grads["first"]) == 3.0 + 4.0
    assert float(grads["rest"][0]) == 2.0
    assert isinstance(grads["rest"][1], tuple) and float(grads["rest"][1][0]) == 7.0


def test_integer_source_gives_none():
    x = tw.constant([1, 2], dtype=tw.int32)
    f = c([1.0, 2.0])
    with tw.GradientTape() as tape:
        tape.watch([x, f])
        y = tw.cast(x, tw.float32) * f
    gx, gf = tape.gradient(y, [x, f])
    assert gx is None
    np.testing.assert_allclose(gf.numpy(), [1.0, 2.0])


def test_integer_target_gives_none():
    x = c([1.0, 2.0])
    with tw.GradientTape() as tape:
        tape.watch(x)
        y = tw.cast(x, tw.int32)
    assert tape.gradient(y, x) is None


def test_watch_rejects_non_tensors():
    with tw.GradientTape() as tape:
        with pytest.raises(ValueError):
            tape.watch("nope")


def test_gradient_of_source_itself():
    x = c([1.0, 2.0])
    with tw.GradientTape() as tape:
        tape.watch(x)
    np.testing.assert_array_equal(tape.gradient(x, x).numpy(), [1.0, 1.0])


def test_gradient_through_variable_assign_chain():
    v = tw.Variable(2.0)
    with tw.GradientTape() as tape:
        y = v * 3.0
    assert float(tape.gradient(y, v)) == 3.0


def test_broadcast_gradient():
    x = c([[1.0, 2.0], [3.0, 4.0]])
    b = c([10.0, 20.0])
    with tw.GradientTape() as tape:
        tape.watch([x, b])
        y = x * b + b
    gx, gb = tape.gradient(y, [x, b])
    np.testing.assert_allclose(gx.numpy(), [[10.0, 20.0], [10.0, 20.0]])
    np.testing.assert_allclose(gb.numpy(), [1.0 + 3.0 + 2.0, 2.0 + 4.0 + 2.0])


def test_matmul_gradient_against_finite_differences():
    rng = np.random.default_rng(0)
    a0 = rng.normal(size=(3, 4))
    b0 = rng.normal(size=(4, 2))
    a, b = tw.constant(a0), tw.constant(b0)
    with tw.GradientTape() as tape:
        tape.watch(a)
        y = tw.reduce_sum(tw.matmul(a, b) * tw.matmul(a, b))
    g = tape.gradient(y, a).numpy()
    eps = 1e-6
    num = np.zeros_like(a0)
    for i in np.ndindex(a0.shape):
        ap, am = a0.copy(), a0.copy()
        ap[i] += eps
        am[i] -= eps
        num[i] = (np.sum((ap @ b0) ** 2) - np.sum((am @ b0) ** 2)) / (2 * eps)
    np.testing.assert_allclose(g, num, rtol=1e-6, atol=1e-8)


def test_no_tape_means_fast_path():
    assert not ctx.slow_path
    with tw.GradientTape():
        assert ctx.slow_path
    assert not ctx.slow_path and ctx.tapes == []


def test_tape_does_not_leak_on_exception():
    with pytest.raises(ZeroDivisionError):
        with tw.GradientTape():
            raise ZeroDivisionError
    assert ctx.tapes == [] and not ctx.slow_path


def test_tape_in_graph_with_placeholders():
    g = tw.Graph()
    with g.as_default():
        x = bind(Placeholder, [], {"dtype": tw.float32, "shape": tw.TensorShape([3])})
        with tw.GradientTape() as tape:
            tape.watch(x)
            y = tw.reduce_sum(x * x * x)
        dx = tape.gradient(y, x)
    got, = run_graph([dx], {id(x): np.array([1.0, 2.0, 3.0], np.float32)})
    np.testing.assert_allclose(got, [3.0, 12.0, 27.0])


def test_tape_in_graph_with_variable():
    v = tw.Variable([1.0, 2.0])
    g = tw.Graph()
    with g.as_default():
        with tw.GradientTape() as tape:
            y = tw.reduce_sum(v * v)
        dv = tape.gradient(y, v)
    np.testing.assert_allclose(run_graph([dv], {})[0], [2.0, 4.0])
    v.assign([3.0, 4.0])
    np.testing.assert_allclose(run_graph([dv], {})[0], [6.0, 8.0])


def test_second_order_in_graph():
    g = tw.Graph()
    with g.as_default():
        x = bind(Placeholder, [], {"dtype": tw.float32, "shape": tw.TensorShape([])})
        with tw.GradientTape() as t1:
            t1.watch(x)
            with tw.GradientTape() as t2:
                t2.watch(x)
                y = x * x * x
            dy = t2.gradient(y, x)
        d2y = t1.gradient(dy, x)
    got = run_graph([dy, d2y], {id(x): np.float32(2.0)})
    assert [float(v) for v in got] == [12.0, 12.0]


def test_gradients_symbolic():
    g = tw.Graph()
    with g.as_default():
        x = bind(Placeholder, [], {"dtype": tw.float32, "shape": tw.TensorShape([2])})
        y = x * x
        dx, = tw.gradients(y, [x])
    np.testing.assert_allclose(run_graph([dx], {id(x): np.array([1.0, 3.0], np.float32)})[0],
                               [2.0, 6.0])


def test_gradients_eager_raises():
    with pytest.raises(RuntimeError):
        tw.gradients(c(1.0), [c(1.0)])


def test_op_without_gradient_raises_lookup_error():
    from twinflow.graph.registry import register_op

    @register_op("TestNoGradOp_tape")
    class NoGrad:
        def infer(x):
            return x.dtype, x.shape

        def kernel(x):
            return x

    x = c(1.0)
    with tw.GradientTape() as tape:
        tape.watch(x)
        y = bind(NoGrad, [x]) * x
    with pytest.raises(LookupError, match="TestNoGradOp_tape"):
        tape.gradient(y, x)
    from twinflow.graph.registry import REGISTRY
    del REGISTRY["TestNoGradOp_tape"]


def test_op_with_none_gradient_stops_flow():
    from twinflow.graph.registry import REGISTRY, register_op

    @register_op("TestStopGrad_tape")
    class Stop:
        def infer(x):
            return x.dtype, x.shape

        def kernel(x):
            return x

        def grad(op, dy):
            return None

    x = c(2.0)
    with tw.GradientTape() as tape:
        tape.watch(x)
        y = bind(Stop, [x]) * x
    assert float(tape.gradient(y, x)) == 2.0
    del REGISTRY["TestStopGrad_tape"]


def test_gradients_stop_gradients_hold_tensors_constant():
    # TensorFlow's documented example: stopping a and b gives [1, 1] instead of [3, 1]
    @tw.function
    def grads():
        a = tw.constant(0.0)
        b = 2 * a
        return (tw.gradients(a + b, [a, b], stop_gradients=[a, b]),
                tw.gradients(a + b, [a, b]))
    stopped, free = grads()
    assert [float(g) for g in stopped] == [1.0, 1.0]
    assert [float(g) for g in free] == [3.0, 1.0]
