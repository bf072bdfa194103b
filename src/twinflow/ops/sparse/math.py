"""``tw.sparse`` arithmetic: add, maximum/minimum, eye, sparse_dense_matmul, reductions, softmax,
IndexedSlices masks, segment ops over gathered rows and the ``sp * dense`` operators.

Written with dense twinflow ops like ``ops.py``; gradients come from those ops' rules.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ...core import dtypes
from ...graph.graph import name_scoped
from ...graph.tensor import Tensor, TensorLike
from .. import array_ops as A
from .. import math_ops as M
from .. import reduction_ops as R
from ..array_ops import boolean_mask, concat, expand_dims, gather, ones_like, reshape, shape
from ..array_ops import range as _range
from ..array_ops import transpose as _dense_transpose
from ..core import convert, static_value
from ..dispatch import register
from ..math_ops import abs as _abs
from ..math_ops import (
    cast,
    equal,
    exp,
    greater,
    greater_equal,
    logical_not,
    multiply,
    sqrt,
    where,
)
from ..math_ops import maximum as _maximum
from ..math_ops import minimum as _minimum
from ..reduction_ops import reduce_any, reduce_prod
from ..reduction_ops import reduce_max as _dense_max
from ..scatter_ops import IndexedSlices
from ..segment_ops import segment_mean as _seg_mean
from ..segment_ops import segment_sum as _seg_sum
from ..segment_ops import unsorted_segment_max, unsorted_segment_sum
from .ops import _I64, _canonical, _linear, _sp, _unravel, reorder, retain, to_dense
from .tensor import SparseTensor


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
        return to_dense(sp, validate_indices=False) + convert(dense, dtype=sp.dtype)
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
                       concat([A.zeros_like(a.values), A.zeros_like(b.values)], 0),
                       a.dense_shape, a.shape)
    da, db = to_dense(a, validate_indices=False), to_dense(b, validate_indices=False)
    return union.with_values(fn(A.gather_nd(da, union.indices), A.gather_nd(db, union.indices)))


def _union_fn(fn_name: str, fn, word: str) -> Callable[..., SparseTensor]:
    """``tw.sparse.maximum`` / ``minimum``: ``fn`` over the union of two index sets."""
    def union_fn(sp_a: SparseTensor, sp_b: SparseTensor, name: str | None = None
                 ) -> SparseTensor:
        return _union(sp_a, sp_b, fn, fn_name)
    union_fn.__name__ = union_fn.__qualname__ = f"{fn_name}_sparse"
    union_fn.__doc__ = f"""Elementwise {fn_name} of two SparseTensors over the union of their
    entries (absent = 0).

    Args:
        sp_a: a SparseTensor.
        sp_b: one of the same dense shape.

    Returns:
        The SparseTensor of {word}.
    """
    return name_scoped(union_fn)


maximum_sparse = _union_fn("maximum", _maximum, "maxima")
minimum_sparse = _union_fn("minimum", _minimum, "minima")


@name_scoped
def eye(num_rows, num_columns=None, dtype=dtypes.float32, name: str | None = None
        ) -> SparseTensor:
    """The identity matrix as a SparseTensor.

    Args:
        num_rows: the number of rows.
        num_columns: the number of columns (default ``num_rows``).
        dtype: the values' dtype.

    Returns:
        A ``[num_rows, num_columns]`` SparseTensor with ones on the diagonal.
    """
    r = cast(convert(num_rows), _I64)
    c = r if num_columns is None else cast(convert(num_columns), _I64)
    d = _range(_minimum(r, c), dtype=_I64)
    return SparseTensor(A.stack([d, d], axis=1), ones_like(d, dtype=dtype), A.stack([r, c]))


# ----- arithmetic -------------------------------------------------------------------------------

@name_scoped
def sparse_dense_matmul(sp_a, b, adjoint_a: bool = False, adjoint_b: bool = False,
                        name: str | None = None) -> Tensor:
    """``sp_a @ b`` for a rank-2 SparseTensor (or ``a @ sp_b`` with a dense ``a``).

    Args:
        sp_a: a ``[M, K]`` SparseTensor (or a dense tensor when ``b`` is sparse).
        b: a dense ``[K, N]`` tensor (or a SparseTensor).
        adjoint_a: use the (conjugate) transpose of ``sp_a``.
        adjoint_b: use the (conjugate) transpose of ``b``.

    Returns:
        The dense ``[M, N]`` product; differentiable in the values and in ``b``.
    """
    if isinstance(b, SparseTensor) and not isinstance(sp_a, SparseTensor):
        if b.dtype.is_complex:  # the transposes below would conjugate
            raise TypeError("tw.sparse.sparse_dense_matmul(dense, sparse) of complex values is "
                            "not supported; use sparse_dense_matmul(sparse, dense)")
        # a @ sp_b = (sp_b^T @ a^T)^T
        return _dense_transpose(sparse_dense_matmul(b, sp_a, adjoint_a=not adjoint_b,
                                                    adjoint_b=not adjoint_a))
    sp = _sp(sp_a, "sparse_dense_matmul")
    b = convert(b, dtype=sp.dtype)
    values = sp.values
    if adjoint_b:
        b = _dense_transpose(b)
        b = M.conj(b) if b.dtype.is_complex else b
    rows, cols = sp.indices[:, 0], sp.indices[:, 1]
    nrows = sp.dense_shape[0]
    if adjoint_a:
        rows, cols, nrows = cols, rows, sp.dense_shape[1]
        values = M.conj(values) if values.dtype.is_complex else values
    contrib = expand_dims(values, 1) * gather(b, cols)
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
        A.fill(concat([shape(sp.indices, out_type=_I64)[:1], [0]], 0), convert(0, dtype=_I64))
    lin = _linear(kept_idx, kept_shape) if keep else A.zeros_like(sp.indices[:, 0])
    total = reduce_prod(kept_shape)
    red = segment_fn(sp.values, lin, total)
    counts = unsorted_segment_sum(ones_like(lin), lin, total)
    red = where(greater(counts, 0), red, A.zeros_like(red))
    if output_is_sparse:
        present = greater(counts, 0)
        ids = boolean_mask(_range(total, dtype=_I64), present)
        return SparseTensor(_unravel(ids, kept_shape), boolean_mask(red, present), kept_shape)
    out_shape = kept_shape
    if keepdims:
        out_shape = concat([reshape(sp.dense_shape[d] if d in keep else
                                    convert(1, dtype=_I64), [1]) for d in range(rank)], 0)
    return reshape(red, out_shape)


@name_scoped
def reduce_sum(sp_input: SparseTensor, axis=None, keepdims: bool | None = None,
               output_is_sparse: bool = False, name: str | None = None
               ) -> Tensor | SparseTensor:
    """The sum of a SparseTensor's entries over ``axis`` (all by default).

    Args:
        sp_input: a SparseTensor of known rank.
        axis: the dimensions to reduce.
        keepdims: keep reduced dimensions with size 1 (None: False, as TensorFlow).
        output_is_sparse: return a SparseTensor of the non-empty sums.

    Returns:
        A dense tensor (or SparseTensor).
    """
    return _reduce(_sp(sp_input, "reduce_sum"), axis, keepdims, unsorted_segment_sum,
                   "reduce_sum", output_is_sparse)


@name_scoped
def reduce_max(sp_input: SparseTensor, axis=None, keepdims: bool | None = None,
               output_is_sparse: bool = False, name: str | None = None
               ) -> Tensor | SparseTensor:
    """The max over the *present* entries along ``axis`` (0 where none is present).

    Args:
        sp_input, axis, keepdims, output_is_sparse: as for ``reduce_sum``.

    Returns:
        A dense tensor (or SparseTensor).
    """
    return _reduce(_sp(sp_input, "reduce_max"), axis, keepdims, unsorted_segment_max,
                   "reduce_max", output_is_sparse)


@name_scoped
def softmax(sp_input: SparseTensor, name: str | None = None) -> SparseTensor:
    """Softmax over the present entries of each innermost row.

    Args:
        sp_input: a SparseTensor of rank >= 2.

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


@name_scoped
def mask(a, mask_indices: TensorLike, name: str | None = None) -> IndexedSlices:
    """The slices of an IndexedSlices whose index is not in ``mask_indices``.

    Args:
        a: an IndexedSlices.
        mask_indices: the indices to drop.

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

@name_scoped
def segment_sum(data: TensorLike, indices: TensorLike, segment_ids: TensorLike,
                num_segments=None, name: str | None = None, sparse_gradient: bool = False
                ) -> Tensor:
    """``segment_sum(gather(data, indices), segment_ids)`` (``tw.sparse.segment_sum``).

    Args:
        data: the rows.
        indices: which rows to take.
        segment_ids: sorted segment of each taken row.
        num_segments: the number of output rows (default: last segment id + 1).
        sparse_gradient: a hint that changes nothing: TensorFlow then returns the gradient
            as IndexedSlices, of the same value as twinflow's (the gather's).

    Returns:
        The segment sums.
    """
    rows = gather(data, indices)
    if num_segments is not None:
        return unsorted_segment_sum(rows, segment_ids, num_segments)
    return _seg_sum(rows, segment_ids)


@name_scoped
def segment_mean(data: TensorLike, indices: TensorLike, segment_ids: TensorLike,
                 num_segments=None, name: str | None = None, sparse_gradient: bool = False
                 ) -> Tensor:
    """``segment_mean(gather(data, indices), segment_ids)`` (empty segments give 0).

    Args:
        data, indices, segment_ids, num_segments, sparse_gradient: as for ``segment_sum``.

    Returns:
        The segment means.
    """
    rows = gather(data, indices)
    if num_segments is None:
        return _seg_mean(rows, segment_ids)
    return _scaled_sums(rows, convert(segment_ids), num_segments, lambda n: n)


@name_scoped
def segment_sqrt_n(data: TensorLike, indices: TensorLike, segment_ids: TensorLike,
                   num_segments=None, name: str | None = None, sparse_gradient: bool = False
                   ) -> Tensor:
    """Segment sums of the gathered rows divided by the square root of each segment's size
    (``tw.sparse.segment_sqrt_n``; empty segments give 0).

    Args:
        data, indices, segment_ids, num_segments, sparse_gradient: as for ``segment_sum``.

    Returns:
        The scaled segment sums.
    """
    rows = gather(data, indices)
    ids = convert(segment_ids)
    if num_segments is None:
        num_segments = _dense_max(ids) + 1
    return _scaled_sums(rows, ids, num_segments, sqrt)


def _scaled_sums(rows, ids, num_segments, scale) -> Tensor:
    """Each segment's sum divided by ``scale(its size)`` (empty segments: by ``scale(1)``)."""
    s = unsorted_segment_sum(rows, ids, num_segments)
    n = unsorted_segment_sum(ones_like(ids, dtype=rows.dtype), ids, num_segments)
    return s / reshape(scale(_maximum(n, 1)), concat([shape(n), ones_like(shape(s)[1:])], 0))



# ----- operators: sp * dense, sp / dense, -sp (TensorFlow's sparse_dense_cwise ops) ------------

def _cwise(fn):
    def op(self, other):
        if isinstance(other, SparseTensor):
            raise TypeError(f"SparseTensor {fn.__name__} SparseTensor is not supported; use "
                            f"tw.sparse.add / tw.sparse.map_values, or densify one side")
        dense = A.broadcast_to(convert(other, dtype=self.dtype), self.dense_shape)
        return self.with_values(fn(self.values, A.gather_nd(dense, self.indices)))
    op.__name__ = fn.__name__
    op.__doc__ = f"``{fn.__name__}`` of the entries with the dense operand at their indices."
    return op


SparseTensor.__mul__ = _cwise(multiply)
SparseTensor.__truediv__ = _cwise(M.truediv)
SparseTensor.__neg__ = lambda self: self.with_values(M.negative(self.values))
SparseTensor.__abs__ = lambda self: self.with_values(_abs(self.values))


# ----- embeddings, counts, sampled products ------------------------------------------------------

@name_scoped
@name_scoped
def embedding_lookup_sparse(params: TensorLike, sp_ids: SparseTensor, sp_weights,
                            combiner: str | None = None, max_norm=None, name: str | None = None,
                            allow_fast_lookup: bool = False) -> Tensor:
    """Per row of ``sp_ids``, the combination of the embeddings of its ids
    (``tw.nn.embedding_lookup_sparse``).

    Args:
        params: the embedding table ``[vocabulary, dim]``.
        sp_ids: a rank-2 SparseTensor of ids (row = example).
        sp_weights: a SparseTensor of weights with the same indices, or None (all 1).
        combiner: "sum", "mean" (weighted mean; None too) or "sqrtn" (sum / sqrt(sum of
            weights²)).
        max_norm: if set, embeddings are clipped to this L2 norm first.
        name: op name.
        allow_fast_lookup: TensorFlow's switch to a faster path with the same results; twinflow
            has one path.

    Returns:
        ``[last row with an id + 1, dim]``: rows without ids are zeros. The gradient of
        ``params`` is an IndexedSlices.
    """
    combiner = "mean" if combiner is None else combiner
    if combiner not in ("sum", "mean", "sqrtn"):
        raise ValueError(f"combiner must be 'sum', 'mean' or 'sqrtn', got {combiner!r}")
    if isinstance(params, (list, tuple)):
        if len(params) != 1:
            raise ValueError("tw.nn.embedding_lookup_sparse: sharded params (a list of tables) "
                             "are not supported; concatenate them into one table")
        params = params[0]
    ids = _sp(sp_ids, "embedding_lookup_sparse")
    rows = ids.indices[:, 0]
    emb = gather(params, ids.values)
    if max_norm is not None:
        norm = sqrt(R.reduce_sum(emb * emb, axis=1, keepdims=True))
        emb = emb * _minimum(M.div_no_nan(convert(max_norm, dtype=emb.dtype), norm), 1.0)
    n = _dense_max(concat([rows, -A.ones([1], rows.dtype)], 0)) + 1
    if sp_weights is None:
        w = ones_like(rows, dtype=emb.dtype)
    else:
        w = convert(_sp(sp_weights, "embedding_lookup_sparse").values, dtype=emb.dtype)
        emb = emb * expand_dims(w, 1)
    total = unsorted_segment_sum(emb, rows, n)
    if combiner == "sum":
        return total
    if combiner == "mean":
        den = unsorted_segment_sum(w, rows, n)
    else:
        den = sqrt(unsorted_segment_sum(w * w, rows, n))
    return M.div_no_nan(total, expand_dims(den, 1))


@name_scoped
def bincount(values, weights=None, axis=0, minlength=None, maxlength=None,
             binary_output: bool = False, name: str | None = None) -> SparseTensor:
    """Counts of each value, as a SparseTensor of the non-empty bins (``tw.sparse.bincount``).

    Args:
        values: a SparseTensor or dense tensor of non-negative ints.
        weights: per-value weights (same structure as ``values``), or None to count.
        axis: 0 (count everything) or -1 (count per row of a rank-2 input).
        minlength: at least this many bins.
        maxlength: values at or above this are dropped.
        binary_output: 1 for every non-empty bin instead of counts.

    Returns:
        A SparseTensor ``[bins]`` (axis 0) or ``[rows, bins]`` (axis -1).
    """
    if isinstance(values, SparseTensor):
        vals, rows0 = values.values, values.indices[:, 0]
        nrows = values.dense_shape[0]
    else:
        dense = convert(values)
        vals = reshape(dense, [-1])
        width = shape(dense, out_type=_I64)[-1] if dense.shape.rank else convert(1, _I64)
        rows0 = _range(shape(vals, out_type=_I64)[0], dtype=_I64) // width
        nrows = shape(dense, out_type=_I64)[0] if dense.shape.rank else convert(1, _I64)
    if not vals.dtype.is_integer:
        raise TypeError(f"tw.sparse.bincount needs integer values, got {vals.dtype.name}")
    a = int(static_value(axis, "tw.sparse.bincount axis"))
    if a not in (0, -1):
        raise ValueError(f"tw.sparse.bincount supports axis 0 or -1, got {a}")
    v = cast(vals, _I64)
    if weights is not None:
        wv = weights.values if isinstance(weights, SparseTensor) else reshape(convert(weights),
                                                                              [-1])
    else:
        wv = ones_like(vals)
    keep = greater_equal(v, 0)
    if maxlength is not None:
        keep = M.logical_and(keep, M.less(v, cast(convert(maxlength), _I64)))
    v, wv, rows = boolean_mask(v, keep), boolean_mask(wv, keep), boolean_mask(rows0, keep)
    size = _dense_max(concat([v, A.fill([1], convert(-1, dtype=_I64))], 0)) + 1
    if minlength is not None:
        size = _maximum(size, cast(convert(minlength), _I64))
    if maxlength is not None:
        size = _minimum(size, cast(convert(maxlength), _I64))
    if a == 0:
        rows = A.zeros_like(rows)
    key = rows * size + v
    uniq, idx = A.unique(key, out_idx=_I64)
    counts = unsorted_segment_sum(wv, idx, shape(uniq, out_type=_I64)[0])
    if binary_output:
        counts = ones_like(counts)
    order = A.argsort(uniq, stable=True)
    uniq, counts = gather(uniq, order), gather(counts, order)
    if a == 0:
        return SparseTensor(expand_dims(uniq, 1), counts, reshape(size, [1]))
    return SparseTensor(A.stack([uniq // size, uniq % size], axis=1), counts,
                        A.stack([nrows, size]))


def sampled_addmm(indices, values, dense_shape, mat1, mat2, beta=1.0, alpha=1.0,
                  output_type=dtypes.float32) -> tuple:
    """``alpha * (mat1 @ mat2)`` at ``indices`` plus ``beta * values`` (rank 2).

    Args:
        indices: ``[N, 2]`` positions of the sparse operand.
        values: its ``[N]`` values.
        dense_shape: its shape ``[M, N]``.
        mat1: dense ``[M, K]``.
        mat2: dense ``[K, N]``.
        beta: scale of ``values``.
        alpha: scale of the product.
        output_type: the values' dtype.

    Returns:
        ``(indices, new values, dense_shape)``.
    """
    idx = convert(indices)
    if idx.shape.rank != 2:
        raise ValueError("tw.sparse.sampled_addmm supports rank-2 (unbatched) operands only")
    a = convert(mat1, dtype=output_type)
    b = convert(mat2, dtype=output_type)
    i, j = idx[:, 0], idx[:, 1]
    prod = R.reduce_sum(gather(a, i) * _dense_transpose(gather(b, j, axis=1)), axis=1)
    new = convert(alpha, dtype=output_type) * prod + \
        convert(beta, dtype=output_type) * convert(values, dtype=output_type)
    return idx, new, convert(dense_shape)


register("cast", "SparseTensor", lambda x, dtype: x.with_values(M.cast(x.values, dtype)))

# Unary ops with f(0) == 0 keep a SparseTensor sparse (TensorFlow dispatches the same ones);
# other elementwise ops refuse it with the "convert with tw.sparse.to_dense" error.
_ZERO_PRESERVING = frozenset({"Neg", "Sign", "Square", "Sqrt", "Erf", "Tanh", "Sin", "Atan",
                              "Asinh"})


def _sparse_elementwise(dense, *args, **kwargs):
    name = getattr(dense, "op_name", getattr(dense, "__name__", "op"))
    if name in _ZERO_PRESERVING and len(args) == 1 and not kwargs:
        return args[0].with_values(dense(args[0].values))
    raise TypeError(f"{name} of a SparseTensor is not supported (only ops with f(0) = 0: "
                    f"{sorted(_ZERO_PRESERVING)} and abs); convert it with "
                    f"tw.sparse.to_dense(x) or use tw.sparse.map_values")


register("elementwise", "SparseTensor", _sparse_elementwise)
register("abs", "SparseTensor", lambda x: x.with_values(_abs(x.values)))
