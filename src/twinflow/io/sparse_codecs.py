"""``serialize_sparse``, ``serialize_many_sparse`` and ``deserialize_many_sparse``: a
SparseTensor as serialized TensorProtos of its indices, values and dense shape (TensorFlow's
layout: a string vector of 3, or one row of 3 per minibatch entry), as ops that run eagerly
and in graphs."""
from __future__ import annotations

import numpy as np

from ..core import dtypes, errors
from ..core.shapes import TensorShape
from ..eager.execute import bind, convert_to_tensor
from ..graph.registry import register_op
from ..graph.tensor import Tensor
from ..ops.sparse.tensor import SparseTensor
from .codecs import _parse, _serialize, bytes_of


def _three(indices, values, shape, dt) -> list:
    return [_serialize(np.asarray(indices, np.int64), dtypes.int64), _serialize(values, dt),
            _serialize(np.asarray(shape, np.int64), dtypes.int64)]


@register_op("SerializeSparse")
class SerializeSparse:
    """A SparseTensor's components as three serialized TensorProtos (``many``: one row of
    three per minibatch entry, the first dimension removed)."""

    def infer(indices, values, dense_shape, *, many):
        rows = [None] if many else []
        return dtypes.string, TensorShape(rows + [3])

    def kernel(indices, values, dense_shape, *, many):
        ind, vals, shape = np.asarray(indices), np.asarray(values), np.asarray(dense_shape)
        dt = dtypes.from_numpy(vals.dtype) if vals.dtype != object else dtypes.string
        if not many:
            return np.asarray(_three(ind, vals, shape, dt), dtype=object)
        if shape.size == 0:
            raise errors.InvalidArgumentError(None, None, "serialize_many_sparse needs a "
                                              "SparseTensor of rank >= 1")
        rows = []
        for b in range(int(shape[0])):
            keep = ind[:, 0] == b
            rows.append(_three(ind[keep, 1:], vals[keep], shape[1:], dt))
        return np.asarray(rows, dtype=object).reshape(-1, 3)


@register_op("DeserializeManySparse", multi_output=True)
class DeserializeManySparse:
    """The SparseTensor batching the ``[N, 3]`` serialized minibatch entries: dense shape
    ``[N]`` followed by the largest of the entries' shapes."""

    def infer(serialized, *, dtype, rank):
        r = None if rank is None else rank
        return [(dtypes.int64, TensorShape([None, r])), (dtype, TensorShape([None])),
                (dtypes.int64, TensorShape([r]))]

    def kernel(serialized, *, dtype, rank):
        s = np.asarray(serialized, dtype=object)
        if s.ndim != 2 or s.shape[1] != 3:
            raise errors.InvalidArgumentError(None, None, "deserialize_many_sparse: serialized "
                                              f"must be [N, 3], got shape {list(s.shape)}")
        parts = [(_parse(bytes_of(a), dtypes.int64), _parse(bytes_of(v), dtype),
                  _parse(bytes_of(d), dtypes.int64)) for a, v, d in s]
        ranks = {len(d) for _, _, d in parts}
        if len(ranks) > 1 or (rank is not None and ranks and ranks != {rank - 1}):
            raise errors.InvalidArgumentError(None, None, "deserialize_many_sparse: entries of "
                                              f"ranks {sorted(ranks)} (expected rank {rank})")
        r = ranks.pop() if ranks else (rank - 1 if rank else 0)
        ind = [np.concatenate([np.full((len(i), 1), b, np.int64), i.reshape(-1, r)], 1)
               for b, (i, _, _) in enumerate(parts)]
        shape = np.max([d for _, _, d in parts], axis=0) if parts else np.zeros(r, np.int64)
        return (np.concatenate(ind) if ind else np.zeros((0, r + 1), np.int64),
                np.concatenate([v for _, v, _ in parts]) if parts else
                np.zeros(0, object if dtype is dtypes.string else dtype.np),
                np.concatenate([[len(parts)], shape]).astype(np.int64))


def _serialize_sparse(sp_input, out_type, many: bool, name) -> Tensor:
    if not isinstance(sp_input, SparseTensor):
        raise TypeError(f"expected a SparseTensor, got {type(sp_input).__name__}")
    if dtypes.as_dtype(out_type) is not dtypes.string:
        raise NotImplementedError("serialize_sparse: only out_type=tw.string is supported "
                                  "(tw.variant has no meaning in twinflow)")
    return bind(SerializeSparse, [sp_input.indices, sp_input.values, sp_input.dense_shape],
                {"many": many}, name=name)


def serialize_sparse(sp_input, out_type=dtypes.string, name=None) -> Tensor:
    """A SparseTensor as a string vector of 3 serialized TensorProtos (TensorFlow's layout).

    Args:
        sp_input: the SparseTensor.
        out_type: tw.string.
        name: the op name.

    Returns:
        A string tensor of shape [3].
    """
    return _serialize_sparse(sp_input, out_type, False, name)


def serialize_many_sparse(sp_input, out_type=dtypes.string, name=None) -> Tensor:
    """A SparseTensor of rank >= 1 as one row of 3 serialized TensorProtos per minibatch entry.

    Args:
        sp_input: the SparseTensor (its first dimension is the minibatch).
        out_type: tw.string.
        name: the op name.

    Returns:
        A string tensor of shape [N, 3].
    """
    return _serialize_sparse(sp_input, out_type, True, name)


def deserialize_many_sparse(serialized_sparse, dtype, rank=None, name=None) -> SparseTensor:
    """The SparseTensor batching serialized minibatch entries (``serialize_many_sparse`` or
    ``serialize_sparse`` rows stacked).

    Args:
        serialized_sparse: a string tensor of shape [N, 3].
        dtype: the values' dtype.
        rank: the rank of the result (with the minibatch dimension), or None.
        name: the op name.

    Returns:
        A SparseTensor of dense shape [N] + the largest of the entries' shapes.
    """
    s = convert_to_tensor(serialized_sparse, dtype=dtypes.string)
    ind, vals, shape = bind(DeserializeManySparse, [s], {"dtype": dtypes.as_dtype(dtype),
                                                         "rank": None if rank is None
                                                         else int(rank)}, name=name)
    return SparseTensor(ind, vals, shape)
