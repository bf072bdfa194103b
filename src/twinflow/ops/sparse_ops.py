"""``tw.sparse``: operations on SparseTensors, written with dense twinflow ops.

Each operation works on the three component tensors (indices, values, dense_shape) with gather,
scatter and segment ops, so it runs eagerly and in graphs alike, and gradients with respect to
``values`` (and dense operands) come from those ops' rules, as TensorFlow's do.
An entry's position in the dense tensor is its *linear index* ``sum(index * strides)``; sorting,
merging and reshaping work on linear indices.
"""
from __future__ import annotations

import numpy as np

from ..core import dtypes
from ..core.shapes import TensorShape
from ..graph.tensor import Tensor, TensorLike
from . import array_ops as A
from . import math_ops as M
from .array_ops import (
    argsort,
    boolean_mask,
    concat,
    expand_dims,
    fill,
    gather,
    gather_nd,
    ones_like,
    reshape,
    scatter_nd,
    shape,
    stack,
    unique,
    zeros_like,
)
from .array_ops import range as _range
from .array_ops import transpose as _dense_transpose
from .core import convert, static_value
from .math_ops import abs as _abs
from .math_ops import (
    cast,
    cumprod,
    equal,
    exp,
    greater,
    greater_equal,
    less,
    logical_and,
    logical_not,
    multiply,
    not_equal,
    sqrt,
    where,
)
from .math_ops import maximum as _maximum
from .math_ops import minimum as _minimum
from .reduction_ops import reduce_all, reduce_any, reduce_prod
from .reduction_ops import reduce_max as _dense_max
from .reduction_ops import reduce_sum as _dense_sum
from .scatter_ops import IndexedSlices
from .segment_ops import segment_mean as _seg_mean
from .segment_ops import segment_sum as _seg_sum
from .segment_ops import unsorted_segment_max, unsorted_segment_sum
from .sparse_tensor import SparseTensor, SparseTensorSpec

__all__ = ["SparseTensor", "SparseTensorSpec", "add", "concat_sparse", "expand_dims_sparse",
           "eye", "fill_empty_rows", "from_dense", "map_values", "mask", "maximum_sparse",
           "minimum_sparse", "reduce_max", "reduce_sum", "reorder", "reset_shape",
           "reshape_sparse", "retain", "segment_mean", "segment_sqrt_n", "segment_sum",
           "slice_sparse", "softmax", "sparse_dense_matmul", "split", "to_dense",
           "to_indicator", "transpose_sparse"]

_I64 = dtypes.int64


def _sp(x, op: str) -> SparseTensor:
    if not isinstance(x, SparseTensor):
        raise TypeError(f"tw.sparse.{op} expects a SparseTensor, got {type(x).__name__}; make "
                        f"one with tw.sparse.from_dense(x)")
    return x


def _strides(dense_shape: Tensor) -> Tensor:
    return cumprod(dense_shape, exclusive=True, reverse=True)


def _linear(indices: Tensor, dense_shape: Tensor) -> Tensor:
    return _dense_sum(multiply(indices, _strides(dense_shape)), axis=1)


def _unravel(linear: Tensor, dense_shape: Tensor) -> Tensor:
    st = _strides(dense_shape)
    return (expand_dims(linear, 1) // st) % dense_shape


# ----- conversion ---------------------------------------------------------------------------------

def from_dense(tensor: TensorLike, name: str | None = None) -> SparseTensor:
    """The SparseTensor of the non-zero entries of a dense tensor (``tw.sparse.from_dense``).

    Args:
        tensor: a dense tensor.
        name: unused (op names come from the component ops).

    Returns:
        A SparseTensor with those entries in row-major order.
    """
    if isinstance(tensor, SparseTensor):
        return tensor
    t = convert(tensor)
    zero = "" if t.dtype is dtypes.string else zeros_like(t)
    idx = where(not_equal(t, zero))
    return SparseTensor(idx, gather_nd(t, idx), shape(t, out_type=_I64), _shape=t.shape)


def to_dense(sp_input: SparseTensor, default_value=None, validate_indices: bool = True,
             name: str | None = None) -> Tensor:
    """The dense tensor of a SparseTensor; missing entries are ``default_value``.

    Args:
        sp_input: a SparseTensor.
        default_value: the value of missing entries (0, or ``''`` for strings).
        validate_indices: accepted (indices are checked by the scatter).
        name: unused.

    Returns:
        The dense tensor. Duplicate indices are summed.
    """
    sp = _sp(sp_input, "to_dense")
    if sp.dtype is dtypes.string:
        raise TypeError("tw.sparse.to_dense of a string SparseTensor is not supported: "
                        "scatter_nd sums entries, which strings cannot do")
    dense = scatter_nd(sp.indices, sp.values, sp.dense_shape)
    if default_value is not None:
        d = convert(default_value, dtype=sp.dtype)
        hit = scatter_nd(sp.indices, ones_like(sp.values, dtype=dtypes.int32), sp.dense_shape)
        dense = where(greater(hit, 0), dense, fill(sp.dense_shape, d))
    return dense


def to_indicator(sp_input: SparseTensor, vocab_size, name: str | None = None) -> Tensor:
    """``[..., vocab_size]`` bools: True where a row's ids contain that index.

    Args:
        sp_input: an integer SparseTensor of ids (its last dimension lists a row's ids).
        vocab_size: the size of the last output dimension.
        name: unused.

    Returns:
        A bool tensor of rank ``sp_input``'s rank.
    """
    sp = _sp(sp_input, "to_indicator")
    if not sp.dtype.is_integer:
        raise TypeError(f"tw.sparse.to_indicator needs integer ids, got {sp.dtype.name}")
    ids = cast(sp.values, _I64)
    idx = concat([sp.indices[:, :-1], expand_dims(ids, 1)], axis=1)
    shp = concat([sp.dense_shape[:-1], reshape(cast(convert(vocab_size), _I64), [1])], 0)
    return greater(scatter_nd(idx, ones_like(ids, dtype=dtypes.int32), shp), 0)


# ----- ordering and restructuring -------------------------------------------------------------

def reorder(sp_input: SparseTensor, name: str | None = None) -> SparseTensor:
    """The same SparseTensor with its entries in row-major (canonical) order.

    Args:
        sp_input: a SparseTensor.
        name: unused.

    Returns:
        The reordered SparseTensor.
    """
    sp = _sp(sp_input, "reorder")
    order = argsort(_linear(sp.indices, sp.dense_shape), stable=True)
    return SparseTensor(gather(sp.indices, order), gather(sp.values, order), sp.dense_shape,
                        _shape=sp.shape)


def _canonical(indices: Tensor, values: Tensor, dense_shape: Tensor, static) -> SparseTensor:
    """Sorted entries with duplicate indices summed."""
    lin = _linear(indices, dense_shape)
    uniq, idx = unique(lin, out_idx=_I64)
    n = shape(uniq, out_type=_I64)[0]
    summed = unsorted_segment_sum(values, idx, n)
    order = argsort(uniq, stable=True)
    return SparseTensor(_unravel(gather(uniq, order), dense_shape), gather(summed, order),
                        dense_shape, _shape=static)


def reshape_sparse(sp_input: SparseTensor, shape_, name: str | None = None) -> SparseTensor:
    """The SparseTensor with a new dense shape (same entries in row-major order).

    Args:
        sp_input: a SparseTensor.
        shape_: the new shape; one dimension may be -1.
        name: unused.

    Returns:
        The reshaped SparseTensor.
    """
    sp = _sp(sp_input, "reshape")
    new = cast(convert(shape_), _I64)
    total = reduce_prod(sp.dense_shape)
    known = reduce_prod(where(less(new, 0), ones_like(new), new))
    new = where(less(new, 0), fill(shape(new), total // known), new)
    lin = _linear(sp.indices, sp.dense_shape)
    return SparseTensor(_unravel(lin, new), sp.values, new)


def transpose_sparse(sp_input: SparseTensor, perm=None, name: str | None = None) -> SparseTensor:
    """The SparseTensor with permuted dimensions (reordered).

    Args:
        sp_input: a SparseTensor.
        perm: the permutation (default: reversed dimensions).
        name: unused.

    Returns:
        The transposed SparseTensor.
    """
    sp = _sp(sp_input, "transpose")
    rank = sp.shape.rank
    if perm is None:
        if rank is None:
            raise ValueError("tw.sparse.transpose needs a known rank or an explicit perm")
        perm = list(range(rank))[::-1]
    perm = [int(p) for p in static_value(perm, "tw.sparse.transpose perm")]
    st = sp.shape
    new_static = None if st.rank is None else [st[p] for p in perm]
    out = SparseTensor(gather(sp.indices, perm, axis=1), sp.values, gather(sp.dense_shape, perm),
                       _shape=None if new_static is None else _tshape(new_static))
    return reorder(out)


def _tshape(dims):
    return TensorShape(dims)


def expand_dims_sparse(sp_input: SparseTensor, axis=None, name: str | None = None
                       ) -> SparseTensor:
    """The SparseTensor with a new dimension of size 1 at ``axis``.

    Args:
        sp_input: a SparseTensor of known rank.
        axis: where the new dimension goes (negative counts from the end, -1 appends).
        name: unused.

    Returns:
        The expanded SparseTensor.
    """
    sp = _sp(sp_input, "expand_dims")
    rank = sp.shape.rank
    if rank is None:
        raise ValueError("tw.sparse.expand_dims needs a SparseTensor of known rank")
    a = int(static_value(0 if axis is None else axis, "tw.sparse.expand_dims axis"))
    if not -rank - 1 <= a <= rank:
        raise ValueError(f"tw.sparse.expand_dims: axis {a} out of range for rank {rank}")
    a = a + rank + 1 if a < 0 else a
    n = shape(sp.indices, out_type=_I64)[:1]
    zeros = fill(concat([n, [1]], 0), convert(0, dtype=_I64))
    idx = concat([sp.indices[:, :a], zeros, sp.indices[:, a:]], axis=1)
    shp = concat([sp.dense_shape[:a], convert([1], dtype=_I64), sp.dense_shape[a:]], 0)
    dims = sp.shape.as_list() if sp.shape.rank is not None else None
    return SparseTensor(idx, sp.values, shp,
                        _shape=_tshape(dims[:a] + [1] + dims[a:]))


def slice_sparse(sp_input: SparseTensor, start, size, name: str | None = None) -> SparseTensor:
    """The entries of the box ``[start, start + size)``, shifted to start at 0.

    Args:
        sp_input: a SparseTensor.
        start: the box's first coordinate per dimension.
        size: its size per dimension (clipped to the dense shape).
        name: unused.

    Returns:
        The sliced SparseTensor.
    """
    sp = _sp(sp_input, "slice")
    start = cast(convert(start), _I64)
    size = cast(convert(size), _I64)
    end = _minimum(start + size, sp.dense_shape)
    inside = reduce_all(logical_and(greater_equal(sp.indices, start), less(sp.indices, end)),
                        axis=1)
    return SparseTensor(boolean_mask(sp.indices, inside) - start,
                        boolean_mask(sp.values, inside), _maximum(end - start, 0))


def split(sp_input: SparseTensor = None, num_split: int = None, axis: int = None,
          name: str | None = None, keyword_required=None) -> list:
    """``num_split`` SparseTensors along ``axis`` (the first ones one larger if uneven).

    Args:
        sp_input: a SparseTensor of known dense shape along ``axis``.
        num_split: how many pieces.
        axis: the dimension to split.
        name: unused.
        keyword_required: TensorFlow's keyword-only marker; must stay None.

    Returns:
        A list of SparseTensors.
    """
    sp = _sp(sp_input, "split")
    if keyword_required is not None:
        raise ValueError("tw.sparse.split takes keyword arguments only")
    n = int(num_split)
    ax = int(static_value(axis, "tw.sparse.split axis"))
    rank = sp.shape.rank
    ax = ax + rank if ax < 0 and rank is not None else ax
    dim = sp.shape[ax] if rank is not None else None
    if dim is None:
        raise ValueError("tw.sparse.split needs the split dimension's size to be known")
    base, extra = divmod(dim, n)
    out, s = [], 0
    for i in range(n):
        size = base + (1 if i < extra else 0)
        starts = [0] * rank
        sizes = [d if d is not None else 2**62 for d in sp.shape.as_list()]
        starts[ax], sizes[ax] = s, size
        out.append(slice_sparse(sp, starts, sizes))
        s += size
    return out


def concat_sparse(axis, sp_inputs, expand_nonconcat_dims: bool = False,
                  name: str | None = None, concat_dim=None) -> SparseTensor:
    """The SparseTensors joined along ``axis`` (``tw.sparse.concat``).

    Args:
        axis: the dimension to join.
        sp_inputs: SparseTensors of the same rank.
        expand_nonconcat_dims: let the other dimensions differ (the result takes the largest).
        name: unused.
        concat_dim: old name of ``axis``.

    Returns:
        The joined, reordered SparseTensor.
    """
    if concat_dim is not None:
        axis = concat_dim
    sps = [_sp(s, "concat") for s in sp_inputs]
    rank = sps[0].shape.rank
    if rank is None:
        raise ValueError("tw.sparse.concat needs SparseTensors of known rank")
    ax = int(static_value(axis, "tw.sparse.concat axis"))
    ax = ax + rank if ax < 0 else ax
    onehot = convert([1 if i == ax else 0 for i in range(rank)], dtype=_I64)
    offset = convert(0, dtype=_I64)
    idx, vals = [], []
    for s in sps:
        idx.append(s.indices + onehot * offset)
        vals.append(s.values)
        offset = offset + s.dense_shape[ax]
    shapes = stack([s.dense_shape for s in sps])
    if expand_nonconcat_dims:
        other = _dense_max(shapes, axis=0)
    else:
        other = sps[0].dense_shape
    dense_shape = other * (1 - onehot) + onehot * offset
    return reorder(SparseTensor(concat(idx, 0), concat(vals, 0), dense_shape))


def retain(sp_input: SparseTensor, to_retain: TensorLike) -> SparseTensor:
    """The entries where the bool vector ``to_retain`` is True.

    Args:
        sp_input: a SparseTensor with N entries.
        to_retain: ``[N]`` bools.

    Returns:
        The SparseTensor of the kept entries.
    """
    sp = _sp(sp_input, "retain")
    keep = convert(to_retain, dtype=dtypes.bool_)
    return SparseTensor(boolean_mask(sp.indices, keep), boolean_mask(sp.values, keep),
                        sp.dense_shape, _shape=sp.shape)


def reset_shape(sp_input: SparseTensor, new_shape=None) -> SparseTensor:
    """The SparseTensor with a new dense shape (default: the tightest one holding the entries).

    Args:
        sp_input: a SparseTensor.
        new_shape: the new dense shape (each dimension at least the old one when known).

    Returns:
        The SparseTensor.
    """
    sp = _sp(sp_input, "reset_shape")
    if new_shape is None:
        return SparseTensor(sp.indices, sp.values, _dense_max(sp.indices, axis=0) + 1)
    return SparseTensor(sp.indices, sp.values, cast(convert(new_shape), _I64))


def fill_empty_rows(sp_input: SparseTensor, default_value, name: str | None = None) -> tuple:
    """Adds ``default_value`` at ``[row, 0, ...]`` for every empty row of a SparseTensor.

    Args:
        sp_input: a SparseTensor.
        default_value: the value put in empty rows.
        name: unused.

    Returns:
        ``(sp_output, empty_row_indicator)``: the filled SparseTensor (reordered) and a bool
        vector that is True for the rows that were empty.
    """
    sp = _sp(sp_input, "fill_empty_rows")
    nrows = sp.dense_shape[0]
    counts = unsorted_segment_sum(ones_like(sp.indices[:, 0]), sp.indices[:, 0], nrows)
    empty = equal(counts, 0)
    rows = boolean_mask(_range(nrows, dtype=_I64), empty)
    rank_rest = shape(sp.indices, out_type=_I64)[1:] - 1
    pad = fill(concat([shape(rows, out_type=_I64), rank_rest], 0), convert(0, dtype=_I64))
    new_idx = concat([expand_dims(rows, 1), pad], axis=1)
    new_vals = fill(shape(rows), convert(default_value, dtype=sp.dtype))
    out = SparseTensor(concat([sp.indices, new_idx], 0), concat([sp.values, new_vals], 0),
                       sp.dense_shape, _shape=sp.shape)
    return reorder(out), empty


def map_values(op, *args, **kwargs) -> SparseTensor:
    """Applies ``op`` to the values of the SparseTensors in ``args`` (same indices).

    Args:
        op: a function of tensors.
        *args: its arguments; SparseTensors are replaced by their values.
        **kwargs: keyword arguments, likewise.

    Returns:
        A SparseTensor with the first SparseTensor's indices and ``op``'s result as values.
    """
    sps = [a for a in list(args) + list(kwargs.values()) if isinstance(a, SparseTensor)]
    if not sps:
        raise ValueError("tw.sparse.map_values needs at least one SparseTensor argument")
    first = sps[0]
    a2 = [a.values if isinstance(a, SparseTensor) else a for a in args]
    k2 = {k: v.values if isinstance(v, SparseTensor) else v for k, v in kwargs.items()}
    return first.with_values(op(*a2, **k2))


def add(a, b, threshold=0) -> SparseTensor | Tensor:
    """Sparse + sparse (a SparseTensor, duplicates summed) or sparse + dense (dense).

    Args:
        a: a SparseTensor or dense tensor.
        b: a SparseTensor or dense tensor (at least one of them sparse).
        threshold: sparse + sparse drops sums whose magnitude is below it.

    Returns:
        The sum.
    """
    if not isinstance(a, SparseTensor) and not isinstance(b, SparseTensor):
        raise TypeError("tw.sparse.add needs at least one SparseTensor; use tw.add for dense")
    if not isinstance(a, SparseTensor) or not isinstance(b, SparseTensor):
        sp, dense = (a, b) if isinstance(a, SparseTensor) else (b, a)
        return to_dense(sp) + convert(dense, dtype=sp.dtype)
    out = _canonical(concat([a.indices, b.indices], 0), concat([a.values, b.values], 0),
                     a.dense_shape, a.shape)
    thr = static_value(threshold, "tw.sparse.add threshold")
    if thr:
        out = retain(out, greater_equal(_abs(out.values), convert(thr, dtype=out.dtype)))
    return out


def _union(a: SparseTensor, b: SparseTensor, fn, op: str) -> SparseTensor:
    """fn of the densified values at the union of both index sets (absent entries are 0)."""
    _sp(a, op), _sp(b, op)
    union = _canonical(concat([a.indices, b.indices], 0),
                       concat([zeros_like(a.values), zeros_like(b.values)], 0),
                       a.dense_shape, a.shape)
    da, db = to_dense(a), to_dense(b)
    return union.with_values(fn(gather_nd(da, union.indices), gather_nd(db, union.indices)))


def maximum_sparse(sp_a: SparseTensor, sp_b: SparseTensor, name: str | None = None
                   ) -> SparseTensor:
    """Elementwise max of two SparseTensors over the union of their entries (absent = 0).

    Args:
        sp_a: a SparseTensor.
        sp_b: one of the same dense shape.
        name: unused.

    Returns:
        The SparseTensor of maxima.
    """
    return _union(sp_a, sp_b, _maximum, "maximum")


def minimum_sparse(sp_a: SparseTensor, sp_b: SparseTensor, name: str | None = None
                   ) -> SparseTensor:
    """Elementwise min of two SparseTensors over the union of their entries (absent = 0).

    Args:
        sp_a: a SparseTensor.
        sp_b: one of the same dense shape.
        name: unused.

    Returns:
        The SparseTensor of minima.
    """
    return _union(sp_a, sp_b, _minimum, "minimum")


def eye(num_rows, num_columns=None, dtype=dtypes.float32, name: str | None = None
        ) -> SparseTensor:
    """The identity matrix as a SparseTensor.

    Args:
        num_rows: the number of rows.
        num_columns: the number of columns (default ``num_rows``).
        dtype: the values' dtype.
        name: unused.

    Returns:
        A ``[num_rows, num_columns]`` SparseTensor with ones on the diagonal.
    """
    r = cast(convert(num_rows), _I64)
    c = r if num_columns is None else cast(convert(num_columns), _I64)
    d = _range(_minimum(r, c), dtype=_I64)
    return SparseTensor(stack([d, d], axis=1), ones_like(d, dtype=dtype), stack([r, c]))


# ----- arithmetic -------------------------------------------------------------------------------

def sparse_dense_matmul(sp_a, b, adjoint_a: bool = False, adjoint_b: bool = False,
                        name: str | None = None) -> Tensor:
    """``sp_a @ b`` for a rank-2 SparseTensor (or ``a @ sp_b`` with a dense ``a``).

    Args:
        sp_a: a ``[M, K]`` SparseTensor (or a dense tensor when ``b`` is sparse).
        b: a dense ``[K, N]`` tensor (or a SparseTensor).
        adjoint_a: use the (conjugate) transpose of ``sp_a``.
        adjoint_b: use the (conjugate) transpose of ``b``.
        name: unused.

    Returns:
        The dense ``[M, N]`` product; differentiable in the values and in ``b``.
    """
    if isinstance(b, SparseTensor) and not isinstance(sp_a, SparseTensor):
        # a @ sp_b = (sp_b^T @ a^T)^T
        return _dense_transpose(sparse_dense_matmul(b, sp_a, adjoint_a=not adjoint_b,
                                                    adjoint_b=not adjoint_a))
    sp = _sp(sp_a, "sparse_dense_matmul")
    b = convert(b, dtype=sp.dtype)
    if adjoint_b:
        b = _dense_transpose(b)
    rows, cols = sp.indices[:, 0], sp.indices[:, 1]
    nrows = sp.dense_shape[0]
    if adjoint_a:
        rows, cols, nrows = cols, rows, sp.dense_shape[1]
    contrib = expand_dims(sp.values, 1) * gather(b, cols)
    return unsorted_segment_sum(contrib, rows, nrows)


def _axes(axis, rank):
    if axis is None:
        return list(range(rank))
    ax = static_value(axis, "tw.sparse reduction axis")
    ax = [int(a) for a in (ax if isinstance(ax, (list, tuple)) else
                           np.reshape(ax, -1))]
    return sorted({a + rank if a < 0 else a for a in ax})


def _reduce(sp: SparseTensor, axis, keepdims: bool, segment_fn, op: str, output_is_sparse: bool):
    rank = sp.shape.rank
    if rank is None:
        raise ValueError(f"tw.sparse.{op} needs a SparseTensor of known rank")
    axes = _axes(axis, rank)
    keep = [d for d in range(rank) if d not in axes]
    kept_shape = gather(sp.dense_shape, keep) if keep else convert([], dtype=_I64)
    kept_idx = gather(sp.indices, keep, axis=1) if keep else \
        fill(concat([shape(sp.indices, out_type=_I64)[:1], [0]], 0), convert(0, dtype=_I64))
    lin = _linear(kept_idx, kept_shape) if keep else zeros_like(sp.indices[:, 0])
    total = reduce_prod(kept_shape)
    red = segment_fn(sp.values, lin, total)
    counts = unsorted_segment_sum(ones_like(lin), lin, total)
    red = where(greater(counts, 0), red, zeros_like(red))
    if output_is_sparse:
        present = greater(counts, 0)
        ids = boolean_mask(_range(total, dtype=_I64), present)
        return SparseTensor(_unravel(ids, kept_shape), boolean_mask(red, present), kept_shape)
    out_shape = kept_shape
    if keepdims:
        out_shape = concat([reshape(sp.dense_shape[d] if d in keep else
                                    convert(1, dtype=_I64), [1]) for d in range(rank)], 0)
    return reshape(red, out_shape)


def reduce_sum(sp_input: SparseTensor, axis=None, keepdims: bool = False,
               output_is_sparse: bool = False, name: str | None = None
               ) -> Tensor | SparseTensor:
    """The sum of a SparseTensor's entries over ``axis`` (all by default).

    Args:
        sp_input: a SparseTensor of known rank.
        axis: the dimensions to reduce.
        keepdims: keep reduced dimensions with size 1.
        output_is_sparse: return a SparseTensor of the non-empty sums.
        name: unused.

    Returns:
        A dense tensor (or SparseTensor).
    """
    return _reduce(_sp(sp_input, "reduce_sum"), axis, keepdims, unsorted_segment_sum,
                   "reduce_sum", output_is_sparse)


def reduce_max(sp_input: SparseTensor, axis=None, keepdims: bool = False,
               output_is_sparse: bool = False, name: str | None = None
               ) -> Tensor | SparseTensor:
    """The max over the *present* entries along ``axis`` (0 where none is present).

    Args:
        sp_input: a SparseTensor of known rank.
        axis: the dimensions to reduce.
        keepdims: keep reduced dimensions with size 1.
        output_is_sparse: return a SparseTensor of the non-empty maxima.
        name: unused.

    Returns:
        A dense tensor (or SparseTensor).
    """
    return _reduce(_sp(sp_input, "reduce_max"), axis, keepdims, unsorted_segment_max,
                   "reduce_max", output_is_sparse)


def softmax(sp_input: SparseTensor, name: str | None = None) -> SparseTensor:
    """Softmax over the present entries of each innermost row.

    Args:
        sp_input: a SparseTensor of rank >= 2.
        name: unused.

    Returns:
        A SparseTensor with the same indices.
    """
    sp = reorder(_sp(sp_input, "softmax"))
    rank = sp.shape.rank
    if rank is None or rank < 2:
        raise ValueError("tw.sparse.softmax needs a SparseTensor of known rank >= 2")
    lin = _linear(sp.indices[:, :-1], sp.dense_shape[:-1])
    n = reduce_prod(sp.dense_shape[:-1])
    mx = gather(unsorted_segment_max(sp.values, lin, n), lin)
    e = exp(sp.values - mx)
    return sp.with_values(e / gather(unsorted_segment_sum(e, lin, n), lin))


def mask(a, mask_indices: TensorLike, name: str | None = None) -> IndexedSlices:
    """The slices of an IndexedSlices whose index is not in ``mask_indices``.

    Args:
        a: an IndexedSlices.
        mask_indices: the indices to drop.
        name: unused.

    Returns:
        An IndexedSlices.
    """
    if not isinstance(a, IndexedSlices):
        raise TypeError(f"tw.sparse.mask expects an IndexedSlices, got {type(a).__name__}")
    m = cast(convert(mask_indices), a.indices.dtype)
    drop = reduce_any(equal(expand_dims(a.indices, 1), expand_dims(m, 0)), axis=1)
    keep = logical_not(drop)
    return IndexedSlices(boolean_mask(a.values, keep), boolean_mask(a.indices, keep),
                         a.dense_shape)


# ----- segments over gathered rows --------------------------------------------------------------

def segment_sum(data: TensorLike, indices: TensorLike, segment_ids: TensorLike,
                num_segments=None, name: str | None = None, sparse_gradient: bool = False
                ) -> Tensor:
    """``segment_sum(gather(data, indices), segment_ids)`` (``tw.sparse.segment_sum``).

    Args:
        data: the rows.
        indices: which rows to take.
        segment_ids: sorted segment of each taken row.
        num_segments: the number of output rows (default: last segment id + 1).
        name: unused.
        sparse_gradient: accepted (the gradient is the gather's).

    Returns:
        The segment sums.
    """
    rows = gather(data, indices)
    if num_segments is not None:
        return unsorted_segment_sum(rows, segment_ids, num_segments)
    return _seg_sum(rows, segment_ids)


def segment_mean(data: TensorLike, indices: TensorLike, segment_ids: TensorLike,
                 num_segments=None, name: str | None = None, sparse_gradient: bool = False
                 ) -> Tensor:
    """``segment_mean(gather(data, indices), segment_ids)`` (empty segments give 0).

    Args:
        data: the rows.
        indices: which rows to take.
        segment_ids: sorted segment of each taken row.
        num_segments: the number of output rows.
        name: unused.
        sparse_gradient: accepted.

    Returns:
        The segment means.
    """
    rows = gather(data, indices)
    if num_segments is None:
        return _seg_mean(rows, segment_ids)
    s = unsorted_segment_sum(rows, segment_ids, num_segments)
    n = unsorted_segment_sum(ones_like(segment_ids, dtype=rows.dtype), segment_ids,
                             num_segments)
    return s / reshape(_maximum(n, 1), concat([shape(n), ones_like(shape(s)[1:])], 0))


def segment_sqrt_n(data: TensorLike, indices: TensorLike, segment_ids: TensorLike,
                   num_segments=None, name: str | None = None, sparse_gradient: bool = False
                   ) -> Tensor:
    """Segment sums divided by the square root of each segment's size.

    Args:
        data: the rows.
        indices: which rows to take.
        segment_ids: sorted segment of each taken row.
        num_segments: the number of output rows.
        name: unused.
        sparse_gradient: accepted.

    Returns:
        The scaled segment sums.
    """
    rows = gather(data, indices)
    ids = convert(segment_ids)
    if num_segments is None:
        num_segments = _dense_max(ids) + 1
    s = unsorted_segment_sum(rows, ids, num_segments)
    n = unsorted_segment_sum(ones_like(ids, dtype=rows.dtype), ids, num_segments)
    return s / reshape(sqrt(_maximum(n, 1)), concat([shape(n), ones_like(shape(s)[1:])], 0))



# ----- operators: sp * dense, sp / dense, -sp (TensorFlow's sparse_dense_cwise ops) ------------

def _cwise(fn):
    def op(self, other):
        if isinstance(other, SparseTensor):
            raise TypeError(f"SparseTensor {fn.__name__} SparseTensor is not supported; use "
                            f"tw.sparse.add / tw.sparse.map_values, or densify one side")
        dense = A.broadcast_to(convert(other, dtype=self.dtype), self.dense_shape)
        return self.with_values(fn(self.values, gather_nd(dense, self.indices)))
    op.__name__ = fn.__name__
    op.__doc__ = f"``{fn.__name__}`` of the entries with the dense operand at their indices."
    return op


SparseTensor.__mul__ = _cwise(multiply)
SparseTensor.__truediv__ = _cwise(M.truediv)
SparseTensor.__neg__ = lambda self: self.with_values(M.negative(self.values))
SparseTensor.__abs__ = lambda self: self.with_values(_abs(self.values))
