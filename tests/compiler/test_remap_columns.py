"""The remapping pass's third rule (compiler/remap.py): a convolution with few input channels
and its filter gradient take one column matrix (_Conv2DColumns), with the bits of the ops."""
from __future__ import annotations

import numpy as np
import pytest

import twinflow as tw
from twinflow.compiler.pipeline import DEFAULT_PASSES, UNFUSED_PASSES, optimize
from twinflow.compiler.remap import remap_shared_columns
from twinflow.graph.registry import REGISTRY

from .test_fusion import _run
from .test_remap import _program, _types
from .test_remap_backprop import _same_bits


def _data(dtype, n=6, c=1, o=16, size=(20, 18), seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, *size, c)).astype(dtype)
    w = rng.normal(size=(3, 3, c, o)).astype(dtype)
    b = rng.normal(size=(o,)).astype(dtype)
    return x, w, b


def _train(strides=1, padding="VALID", dilations=1, relu=True):
    def grads(x, w, b):
        with tw.GradientTape() as tape:
            tape.watch([w, b])
            y = tw.nn.bias_add(tw.nn.conv2d(x, w, strides, padding, dilations=dilations), b)
            y = tw.nn.relu(y) if relu else y
            loss = tw.reduce_sum(y * y)
        return tape.gradient(loss, [w, b]) + [y]
    return grads


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("c,strides,padding,dilations,relu", [
    (1, 1, "VALID", 1, True), (3, 1, "SAME", 1, True), (1, 2, "SAME", 1, True),
    (3, 1, "VALID", 2, False), (2, 2, "VALID", 1, False)])
def test_the_matrix_is_made_once_with_the_same_bits(dtype, c, strides, padding, dilations, relu):
    args = _data(dtype, c=c)
    prog = _program(_train(strides, padding, dilations, relu), *args)
    plain, _, _ = _run(prog, UNFUSED_PASSES, list(args))
    fused, stats, opt = _run(prog, DEFAULT_PASSES, list(args))
    types = _types(opt)
    assert types.count("_Conv2DColumns") == 1
    assert "_Conv2DFromColumns" in types and "_Conv2DBackpropFilterFromColumns" in types
    assert "Conv2DBackpropFilter" not in types
    for a, b in zip(plain, fused):
        _same_bits(a, b)


def _no_gradient(x, w, b):
    return tw.nn.relu(tw.nn.conv2d(x, w, 1, "VALID"))


def _two_paddings(x, w, b):
    with tw.GradientTape() as tape:
        tape.watch(w)
        loss = tw.reduce_sum(tw.nn.conv2d(x, w, 1, "VALID") ** 2)
    dw = tape.gradient(loss, w)
    return dw, tw.nn.conv2d(x, w, 1, "SAME")


@pytest.mark.parametrize("fn,args", [
    (_no_gradient, _data(np.float32)),                # nothing to share with
    (_train(), _data(np.float32, c=8)),               # 8 channels: shifted products
    (_train(), _data(np.float32, n=64, size=(64, 64))),   # columns over one block
])
def test_what_does_not_share_stays(fn, args):
    prog = _program(fn, *args)
    _, n = remap_shared_columns(optimize(prog, UNFUSED_PASSES)[0])
    assert n == 0


def test_only_the_same_geometry_shares():
    args = _data(np.float32)
    prog = _program(_two_paddings, *args)
    plain, _, _ = _run(prog, UNFUSED_PASSES, list(args))
    fused, stats, opt = _run(prog, DEFAULT_PASSES, list(args))
    types = _types(opt)
    # the VALID convolution and its gradient share; the SAME one keeps its own matrix
    assert types.count("_Conv2DColumns") == 1 and types.count("Conv2D") == 1
    for a, b in zip(plain, fused):
        _same_bits(a, b)


def test_an_unknown_batch_size_keeps_the_ops():
    x, w, b = _data(np.float32)
    cf = tw.function(_train()).get_concrete_function(
        tw.TensorSpec([None, *x.shape[1:]], tw.float32), w, b)
    assert "_Conv2DColumns" not in cf.generated_source
    eager = _train()(tw.constant(x), tw.constant(w), tw.constant(b))
    for a, g in zip(cf(tw.constant(x), tw.constant(w), tw.constant(b)), eager):
        _same_bits(a.numpy(), g.numpy())


def test_the_ops_check_what_they_are_given():
    x, w, b = _data(np.float32)
    cols = REGISTRY["_Conv2DColumns"].kernel(x, ksize=(3, 3), strides=(1, 1),
                                             padding="VALID", explicit_paddings=None,
                                             dilations=(1, 1))
    assert cols.shape == (9, 6 * 18 * 16)
    with pytest.raises(ValueError, match="not supported"):
        REGISTRY["_Conv2DFromColumns"].kernel(cols, w, b, out_shape=(6, 18, 16, 16),
                                              fused_ops=("BiasAdd", "Elu"))
