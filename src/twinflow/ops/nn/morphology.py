"""Window maxima that remember where they came from: ``max_pool_with_argmax`` (TensorFlow's
flattened argmax, ``(y * width + x) * channels + c``, plus ``batch * height * width *
channels`` with ``include_batch_in_index``) and grayscale morphology, ``dilation2d`` and
``erosion2d`` (``max(input + filter)`` over dilated windows; erosion is the dual).

Each kernel walks the window offsets in row-major order over the padded input, keeping the
first maximum (TensorFlow's tie rule); the gradients route each output's gradient to that
position, through the backprop ops TensorFlow defines (``MaxPoolGradWithArgmax``,
``Dilation2DBackpropInput``/``Filter``).
"""
from __future__ import annotations

import numpy as np

from ...core import dtypes
from ...core.errors import InvalidArgumentError
from ...core.shapes import TensorShape
from ...eager.execute import bind
from ...graph.graph import name_scoped
from ...graph.registry import register_op
from ...graph.tensor import Tensor, TensorLike
from ..array.gather import gather
from ..array.layout import reverse
from ..array.shape import reshape, shape
from ..core import convert
from ..math.cast import cast
from ..math.unary import negative
from .conv_kernels import out_size
from .geometry import _hw4

_REAL = "float,double,int32,uint8,int16,int8,int64,bfloat16,uint16,half,uint32,uint64"


def _err(msg: str) -> InvalidArgumentError:
    return InvalidArgumentError(None, None, msg)


def _spatial(op: str, x_shape: TensorShape, kh, kw, strides, rates, padding) -> TensorShape:
    if x_shape.rank is not None and x_shape.rank != 4:
        raise _err(f"{op}: input must be 4-dimensional [batch, height, width, channels], got "
                   f"shape {x_shape}")
    xs = x_shape.as_list() if x_shape.rank is not None else [None] * 4
    dims = []
    for size, k, s, r in ((xs[1], kh, strides[1], rates[1]), (xs[2], kw, strides[2], rates[2])):
        if size is None or k is None:
            dims.append(None)
            continue
        o = out_size(size, k, s, r, padding)[0]
        if o < 0:
            raise _err(f"{op}: the window ({k}, rate {r}) does not fit the input size {size} "
                       "with VALID padding")
        dims.append(o)
    return TensorShape([xs[0], dims[0], dims[1], xs[3]])


def _check4(op: str, attrs: dict, *names) -> None:
    for n in names:
        v = attrs[n]
        if len(v) != 4 or v[0] != 1 or v[3] != 1:
            raise _err(f"{op}: {n} must be [1, h, w, 1] (batch and depth 1), got {list(v)}")


def _windows(x, kh, kw, strides, rates, padding, fill):
    """(padded input, output size, pads, one (ky, kx, view) per window offset)."""
    n, h, w, c = x.shape
    oh, pt, _ = out_size(h, kh, strides[1], rates[1], padding)
    ow, pl, _ = out_size(w, kw, strides[2], rates[2], padding)
    eh, ew = (kh - 1) * rates[1] + 1, (kw - 1) * rates[2] + 1
    ph = max((oh - 1) * strides[1] + eh - h - pt, 0)
    pw = max((ow - 1) * strides[2] + ew - w - pl, 0)
    xp = np.pad(x, ((0, 0), (pt, ph), (pl, pw), (0, 0)), constant_values=fill)
    views = []
    for ky in range(kh):
        for kx in range(kw):
            y0, x0 = ky * rates[1], kx * rates[2]
            views.append((ky, kx, xp[:, y0:y0 + (oh - 1) * strides[1] + 1:strides[1],
                                     x0:x0 + (ow - 1) * strides[2] + 1:strides[2]]))
    return (oh, ow), (pt, pl), views


def _fill(dtype):
    return -np.inf if dtype.kind in "fV" else np.iinfo(dtype).min  # (V: bfloat16)


def _argmax_windows(x, kh, kw, strides, rates, padding, filt=None):
    """Each output's maximum and the window offset number it came from."""
    size, pads, views = _windows(x, kh, kw, strides, rates, padding, _fill(x.dtype))
    best = arg = None
    for k, (ky, kx, v) in enumerate(views):
        if filt is not None:
            v = v + filt[ky, kx]
        if best is None:
            best, arg = v.copy(), np.zeros(v.shape, np.int32)
        else:
            np.copyto(arg, k, where=v > best)
            np.maximum(best, v, out=best)
    return best, arg, size, pads


def _positions(arg, kw, strides, rates, pads, size):
    """Input (y, x) of each output's maximum from its window offset number."""
    oy = np.arange(size[0])[None, :, None, None] * strides[1]
    ox = np.arange(size[1])[None, None, :, None] * strides[2]
    return oy + (arg // kw) * rates[1] - pads[0], ox + (arg % kw) * rates[2] - pads[1]


# ----- max_pool_with_argmax ----------------------------------------------------------------

def _mpa_attrs_infer(input, *, ksize, strides, padding, Targmax=dtypes.int64,
                     include_batch_in_index=False):
    _check4("MaxPoolWithArgmax", {"ksize": ksize, "strides": strides}, "ksize", "strides")
    s = _spatial("MaxPoolWithArgmax", input.shape, ksize[1], ksize[2], strides, [1] * 4,
                 padding)
    return [(input.dtype, s), (dtypes.as_dtype(Targmax), s)]


def _flat_index(x_shape, y, xpos, include_batch: bool, dtype) -> np.ndarray:
    n, h, w, c = x_shape
    idx = (y * w + xpos) * c + np.arange(c)[None, None, None, :]
    if include_batch:
        idx = idx + np.arange(n)[:, None, None, None] * (h * w * c)
    return idx.astype(dtype)


@register_op("MaxPoolWithArgmax", multi_output=True, schema=(
    "input:T -> output:T, argmax:Targmax | ksize:list(int) >=4; strides:list(int) >=4; "
    "Targmax:type=int64 in [int32,int64]; padding:string in [SAME,VALID]; "
    f"include_batch_in_index:bool=False; T:type in [{_REAL}]"))
class MaxPoolWithArgmax:
    """Max pooling that also returns the flattened index of each maximum."""

    infer = _mpa_attrs_infer

    def kernel(input, *, ksize, strides, padding, Targmax=dtypes.int64,
               include_batch_in_index=False):
        best, arg, size, pads = _argmax_windows(input, ksize[1], ksize[2], strides, [1] * 4,
                                                padding)
        y, xpos = _positions(arg, ksize[2], strides, [1] * 4, pads, size)
        return best, _flat_index(input.shape, y, xpos, include_batch_in_index,
                                 dtypes.as_dtype(Targmax).np)

    def grad(op, dy, dargmax):
        if dy is None:
            return None
        return bind(MaxPoolGradWithArgmax, [op.inputs[0], dy, op.outputs[1]], {
            "ksize": op.attrs["ksize"], "strides": op.attrs["strides"],
            "padding": op.attrs["padding"],
            "include_batch_in_index": op.attrs.get("include_batch_in_index", False)})


@register_op("MaxPoolGradWithArgmax", schema=(
    "input:T, grad:T, argmax:Targmax -> output:T | ksize:list(int) >=4; strides:list(int) >=4; "
    "padding:string in [SAME,VALID]; include_batch_in_index:bool=False; "
    f"Targmax:type in [int32,int64]; T:type in [{_REAL}]"))
class MaxPoolGradWithArgmax:
    """Adds each gradient into the input position its argmax names."""

    def infer(input, grad, argmax, **attrs):
        return input.dtype, input.shape

    def kernel(input, grad, argmax, *, ksize, strides, padding, include_batch_in_index=False):
        n = input.shape[0]
        per = int(np.prod(input.shape[1:]))
        idx = argmax.astype(np.int64).reshape(n, -1)
        if not include_batch_in_index:
            idx = idx + (np.arange(n) * per)[:, None]
        if idx.size and (idx.min() < 0 or idx.max() >= input.size):
            raise _err("argmax holds an index outside the input")
        out = np.zeros(input.size, input.dtype)
        np.add.at(out, idx.reshape(-1), grad.reshape(-1))
        return out.reshape(input.shape)

    def grad(op, ddx):
        # the output gradient of a max pool at each window is the input gradient at its argmax
        x, _, argmax = op.inputs
        return None, _gather_at(ddx, argmax, op.attrs.get("include_batch_in_index", False)), \
            None


def _gather_at(values: Tensor, argmax: Tensor, include_batch: bool) -> Tensor:
    n = shape(values)[0]
    flat = reshape(values, [n, -1])
    idx = reshape(cast(argmax, dtypes.int64), [shape(argmax)[0], -1])
    if include_batch:
        flat, idx = reshape(values, [1, -1]), reshape(idx, [1, -1])
    return reshape(gather(flat, idx, batch_dims=1), shape(argmax))


@name_scoped
def max_pool_with_argmax(input: TensorLike, ksize, strides, padding: str,
                         data_format: str = "NHWC", output_dtype=dtypes.int64,
                         include_batch_in_index: bool = False,
                         name: str | None = None) -> tuple:
    """Max pooling that also returns where each maximum was.

    Args:
        input: ``[batch, height, width, channels]``.
        ksize: window size: an int, ``[h, w]`` or ``[1, h, w, 1]``.
        strides: the same forms.
        padding: "SAME" or "VALID".
        data_format: must be "NHWC".
        output_dtype: int32 or int64 for the indices.
        include_batch_in_index: count the batch in the flattened index.
        name: op name.

    Returns:
        ``(output, argmax)``: argmax is ``(y * width + x) * channels + c`` (plus
        ``b * height * width * channels`` with ``include_batch_in_index``).
    """
    if data_format != "NHWC":
        raise ValueError(f"max_pool_with_argmax supports only data_format='NHWC', got "
                         f"{data_format!r}")
    out = bind(MaxPoolWithArgmax, [convert(input)], {
        "ksize": _four(ksize, "ksize"), "strides": _four(strides, "strides"),
        "padding": padding, "Targmax": dtypes.as_dtype(output_dtype),
        "include_batch_in_index": bool(include_batch_in_index)})
    return tuple(out)


def _four(v, what: str) -> list:
    """``[1, h, w, 1]`` from an int, ``[h, w]`` or ``[1, h, w, 1]``."""
    if isinstance(v, (int, np.integer)):
        return [1, int(v), int(v), 1]
    return _hw4([int(i) for i in v], 1, what, "int")


# ----- dilation2d / erosion2d ----------------------------------------------------------------

def _dil_infer(input, filter, *, strides, rates, padding):
    _check4("Dilation2D", {"strides": strides, "rates": rates}, "strides", "rates")
    fs = filter.shape
    if fs.rank is not None and fs.rank != 3:
        raise _err(f"Dilation2D: filter must be 3-dimensional [height, width, depth], got "
                   f"shape {fs}")
    kh, kw, fc = fs.as_list() if fs.rank == 3 else (None, None, None)
    s = _spatial("Dilation2D", input.shape, kh, kw, strides, rates, padding)
    if fc is not None and s[3] is not None and fc != s[3]:
        raise _err(f"Dilation2D: input depth {s[3]} does not match filter depth {fc}")
    return input.dtype, s


_DIL_ATTRS = (f"T:type in [{_REAL}]; strides:list(int) >=4; rates:list(int) >=4; "
              "padding:string in [SAME,VALID]")


def _dil_args(op):
    return {k: op.attrs[k] for k in ("strides", "rates", "padding")}


@register_op("Dilation2D", schema=f"input:T, filter:T -> output:T | {_DIL_ATTRS}")
class Dilation2D:
    """Grayscale dilation: ``max`` over each dilated window of ``input + filter``."""

    infer = _dil_infer

    def kernel(input, filter, *, strides, rates, padding):
        kh, kw, _ = filter.shape
        return _argmax_windows(input, kh, kw, strides, rates, padding, filter)[0]

    def grad(op, dy):
        x, f = op.inputs
        return (bind(Dilation2DBackpropInput, [x, f, dy], _dil_args(op)),
                bind(Dilation2DBackpropFilter, [x, f, dy], _dil_args(op)))


def _dil_backprop(input, filter, dy, strides, rates, padding, to_input: bool):
    kh, kw, c = filter.shape
    _, arg, size, pads = _argmax_windows(input, kh, kw, strides, rates, padding, filter)
    if dy.shape != arg.shape:
        raise _err(f"out_backprop has shape {list(dy.shape)}, expected {list(arg.shape)}")
    if not to_input:
        out = np.zeros(filter.shape, filter.dtype)
        np.add.at(out, (arg // kw, arg % kw, np.broadcast_to(np.arange(c), arg.shape)), dy)
        return out
    y, xpos = _positions(arg, kw, strides, rates, pads, size)
    n = input.shape[0]
    b = np.broadcast_to(np.arange(n)[:, None, None, None], arg.shape)
    ch = np.broadcast_to(np.arange(c), arg.shape)
    out = np.zeros(input.shape, input.dtype)
    np.add.at(out, (b, y, xpos, ch), dy)
    return out


def _dil_backprop_op(name: str, output: str, to_input: bool, doc: str):
    """Declares Dilation2D's gradient with respect to its input (``to_input``) or its filter;
    ``output`` names the op's output."""
    def infer(input, filter, out_backprop, **attrs):
        wrt = input if to_input else filter
        return wrt.dtype, wrt.shape

    def kernel(input, filter, out_backprop, *, strides, rates, padding):
        return _dil_backprop(input, filter, out_backprop, strides, rates, padding, to_input)

    decl = type(name, (), {"__doc__": doc, "infer": infer, "kernel": kernel})
    return register_op(name, schema=(
        f"input:T, filter:T, out_backprop:T -> {output}:T | {_DIL_ATTRS}"))(decl)


Dilation2DBackpropInput = _dil_backprop_op(
    "Dilation2DBackpropInput", "in_backprop", True,
    "The gradient of Dilation2D wrt its input (routed to each window's maximum).")
Dilation2DBackpropFilter = _dil_backprop_op(
    "Dilation2DBackpropFilter", "filter_backprop", False,
    "The gradient of Dilation2D wrt its filter (summed at each window's maximum).")


def _dil_call(x, filters, strides, padding, data_format, dilations, name):
    if data_format != "NHWC":
        raise ValueError(f"dilation2d/erosion2d support only data_format='NHWC', got "
                         f"{data_format!r}")
    x = convert(x)
    return bind(Dilation2D, [x, convert(filters, dtype=x.dtype)], {
        "strides": _four(strides, "strides"), "rates": _four(dilations, "dilations"),
        "padding": padding}, name=name)


def dilation2d(input: TensorLike, filters: TensorLike, strides, padding: str, data_format,
               dilations, name: str | None = None) -> Tensor:
    """Grayscale morphological dilation: ``max_{dy,dx} input[y*s + dy*r, x*s + dx*r] +
    filters[dy, dx]`` per channel.

    Args:
        input: ``[batch, height, width, depth]``.
        filters: ``[filter_height, filter_width, depth]``.
        strides: ``[1, sh, sw, 1]`` (or ``[sh, sw]``).
        padding: "SAME" or "VALID".
        data_format: must be "NHWC".
        dilations: the window rates ``[1, rh, rw, 1]``.
        name: op name.

    Returns:
        ``[batch, out_height, out_width, depth]``.
    """
    return _dil_call(input, filters, strides, padding, data_format, dilations, name)


@name_scoped
def erosion2d(value: TensorLike, filters: TensorLike, strides, padding: str, data_format,
              dilations, name: str | None = None) -> Tensor:
    """Grayscale morphological erosion: ``min_{dy,dx} value[y*s - dy*r, x*s - dx*r] -
    filters[dy, dx]``, i.e. ``-dilation2d(-value, reversed filters)``.

    Args:
        value: ``[batch, height, width, depth]``.
        filters, strides, padding, data_format, dilations, name: as for ``dilation2d``.

    Returns:
        ``[batch, out_height, out_width, depth]``.
    """
    value = convert(value)
    return negative(_dil_call(negative(value), reverse(convert(filters, dtype=value.dtype),
                                                       [0, 1]),
                              strides, padding, data_format, dilations, None))
