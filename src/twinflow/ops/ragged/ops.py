"""``tw.ragged``: building RaggedTensors and the operations that accept them.

``map_flat_values`` is the one way elementwise work reaches a RaggedTensor: the public
elementwise functions dispatch to it (``ragged_dispatch``), so ``tw.add(rt, 1)``,
``tw.math.sqrt(rt)`` and ``rt * 2`` all apply the dense op to ``flat_values`` and keep the row
partition. Reductions, concat/stack, gather, tile and where work on row_splits arithmetic.
"""
from __future__ import annotations

import builtins

import numpy as np

from ...core import dtypes, nest
from ...eager.execute import constant as _dense_constant
from ...eager.tensor import EagerTensor
from ...graph.graph import name_scoped
from ...graph.tensor import Tensor
from .. import array_ops as A
from .. import math_ops as M
from .. import reduction_ops as R
from .. import segment_ops as S
from ..core import convert, static_value
from .convert import from_tensor, gather_rows, segment_starts_range
from .tensor import RaggedTensor, RaggedTensorSpec, _splits_dtype

__all__ = ["RaggedTensor", "RaggedTensorSpec", "boolean_mask", "constant", "map_flat_values",
           "range", "row_splits_to_segment_ids", "segment_ids_to_row_splits",
           "stack_dynamic_partitions"]

# ----- construction -------------------------------------------------------------------------

def _depth(x) -> int:
    if not isinstance(x, (list, tuple)):
        return 0
    return 1 + max((_depth(v) for v in x), default=0)


@name_scoped
def constant(pylist, dtype=None, ragged_rank=None, inner_shape=None, name=None,
             row_splits_dtype=dtypes.int64) -> RaggedTensor:
    """A RaggedTensor from nested Python lists (``tw.ragged.constant``).

    Args:
        pylist: nested lists of scalars; lists at one depth may have different lengths.
        dtype: the values' dtype (inferred as ``tw.constant`` does).
        ragged_rank: how many dimensions after the first are ragged (default: all but
            ``inner_shape``).
        inner_shape: the uniform shape of the innermost values (default ``()``).
        row_splits_dtype: int32 or int64.

    Returns:
        A RaggedTensor (a dense tensor for a scalar).
    """
    d = _splits_dtype(row_splits_dtype)
    if not isinstance(pylist, (list, tuple)):
        return _dense_constant(pylist, dtype)
    depth = _depth(pylist)
    inner_rank = len(inner_shape) if inner_shape is not None else 0
    if ragged_rank is None:
        ragged_rank = max(depth - 1 - inner_rank, 1) if depth > 1 or inner_rank == 0 else 1
    if inner_shape is None and ragged_rank < depth - 1:
        inner_rank = depth - 1 - ragged_rank
    if ragged_rank < 1:
        raise ValueError(f"tw.ragged.constant: ragged_rank must be >= 1, got {ragged_rank}")
    items, lengths = list(pylist), []
    for level in builtins.range(ragged_rank):
        if any(not isinstance(x, (list, tuple)) for x in items):
            raise ValueError(f"tw.ragged.constant: all values at depth {level + 1} must be "
                             f"lists for ragged_rank {ragged_rank}")
        lengths.append(np.array([len(x) for x in items], np.int64))
        items = [y for x in items for y in x]
    if items:
        try:
            flat = _dense_constant(items, dtype)
        except (ValueError, TypeError) as e:
            raise ValueError(f"tw.ragged.constant: the inner values must have a uniform shape "
                             f"(inner_shape); {e}") from None
    else:
        shape = [0] + list(inner_shape or [])
        flat = _dense_constant(np.zeros(shape, np.float32 if dtype is None else
                                        dtypes.as_dtype(dtype).np), dtype)
    if inner_shape is not None and flat.shape.as_list()[1:] != list(inner_shape):
        raise ValueError(f"tw.ragged.constant: inner values have shape "
                         f"{flat.shape.as_list()[1:]}, expected inner_shape {list(inner_shape)}")
    splits = [np.concatenate([[0], np.cumsum(x)]).astype(d.np) for x in lengths]
    return RaggedTensor.from_nested_row_splits(flat, splits)


@name_scoped
def range(starts, limits=None, deltas=1, dtype=None, name=None,  # noqa: A001
          row_splits_dtype=dtypes.int64) -> RaggedTensor:
    """Row ``i`` is ``range(starts[i], limits[i], deltas[i])`` (``tw.ragged.range``).

    Args:
        starts: the rows' starts (or the limits when ``limits`` is None); scalars broadcast.
        limits: the rows' limits.
        deltas: the rows' steps (non-zero).
        dtype: the values' dtype.
        row_splits_dtype: int32 or int64.

    Returns:
        A ``[nrows, (len)]`` RaggedTensor.
    """
    d = _splits_dtype(row_splits_dtype)
    if limits is None:
        starts, limits = 0, starts
    s, lim, de = (convert(v, dtype=dtype) if isinstance(v, Tensor) else
                  convert(v, dtype=dtype, dtype_hint=_hint(starts, limits, deltas))
                  for v in (starts, limits, deltas))
    if isinstance(de, EagerTensor) and np.any(de.numpy() == 0):
        raise ValueError("tw.ragged.range: deltas must be non-zero")
    shape = A.shape(s + lim + de)
    s, lim, de = (A.reshape(A.broadcast_to(v, shape), [-1]) for v in (s, lim, de))
    span = M.cast(lim - s, dtypes.float64) / M.cast(de, dtypes.float64)
    lengths = M.cast(M.maximum(M.ceil(span), 0.0), d)
    steps = M.cast(segment_starts_range(A.zeros_like(lengths), lengths), s.dtype)
    vals = A.repeat(s, lengths) + steps * A.repeat(de, lengths)
    return RaggedTensor.from_row_lengths(vals, lengths, validate=False)


def _hint(*vals):
    # A tensor among the arguments sets the dtype of the Python numbers beside it.
    for x in vals:
        if isinstance(x, Tensor):
            return x.dtype
    flat = [v for x in vals for v in np.reshape(np.asarray(x, dtype=object), -1)]
    return dtypes.float32 if any(isinstance(v, float) for v in flat) else dtypes.int32


@name_scoped
def row_splits_to_segment_ids(splits, name=None, out_type=None) -> Tensor:
    """The row id of every value, from row_splits.

    Args:
        splits: a row_splits vector.
        out_type: the dtype (default: ``splits``' dtype).

    Returns:
        An int vector.
    """
    sp = convert(splits, dtype_hint=dtypes.int64)
    ids = A.repeat(A.range(A.shape(sp, out_type=sp.dtype)[0] - 1, dtype=sp.dtype),
                   sp[1:] - sp[:-1])
    return ids if out_type is None else M.cast(ids, out_type)


@name_scoped
def segment_ids_to_row_splits(segment_ids, num_segments=None, out_type=None, name=None
                              ) -> Tensor:
    """row_splits from sorted segment ids.

    Args:
        segment_ids: sorted int vector.
        num_segments: the number of rows (default: last id + 1).
        out_type: the dtype (default int64).

    Returns:
        An int vector of length ``num_segments + 1``.
    """
    ids = convert(segment_ids, dtype_hint=dtypes.int64)
    d = dtypes.int64 if out_type is None else dtypes.as_dtype(out_type)
    if num_segments is None:
        num_segments = R.reduce_max(A.concat([ids, -A.ones([1], ids.dtype)], 0)) + 1
    counts = S.unsorted_segment_sum(A.ones_like(ids, dtype=d), ids, num_segments)
    return A.concat([A.zeros([1], d), M.cumsum(counts)], 0)


# ----- elementwise ----------------------------------------------------------------------------

def map_flat_values(op, *args, **kwargs) -> RaggedTensor | Tensor:
    """Applies ``op`` to the flat values of the RaggedTensors among its arguments.

    Args:
        op: a function of dense tensors returning as many rows as the flat values.
        *args: its arguments (nested lists allowed); RaggedTensors must share their row
            partitions and are replaced by their ``flat_values``.
        **kwargs: keyword arguments, likewise.

    Returns:
        A RaggedTensor with the first RaggedTensor's partitions and ``op``'s result.
    """
    leaves = nest.flatten([list(args), kwargs])
    rts = [x for x in leaves if isinstance(x, RaggedTensor)]
    if not rts:
        return op(*args, **kwargs)
    first = rts[0]
    for other in rts[1:]:
        _check_same_partition(first, other)
    n_flat = first.flat_values.shape[0]
    conv = []
    for x in leaves:
        if isinstance(x, RaggedTensor):
            conv.append(x.flat_values)
        else:
            conv.append(x)
    a2, k2 = nest.pack_sequence_as([list(args), kwargs], conv)
    out = op(*a2, **k2)
    if isinstance(out, Tensor) and out.shape.rank and n_flat is not None and \
            out.shape[0] not in (None, n_flat):
        raise ValueError(f"map_flat_values: op returned {out.shape[0]} rows for {n_flat} "
                         f"flat values")
    return first.with_flat_values(out)


def _check_same_partition(a: RaggedTensor, b: RaggedTensor) -> None:
    if a.ragged_rank != b.ragged_rank:
        raise ValueError(f"RaggedTensors of ragged_rank {a.ragged_rank} and {b.ragged_rank} "
                         f"cannot be combined elementwise")
    for x, y in zip(a.nested_row_splits, b.nested_row_splits):
        if isinstance(x, EagerTensor) and isinstance(y, EagerTensor):
            xv, yv = x.numpy(), y.numpy()
            if xv.shape != yv.shape or np.any(xv != yv):
                raise ValueError(f"Incompatible RaggedTensor row partitions for an elementwise "
                                 f"op: row_splits {xv.tolist()} vs {yv.tolist()}")


def elementwise(fn, *args, **kwargs):
    """The dispatch target of the public elementwise functions for ragged arguments.

    Dense arguments broadcast against ``flat_values`` when they are scalars or have the shape
    of the uniform inner dimensions; one of the ragged tensor's rank whose second dimension is
    1 (``[nrows, 1, ...]``) broadcasts each row over that row's items (ragged_rank 1). Anything
    else is refused with a ValueError saying how to convert.
    """
    rt = next(y for y in list(args) + list(kwargs.values()) if isinstance(y, RaggedTensor))
    args = tuple(_broadcast_dense(fn, x, rt) for x in args)
    kwargs = {k: _broadcast_dense(fn, v, rt) for k, v in kwargs.items()}
    return map_flat_values(fn, *args, **kwargs)


def _broadcast_dense(fn, x, rt: RaggedTensor):
    """``x`` ready to meet ``rt.flat_values`` (a RaggedTensor of rt's partition for a per-row
    dense argument)."""
    if isinstance(x, RaggedTensor) or not isinstance(x, (Tensor, np.ndarray, list)):
        return x
    r = np.ndim(x) if not isinstance(x, Tensor) else x.shape.rank
    if r is not None and r <= rt.flat_values.shape.rank - 1:
        return x
    t = convert(x, dtype=rt.dtype) if not isinstance(x, Tensor) else x
    dims = t.shape.as_list() if t.shape.rank is not None else None
    if rt.ragged_rank == 1 and dims is not None and len(dims) == rt.shape.rank and \
            dims[1] == 1:
        rows = A.squeeze(t, [1])
        return rt.with_values(A.gather(rows, rt.value_rowids()))
    raise ValueError(
        f"{getattr(fn, 'op_name', getattr(fn, '__name__', 'op'))}: a dense argument of shape "
        f"{dims} cannot be "
        f"broadcast against a RaggedTensor of shape {rt.shape.as_list()} (scalars, the "
        f"uniform inner shape, or [nrows, 1, ...] are); convert the ragged argument with "
        f".to_tensor() or the dense one with tw.RaggedTensor.from_tensor")


# ----- masking and partitioning ---------------------------------------------------------------

@name_scoped
def boolean_mask(data, mask, name=None) -> RaggedTensor | Tensor:
    """The items of ``data`` where ``mask`` is True, as a RaggedTensor (``tw.ragged.boolean_mask``).

    Args:
        data: a RaggedTensor or dense tensor.
        mask: bools whose shape is a prefix of ``data``'s (ragged or dense).

    Returns:
        A RaggedTensor (a dense tensor when ``mask`` is a vector over dense rows).
    """
    if not isinstance(mask, RaggedTensor):
        m = convert(mask, dtype=dtypes.bool_)
        if m.shape.rank == 1:
            if isinstance(data, RaggedTensor):
                return gather_rows(data, A.reshape(M.where(m), [-1]))
            return A.boolean_mask(data, m)
        if m.shape.rank is None:
            raise ValueError("tw.ragged.boolean_mask needs a mask of known rank")
        mask = from_tensor(m, ragged_rank=m.shape.rank - 1)
        if not isinstance(data, RaggedTensor):
            data = from_tensor(convert(data), ragged_rank=m.shape.rank - 1)
    if not isinstance(data, RaggedTensor):
        raise TypeError("tw.ragged.boolean_mask: a ragged mask needs ragged data")
    if isinstance(mask.values, RaggedTensor):
        return data.with_values(boolean_mask(data.values, mask.values))
    keep = M.cast(mask.values, data.row_splits_dtype)
    lengths = S.unsorted_segment_sum(keep, mask.value_rowids(), mask.nrows())
    vals = gather_rows(data.values, A.reshape(M.where(mask.values), [-1]))
    return RaggedTensor.from_row_lengths(vals, lengths, validate=False)


@name_scoped
def stack_dynamic_partitions(data, partitions, num_partitions, name=None) -> RaggedTensor:
    """Row ``p`` holds the items of ``data`` whose partition is ``p``, in order.

    Args:
        data: a tensor (its first dimension is split).
        partitions: int vector, one partition per item, in ``[0, num_partitions)``.
        num_partitions: the number of partitions.

    Returns:
        A ``[num_partitions, (None), ...]`` RaggedTensor.
    """
    parts = convert(partitions, dtype_hint=dtypes.int32)
    if isinstance(parts, EagerTensor):
        pv = parts.numpy()
        n = int(static_value(num_partitions, "num_partitions"))
        if pv.size and (pv.min() < 0 or pv.max() >= n):
            raise ValueError(f"stack_dynamic_partitions: partitions must be in [0, {n}), got "
                             f"{pv.tolist()}")
    order = A.argsort(parts, stable=True)
    sorted_parts = M.cast(A.gather(parts, order), dtypes.int64)
    return RaggedTensor.from_value_rowids(A.gather(convert(data), order), sorted_parts,
                                          M.cast(convert(num_partitions), dtypes.int64))


# ----- operators: rt + 1, rt * rt, -rt ... (elementwise on flat_values) ------------------------

def _binary(fn, reverse: bool = False):
    def op(self, other):
        return elementwise(fn, other, self) if reverse else elementwise(fn, self, other)
    op.__name__ = fn.__name__
    op.__doc__ = f"Elementwise ``{fn.__name__}`` on the flat values."
    return op


def _unary(fn):
    def op(self):
        return map_flat_values(fn, self)
    op.__name__ = fn.__name__
    op.__doc__ = f"Elementwise ``{fn.__name__}`` on the flat values."
    return op


for _name, _fn in [("add", M.add), ("sub", M.subtract), ("mul", M.multiply),
                   ("truediv", M.truediv), ("floordiv", M.floordiv), ("mod", M.floormod),
                   ("pow", M.pow), ("and", M.logical_and), ("or", M.logical_or),
                   ("xor", M.logical_xor)]:
    setattr(RaggedTensor, f"__{_name}__", _binary(_fn))
    setattr(RaggedTensor, f"__r{_name}__", _binary(_fn, reverse=True))
for _name, _fn in [("lt", M.less), ("le", M.less_equal), ("gt", M.greater),
                   ("ge", M.greater_equal)]:
    setattr(RaggedTensor, f"__{_name}__", _binary(_fn))
for _name, _fn in [("neg", M.negative), ("abs", M.abs), ("invert", M.logical_not)]:
    setattr(RaggedTensor, f"__{_name}__", _unary(_fn))
