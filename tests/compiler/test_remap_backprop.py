"""The remapping pass's second rule (compiler/remap.py): a convolution's input and filter
gradients as one _FusedConv2DBackprop, with the bits of the two ops."""
from __future__ import annotations

import numpy as np
import pytest

import twinflow as tw
from twinflow.compiler.pipeline import DEFAULT_PASSES, UNFUSED_PASSES, optimize
from twinflow.compiler.remap import remap_conv_backprops
from twinflow.graph.registry import REGISTRY
from twinflow.ops.nn import conv_kernels as ck

from .test_fusion import _run
from .test_remap import _program, _types


def _same_bits(a, b) -> None:
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape
    np.testing.assert_array_equal(a.view(f"u{a.itemsize}"), b.view(f"u{b.itemsize}"))


def _grads(padding="VALID", dilations=1):
    def grads(x, w):
        with tw.GradientTape() as tape:
            tape.watch([x, w])
            y = tw.nn.conv2d(x, w, 1, padding, dilations=dilations)
            loss = tw.reduce_sum(y * y)
        return tape.gradient(loss, [x, w])
    return grads


def _data(dtype, c, o, size=(5, 11, 9), seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(*size, c)).astype(dtype)
    w = rng.normal(size=(3, 3, c, o)).astype(dtype)
    return x, w


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("c,o,padding,dilations", [
    (16, 16, "VALID", 1), (16, 16, "SAME", 1), (8, 24, "SAME", 2),    # shifted products
    (3, 16, "SAME", 1), (16, 80, "VALID", 1)])                         # other kernels
def test_the_pair_becomes_one_op_with_the_same_bits(dtype, c, o, padding, dilations):
    args = _data(dtype, c, o)
    prog = _program(_grads(padding, dilations), *args)
    plain, _, _ = _run(prog, UNFUSED_PASSES, list(args))
    fused, stats, opt = _run(prog, DEFAULT_PASSES, list(args))
    assert stats["remap"] == 1
    types = _types(opt)
    assert "_FusedConv2DBackprop" in types
    assert "Conv2DBackpropInput" not in types and "Conv2DBackpropFilter" not in types
    for a, b in zip(plain, fused):
        _same_bits(a, b)


@pytest.mark.parametrize("threads", [1, 2, 4])
def test_the_kernel_equals_the_two_kernels(threads):
    x, w = _data(np.float32, 16, 16, (6, 20, 20), 1)
    dy = np.random.default_rng(2).normal(size=(6, 18, 18, 16)).astype(np.float32)
    args = ((1, 1), (1, 1), ((0, 0), (0, 0)))
    old = tw.config.threading.get_intra_op_parallelism_threads()
    tw.config.threading.set_intra_op_parallelism_threads(threads)
    try:
        dx, dw = ck.conv_backprop_both(x, w, dy, *args)
        _same_bits(dx, ck.conv_backprop_input(x.shape, w, dy, *args))
        _same_bits(dw, ck.conv_backprop_filter(x, w.shape, dy, *args))
    finally:
        tw.config.threading.set_intra_op_parallelism_threads(old)


def test_an_unknown_batch_size_and_an_empty_batch():
    x, w = _data(np.float32, 16, 16)
    f = tw.function(_grads())
    cf = f.get_concrete_function(tw.TensorSpec([None, 11, 9, 16], tw.float32),
                                 tw.TensorSpec(w.shape, tw.float32))
    assert cf.pass_stats["remap"] == 1
    got = f(tw.constant(x), tw.constant(w))
    eager = _grads()(tw.constant(x), tw.constant(w))
    for a, b in zip(got, eager):
        _same_bits(a.numpy(), b.numpy())
    dx, dw = f(tw.constant(x[:0]), tw.constant(w))
    assert dx.shape == (0, 11, 9, 16) and not np.any(dw.numpy())


def _input_grad_only(x, w):
    with tw.GradientTape() as tape:
        tape.watch(x)
        loss = tw.reduce_sum(tw.nn.conv2d(x, w, 1, "VALID"))
    return tape.gradient(loss, x)


def _different_dy(x, w):
    y = tw.nn.conv2d(x, w, 1, "VALID")
    dx = tw.raw_ops.Conv2DBackpropInput(input_sizes=tw.shape(x), filter=w, out_backprop=y,
                                       strides=[1, 1, 1, 1], padding="VALID")
    dw = tw.raw_ops.Conv2DBackpropFilter(input=x, filter_sizes=tw.shape(w),
                                        out_backprop=y * 2.0, strides=[1, 1, 1, 1],
                                        padding="VALID")
    return dx, dw


def _other_strides(x, w):
    dy = tw.nn.conv2d(x, w, 1, "SAME")
    dx = tw.raw_ops.Conv2DBackpropInput(input_sizes=tw.shape(x), filter=w, out_backprop=dy,
                                       strides=[1, 1, 1, 1], padding="SAME")
    dw = tw.raw_ops.Conv2DBackpropFilter(input=x, filter_sizes=tw.shape(w), out_backprop=dy,
                                        strides=[1, 1, 1, 1], padding="SAME",
                                        dilations=[1, 2, 2, 1])
    return dx, dw


def _sizes_of_another_tensor(x, w):
    dy = tw.nn.conv2d(x, w, 1, "SAME")
    dx = tw.raw_ops.Conv2DBackpropInput(input_sizes=tw.shape(x * 2.0), filter=w,
                                       out_backprop=dy, strides=[1, 1, 1, 1], padding="SAME")
    dw = tw.raw_ops.Conv2DBackpropFilter(input=x, filter_sizes=tw.shape(w), out_backprop=dy,
                                        strides=[1, 1, 1, 1], padding="SAME")
    return dx, dw


@pytest.mark.parametrize("fn", [_input_grad_only, _different_dy, _other_strides])
def test_pairs_that_do_not_match_stay(fn):
    args = _data(np.float32, 16, 16)
    prog = _program(fn, *args)
    _, n = remap_conv_backprops(optimize(prog, UNFUSED_PASSES)[0])
    assert n == 0


@pytest.mark.parametrize("fn,fused", [(_sizes_of_another_tensor, False), (_grads(), True)])
def test_with_an_unknown_batch_the_sizes_must_be_shape_ops_of_x_and_w(fn, fused):
    x, w = _data(np.float32, 16, 16)
    cf = tw.function(fn).get_concrete_function(tw.TensorSpec([None, 11, 9, 16], tw.float32),
                                               tw.TensorSpec(w.shape, tw.float32))
    assert ("_FusedConv2DBackprop" in cf.generated_source) == fused
    eager = fn(tw.constant(x), tw.constant(w))
    for a, b in zip(cf(tw.constant(x), tw.constant(w)), eager):
        _same_bits(a.numpy(), b.numpy())


def test_the_fused_op_checks_dy():
    x, w = _data(np.float32, 16, 16)
    with pytest.raises(tw.errors.InvalidArgumentError, match="out_backprop"):
        REGISTRY["_FusedConv2DBackprop"].kernel(x, w, np.zeros((5, 3, 3, 16), np.float32),
                                               strides=(1, 1), padding="VALID",
                                               explicit_paddings=None, dilations=(1, 1))


def _relu_then_conv(padding="VALID", extra=False):
    def grads(x, w):
        with tw.GradientTape() as tape:
            tape.watch([x, w])
            h = tw.nn.relu(x)
            y = tw.nn.conv2d(h, w, 1, padding)
            loss = tw.reduce_sum(y * y)
        dx, dw = tape.gradient(loss, [x, w])
        return dx, dw
    return grads


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("c,o,padding", [(16, 16, "VALID"), (16, 16, "SAME"), (3, 16, "SAME"),
                                         (8, 48, "VALID")])
def test_the_relu_gradient_below_joins_with_the_same_bits(dtype, c, o, padding):
    x, w = _data(dtype, c, o, seed=3)
    x.reshape(-1)[::13] = -0.0
    x.reshape(-1)[::17] = 0.0
    prog = _program(_relu_then_conv(padding), x, w)
    plain, _, _ = _run(prog, UNFUSED_PASSES, [x, w])
    fused, stats, opt = _run(prog, DEFAULT_PASSES, [x, w])
    assert stats["remap"] == 1
    fops = [op for op in opt.graph.get_operations() if op.type == "_FusedConv2DBackprop"]
    assert len(fops) == 1 and tuple(fops[0].attrs["fused_ops"]) == ("ReluGrad",)
    assert "ReluGrad" not in _types(opt)
    for a, b in zip(plain, fused):
        _same_bits(a, b)


def test_a_gradient_read_twice_keeps_its_relu_gradient_apart():
    def grads(x, w):
        with tw.GradientTape(persistent=True) as tape:
            tape.watch([x, w])
            h = tw.nn.relu(x)
            loss = tw.reduce_sum(tw.nn.conv2d(h, w, 1, "VALID") ** 2)
        dh, dw = tape.gradient(loss, [h, w])
        return tape.gradient(loss, x), dh, dw
    x, w = _data(np.float32, 16, 16)
    prog = _program(grads, x, w)
    plain, _, _ = _run(prog, UNFUSED_PASSES, [x, w])
    fused, stats, opt = _run(prog, DEFAULT_PASSES, [x, w])
    fops = [op for op in opt.graph.get_operations() if op.type == "_FusedConv2DBackprop"]
    assert fops and all(not op.attrs.get("fused_ops") for op in fops)
    for a, b in zip(plain, fused):
        _same_bits(a, b)


def test_the_fused_op_refuses_other_fused_ops():
    x, w = _data(np.float32, 16, 16)
    dy = np.zeros((5, 9, 7, 16), np.float32)
    with pytest.raises(ValueError, match="not supported"):
        REGISTRY["_FusedConv2DBackprop"].kernel(x, w, dy, x, fused_ops=("Relu6Grad",),
                                               strides=(1, 1), padding="VALID",
                                               explicit_paddings=None, dilations=(1, 1))


@pytest.mark.parametrize("dtype", [np.float32, "bfloat16"])
def test_the_kernel_with_its_relu_gradient_equals_the_ops(dtype):
    dt = tw.bfloat16.as_numpy_dtype if dtype == "bfloat16" else np.dtype(dtype)
    x, w = (a.astype(dt) for a in _data(np.float32, 16, 16, seed=4))
    y = np.maximum(x, dt.type(0)) if dtype != "bfloat16" else x
    dy = np.random.default_rng(5).normal(size=(5, 9, 7, 16)).astype(dt)
    attrs = dict(strides=(1, 1), padding="VALID", explicit_paddings=None, dilations=(1, 1))
    dx, dw = REGISTRY["_FusedConv2DBackprop"].kernel(x, w, dy, y, fused_ops=("ReluGrad",),
                                                    **attrs)
    ref = REGISTRY["Conv2DBackpropInput"].kernel(np.array(x.shape), w, dy, **attrs)
    _same_bits(dx, REGISTRY["ReluGrad"].kernel(ref, y))
    _same_bits(dw, REGISTRY["Conv2DBackpropFilter"].kernel(x, np.array(w.shape), dy, **attrs))
