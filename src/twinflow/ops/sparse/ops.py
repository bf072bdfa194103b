"""``tw.sparse`` conversions and restructuring (``math.py`` has the arithmetic), written with
dense twinflow ops.

Each operation works on the three component tensors (indices, values, dense_shape) with gather,
scatter and segment ops, so it runs eagerly and in graphs alike, and gradients with respect to
``values`` (and dense operands) come from those ops' rules, as TensorFlow's do.
An entry's position in the dense tensor is its *linear index* ``sum(index * strides)``; sorting,
merging and reshaping work on linear indices.
"""
from __future__ import annotations

from ...core import dtypes
from ...core.shapes import TensorShape
from ...graph.graph import name_scoped
from ...graph.tensor import Tensor, TensorLike
from .. import array_ops as A
from .. import math_ops as M
from ..array_ops import boolean_mask, concat, expand_dims, fill, gather, ones_like, shape
from ..array_ops import range as _range
from ..core import convert, static_value
from ..debugging_ops import assert_less
from ..math_ops import cast, greater, less, where
from ..math_ops import maximum as _maximum
from ..math_ops import minimum as _minimum
from ..reduction_ops import reduce_all, reduce_prod
from ..reduction_ops import reduce_max as _dense_max
from ..reduction_ops import reduce_sum as _dense_sum
from ..segment_ops import unsorted_segment_sum
from .tensor import SparseTensor, SparseTensorSpec

__all__ = ["SparseTensor", "SparseTensorSpec", "concat_sparse", "expand_dims_sparse",
           "fill_empty_rows", "from_dense", "reorder", "reset_shape", "reshape_sparse",
           "retain", "slice_sparse", "split", "to_dense", "to_indicator", "transpose_sparse"]

_I64 = dtypes.int64


def _sp(x, op: str) -> SparseTensor:
    if not isinstance(x, SparseTensor):
        raise TypeError(f"tw.sparse.{op} expects a SparseTensor, got {type(x).__name__}; make "
                        f"one with tw.sparse.from_dense(x)")
    return x


def _strides(dense_shape: Tensor) -> Tensor:
    return M.cumprod(dense_shape, exclusive=True, reverse=True)


def _linear(indices: Tensor, dense_shape: Tensor) -> Tensor:
    return _dense_sum(M.multiply(indices, _strides(dense_shape)), axis=1)


def _unravel(linear: Tensor, dense_shape: Tensor) -> Tensor:
    st = _strides(dense_shape)
    return (expand_dims(linear, 1) // st) % dense_shape


# ----- conversion ---------------------------------------------------------------------------------

@name_scoped
def from_dense(tensor: TensorLike, name: str | None = None) -> SparseTensor:
    """The SparseTensor of the non-zero entries of a dense tensor (``tw.sparse.from_dense``).

    Args:
        tensor: a dense tensor.

    Returns:
        A SparseTensor with those entries in row-major order.
    """
    if isinstance(tensor, SparseTensor):
        return tensor
    t = convert(tensor)
    zero = "" if t.dtype is dtypes.string else A.zeros_like(t)
    idx = where(M.not_equal(t, zero))
    return SparseTensor(idx, A.gather_nd(t, idx), shape(t, out_type=_I64), _shape=t.shape)


@name_scoped
def to_dense(sp_input: SparseTensor, default_value=None, validate_indices: bool = True,
             name: str | None = None) -> Tensor:
    """The dense tensor of a SparseTensor; missing entries are ``default_value``.

    Args:
        sp_input: a SparseTensor.
        default_value: the value of missing entries (0, or ``''`` for strings).
        validate_indices: check that the indices are in row-major order without repeats
            (out-of-range indices always raise).

    Returns:
        The dense tensor. Duplicate indices are summed.
    """
    sp = _sp(sp_input, "to_dense")
    if sp.dtype is dtypes.string:
        raise TypeError("tw.sparse.to_dense of a string SparseTensor is not supported: "
                        "scatter_nd sums entries, which strings cannot do")
    if validate_indices:
        lin = _linear(sp.indices, sp.dense_shape)
        assert_less(lin[:-1], lin[1:], message="tw.sparse.to_dense: indices must be in "
                    "row-major order without repeats (use tw.sparse.reorder)")
    dense = A.scatter_nd(sp.indices, sp.values, sp.dense_shape)
    if default_value is not None:
        d = convert(default_value, dtype=sp.dtype)
        hit = A.scatter_nd(sp.indices, ones_like(sp.values, dtype=dtypes.int32), sp.dense_shape)
        dense = where(greater(hit, 0), dense, fill(sp.dense_shape, d))
    return dense


@name_scoped
def to_indicator(sp_input: SparseTensor, vocab_size, name: str | None = None) -> Tensor:
    """``[..., vocab_size]`` bools: True where a row's ids contain that index.

    Args:
        sp_input: an integer SparseTensor of ids (its last dimension lists a row's ids).
        vocab_size: the size of the last output dimension.

    Returns:
        A bool tensor of rank ``sp_input``'s rank.
    """
    sp = _sp(sp_input, "to_indicator")
    if not sp.dtype.is_integer:
        raise TypeError(f"tw.sparse.to_indicator needs integer ids, got {sp.dtype.name}")
    ids = cast(sp.values, _I64)
    idx = concat([sp.indices[:, :-1], expand_dims(ids, 1)], axis=1)
    shp = concat([sp.dense_shape[:-1], A.reshape(cast(convert(vocab_size), _I64), [1])], 0)
    return greater(A.scatter_nd(idx, ones_like(ids, dtype=dtypes.int32), shp), 0)


# ----- ordering and restructuring -------------------------------------------------------------

@name_scoped
def reorder(sp_input: SparseTensor, name: str | None = None) -> SparseTensor:
    """The same SparseTensor with its entries in row-major (canonical) order.

    Args:
        sp_input: a SparseTensor.

    Returns:
        The reordered SparseTensor.
    """
    sp = _sp(sp_input, "reorder")
    order = A.argsort(_linear(sp.indices, sp.dense_shape), stable=True)
    return SparseTensor(gather(sp.indices, order), gather(sp.values, order), sp.dense_shape,
                        _shape=sp.shape)


def _canonical(indices: Tensor, values: Tensor, dense_shape: Tensor, static) -> SparseTensor:
    """Sorted entries with duplicate indices summed."""
    lin = _linear(indices, dense_shape)
    uniq, idx = A.unique(lin, out_idx=_I64)
    n = shape(uniq, out_type=_I64)[0]
    summed = unsorted_segment_sum(values, idx, n)
    order = A.argsort(uniq, stable=True)
    return SparseTensor(_unravel(gather(uniq, order), dense_shape), gather(summed, order),
                        dense_shape, _shape=static)


@name_scoped
def reshape_sparse(sp_input: SparseTensor, shape_, name: str | None = None) -> SparseTensor:
    """The SparseTensor with a new dense shape (same entries in row-major order).

    Args:
        sp_input: a SparseTensor.
        shape_: the new shape; one dimension may be -1.

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


@name_scoped
def transpose_sparse(sp_input: SparseTensor, perm=None, name: str | None = None) -> SparseTensor:
    """The SparseTensor with permuted dimensions (reordered).

    Args:
        sp_input: a SparseTensor.
        perm: the permutation (default: reversed dimensions).

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


@name_scoped
def expand_dims_sparse(sp_input: SparseTensor, axis=None, name: str | None = None
                       ) -> SparseTensor:
    """The SparseTensor with a new dimension of size 1 at ``axis``.

    Args:
        sp_input: a SparseTensor of known rank.
        axis: where the new dimension goes (negative counts from the end, -1 appends).

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


@name_scoped
def slice_sparse(sp_input: SparseTensor, start, size, name: str | None = None) -> SparseTensor:
    """The entries of the box ``[start, start + size)``, shifted to start at 0.

    Args:
        sp_input: a SparseTensor.
        start: the box's first coordinate per dimension.
        size: its size per dimension (clipped to the dense shape).

    Returns:
        The sliced SparseTensor.
    """
    sp = _sp(sp_input, "slice")
    start = cast(convert(start), _I64)
    size = cast(convert(size), _I64)
    end = _minimum(start + size, sp.dense_shape)
    inside = reduce_all(M.logical_and(M.greater_equal(sp.indices, start), less(sp.indices, end)),
                        axis=1)
    return SparseTensor(boolean_mask(sp.indices, inside) - start,
                        boolean_mask(sp.values, inside), _maximum(end - start, 0))


@name_scoped
def split(sp_input: SparseTensor = None, num_split: int = None, axis: int = None,
          name: str | None = None, keyword_required=None) -> list:
    """``num_split`` SparseTensors along ``axis`` (the first ones one larger if uneven).

    Args:
        sp_input: a SparseTensor of known dense shape along ``axis``.
        num_split: how many pieces.
        axis: the dimension to split.
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


@name_scoped
def concat_sparse(axis, sp_inputs, expand_nonconcat_dims: bool = False,
                  name: str | None = None, concat_dim=None) -> SparseTensor:
    """The SparseTensors joined along ``axis`` (``tw.sparse.concat``).

    Args:
        axis: the dimension to join.
        sp_inputs: SparseTensors of the same rank.
        expand_nonconcat_dims: let the other dimensions differ (the result takes the largest).
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
    shapes = A.stack([s.dense_shape for s in sps])
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


@name_scoped
def fill_empty_rows(sp_input: SparseTensor, default_value, name: str | None = None) -> tuple:
    """Adds ``default_value`` at ``[row, 0, ...]`` for every empty row of a SparseTensor.

    Args:
        sp_input: a SparseTensor.
        default_value: the value put in empty rows.

    Returns:
        ``(sp_output, empty_row_indicator)``: the filled SparseTensor (reordered) and a bool
        vector that is True for the rows that were empty.
    """
    sp = _sp(sp_input, "fill_empty_rows")
    nrows = sp.dense_shape[0]
    counts = unsorted_segment_sum(ones_like(sp.indices[:, 0]), sp.indices[:, 0], nrows)
    empty = M.equal(counts, 0)
    rows = boolean_mask(_range(nrows, dtype=_I64), empty)
    rank_rest = shape(sp.indices, out_type=_I64)[1:] - 1
    pad = fill(concat([shape(rows, out_type=_I64), rank_rest], 0), convert(0, dtype=_I64))
    new_idx = concat([expand_dims(rows, 1), pad], axis=1)
    new_vals = fill(shape(rows), convert(default_value, dtype=sp.dtype))
    out = SparseTensor(concat([sp.indices, new_idx], 0), concat([sp.values, new_vals], 0),
                       sp.dense_shape, _shape=sp.shape)
    return reorder(out), empty
