"""Runs of plain arithmetic in fused loops compiled by numba (``jit_compile=True``, optional
extra): bit-for-bit the unfused program's results, special values included."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import twinflow as tw
from twinflow.compiler import fused_numba, fusion
from twinflow.compiler.codegen import compile_program
from twinflow.compiler.pipeline import UNFUSED_PASSES, optimize
from twinflow.compiler.program import bind_captures
from twinflow.core import config, workers
from twinflow.eager.func_graph import TensorSpec, trace_func_graph

# Blocks of 1000 elements, shared over two threads from any size, arithmetic compiled.
SMALL = dataclasses.replace(fusion.AGGRESSIVE, min_elements=1, block_bytes=4000, parallel_min=1)
_SPECIAL = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-40, -1e-40, 3e38, -3e38, 1e-30]


def _program(fn, *specs):
    fg = trace_func_graph(fn, specs, name="f")
    n = len(fg.inputs) - len(fg.captures)
    return bind_captures(fg, fg.inputs[:n], fg.captures, fg.outputs)


def _both(fn, args, specs):
    """(unfused results, fused results, generated fused source)."""
    prog = _program(fn, *specs)
    plain = compile_program(optimize(prog, UNFUSED_PASSES)[0])(*args)
    opt, stats = optimize(prog, UNFUSED_PASSES + (
        ("fusion", lambda p: fusion.fuse_elementwise(p, SMALL)),))
    assert stats["fusion"] > 0
    old = config.threading.get_intra_op_parallelism_threads()
    config.threading.set_intra_op_parallelism_threads(2)
    workers._backoff = workers._Backoff()
    try:
        fused = compile_program(opt)(*args)
    finally:
        config.threading.set_intra_op_parallelism_threads(old)
    op = [o for o in opt.graph.get_operations() if o.type == "FusedElementwise"][0]
    return plain, fused, op.opdef.lower(op).__source__


def _same_bits(a, b):
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape
    u = {4: np.uint32, 8: np.uint64}[a.dtype.itemsize]
    np.testing.assert_array_equal(a.view(u), b.view(u))


def test_runs_take_only_plain_float_arithmetic():
    f32, f64 = np.dtype(np.float32), np.dtype(np.float64)

    def step(fn, dtype=f32, kind="ufunc", args=(("x", 0), ("t", 0))):
        return fusion.Step(kind, fn, args, dtype, "Op", "op", None)
    steps = (step(np.multiply), step(np.add), step(np.tanh), step(np.negative),
             step(np.true_divide, f64), step(np.subtract, np.dtype(np.int32)),
             step(np.multiply, args=(("c", np.float64(2.0)), ("t", 0))),   # a float64 constant
             step(np.maximum), step(np.subtract), step(np.multiply),
             step(None, kind="relu"))
    assert [fused_numba.compilable(s) for s in steps] == [
        True, True, False, True, True, False, False, False, True, True, False]
    assert fused_numba.runs(steps) == [(0, 2), (3, 5), (8, 10)]   # two or more in a row


def test_without_numba_the_jit_loop_stays_numpy(monkeypatch):
    monkeypatch.setattr(fused_numba, "available", lambda: False)
    x = np.linspace(-3, 3, 5000, dtype=np.float32)
    plain, fused, src = _both(lambda x: (x * 2.0 + 1.0) * x, [x], [TensorSpec([5000],
                                                                               tw.float32)])
    assert "compile_run" not in src and "multiply(" in src
    _same_bits(plain[0], fused[0])


def test_gelu_runs_compiled_bit_for_bit():
    pytest.importorskip("numba")
    x = np.random.default_rng(0).normal(size=20000).astype(np.float32) * 4
    x[:len(_SPECIAL)] = _SPECIAL

    def gelu(x):
        return 0.5 * x * (1.0 + tw.tanh(0.79788456 * (x + 0.044715 * x * x * x)))
    plain, fused, src = _both(gelu, [x], [TensorSpec([20000], tw.float32)])
    assert "its arithmetic runs compiled by numba" in src
    assert src.count("compile_run(run") == 2            # before and after the tanh
    assert "tanh(t0, out=t0)  # Tanh Tanh" in src and "s1 = c1 * x0  # Mul Mul_1" in src
    _same_bits(plain[0], fused[0])


def test_division_negation_and_broadcast_scalars_bit_for_bit():
    pytest.importorskip("numba")
    rng = np.random.default_rng(1)
    x = rng.normal(size=(40, 250)) * 1e300
    x.reshape(-1)[:len(_SPECIAL)] = _SPECIAL
    y = rng.normal(size=(40, 250))
    y.reshape(-1)[::7] = 0.0
    y.reshape(-1)[::11] = -0.0
    w = np.array([-0.0])                              # size 1: read whole in every block

    def f(x, y, w):
        return -(x / y - w) * 3.0 / (y + w) - x * x
    specs = [TensorSpec([40, 250], tw.float64), TensorSpec([40, 250], tw.float64),
             TensorSpec([1], tw.float64)]
    plain, fused, src = _both(f, [x, y, w], specs)
    assert "compiled by numba" in src and "[0]" in src
    _same_bits(plain[0], fused[0])
