"""Indexing and slicing of RaggedTensors: ``rt[1]``, ``rt[1:3]``, ``rt[:, 0]``, ``rt[:, :2]``.

The first index picks rows (any Python slice, or an int); the second applies to every row (an
int takes that item of each row and fails if a row is too short; a slice with step 1 cuts every
row); later indices apply to the values.
"""
from __future__ import annotations

import numpy as np

from ...core.errors import InvalidArgumentError
from ...eager.tensor import EagerTensor
from ...graph.tensor import Tensor
from .. import array_ops as A
from .. import math_ops as M
from ..core import static_value
from .convert import gather_rows, segment_starts_range
from .tensor import _IMPL, RaggedTensor


def ragged_getitem(rt: RaggedTensor, key):
    """``rt[key]``.

    Args:
        rt: a RaggedTensor.
        key: an int, slice, tw.newaxis, Ellipsis or a tuple of them.

    Returns:
        A RaggedTensor or dense tensor.
    """
    key = key if isinstance(key, tuple) else (key,)
    key = _expand_ellipsis(rt, key)
    if not key:
        return rt
    if key[0] is None:  # tw.newaxis: a new outer dimension of size 1
        return _new_axis(ragged_getitem(rt, key[1:]), 0)
    k0, rest = key[0], key[1:]
    if isinstance(k0, slice):
        rows = A.range(rt.nrows())[k0]
        out = gather_rows(rt, rows)
        return _inner(out, rest) if rest else out
    i = _int(k0)
    n = rt.nrows()
    if isinstance(i, int) and isinstance(n, EagerTensor):
        nn = int(n.numpy())
        if not -nn <= i < nn:
            raise InvalidArgumentError(None, None, f"RaggedTensor index {i} is out of range "
                                                   f"for {nn} rows")
    ii = M.cast(i, rt.row_splits_dtype) if isinstance(i, Tensor) else i
    ii = M.where(M.less(ii, 0), ii + n, ii) if isinstance(ii, Tensor) else (
        ii + n if ii < 0 else ii)
    start = A.gather(rt.row_splits, ii)
    stop = A.gather(rt.row_splits, ii + 1)
    row = _range_rows(rt.values, start, stop)
    if not rest:
        return row
    return row[rest] if isinstance(row, RaggedTensor) else row[rest]


def _expand_ellipsis(rt: RaggedTensor, key: tuple) -> tuple:
    """Replaces an Ellipsis by the full slices it stands for."""
    dots = [i for i, k in enumerate(key) if k is Ellipsis]
    if not dots:
        return key
    if len(dots) > 1:
        raise ValueError(f"RaggedTensor indexing allows one Ellipsis, got {key!r}")
    i = dots[0]
    if i == len(key) - 1:  # trailing: the remaining dimensions are left as they are
        return key[:-1]
    if rt.shape.rank is None:
        raise ValueError("an Ellipsis before other indices needs a RaggedTensor of known rank")
    used = sum(1 for k in key if k is not None and k is not Ellipsis)
    return key[:i] + (slice(None),) * max(rt.shape.rank - used, 0) + key[i + 1:]


def _new_axis(x, axis: int):
    return A.expand_dims(x, axis)  # dispatches a RaggedTensor to the ragged expand_dims


def _int(k):
    if isinstance(k, (int, np.integer)):
        return int(k)
    if isinstance(k, Tensor) and k.dtype.is_integer and k.shape.rank == 0:
        return k
    raise TypeError(f"RaggedTensor indices must be ints, slices or scalar int tensors, got "
                    f"{k!r}")


def _range_rows(values, start, stop):
    """values[start:stop] for a dense or ragged ``values``."""
    idx = A.range(start, stop, dtype=start.dtype)
    return gather_rows(values, idx)


def _inner(rt: RaggedTensor, rest: tuple):
    """Applies ``rest`` (indices for dimensions 1...) to every row of ``rt``."""
    k1, more = rest[0], rest[1:]
    if k1 is None:  # tw.newaxis: every row becomes one row of size 1
        return _new_axis(_inner(rt, more) if more else rt, 1)
    lengths = rt.row_lengths()
    if isinstance(k1, slice):
        if k1.step not in (None, 1):
            raise ValueError("RaggedTensor slicing of a ragged dimension supports step 1 only")
        a = _bound(k1.start, lengths, 0)
        b = _bound(k1.stop, lengths, None)
        new_len = M.maximum(b - a, 0)
        pos = segment_starts_range(rt.row_starts() + a, new_len)
        vals = gather_rows(rt.values, pos)
        out = RaggedTensor.from_row_lengths(vals, new_len, validate=False)
        if more:
            return out.with_values(_apply_values(out.values, more))
        return out
    i = static_value(_int(k1), "RaggedTensor index")
    i = int(i)
    if isinstance(lengths, EagerTensor):
        ln = lengths.numpy()
        bad = ln <= i if i >= 0 else ln < -i
        if bad.any():
            raise InvalidArgumentError(None, None, f"RaggedTensor index {i} is out of range "
                                                   f"for rows of lengths {ln.tolist()}")
    pos = rt.row_starts() + i if i >= 0 else rt.row_limits() + i
    vals = gather_rows(rt.values, pos)
    if more:
        return _apply_values(vals, more)
    return vals


def _apply_values(values, more: tuple):
    if isinstance(values, RaggedTensor):
        return _inner(values, more)
    return values[(slice(None),) + tuple(more)]


def _bound(v, lengths, default):
    """A slice bound per row, clipped to ``[0, length]`` (negative counts from the end)."""
    if v is None:
        return M.zeros_like(lengths) if default == 0 else lengths
    v = int(static_value(v, "RaggedTensor slice bound"))
    b = lengths + v if v < 0 else M.minimum(lengths, v)
    return M.maximum(b, 0)


_IMPL["getitem"] = ragged_getitem
