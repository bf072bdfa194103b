"""Pooling: max and average pools (1-D and 2-D) and their gradients."""
from __future__ import annotations

from collections.abc import Callable

from ...core.errors import InvalidArgumentError
from ...core.shapes import TensorShape
from ...eager.execute import bind
from ...graph.graph import name_scoped
from ...graph.registry import register_op
from ...graph.tensor import Tensor, TensorLike
from ..array.layout import expand_dims, squeeze, transpose
from ..array.shape import shape
from ..core import convert
from . import conv_kernels as ck
from .activations import _float_arg
from .conv_nd import _check_dy, _max_pool_grad, _max_pool_grad_grad
from .geometry import (
    _fmt_shape,
    _geometry,
    _pool_attrs,
    _static_dims_shape,
    _width_arg,
    channels_first,
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


def _pads(op_name, in_shape, attrs) -> tuple:
    kh, kw = attrs["ksize"]
    return _geometry(op_name, in_shape, kh, kw, attrs)[1]


@register_op("MaxPool")
class MaxPool:
    """Maximum over ``ksize`` windows of an NHWC tensor."""

    infer = _pool_infer("MaxPool")

    def kernel(x, **attrs):
        return ck.max_pool(x, attrs["ksize"], attrs["strides"], _pads("MaxPool", x.shape, attrs))

    def grad(op, dy):
        return _max_pool_grad(op, dy, MaxPoolGrad)


@register_op("MaxPoolGrad")
class MaxPoolGrad:
    """Routes each window's gradient to the position of its maximum (first one on ties)."""

    def infer(x, y, dy, **attrs):
        return dy.dtype, x.shape

    def kernel(x, y, dy, **attrs):
        return ck.max_pool_grad(x, dy, attrs["ksize"], attrs["strides"],
                                _pads("MaxPoolGrad", x.shape, attrs))

    def grad(op, ddx):
        return _max_pool_grad_grad(op, ddx, MaxPoolGradGrad)


@register_op("MaxPoolGradGrad")
class MaxPoolGradGrad:
    """Picks, for each window, the input-shaped ``grad`` at the position of the maximum."""

    def infer(x, y, g, **attrs):
        return g.dtype, _pool_shape("MaxPoolGradGrad", x.shape, attrs)

    def kernel(x, y, g, **attrs):
        return ck.max_pool_grad_grad(x, g, attrs["ksize"], attrs["strides"],
                                     _pads("MaxPoolGradGrad", x.shape, attrs))

    def grad(op, dd):
        return _max_pool_grad_grad(op, dd, MaxPoolGrad)


@register_op("AvgPool")
class AvgPool:
    """Mean over ``ksize`` windows of an NHWC tensor (padding excluded from the count)."""

    infer = _pool_infer("AvgPool")

    def kernel(x, **attrs):
        return ck.avg_pool(x, attrs["ksize"], attrs["strides"], _pads("AvgPool", x.shape, attrs))

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
        _check_dy("AvgPoolGrad", dy, (in_shape[0], *out_hw, in_shape[3]))
        return ck.avg_pool_grad(in_shape, dy, attrs["ksize"], attrs["strides"], pads)

    def grad(op, ddx):
        return None, bind(AvgPool, [ddx], op.attrs)


def _pool2d(opdef, x, ksize, strides, padding, data_format, name) -> Tensor:
    attrs = _pool_attrs(ksize, strides, padding, data_format)
    if channels_first(data_format, "pooling"):
        return transpose(bind(opdef, [transpose(x, [0, 2, 3, 1])], attrs), [0, 3, 1, 2])
    return bind(opdef, [x], attrs, name=name)


def max_pool2d(input: TensorLike, ksize, strides, padding: str, data_format: str = "NHWC",
               name: str | None = None) -> Tensor:
    """Max pooling over 2-D windows (``tw.nn.max_pool2d``).

    Args:
        input: a tensor [batch, height, width, channels].
        ksize: window size, an int or a list of 1, 2 or 4 ints.
        strides: window stride, an int or a list of 1, 2 or 4 ints.
        padding: "SAME" or "VALID".
        data_format: "NHWC" (default) or "NCHW".
        name: op name.

    Returns:
        The pooled tensor [batch, out_height, out_width, channels].
    """
    return _pool2d(MaxPool, convert(input), ksize, strides, padding, data_format, name)


def avg_pool2d(input: TensorLike, ksize, strides, padding: str, data_format: str = "NHWC",
               name: str | None = None) -> Tensor:
    """Average pooling over 2-D windows (``tw.nn.avg_pool2d``).

    Args:
        input: a float tensor [batch, height, width, channels].
        ksize: window size, an int or a list of 1, 2 or 4 ints.
        strides: window stride, an int or a list of 1, 2 or 4 ints.
        padding: "SAME" or "VALID" (padding is not counted in the average).
        data_format: "NHWC" (default) or "NCHW".
        name: op name.

    Returns:
        The pooled tensor [batch, out_height, out_width, channels].
    """
    x = _float_arg(input, "AvgPool")
    return _pool2d(AvgPool, x, ksize, strides, padding, data_format, name)


def _pool1d(pool, input, ksize, strides, padding, data_format) -> Tensor:
    if data_format not in (None, "NWC", "NCW"):
        raise ValueError(f"1-D pooling: data_format must be 'NWC' or 'NCW', got {data_format!r}")
    first = data_format == "NCW"  # a height-1 image: NCW -> NC1W, NWC -> N1WC
    axis = 2 if first else 1
    out = pool(expand_dims(convert(input), axis), [1, _width_arg(ksize, "ksize", first)],
               [1, _width_arg(strides, "strides", first)], padding, "NCHW" if first else "NHWC")
    return squeeze(out, [axis])


def _pool1d_fn(fn_name: str, pool2d: Callable, what: str, dtypes: str) -> Callable[..., Tensor]:
    """``tw.nn.max_pool1d``/``avg_pool1d``: ``pool2d`` over a height-1 image."""
    def fn(input: TensorLike, ksize, strides, padding: str, data_format: str = "NWC",
           name: str | None = None) -> Tensor:
        return _pool1d(pool2d, input, ksize, strides, padding, data_format)
    fn.__name__ = fn.__qualname__ = fn_name
    fn.__doc__ = f"""{what} of [batch, width, channels] inputs (``tw.nn.{fn_name}``).

    Args:
        input: {dtypes} [batch, width, channels].
        ksize: window size (an int or a list of 1 or 3 ints).
        strides: window stride (likewise).
        padding: "SAME" or "VALID".
        data_format: "NWC" (default) or "NCW".

    Returns:
        The pooled tensor.
    """
    return name_scoped(fn)


max_pool1d = _pool1d_fn("max_pool1d", max_pool2d, "Max pooling", "a tensor")
avg_pool1d = _pool1d_fn("avg_pool1d", avg_pool2d, "Average pooling", "a float tensor")


