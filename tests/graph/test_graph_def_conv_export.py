"""GraphDef export of convolutions as TensorFlow's ops need them: the gradient/transpose ops
carry ``padding``, ``strides`` and ``dilations``; a Conv3D with explicit pads (TensorFlow's
Conv3D takes only SAME/VALID) becomes a PadV2 feeding a VALID Conv3D; explicit pads that
TensorFlow cannot express raise on export, naming the op."""
from __future__ import annotations

import numpy as np
import pytest

import twinflow as tw

PADS3 = [[0, 0], [1, 1], [0, 1], [1, 0], [0, 0]]
W3 = np.random.RandomState(0).randn(2, 2, 2, 2, 3).astype(np.float32)


def _graph_def(fn, *specs):
    return tw.function(fn).get_concrete_function(*specs).graph.as_graph_def()


def _by_op(gd):
    return {n.op: n for n in gd.node}


def _input_grad(fn):
    def grad(x):
        with tw.GradientTape() as tape:
            tape.watch(x)
            y = tw.reduce_sum(fn(x) ** 2)
        return tape.gradient(y, x)
    return grad


def test_conv_transpose_and_gradient_nodes_carry_the_attrs_tensorflow_requires():
    x4 = tw.TensorSpec([1, 4, 4, 3], tw.float32)
    w4 = np.ones((3, 3, 2, 3), np.float32)
    nodes = _by_op(_graph_def(
        lambda x: tw.nn.conv2d_transpose(x, w4, [1, 8, 8, 2], 2, "SAME"), x4))
    back = nodes["Conv2DBackpropInput"].attr
    assert back["padding"].s == b"SAME" and list(back["strides"].list.i) == [1, 2, 2, 1]
    assert list(back["dilations"].list.i) == [1, 1, 1, 1] and back["T"].type == 1
    x5 = tw.TensorSpec([1, 3, 3, 3, 3], tw.float32)
    nodes = _by_op(_graph_def(
        lambda x: tw.nn.conv3d_transpose(x, W3, [1, 6, 6, 6, 2], 2, "VALID"), x5))
    back3 = nodes["Conv3DBackpropInputV2"].attr
    assert back3["padding"].s == b"VALID" and list(back3["strides"].list.i) == [1, 2, 2, 2, 1]
    assert back3["Tshape"].type == 3  # DT_INT32
    w2 = np.ones((3, 3, 3, 2), np.float32)
    nodes = _by_op(_graph_def(_input_grad(lambda x: tw.nn.conv2d(x, w2, 1, "VALID")),
                              tw.TensorSpec([1, 5, 5, 3], tw.float32)))
    assert nodes["Conv2DBackpropInput"].attr["padding"].s == b"VALID"


def test_conv3d_with_explicit_pads_exports_as_pad_and_valid_conv():
    x = np.random.RandomState(1).randn(1, 4, 4, 4, 2).astype(np.float32)
    fn = tw.function(lambda x: tw.nn.conv3d(x, W3, [1, 1, 1, 1, 1], PADS3))
    concrete = fn.get_concrete_function(tw.TensorSpec(x.shape, tw.float32))
    gd = concrete.graph.as_graph_def()
    nodes = _by_op(gd)
    conv, pad = nodes["Conv3D"], nodes["PadV2"]
    assert conv.attr["padding"].s == b"VALID" and "explicit_paddings" not in conv.attr
    assert conv.input[0] == pad.name and pad.input[0] == "x"
    out = concrete.outputs[0].name

    @tw.function
    def imported(x):
        (y,) = tw.import_graph_def(gd, input_map={"x:0": x}, return_elements=[out], name="")
        return y
    np.testing.assert_allclose(imported(tw.constant(x)).numpy(), fn(tw.constant(x)).numpy(),
                               rtol=1e-5, atol=1e-5)


def test_explicit_pads_tensorflow_cannot_express_raise_on_export_naming_the_op():
    grad = _input_grad(lambda x: tw.nn.conv3d(x, W3, [1, 1, 1, 1, 1], PADS3))
    with pytest.raises(tw.errors.UnimplementedError, match="Conv3DBackpropInputV2.*EXPLICIT"):
        _graph_def(grad, tw.TensorSpec([1, 4, 4, 4, 2], tw.float32))
