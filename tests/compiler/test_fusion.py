"""Elementwise fusion: every registry case runs fused (tiny blocks, so groups span many blocks,
some on the thread pool) and unfused; results must be bit-for-bit equal."""
from __future__ import annotations

import numpy as np
import pytest

import twinflow as tw
from twinflow.compiler import fusion
from twinflow.compiler.codegen import compile_program
from twinflow.compiler.memory import memory_stats
from twinflow.compiler.pipeline import UNFUSED_PASSES, optimize
from twinflow.compiler.program import Program
from twinflow.core import config

from ..ops.harness import as_list, trace
from ..ops.test_registry import CASES

# Fuse everything, in blocks of a few elements, blocks shared over threads from 1 element up.
TINY = fusion.FusionOptions(min_elements=1, block_bytes=24, parallel_min=1)
TINY_PASSES = UNFUSED_PASSES + (("fusion", lambda p: fusion.fuse_elementwise(p, TINY)),)

_CASES = [c for c in CASES if c.graph and not c.stateful_random]


def _run(prog: Program, passes, args) -> list:
    opt, stats = optimize(prog, passes)
    return [np.asarray(v) for v in compile_program(opt)(*args)], stats, opt


@pytest.fixture
def two_threads():
    old = config.threading.get_intra_op_parallelism_threads()
    config.threading.set_intra_op_parallelism_threads(2)
    yield
    config.threading.set_intra_op_parallelism_threads(old)


def test_every_case_fused_equals_unfused(two_threads):
    fused_cases = 0
    for case in _CASES:
        g, phs, outs = trace(case, [a.shape for a in case.args])
        prog = Program(g, phs, as_list(outs))
        args = [np.asarray(a) for a in case.args]
        try:
            plain, _, _ = _run(prog, UNFUSED_PASSES, args)
        except Exception:  # noqa: BLE001 - cases checking errors: fused must fail alike
            with pytest.raises(Exception):  # noqa: B017
                _run(prog, TINY_PASSES, args)
            continue
        fused, stats, opt = _run(prog, TINY_PASSES, args)
        fused_cases += stats["fusion"] > 0
        for a, b in zip(plain, fused):
            assert a.dtype == b.dtype and a.shape == b.shape, case.id
            np.testing.assert_array_equal(a, b, err_msg=f"{case.id} fused vs unfused")
    assert fused_cases > 20   # the check is not vacuous


def _fn_source(fn, *args):
    cf = fn.get_concrete_function(*args)
    return cf, cf.generated_source


def test_gelu_is_one_fused_block_with_comment():
    x = tw.constant(np.random.default_rng(0).normal(size=40000).astype(np.float32))

    @tw.function
    def gelu(x):
        return 0.5 * x * (1.0 + tw.tanh(0.79788456 * (x + 0.044715 * x * x * x)))

    got = gelu(x).numpy()
    cf, src = _fn_source(gelu, x)
    assert cf.pass_stats["fusion"] == 9
    assert "9 elementwise ops fused into one blocked loop" in src
    assert "return 0.5 * x * (1.0 + tw.tanh(" in src        # the user's line is named
    assert "tanh(t" in src and "out=tO" in src and "tO = o[s:e]" in src  # (result block reused)
    xn = x.numpy()
    f = np.float32
    ref = f(0.5) * xn * (f(1.0) + np.tanh(f(0.79788456) * (xn + f(0.044715) * xn * xn * xn)))
    np.testing.assert_array_equal(got, ref)


def test_bias_relu_row_blocks_and_outside_uses_stay_unfused():
    rng = np.random.default_rng(1)
    x = tw.constant(rng.normal(size=(300, 64)).astype(np.float32))
    b = tw.constant(rng.normal(size=(64,)).astype(np.float32))

    @tw.function
    def f(x, b):
        z = tw.nn.bias_add(x * 2.0, b)
        h = tw.nn.relu(z)
        return h * h, z      # z is also returned: the group ends at z, a second one starts

    h2, z = f(x, b)
    cf, src = _fn_source(f, x, b)
    assert cf.pass_stats["fusion"] == 4
    assert src.count("fused into one blocked loop") == 2
    assert "rows per block" in src
    zn = x.numpy() * np.float32(2.0) + b.numpy()
    np.testing.assert_array_equal(z.numpy(), zn)
    np.testing.assert_array_equal(h2.numpy(), np.maximum(zn, 0) * np.maximum(zn, 0))


def test_small_results_are_not_fused():
    @tw.function
    def f(x):
        return tw.tanh(x * 2.0) + 1.0

    cf, _ = _fn_source(f, tw.constant(np.ones(100, np.float32)))
    assert cf.pass_stats["fusion"] == 0


def test_fused_kernel_matches_blocked_function():
    # the op's whole-array kernel (interpreter, GraphDef) and the generated loop agree
    x = tw.constant(np.linspace(-3, 3, 50000).astype(np.float32))

    @tw.function
    def f(x):
        return tw.where(x > 0.5, tw.sigmoid(x), tw.cast(tw.cast(x, tw.int32), tw.float32))

    out = f(x).numpy()
    cf, _ = _fn_source(f, x)
    op = [o for o in cf.optimized_graph.get_operations() if o.type == "FusedElementwise"][0]
    whole = op.opdef.kernel(x.numpy(), **op.attrs)
    np.testing.assert_array_equal(out, whole)


def test_fused_op_has_no_gradient():
    with pytest.raises(tw.errors.InvalidArgumentError, match="no gradient rule"):
        fusion.FusedElementwise.grad(None, None)


def test_memory_stats_before_and_after_planning():
    x = tw.constant(np.ones(400_000, np.float32))

    @tw.function
    def f(x):
        return tw.tanh(x * 2.0 + 1.0) * x

    f(x)
    st = f.get_concrete_function(x).memory_stats
    # unfused: four full-size float32 results; planned: the fused result only (every step
    # writes in place, in the result's own block: no scratch buffer)
    assert st["unplanned_bytes"] == 4 * 1_600_000
    assert st["fused_groups"] == 1 and st["exact"]
    assert st["peak_bytes"] == 1_600_000
    # a tree needs one block-sized scratch buffer beside the result's block
    g = tw.function(lambda x: tw.tanh(x * 2.0) * (x + 1.0))
    g(x)
    assert g.get_concrete_function(x).memory_stats["peak_bytes"] == \
        1_600_000 + fusion.DEFAULT.block_bytes
    assert st["bytes_saved"] == st["unplanned_bytes"] - st["peak_bytes"]


def test_unfused_chain_reuses_dead_buffers():
    # without fusion, codegen's in-place out= reuse is what the planner counts
    x = tw.constant(np.ones(100_000, np.float32))

    @tw.function
    def f(x):
        return tw.tanh(x * 2.0 + 1.0) * x

    f(x)
    prog = f.get_concrete_function(x)._callable.program
    st = memory_stats(optimize(prog, UNFUSED_PASSES)[0])
    assert st["fused_groups"] == 0 and st["buffers_reused"] >= 1   # x * 2 + 1 in place
    assert st["unplanned_bytes"] == 4 * 400_000
    assert st["peak_bytes"] <= 2 * 400_000        # at most two arrays alive at once


def test_jit_compile_selects_the_aggressive_pipeline():
    x = tw.constant(np.ones(5000, np.float32))

    def g(x):
        return tw.tanh(x * 2.0) + 1.0

    default, jit = tw.function(g), tw.function(g, jit_compile=True)
    np.testing.assert_array_equal(default(x).numpy(), jit(x).numpy())
    assert default.get_concrete_function(x).pass_stats["fusion"] == 0   # 5000 < 16384
    assert jit.get_concrete_function(x).pass_stats["fusion"] == 3


def test_fusion_inside_loops_branches_with_variables_and_tape():
    x = tw.constant(np.linspace(-1, 1, 50000).astype(np.float32))

    @tw.function
    def f(x):
        i = tw.constant(0)
        while i < 3:
            x = tw.tanh(x * 1.5 + 0.1) * 2.0
            i += 1
        if tw.reduce_sum(x) > 0:
            y = tw.nn.relu(x - 0.5) * 3.0
        else:
            y = x * x + 1.0
        return y

    xn, f32 = x.numpy(), np.float32
    for _ in range(3):
        xn = np.tanh(xn * f32(1.5) + f32(0.1)) * f32(2.0)
    ref = np.maximum(xn - f32(0.5), 0) * f32(3.0) if xn.sum() > 0 else xn * xn + f32(1.0)
    np.testing.assert_array_equal(f(x).numpy(), ref)
    assert f.get_concrete_function(x).generated_source.count("fused into") == 3
    with tw.GradientTape() as tape:     # the gradient is built from the unfused graph
        tape.watch(x)
        s = tw.reduce_sum(f(x))
    assert tape.gradient(s, x).shape == (50000,)

    v = tw.Variable(np.ones(50000, np.float32))

    @tw.function
    def g(x):
        v.assign(v * 0.5 + x * x)      # stateful ops stay outside fused groups
        return tw.exp(v) - 1.0

    np.testing.assert_allclose(g(x).numpy(), np.exp(0.5 + x.numpy() ** 2) - 1, rtol=1e-6)
    np.testing.assert_allclose(v.numpy(), 0.5 + x.numpy() ** 2, rtol=1e-6)


def test_trailing_last_axis_reductions_fuse_bit_for_bit():
    rng = np.random.default_rng(4)
    x = tw.constant(rng.normal(size=(2000, 100)).astype(np.float32))
    y = tw.constant(rng.normal(size=(2000, 100)).astype(np.float32))

    @tw.function
    def f(x, y):
        mse = tw.reduce_mean(tw.square(x - y), axis=-1)
        z = tw.reduce_sum(tw.exp(x - 1.0), axis=1, keepdims=True)
        whole = tw.reduce_sum(x * y)                 # all axes: not fused into the group
        return mse, z, whole

    got = [v.numpy() for v in f(x, y)]
    cf = f.get_concrete_function(x, y)
    src = cf.generated_source
    assert "2 elementwise ops and a trailing Mean" in src
    assert "2 elementwise ops and a trailing Sum" in src and "keepdims=True" in src
    plain = compile_program(optimize(cf._callable.program, UNFUSED_PASSES)[0])(
        x.numpy(), y.numpy())
    for a, b in zip(plain, got):
        np.testing.assert_array_equal(a, b)
