"""Fused blocks over a short last axis (tiled vectors), relu against zeros, relu gradients by
mask multiply (compiler/fused_codegen.py): the same bits as the unfused program."""
from __future__ import annotations

import numpy as np
import pytest

import twinflow as tw
from twinflow.compiler import fused_codegen, fusion
from twinflow.compiler.program import Program

from .test_fusion import TINY_PASSES, UNFUSED_PASSES, _run

_SPECIAL = [np.nan, -np.nan, np.inf, -np.inf, -0.0, 0.0, 1e-30, -1e-30]


def _data(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=shape).astype(dtype)
    flat = x.reshape(-1)
    k = min(len(_SPECIAL), flat.size)
    flat[:k] = np.asarray(_SPECIAL[:k], dtype)
    return x


def _program(fn, *specs):
    cf = tw.function(fn).get_concrete_function(*specs)
    return Program(cf.graph, cf.graph.inputs, cf.graph.outputs)


def _compare(fn, args, passes=TINY_PASSES):
    specs = [tw.TensorSpec(a.shape, tw.as_dtype(a.dtype)) for a in args]
    prog = _program(fn, *specs)
    plain, _, _ = _run(prog, UNFUSED_PASSES, args)
    fused, stats, opt = _run(prog, passes, args)
    assert stats["fusion"] > 0
    for a, b in zip(plain, fused):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_array_equal(a.view(f"u{a.itemsize}"), b.view(f"u{b.itemsize}"))
    return [fused_codegen.fused_source(op)[0] for op in opt.graph.get_operations()
            if op.type == "FusedElementwise"]


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("bias_shape", [(16,), (1, 1, 16)])
def test_bias_relu_over_a_short_last_axis_is_tiled_bit_for_bit(dtype, bias_shape):
    x = _data((6, 5, 7, 16), dtype)
    b = _data(bias_shape, dtype, seed=1)
    srcs = _compare(lambda x, b: tw.nn.relu(x + b) * 2.0, [x, b])
    assert any("copies of the last axis" in s and "tile(" in s for s in srcs)
    assert any("maximum(" in s and "zeros" in s for s in srcs)


def test_size_one_inputs_of_any_rank_broadcast_in_a_tiled_block():
    x = _data((4, 6, 16), np.float32)
    b = _data((16,), np.float32, seed=1)
    s = np.full((1, 1, 1), -0.5, np.float32)
    srcs = _compare(lambda x, b, s: tw.nn.relu(x + b + s), [x, b, s])
    assert any("copies of the last axis" in src for src in srcs)


def test_the_default_options_tile_the_convnet_bias_relu():
    x = _data((32, 26, 26, 16), np.float32)
    b = _data((16,), np.float32, seed=1)
    passes = UNFUSED_PASSES + (("fusion", fusion.fuse_elementwise),)
    srcs = _compare(lambda x, b: tw.nn.relu(tw.nn.bias_add(x, b)), [x, b], passes)
    assert len(srcs) == 1 and "a row is 676 copies of the last axis" in srcs[0]


@pytest.mark.parametrize("shape,vec", [
    ((40, 13), (13,)),         # 40 rows: one row of 40 copies
    ((7, 13), (13,)),          # rows of 91 elements at most: too short to gain
    ((16, 16), (16, 1)),       # broadcast along the first axis: not a last-axis vector
    ((4, 100), (100,)),        # a last axis longer than core.short_axis.SHORT_MAX
    ((3, 5, 8), (5, 8)),       # a matrix, not a vector: rows of the leading axis
])
def test_other_broadcasts_stay_correct(shape, vec):
    x = _data(shape, np.float32)
    v = _data(vec, np.float32, seed=2)
    srcs = _compare(lambda x, v: tw.exp(x - v) + v, [x, v])
    tiled = any("copies of the last axis" in s for s in srcs)
    assert tiled == (shape == (40, 13))


def test_relu_gradient_is_a_mask_multiply_with_where_bits():
    x = _data((9, 8, 16), np.float32)
    b = _data((16,), np.float32, seed=3)
    dy = _data((9, 8, 16), np.float32, seed=4)

    def grad(x, b, dy):
        with tw.GradientTape() as tape:
            tape.watch(x)
            y = tw.nn.relu(x + b)
        return tape.gradient(y, x, output_gradients=dy * 3.0)
    srcs = _compare(grad, [x, b, dy])
    assert any(".view(uint" in s for s in srcs)
    y = np.maximum(x + b, 0)
    got = tw.function(grad)(tw.constant(x), tw.constant(b), tw.constant(dy)).numpy()
    want = np.where(y > 0, dy * np.float32(3), np.float32(0))
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))


def test_tiling_needs_the_vector_and_a_short_axis():
    steps = (fusion.Step("ufunc", np.add, (("x", 0), ("x", 1)), np.dtype(np.float32),
                         "AddV2", "a", None, ()),)
    assert fused_codegen._tiling((64, 16), ((64, 16), (16,)), steps) == 64
    assert fused_codegen._tiling((64, 16), ((64, 16), ()), steps) == 1     # no vector
    assert fused_codegen._tiling((64, 16), ((64, 16), (64, 1)), steps) == 1
    assert fused_codegen._tiling((64, 65), ((64, 65), (65,)), steps) == 1
    assert fused_codegen._tiling((8, 16), ((8, 16), (16,)), steps) == 1    # rows too short
    assert fused_codegen._tiling((4096, 16), ((4096, 16), (16,)), steps) == 1024


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.int32, np.int8])
def test_fused_where_is_bitwise_on_unsigned_patterns(dtype):
    x = _data((40, 33), np.float64).astype(dtype)
    y = _data((40, 33), np.float64, seed=5).astype(dtype)
    srcs = _compare(lambda x, y: tw.where(x > y, x * 2, y - 1) * 3, [x, y])
    assert any("subtract(" in s and ".view(uint" in s for s in srcs)


def test_fused_where_with_a_scalar_branch_keeps_masked_copies():
    x = _data((40, 33), np.float32)
    srcs = _compare(lambda x: tw.where(x > 0, x * 2, 0.5) + 1, [x])
    assert any("where=" in s for s in srcs)


def test_fused_relus_with_the_same_block_share_one_zeros_array():
    x = _data((1 << 16,), np.float32)
    passes = UNFUSED_PASSES + (("fusion", fusion.fuse_elementwise),)
    spaces = []
    for fn in (lambda x: tw.nn.relu(x * 2.0 + 1.0), lambda x: tw.nn.relu(x * 3.0 - 1.0)):
        opt = _run(_program(fn, tw.TensorSpec(x.shape, tw.float32)), passes, [x])[2]
        op = next(o for o in opt.graph.get_operations() if o.type == "FusedElementwise")
        spaces.append(fused_codegen.fused_source(op)[1])
    z1, z2 = spaces[0]["zeros0"], spaces[1]["zeros0"]
    assert z1 is z2 and not z1.flags.writeable and not z1.any()
