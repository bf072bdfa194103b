"""Convolution and pooling geometry: padding, output sizes, im2col windows, attrs."""
from __future__ import annotations

import numpy as np

from ...core.errors import InvalidArgumentError
from ...core.shapes import TensorShape
from ..core import shape_from_tensor


def _hw_list(v, name: str, default: int = 1) -> tuple:
    """Normalizes strides/dilations/ksize to (h, w), from an int or a list of 1, 2 or 4."""
    if v is None:
        return default, default
    if isinstance(v, (int, np.integer)):
        return int(v), int(v)
    v = [int(i) for i in v]
    if len(v) == 1:
        return v[0], v[0]
    if len(v) == 2:
        return v[0], v[1]
    if len(v) == 4:
        if v[0] != 1 or v[3] != 1:
            raise InvalidArgumentError(None, None, f"{name} in the batch and depth dimensions "
                                                   f"must be 1, got {v}")
        return v[1], v[2]
    raise ValueError(f"{name} must be an int or a list of 1, 2 or 4 ints, got {v}")


def padding_attrs(padding, rank: int) -> tuple:
    """(``"SAME"``/``"VALID"``/``"EXPLICIT"``, explicit pairs or None) from TF's padding.

    Args:
        padding: a string, or ``rank + 2`` (or ``rank``) ``[before, after]`` pairs.
        rank: the number of spatial dimensions.

    Returns:
        The pair.
    """
    if isinstance(padding, str):
        p = padding.upper()
        if p not in ("SAME", "VALID"):
            raise ValueError(f"padding must be 'SAME', 'VALID' or a list of pairs, got "
                             f"{padding!r}")
        return p, None
    pairs = [tuple(int(i) for i in p) for p in padding]
    if len(pairs) == rank + 2:
        if pairs[0] != (0, 0) or pairs[-1] != (0, 0):
            raise ValueError(f"explicit padding of the batch and channel dimensions must be 0, "
                             f"got {padding}")
        pairs = pairs[1:-1]
    if len(pairs) != rank or any(len(p) != 2 or min(p) < 0 for p in pairs):
        raise ValueError(f"explicit padding needs {rank} non-negative [before, after] pairs "
                         f"for the spatial dimensions, got {padding}")
    return "EXPLICIT", tuple(pairs)


def _padding_attrs(padding) -> tuple:
    """(padding string, explicit paddings as ((top, bottom), (left, right)) or None)."""
    return padding_attrs(padding, 2)


def _out_dim(size, k, stride, dilation, padding, explicit, which: int, op_name: str):
    """(output size, pad before, pad after) along one spatial dim; sizes may be None."""
    eff = (k - 1) * dilation + 1 if k is not None else None
    if size is None or eff is None:
        return None, None, None
    if padding == "SAME":
        out = -(-size // stride)
        total = max((out - 1) * stride + eff - size, 0)
        return out, total // 2, total - total // 2
    before, after = explicit[which] if padding == "EXPLICIT" else (0, 0)
    span = size + before + after - eff
    if span < 0:
        raise InvalidArgumentError(
            None, None, f"{op_name}: computed output size would be negative: window of "
            f"{eff} (kernel {k}, dilation {dilation}) does not fit in input size {size} "
            f"with padding ({before}, {after})")
    return span // stride + 1, before, after


def _geometry(op_name, in_shape, kh, kw, attrs):
    """Output (OH, OW) and paddings ((top, bottom), (left, right)) of a conv/pool."""
    sh, sw = attrs["strides"]
    dh, dw = attrs.get("dilations", (1, 1))
    pad, explicit = attrs["padding"], attrs.get("explicit_paddings")
    oh, pt, pb = _out_dim(in_shape[1], kh, sh, dh, pad, explicit, 0, op_name)
    ow, pl, pr = _out_dim(in_shape[2], kw, sw, dw, pad, explicit, 1, op_name)
    return (oh, ow), ((pt, pb), (pl, pr))


def channels_first(data_format, what: str) -> bool:
    """True for "NCHW" (run as NHWC between two transposes), False for "NHWC" or None.

    Args:
        data_format: the argument.
        what: the function's name, for the error.

    Returns:
        Whether the layout is channels-first.
    """
    if data_format in (None, "NHWC"):
        return False
    if data_format == "NCHW":
        return True
    raise ValueError(f"{what}: data_format must be 'NHWC' or 'NCHW', got {data_format!r}")


def _nhwc_order(v, first: bool):
    """A 4-element NCHW stride/ksize/dilation/padding list reordered to NHWC."""
    if first and isinstance(v, (list, tuple)) and len(v) == 4:
        return [v[0], v[2], v[3], v[1]]
    return v


def _conv_attrs(strides, padding, dilations, data_format) -> dict:
    first = channels_first(data_format, "conv2d")
    strides, dilations = _nhwc_order(strides, first), _nhwc_order(dilations, first)
    if not isinstance(padding, str):
        padding = _nhwc_order(padding, first)
    pad, explicit = _padding_attrs(padding)
    return {"strides": _hw_list(strides, "strides"), "padding": pad,
            "explicit_paddings": explicit, "dilations": _hw_list(dilations, "dilations")}


def _fmt_shape(s) -> str:
    return str(s.as_list()) if s.rank is not None else "<unknown>"


def _conv_shape(op_name, x_shape, f_shape, attrs):
    """Checks conv2d operand shapes; returns the output TensorShape."""
    if x_shape.rank is not None and x_shape.rank != 4:
        raise InvalidArgumentError(None, None, f"{op_name}: input must be 4-dimensional "
                                               f"[batch, height, width, channels], got shape "
                                               f"{_fmt_shape(x_shape)}")
    if f_shape.rank is not None and f_shape.rank != 4:
        raise InvalidArgumentError(None, None, f"{op_name}: filter must be 4-dimensional "
                                               f"[height, width, in_channels, out_channels], "
                                               f"got shape {_fmt_shape(f_shape)}")
    xs = x_shape.as_list() if x_shape.rank is not None else [None] * 4
    fs = f_shape.as_list() if f_shape.rank is not None else [None] * 4
    if xs[3] is not None and fs[2] is not None and xs[3] != fs[2]:
        raise InvalidArgumentError(
            None, None, f"{op_name}: input depth {xs[3]} does not match the filter's input "
            f"depth {fs[2]} (input shape {xs}, filter shape {fs})")
    (oh, ow), _ = _geometry(op_name, xs, fs[0], fs[1], attrs)
    return TensorShape([xs[0], oh, ow, fs[3]])


def _static_dims(t) -> list:
    s = shape_from_tensor(t)
    return s.as_list() if s.rank is not None else [None] * 4


def _pool_attrs(ksize, strides, padding, data_format) -> dict:
    first = channels_first(data_format, "pooling")
    ksize, strides = _nhwc_order(ksize, first), _nhwc_order(strides, first)
    pad, explicit = _padding_attrs(padding)
    if pad == "EXPLICIT":
        raise ValueError("pooling supports padding 'SAME' or 'VALID' only")
    return {"ksize": _hw_list(ksize, "ksize"), "strides": _hw_list(strides, "strides"),
            "padding": pad}


def _width_arg(v, name: str, channels_first: bool = False) -> int:
    """An int from a 1-D stride/dilation/ksize argument: int, [w] or [1, w, 1] ([1, 1, w] for
    a channels-first NCW layout)."""
    if v is None:
        return 1
    if isinstance(v, (int, np.integer)):
        return int(v)
    v = [int(i) for i in v]
    if len(v) == 1:
        return v[0]
    if len(v) == 3 and channels_first and v[0] == v[1] == 1:
        return v[2]
    if len(v) == 3 and not channels_first and v[0] == v[2] == 1:
        return v[1]
    form = "[1, 1, w]" if channels_first else "[1, w, 1]"
    raise ValueError(f"{name} must be an int, [w] or {form}, got {v}")


def _hw4(values: list, one, what: str, noun: str) -> list:
    """``[one, h, w, one]`` from ``[v]`` (h = w = v), ``[h, w]`` or a full 4-list (kept).

    ``noun`` ("int", "float") names the entries in the error.
    """
    if len(values) == 1:
        return [one, values[0], values[0], one]
    if len(values) == 2:
        return [one, values[0], values[1], one]
    if len(values) == 4:
        return values
    article = "an" if noun[0] in "aeiou" else "a"
    raise ValueError(f"{what} must be {article} {noun} or a list of 1, 2 or 4 {noun}s, got "
                     f"{values}")
