"""RaggedTensor <-> dense/sparse conversions, row gathering and dimension merging.

Dense positions are found with index arithmetic on ``row_splits`` and values moved with
``gather``/``boolean_mask``, so gradients reach the values through those ops' rules.
"""
from __future__ import annotations

from ...core import dtypes
from ...core.shapes import TensorShape
from .. import array_ops as A
from .. import math_ops as M
from ..core import convert
from ..reduction_ops import reduce_all, reduce_max, reduce_prod, reduce_sum
from ..sparse.tensor import SparseTensor
from .tensor import _IMPL, RaggedTensor, _splits_dtype


def segment_starts_range(starts, lengths):
    """The positions ``starts[i] + 0 .. starts[i] + lengths[i] - 1`` of every segment, flat.

    Args:
        starts: int vector of segment starts.
        lengths: int vector of segment lengths (same dtype).

    Returns:
        The concatenated positions.
    """
    offsets = M.cumsum(lengths, exclusive=True)
    total = reduce_sum(lengths)
    within = A.range(total, dtype=lengths.dtype) - A.repeat(offsets, lengths)
    return A.repeat(starts, lengths) + within


def gather_rows(rt, indices):
    """Rows ``indices`` of a RaggedTensor (or dense tensor), as a RaggedTensor.

    Args:
        rt: a RaggedTensor or dense tensor.
        indices: int vector of row numbers.

    Returns:
        The gathered rows.
    """
    if not isinstance(rt, RaggedTensor):
        return A.gather(rt, indices)
    idx = M.cast(convert(indices), rt.row_splits_dtype)
    lengths = A.gather(rt.row_lengths(), idx)
    pos = segment_starts_range(A.gather(rt.row_starts(), idx), lengths)
    return RaggedTensor.from_row_lengths(gather_rows(rt.values, pos), lengths, validate=False)


def _width(lengths):
    return reduce_max(A.concat([lengths, A.zeros([1], lengths.dtype)], 0))


def to_tensor(rt: RaggedTensor, default_value=None, shape=None):
    """``rt.to_tensor(default_value, shape)``: rows padded to the bounding shape."""
    inner = rt.values
    if isinstance(inner, RaggedTensor):
        inner = to_tensor(inner, default_value)
    dt = rt.dtype
    if default_value is None:
        default_value = "" if dt is dtypes.string else 0
    pad = convert(default_value, dtype=dt)
    lengths = rt.row_lengths()
    width = _width(lengths)
    cols = A.range(width, dtype=lengths.dtype)
    valid = M.less(A.expand_dims(cols, 0), A.expand_dims(lengths, 1))
    pos = A.expand_dims(rt.row_starts(), 1) + A.expand_dims(cols, 0)
    nvals = M.cast(A.shape(inner)[0], lengths.dtype)
    where_pos = M.where(valid, pos, A.fill(A.shape(pos), nvals))
    pad_row = A.expand_dims(A.broadcast_to(pad, A.shape(inner)[1:]), 0)
    dense = A.gather(A.concat([inner, pad_row], 0), where_pos)
    if shape is not None:
        dense = _fit(dense, shape, pad)
    return dense


def _fit(dense, shape, pad):
    """Cuts or pads every dimension of ``dense`` whose target in ``shape`` is known."""
    target = shape if isinstance(shape, TensorShape) else TensorShape(shape)
    if target.rank is None:
        return dense
    i32 = dtypes.int32
    for d, t in enumerate(target.as_list()):
        if t is None:
            continue
        keep = M.minimum(A.shape(dense, out_type=i32)[d], t)
        size = A.concat([-A.ones([d], i32), A.reshape(keep, [1]),
                         -A.ones([target.rank - d - 1], i32)], 0)
        dense = A.slice(dense, A.zeros([target.rank], i32), size)
        amount = A.reshape(t - keep, [1, 1])
        paddings = A.pad(A.concat([A.zeros([1, 1], i32), amount], 1),
                         [[d, target.rank - d - 1], [0, 0]])
        dense = A.pad(dense, paddings, constant_values=pad)
    return dense


def from_tensor(tensor, lengths=None, padding=None, ragged_rank: int = 1,
                row_splits_dtype=dtypes.int64) -> RaggedTensor:
    """``RaggedTensor.from_tensor``: see there."""
    d = _splits_dtype(row_splits_dtype)
    t = convert(tensor)
    rank = t.shape.rank
    if rank is None or rank < ragged_rank + 1:
        raise ValueError(f"RaggedTensor.from_tensor: the tensor's rank ({rank}) must be known "
                         f"and greater than ragged_rank ({ragged_rank})")
    if lengths is not None and padding is not None:
        raise ValueError("RaggedTensor.from_tensor: give lengths or padding, not both")
    if ragged_rank > 1:
        if lengths is not None:
            raise ValueError("RaggedTensor.from_tensor: lengths with ragged_rank > 1 is "
                             "not supported; build it with from_nested_row_lengths")
        shp = A.shape(t, out_type=d)
        inner = from_tensor(A.reshape(t, A.concat([[-1], shp[2:]], 0)), None, padding,
                            ragged_rank - 1, d)
        return RaggedTensor.from_row_lengths(inner, A.fill(shp[:1], shp[1]), validate=False)
    shp = A.shape(t, out_type=d)
    n, m = shp[0], shp[1]
    if padding is not None:
        is_pad = M.equal(t, convert(padding, dtype=t.dtype))
        if rank > 2:
            is_pad = reduce_all(is_pad, axis=list(range(2, rank)))
        trailing = reduce_sum(M.cumprod(M.cast(is_pad, d), axis=1, reverse=True), axis=1)
        lens = m - trailing
    elif lengths is not None:
        lens = M.cast(convert(lengths), d)
    else:
        lens = A.fill(A.reshape(n, [1]), m)
    mask = M.less(A.expand_dims(A.range(m, dtype=d), 0), A.expand_dims(lens, 1))
    return RaggedTensor.from_row_lengths(A.boolean_mask(t, mask), lens, validate=False)


def bounding_shape(rt: RaggedTensor, axis=None, out_type=None):
    """``rt.bounding_shape(axis, out_type)``: see there."""
    d = rt.row_splits_dtype
    dims = [rt.nrows()]
    x = rt
    while isinstance(x, RaggedTensor):
        dims.append(_width(x.row_lengths()))
        x = x.values
    dense_inner = A.shape(x, out_type=d)[1:]
    out = A.concat([A.stack(dims), dense_inner], 0)
    if out_type is not None:
        out = M.cast(out, out_type)
    if axis is not None:
        out = A.gather(out, axis)
    return out


def merge_dims(rt, outer_axis: int, inner_axis: int):
    """``rt.merge_dims(outer_axis, inner_axis)``: see there."""
    rank = rt.shape.rank
    if rank is None:
        raise ValueError("merge_dims needs a tensor of known rank")
    outer = outer_axis + rank if outer_axis < 0 else outer_axis
    inner = inner_axis + rank if inner_axis < 0 else inner_axis
    if not 0 <= outer <= inner < rank:
        raise ValueError(f"merge_dims: need 0 <= outer_axis <= inner_axis < rank ({rank}), "
                         f"got {outer_axis}, {inner_axis}")
    if outer == inner:
        return rt
    if not isinstance(rt, RaggedTensor):
        return _merge_dense(rt, outer, inner)
    if outer > 1:
        return rt.with_values(merge_dims(rt.values, outer - 1, inner - 1))
    if outer == 1:
        # Rows of rt now end where their last merged sub-row ends: compose the splits.
        splits, x = rt.row_splits, rt.values
        for _ in range(inner - 1):
            if isinstance(x, RaggedTensor):
                splits, x = A.gather(x.row_splits, splits), x.values
            else:
                splits = splits * M.cast(A.shape(x)[1], splits.dtype)
                x = _merge_dense(x, 0, 1)
        return RaggedTensor.from_row_splits(x, splits, validate=False)
    x = rt
    for _ in range(inner):
        x = x.values if isinstance(x, RaggedTensor) else _merge_dense(x, 0, 1)
    return x


def _merge_dense(t, outer: int, inner: int):
    shp = A.shape(t)
    merged = A.reshape(reduce_prod(shp[outer:inner + 1]), [1])
    return A.reshape(t, A.concat([shp[:outer], merged, shp[inner + 1:]], 0))


def to_sparse(rt: RaggedTensor) -> SparseTensor:
    """``rt.to_sparse()``: one index column per dimension (flat values must be a vector)."""
    flat = rt.flat_values
    if flat.shape.rank != 1:
        raise ValueError("RaggedTensor.to_sparse supports flat_values of rank 1 only, got "
                         f"rank {flat.shape.rank}")
    d = dtypes.int64
    idx = A.range(A.shape(flat, out_type=d)[0], dtype=d)
    cols = []
    levels = []
    x = rt
    while isinstance(x, RaggedTensor):
        levels.append(x)
        x = x.values
    for lv in reversed(levels):
        r = A.gather(M.cast(lv.value_rowids(), d), idx)
        cols.insert(0, idx - A.gather(M.cast(lv.row_splits, d), r))
        idx = r
    cols.insert(0, idx)
    return SparseTensor(A.stack(cols, axis=1), flat, bounding_shape(rt, out_type=d))


_IMPL.update(to_tensor=to_tensor, from_tensor=from_tensor, bounding_shape=bounding_shape,
             merge_dims=merge_dims, to_sparse=to_sparse)
