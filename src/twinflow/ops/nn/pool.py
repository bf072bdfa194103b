"""Pooling: max and average pools (1-D and 2-D) and their gradients."""
from __future__ import annotations

from collections.abc import Callable

from ...core.errors import InvalidArgumentError
from ...core.shapes import TensorShape
from ...eager.execute import bind
from ...graph.graph import name_scoped
from ...graph.tensor import Tensor, TensorLike
from ..array.layout import expand_dims, squeeze, transpose
from ..core import convert
from .activations import _float_arg
from .conv_nd import _pool_family
from .geometry import (
    _fmt_shape,
    _geometry,
    _pool_attrs,
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


def _pool_geometry(op_name, in_shape, attrs) -> tuple:
    kh, kw = attrs["ksize"]
    return _geometry(op_name, in_shape, kh, kw, attrs)


MaxPool, MaxPoolGrad, MaxPoolGradGrad, AvgPool, AvgPoolGrad = _pool_family(
    ("MaxPool", "MaxPoolGrad", "MaxPoolGradGrad", "AvgPool", "AvgPoolGrad"), "NHWC",
    _pool_infer, _pool_geometry)


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


