"""3-D convolution and pooling, depthwise 2-D convolution: op declarations on the kernels of
``conv_kernels`` (strided views and BLAS products, no loop over output positions).

Every op is channels-last (NDHWC / NHWC) as TensorFlow's CPU kernels; the public functions also
accept channels-first (``NCDHW``/``NCHW``) by transposing around the op. Each gradient is an op
whose own gradient closes the family (Conv3D's input gradient differentiates to Conv3D and its
filter gradient, as Conv2D's).
"""
from __future__ import annotations

import numpy as np

from ...graph.tensor import ShapeLike, TensorLike
from ..array.gather import gather
from ..array.layout import transpose
from ..array.shape import shape
from ..core import (
    InvalidArgumentError,
    Tensor,
    TensorShape,
    bind,
    check_float,
    convert,
    convert_pair,
    dtypes,
    register_op,
    shape_from_tensor,
)
from . import conv_kernels as ck
from .geometry import padding_attrs


def _err(msg: str) -> InvalidArgumentError:
    return InvalidArgumentError(None, None, msg)


def _dims(s: TensorShape, rank: int) -> list:
    return s.as_list() if s.rank is not None else [None] * rank


def _static(t, rank: int) -> list:
    s = shape_from_tensor(t)
    return s.as_list() if s.rank is not None else [None] * rank


def _spatial_out(op: str, in_sp, ksize, attrs) -> tuple:
    """Output spatial sizes (None where unknown) and pads (None where unknown)."""
    out, pads = [], []
    explicit = attrs.get("explicit_paddings")
    dil = attrs.get("dilations", (1,) * len(ksize))
    for d, (n, k, s, dl) in enumerate(zip(in_sp, ksize, attrs["strides"], dil)):
        if n is None or k is None:
            out.append(None)
            pads.append(None)
            continue
        o, b, a = ck.out_size(n, k, s, dl, attrs["padding"], explicit[d] if explicit else None)
        if o < 0:
            raise _err(f"{op}: computed output size would be negative: window of "
                       f"{(k - 1) * dl + 1} does not fit in input size {n} (dimension {d})")
        out.append(o)
        pads.append((b, a))
    return tuple(out), tuple(pads)


def _check_dy(op: str, dy, expected) -> None:
    if tuple(dy.shape) != tuple(expected):
        raise _err(f"{op}: out_backprop has shape {list(dy.shape)} but the "
                         f"convolution's output shape is {list(expected)}")


def _check_rank(op: str, s: TensorShape, rank: int, what: str) -> None:
    if s.rank is not None and s.rank != rank:
        raise _err(f"{op}: {what} must be {rank}-dimensional, got shape {s.as_list()}")


# ----- Conv3D -------------------------------------------------------------------------------

def _conv3d_infer(x, w, **attrs):
    check_float("Conv3D", x, allow_complex=False)
    _check_rank("Conv3D", x.shape, 5, "input")
    _check_rank("Conv3D", w.shape, 5, "filter")
    xs, fs = _dims(x.shape, 5), _dims(w.shape, 5)
    if xs[4] is not None and fs[3] is not None and xs[4] != fs[3]:
        raise _err(f"Conv3D: input depth {xs[4]} does not match the filter's input depth "
                   f"{fs[3]} (input shape {xs}, filter shape {fs})")
    out, _ = _spatial_out("Conv3D", xs[1:4], fs[:3], attrs)
    return x.dtype, TensorShape([xs[0], *out, fs[4]])


def _geo(x_shape, ksize, attrs):
    return ck.geometry(x_shape[1:-1], ksize, attrs["strides"], attrs["dilations"],
                       attrs["padding"], attrs.get("explicit_paddings"))


def _sizes_infer(op: str, sizes, rank: int, what: str, dtype):
    """The dtype and shape of a backprop op whose output shape is the ``sizes`` input."""
    dims = _static(sizes, rank)
    if len(dims) != rank:
        raise _err(f"{op}: {what} must have {rank} elements, got {dims}")
    return dtype, TensorShape(dims)


def _backprop_input_kernel(op: str, backprop, input_sizes, w, dy, attrs, out_depth: int):
    """Runs ``backprop`` (a ``ck`` input-gradient kernel) after checking ``dy``'s shape."""
    in_shape = tuple(int(v) for v in input_sizes)
    out_sp, pads = _geo(in_shape, w.shape[:-2], attrs)
    _check_dy(op, dy, (in_shape[0], *out_sp, out_depth))
    return backprop(in_shape, w, dy, attrs["strides"], attrs["dilations"],
                    pads).astype(w.dtype, copy=False)


def _backprop_filter_kernel(op: str, backprop, x, filter_sizes, dy, attrs, out_depth):
    """Runs ``backprop`` (a ``ck`` filter-gradient kernel) after checking ``dy``'s shape.

    ``out_depth`` maps the filter shape to the output's channel count.
    """
    fs = tuple(int(v) for v in filter_sizes)
    out_sp, pads = _geo(x.shape, fs[:-2], attrs)
    _check_dy(op, dy, (x.shape[0], *out_sp, out_depth(fs)))
    return backprop(x, fs, dy, attrs["strides"], attrs["dilations"],
                    pads).astype(x.dtype, copy=False)


# The gradients of a convolution family (forward op, input gradient, filter gradient): each
# gradient op differentiates to the other two, so the family closes under differentiation.

def _forward_grad(op, dy, backprop_input, backprop_filter):
    x, w = op.inputs
    need_x, need_w = op.needs_grad
    return (bind(backprop_input, [shape(x), w, dy], op.attrs) if need_x else None,
            bind(backprop_filter, [x, shape(w), dy], op.attrs) if need_w else None)


def _input_grad_grad(op, ddx, forward, backprop_filter):
    _, w, dy = op.inputs
    return (None, bind(backprop_filter, [ddx, shape(w), dy], op.attrs),
            bind(forward, [ddx, w], op.attrs))


def _filter_grad_grad(op, ddw, forward, backprop_input):
    x, _, dy = op.inputs
    return (bind(backprop_input, [shape(x), ddw, dy], op.attrs), None,
            bind(forward, [x, ddw], op.attrs))


@register_op("Conv3D", same_dtype=True)
class Conv3D:
    """3-D convolution (cross-correlation) of NDHWC ``input`` with DHWIO ``filter``."""

    infer = _conv3d_infer

    def kernel(x, w, **attrs):
        if x.shape[-1] != w.shape[-2]:
            raise ValueError("channel mismatch")  # bind re-runs infer for the message
        _, pads = _geo(x.shape, w.shape[:3], attrs)
        return ck.conv(x, w, attrs["strides"], attrs["dilations"], pads)

    def grad(op, dy):
        return _forward_grad(op, dy, Conv3DBackpropInputV2, Conv3DBackpropFilterV2)


@register_op("Conv3DBackpropInputV2")
class Conv3DBackpropInputV2:
    """Gradient of Conv3D with respect to its input (also the transposed convolution)."""

    def infer(input_sizes, w, dy, **attrs):
        _check_rank("Conv3DBackpropInputV2", w.shape, 5, "filter")
        return _sizes_infer("Conv3DBackpropInputV2", input_sizes, 5, "input_sizes", w.dtype)

    def kernel(input_sizes, w, dy, **attrs):
        return _backprop_input_kernel("Conv3DBackpropInputV2", ck.conv_backprop_input,
                                      input_sizes, w, dy, attrs, w.shape[-1])

    def grad(op, ddx):
        return _input_grad_grad(op, ddx, Conv3D, Conv3DBackpropFilterV2)


@register_op("Conv3DBackpropFilterV2")
class Conv3DBackpropFilterV2:
    """Gradient of Conv3D with respect to its filter."""

    def infer(x, filter_sizes, dy, **attrs):
        return _sizes_infer("Conv3DBackpropFilterV2", filter_sizes, 5, "filter_sizes", x.dtype)

    def kernel(x, filter_sizes, dy, **attrs):
        return _backprop_filter_kernel("Conv3DBackpropFilterV2", ck.conv_backprop_filter,
                                       x, filter_sizes, dy, attrs, lambda fs: fs[-1])

    def grad(op, ddw):
        return _filter_grad_grad(op, ddw, Conv3D, Conv3DBackpropInputV2)


# ----- DepthwiseConv2dNative ----------------------------------------------------------------

def _dw_infer(x, w, **attrs):
    check_float("DepthwiseConv2dNative", x, allow_complex=False)
    _check_rank("DepthwiseConv2dNative", x.shape, 4, "input")
    _check_rank("DepthwiseConv2dNative", w.shape, 4, "filter")
    xs, fs = _dims(x.shape, 4), _dims(w.shape, 4)
    if xs[3] is not None and fs[2] is not None and xs[3] != fs[2]:
        raise _err(f"DepthwiseConv2dNative: input depth {xs[3]} does not match the filter's "
                   f"input depth {fs[2]} (input shape {xs}, filter shape {fs})")
    out, _ = _spatial_out("DepthwiseConv2dNative", xs[1:3], fs[:2], attrs)
    depth = fs[2] * fs[3] if fs[2] is not None and fs[3] is not None else None
    return x.dtype, TensorShape([xs[0], *out, depth])


@register_op("DepthwiseConv2dNative", same_dtype=True)
class DepthwiseConv2dNative:
    """Each input channel convolved with its own ``channel_multiplier`` filters."""

    infer = _dw_infer

    def kernel(x, w, **attrs):
        if x.shape[-1] != w.shape[-2]:
            raise ValueError("channel mismatch")
        _, pads = _geo(x.shape, w.shape[:2], attrs)
        return ck.depthwise_conv(x, w, attrs["strides"], attrs["dilations"], pads)

    def grad(op, dy):
        return _forward_grad(op, dy, DepthwiseConv2dNativeBackpropInput,
                             DepthwiseConv2dNativeBackpropFilter)


@register_op("DepthwiseConv2dNativeBackpropInput")
class DepthwiseConv2dNativeBackpropInput:
    """Gradient of DepthwiseConv2dNative with respect to its input."""

    def infer(input_sizes, w, dy, **attrs):
        _check_rank("DepthwiseConv2dNativeBackpropInput", w.shape, 4, "filter")
        return _sizes_infer("DepthwiseConv2dNativeBackpropInput", input_sizes, 4, "input_sizes",
                            w.dtype)

    def kernel(input_sizes, w, dy, **attrs):
        return _backprop_input_kernel("DepthwiseConv2dNativeBackpropInput",
                                      ck.depthwise_backprop_input, input_sizes, w, dy, attrs,
                                      w.shape[2] * w.shape[3])

    def grad(op, ddx):
        return _input_grad_grad(op, ddx, DepthwiseConv2dNative,
                                DepthwiseConv2dNativeBackpropFilter)


@register_op("DepthwiseConv2dNativeBackpropFilter")
class DepthwiseConv2dNativeBackpropFilter:
    """Gradient of DepthwiseConv2dNative with respect to its filter."""

    def infer(x, filter_sizes, dy, **attrs):
        return _sizes_infer("DepthwiseConv2dNativeBackpropFilter", filter_sizes, 4,
                            "filter_sizes", x.dtype)

    def kernel(x, filter_sizes, dy, **attrs):
        return _backprop_filter_kernel("DepthwiseConv2dNativeBackpropFilter",
                                       ck.depthwise_backprop_filter, x, filter_sizes, dy, attrs,
                                       lambda fs: fs[2] * fs[3])

    def grad(op, ddw):
        return _filter_grad_grad(op, ddw, DepthwiseConv2dNative,
                                 DepthwiseConv2dNativeBackpropInput)


# ----- 3-D pooling --------------------------------------------------------------------------

def _pool3d_infer(name):
    def infer(x, **attrs):
        _check_rank(name, x.shape, 5, "input")
        xs = _dims(x.shape, 5)
        out, _ = _spatial_out(name, xs[1:4], attrs["ksize"], attrs)
        return x.dtype, TensorShape([xs[0], *out, xs[4]])
    return infer


def _max_pool_grad(op, dy, grad_op):
    """A max pool's gradient: ``grad_op`` routes ``dy`` to each window's maximum."""
    return bind(grad_op, [op.inputs[0], op.outputs[0], dy], op.attrs)


def _max_pool_grad_grad(op, dd, other):
    """The gradient of MaxPool(3D)Grad / MaxPool(3D)GradGrad: ``other``, the one of the pair
    that differentiates it, applied to ``dd`` (only the routed gradient input has one)."""
    x, y, _ = op.inputs
    return None, None, bind(other, [x, y, dd], op.attrs)


def _pool_pads(in_shape, attrs):
    r = len(attrs["ksize"])
    return ck.geometry(in_shape[1:-1], attrs["ksize"], attrs["strides"], (1,) * r,
                       attrs["padding"])


@register_op("MaxPool3D")
class MaxPool3D:
    """Maximum over ``ksize`` windows of an NDHWC tensor."""

    infer = _pool3d_infer("MaxPool3D")

    def kernel(x, **attrs):
        return ck.max_pool(x, attrs["ksize"], attrs["strides"], _pool_pads(x.shape, attrs)[1])

    def grad(op, dy):
        return _max_pool_grad(op, dy, MaxPool3DGrad)


@register_op("MaxPool3DGrad")
class MaxPool3DGrad:
    """Routes each window's gradient to its first maximum."""

    def infer(x, y, dy, **attrs):
        return dy.dtype, x.shape

    def kernel(x, y, dy, **attrs):
        return ck.max_pool_grad(x, dy, attrs["ksize"], attrs["strides"],
                                _pool_pads(x.shape, attrs)[1])

    def grad(op, ddx):
        return _max_pool_grad_grad(op, ddx, MaxPool3DGradGrad)


@register_op("MaxPool3DGradGrad")
class MaxPool3DGradGrad:
    """Picks, for each window, the input-shaped ``grad`` at the window's first maximum."""

    def infer(x, y, g, **attrs):
        return g.dtype, _pool3d_infer("MaxPool3DGradGrad")(x, **attrs)[1]

    def kernel(x, y, g, **attrs):
        return ck.max_pool_grad_grad(x, g, attrs["ksize"], attrs["strides"],
                                     _pool_pads(x.shape, attrs)[1])

    def grad(op, dd):
        return _max_pool_grad_grad(op, dd, MaxPool3DGrad)


@register_op("AvgPool3D")
class AvgPool3D:
    """Mean over ``ksize`` windows of an NDHWC tensor (padding not counted)."""

    infer = _pool3d_infer("AvgPool3D")

    def kernel(x, **attrs):
        return ck.avg_pool(x, attrs["ksize"], attrs["strides"], _pool_pads(x.shape, attrs)[1])

    def grad(op, dy):
        return bind(AvgPool3DGrad, [shape(op.inputs[0]), dy], op.attrs)


@register_op("AvgPool3DGrad")
class AvgPool3DGrad:
    """Spreads each window's gradient evenly over the inputs it averaged."""

    def infer(orig_input_shape, dy, **attrs):
        return dy.dtype, TensorShape(_static(orig_input_shape, 5))

    def kernel(orig_input_shape, dy, **attrs):
        in_shape = tuple(int(v) for v in orig_input_shape)
        out_sp, pads = _pool_pads(in_shape, attrs)
        _check_dy("AvgPool3DGrad", dy, (in_shape[0], *out_sp, in_shape[-1]))
        return ck.avg_pool_grad(in_shape, dy, attrs["ksize"], attrs["strides"], pads)

    def grad(op, ddx):
        return None, bind(AvgPool3D, [ddx], op.attrs)


# ----- public functions ----------------------------------------------------------------------

def nd_list(v, rank: int, name: str, default: int = 1) -> tuple:
    """Normalizes a stride/dilation/ksize argument to one int per spatial dimension.

    Args:
        v: None, an int, or a list of 1, ``rank`` or ``rank + 2`` ints (batch and channel
            entries must then be 1).
        rank: the number of spatial dimensions.
        name: the argument's name, for errors.
        default: the value for None.

    Returns:
        A tuple of ``rank`` ints.
    """
    if v is None:
        return (default,) * rank
    if isinstance(v, (int, np.integer)):
        return (int(v),) * rank
    v = [int(i) for i in v]
    if len(v) == 1:
        return (v[0],) * rank
    if len(v) == rank:
        return tuple(v)
    if len(v) == rank + 2:
        if v[0] != 1 or v[-1] != 1:
            raise ValueError(f"{name} in the batch and depth dimensions must be 1, got {v}")
        return tuple(v[1:-1])
    raise ValueError(f"{name} must be an int or a list of 1, {rank} or {rank + 2} ints, got {v}")


def _layout(data_format, rank: int, what: str) -> bool:
    """True for channels-first; checks the name."""
    spatial = "DHW"[3 - rank:]
    last, first = f"N{spatial}C", f"NC{spatial}"
    if data_format in (None, last):
        return False
    if data_format == first:
        return True
    raise ValueError(f"{what}: data_format must be {last!r} or {first!r}, got {data_format!r}")


def _to_last(x: Tensor, rank: int) -> Tensor:
    return transpose(x, [0, *range(2, rank + 2), 1])


def _to_first(x: Tensor, rank: int) -> Tensor:
    return transpose(x, [0, rank + 1, *range(1, rank + 1)])


def _conv_attrs(strides, padding, dilations, rank: int) -> dict:
    pad, explicit = padding_attrs(padding, rank)
    return {"strides": nd_list(strides, rank, "strides"), "padding": pad,
            "explicit_paddings": explicit, "dilations": nd_list(dilations, rank, "dilations")}


def conv3d(input: TensorLike, filters: TensorLike, strides, padding: str,
           data_format: str = "NDHWC", dilations=None, name: str | None = None) -> Tensor:
    """3-D convolution (``tw.nn.conv3d``).

    Args:
        input: a float tensor [batch, depth, height, width, in_channels] (or NCDHW).
        filters: [filter_depth, filter_height, filter_width, in_channels, out_channels].
        strides: an int or a list of 1, 3 or 5 ints.
        padding: "SAME", "VALID" or explicit pairs.
        data_format: "NDHWC" (default) or "NCDHW".
        dilations: an int or a list of 1, 3 or 5 ints (default 1).
        name: op name.

    Returns:
        The convolution, in ``data_format``.
    """
    first = _layout(data_format, 3, "conv3d")
    x, w = convert_pair(input, filters)
    attrs = _conv_attrs(strides, padding, dilations, 3)
    if first:
        return _to_first(bind(Conv3D, [_to_last(x, 3), w], attrs), 3)
    return bind(Conv3D, [x, w], attrs, name=name)


def conv3d_transpose(input: TensorLike, filters: TensorLike, output_shape: ShapeLike, strides,
                     padding: str = "SAME", data_format: str = "NDHWC", dilations=None,
                     name: str | None = None) -> Tensor:
    """Transposed 3-D convolution, the gradient of conv3d (``tw.nn.conv3d_transpose``).

    Args:
        input: a tensor [batch, depth, height, width, in_channels] (or NCDHW).
        filters: [filter_depth, filter_height, filter_width, output_channels, in_channels].
        output_shape: the 5-element output shape (in ``data_format``).
        strides: as for conv3d.
        padding: as for conv3d.
        data_format: "NDHWC" (default) or "NCDHW".
        dilations: as for conv3d.
        name: op name.

    Returns:
        The tensor of shape ``output_shape``.
    """
    first = _layout(data_format, 3, "conv3d_transpose")
    x, w = convert_pair(input, filters)
    attrs = _conv_attrs(strides, padding, dilations, 3)
    if first and isinstance(output_shape, (list, tuple)):
        output_shape = [output_shape[i] for i in (0, 2, 3, 4, 1)]
    sizes = convert(output_shape, dtype_hint=dtypes.int32)
    if first:
        if not isinstance(output_shape, list):
            sizes = _gather_last(sizes, 3)
        return _to_first(bind(Conv3DBackpropInputV2, [sizes, w, _to_last(x, 3)], attrs), 3)
    return bind(Conv3DBackpropInputV2, [sizes, w, x], attrs, name=name)


def _gather_last(sizes: Tensor, rank: int) -> Tensor:
    """A channels-first shape vector ``[N, C, *spatial]`` reordered to channels-last."""
    return gather(sizes, [0, *range(2, rank + 2), 1])


def depthwise_conv2d_native(input: TensorLike, filter: TensorLike, strides, padding: str,
                            data_format: str = "NHWC", dilations=None,
                            name: str | None = None) -> Tensor:
    """Depthwise 2-D convolution, one op (``tw.nn.depthwise_conv2d`` in TensorFlow 1 terms).

    Args:
        input: a float tensor [batch, height, width, in_channels] (or NCHW).
        filter: [filter_height, filter_width, in_channels, channel_multiplier].
        strides: an int or a list of 1, 2 or 4 ints.
        padding: "SAME", "VALID" or explicit pairs.
        data_format: "NHWC" (default) or "NCHW".
        dilations: an int or a list of 1, 2 or 4 ints.
        name: op name.

    Returns:
        [batch, out_height, out_width, in_channels * channel_multiplier] (in ``data_format``).
    """
    first = _layout(data_format, 2, "depthwise_conv2d")
    x, w = convert_pair(input, filter)
    attrs = _conv_attrs(strides, padding, dilations, 2)
    if first:
        return _to_first(bind(DepthwiseConv2dNative, [_to_last(x, 2), w], attrs), 2)
    return bind(DepthwiseConv2dNative, [x, w], attrs, name=name)


def depthwise_conv2d_backprop_input(input_sizes: TensorLike, filter: TensorLike,
                                    out_backprop: TensorLike, strides, padding: str,
                                    data_format: str = "NHWC", dilations=None,
                                    name: str | None = None) -> Tensor:
    """Gradient of depthwise_conv2d with respect to its input.

    Args:
        input_sizes: the input's 4-element shape.
        filter: [filter_height, filter_width, in_channels, channel_multiplier].
        out_backprop: the gradient of the output.
        strides: as for depthwise_conv2d.
        padding: as for depthwise_conv2d.
        data_format: "NHWC" (the only layout of this low-level op).
        dilations: as for depthwise_conv2d.
        name: op name.

    Returns:
        The input gradient.
    """
    _nhwc_only(data_format, "depthwise_conv2d_backprop_input")
    w, dy = convert_pair(filter, out_backprop)
    sizes = convert(input_sizes, dtype_hint=dtypes.int32)
    return bind(DepthwiseConv2dNativeBackpropInput, [sizes, w, dy],
                _conv_attrs(strides, padding, dilations, 2), name=name)


def depthwise_conv2d_backprop_filter(input: TensorLike, filter_sizes: TensorLike,
                                     out_backprop: TensorLike, strides, padding: str,
                                     data_format: str = "NHWC", dilations=None,
                                     name: str | None = None) -> Tensor:
    """Gradient of depthwise_conv2d with respect to its filter.

    Args:
        input: the convolution's input [batch, height, width, in_channels].
        filter_sizes: the filter's 4-element shape.
        out_backprop: the gradient of the output.
        strides: as for depthwise_conv2d.
        padding: as for depthwise_conv2d.
        data_format: "NHWC" (the only layout of this low-level op).
        dilations: as for depthwise_conv2d.
        name: op name.

    Returns:
        The filter gradient.
    """
    _nhwc_only(data_format, "depthwise_conv2d_backprop_filter")
    x, dy = convert_pair(input, out_backprop)
    sizes = convert(filter_sizes, dtype_hint=dtypes.int32)
    return bind(DepthwiseConv2dNativeBackpropFilter, [x, sizes, dy],
                _conv_attrs(strides, padding, dilations, 2), name=name)


def _nhwc_only(data_format, what: str) -> None:
    if data_format not in (None, "NHWC"):
        raise ValueError(f"{what} supports data_format='NHWC' only, got {data_format!r}")


def _pool3d(opdef, what, input, ksize, strides, padding, data_format, name) -> Tensor:
    first = _layout(data_format, 3, what)
    pad, _ = padding_attrs(padding, 3)
    if pad == "EXPLICIT":
        raise ValueError(f"{what} supports padding 'SAME' or 'VALID' only")
    attrs = {"ksize": nd_list(ksize, 3, "ksize"), "strides": nd_list(strides, 3, "strides"),
             "padding": pad}
    x = convert(input)
    if first:
        return _to_first(bind(opdef, [_to_last(x, 3)], attrs), 3)
    return bind(opdef, [x], attrs, name=name)


def max_pool3d(input: TensorLike, ksize, strides, padding: str, data_format: str = "NDHWC",
               name: str | None = None) -> Tensor:
    """Max pooling over 3-D windows (``tw.nn.max_pool3d``).

    Args:
        input: a tensor [batch, depth, height, width, channels] (or NCDHW).
        ksize: window size, an int or a list of 1, 3 or 5 ints.
        strides: window stride, likewise.
        padding: "SAME" or "VALID".
        data_format: "NDHWC" (default) or "NCDHW".
        name: op name.

    Returns:
        The pooled tensor.
    """
    return _pool3d(MaxPool3D, "max_pool3d", input, ksize, strides, padding, data_format, name)


def avg_pool3d(input: TensorLike, ksize, strides, padding: str, data_format: str = "NDHWC",
               name: str | None = None) -> Tensor:
    """Average pooling over 3-D windows (``tw.nn.avg_pool3d``; padding not counted).

    Args:
        input: a float tensor [batch, depth, height, width, channels] (or NCDHW).
        ksize: window size, an int or a list of 1, 3 or 5 ints.
        strides: window stride, likewise.
        padding: "SAME" or "VALID".
        data_format: "NDHWC" (default) or "NCDHW".
        name: op name.

    Returns:
        The pooled tensor.
    """
    return _pool3d(AvgPool3D, "avg_pool3d", input, ksize, strides, padding, data_format, name)
