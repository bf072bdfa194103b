"""Feature crosses: ``tw.sparse.cross`` and ``tw.ragged.cross``.

Row ``i`` of the result holds every combination (``itertools.product`` order) of the features
of row ``i`` of each input, joined by ``separator`` (TensorFlow's "_X_"). Inputs may be
rank-2 SparseTensors, RaggedTensors or dense tensors, of strings or integers (written in
decimal). One op, ``StringCross``, takes each input as (values, row_splits); the hashed
versions (``cross_hashed``) give TensorFlow's FarmHash-based bucket of each cross.
"""
from __future__ import annotations

import itertools

import numpy as np

from ...core import dtypes
from ...core.shapes import TensorShape
from ...graph.graph import name_scoped
from .. import array_ops as A
from .. import math_ops as M
from ..core import bind, constant_value, convert, register_op
from ..core import invalid_argument as _err
from ..sparse.tensor import SparseTensor
from .fingerprint import fingerprint64, fingerprint_cat64
from .ops import segment_ids_to_row_splits
from .tensor import RaggedTensor

_DEFAULT_SEP = "_X_"
_DEFAULT_HASH_KEY = 0xDECAFCAFFE  # TensorFlow's default hash_key
_U64 = (1 << 64) - 1
_I64MAX = (1 << 63) - 1


def _text(v) -> bytes:
    if isinstance(v, bytes):
        return v
    if isinstance(v, str):
        return v.encode()
    return str(int(v)).encode()


def _hash_of(v) -> int:
    if isinstance(v, (bytes, str)):
        return fingerprint64(_text(v))
    return int(v) & _U64  # an integer feature is its own hash (two's complement)


def _cross(parts: list, separator: bytes, hashing=None) -> tuple:
    feats = [(np.asarray(v).reshape(-1), np.asarray(s)) for v, s in parts]
    nrows = {len(s) - 1 for _, s in feats}
    if len(nrows) != 1:
        raise _err(f"cross: the inputs have different numbers of rows: {sorted(nrows)}")
    out, splits = [], [0]
    for i in range(nrows.pop()):
        if hashing is None:
            rows = [[_text(x) for x in v[s[i]:s[i + 1]]] for v, s in feats]
            out.extend(separator.join(c) for c in itertools.product(*rows))
        else:
            buckets, key = hashing
            rows = [[_hash_of(x) for x in v[s[i]:s[i + 1]]] for v, s in feats]
            for combo in itertools.product(*rows):
                h = key
                for f in combo:
                    h = fingerprint_cat64(h, f)
                out.append(h % buckets if buckets > 0 else h % _I64MAX)
        splits.append(len(out))
    if hashing is not None:
        return np.asarray(out, np.int64), np.asarray(splits, np.int64)
    vals = np.empty(len(out), dtype=object)
    vals[:] = out
    return vals, np.asarray(splits, np.int64)


@register_op("StringCross", multi_output=True)
class StringCross:
    """Row-wise feature crosses of inputs given as (values, row_splits) pairs, flattened:
    joined strings, or (``hashing=(num_buckets, hash_key)``) TensorFlow's int64 hashes."""

    def infer(*parts, separator, hashing):
        pairs = list(zip(parts[::2], parts[1::2]))
        for v, _ in pairs:
            if not (v.dtype.is_string or v.dtype.is_integer):
                raise _err(f"cross needs string or integer features, got {v.dtype.name}")
        known = [constant_value(t) for t in parts]
        n = None
        if all(k is not None for k in known):
            n = len(_cross(list(zip(known[::2], known[1::2])), separator, hashing)[0])
        rows = next((s.shape[0] for _, s in pairs if s.shape.rank == 1), None)
        dt = dtypes.string if hashing is None else dtypes.int64
        return [(dt, TensorShape([n])), (dtypes.int64, TensorShape([rows]))]

    def kernel(*parts, separator, hashing):
        return _cross(list(zip(parts[::2], parts[1::2])), separator, hashing)

    def grad(op, *dys):
        return (None,) * len(op.inputs)


def _parts(x) -> tuple:
    """(values, int64 row_splits) of one rank-2 input."""
    if isinstance(x, SparseTensor):
        if x.shape.rank not in (None, 2):
            raise ValueError(f"cross inputs must have rank 2, got a SparseTensor of rank "
                             f"{x.shape.rank}")
        return x.values, segment_ids_to_row_splits(x.indices[:, 0], x.dense_shape[0])
    if isinstance(x, RaggedTensor):
        if x.ragged_rank != 1 or x.flat_values.shape.rank != 1:
            raise ValueError("cross inputs must be rank-2 RaggedTensors")
        return x.flat_values, M.cast(x.row_splits, dtypes.int64)
    t = convert(x)
    if t.shape.rank != 2:
        raise ValueError(f"cross inputs must have rank 2, got shape {t.shape}")
    n, m = t.shape.as_list()
    if n is not None and m is not None:  # static: keeps the shapes known
        return A.reshape(t, [-1]), convert(np.arange(0, n * m + 1, max(m, 1))[:n + 1]
                                           if m else np.zeros(n + 1, np.int64),
                                           dtype=dtypes.int64)
    shp = A.shape(t, out_type=dtypes.int64)
    return A.reshape(t, [-1]), A.range(0, shp[0] * shp[1] + 1, shp[1], dtype=dtypes.int64)


def _run(inputs, separator, hashing=None) -> tuple:
    if not inputs:
        raise ValueError("cross needs at least one input")
    sep = _DEFAULT_SEP if separator is None else separator
    flat = [t for x in inputs for t in _parts(x)]
    return bind(StringCross, flat, {"separator": sep.encode() if isinstance(sep, str) else
                                    bytes(sep), "hashing": hashing})


def _hashing(num_buckets, hash_key) -> tuple:
    n = int(num_buckets)
    if n < 0:
        raise ValueError(f"num_buckets must be >= 0, got {n}")
    return n, _DEFAULT_HASH_KEY if hash_key is None else int(hash_key) & _U64


@name_scoped
def sparse_cross(inputs: list, name=None, separator=None) -> SparseTensor:
    """Row-wise crosses of features as a SparseTensor (``tw.sparse.cross``).

    Args:
        inputs: rank-2 SparseTensors, RaggedTensors or dense tensors (strings or ints).
        separator: what joins the crossed features (default "_X_").

    Returns:
        A ``[rows, max crosses]`` SparseTensor of strings.
    """
    vals, splits = _run(inputs, separator)
    rt = RaggedTensor.from_row_splits(vals, splits, validate=False)
    return rt.to_sparse()


@name_scoped
def ragged_cross(inputs: list, name=None) -> RaggedTensor:
    """Row-wise crosses of features as a RaggedTensor (``tw.ragged.cross``).

    Args:
        inputs: rank-2 RaggedTensors, SparseTensors or dense tensors (strings or ints).

    Returns:
        A ``[rows, (crosses)]`` RaggedTensor of strings joined by "_X_".
    """
    vals, splits = _run(inputs, None)
    return RaggedTensor.from_row_splits(vals, splits, validate=False)


@name_scoped
def sparse_cross_hashed(inputs: list, num_buckets: int = 0, hash_key=None,
                        name=None) -> SparseTensor:
    """Row-wise crosses as TensorFlow's int64 hashes (``tw.sparse.cross_hashed``).

    Args:
        inputs: rank-2 SparseTensors, RaggedTensors or dense tensors (strings or ints).
        num_buckets: the hashes are taken modulo this (0: the full int64 range).
        hash_key: the starting key (default TensorFlow's).

    Returns:
        A ``[rows, max crosses]`` int64 SparseTensor.
    """
    vals, splits = _run(inputs, None, _hashing(num_buckets, hash_key))
    return RaggedTensor.from_row_splits(vals, splits, validate=False).to_sparse()


@name_scoped
def ragged_cross_hashed(inputs: list, num_buckets: int = 0, hash_key=None,
                        name=None) -> RaggedTensor:
    """Row-wise crosses as TensorFlow's int64 hashes (``tw.ragged.cross_hashed``).

    Args:
        inputs, num_buckets, hash_key: as for ``sparse_cross_hashed``.

    Returns:
        A ``[rows, (crosses)]`` int64 RaggedTensor.
    """
    vals, splits = _run(inputs, None, _hashing(num_buckets, hash_key))
    return RaggedTensor.from_row_splits(vals, splits, validate=False)
