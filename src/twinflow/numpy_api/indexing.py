"""NumPy's indexing of tensors (``x[[0, 2]]``, ``x[:, idx]``, ``x[x > 0]``), which
``experimental_enable_numpy_behavior`` gives ``Tensor.__getitem__``.

Basic indices (ints, slices, ``...``, None) go to the StridedSlice of TensorFlow's indexing;
integer arrays and boolean masks are *advanced* indices, as NumPy defines them: they broadcast
together, and the dimensions they produce replace the indexed axes where the advanced indices
are adjacent, or come first otherwise. A boolean mask stands for its ``nonzero()`` indices.
"""
from __future__ import annotations

import numpy as np

from ..core import dtypes
from ..graph.tensor import Tensor
from ..ops import array_ops as A
from ..ops import math_ops as M
from .config import tensor


def _is_advanced(k) -> bool:
    if isinstance(k, Tensor):
        return k.shape.rank != 0 or k.dtype.is_bool
    if isinstance(k, np.ndarray):
        return k.ndim != 0 or k.dtype == np.bool_
    return isinstance(k, list)


def getitem(x: Tensor, key, basic) -> Tensor:
    """``x[key]`` with NumPy's advanced indexing.

    Args:
        x: the tensor.
        key: the index.
        basic: the basic-indexing function (``tensor[key]`` without advanced indices).

    Returns:
        The indexed tensor.
    """
    key = key if isinstance(key, tuple) else (key,)
    if not any(_is_advanced(k) for k in key):
        return basic(x, key if len(key) != 1 else key[0])
    key = _expand(x, key)
    # Basic pass: advanced entries (and ints among them, which NumPy treats as advanced)
    # keep their axis (slice(None)); remember where those axes land in the result.
    basic_key, adv, pos = [], [], []
    out_axis = 0
    for k in key:
        if k is None:
            basic_key.append(None)
            out_axis += 1
        elif isinstance(k, slice):
            basic_key.append(k)
            out_axis += 1
        else:
            basic_key.append(slice(None))
            adv.append(k)
            pos.append(out_axis)
            out_axis += 1
    y = basic(x, tuple(basic_key))
    idx = [_as_index(k, y, p) for k, p in zip(adv, pos)]
    idx = _broadcast(idx)
    rank = y.shape.rank
    rest = [a for a in range(rank) if a not in pos]
    moved = A.transpose(y, pos + rest)
    out = A.gather_nd(moved, A.stack(idx, axis=-1))
    adjacent = pos == list(range(pos[0], pos[0] + len(pos)))
    if adjacent and pos[0] != 0:
        nb = len(idx[0].shape)
        order = list(range(nb, nb + pos[0])) + list(range(nb)) + \
            list(range(nb + pos[0], out.shape.rank))
        out = A.transpose(out, order)
    return out


def _expand(x: Tensor, key: tuple) -> tuple:
    """Booleans masks split into their nonzero index arrays, ``...`` expanded to slices."""
    out = []
    for k in key:
        if isinstance(k, list):
            k = np.asarray(k)
        if (isinstance(k, np.ndarray) and k.dtype == np.bool_) or \
                (isinstance(k, Tensor) and k.dtype.is_bool):
            nz = M.where(tensor(k))
            out.extend(A.unstack(nz, num=len(k.shape), axis=1))
        else:
            out.append(k)
    used = sum(1 for k in out if k is not None and k is not Ellipsis)
    rank = x.shape.rank
    if rank is None:
        raise ValueError("NumPy-style indexing needs a tensor of known rank")
    if Ellipsis in [k for k in out if not isinstance(k, (Tensor, np.ndarray))]:
        i = next(j for j, k in enumerate(out)
                 if not isinstance(k, (Tensor, np.ndarray)) and k is Ellipsis)
        out[i:i + 1] = [slice(None)] * (rank - used)
    else:
        out += [slice(None)] * (rank - used)
    return tuple(out)


def _as_index(k, y: Tensor, axis: int) -> Tensor:
    t = tensor(k)
    if not t.dtype.is_integer:
        raise IndexError(f"arrays used as indices must be of integer or boolean type, got "
                         f"{t.dtype.name}")
    t = M.cast(t, dtypes.int64)
    n = M.cast(A.shape(y)[axis], dtypes.int64)
    return M.where(M.less(t, 0), t + n, t)


def _broadcast(idx: list) -> list:
    shape = A.shape(idx[0])
    for t in idx[1:]:
        shape = A.broadcast_dynamic_shape(shape, A.shape(t))
    return [A.broadcast_to(t, shape) for t in idx]
