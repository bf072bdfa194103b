"""Rank-generic entry points: ``max_pool``/``avg_pool``/``pool``, ``convolution``,
``conv_transpose`` and ``conv1d_transpose``.

Each picks the 1-D, 2-D or 3-D op from the input's rank (or, when the rank is unknown, from the
length of ``data_format``), as TensorFlow's v2 functions do; an unsupported rank is a ValueError
naming the function and the rank, raised while tracing exactly as eagerly.
"""
from __future__ import annotations

import itertools
from collections.abc import Callable

from ...core import dtypes
from ...graph.graph import name_scoped
from ...graph.tensor import ShapeLike, Tensor, TensorLike
from ..array.join import concat
from ..array.layout import expand_dims, squeeze
from ..array.slicing import slice_helper
from ..core import convert, convert_pair
from ..math_ops import add, maximum
from .conv import conv1d, conv2d, conv2d_transpose
from .conv_nd import avg_pool3d, conv3d, conv3d_transpose, max_pool3d, nd_list
from .pool import avg_pool1d, avg_pool2d, max_pool1d, max_pool2d

_FORMATS = {1: ("NWC", "NCW"), 2: ("NHWC", "NCHW"), 3: ("NDHWC", "NCDHW")}


def _spatial_rank(fn_name: str, x: Tensor, data_format) -> int:
    """The number of spatial dimensions of ``x`` (rank - 2), checked to be 1, 2 or 3."""
    if x.shape.rank is not None:
        rank = x.shape.rank
    elif data_format is not None:
        rank = len(data_format)
    else:
        raise ValueError(f"tw.nn.{fn_name}: the input needs a known rank or a data_format")
    if rank not in (3, 4, 5):
        raise ValueError(f"tw.nn.{fn_name}: the input must have rank 3, 4 or 5 (1-D, 2-D or "
                         f"3-D), got rank {rank} (shape {x.shape})")
    return rank - 2


def _pick(fn_name: str, n: int, data_format, ops: tuple) -> tuple:
    """(the n-D op, data_format) with the layout checked against ``n``."""
    fmt = _FORMATS[n][0] if data_format is None else data_format
    if fmt not in _FORMATS[n]:
        raise ValueError(f"tw.nn.{fn_name}: data_format for a {n}-D input must be "
                         f"{_FORMATS[n][0]!r} or {_FORMATS[n][1]!r}, got {data_format!r}")
    return ops[n - 1], fmt


def _by_rank(fn_name: str, ops: tuple, what: str, dtypes_: str) -> Callable[..., Tensor]:
    def fn(input: TensorLike, ksize, strides, padding: str, data_format: str | None = None,
           name: str | None = None) -> Tensor:
        x = convert(input)
        op, fmt = _pick(fn_name, _spatial_rank(fn_name, x, data_format), data_format, ops)
        return op(x, ksize, strides, padding, fmt, name)
    fn.__name__ = fn.__qualname__ = fn_name
    fn.__doc__ = f"""{what} of a 1-D, 2-D or 3-D input, chosen by its rank (``tw.nn.{fn_name}``).

    Args:
        input: {dtypes_} of rank 3 (NWC/NCW), 4 (NHWC/NCHW) or 5 (NDHWC/NCDHW).
        ksize: window size, an int or a list of 1, N or N + 2 ints.
        strides: window stride, likewise.
        padding: "SAME" or "VALID".
        data_format: the layout (default channels-last); its length gives N for an input of
            unknown rank.
        name: op name.

    Returns:
        The pooled tensor.
    """
    return fn


max_pool = _by_rank("max_pool", (max_pool1d, max_pool2d, max_pool3d), "Max pooling",
                    "a tensor")
avg_pool = _by_rank("avg_pool", (avg_pool1d, avg_pool2d, avg_pool3d), "Average pooling",
                    "a float tensor")


def _dilated_valid_pool(x: Tensor, window: tuple, dilations: tuple, first: bool,
                        is_max: bool) -> Tensor:
    """Stride-1 VALID pooling with dilated windows: the reduction of one shifted slice per
    window position (so the gradient is that of slicing, max and add)."""
    n = len(window)
    out = None
    for offs in itertools.product(*(range(k) for k in window)):
        spatial = tuple(slice(o * d, -((k - 1 - o) * d) or None)
                        for o, k, d in zip(offs, window, dilations))
        key = (slice(None), slice(None), *spatial) if first else (slice(None), *spatial)
        part = slice_helper(x, key)
        out = part if out is None else (maximum(out, part) if is_max else add(out, part))
    if is_max:
        return out
    count = 1
    for k in window:
        count *= k
    return out / convert(float(count), dtype=x.dtype) if n else out


@name_scoped
def pool(input: TensorLike, window_shape, pooling_type: str, strides=None,
         padding: str = "VALID", data_format: str | None = None, dilations=None,
         name: str | None = None) -> Tensor:
    """N-D max or average pooling, N = len(window_shape) in 1..3 (``tw.nn.pool``).

    Args:
        input: a tensor of rank N + 2 (channels-last, or channels-first per ``data_format``).
        window_shape: N ints.
        pooling_type: "MAX" or "AVG".
        strides: N ints (default 1); must be 1 where ``dilations`` are above 1.
        padding: "SAME" or "VALID" ("VALID" only with dilations above 1).
        data_format: as for max_pool / avg_pool.
        dilations: N ints (default 1): the spacing of a window's elements.

    Returns:
        The pooled tensor.
    """
    window = [int(k) for k in window_shape]
    n = len(window)
    if n not in (1, 2, 3):
        raise ValueError(f"tw.nn.pool: len(window_shape) must be 1, 2 or 3, got "
                         f"window_shape={window} of length {n}")
    x = convert(input)
    if x.shape.rank is not None and x.shape.rank != n + 2:
        raise ValueError(f"tw.nn.pool: a {n}-D window needs an input of rank {n + 2}, got "
                         f"rank {x.shape.rank} (shape {x.shape})")
    kind = pooling_type.upper() if isinstance(pooling_type, str) else pooling_type
    if kind not in ("MAX", "AVG"):
        raise ValueError(f"tw.nn.pool: {n}-D {pooling_type} pooling is not supported "
                         f"(pooling_type must be 'MAX' or 'AVG')")
    ops = (max_pool1d, max_pool2d, max_pool3d) if kind == "MAX" else \
        (avg_pool1d, avg_pool2d, avg_pool3d)
    op, fmt = _pick("pool", n, data_format, ops)
    strides, dil = nd_list(strides, n, "strides"), nd_list(dilations, n, "dilations")
    if all(d == 1 for d in dil):
        return op(x, window, list(strides), padding, fmt)
    if any(s != 1 for s in strides):
        raise ValueError(f"tw.nn.pool: strides > 1 are not supported together with dilations "
                         f"> 1, got strides={list(strides)} and dilations={list(dil)}")
    if not isinstance(padding, str) or padding.upper() != "VALID":
        raise ValueError(f"tw.nn.pool: padding {padding!r} is not supported with dilations "
                         f"> 1 (only 'VALID' is, as in TensorFlow)")
    return _dilated_valid_pool(x, tuple(window), dil, fmt.startswith("NC"), kind == "MAX")


def convolution(input: TensorLike, filters: TensorLike, strides=None, padding: str = "VALID",
                data_format: str | None = None, dilations=None, name: str | None = None) -> Tensor:
    """1-D, 2-D or 3-D convolution, chosen by the input's rank (``tw.nn.convolution``).

    Args:
        input: a float tensor of rank N + 2, [batch, spatial..., in_channels] (or
            channels-first).
        filters: a tensor [spatial..., in_channels, out_channels].
        strides: an int or a list of 1, N or N + 2 ints (default 1).
        padding: "SAME", "VALID" or explicit pairs.
        data_format: "NWC"/"NCW", "NHWC"/"NCHW", "NDHWC"/"NCDHW" or None (channels-last).
        dilations: likewise (default 1).
        name: op name.

    Returns:
        The convolution.
    """
    x = convert(input)
    n = _spatial_rank("convolution", x, data_format)
    op, fmt = _pick("convolution", n, data_format, (conv1d, conv2d, conv3d))
    return op(x, filters, 1 if strides is None else strides, padding, fmt, dilations, name=name)


def _transpose_rank(output_shape, x: Tensor, data_format) -> int:
    if isinstance(output_shape, (list, tuple)):
        return len(output_shape)
    s = convert(output_shape, dtype_hint=dtypes.int32).shape
    if s.rank == 1 and s[0] is not None:
        return s[0]
    if x.shape.rank is not None:
        return x.shape.rank
    if data_format is not None:
        return len(data_format)
    raise ValueError("tw.nn.conv_transpose: the output_shape needs a known length")


def conv_transpose(input: TensorLike, filters: TensorLike, output_shape: ShapeLike, strides,
                   padding: str = "SAME", data_format: str | None = None, dilations=None,
                   name: str | None = None) -> Tensor:
    """Transposed 1-D, 2-D or 3-D convolution, chosen by the length of ``output_shape``
    (``tw.nn.conv_transpose``).

    Args:
        input: a tensor of rank N + 2.
        filters: [spatial..., output_channels, in_channels].
        output_shape: the N + 2 output dims.
        strides: an int or a list of 1, N or N + 2 ints.
        padding: "SAME" or "VALID".
        data_format: as for convolution.
        dilations: likewise (default 1).
        name: op name.

    Returns:
        The tensor of shape ``output_shape``.
    """
    x = convert(input)
    rank = _transpose_rank(output_shape, x, data_format)
    if rank not in (3, 4, 5):
        raise ValueError(f"tw.nn.conv_transpose: output_shape must have 3, 4 or 5 entries "
                         f"(1-D, 2-D or 3-D), got {rank}")
    if x.shape.rank is not None and x.shape.rank != rank:
        raise ValueError(f"tw.nn.conv_transpose: the input must have rank {rank} like "
                         f"output_shape, got rank {x.shape.rank} (shape {x.shape})")
    op, fmt = _pick("conv_transpose", rank - 2, data_format,
                    (conv1d_transpose, conv2d_transpose, conv3d_transpose))
    return op(x, filters, output_shape, strides, padding, fmt, dilations, name=name)


def _width(v, data_format: str, name: str) -> int:
    """The width entry of a 1-D stride/dilation: an int, [w] or the 3-entry layout list."""
    if isinstance(v, (list, tuple)) and len(v) == 3:
        w = 2 if data_format == "NCW" else 1
        if any(int(v[i]) != 1 for i in range(3) if i != w):
            raise ValueError(f"tw.nn.conv1d_transpose: {name} in the batch and channel "
                             f"dimensions must be 1, got {list(v)}")
        return int(v[w])
    return nd_list(v, 1, name)[0]


@name_scoped
def conv1d_transpose(input: TensorLike, filters: TensorLike, output_shape: ShapeLike, strides,
                     padding: str = "SAME", data_format: str = "NWC", dilations=None,
                     name: str | None = None) -> Tensor:
    """Transposed 1-D convolution, the gradient of conv1d (``tw.nn.conv1d_transpose``).

    Args:
        input: a tensor [batch, width, in_channels] (or NCW).
        filters: [filter_width, output_channels, in_channels].
        output_shape: the 3 output dims (in ``data_format``).
        strides: an int or a list of 1 or 3 ints.
        padding: "SAME" or "VALID".
        data_format: "NWC" (default) or "NCW".
        dilations: an int or a list of 1 or 3 ints.

    Returns:
        The tensor of shape ``output_shape``.
    """
    if data_format not in ("NWC", "NCW"):
        raise ValueError(f"tw.nn.conv1d_transpose: data_format must be 'NWC' or 'NCW', got "
                         f"{data_format!r}")
    axis = 2 if data_format == "NCW" else 1
    x, w = convert_pair(input, filters)
    if isinstance(output_shape, (list, tuple)):
        sizes = [*output_shape[:axis], 1, *output_shape[axis:]]
    else:
        out = convert(output_shape, dtype_hint=dtypes.int32)
        sizes = concat([out[:axis], convert([1], dtype=out.dtype), out[axis:]], 0)
    one, dil = _width(strides, data_format, "strides"), _width(dilations, data_format,
                                                                "dilations")
    y = conv2d_transpose(expand_dims(x, axis), expand_dims(w, 0), sizes, [1, one], padding,
                         "NCHW" if data_format == "NCW" else "NHWC", [1, dil])
    return squeeze(y, [axis])
