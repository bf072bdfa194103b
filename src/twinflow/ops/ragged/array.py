"""concat, stack, gather, tile, where, expand_dims and reductions on RaggedTensors.

These are the ragged versions the public dense functions dispatch to (``ragged_dispatch``).
Rows are moved with ``gather_rows`` (positions from row_splits arithmetic) and reductions along
a ragged dimension are segment reductions over ``value_rowids``, so gradients flow to values.
"""
from __future__ import annotations

import numpy as np

from ...core import dtypes
from ...graph.graph import name_scoped
from ...graph.tensor import Tensor
from .. import array_ops as A
from .. import math_ops as M
from .. import reduction_ops as R
from .. import segment_ops as S
from ..core import convert, static_value
from ..dispatch import register
from .convert import from_tensor, gather_rows, segment_starts_range
from .getitem import ragged_getitem
from .ops import elementwise, map_flat_values
from .tensor import RaggedTensor


def _as_ragged(x, ragged_rank: int = 1) -> RaggedTensor:
    if isinstance(x, RaggedTensor):
        return x
    return from_tensor(convert(x), ragged_rank=ragged_rank)


def _axis(axis, rank, op: str) -> int:
    a = int(static_value(axis, f"{op} axis"))
    if a < 0:
        if rank is None:
            raise ValueError(f"{op}: a negative axis needs a RaggedTensor of known rank")
        a += rank
    return a


def _concat_rows(rts: list) -> RaggedTensor:
    """The rows of every input, one after another (concat along axis 0)."""
    d = rts[0].row_splits_dtype
    values = [r.values for r in rts]
    if any(isinstance(v, RaggedTensor) for v in values):
        vals = _concat_rows([_as_ragged(v) for v in values])
    else:
        vals = A.concat(values, 0)
    lengths = A.concat([M.cast(r.row_lengths(), d) for r in rts], 0)
    return RaggedTensor.from_row_lengths(vals, lengths, validate=False)


@name_scoped
def concat(values: list, axis, name=None) -> RaggedTensor:
    """``tw.concat`` of RaggedTensors (dense inputs are converted): rows joined along axis 0,
    or each row's items joined along axis 1.

    Args:
        values: RaggedTensors (and dense tensors) of the same rank.
        axis: 0 or 1 (or deeper, applied to the values).

    Returns:
        A RaggedTensor.
    """
    rank = next(v.shape.rank for v in values if isinstance(v, RaggedTensor))
    rr = max(v.ragged_rank for v in values if isinstance(v, RaggedTensor))
    rts = [_as_ragged(v, min(rr, (v.shape.rank or 2) - 1)) for v in values]
    a = _axis(axis, rank, "tw.concat")
    if a == 0:
        return _concat_rows(rts)
    if a > 1:
        return rts[0].with_values(concat([r.values for r in rts], a - 1))
    # axis 1: row i is rts[0][i] + rts[1][i] + ...; positions into the joined values.
    d = rts[0].row_splits_dtype
    offsets, off = [], M.cast(convert(0), d)
    for r in rts:
        offsets.append(off)
        n = r.values.nrows() if isinstance(r.values, RaggedTensor) else A.shape(r.values)[0]
        off = off + M.cast(n, d)
    starts = A.stack([M.cast(r.row_starts(), d) + o for r, o in zip(rts, offsets)], axis=1)
    lengths = A.stack([M.cast(r.row_lengths(), d) for r in rts], axis=1)
    pos = segment_starts_range(A.reshape(starts, [-1]), A.reshape(lengths, [-1]))
    if any(isinstance(r.values, RaggedTensor) for r in rts):
        joined = _concat_rows([_as_ragged(r.values) for r in rts])
    else:
        joined = A.concat([r.values for r in rts], 0)
    return RaggedTensor.from_row_lengths(gather_rows(joined, pos), R.reduce_sum(lengths, axis=1),
                                         validate=False)


@name_scoped
def expand_dims(rt: RaggedTensor, axis, name=None) -> RaggedTensor:
    """``tw.expand_dims`` of a RaggedTensor (axis 0 or 1; deeper axes apply to the values).

    Args:
        rt: a RaggedTensor.
        axis: where the new dimension of size 1 goes.

    Returns:
        A RaggedTensor.
    """
    a = _axis(axis, None if rt.shape.rank is None else rt.shape.rank + 1, "tw.expand_dims")
    d = rt.row_splits_dtype
    if a == 0:
        return RaggedTensor.from_row_splits(rt, A.stack([M.cast(convert(0), d), rt.nrows()]),
                                            validate=False)
    if a == 1:
        return RaggedTensor.from_row_splits(rt, A.range(rt.nrows() + 1, dtype=d),
                                            validate=False)
    inner = rt.values
    new = expand_dims(inner, a - 1) if isinstance(inner, RaggedTensor) else \
        A.expand_dims(inner, a - 1)
    return rt.with_values(new)


@name_scoped
def stack(values: list, axis=0, name=None) -> RaggedTensor:
    """``tw.stack`` / ``tw.ragged.stack`` of RaggedTensors (and dense tensors).

    Args:
        values: tensors of the same rank.
        axis: where the new dimension goes.

    Returns:
        A RaggedTensor.
    """
    if not any(isinstance(v, RaggedTensor) for v in values):
        values = [_as_ragged(v) for v in values]
    rank = next(v.shape.rank for v in values if isinstance(v, RaggedTensor))
    a = _axis(axis, None if rank is None else rank + 1, "tw.stack")
    rr = max(v.ragged_rank for v in values if isinstance(v, RaggedTensor))
    rts = [_as_ragged(v, min(rr, (v.shape.rank or 2) - 1)) for v in values]
    return concat([expand_dims(r, a) for r in rts], a)


@name_scoped
def gather(params, indices, axis=0, batch_dims=0, name=None):
    """``tw.gather`` on a RaggedTensor (rows, axis 0) or with ragged indices.

    Args:
        params: a RaggedTensor or dense tensor.
        indices: int tensor or RaggedTensor of row numbers.
        axis: must be 0.
        batch_dims: must be 0.

    Returns:
        The gathered rows (ragged).
    """
    if int(static_value(axis, "tw.gather axis") or 0) != 0 or batch_dims:
        raise ValueError("tw.gather of a RaggedTensor supports axis=0, batch_dims=0 only")
    if isinstance(indices, RaggedTensor):
        return indices.with_flat_values(gather(params, indices.flat_values))
    idx = convert(indices)
    if idx.shape.rank == 0:
        return ragged_getitem(params, idx)
    if idx.shape.rank != 1:
        flat = gather_rows(params, A.reshape(idx, [-1]))
        return from_tensor(A.reshape(A.range(A.size(idx)), A.shape(idx)),
                           ragged_rank=idx.shape.rank - 1).with_flat_values(flat) \
            if not isinstance(flat, RaggedTensor) else _regroup(flat, idx)
    return gather_rows(params, idx)


def _regroup(flat: RaggedTensor, idx: Tensor) -> RaggedTensor:
    shape = A.shape(idx, out_type=flat.row_splits_dtype)
    out = flat
    for d in reversed(range(1, idx.shape.rank)):
        n = shape[d]
        outer = A.reshape(shape[:d], [-1])
        out = RaggedTensor.from_row_lengths(out, A.fill(A.reshape(R.reduce_prod(outer), [1]), n),
                                            validate=False)
    return out


@name_scoped
def tile(rt: RaggedTensor, multiples, name=None) -> RaggedTensor:
    """``tw.tile`` of a 2-D RaggedTensor: rows repeated ``multiples[0]`` times, each row's
    items ``multiples[1]`` times.

    Args:
        rt: a RaggedTensor of rank 2 (ragged_rank 1).
        multiples: two non-negative ints.

    Returns:
        A RaggedTensor.
    """
    if rt.shape.rank != 2:
        raise ValueError("tw.tile of a RaggedTensor supports rank 2 only")
    m = [int(v) for v in np.reshape(static_value(multiples, "tw.tile multiples"), -1)]
    if len(m) != 2 or min(m) < 0:
        raise ValueError(f"tw.tile: multiples must be 2 non-negative ints, got {m}")
    d = rt.row_splits_dtype
    rows = A.reshape(A.tile(A.expand_dims(A.range(rt.nrows(), dtype=d), 0), [m[0], 1]), [-1])
    r = gather_rows(rt, rows)
    starts = A.repeat(r.row_starts(), m[1])
    lens = A.repeat(r.row_lengths(), m[1])
    vals = A.gather(r.values, segment_starts_range(starts, lens))
    return RaggedTensor.from_row_lengths(vals, r.row_lengths() * m[1], validate=False)


@name_scoped
def where(condition, x=None, y=None, name=None):
    """``tw.where`` with ragged arguments of one row partition (elementwise choice).

    Args:
        condition: a RaggedTensor of bools.
        x: values where True.
        y: values where False.

    Returns:
        A RaggedTensor.
    """
    if x is None and y is None:
        raise ValueError("tw.where(condition) of a RaggedTensor is not supported; use "
                         "tw.where(condition.to_tensor()) or tw.ragged.boolean_mask")
    return map_flat_values(M.where, condition, x, y)


# ----- reductions -------------------------------------------------------------------------------

_SEGMENT = {"sum": S.unsorted_segment_sum, "max": S.unsorted_segment_max,
            "min": S.unsorted_segment_min, "prod": S.unsorted_segment_prod}


def reduce(kind: str, dense_fn, rt: RaggedTensor, axis=None, keepdims: bool = False):
    """Reduction ``kind`` ('sum', 'max', 'min', 'prod', 'mean', 'any', 'all') of a RaggedTensor.

    Args:
        kind: which reduction.
        dense_fn: the dense reduction (for the flat values).
        rt: a RaggedTensor.
        axis: None (everything), an int, or a list of ints.
        keepdims: keep each reduced dimension with size 1 (reduce, then expand_dims).

    Returns:
        A dense tensor or RaggedTensor.
    """
    if axis is None:
        total = dense_fn(rt.flat_values)
        if keepdims:  # TF: a dense tensor of shape [1] * rank
            if rt.shape.rank is None:
                raise ValueError("keepdims=True with axis=None needs a RaggedTensor of known rank")
            total = A.reshape(total, [1] * rt.shape.rank)
        return total
    axes = static_value(axis, "ragged reduction axis")
    axes = [int(a) for a in np.reshape(axes, -1)]
    rank = rt.shape.rank
    if keepdims and rank is None and any(a < 0 for a in axes):
        raise ValueError("keepdims=True with a negative axis needs a RaggedTensor of known rank")
    axes = sorted({a + rank if a < 0 and rank is not None else a for a in axes}, reverse=True)
    out = rt
    for a in axes:
        out = _reduce_one(kind, dense_fn, out, a)
    if keepdims:  # as TF: reduce, then put each reduced dimension back with size 1
        for a in reversed(axes):
            out = expand_dims(out, a) if isinstance(out, RaggedTensor) else A.expand_dims(out, a)
    return out


def _reduce_one(kind: str, dense_fn, rt, axis: int):
    if not isinstance(rt, RaggedTensor):
        return dense_fn(rt, axis=axis)
    if axis >= 2:
        inner = _reduce_one(kind, dense_fn, rt.values, axis - 1)
        return rt.with_values(inner)
    values = rt.values
    if axis == 1:
        ids, n = rt.value_rowids(), rt.nrows()
    else:  # axis 0: reduce across rows, position by position
        d = rt.row_splits_dtype
        ids = A.range(A.shape(values, out_type=d)[0], dtype=d) \
            - A.repeat(rt.row_starts(), rt.row_lengths())
        n = M.maximum(reduce_max_int(rt.row_lengths()), 0)
    if isinstance(values, RaggedTensor):
        raise ValueError(f"reducing axis {axis} of a RaggedTensor whose values are ragged "
                         f"is not supported; reduce the inner dimensions first")
    return _segment_reduce(kind, values, ids, n)


def reduce_max_int(x):
    """max(x) of an int vector, 0 when empty."""
    return R.reduce_max(A.concat([x, A.zeros([1], x.dtype)], 0))


def _segment_reduce(kind: str, values, ids, n):
    if kind in _SEGMENT:
        return _SEGMENT[kind](values, ids, n)
    if kind == "mean":
        s = S.unsorted_segment_sum(values, ids, n)
        c = S.unsorted_segment_sum(A.ones_like(ids, dtype=values.dtype), ids, n)
        shape = A.concat([A.shape(c), A.ones_like(A.shape(s)[1:])], 0)
        return s / A.reshape(c, shape)
    if kind in ("any", "all"):
        as_int = M.cast(values, dtypes.int32)
        r = S.unsorted_segment_max(as_int, ids, n) if kind == "any" else \
            S.unsorted_segment_min(as_int, ids, n)
        return M.greater(r, 0)
    raise ValueError(f"unknown ragged reduction {kind!r}")


# ----- dispatch: the public dense functions hand RaggedTensors to these -----------------------

def _reduction(kind: str, dense_fn):
    def handler(input_tensor, axis=None, keepdims=False):
        return reduce(kind, dense_fn, input_tensor, axis, keepdims)
    return handler


for _kind, _fn in [("sum", R.reduce_sum), ("mean", R.reduce_mean), ("max", R.reduce_max),
                   ("min", R.reduce_min), ("prod", R.reduce_prod), ("any", R.reduce_any),
                   ("all", R.reduce_all)]:
    register(f"reduce_{_kind}", "RaggedTensor", _reduction(_kind, _fn))
register("concat", "RaggedTensor", concat)
register("stack", "RaggedTensor", stack)
register("gather", "RaggedTensor", gather)
register("tile", "RaggedTensor", tile)
register("expand_dims", "RaggedTensor", expand_dims)
register("where", "RaggedTensor", where)
register("abs", "RaggedTensor", lambda x: map_flat_values(M.abs, x))
register("size", "RaggedTensor",
         lambda x, out_type=dtypes.int32: A.size(x.flat_values, out_type=out_type))
register("rank", "RaggedTensor", lambda x: _static_rank(x))


def _static_rank(x):
    if x.shape.rank is None:
        raise ValueError("tw.rank of a RaggedTensor of unknown rank")
    return convert(x.shape.rank, dtype=dtypes.int32)
register("elementwise", "RaggedTensor", elementwise)
