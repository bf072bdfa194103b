"""Rolling, masks, searching and counting: roll, sequence_mask, searchsorted,
histogram_fixed_width(_bins), unique_with_counts, unravel_index."""
from __future__ import annotations

from collections import namedtuple

import numpy as np

from ...core import dtypes
from ...core.shapes import TensorShape
from ...eager.execute import bind, constant_value
from ...graph.graph import name_scoped
from ...graph.registry import register_op
from ...graph.tensor import DTypeLike, Tensor, TensorLike
from ..core import _fmt, convert
from ..core import invalid_argument as _err
from ..math.cast import cast
from ..math.comparison import less
from ..math.reduce import reduce_max
from .create import range as _range
from .layout import expand_dims
from .shape import _int_input

# ----- roll ---------------------------------------------------------------------------------------

def _roll_args(x, shift, axis):
    shift = np.asarray(shift).reshape(-1)
    axis = np.asarray(axis).reshape(-1)
    if shift.size != axis.size:
        raise _err(f"roll: shift and axis must have the same size, got {shift.size} and "
                   f"{axis.size}")
    for a in axis:
        if not -x.ndim <= a < x.ndim:
            raise _err(f"roll: axis {a} is out of range for a tensor of rank {x.ndim}")
    return tuple(int(s) for s in shift), tuple(int(a) for a in axis)


@register_op("Roll")
class Roll:
    """Shifts the elements of ``x`` along ``axis`` by ``shift`` (cyclically)."""

    def infer(x, shift, axis):
        if shift.shape.rank not in (None, 0, 1) or axis.shape.rank not in (None, 0, 1):
            raise _err("roll: shift and axis must be scalars or vectors")
        return x.dtype, x.shape

    def kernel(x, shift, axis):
        s, a = _roll_args(x, shift, axis)
        return np.roll(x, s, a) if a else x.copy()

    def grad(op, dy):
        _, shift, axis = op.inputs
        return bind(Roll, [dy, -shift, axis]), None, None


def roll(input: TensorLike, shift, axis, name: str | None = None) -> Tensor:
    """Rolls the elements of ``input`` along ``axis`` (``tw.roll``).

    Args:
        input: a tensor.
        shift: an int or 1-D int tensor: how far to shift (negative shifts left).
        axis: an int or 1-D int tensor, one axis per shift (an axis may repeat; shifts add up).
        name: op name.

    Returns:
        The rolled tensor, of the input's shape and dtype.
    """
    x = convert(input)
    s = _int_input(shift, "shift")
    a = _int_input(axis, "axis", dtype=s.dtype)
    return bind(Roll, [x, s, a], name=name)


# ----- sequence_mask ------------------------------------------------------------------------------

@name_scoped
def sequence_mask(lengths: TensorLike, maxlen=None, dtype: DTypeLike = dtypes.bool_,
                  name: str | None = None) -> Tensor:
    """A mask of the first ``lengths[i]`` positions of each row (``tw.sequence_mask``).

    Args:
        lengths: an integer tensor of any shape.
        maxlen: the mask's last dimension (default: the largest length).
        dtype: the mask's dtype.

    Returns:
        A tensor of shape ``lengths.shape + [maxlen]`` with ``mask[..., j] = j < lengths[...]``.
    """
    n = convert(lengths)
    if not n.dtype.is_integer:
        raise TypeError(f"sequence_mask: lengths must be integers, got {n.dtype.name}")
    if maxlen is None:
        m = reduce_max(n) if n.shape.rank != 0 else n
        m = cast(m, dtypes.int64) if n.dtype == dtypes.int64 else m
    else:
        m = cast(convert(maxlen), n.dtype)
        if m.shape.rank not in (None, 0):
            raise ValueError(f"sequence_mask: maxlen must be a scalar, got shape {m.shape}")
    positions = _range(cast(0, n.dtype), m, cast(1, n.dtype))
    mask = less(positions, expand_dims(n, -1))
    dt = dtypes.as_dtype(dtype)
    return mask if dt == dtypes.bool_ else cast(mask, dt)


# ----- searchsorted -------------------------------------------------------------------------------

def _search_infer(seq, values, *, side="left", out_type=dtypes.int32):
    if seq.shape.rank is not None and values.shape.rank is not None:
        if seq.shape.rank != values.shape.rank or seq.shape.rank < 1:
            raise _err(f"searchsorted: sorted_sequence {_fmt(seq.shape)} and values "
                       f"{_fmt(values.shape)} must have the same rank >= 1")
        if not seq.shape[:-1].is_compatible_with(values.shape[:-1]):
            raise _err(f"searchsorted: the leading dimensions of sorted_sequence "
                       f"{_fmt(seq.shape)} and values {_fmt(values.shape)} must be equal")
    return out_type, values.shape


@register_op("SearchSorted", same_dtype=True)
class SearchSorted:
    """For each row, where each value would be inserted into the sorted row of ``seq``
    (TensorFlow's LowerBound with side "left", UpperBound with side "right")."""

    infer = _search_infer

    def kernel(seq, values, *, side="left", out_type=dtypes.int32):
        if seq.ndim != values.ndim or seq.ndim < 1 or seq.shape[:-1] != values.shape[:-1]:
            raise _err(f"searchsorted: sorted_sequence {list(seq.shape)} and values "
                       f"{list(values.shape)} must have the same rank and leading dimensions")
        s2 = seq.reshape(-1, seq.shape[-1])
        v2 = values.reshape(-1, values.shape[-1])
        out = np.empty(v2.shape, dtype=out_type.np)
        for i in np.ndindex(s2.shape[0]):
            out[i] = np.searchsorted(s2[i], v2[i], side=side)
        return out.reshape(values.shape)

    def grad(op, dy):
        return None, None


def searchsorted(sorted_sequence: TensorLike, values: TensorLike, side: str = "left",
                 out_type: DTypeLike = dtypes.int32, name: str | None = None) -> Tensor:
    """Insertion points of ``values`` in the rows of ``sorted_sequence`` (``tw.searchsorted``).

    Args:
        sorted_sequence: N-D tensor sorted along its last axis.
        values: N-D tensor with the same leading dimensions.
        side: "left" (first suitable index) or "right" (last).
        out_type: int32 or int64.
        name: op name.

    Returns:
        An ``out_type`` tensor of the shape of ``values``.
    """
    if side not in ("left", "right"):
        raise ValueError(f"searchsorted: side must be 'left' or 'right', got {side!r}")
    out = dtypes.as_dtype(out_type)
    if out not in (dtypes.int32, dtypes.int64):
        raise TypeError(f"searchsorted: out_type must be int32 or int64, got {out.name}")
    seq = convert(sorted_sequence)
    v = convert(values, dtype=seq.dtype)
    return bind(SearchSorted, [seq, v], {"side": side, "out_type": out}, name=name)


# ----- histograms ---------------------------------------------------------------------------------

def _bin_indices(values, value_range, nbins):
    lo, hi = (np.asarray(value_range)[0], np.asarray(value_range)[1])
    if not hi > lo:
        raise _err(f"histogram_fixed_width: value_range must be increasing, got "
                   f"[{lo}, {hi}]")
    if nbins <= 0:
        raise _err(f"histogram_fixed_width: nbins must be positive, got {nbins}")
    if values.dtype.kind == "f" and np.isnan(values).any():
        raise _err("histogram_fixed_width: values must not contain NaN")
    idx = np.floor((values.astype(np.float64) - lo) / (hi - lo) * nbins)
    return np.clip(idx, 0, nbins - 1).astype(np.int64)


def _check_hist_inputs(values, value_range, nbins):
    if value_range.shape.rank is not None and value_range.shape != TensorShape([2]):
        raise _err(f"histogram_fixed_width: value_range must have shape [2], got "
                   f"{_fmt(value_range.shape)}")
    if nbins.shape.rank not in (None, 0):
        raise _err(f"histogram_fixed_width: nbins must be a scalar, got {_fmt(nbins.shape)}")


@register_op("HistogramFixedWidth")
class HistogramFixedWidth:
    """Counts of ``values`` in ``nbins`` equal bins over ``value_range`` (values outside go
    to the first or last bin)."""

    def infer(values, value_range, nbins, *, dtype=dtypes.int32):
        _check_hist_inputs(values, value_range, nbins)
        n = constant_value(nbins)
        return dtype, TensorShape([None if n is None else int(n)])

    def kernel(values, value_range, nbins, *, dtype=dtypes.int32):
        idx = _bin_indices(values, value_range, int(nbins)).reshape(-1)
        return np.bincount(idx, minlength=int(nbins)).astype(dtype.np)

    def grad(op, dy):
        return None, None, None


@register_op("HistogramFixedWidthBins")
class HistogramFixedWidthBins:
    """The bin index of each of ``values`` for ``nbins`` equal bins over ``value_range``."""

    def infer(values, value_range, nbins, *, dtype=dtypes.int32):
        _check_hist_inputs(values, value_range, nbins)
        return dtype, values.shape

    def kernel(values, value_range, nbins, *, dtype=dtypes.int32):
        return _bin_indices(values, value_range, int(nbins)).astype(dtype.np)

    def grad(op, dy):
        return None, None, None


def _histogram(opdef, values, value_range, nbins, dtype, name):
    v = convert(values)
    if not (v.dtype.is_floating or v.dtype.is_integer):
        raise TypeError(f"histogram_fixed_width: values must be numeric, got {v.dtype.name}")
    r = convert(value_range, dtype=v.dtype)
    n = convert(nbins, dtype=dtypes.int32)
    dt = dtypes.as_dtype(dtype)
    if dt not in (dtypes.int32, dtypes.int64):
        raise TypeError(f"histogram_fixed_width: dtype must be int32 or int64, got {dt.name}")
    return bind(opdef, [v, r, n], {"dtype": dt}, name=name)


def histogram_fixed_width(values: TensorLike, value_range: TensorLike, nbins=100,
                          dtype: DTypeLike = dtypes.int32, name: str | None = None) -> Tensor:
    """A histogram of ``values`` with ``nbins`` equal bins (``tw.histogram_fixed_width``).

    Args:
        values: a numeric tensor.
        value_range: ``[lo, hi]``: values below ``lo`` count in the first bin, values at or
            above ``hi`` in the last.
        nbins: the number of bins.
        dtype: int32 or int64.
        name: op name.

    Returns:
        A 1-D tensor of ``nbins`` counts.
    """
    return _histogram(HistogramFixedWidth, values, value_range, nbins, dtype, name)


def histogram_fixed_width_bins(values: TensorLike, value_range: TensorLike, nbins=100,
                               dtype: DTypeLike = dtypes.int32,
                               name: str | None = None) -> Tensor:
    """The bin of each value for ``nbins`` equal bins (``tw.histogram_fixed_width_bins``).

    Args:
        values: a numeric tensor.
        value_range: ``[lo, hi]``; values outside go to the first or last bin.
        nbins: the number of bins.
        dtype: int32 or int64.
        name: op name.

    Returns:
        A tensor of bin indices with the shape of ``values``.
    """
    return _histogram(HistogramFixedWidthBins, values, value_range, nbins, dtype, name)


# ----- unique_with_counts, unravel_index ----------------------------------------------------------

_UniqueWithCountsOutput = namedtuple("UniqueWithCounts", ["y", "idx", "count"])


@register_op("UniqueWithCounts", multi_output=True)
class UniqueWithCounts:
    """The distinct values of a 1-D tensor (first-appearance order), each element's index
    among them, and how often each value occurs."""

    def infer(x, *, out_idx=dtypes.int32):
        if x.shape.rank not in (None, 1):
            raise _err(f"unique_with_counts expects a 1D vector, got shape {_fmt(x.shape)}")
        return [(x.dtype, TensorShape([None])), (out_idx, x.shape.with_rank(1)),
                (out_idx, TensorShape([None]))]

    def kernel(x, *, out_idx=dtypes.int32):
        if x.ndim != 1:
            raise _err(f"unique_with_counts expects a 1D vector, got shape {list(x.shape)}")
        _, first, inv, counts = np.unique(x, return_index=True, return_inverse=True,
                                          return_counts=True, equal_nan=False)
        order = np.argsort(first, kind="stable")
        rank_of = np.empty_like(order)
        rank_of[order] = np.arange(len(order))
        return (x[first[order]], rank_of[inv.reshape(-1)].astype(out_idx.np),
                counts[order].astype(out_idx.np))

    def grad(op, *dys):
        return None


def unique_with_counts(x: TensorLike, out_idx: DTypeLike = dtypes.int32,
                       name: str | None = None) -> tuple:
    """The distinct values of 1-D ``x``, indices and counts (``tw.unique_with_counts``).

    Args:
        x: a 1-D tensor.
        out_idx: the dtype of the indices and counts (int32 or int64).
        name: op name.

    Returns:
        (y, idx, count): ``x == gather(y, idx)``; ``count[i]`` is how often ``y[i]`` occurs.
    """
    dt = dtypes.as_dtype(out_idx)
    if dt not in (dtypes.int32, dtypes.int64):
        raise TypeError(f"unique_with_counts: out_idx must be int32 or int64, got {dt.name}")
    return _UniqueWithCountsOutput(*bind(UniqueWithCounts, [convert(x)], {"out_idx": dt},
                                         name=name))


@register_op("UnravelIndex", same_dtype=True)
class UnravelIndex:
    """The coordinates of flat ``indices`` in an array of shape ``dims``."""

    def infer(indices, dims):
        if indices.shape.rank not in (None, 0, 1) or dims.shape.rank not in (None, 1):
            raise _err(f"unravel_index: indices must be a scalar or vector and dims a vector, "
                       f"got {_fmt(indices.shape)} and {_fmt(dims.shape)}")
        d = dims.shape[0] if dims.shape.rank == 1 else None
        if indices.shape.rank == 0:
            return indices.dtype, TensorShape([d])
        n = indices.shape[0] if indices.shape.rank == 1 else None
        return indices.dtype, TensorShape(None if indices.shape.rank is None else [d, n])

    def kernel(indices, dims):
        size = int(np.prod(dims))
        if np.any(indices < 0) or np.any(indices >= size):
            raise _err(f"unravel_index: index out of range [0, {size}) for dims "
                       f"{list(dims)}")
        return np.stack(np.unravel_index(indices, tuple(int(d) for d in dims))).astype(
            indices.dtype)

    def grad(op, dy):
        return None, None


def unravel_index(indices: TensorLike, dims: TensorLike, name: str | None = None) -> Tensor:
    """Converts flat indices into coordinates (``tw.unravel_index``).

    Args:
        indices: an int32/int64 scalar or vector of flat indices.
        dims: the shape being indexed.
        name: op name.

    Returns:
        ``[len(dims)]`` (scalar indices) or ``[len(dims), n]`` coordinates.
    """
    i = convert(indices)
    if i.dtype not in (dtypes.int32, dtypes.int64):
        raise TypeError(f"unravel_index: indices must be int32 or int64, got {i.dtype.name}")
    return bind(UnravelIndex, [i, convert(dims, dtype=i.dtype)], name=name)


__all__ = ["roll", "sequence_mask", "searchsorted", "histogram_fixed_width",
           "histogram_fixed_width_bins", "unique_with_counts", "unravel_index"]
