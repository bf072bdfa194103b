"""The ops behind the preprocessing layers: bucketizing, string hashing (TensorFlow's FarmHash
``Fingerprint64`` and SipHash-2-4, so bucket numbers match TensorFlow's), static table lookups
and category encoding. None of them has a gradient: they map data to indices."""
from __future__ import annotations

import numpy as np

from ....core import dtypes
from ....core.errors import InvalidArgumentError
from ....core.shapes import TensorShape
from ....eager.execute import bind
from ....graph.registry import register_op
from ....graph.tensor import Tensor
from ....ops.math.comparison import Bucketize, bucketize  # noqa: F401 (a TF raw op)
from ....ops.string_hash import StringToHashBucketFast, StringToHashBucketStrong


def _no_grad(op, *dys):
    return (None,) * len(op.inputs) if len(op.inputs) > 1 else None


def _bytes(v) -> bytes:
    return v.encode() if isinstance(v, str) else bytes(v)


def hash_bucket(x: Tensor, num_buckets: int, key=None) -> Tensor:
    """The hash bucket of each string of ``x``: FarmHash without ``key``, SipHash with it.

    Args:
        x: a string tensor.
        num_buckets: the number of buckets (at least 1).
        key: None, or two ints (the SipHash key).

    Returns:
        An int64 tensor of ``x``'s shape.
    """
    if num_buckets < 1:
        raise ValueError(f"num_buckets must be at least 1, got {num_buckets}")
    if key is None:
        return bind(StringToHashBucketFast, [x], {"num_buckets": int(num_buckets)})
    return bind(StringToHashBucketStrong, [x],
                {"num_buckets": int(num_buckets), "key": (int(key[0]), int(key[1]))})


class Table:
    """An immutable key→value map, an op attribute compared by identity (one per vocabulary).

    Args:
        keys: the keys (bytes or ints).
        values: the values.
    """

    def __init__(self, keys, values) -> None:
        self.keys = list(keys)
        self.values = list(values)
        self.map = dict(zip(self.keys, self.values))

    def __repr__(self) -> str:
        return f"Table({len(self.keys)} keys)"


@register_op("StaticTableLookup")
class StaticTableLookup:
    """Looks each element of ``x`` up in ``table``; ``default`` where it is missing (an
    InvalidArgumentError when ``default`` is None)."""

    def infer(x, *, table, default, out_dtype):
        return out_dtype, x.shape

    def kernel(x, *, table, default, out_dtype):
        x = np.asarray(x)
        get = table.map.get
        if x.dtype.kind in "OUS":
            keys = [_bytes(v) for v in x.reshape(-1)]
        else:
            keys = [int(v) for v in x.reshape(-1)]
        flat = [get(k, default) for k in keys]
        if default is None and None in flat:
            missing = sorted({k for k, v in zip(keys, flat) if v is None})[:10]
            raise InvalidArgumentError(
                None, None, f"When `num_oov_indices=0` all inputs should be in vocabulary, "
                f"found OOV values {missing}, consider setting `num_oov_indices=1`.")
        return np.array(flat, dtype=out_dtype.np).reshape(x.shape)

    grad = _no_grad


def table_lookup(x: Tensor, table: Table, default, out_dtype) -> Tensor:
    """``table[v]`` (``default`` when missing) for each element of ``x``.

    Args:
        x: a string or integer tensor.
        table: the Table.
        default: the value of missing keys (None: missing keys are an error).
        out_dtype: the output dtype.

    Returns:
        A tensor of ``x``'s shape.
    """
    return bind(StaticTableLookup, [x],
                {"table": table, "default": default, "out_dtype": dtypes.as_dtype(out_dtype)})


@register_op("CategoryEncode")
class CategoryEncode:
    """Keras' categorical encoding of integer indices in ``[0, depth)``: ``one_hot`` adds a
    ``depth`` axis (replacing a trailing axis of 1), ``multi_hot``/``count`` reduce the last
    axis to ``depth`` presence flags or counts."""

    def infer(x, *, depth, mode, out_dtype):
        if not x.dtype.is_integer:
            raise TypeError(f"CategoryEncoding needs integer inputs, got {x.dtype.name}")
        dims = x.shape.dims
        if dims is None:
            return out_dtype, TensorShape(None)
        if mode == "one_hot":
            if len(dims) > 1 and dims[-1] is None:  # a trailing 1 would be dropped
                return out_dtype, TensorShape(None)
            dims = dims[:-1] if len(dims) > 1 and dims[-1] == 1 else dims
            return out_dtype, TensorShape(list(dims) + [depth])
        if not dims:
            return out_dtype, TensorShape([depth])
        return out_dtype, TensorShape(list(dims[:-1]) + [depth])

    def kernel(x, *, depth, mode, out_dtype):
        x = np.asarray(x).astype(np.int64)
        if x.size and (x.min() < 0 or x.max() >= depth):
            raise InvalidArgumentError(
                None, None, f"CategoryEncoding: input values must be in the range "
                f"0 <= values < num_tokens with num_tokens={depth}; got values from "
                f"{x.min()} to {x.max()}")
        if mode == "one_hot":
            if x.ndim > 1 and x.shape[-1] == 1:
                x = x[..., 0]
            return np.eye(depth, dtype=out_dtype.np)[x]
        rows = x.reshape(-1, x.shape[-1] if x.ndim else 1)
        out = np.zeros((rows.shape[0], depth), np.float64)
        for i, r in enumerate(rows):
            np.add.at(out[i], r, 1)
        if mode == "multi_hot":
            out = np.minimum(out, 1)
        shape = x.shape[:-1] + (depth,) if x.ndim else (depth,)
        return out.reshape(shape).astype(out_dtype.np)

    grad = _no_grad


def category_encode(x: Tensor, depth: int, mode: str, out_dtype) -> Tensor:
    """Keras' ``encode_categorical_inputs`` (dense).

    Args:
        x: integer indices.
        depth: the number of categories.
        mode: "one_hot", "multi_hot" or "count".
        out_dtype: the output dtype.

    Returns:
        The encoded tensor.
    """
    return bind(CategoryEncode, [x], {"depth": int(depth), "mode": mode,
                                      "out_dtype": dtypes.as_dtype(out_dtype)})
