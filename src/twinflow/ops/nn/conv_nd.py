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

def _conv_infer(op: str, rank: int, out_depth):
    """The ``infer`` of convolution ``op`` (input ``[N, *spatial, C]``, filter ``[*k, C, M]``,
    both of rank ``rank``); ``out_depth`` maps the filter's dims to the output's channels."""
    def infer(x, w, **attrs):
        check_float(op, x, allow_complex=False)
        _check_rank(op, x.shape, rank, "input")
        _check_rank(op, w.shape, rank, "filter")
        xs, fs = _dims(x.shape, rank), _dims(w.shape, rank)
        if xs[-1] is not None and fs[-2] is not None and xs[-1] != fs[-2]:
            raise _err(f"{op}: input depth {xs[-1]} does not match the filter's input depth "
                       f"{fs[-2]} (input shape {xs}, filter shape {fs})")
        out, _ = _spatial_out(op, xs[1:-1], fs[:-2], attrs)
        return x.dtype, TensorShape([xs[0], *out, out_depth(fs)])
    return infer


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


def _conv_family(names: tuple, rank: int, docs: tuple, kernels: tuple, out_depth) -> tuple:
    """Declares a convolution (input ``[N, *spatial, C]``, filter ``[*k, C, M]``) and its
    gradients with respect to the input and to the filter (the ops ``names``, described by
    ``docs``); returns the three OpDefs.

    ``kernels`` are the ``ck`` forward, input-gradient and filter-gradient kernels;
    ``out_depth`` maps a filter shape to the output's channel count (None if unknown).
    """
    forward_name, input_name, filter_name = names
    forward_kernel, input_kernel, filter_kernel = kernels
    ops = {}

    def kernel(x, w, **attrs):
        if x.shape[-1] != w.shape[-2]:
            raise ValueError("channel mismatch")  # bind re-runs infer for the message
        _, pads = _geo(x.shape, w.shape[:-2], attrs)
        return forward_kernel(x, w, attrs["strides"], attrs["dilations"], pads)

    def input_infer(input_sizes, w, dy, **attrs):
        _check_rank(input_name, w.shape, rank, "filter")
        return _sizes_infer(input_name, input_sizes, rank, "input_sizes", w.dtype)

    def input_grad_kernel(input_sizes, w, dy, **attrs):
        return _backprop_input_kernel(input_name, input_kernel, input_sizes, w, dy, attrs,
                                      out_depth(w.shape))

    def filter_infer(x, filter_sizes, dy, **attrs):
        return _sizes_infer(filter_name, filter_sizes, rank, "filter_sizes", x.dtype)

    def filter_grad_kernel(x, filter_sizes, dy, **attrs):
        return _backprop_filter_kernel(filter_name, filter_kernel, x, filter_sizes, dy, attrs,
                                       out_depth)

    def forward_grad(op, dy):
        return _forward_grad(op, dy, ops[input_name], ops[filter_name])

    def input_grad_grad(op, ddx):
        return _input_grad_grad(op, ddx, ops[forward_name], ops[filter_name])

    def filter_grad_grad(op, ddw):
        return _filter_grad_grad(op, ddw, ops[forward_name], ops[input_name])

    rules = {forward_name: (_conv_infer(forward_name, rank, out_depth), kernel, forward_grad),
             input_name: (input_infer, input_grad_kernel, input_grad_grad),
             filter_name: (filter_infer, filter_grad_kernel, filter_grad_grad)}
    for name, doc in zip(names, docs):
        infer_, kernel_, grad = rules[name]
        decl = type(name, (), {"__doc__": doc, "infer": infer_, "kernel": kernel_, "grad": grad})
        ops[name] = register_op(name, same_dtype=name == forward_name)(decl)
    return tuple(ops[name] for name in names)


Conv3D, Conv3DBackpropInputV2, Conv3DBackpropFilterV2 = _conv_family(
    ("Conv3D", "Conv3DBackpropInputV2", "Conv3DBackpropFilterV2"), 5,
    ("3-D convolution (cross-correlation) of NDHWC ``input`` with DHWIO ``filter``.",
     "Gradient of Conv3D with respect to its input (also the transposed convolution).",
     "Gradient of Conv3D with respect to its filter."),
    (ck.conv, ck.conv_backprop_input, ck.conv_backprop_filter),
    lambda fs: fs[-1])


# ----- DepthwiseConv2dNative ----------------------------------------------------------------

(DepthwiseConv2dNative, DepthwiseConv2dNativeBackpropInput,
 DepthwiseConv2dNativeBackpropFilter) = _conv_family(
    ("DepthwiseConv2dNative", "DepthwiseConv2dNativeBackpropInput",
     "DepthwiseConv2dNativeBackpropFilter"), 4,
    ("Each input channel convolved with its own ``channel_multiplier`` filters.",
     "Gradient of DepthwiseConv2dNative with respect to its input.",
     "Gradient of DepthwiseConv2dNative with respect to its filter."),
    (ck.depthwise_conv, ck.depthwise_backprop_input, ck.depthwise_backprop_filter),
    lambda fs: None if None in fs[2:] else fs[2] * fs[3])


# ----- 3-D pooling --------------------------------------------------------------------------

def _pool3d_infer(name):
    def infer(x, **attrs):
        _check_rank(name, x.shape, 5, "input")
        xs = _dims(x.shape, 5)
        out, _ = _spatial_out(name, xs[1:4], attrs["ksize"], attrs)
        return x.dtype, TensorShape([xs[0], *out, xs[4]])
    return infer


def _pool_family(names: tuple, layout: str, infer_of, geometry) -> tuple:
    """Declares a max pool, an average pool and their gradients (MaxPool, MaxPoolGrad,
    MaxPoolGradGrad, AvgPool, AvgPoolGrad, or the 3-D ones: the ops ``names``) on ``layout``
    (``"NHWC"``...) tensors; returns the five OpDefs.

    ``infer_of(op_name)`` is the ``infer`` of a pool; ``geometry(op_name, in_shape, attrs)``
    gives a pool's output spatial sizes and pads.
    """
    max_name, grad_name, grad_grad_name, avg_name, avg_grad_name = names
    ops = {}

    def pads(name, x, attrs):
        return geometry(name, x.shape, attrs)[1]

    def max_kernel(x, **attrs):
        return ck.max_pool(x, attrs["ksize"], attrs["strides"], pads(max_name, x, attrs))

    def grad_infer(x, y, dy, **attrs):
        return dy.dtype, x.shape

    def grad_kernel(x, y, dy, **attrs):
        return ck.max_pool_grad(x, dy, attrs["ksize"], attrs["strides"],
                                pads(grad_name, x, attrs))

    def grad_grad_infer(x, y, g, **attrs):
        return g.dtype, infer_of(grad_grad_name)(x, **attrs)[1]

    def grad_grad_kernel(x, y, g, **attrs):
        return ck.max_pool_grad_grad(x, g, attrs["ksize"], attrs["strides"],
                                     pads(grad_grad_name, x, attrs))

    def avg_kernel(x, **attrs):
        return ck.avg_pool(x, attrs["ksize"], attrs["strides"], pads(avg_name, x, attrs))

    def avg_grad_infer(orig_input_shape, dy, **attrs):
        return dy.dtype, TensorShape(_static(orig_input_shape, len(layout)))

    def avg_grad_kernel(orig_input_shape, dy, **attrs):
        in_shape = tuple(int(v) for v in orig_input_shape)
        out_sp, pads_ = geometry(avg_grad_name, in_shape, attrs)
        _check_dy(avg_grad_name, dy, (in_shape[0], *out_sp, in_shape[-1]))
        return ck.avg_pool_grad(in_shape, dy, attrs["ksize"], attrs["strides"], pads_)

    # The max pool's gradient routes dy to each window's maximum (MaxPoolGrad); MaxPoolGrad and
    # MaxPoolGradGrad differentiate to each other (only the routed gradient input has one).
    def max_pool_grad(op, dy):
        return bind(ops[grad_name], [op.inputs[0], op.outputs[0], dy], op.attrs)

    def routed_grad(other):
        def grad(op, dd):
            x, y, _ = op.inputs
            return None, None, bind(ops[other], [x, y, dd], op.attrs)
        return grad

    rules = {
        max_name: (f"Maximum over ``ksize`` windows of an {layout} tensor.",
                   infer_of(max_name), max_kernel, max_pool_grad),
        grad_name: ("Routes each window's gradient to its first maximum.",
                    grad_infer, grad_kernel, routed_grad(grad_grad_name)),
        grad_grad_name: ("Picks, for each window, the input-shaped ``grad`` at the window's "
                         "first maximum.", grad_grad_infer, grad_grad_kernel,
                         routed_grad(grad_name)),
        avg_name: (f"Mean over ``ksize`` windows of an {layout} tensor (padding not counted).",
                   infer_of(avg_name), avg_kernel,
                   lambda op, dy: bind(ops[avg_grad_name], [shape(op.inputs[0]), dy], op.attrs)),
        avg_grad_name: ("Spreads each window's gradient evenly over the inputs it averaged.",
                        avg_grad_infer, avg_grad_kernel,
                        lambda op, ddx: (None, bind(ops[avg_name], [ddx], op.attrs))),
    }
    for name in names:
        doc, infer, kernel, grad = rules[name]
        decl = type(name, (), {"__doc__": doc, "infer": infer, "kernel": kernel, "grad": grad})
        ops[name] = register_op(name)(decl)
    return tuple(ops[name] for name in names)


def _pool_geometry(name, in_shape, attrs):
    r = len(attrs["ksize"])
    return ck.geometry(in_shape[1:-1], attrs["ksize"], attrs["strides"], (1,) * r,
                       attrs["padding"])


MaxPool3D, MaxPool3DGrad, MaxPool3DGradGrad, AvgPool3D, AvgPool3DGrad = _pool_family(
    ("MaxPool3D", "MaxPool3DGrad", "MaxPool3DGradGrad", "AvgPool3D", "AvgPool3DGrad"), "NDHWC",
    _pool3d_infer, _pool_geometry)


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


def _conv(opdef, what: str, rank: int, input, filters, strides, padding, data_format, dilations,
          name) -> Tensor:
    """Binds the convolution ``opdef`` (channels-last; transposed around for channels-first)."""
    first = _layout(data_format, rank, what)
    x, w = convert_pair(input, filters)
    attrs = _conv_attrs(strides, padding, dilations, rank)
    if first:
        return _to_first(bind(opdef, [_to_last(x, rank), w], attrs), rank)
    return bind(opdef, [x, w], attrs, name=name)


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
    return _conv(Conv3D, "conv3d", 3, input, filters, strides, padding, data_format, dilations,
                 name)


def conv3d_transpose(input: TensorLike, filters: TensorLike, output_shape: ShapeLike, strides,
                     padding: str = "SAME", data_format: str = "NDHWC", dilations=None,
                     name: str | None = None) -> Tensor:
    """Transposed 3-D convolution, the gradient of conv3d (``tw.nn.conv3d_transpose``).

    Args:
        input: a tensor [batch, depth, height, width, in_channels] (or NCDHW).
        filters: [filter_depth, filter_height, filter_width, output_channels, in_channels].
        output_shape: the 5-element output shape (in ``data_format``).
        strides, padding, dilations: as for conv3d.
        data_format: "NDHWC" (default) or "NCDHW".
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
    return _conv(DepthwiseConv2dNative, "depthwise_conv2d", 2, input, filter, strides, padding,
                 data_format, dilations, name)


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
    return _depthwise_backprop(DepthwiseConv2dNativeBackpropInput, input_sizes, filter,
                               out_backprop, strides, padding, data_format, dilations, name)


def depthwise_conv2d_backprop_filter(input: TensorLike, filter_sizes: TensorLike,
                                     out_backprop: TensorLike, strides, padding: str,
                                     data_format: str = "NHWC", dilations=None,
                                     name: str | None = None) -> Tensor:
    """Gradient of depthwise_conv2d with respect to its filter.

    Args:
        input: the convolution's input [batch, height, width, in_channels].
        filter_sizes: the filter's 4-element shape.
        out_backprop, strides, padding, data_format, dilations, name: as for
            ``depthwise_conv2d_backprop_input``.

    Returns:
        The filter gradient.
    """
    return _depthwise_backprop(DepthwiseConv2dNativeBackpropFilter, filter_sizes, input,
                               out_backprop, strides, padding, data_format, dilations, name)


def _depthwise_backprop(opdef, sizes, tensor, out_backprop, strides, padding, data_format,
                        dilations, name) -> Tensor:
    """Binds a depthwise gradient op on the shape ``sizes`` and the tensors ``tensor`` (the
    filter for the input gradient, the input for the filter gradient) and ``out_backprop``."""
    input_grad = opdef is DepthwiseConv2dNativeBackpropInput
    _nhwc_only(data_format, "depthwise_conv2d_backprop_" + ("input" if input_grad else "filter"))
    t, dy = convert_pair(tensor, out_backprop)
    sizes = convert(sizes, dtype_hint=dtypes.int32)
    return bind(opdef, [sizes, t, dy] if input_grad else [t, sizes, dy],
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
        ksize, strides, padding, data_format, name: as for ``max_pool3d``.

    Returns:
        The pooled tensor.
    """
    return _pool3d(AvgPool3D, "avg_pool3d", input, ksize, strides, padding, data_format, name)
