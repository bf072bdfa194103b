"""Smaller top-level array functions: reverse_sequence, saturate_cast, shape_n,
parallel_stack, broadcast_static_shape / broadcast_dynamic_shape, timestamp."""
from __future__ import annotations

import time

import numpy as np

from ...core import dtypes
from ...core.shapes import TensorShape
from ...eager.execute import bind
from ...graph.graph import name_scoped
from ...graph.registry import register_op
from ...graph.tensor import DTypeLike, Tensor, TensorLike
from ..core import _fmt, convert
from ..core import invalid_argument as _err
from ..math.cast import cast
from ..math.clip import clip_by_value
from .layout import stack
from .shape import shape


@register_op("ReverseSequence")
class ReverseSequence:
    """Reverses the first ``seq_lengths[b]`` elements along ``seq_dim`` of each slice ``b``
    along ``batch_dim``."""

    def infer(x, seq_lengths, *, seq_dim, batch_dim):
        r = x.shape.rank
        if r is not None and not (0 <= seq_dim < r and 0 <= batch_dim < r) or \
                seq_dim == batch_dim:
            raise _err(f"reverse_sequence: seq_axis {seq_dim} and batch_axis {batch_dim} must "
                       f"be different axes of a tensor of shape {_fmt(x.shape)}")
        if seq_lengths.shape.rank not in (None, 1):
            raise _err(f"reverse_sequence: seq_lengths must be 1-D, got "
                       f"{_fmt(seq_lengths.shape)}")
        return x.dtype, x.shape

    def kernel(x, seq_lengths, *, seq_dim, batch_dim):
        if seq_lengths.shape != (x.shape[batch_dim],):
            raise _err(f"reverse_sequence: seq_lengths {list(seq_lengths.shape)} must have one "
                       f"entry per batch ({x.shape[batch_dim]})")
        if np.any(seq_lengths < 0) or np.any(seq_lengths > x.shape[seq_dim]):
            raise _err(f"reverse_sequence: seq_lengths must be in [0, {x.shape[seq_dim]}], "
                       f"got {seq_lengths.tolist()}")
        xm = np.moveaxis(x, (batch_dim, seq_dim), (0, 1))
        out = xm.copy()
        for b, n in enumerate(seq_lengths):
            out[b, :n] = xm[b, :n][::-1]
        return np.moveaxis(out, (0, 1), (batch_dim, seq_dim))

    def grad(op, dy):
        return bind(ReverseSequence, [dy, op.inputs[1]], op.attrs), None


def reverse_sequence(input: TensorLike, seq_lengths: TensorLike, seq_axis=None, batch_axis=None,
                     name: str | None = None) -> Tensor:
    """Reverses variable-length prefixes (``tw.reverse_sequence``).

    Args:
        input: a tensor.
        seq_lengths: int ``[batch]``: how many leading elements of each sequence to reverse.
        seq_axis: the sequence axis.
        batch_axis: the batch axis (default 0).
        name: op name.

    Returns:
        The tensor with each prefix reversed.
    """
    x = convert(input, name="input")
    n = convert(seq_lengths, name="seq_lengths")
    if not n.dtype.is_integer:
        raise TypeError(f"reverse_sequence: seq_lengths must be integers, got {n.dtype.name}")
    if seq_axis is None:
        raise ValueError("reverse_sequence: seq_axis is required")
    r = x.shape.rank
    sd, bd = int(seq_axis), int(batch_axis or 0)
    if r is not None:
        sd, bd = sd % r, bd % r
    return bind(ReverseSequence, [x, n], {"seq_dim": sd, "batch_dim": bd}, name=name)


@name_scoped
def saturate_cast(value: TensorLike, dtype: DTypeLike, name: str | None = None) -> Tensor:
    """Casts, clipping first to the target dtype's range (``tw.saturate_cast``).

    Args:
        value: a numeric tensor.
        dtype: the target dtype.

    Returns:
        The cast tensor (no wrap-around).
    """
    x = convert(value, name="value")
    dt = dtypes.as_dtype(dtype)
    if x.dtype.is_complex and not dt.is_complex:
        raise TypeError("saturate_cast: complex to real is not supported")
    if dt.is_integer or dt.is_floating:
        info = dt._info()
        src = x.dtype._info() if x.dtype.is_integer or x.dtype.is_floating else None
        if src is not None and (src.min < info.min or src.max > info.max):
            lo = max(float(info.min), float(src.min))
            hi = min(float(info.max), float(src.max))
            if x.dtype.is_integer:
                x = clip_by_value(x, int(lo), int(hi))
            else:
                # The largest float below the bound that still casts inside the range.
                hi_f = float(np.nextafter(x.dtype.np.type(hi), -np.inf)) \
                    if float(x.dtype.np.type(hi)) > hi else hi
                x = clip_by_value(x, lo, hi_f)
    return cast(x, dt)


@name_scoped
def shape_n(input, out_type: DTypeLike = dtypes.int32, name: str | None = None) -> list:
    """The shapes of a list of tensors (``tw.shape_n``).

    Args:
        input: a list of tensors.
        out_type: int32 or int64.

    Returns:
        A list of 1-D shape tensors.
    """
    return [shape(convert(t), out_type=out_type) for t in input]


@name_scoped
def parallel_stack(values, name: str = "parallel_stack") -> Tensor:
    """Stacks tensors of one shape along a new first axis (``tw.parallel_stack``).

    Args:
        values: a list of tensors with the same shape and dtype.

    Returns:
        The stacked tensor.
    """
    return stack(values, axis=0)


def broadcast_static_shape(shape_x, shape_y) -> TensorShape:
    """The broadcast of two static shapes (``tw.broadcast_static_shape``).

    Args:
        shape_x: a TensorShape.
        shape_y: a TensorShape.

    Returns:
        The broadcast TensorShape (unknown dims stay unknown).

    Raises:
        ValueError: the shapes are incompatible.
    """
    a, b = TensorShape(shape_x), TensorShape(shape_y)
    if a.rank is None or b.rank is None:
        return TensorShape(None)
    da, db = a.as_list(), b.as_list()
    n = max(len(da), len(db))
    da, db = [1] * (n - len(da)) + da, [1] * (n - len(db)) + db
    out = []
    for x, y in zip(da, db):
        if x == 1:
            out.append(y)
        elif y == 1 or y is None and x is not None or x == y:
            out.append(x if x is not None or y == 1 else y)
        elif x is None:
            out.append(y)
        else:
            raise ValueError(f"Incompatible shapes for broadcasting: {a} and {b}")
    return TensorShape(out)


@register_op("BroadcastArgs", same_dtype=True)
class BroadcastArgs:
    """The shape two shapes broadcast to."""

    def infer(x, y):
        if x.shape.rank not in (None, 1) or y.shape.rank not in (None, 1):
            raise _err(f"broadcast_dynamic_shape: shapes must be 1-D, got {_fmt(x.shape)} and "
                       f"{_fmt(y.shape)}")
        n = None if x.shape.rank is None or y.shape.rank is None or None in (
            x.shape[0], y.shape[0]) else max(x.shape[0], y.shape[0])
        return x.dtype, TensorShape([n])

    def kernel(x, y):
        try:
            return np.asarray(np.broadcast_shapes(tuple(x.tolist()), tuple(y.tolist())),
                              dtype=x.dtype)
        except ValueError as e:
            raise _err(f"Incompatible shapes: {x.tolist()} vs. {y.tolist()}") from e

    def grad(op, dy):
        return None, None


def broadcast_dynamic_shape(shape_x: TensorLike, shape_y: TensorLike) -> Tensor:
    """The broadcast of two shape tensors (``tw.broadcast_dynamic_shape``).

    Args:
        shape_x: a 1-D int tensor.
        shape_y: a 1-D int tensor.

    Returns:
        The broadcast shape, a 1-D tensor.
    """
    x = convert(shape_x, dtype=dtypes.int32) if not isinstance(shape_x, Tensor) else shape_x
    return bind(BroadcastArgs, [x, convert(shape_y, dtype=x.dtype)])


@register_op("Timestamp", stateful=True)
class Timestamp:
    """Seconds since the epoch, as float64, when the op runs."""

    def infer():
        return dtypes.float64, TensorShape([])

    def kernel():
        return np.float64(time.time())

    def grad(op, dy):
        return ()


def timestamp(name: str | None = None) -> Tensor:
    """The current time in seconds since the epoch, when the op runs (``tw.timestamp``).

    Args:
        name: op name.

    Returns:
        A float64 scalar.
    """
    return bind(Timestamp, [], name=name)


__all__ = ["reverse_sequence", "saturate_cast", "shape_n", "parallel_stack",
           "broadcast_static_shape", "broadcast_dynamic_shape", "timestamp"]
