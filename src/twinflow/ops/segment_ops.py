"""Segment reductions (``tw.math.segment_sum``, ``unsorted_segment_max``...) and ``bincount``.

``segment_*`` take sorted 1-D ``segment_ids`` (one per row of ``data``); the output has
``segment_ids[-1] + 1`` rows, empty segments giving 0 (1 for prod). ``unsorted_segment_*`` take
ids of any order and shape (a prefix of ``data``'s shape) and ``num_segments`` rows; negative ids
are dropped, and empty segments give the reduction's identity as TensorFlow does (the dtype's
lowest value for max, its highest for min).

Gradients are written with twinflow ops: sum gathers ``dy``; mean gathers ``dy / count``; max and
min send ``dy`` to the positions that hold the extreme (split evenly between ties); prod divides
the product by each element, with zeros handled as TensorFlow does.
"""
from __future__ import annotations

import numpy as np

from ..core import dtypes
from ..core.shapes import TensorShape
from ..eager.execute import bind, constant, constant_value
from ..graph.registry import register_op
from ..graph.tensor import DTypeLike, Tensor, TensorLike
from .array_ops import concat, fill, gather, ones_like, rank, reshape, shape, zeros_like
from .core import convert, static_int
from .core import invalid_argument as _err
from .math_ops import (
    cast,
    divide,
    equal,
    greater_equal,
    less,
    logical_and,
    maximum,
    minimum,
    multiply,
    where,
)

__all__ = ["segment_sum", "segment_mean", "segment_max", "segment_min", "segment_prod",
           "unsorted_segment_sum", "unsorted_segment_mean", "unsorted_segment_max",
           "unsorted_segment_min", "unsorted_segment_prod", "unsorted_segment_sqrt_n",
           "bincount"]


_UFUNC = {"sum": np.add, "prod": np.multiply, "max": np.maximum, "min": np.minimum,
          "mean": np.add}


def _identity(kind: str, dtype: np.dtype):
    """The value of an empty segment of an unsorted reduction (TensorFlow's)."""
    if kind in ("sum", "mean"):
        return 0
    if kind == "prod":
        return 1
    info = np.finfo(dtype) if dtype.kind in "fc" else np.iinfo(dtype) if dtype.kind != "V" \
        else dtypes.from_numpy(dtype)  # (bfloat16: ml_dtypes' limits)
    return info.min if kind == "max" else info.max


def _reduce(data: np.ndarray, ids: np.ndarray, n: int, kind: str, sorted_: bool) -> np.ndarray:
    """The segment reduction of ``data`` by ``ids`` into ``n`` rows (NumPy)."""
    k = ids.ndim
    flat = ids.reshape(-1)
    rows = data.reshape((flat.size,) + data.shape[k:])
    if flat.size and flat.max() >= n:
        j = int(np.argmax(flat >= n))
        raise _err(f"segment_ids[{j}] = {int(flat[j])} is out of range [0, {n})")
    keep = flat >= 0
    if not keep.all():
        flat, rows = flat[keep], rows[keep]
    out = np.full((n,) + data.shape[k:], _identity(kind, data.dtype), dtype=data.dtype)
    _UFUNC[kind].at(out, flat, rows)
    if kind == "mean" or sorted_ and kind in ("max", "min"):
        count = np.bincount(flat, minlength=n).reshape((n,) + (1,) * (out.ndim - 1))
        if kind == "mean":
            c = np.maximum(count, 1).astype(data.dtype)
            if data.dtype.kind in "iu":
                out = (np.sign(out) * (np.abs(out) // c)).astype(data.dtype)
            else:
                out = (out / c).astype(data.dtype)
        else:  # TensorFlow's sorted max/min give 0 for an empty segment
            out = np.where(count > 0, out, np.zeros((), data.dtype)).astype(data.dtype)
    return out


def _check_ids(data, ids) -> None:
    if not ids.dtype.is_integer:
        raise _err(f"segment_ids must be int32 or int64, got {ids.dtype.name}")
    dr, ir = data.shape.rank, ids.shape.rank
    if dr is None or ir is None:
        return
    if ir > dr or not TensorShape(data.shape.as_list()[:ir]).is_compatible_with(ids.shape):
        raise _err(f"data.shape = {data.shape} does not start with segment_ids.shape = "
                   f"{ids.shape}")


def _sorted_infer(data, ids):
    if ids.shape.rank is not None and ids.shape.rank != 1:
        raise _err(f"segment_ids should be a vector, got shape {ids.shape}")
    if ids.shape.rank == 1 and data.shape.rank and \
            not TensorShape(data.shape.as_list()[:1]).is_compatible_with(ids.shape):
        raise _err(f"segment_ids should be the same size as dimension 0 of data, but got "
                   f"shape {ids.shape} for data of shape {data.shape}")
    _check_ids(data, ids)
    if data.shape.rank is None:
        return data.dtype, TensorShape(None)
    v = constant_value(ids)
    n = None if v is None else (int(np.asarray(v)[-1]) + 1 if np.size(v) else 0)
    return data.dtype, TensorShape([n] + data.shape.as_list()[1:])


def _sorted_kernel(kind: str):
    def kernel(data, ids):
        if ids.ndim != 1 or data.ndim < 1 or ids.shape[0] != data.shape[0]:
            raise _err(f"segment_ids should be the same size as dimension 0 of data, but got "
                       f"shape {list(ids.shape)} for data of shape {list(data.shape)}")
        if ids.size and (ids[0] < 0 or (np.diff(ids) < 0).any()):
            raise _err("segment ids are not increasing (and must be non-negative)")
        n = int(ids[-1]) + 1 if ids.size else 0
        return _reduce(data, ids, n, kind, True)
    return kernel


def _unsorted_infer(data, ids, num_segments):
    _check_ids(data, ids)
    v = constant_value(num_segments)
    n = None if v is None else int(v)
    if n is not None and n < 0:  # as TensorFlow
        raise _err(f"Input num_segments == {n} must not be negative.")
    if data.shape.rank is None or ids.shape.rank is None:
        return data.dtype, TensorShape(None)
    return data.dtype, TensorShape([n] + data.shape.as_list()[ids.shape.rank:])


def _unsorted_kernel(kind: str):
    def kernel(data, ids, num_segments):
        if ids.ndim > data.ndim or data.shape[:ids.ndim] != ids.shape:
            raise _err(f"data.shape = {list(data.shape)} does not start with segment_ids.shape "
                       f"= {list(ids.shape)}")
        return _reduce(data, ids, int(num_segments), kind, False)
    return kernel


# ----- gradient helpers -------------------------------------------------------------------------

def _num_rows(y) -> Tensor:
    return shape(y, out_type=dtypes.int32)[0]


def _trailing_ones(prefix, like) -> Tensor:
    """A shape: ``prefix``'s shape followed by ones up to ``like``'s rank."""
    pr, lr = prefix.shape.rank, like.shape.rank
    if pr is not None and lr is not None:
        if pr == lr:
            return shape(prefix)
        return concat([shape(prefix), constant(np.ones(lr - pr, np.int32))], 0)
    extra = reshape(rank(like) - rank(prefix), [1])
    return concat([shape(prefix), fill(extra, 1)], 0)


def _gather_rows(params, ids, drop_negatives: bool) -> Tensor:
    """``params[ids]`` (rows), zero where ``ids`` is negative when ``drop_negatives``."""
    if not drop_negatives:
        return gather(params, ids)
    zero = zeros_like(ids)
    got = gather(params, maximum(ids, zero))
    keep = reshape(greater_equal(ids, zero), _trailing_ones(ids, got))
    return where(keep, got, zeros_like(got))


def _per_row(counts, like) -> Tensor:
    """``counts`` ([n]) reshaped to broadcast against ``like`` ([n, ...])."""
    return reshape(counts, _trailing_ones(counts, like))


def _row_counts(ids, n, dtype) -> Tensor:
    return unsorted_segment_sum(cast(greater_equal(ids, zeros_like(ids)), dtype), ids, n)


def _sum_grad(dy, ids, drop):
    return _gather_rows(dy, ids, drop)


def _mean_grad(dy, ids, n, drop):
    counts = _clamped_counts(ids, n, dy.dtype)
    return _gather_rows(divide(dy, _per_row(counts, dy)), ids, drop)


def _clamped_counts(ids, n, dtype) -> Tensor:
    c = _row_counts(ids, n, dtype)
    return maximum(c, ones_like(c))


def _minmax_grad(op, dy, ids, n, drop):
    data, y = op.inputs[0], op.outputs[0]
    picked = _gather_rows(y, ids, drop)
    selected = equal(data, picked)
    if drop:
        keep = reshape(greater_equal(ids, zeros_like(ids)),
                       _trailing_ones(ids, data))
        selected = logical_and(selected, keep)
    num = unsorted_segment_sum(cast(selected, dy.dtype), ids, n)
    spread = _gather_rows(divide(dy, num), ids, drop)
    return where(selected, spread, zeros_like(spread))


def _prod_grad(op, dy, ids, n, drop):
    data, y = op.inputs[0], op.outputs[0]
    zero = zeros_like(data)
    is_zero = equal(data, zero)
    num_zeros = unsorted_segment_sum(cast(is_zero, dtypes.int32), ids, n)
    dy = where(num_zeros > 1, zeros_like(dy), dy)
    safe = where(is_zero, ones_like(data), data)
    nonzero_prod = unsorted_segment_prod(safe, ids, n)
    partial = where(is_zero, _gather_rows(nonzero_prod, ids, drop),
                    divide(_gather_rows(y, ids, drop), safe))
    return multiply(_gather_rows(dy, ids, drop), partial)


def _grad(kind: str, sorted_: bool):
    """The gradient rule of a segment reduction; unsorted ones drop negative ids and have a
    third (num_segments) input."""
    def grad(op, dy):
        ids = op.inputs[1]
        n = _num_rows(dy) if sorted_ else op.inputs[2]
        drop = not sorted_
        if kind == "sum":
            g = _sum_grad(dy, ids, drop)
        elif kind == "mean":
            g = _mean_grad(dy, ids, n, drop)
        elif kind == "prod":
            g = _prod_grad(op, dy, ids, n, drop)
        else:
            g = _minmax_grad(op, dy, ids, n, drop)
        return (g, None) if sorted_ else (g, None, None)
    return grad


def _declare(kind: str, sorted_: bool):
    name = ("Segment" if sorted_ else "UnsortedSegment") + kind.capitalize()
    ns = {"__doc__": f"The {kind} of the rows of ``data`` in each segment "
                     f"({'sorted 1-D ids' if sorted_ else 'ids of any order, num_segments rows'})."}
    if sorted_:
        ns.update(infer=_sorted_infer, kernel=_sorted_kernel(kind), grad=_grad(kind, True))
    else:
        ns.update(infer=_unsorted_infer, kernel=_unsorted_kernel(kind), grad=_grad(kind, False))
    return register_op(name)(type(name, (), ns))


_KINDS = ("sum", "mean", "max", "min", "prod")
SegmentSum, SegmentMean, SegmentMax, SegmentMin, SegmentProd = (
    _declare(kind, True) for kind in _KINDS)
# TensorFlow composes UnsortedSegmentMean; here it is an op like the others
(UnsortedSegmentSum, UnsortedSegmentMean, UnsortedSegmentMax, UnsortedSegmentMin,
 UnsortedSegmentProd) = (_declare(kind, False) for kind in _KINDS)


# ----- public functions ------------------------------------------------------------------------

def _ids(segment_ids) -> Tensor:
    t = convert(segment_ids, dtype_hint=dtypes.int32)
    if not t.dtype.is_integer:
        raise TypeError(f"segment_ids must be int32 or int64, got {t.dtype.name}")
    return t


_WORDS = {"sum": "sum", "mean": "mean", "max": "maximum", "min": "minimum", "prod": "product"}
_UNSORTED_EMPTY = {"max": "hold the\n        dtype's lowest value",
                   "min": "hold the\n        dtype's highest value"}


def _public_function(kind: str, sorted_: bool, opdef):
    """The public function of a segment reduction: ``fn(data, segment_ids, name=None)``, or
    ``fn(data, segment_ids, num_segments, name=None)`` for the unsorted ones."""
    fn_name = ("segment_" if sorted_ else "unsorted_segment_") + kind
    empty = "are 1" if kind == "prod" else "are 0"
    if sorted_:
        def fn(data: TensorLike, segment_ids: TensorLike, name: str | None = None) -> Tensor:
            return bind(opdef, [convert(data), _ids(segment_ids)], name=name)
        args = "segment_ids: a sorted 1-D int tensor, one id per row of ``data``."
        shape = "``[segment_ids[-1] + 1] + data.shape[1:]``"
    else:
        def fn(data: TensorLike, segment_ids: TensorLike, num_segments: TensorLike,
               name: str | None = None) -> Tensor:
            ids = _ids(segment_ids)
            n = num_segments if isinstance(num_segments, Tensor) else \
                convert(num_segments, dtype=ids.dtype)
            return bind(opdef, [convert(data), ids, n], name=name)
        args = ("segment_ids: an int tensor whose shape is a prefix of ``data.shape``; negative "
                "ids are\n            dropped, ids ``>= num_segments`` raise InvalidArgumentError."
                "\n        num_segments: a scalar int: the number of output rows.")
        shape = "``[num_segments] + data.shape[rank(segment_ids):]``"
        empty = _UNSORTED_EMPTY.get(kind, empty)
    fn.__name__ = fn.__qualname__ = fn_name
    fn.__doc__ = f"""The per-segment {_WORDS[kind]} (``tw.math.{fn_name}``).

    Args:
        data: a tensor.
        {args}
        name: op name.

    Returns:
        {shape}; empty segments {empty}.
    """
    return fn


segment_sum, segment_mean, segment_max, segment_min, segment_prod = (
    _public_function(kind, True, op) for kind, op in zip(
        _KINDS, (SegmentSum, SegmentMean, SegmentMax, SegmentMin, SegmentProd)))
(unsorted_segment_sum, unsorted_segment_mean, unsorted_segment_max, unsorted_segment_min,
 unsorted_segment_prod) = (_public_function(kind, False, op) for kind, op in zip(
    _KINDS, (UnsortedSegmentSum, UnsortedSegmentMean, UnsortedSegmentMax, UnsortedSegmentMin,
             UnsortedSegmentProd)))


def unsorted_segment_sqrt_n(data: TensorLike, segment_ids: TensorLike, num_segments: TensorLike,
                            name: str | None = None) -> Tensor:
    """The per-segment sum divided by sqrt(count), for floats.

    Args:
        data: a tensor.
        segment_ids: an int tensor whose shape is a prefix of ``data.shape``; negative ids are
            dropped, ids ``>= num_segments`` raise InvalidArgumentError.
        num_segments: a scalar int: the number of output rows.
        name: op name.

    Returns:
        ``[num_segments] + data.shape[rank(segment_ids):]``; empty segments are 0.
    """
    x = convert(data)
    ids = _ids(segment_ids)
    total = unsorted_segment_sum(x, ids, num_segments, name=name)
    counts = _clamped_counts(ids, _num_rows(total), x.dtype)
    return divide(total, _per_row(counts ** 0.5, total))


# ----- bincount --------------------------------------------------------------------------------

def _bincount_size(arr: np.ndarray, minlength, maxlength) -> int:
    n = int(arr.max()) + 1 if arr.size else 0
    if minlength is not None:
        n = max(n, int(minlength))
    if maxlength is not None:
        n = min(n, int(maxlength))
    return n


@register_op("Bincount")
class Bincount:
    """Counts (or sums ``weights`` of) each value of the non-negative int ``arr``.

    ``weights`` of size 0 means plain counts of ``dtype``; ``axis=-1`` counts each row of a
    2-D ``arr``; values ``>= maxlength`` are dropped.
    """

    def infer(arr, weights, *, minlength, maxlength, dtype, axis, binary_output):
        out_dt = dtype if weights.shape.rank is not None and weights.shape.num_elements() == 0 \
            else weights.dtype
        if not arr.dtype.is_integer:
            raise _err(f"bincount: arr must be int32 or int64, got {arr.dtype.name}")
        v = constant_value(arr)
        if v is not None:
            n = _bincount_size(np.asarray(v), minlength, maxlength)
        elif minlength is not None and maxlength is not None and minlength >= maxlength:
            n = int(maxlength)
        else:
            n = None
        if axis == -1:
            if arr.shape.rank is not None and arr.shape.rank != 2:
                raise _err(f"bincount with axis=-1 needs a 2-D arr, got shape {arr.shape}")
            rows = arr.shape[0] if arr.shape.rank == 2 else None
            return out_dt, TensorShape([rows, n])
        return out_dt, TensorShape([n])

    def kernel(arr, weights, *, minlength, maxlength, dtype, axis, binary_output):
        if arr.size and arr.min() < 0:
            raise _err("Input arr must be non-negative!")
        n = _bincount_size(arr, minlength, maxlength)
        counting = weights.size == 0
        out_dt = dtype.np if counting else weights.dtype
        if counting:
            weights = None
        elif weights.shape != arr.shape:
            raise _err(f"bincount: weights shape {list(weights.shape)} must equal arr's "
                       f"{list(arr.shape)}")
        rows = arr.reshape(1, -1) if axis != -1 else arr
        wrows = None if weights is None else weights.reshape(rows.shape)
        out = np.zeros((rows.shape[0], n), dtype=out_dt)
        for r in range(rows.shape[0]):
            a = rows[r]
            keep = a < n
            w = None if wrows is None or binary_output else wrows[r][keep]
            c = np.bincount(a[keep], weights=w, minlength=n)[:n]
            out[r] = (c > 0) if binary_output else c
        return out if axis == -1 else out[0]

    def grad(op, dy):
        arr, weights = op.inputs
        if op.attrs["binary_output"] or weights.dtype != dy.dtype:
            return None, None
        n = shape(dy, out_type=arr.dtype)[-1]
        inside = less(arr, n)
        idx = minimum(arr, maximum(n - 1, zeros_like(n)))
        if op.attrs["axis"] == -1:
            got = gather(dy, idx, axis=1, batch_dims=1)
        else:
            got = gather(dy, idx)
        return None, where(inside, got, zeros_like(got))


def bincount(arr: TensorLike, weights: TensorLike | None = None, minlength=None, maxlength=None,
             dtype: DTypeLike = dtypes.int32, name: str | None = None,
             axis: TensorLike | None = None, binary_output: bool = False) -> Tensor:
    """Counts the occurrences of each value in an int tensor (``tw.math.bincount``).

    Args:
        arr: a non-negative int tensor.
        weights: None, or a tensor of ``arr``'s shape whose entries are summed per value.
        minlength: the output has at least this many bins.
        maxlength: at most this many bins (larger values are dropped).
        dtype: the count dtype when ``weights`` is None.
        name: op name.
        axis: None or 0 counts over all of ``arr``; -1 counts each row of a 2-D ``arr``.
        binary_output: 1 where a value occurs instead of its count.

    Returns:
        A 1-D tensor ``[max(max(arr) + 1, minlength)]`` (capped at ``maxlength``), or
        ``[rows, bins]`` with ``axis=-1``.
    """
    a = convert(arr, dtype_hint=dtypes.int32)
    dt = dtypes.as_dtype(dtype)
    w = convert(np.zeros((0,), dt.np)) if weights is None else convert(weights)
    mn = None if minlength is None else static_int(minlength, "bincount: minlength")
    mx = None if maxlength is None else static_int(maxlength, "bincount: maxlength")
    ax = None if axis is None else static_int(axis, "bincount: axis")
    if ax not in (None, 0, -1):
        raise ValueError(f"bincount: axis must be None, 0 or -1, got {axis}")
    return bind(Bincount, [a, w], {"minlength": mn, "maxlength": mx, "dtype": dt,
                                   "axis": -1 if ax == -1 else None,
                                   "binary_output": bool(binary_output)}, name=name)
