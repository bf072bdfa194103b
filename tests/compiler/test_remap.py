"""The remapping pass (compiler/remap.py): Conv2D -> BiasAdd -> Relu as one _FusedConv2D, with
the bits of the three ops."""
from __future__ import annotations

import numpy as np
import pytest

import twinflow as tw
from twinflow.compiler.pipeline import DEFAULT_PASSES, UNFUSED_PASSES, optimize
from twinflow.compiler.program import Program
from twinflow.compiler.remap import remap_conv_bias_relu
from twinflow.graph.registry import REGISTRY

from .test_fusion import _run


def _program(fn, *arrays):
    specs = [tw.TensorSpec(a.shape, tw.as_dtype(a.dtype)) for a in arrays]
    cf = tw.function(fn).get_concrete_function(*specs)
    return Program(cf.graph, cf.graph.inputs, cf.graph.outputs)


def _data(dtype, c=3, o=16, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(4, 9, 8, c)).astype(dtype)
    w = rng.normal(size=(3, 3, c, o)).astype(dtype)
    b = rng.normal(size=(o,)).astype(dtype)
    x.reshape(-1)[:3] = [np.nan, -0.0, np.inf]
    return x, w, b


def _conv_bias_relu(x, w, b):
    return tw.nn.relu(tw.nn.bias_add(tw.nn.conv2d(x, w, 1, "SAME"), b)) * 2.0


def _types(prog) -> list:
    return [op.type for op in prog.graph.get_operations()]


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("c", [1, 16])   # im2col and shifted-product convolutions
def test_the_chain_becomes_one_op_with_the_same_bits(dtype, c):
    args = _data(dtype, c)
    prog = _program(_conv_bias_relu, *args)
    plain, _, _ = _run(prog, UNFUSED_PASSES, list(args))
    fused, stats, opt = _run(prog, DEFAULT_PASSES, list(args))
    assert stats["remap"] == 1
    assert "_FusedConv2D" in _types(opt) and "Conv2D" not in _types(opt)
    for a, b in zip(plain, fused):
        np.testing.assert_array_equal(a.view(f"u{a.itemsize}"), b.view(f"u{b.itemsize}"))


def test_training_step_gradients_are_unchanged():
    x, w, b = _data(np.float32, 16)

    def grads(x, w, b):
        with tw.GradientTape() as tape:
            tape.watch([w, b])
            loss = tw.reduce_sum(_conv_bias_relu(x, w, b) ** 2)
        return tape.gradient(loss, [w, b])
    x[np.isnan(x)] = 0.5
    x[np.isinf(x)] = 2.0
    prog = _program(grads, x, w, b)
    plain, _, _ = _run(prog, UNFUSED_PASSES, [x, w, b])
    fused, stats, _ = _run(prog, DEFAULT_PASSES, [x, w, b])
    assert stats["remap"] == 1
    for a, g in zip(plain, fused):
        np.testing.assert_array_equal(a, g)
    eager = grads(tw.constant(x), tw.constant(w), tw.constant(b))
    for a, g in zip(eager, fused):
        np.testing.assert_allclose(a.numpy(), g, rtol=1e-5, atol=1e-4)


def _conv_read_twice(x, w, b):
    y = tw.nn.conv2d(x, w, 1, "SAME")
    return tw.nn.relu(tw.nn.bias_add(y, b)) + y


def _bias_add_returned(x, w, b):
    z = tw.nn.bias_add(tw.nn.conv2d(x, w, 1, "SAME"), b)
    return tw.nn.relu(z), z


def _channels_first(x, w, b):
    y = tw.nn.conv2d(tf_nchw(x), w, 1, "SAME", data_format="NCHW")
    return tw.nn.relu(tw.nn.bias_add(y, b, data_format="NCHW"))


def tf_nchw(x):
    return tw.transpose(x, [0, 3, 1, 2])


@pytest.mark.parametrize("fn", [_conv_read_twice, _bias_add_returned, _channels_first])
def test_chains_whose_middle_values_are_needed_stay(fn):
    args = _data(np.float32, 16)
    prog = _program(fn, *args)
    _, n = remap_conv_bias_relu(optimize(prog, UNFUSED_PASSES)[0])
    assert n == 0


def test_fused_conv_refuses_other_fused_ops():
    x, w, b = _data(np.float32, 16)
    with pytest.raises(ValueError, match="not supported"):
        REGISTRY["_FusedConv2D"].kernel(x, w, b, fused_ops=("BiasAdd", "Elu"),
                                        strides=(1, 1), padding="SAME",
                                        explicit_paddings=None, dilations=(1, 1))


def test_an_empty_batch_runs():
    x, w, b = _data(np.float32, 16)
    f = tw.function(_conv_bias_relu)
    cf = f.get_concrete_function(tw.TensorSpec([None, 9, 8, 16], tw.float32), w, b)
    assert cf.pass_stats["remap"] == 1
    out = f(tw.constant(x[:0]), tw.constant(w), tw.constant(b))
    assert out.shape == (0, 9, 8, 16)
