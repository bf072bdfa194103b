"""``tw.sets``: intersection, union, difference and size of the sets held in the last
dimension of dense or sparse tensors. Results are SparseTensors whose rows hold each set's
elements sorted, as TensorFlow's; none of these ops has a gradient (their values are integers
or strings)."""
from __future__ import annotations

import itertools

import numpy as np

from ..core import dtypes
from ..core.errors import InvalidArgumentError
from ..core.shapes import TensorShape
from ..eager.execute import bind
from ..graph.registry import register_op
from ..graph.tensor import Tensor
from .core import convert
from .sparse.tensor import SparseTensor

__all__ = ["intersection", "union", "difference", "size"]

_TYPES = "T:type in [int8,int16,int32,int64,uint8,uint16,string]"
_OPS = {"intersection": lambda a, b: a & b, "union": lambda a, b: a | b,
        "a-b": lambda a, b: a - b, "b-a": lambda a, b: b - a}


def _dense_rows(x: np.ndarray, what: str) -> tuple:
    if x.ndim < 2:
        raise InvalidArgumentError(None, None, f"{what}: sets must have rank >= 2, got shape "
                                               f"{list(x.shape)}")
    flat = x.reshape(-1, x.shape[-1])
    rows = {k: set(flat[i].tolist()) for i, k in
            enumerate(itertools.product(*[range(d) for d in x.shape[:-1]]))}
    return rows, tuple(x.shape[:-1])


def _sparse_rows(indices, values, shape, what: str) -> tuple:
    if len(shape) < 2:
        raise InvalidArgumentError(None, None, f"{what}: sets must have rank >= 2, got shape "
                                               f"{list(shape)}")
    rows: dict = {}
    for idx, v in zip(indices.tolist(), values.tolist()):
        rows.setdefault(tuple(idx[:-1]), set()).add(v)
    return rows, tuple(int(d) for d in shape[:-1])


def _combine(r1, s1, r2, s2, op: str, dt, what: str) -> tuple:
    if s1 != s2:
        raise InvalidArgumentError(None, None, f"{what}: the sets' batch shapes differ: "
                                               f"{list(s1)} vs {list(s2)}")
    out_rows = []
    for key in itertools.product(*[range(d) for d in s1]):
        got = _OPS[op](r1.get(key, set()), r2.get(key, set()))
        if got:
            out_rows.append((key, sorted(got)))
    width = max((len(v) for _, v in out_rows), default=0)
    indices = [list(k) + [j] for k, vals in out_rows for j in range(len(vals))]
    values = [v for _, vals in out_rows for v in vals]
    ind = np.asarray(indices, np.int64).reshape(-1, len(s1) + 1)
    vals = np.asarray(values + [None], object)[:-1] if dt is dtypes.string else \
        np.asarray(values, dt.np)
    return ind, vals, np.asarray(list(s1) + [width], np.int64)


def _infer(dt, rank):
    r = None if rank is None else rank
    return [(dtypes.int64, TensorShape([None, r])), (dt, TensorShape([None])),
            (dtypes.int64, TensorShape([r]))]


def _no_grad(op, *dys):
    return [None] * len(op.inputs)


@register_op("DenseToDenseSetOperation", multi_output=True,
             schema=f"set1:T, set2:T -> result_indices:any | {_TYPES}; set_operation:string; "
                    "validate_indices:bool")
class DenseToDenseSetOperation:
    """A set operation on two dense tensors' last dimensions."""

    def infer(set1, set2, set_operation, validate_indices):
        return _infer(set1.dtype, set1.shape.rank)

    def kernel(set1, set2, set_operation, validate_indices):
        what = "DenseToDenseSetOperation"
        r1, s1 = _dense_rows(set1, what)
        r2, s2 = _dense_rows(set2, what)
        return _combine(r1, s1, r2, s2, set_operation, dtypes.as_dtype(set1.dtype), what)

    grad = _no_grad


@register_op("DenseToSparseSetOperation", multi_output=True,
             schema=f"set1:T, set2_indices:int64, set2_values:T, set2_shape:int64 -> "
                    f"result_indices:any | {_TYPES}; set_operation:string; "
                    "validate_indices:bool")
class DenseToSparseSetOperation:
    """A set operation on a dense and a sparse tensor."""

    def infer(set1, set2_indices, set2_values, set2_shape, set_operation, validate_indices):
        return _infer(set1.dtype, set1.shape.rank)

    def kernel(set1, set2_indices, set2_values, set2_shape, set_operation, validate_indices):
        what = "DenseToSparseSetOperation"
        r1, s1 = _dense_rows(set1, what)
        r2, s2 = _sparse_rows(set2_indices, set2_values, set2_shape, what)
        return _combine(r1, s1, r2, s2, set_operation, dtypes.as_dtype(set1.dtype), what)

    grad = _no_grad


@register_op("SparseToSparseSetOperation", multi_output=True,
             schema=f"set1_indices:int64, set1_values:T, set1_shape:int64, "
                    f"set2_indices:int64, set2_values:T, set2_shape:int64 -> "
                    f"result_indices:any | {_TYPES}; set_operation:string; "
                    "validate_indices:bool")
class SparseToSparseSetOperation:
    """A set operation on two sparse tensors."""

    def infer(i1, v1, s1, i2, v2, s2, set_operation, validate_indices):
        return _infer(v1.dtype, s1.shape[0] if s1.shape.rank == 1 else None)

    def kernel(i1, v1, s1, i2, v2, s2, set_operation, validate_indices):
        what = "SparseToSparseSetOperation"
        r1, b1 = _sparse_rows(i1, v1, s1, what)
        r2, b2 = _sparse_rows(i2, v2, s2, what)
        return _combine(r1, b1, r2, b2, set_operation, dtypes.as_dtype(v1.dtype), what)

    grad = _no_grad


@register_op("SetSize", schema=f"set_indices:int64, set_values:T, set_shape:int64 -> "
                               f"size:int32 | {_TYPES}; validate_indices:bool")
class SetSize:
    """The number of distinct elements of each set of a sparse tensor."""

    def infer(set_indices, set_values, set_shape, validate_indices):
        n = set_shape.shape[0] if set_shape.shape.rank == 1 else None
        return dtypes.int32, TensorShape(None if n is None else [None] * (n - 1))

    def kernel(set_indices, set_values, set_shape, validate_indices):
        rows, batch = _sparse_rows(set_indices, set_values, set_shape, "SetSize")
        out = np.zeros(batch, np.int32)
        for k, v in rows.items():
            out[k] = len(v)
        return out

    grad = _no_grad


def _parts(x):
    if isinstance(x, SparseTensor):
        return x
    return convert(x)


def _set_op(a, b, op: str, validate_indices) -> SparseTensor:
    a, b = _parts(a), _parts(b)
    attrs = {"set_operation": op, "validate_indices": bool(validate_indices)}
    a_sparse, b_sparse = isinstance(a, SparseTensor), isinstance(b, SparseTensor)
    if a_sparse and not b_sparse:  # as TensorFlow: the dense one goes first
        a, b, a_sparse, b_sparse = b, a, False, True
        op = {"a-b": "b-a", "b-a": "a-b"}.get(op, op)
        attrs["set_operation"] = op
    if not a_sparse and not b_sparse:
        outs = bind(DenseToDenseSetOperation, [a, b], attrs)
    elif not a_sparse:
        outs = bind(DenseToSparseSetOperation, [a, b.indices, b.values, b.dense_shape], attrs)
    else:
        outs = bind(SparseToSparseSetOperation, [a.indices, a.values, a.dense_shape,
                                                 b.indices, b.values, b.dense_shape], attrs)
    return SparseTensor(*outs)


def intersection(a, b, validate_indices=True) -> SparseTensor:
    """The elements in both ``a``'s and ``b``'s sets, per set (the last dimension).

    Args:
        a: a dense tensor or SparseTensor of rank >= 2.
        b: the same dtype and batch shape (a SparseTensor if ``a`` is one).
        validate_indices: whether the sparse indices are checked (always done in twinflow).

    Returns:
        A SparseTensor whose rows hold each intersection's elements, sorted.
    """
    return _set_op(a, b, "intersection", validate_indices)


def union(a, b, validate_indices=True) -> SparseTensor:
    """The elements in ``a``'s or ``b``'s sets, per set.

    Args:
        a: a dense tensor or SparseTensor of rank >= 2.
        b: the same dtype and batch shape.
        validate_indices: whether the sparse indices are checked (always done in twinflow).

    Returns:
        A SparseTensor whose rows hold each union's elements, sorted.
    """
    return _set_op(a, b, "union", validate_indices)


def difference(a, b, aminusb=True, validate_indices=True) -> SparseTensor:
    """The elements of ``a``'s sets not in ``b``'s (or the reverse), per set.

    Args:
        a: a dense tensor or SparseTensor of rank >= 2.
        b: the same dtype and batch shape.
        aminusb: ``a - b`` if True, else ``b - a``.
        validate_indices: whether the sparse indices are checked (always done in twinflow).

    Returns:
        A SparseTensor whose rows hold each difference's elements, sorted.
    """
    return _set_op(a, b, "a-b" if aminusb else "b-a", validate_indices)


def size(a, validate_indices=True) -> Tensor:
    """The number of elements of each set of a SparseTensor.

    Args:
        a: a SparseTensor of rank >= 2 (the last dimension holds the sets).
        validate_indices: whether the sparse indices are checked (always done in twinflow).

    Returns:
        An int32 tensor of ``a``'s batch shape.
    """
    if not isinstance(a, SparseTensor):
        raise TypeError(f"Expected `SparseTensor`, got {type(a).__name__} (tw.sets.size takes "
                        "the SparseTensor a set operation returns)")
    return bind(SetSize, [a.indices, a.values, a.dense_shape],
                {"validate_indices": bool(validate_indices)})

