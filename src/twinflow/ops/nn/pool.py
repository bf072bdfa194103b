"""Pooling: max and average pools (1-D and 2-D) and their gradients."""
from __future__ import annotations

import numpy as np

from ...core.errors import InvalidArgumentError
from ...core.shapes import TensorShape
from ...eager.execute import bind
from ...graph.registry import register_op
from ...graph.tensor import Tensor, TensorLike
from ..array.layout import expand_dims, squeeze
from ..array.shape import shape
from ..core import convert
from .activations import _float_arg
from .conv import _check_out_backprop
from .geometry import (
    _crop,
    _fmt_shape,
    _geometry,
    _offsets,
    _pad,
    _padded_zeros,
    _pool_attrs,
    _static_dims_shape,
    _width_arg,
)


def _pool_shape(op_name, x_shape, attrs):
    if x_shape.rank is not None and x_shape.rank != 4:
        raise InvalidArgumentError(None, None, f"{op_name}: input must be 4-dimensional "
                                               f"[batch, height, width, channels], got shape "
                                               f"{_fmt_shape(x_shape)}")
    xs = x_shape.as_list() if x_shape.rank is not None else [None] * 4
    kh, kw = attrs["ksize"]
    (oh, ow), _ = _geometry(op_name, xs, kh, kw, attrs)
    return TensorShape([xs[0], oh, ow, xs[3]])


def _pool_infer(name):
    def infer(x, **attrs):
        return x.dtype, _pool_shape(name, x.shape, attrs)
    return infer


def _max_pool_argmax(x, attrs):
    """Offset number (row-major in the window) of each window's first maximum, and geometry."""
    kh, kw = attrs["ksize"]
    out_hw, pads = _geometry("MaxPool", x.shape, kh, kw, attrs)
    fill = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min
    xp = _pad(x, pads, fill)
    best = idx = None
    for k, sl in enumerate(_offsets(kh, kw, attrs, out_hw)):
        v = xp[sl]
        if best is None:
            best, idx = v.copy(), np.zeros(v.shape, dtype=np.int8 if kh * kw < 128 else np.int32)
        else:
            better = v > best  # strict: ties keep the first position
            np.copyto(idx, k, where=better)
            np.maximum(best, v, out=best)
    return idx, out_hw, pads


@register_op("MaxPool")
class MaxPool:
    """Maximum over ``ksize`` windows of an NHWC tensor."""

    infer = _pool_infer("MaxPool")

    def kernel(x, **attrs):
        kh, kw = attrs["ksize"]
        out_hw, pads = _geometry("MaxPool", x.shape, kh, kw, attrs)
        fill = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min
        xp = _pad(x, pads, fill)
        out = None
        for sl in _offsets(kh, kw, attrs, out_hw):
            out = xp[sl].copy() if out is None else np.maximum(out, xp[sl], out=out)
        return out

    def grad(op, dy):
        return bind(MaxPoolGrad, [op.inputs[0], op.outputs[0], dy], op.attrs)


@register_op("MaxPoolGrad")
class MaxPoolGrad:
    """Routes each window's gradient to the position of its maximum (first one on ties)."""

    def infer(x, y, dy, **attrs):
        return dy.dtype, x.shape

    def kernel(x, y, dy, **attrs):
        kh, kw = attrs["ksize"]
        idx, out_hw, pads = _max_pool_argmax(x, attrs)
        dxp = _padded_zeros(x.shape, pads, dy.dtype)
        for k, sl in enumerate(_offsets(kh, kw, attrs, out_hw)):
            target = dxp[sl]
            np.add(target, dy, out=target, where=idx == k)
        return _crop(dxp, x.shape, pads)

    def grad(op, ddx):
        x, y, _ = op.inputs
        return None, None, bind(MaxPoolGradGrad, [x, y, ddx], op.attrs)


@register_op("MaxPoolGradGrad")
class MaxPoolGradGrad:
    """Picks, for each window, the input-shaped ``grad`` at the position of the maximum."""

    def infer(x, y, g, **attrs):
        return g.dtype, _pool_shape("MaxPoolGradGrad", x.shape, attrs)

    def kernel(x, y, g, **attrs):
        kh, kw = attrs["ksize"]
        idx, out_hw, pads = _max_pool_argmax(x, attrs)
        gp = _pad(g, pads)
        out = np.zeros(idx.shape, dtype=g.dtype)
        for k, sl in enumerate(_offsets(kh, kw, attrs, out_hw)):
            np.copyto(out, gp[sl], where=idx == k)
        return out

    def grad(op, dd):
        x, y, _ = op.inputs
        return None, None, bind(MaxPoolGrad, [x, y, dd], op.attrs)


def _avg_counts(in_hw, attrs, out_hw, pads, dtype):
    """How many real (unpadded) inputs each output window covers, shaped [OH, OW, 1]."""
    counts = []
    for size, k, s, n, (before, _) in zip(in_hw, attrs["ksize"], attrs["strides"], out_hw,
                                          pads):
        start = np.arange(n) * s - before
        counts.append(np.minimum(start + k, size) - np.maximum(start, 0))
    return (counts[0][:, None] * counts[1][None, :]).astype(dtype)[:, :, None]


@register_op("AvgPool")
class AvgPool:
    """Mean over ``ksize`` windows of an NHWC tensor (padding excluded from the count)."""

    infer = _pool_infer("AvgPool")

    def kernel(x, **attrs):
        kh, kw = attrs["ksize"]
        out_hw, pads = _geometry("AvgPool", x.shape, kh, kw, attrs)
        xp = _pad(x, pads)
        sums = None
        for sl in _offsets(kh, kw, attrs, out_hw):
            sums = xp[sl].copy() if sums is None else np.add(sums, xp[sl], out=sums)
        return sums / _avg_counts(x.shape[1:3], attrs, out_hw, pads, x.dtype)

    def grad(op, dy):
        return bind(AvgPoolGrad, [shape(op.inputs[0]), dy], op.attrs)


@register_op("AvgPoolGrad")
class AvgPoolGrad:
    """Spreads each window's gradient evenly over the inputs it averaged."""

    def infer(orig_input_shape, dy, **attrs):
        return dy.dtype, _static_dims_shape(orig_input_shape)

    def kernel(orig_input_shape, dy, **attrs):
        in_shape = tuple(int(v) for v in orig_input_shape)
        kh, kw = attrs["ksize"]
        out_hw, pads = _geometry("AvgPoolGrad", in_shape, kh, kw, attrs)
        _check_out_backprop("AvgPoolGrad", dy, (in_shape[0], *out_hw, in_shape[3]))
        g = dy / _avg_counts(in_shape[1:3], attrs, out_hw, pads, dy.dtype)
        dxp = _padded_zeros(in_shape, pads, dy.dtype)
        for sl in _offsets(kh, kw, attrs, out_hw):
            dxp[sl] += g
        return _crop(dxp, in_shape, pads)

    def grad(op, ddx):
        return None, bind(AvgPool, [ddx], op.attrs)


def max_pool2d(input: TensorLike, ksize, strides, padding: str, data_format: str = "NHWC",
               name: str | None = None) -> Tensor:
    """Max pooling over 2-D windows (``tw.nn.max_pool2d``, ``tw.nn.max_pool``).

    Args:
        input: a tensor [batch, height, width, channels].
        ksize: window size, an int or a list of 1, 2 or 4 ints.
        strides: window stride, an int or a list of 1, 2 or 4 ints.
        padding: "SAME" or "VALID".
        data_format: "NHWC" (the only layout supported).
        name: op name.

    Returns:
        The pooled tensor [batch, out_height, out_width, channels].
    """
    return bind(MaxPool, [convert(input)], _pool_attrs(ksize, strides, padding, data_format),
                name=name)


def avg_pool2d(input: TensorLike, ksize, strides, padding: str, data_format: str = "NHWC",
               name: str | None = None) -> Tensor:
    """Average pooling over 2-D windows (``tw.nn.avg_pool2d``, ``tw.nn.avg_pool``).

    Args:
        input: a float tensor [batch, height, width, channels].
        ksize: window size, an int or a list of 1, 2 or 4 ints.
        strides: window stride, an int or a list of 1, 2 or 4 ints.
        padding: "SAME" or "VALID" (padding is not counted in the average).
        data_format: "NHWC" (the only layout supported).
        name: op name.

    Returns:
        The pooled tensor [batch, out_height, out_width, channels].
    """
    x = _float_arg(input, "AvgPool")
    return bind(AvgPool, [x], _pool_attrs(ksize, strides, padding, data_format), name=name)


def max_pool(input: TensorLike, ksize, strides, padding: str, data_format: str | None = None,
             name: str | None = None) -> Tensor:
    """Max pooling of a rank-3 (NWC) or rank-4 (NHWC) tensor (``tw.nn.max_pool``).

    Args:
        input: a tensor [batch, width, channels] or [batch, height, width, channels].
        ksize: window size (an int or a list).
        strides: window stride (an int or a list).
        padding: "SAME" or "VALID".
        data_format: "NWC" / "NHWC" or None.
        name: op name.

    Returns:
        The pooled tensor.
    """
    x = convert(input)
    if x.shape.rank == 3:
        return max_pool1d(x, ksize, strides, padding, data_format or "NWC")
    return max_pool2d(x, ksize, strides, padding, data_format or "NHWC", name)


def avg_pool(input: TensorLike, ksize, strides, padding: str, data_format: str | None = None,
             name: str | None = None) -> Tensor:
    """Average pooling of a rank-3 (NWC) or rank-4 (NHWC) tensor (``tw.nn.avg_pool``).

    Args:
        input: a float tensor [batch, width, channels] or [batch, height, width, channels].
        ksize: window size (an int or a list).
        strides: window stride (an int or a list).
        padding: "SAME" or "VALID".
        data_format: "NWC" / "NHWC" or None.
        name: op name.

    Returns:
        The pooled tensor.
    """
    x = convert(input)
    if x.shape.rank == 3:
        return avg_pool1d(x, ksize, strides, padding, data_format or "NWC")
    return avg_pool2d(x, ksize, strides, padding, data_format or "NHWC", name)


def _pool1d(pool, input, ksize, strides, padding, data_format) -> Tensor:
    if data_format not in (None, "NWC"):
        raise ValueError(f"1-D pooling supports data_format='NWC' only, got {data_format!r}")
    out = pool(expand_dims(convert(input), 1), [1, _width_arg(ksize, "ksize")],
               [1, _width_arg(strides, "strides")], padding)
    return squeeze(out, [1])


def max_pool1d(input: TensorLike, ksize, strides, padding: str, data_format: str = "NWC",
               name: str | None = None) -> Tensor:
    """Max pooling of [batch, width, channels] inputs (``tw.nn.max_pool1d``).

    Args:
        input: a tensor [batch, width, channels].
        ksize: window size (an int or a list of 1 or 3 ints).
        strides: window stride (likewise).
        padding: "SAME" or "VALID".
        data_format: "NWC" (the only layout supported).
        name: unused (kept for TensorFlow's signature).

    Returns:
        The pooled tensor.
    """
    return _pool1d(max_pool2d, input, ksize, strides, padding, data_format)


def avg_pool1d(input: TensorLike, ksize, strides, padding: str, data_format: str = "NWC",
               name: str | None = None) -> Tensor:
    """Average pooling of [batch, width, channels] inputs (``tw.nn.avg_pool1d``).

    Args:
        input: a float tensor [batch, width, channels].
        ksize: window size (an int or a list of 1 or 3 ints).
        strides: window stride (likewise).
        padding: "SAME" or "VALID".
        data_format: "NWC" (the only layout supported).
        name: unused (kept for TensorFlow's signature).

    Returns:
        The pooled tensor.
    """
    return _pool1d(avg_pool2d, input, ksize, strides, padding, data_format)


