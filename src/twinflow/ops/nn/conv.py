"""Convolutions (im2col-style) and bias_add: conv1d/2d, transposed, depthwise, separable, atrous."""
from __future__ import annotations

import numpy as np

from ...core import dtypes
from ...core.errors import InvalidArgumentError
from ...core.shapes import TensorShape
from ...eager.execute import bind
from ...graph.graph import name_scoped
from ...graph.registry import register_op
from ...graph.tensor import ShapeLike, Tensor, TensorLike
from ..array.gather import gather
from ..array.layout import expand_dims, squeeze, transpose
from ..core import ZerosLike, convert, convert_pair, quietly
from ..fast_elementwise import (
    bias_relu_in_place,
    relu_grad,
    relu_grad_in_place,
    short_axis_binary,
)
from ..math.fast_reduce import add_reduce
from . import conv_kernels as ck
from .conv_nd import (
    _check_dy,
    _check_rank,
    _filter_grad_grad,
    _forward_grad,
    _input_grad_grad,
    _sizes_infer,
    depthwise_conv2d_native,
)
from .geometry import (
    _conv_attrs,
    _conv_shape,
    _geometry,
    _width_arg,
    channels_first,
)

_TO_NHWC, _TO_NCHW = [0, 2, 3, 1], [0, 3, 1, 2]


def _channel_axis(rank, data_format):
    return 1 if data_format is not None and data_format.startswith("NC") and rank > 2 else -1


def _bias_add_infer(value, bias, *, data_format="NHWC"):
    if bias.shape.rank is not None and bias.shape.rank != 1:
        raise InvalidArgumentError(None, None, f"Biases must be 1D: {bias.shape}")
    rank = value.shape.rank
    if rank is not None:
        if rank < 2:
            raise InvalidArgumentError(None, None, f"Input tensor must be at least 2D: "
                                                   f"{value.shape}")
        c = value.shape[_channel_axis(rank, data_format)]
        b = bias.shape[0] if bias.shape.rank == 1 else None
        if c is not None and b is not None and c != b:
            raise InvalidArgumentError(
                None, None, f"Must provide as many biases as the channel dimension of the "
                f"input tensor: {bias.shape} vs. {value.shape}")
    return value.dtype, value.shape


@register_op("BiasAdd", same_dtype=True)
class BiasAdd:
    """value + bias along the channel dimension."""

    infer = _bias_add_infer

    def kernel(value, bias, *, data_format="NHWC"):
        if bias.ndim != 1 or value.ndim < 2 or \
                value.shape[_channel_axis(value.ndim, data_format)] != bias.shape[0]:
            raise ValueError("shape mismatch")  # bind re-runs infer for the message
        if _channel_axis(value.ndim, data_format) == 1:
            bias = bias.reshape((-1,) + (1,) * (value.ndim - 2))
        else:  # a few channels: add over long rows of a tiled bias (fast_elementwise)
            out = short_axis_binary(np.add, value, bias)
            if out is not None:
                return out
        return value + bias

    def grad(op, dy):
        if not op.needs_grad[1]:
            return dy, None
        fmt = op.attrs["data_format"]
        return dy, bind(BiasAddGrad, [dy], {"data_format": fmt})


@register_op("BiasAddGrad")
class BiasAddGrad:
    """Sums ``out_backprop`` over every dimension but the channel one."""

    def infer(dy, *, data_format="NHWC"):
        rank = dy.shape.rank
        if rank is None:
            return dy.dtype, TensorShape([None])
        return dy.dtype, TensorShape([dy.shape[_channel_axis(rank, data_format)]])

    def kernel(dy, *, data_format="NHWC"):
        ch = _channel_axis(dy.ndim, data_format) % dy.ndim
        axes = tuple(i for i in range(dy.ndim) if i != ch)
        return quietly(add_reduce, dy, axes, dy.dtype, False)  # (a BLAS product for NHWC)

    def grad(op, ddb):
        dy = op.inputs[0]
        return bind(BiasAdd, [bind(ZerosLike, [dy]), ddb], {"data_format":
                                                            op.attrs["data_format"]})


def bias_add(value: TensorLike, bias: TensorLike, data_format: str | None = None,
             name: str | None = None) -> Tensor:
    """Adds a 1-D ``bias`` along the channel dimension of ``value`` (``tw.nn.bias_add``).

    Args:
        value: a tensor of rank >= 2.
        bias: a 1-D tensor, as long as the channel dimension.
        data_format: "NHWC"-style (channels last, default) or "NCHW"-style.
        name: op name.

    Returns:
        ``value`` plus the broadcast bias.
    """
    value, bias = convert_pair(value, bias)
    return bind(BiasAdd, [value, bias], {"data_format": data_format or "NHWC"}, name=name)


# ----- Conv2D and its gradients -------------------------------------------------------------------

def _conv_infer(x, w, **attrs):
    return x.dtype, _conv_shape("Conv2D", x.shape, w.shape, attrs)


@register_op("Conv2D", same_dtype=True)
class Conv2D:
    """2-D convolution (cross-correlation) of NHWC ``input`` with HWIO ``filter``."""

    infer = _conv_infer

    def kernel(x, w, epilogue=None, **attrs):
        kh, kw, c, o = w.shape
        _, pads = _geometry("Conv2D", x.shape, kh, kw, attrs)
        if x.shape[3] != c:
            raise ValueError("channel mismatch")  # bind re-runs infer for the message
        return ck.conv(x, w, attrs["strides"], attrs.get("dilations", (1, 1)), pads,
                       epilogue=epilogue)

    def grad(op, dy):
        return _forward_grad(op, dy, Conv2DBackpropInput, Conv2DBackpropFilter)


@register_op("_FusedConv2D", same_dtype=True)
class FusedConv2D:
    """``Relu(BiasAdd(Conv2D(x, w), bias))`` as one op, made by the compiler's remapping pass
    (``compiler/remap.py``) as TensorFlow's remapper makes its ``_FusedConv2D``: the bias and
    the relu are applied in place to the convolution's fresh result (short last axes as long
    rows, relu against cached zeros: ``ops/fast_elementwise``) instead of a fused block
    reading it and writing a new array. The same arithmetic, so the bits of the three ops."""

    def infer(x, w, bias, *, fused_ops, **attrs):
        return _conv_infer(x, w, **attrs)

    def kernel(x, w, bias, *, fused_ops, **attrs):
        if tuple(fused_ops) != ("BiasAdd", "Relu"):
            raise ValueError(f"_FusedConv2D: fused_ops {fused_ops} are not supported")
        if x.dtype.kind == "f" and w.dtype == x.dtype:
            # on each batch piece as the convolution makes it, while it is in cache
            return Conv2D.kernel(x, w, epilogue=lambda piece: bias_relu_in_place(piece, bias),
                                 **attrs)
        out = Conv2D.kernel(x, w, **attrs)   # (bfloat16: the bias added to rounded values)
        if np.shares_memory(out, x) or np.shares_memory(out, w) or not out.flags.writeable:
            out = out.copy()
        bias_relu_in_place(out, bias)
        return out


@register_op("Conv2DBackpropInput")
class Conv2DBackpropInput:
    """Gradient of Conv2D with respect to its input (also the transposed convolution)."""

    def infer(input_sizes, w, dy, **attrs):
        _check_rank("Conv2DBackpropInput", w.shape, 4, "filter")
        return _sizes_infer("Conv2DBackpropInput", input_sizes, 4, "input_sizes", w.dtype)

    def kernel(input_sizes, w, dy, **attrs):
        in_shape = tuple(int(v) for v in input_sizes)
        kh, kw, c, o = w.shape
        out_hw, pads = _geometry("Conv2DBackpropInput", in_shape, kh, kw, attrs)
        _check_dy("Conv2DBackpropInput", dy, (in_shape[0], *out_hw, o))
        return ck.conv_backprop_input(in_shape, w, dy, attrs["strides"],
                                      attrs.get("dilations", (1, 1)), pads).astype(
                                          w.dtype, copy=False)

    def grad(op, ddx):
        return _input_grad_grad(op, ddx, Conv2D, Conv2DBackpropFilter)


@register_op("Conv2DBackpropFilter")
class Conv2DBackpropFilter:
    """Gradient of Conv2D with respect to its filter."""

    def infer(x, filter_sizes, dy, **attrs):
        return _sizes_infer("Conv2DBackpropFilter", filter_sizes, 4, "filter_sizes", x.dtype)

    def kernel(x, filter_sizes, dy, **attrs):
        kh, kw, c, o = (int(v) for v in filter_sizes)
        out_hw, pads = _geometry("Conv2DBackpropFilter", x.shape, kh, kw, attrs)
        _check_dy("Conv2DBackpropFilter", dy, (x.shape[0], *out_hw, o))
        return ck.conv_backprop_filter(x, (kh, kw, c, o), dy, attrs["strides"],
                                       attrs.get("dilations", (1, 1)), pads).astype(
                                           x.dtype, copy=False)

    def grad(op, ddw):
        return _filter_grad_grad(op, ddw, Conv2D, Conv2DBackpropInput)


@register_op("_FusedConv2DBackprop", multi_output=True)
class FusedConv2DBackprop:
    """``Conv2DBackpropInput(Shape(x), w, dy)`` and ``Conv2DBackpropFilter(x, Shape(w), dy)``
    of one convolution as one op with both gradients, made by the compiler's remapping pass
    (``compiler/remap.py``): with the shifted products, one wide copy of dy and one hand-off
    to the threads serve both (``conv_kernels.conv_backprop_both``). With
    ``fused_ops=("ReluGrad",)`` and a fourth input ``y``, the input gradient comes out as
    ``ReluGrad(dx, y)``, applied to each batch piece as it is made. The bits of the ops."""

    def infer(x, w, dy, *y, fused_ops=(), **attrs):
        return [(w.dtype, x.shape), (x.dtype, w.shape)]

    def kernel(x, w, dy, *y, fused_ops=(), **attrs):
        if tuple(fused_ops) not in ((), ("ReluGrad",)) or len(y) != len(fused_ops):
            raise ValueError(f"_FusedConv2DBackprop: fused_ops {fused_ops} are not supported")
        kh, kw, c, o = w.shape
        out_hw, pads = _geometry("Conv2DBackpropInput", x.shape, kh, kw, attrs)
        _check_dy("Conv2DBackpropInput", dy, (x.shape[0], *out_hw, o))
        epilogue = None
        if y and x.dtype.kind == "f" and w.dtype == x.dtype == y[0].dtype:
            def epilogue(a, b, piece):
                relu_grad_in_place(piece, y[0][a:b])
        dx, dw = ck.conv_backprop_both(x, w, dy, attrs["strides"],
                                       attrs.get("dilations", (1, 1)), pads, epilogue)
        dx = dx.astype(w.dtype, copy=False)
        if y and epilogue is None:   # (bfloat16: the mask on the rounded gradient)
            dx = relu_grad(dx, y[0])
        return dx, dw.astype(x.dtype, copy=False)


# ----- a column matrix made once for a convolution and its filter gradient (compiler/remap.py) -

@register_op("_Conv2DColumns")
class Conv2DColumns:
    """The transposed column matrix ``[kh * kw * C, N * OH * OW]`` of a convolution's input
    with few channels, made once for the convolution (``_Conv2DFromColumns``) and its filter
    gradient (``_Conv2DBackpropFilterFromColumns``) when the compiler's remapping pass finds
    both (``conv_kernels.shares_columns``); the bits of ``Conv2D`` and ``Conv2DBackpropFilter``.
    """

    def infer(x, *, ksize, **attrs):
        (oh, ow), _ = _geometry("Conv2D", x.shape.as_list(), *ksize, attrs)
        n, c = x.shape.as_list()[0], x.shape.as_list()[3]
        return x.dtype, TensorShape([ksize[0] * ksize[1] * c, n * oh * ow])

    def kernel(x, *, ksize, **attrs):
        _, pads = _geometry("Conv2D", x.shape, *ksize, attrs)
        return ck.columns(x, ksize, attrs["strides"], attrs.get("dilations", (1, 1)), pads)

    def shares(x_shape: tuple, w_shape: tuple, attrs: dict, itemsize: int) -> bool:
        """For the remapping pass: whether a ``Conv2D`` or ``Conv2DBackpropFilter`` of these
        static shapes and attrs may take its column matrix from this op."""
        try:
            _, pads = _geometry("Conv2D", x_shape, w_shape[0], w_shape[1], attrs)
        except (ValueError, InvalidArgumentError):   # (the kernel reports it at run time)
            return False
        return ck.shares_columns(x_shape, w_shape, tuple(attrs["strides"]),
                                 tuple(attrs.get("dilations") or (1, 1)), pads, itemsize)


@register_op("_Conv2DFromColumns", same_dtype=True)
class Conv2DFromColumns:
    """``Conv2D`` (or ``_FusedConv2D``, with ``fused_ops`` and a bias) from ``_Conv2DColumns``."""

    def infer(cols, w, *bias, out_shape, fused_ops=()):
        return cols.dtype, TensorShape(list(out_shape))

    def kernel(cols, w, *bias, out_shape, fused_ops=()):
        if tuple(fused_ops) not in ((), ("BiasAdd", "Relu")) or len(bias) != len(fused_ops) // 2:
            raise ValueError(f"_Conv2DFromColumns: fused_ops {fused_ops} are not supported")
        return ck.conv_from_columns(cols, w, tuple(out_shape), (
            lambda out: bias_relu_in_place(out, bias[0])) if bias else None)


@register_op("_Conv2DBackpropFilterFromColumns", same_dtype=True)
class Conv2DBackpropFilterFromColumns:
    """``Conv2DBackpropFilter`` from ``_Conv2DColumns``."""

    def infer(cols, dy, *, filter_sizes):
        return cols.dtype, TensorShape(list(filter_sizes))

    def kernel(cols, dy, *, filter_sizes):
        return ck.filter_from_columns(cols, tuple(filter_sizes), dy).astype(cols.dtype,
                                                                            copy=False)


def conv2d(input: TensorLike, filters: TensorLike, strides, padding: str, data_format: str = "NHWC",
           dilations=None, name: str | None = None) -> Tensor:
    """2-D convolution (``tw.nn.conv2d``).

    Args:
        input: a float tensor [batch, height, width, in_channels].
        filters: a tensor [filter_height, filter_width, in_channels, out_channels].
        strides: an int or a list of 1, 2 or 4 ints (batch and channel strides must be 1).
        padding: "SAME", "VALID", or explicit [[0, 0], [top, bottom], [left, right], [0, 0]].
        data_format: "NHWC" (default) or "NCHW".
        dilations: an int or a list of 1, 2 or 4 ints (default 1).
        name: op name.

    Returns:
        The convolution, [batch, out_height, out_width, out_channels].
    """
    x, w = convert_pair(input, filters)
    attrs = _conv_attrs(strides, padding, dilations, data_format)
    if channels_first(data_format, "conv2d"):
        return transpose(bind(Conv2D, [transpose(x, _TO_NHWC), w], attrs), _TO_NCHW)
    return bind(Conv2D, [x, w], attrs, name=name)


def conv2d_transpose(input: TensorLike, filters: TensorLike, output_shape: ShapeLike, strides,
                     padding: str = "SAME", data_format: str = "NHWC", dilations=None,
                     name: str | None = None) -> Tensor:
    """Transposed 2-D convolution, the gradient of conv2d (``tw.nn.conv2d_transpose``).

    Args:
        input: a tensor [batch, height, width, in_channels].
        filters: a tensor [filter_height, filter_width, output_channels, in_channels].
        output_shape: the 4-element output shape.
        strides: as for conv2d.
        padding: as for conv2d.
        data_format: "NHWC" (default) or "NCHW".
        dilations: as for conv2d.
        name: op name.

    Returns:
        The tensor of shape ``output_shape``.
    """
    x, w = convert_pair(input, filters)
    attrs = _conv_attrs(strides, padding, dilations, data_format)
    first = channels_first(data_format, "conv2d_transpose")
    if first and isinstance(output_shape, (list, tuple)):
        output_shape = [output_shape[i] for i in _TO_NHWC]
    sizes = convert(output_shape, dtype_hint=dtypes.int32)
    if first:
        if not isinstance(output_shape, list):
            sizes = gather(sizes, _TO_NHWC)
        return transpose(bind(Conv2DBackpropInput, [sizes, w, transpose(x, _TO_NHWC)], attrs),
                         _TO_NCHW)
    return bind(Conv2DBackpropInput, [sizes, w, x], attrs, name=name)


@name_scoped
def conv1d(input: TensorLike, filters: TensorLike, stride, padding: str, data_format: str = "NWC",
           dilations=None, name: str | None = None) -> Tensor:
    """1-D convolution of [batch, width, channels] inputs (``tw.nn.conv1d``).

    Args:
        input: a float tensor [batch, width, in_channels].
        filters: a tensor [filter_width, in_channels, out_channels].
        stride: an int or a list of 1 or 3 ints.
        padding: "SAME", "VALID" or explicit [[0, 0], [left, right], [0, 0]].
        data_format: "NWC" (default) or "NCW".
        dilations: an int or a list of 1 or 3 ints.

    Returns:
        The convolution, [batch, out_width, out_channels] (or NCW).
    """
    if data_format not in (None, "NWC", "NCW"):
        raise ValueError(f"conv1d: data_format must be 'NWC' or 'NCW', got {data_format!r}")
    first = data_format == "NCW"  # a height-1 image: NCW -> NC1W, NWC -> N1WC
    axis = 2 if first else 1
    x, w = convert_pair(input, filters)
    if not isinstance(padding, str):
        padding = [[0, 0], [0, 0]] + [list(p) for p in padding][1:]
    out = conv2d(expand_dims(x, axis), expand_dims(w, 0),
                 [1, _width_arg(stride, "stride", first)], padding,
                 "NCHW" if first else "NHWC",
                 dilations=[1, _width_arg(dilations, "dilations", first)])
    return squeeze(out, [axis])


@name_scoped
def depthwise_conv2d(input: TensorLike, filter: TensorLike, strides, padding: str,
                     data_format: str | None = None, dilations=None,
                     name: str | None = None) -> Tensor:
    """Depthwise 2-D convolution: each input channel gets its own filters.

    One ``DepthwiseConv2dNative`` op (output channel ``c * multiplier + m`` is input channel
    c convolved with filter m).

    Args:
        input: a float tensor [batch, height, width, in_channels].
        filter: a tensor [filter_height, filter_width, in_channels, channel_multiplier].
        strides: as for conv2d.
        padding: as for conv2d.
        data_format: "NHWC" (default) or "NCHW".
        dilations: as for conv2d.

    Returns:
        A tensor [batch, out_height, out_width, in_channels * channel_multiplier].
    """
    x, f = convert_pair(input, filter)
    if f.shape.rank not in (None, 4):
        raise ValueError(f"depthwise_conv2d needs a rank-4 filter, got shape {f.shape}")
    return depthwise_conv2d_native(x, f, strides, padding, data_format or "NHWC", dilations)


@name_scoped
def separable_conv2d(input: TensorLike, depthwise_filter: TensorLike, pointwise_filter: TensorLike,
                     strides, padding: str, data_format: str | None = None, dilations=None,
                     name: str | None = None) -> Tensor:
    """Depthwise convolution followed by a 1x1 convolution (``tw.nn.separable_conv2d``).

    Args:
        input: a float tensor [batch, height, width, in_channels].
        depthwise_filter: [filter_height, filter_width, in_channels, channel_multiplier].
        pointwise_filter: [1, 1, in_channels * channel_multiplier, out_channels].
        strides: as for conv2d.
        padding: as for conv2d.
        data_format: "NHWC" (the only layout supported).
        dilations: as for conv2d.

    Returns:
        A tensor [batch, out_height, out_width, out_channels].
    """
    d = depthwise_conv2d(input, depthwise_filter, strides, padding, data_format, dilations)
    return conv2d(d, pointwise_filter, 1, "VALID")


def atrous_conv2d(value: TensorLike, filters: TensorLike, rate, padding: str,
                  name: str | None = None) -> Tensor:
    """conv2d with dilation ``rate`` (``tw.nn.atrous_conv2d``).

    Args:
        value: a float tensor [batch, height, width, in_channels].
        filters: a tensor [filter_height, filter_width, in_channels, out_channels].
        rate: the dilation rate.
        padding: "SAME" or "VALID".
        name: op name.

    Returns:
        The convolution.
    """
    return conv2d(value, filters, 1, padding, dilations=rate, name=name)
