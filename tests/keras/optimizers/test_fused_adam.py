"""Adam's fused update (``_KerasAdamUpdate``, ``keras/optimizers/fused_adam.py``): the same bits
as the op-by-op program, one op per variable in a traced step, the same slot variables, and the
op-by-op program for what the fused op does not handle."""
from __future__ import annotations

import collections
import contextlib

import numpy as np
import pytest

import twinflow as tw
from twinflow.core.errors import InvalidArgumentError
from twinflow.eager.execute import bind
from twinflow.keras.optimizers import fused_adam
from twinflow.ops import optimizer_ops

K = tw.keras
_SHAPES = ((5, 3), (4,), ())


@pytest.fixture
def kernel_calls(monkeypatch):
    """Counts eager runs of the fused op's kernel."""
    calls = []
    kernel = optimizer_ops.KerasAdamUpdate.kernel

    def spy(*inputs, **attrs):
        calls.append(attrs)
        return kernel(*inputs, **attrs)
    monkeypatch.setattr(optimizer_ops.KerasAdamUpdate, "kernel", spy)
    return calls


def _state(opt, variables) -> list:
    out = [v.numpy() for v in variables]
    for v in variables:
        out += [opt.get_slot(v, n).numpy() for n in opt.get_slot_names()]
    return out + [opt.iterations.numpy()]


def _train(make_opt, dtype, mode, fused, steps=3, grads=None):
    """``steps`` Adam steps on three variables (a matrix, a vector, a scalar) of ``dtype``."""
    rng = np.random.default_rng(3)
    variables = [tw.Variable(rng.normal(size=s).astype(np.float32), dtype=dtype)
                 for s in _SHAPES]
    opt = make_opt()
    grads = grads or [[tw.cast(rng.normal(size=s).astype(np.float32) * 3, dtype)
                       for s in _SHAPES] for _ in range(steps)]

    def step(gs):
        opt.apply_gradients(zip(gs, variables))
    if mode == "function":
        step = tw.function(step)
    with contextlib.nullcontext() if fused else fused_adam.op_by_op():
        for gs in grads:
            step(gs)
    return _state(opt, variables)


def _assert_same_bits(a: list, b: list) -> None:
    assert len(a) == len(b)
    for x, y in zip(a, b):
        assert x.dtype == y.dtype and x.shape == y.shape
        assert x.tobytes() == y.tobytes(), (x, y)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
@pytest.mark.parametrize("amsgrad", [False, True])
@pytest.mark.parametrize("mode", ["eager", "function"])
def test_fused_update_has_the_bits_of_the_op_by_op_program(dtype, amsgrad, mode, kernel_calls):
    def make():
        return K.optimizers.Adam(learning_rate=0.05, amsgrad=amsgrad)
    fused = _train(make, dtype, mode, True)
    assert bool(kernel_calls) == (mode == "eager")  # (graph mode runs the lowered kernel)
    _assert_same_bits(fused, _train(make, dtype, mode, False))
    if mode == "function":  # and the traced op-by-op program has the eager program's bits
        _assert_same_bits(fused, _train(make, dtype, "eager", False))


@pytest.mark.parametrize("make", [
    lambda: K.optimizers.AdamW(learning_rate=0.05, weight_decay=0.1),
    lambda: K.optimizers.AdamW(learning_rate=0.05, amsgrad=True, clipnorm=1.0),
    lambda: K.optimizers.legacy.Adam(learning_rate=0.05, decay=0.01),
    lambda: K.optimizers.Adam(learning_rate=K.optimizers.schedules.ExponentialDecay(
        0.05, 2, 0.5), use_ema=True, ema_overwrite_frequency=2),
    lambda: K.optimizers.Adam(learning_rate=0.05, gradient_accumulation_steps=2),
], ids=["adamw", "adamw_amsgrad_clipnorm", "legacy_decay", "schedule_ema", "accumulation"])
@pytest.mark.parametrize("mode", ["eager", "function"])
def test_variants_keep_their_bits(make, mode):
    for dtype in ("float16", "float32"):
        _assert_same_bits(_train(make, dtype, mode, True, steps=4),
                          _train(make, dtype, mode, False, steps=4))


def _traced_step(make_opt, fused=True, grads_of=None):
    rng = np.random.default_rng(0)
    tw.random.set_seed(0)
    model = K.Sequential([K.Input((6,)), K.layers.Dense(80, activation="relu"),
                          K.layers.Dense(60), K.layers.Dense(2)])
    opt = make_opt()
    x = tw.constant(rng.normal(size=(16, 6)).astype(np.float32))

    @tw.function
    def step(x):
        with tw.GradientTape() as tape:
            loss = tw.reduce_mean(tw.square(model(x)))
        grads = tape.gradient(loss, model.trainable_variables)
        if grads_of is not None:
            grads = grads_of(grads)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        return loss
    with contextlib.nullcontext() if fused else fused_adam.op_by_op():
        cf = step.get_concrete_function(x)
        for _ in range(3):
            step(x)
    return cf, _state(opt, model.trainable_variables), opt, model


def _types(cf) -> collections.Counter:
    return collections.Counter(op.type for op in cf.optimized_graph.get_operations())


def test_a_traced_step_has_one_fused_op_per_variable():
    cf, fused, _, model = _traced_step(lambda: K.optimizers.Adam(0.01))
    types = _types(cf)
    n = len(model.trainable_variables)
    assert types["_KerasAdamUpdate"] == n
    assert types["AssignSubVariableOp"] == 0 and types["Sqrt"] == 1  # (the bias correction)
    assert types["AssignAddVariableOp"] == 1  # iterations
    assert cf.generated_source.count("(_KerasAdamUpdate)") == n
    old_cf, old, _, _ = _traced_step(lambda: K.optimizers.Adam(0.01), fused=False)
    old_types = _types(old_cf)
    assert old_types["_KerasAdamUpdate"] == 0 and old_types["AssignSubVariableOp"] == n
    assert sum(types.values()) < sum(old_types.values()) - 10 * n
    _assert_same_bits(fused, old)  # (the 80x60 kernel's gradient is consumed: lower_consume)


def test_the_consuming_lowering_keeps_the_dead_gradient_as_the_second_moment():
    rng = np.random.default_rng(1)
    start = [rng.random((64, 70)).astype(np.float32) for _ in range(3)]
    g = rng.normal(size=(64, 70)).astype(np.float32)
    scalars = [np.float32(0.01)] + [tw.constant(c).numpy() for c in (1 - 0.9, 1 - 0.999, 1e-7)]
    w, m, v = (tw.Variable(a) for a in start)
    ref = [tw.Variable(a) for a in start]
    with tw.Graph().as_default():  # an op to lower
        op = optimizer_ops.keras_adam_update(w, m, v, None, tw.constant(scalars[0]),
                                             tw.constant(g), 0.9, 0.999, 1e-7)
    optimizer_ops._lowered(op, consume=False)(*ref, *scalars, g.copy())
    old_w = w._value
    optimizer_ops._lowered(op, consume=True)(w, m, v, *scalars, g)
    assert v._value is g and w._value is not old_w
    np.testing.assert_array_equal(old_w, start[0])  # (never mutated: earlier reads hold it)
    _assert_same_bits([x.numpy() for x in (w, m, v)], [x.numpy() for x in ref])


def test_earlier_reads_keep_their_values_and_slots_stay_the_same_variables():
    w = tw.Variable(np.arange(6, dtype=np.float32).reshape(2, 3))
    opt = K.optimizers.Adam(0.1, amsgrad=True)
    opt.build([w])
    slots = [opt.get_slot(w, n) for n in ("m", "v", "vhat")]
    variables = list(opt.variables)
    before = [x.read_value() for x in [w] + slots]
    copies = [b.numpy().copy() for b in before]
    opt.apply_gradients([(tw.ones((2, 3)), w)])
    for b, c in zip(before, copies):
        np.testing.assert_array_equal(b.numpy(), c)
    assert all(opt.get_slot(w, n) is s for n, s in zip(("m", "v", "vhat"), slots))
    assert all(a is b for a, b in zip(opt.variables, variables))
    assert not np.array_equal(w.numpy(), copies[0])
    assert opt.get_config() == K.optimizers.Adam(0.1, amsgrad=True).get_config()


def test_checkpoint_of_fused_steps_restores_into_op_by_op_training(tmp_path):
    rng = np.random.default_rng(2)
    grads = [tw.constant(rng.normal(size=(3, 2)).astype(np.float32)) for _ in range(4)]

    def run(fused_first: bool, fused_then: bool):
        w = tw.Variable(np.ones((3, 2), np.float32))
        opt = K.optimizers.Adam(0.1)
        with contextlib.nullcontext() if fused_first else fused_adam.op_by_op():
            for g in grads[:2]:
                opt.apply_gradients([(g, w)])
        path = tw.train.Checkpoint(w=w, opt=opt).save(str(tmp_path / f"c{fused_first}"))
        w2 = tw.Variable(np.zeros((3, 2), np.float32))
        opt2 = K.optimizers.Adam(0.1)
        tw.train.Checkpoint(w=w2, opt=opt2).restore(path)
        with contextlib.nullcontext() if fused_then else fused_adam.op_by_op():
            for g in grads[2:]:
                opt2.apply_gradients([(g, w2)])
        return _state(opt2, [w2])
    _assert_same_bits(run(True, False), run(False, True))


def test_a_saved_train_step_keeps_the_constants_exactly(tmp_path):
    """The constants are tensor inputs: a GraphDef's float attrs would round them to float32
    (1 - 0.9 in float32 is not 1 - float32(0.9))."""
    class Trainer(tw.Module):
        def __init__(self):
            super().__init__()
            self.w = tw.Variable(np.ones((2,), np.float32))
            self.opt = K.optimizers.Adam(0.1)

        @tw.function(input_signature=[tw.TensorSpec([2], tw.float32)])
        def train(self, g):
            self.opt.apply_gradients([(g, self.w)])
            return self.w.read_value()
    g = tw.constant([1.0, 2.0])
    t = Trainer()
    t.train(g)
    tw.saved_model.save(t, str(tmp_path))
    loaded = tw.saved_model.load(str(tmp_path))
    np.testing.assert_array_equal(loaded.train(g).numpy(), t.train(g).numpy())


def _fallback(make_grads, mode="eager"):
    """Two Adam steps with the gradient ``make_grads(w)``: fused-enabled and op by op agree."""
    def run(fused: bool) -> list:
        w = tw.Variable(np.ones((4, 2), np.float32))
        opt = K.optimizers.Adam(0.1)

        def step():
            opt.apply_gradients([(make_grads(w), w)])
        if mode == "function":
            step = tw.function(step)
        with contextlib.nullcontext() if fused else fused_adam.op_by_op():
            step()
            step()
        return [w.numpy(), opt.get_slot(w, "m").numpy(), opt.get_slot(w, "v").numpy()]
    _assert_same_bits(run(True), run(False))


@pytest.mark.parametrize("mode", ["eager", "function"])
def test_sparse_and_broadcast_gradients_keep_the_op_by_op_program(mode, kernel_calls):
    _fallback(lambda w: tw.IndexedSlices(tw.constant([[1.0, 2.0]]), tw.constant([2]),
                                         tw.constant([4, 2])), mode)
    _fallback(lambda w: tw.constant(0.5), mode)  # a scalar gradient broadcast to the variable
    assert not kernel_calls


def test_check_numerics_and_autocast_keep_the_op_by_op_program(kernel_calls):
    from twinflow.ops.variables import autocast_variables
    tw.debugging.enable_check_numerics()
    try:
        _fallback(lambda w: tw.ones((4, 2)))
    finally:
        tw.debugging.disable_check_numerics()
    assert not kernel_calls
    w = tw.Variable(np.ones((2,), np.float64))
    opt = K.optimizers.Adam(0.1)
    opt.build([w])
    with autocast_variables("float16"), pytest.raises(InvalidArgumentError, match="Sub"):
        # the op-by-op program reads the slots as float16 (as it did before the fused op)
        opt.apply_gradients([(tw.ones((2,), tw.float64), w)])
    assert not kernel_calls
    w16 = tw.Variable(np.ones((2,), np.float16))
    with autocast_variables("float16"):  # nothing is cast: fused
        opt.apply_gradients([(tw.ones((2,), tw.float16), w16)])
    opt.apply_gradients([(tw.ones((2,), tw.float64), w)])
    assert len(kernel_calls) == 2


def test_distributed_variables_keep_the_op_by_op_program(kernel_calls):
    s = tw.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    with s.scope():
        w = tw.Variable(np.ones((3,), np.float32))
        opt = K.optimizers.Adam(0.1)
    opt.apply_gradients([(tw.constant([1.0, 2.0, 3.0]), w)])
    assert not kernel_calls
    ref = tw.Variable(np.ones((3,), np.float32))
    with fused_adam.op_by_op():
        K.optimizers.Adam(0.1).apply_gradients([(tw.constant([1.0, 2.0, 3.0]), ref)])
    for copy in w.values:
        np.testing.assert_array_equal(copy.numpy(), ref.numpy())


@pytest.mark.parametrize("mode", ["eager", "function"])
def test_loss_scale_optimizer_uses_the_fused_update(mode, kernel_calls):
    def make():
        return K.mixed_precision.LossScaleOptimizer(K.optimizers.Adam(0.05))
    rng = np.random.default_rng(4)
    grads = [[tw.constant(rng.normal(size=s).astype(np.float32)) for s in _SHAPES]
             for _ in range(3)]
    grads[1][0] = tw.constant(np.full((5, 3), np.inf, np.float32))  # a skipped step
    # (the slots and iterations compared too: the skipped step does not count)
    out = [_train(make, "float32", mode, fused, grads=grads) for fused in (True, False)]
    assert len(kernel_calls) == (3 * 2 if mode == "eager" else 0)  # (2 finite steps)
    _assert_same_bits(*out)


@pytest.mark.parametrize("mode", ["eager", "graph"])
def test_the_op_refuses_mismatched_arrays(mode):
    w, m, v = (tw.Variable(np.zeros((2, 3), np.float32)) for _ in range(3))
    alpha = tw.constant(np.float32(0.1))

    def call(g, a=alpha):
        return optimizer_ops.keras_adam_update(w, m, v, None, a, g, 0.9, 0.999, 1e-7)
    with pytest.raises(InvalidArgumentError, match="takes 8 inputs"):
        bind(optimizer_ops.KerasAdamUpdate, [w.handle, alpha], {"amsgrad": False})
    bad = [tw.zeros((3, 2)), tw.zeros((2, 3), tw.float64)]
    for g in bad:
        with pytest.raises(InvalidArgumentError, match="_KerasAdamUpdate"):
            if mode == "eager":
                call(g)
            else:
                with tw.Graph().as_default():
                    call(tw.constant(g.numpy()))
    with pytest.raises(InvalidArgumentError, match="_KerasAdamUpdate"):
        call(tw.zeros((2, 3)), tw.constant(np.float64(0.1)))
    np.testing.assert_array_equal(w.numpy(), np.zeros((2, 3), np.float32))
