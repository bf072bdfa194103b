"""Sorting and set-like ops: sort, argsort, top_k, unique, meshgrid, repeat."""
from __future__ import annotations

from collections import namedtuple

import numpy as np

from ...core import dtypes
from ...core.shapes import TensorShape
from ...eager.execute import bind, constant_value
from ...graph.registry import register_op
from ...graph.tensor import DTypeLike, Tensor, TensorLike
from ..core import _fmt, convert, shape_from_tensor
from ..core import invalid_argument as _err
from ..math.cast import cast
from .gather import GatherGrad
from .layout import stack, transpose
from .shape import _int_input, _norm_axis, _static_int, broadcast_to, reshape, shape, size


def _argsort_last(x, descending: bool):
    if not descending:
        return np.argsort(x, axis=-1, kind="stable")
    # Stable descending: sort the reversed array ascending, map back, reverse again.
    n = x.shape[-1]
    i = np.argsort(np.flip(x, -1), axis=-1, kind="stable")
    return np.flip(n - 1 - i, -1)


def _sort_grad(op, dv, di):
    if dv is None:
        return None if len(op.inputs) == 1 else (None, None)
    x = op.inputs[0]
    g = bind(GatherGrad, [shape(x), op.outputs[1], dv], {"axis": -1, "batch_dims": -1})
    return g if len(op.inputs) == 1 else (g, None)


@register_op("Sort", multi_output=True)
class Sort:
    """Sorts along the last axis (stable); outputs the values and their int32 indices."""

    def infer(x, *, descending=False):
        if x.shape.rank == 0:
            raise _err("sort needs a tensor of rank >= 1, got a scalar")
        return [(x.dtype, x.shape), (dtypes.int32, x.shape)]

    def kernel(x, *, descending=False):
        i = _argsort_last(x, descending)
        return np.take_along_axis(x, i, axis=-1), i.astype(np.int32)

    grad = _sort_grad


@register_op("TopKV2", multi_output=True)
class TopKV2:
    """The ``k`` largest entries along the last axis (ties: lower index first) and indices."""

    def infer(x, k, *, sorted=True):
        kv = constant_value(k)
        kv = None if kv is None else int(kv)
        if x.shape.rank is None:
            return [(x.dtype, TensorShape(None)), (dtypes.int32, TensorShape(None))]
        if x.shape.rank == 0:
            raise _err("input must be at least 1-dimensional")
        dims = x.shape.as_list()
        if kv is not None:
            if kv < 0:
                raise _err(f"Need k >= 0, got {kv}")
            if dims[-1] is not None and dims[-1] < kv:
                raise _err(f"input must have at least k columns. Had {dims[-1]}, needed {kv}")
        out = TensorShape(dims[:-1] + [kv])
        return [(x.dtype, out), (dtypes.int32, out)]

    def kernel(x, k, *, sorted=True):
        k = int(k)
        if x.ndim == 0 or k < 0 or x.shape[-1] < k:
            raise _err(f"input must have at least k columns. Had "
                       f"{x.shape[-1] if x.ndim else 0}, needed {k}")
        i = _argsort_last(x, True)[..., :k]
        return np.take_along_axis(x, i, axis=-1), i.astype(np.int32)

    grad = _sort_grad


def _along_last(x, axis: int, fn):
    """Applies ``fn`` (working on the last axis) along ``axis`` by transposing around it."""
    r = x.shape.rank
    if r is None:
        if axis != -1:
            raise _err("sort: an axis other than -1 needs a tensor of known rank")
        return fn(x)
    axis = _norm_axis(axis, r, "sort")
    if axis == r - 1:
        return fn(x)
    perm = list(range(r))
    perm[axis], perm[-1] = perm[-1], perm[axis]
    return transpose(fn(transpose(x, perm)), perm)


def sort(values: TensorLike, axis: int = -1, direction="ASCENDING",
         name: str | None = None) -> Tensor:
    """Sorts ``values`` along ``axis`` (``tw.sort``; stable).

    Args:
        values: a tensor.
        axis: the dimension to sort.
        direction: "ASCENDING" or "DESCENDING".
        name: op name.

    Returns:
        The sorted tensor.
    """
    desc = _direction(direction)
    x = convert(values)
    return _along_last(x, _static_int(axis, "sort: axis"),
                       lambda t: bind(Sort, [t], {"descending": desc}, name=name)[0])


def argsort(values: TensorLike, axis: int = -1, direction="ASCENDING", stable: bool = False,
            name: str | None = None) -> Tensor:
    """The indices that sort ``values`` along ``axis`` (``tw.argsort``; always stable).

    Args:
        values: a tensor.
        axis: the dimension to sort.
        direction: "ASCENDING" or "DESCENDING".
        stable: accepted for compatibility; the sort is always stable.
        name: op name.

    Returns:
        An int32 tensor of indices.
    """
    desc = _direction(direction)
    x = convert(values)
    return _along_last(x, _static_int(axis, "argsort: axis"),
                       lambda t: bind(Sort, [t], {"descending": desc}, name=name)[1])


def _direction(direction: str) -> bool:
    if direction not in ("ASCENDING", "DESCENDING"):
        raise ValueError(f'direction must be "ASCENDING" or "DESCENDING", got {direction!r}')
    return direction == "DESCENDING"


def top_k(input: TensorLike, k=1, sorted: bool = True, index_type: DTypeLike = dtypes.int32,
          name: str | None = None) -> tuple:
    """The ``k`` largest entries along the last axis (``tw.math.top_k``).

    Args:
        input: a tensor of rank >= 1.
        k: how many entries.
        sorted: the entries are always returned in descending order.
        index_type: the indices' dtype: int16, int32 or int64.
        name: op name.

    Returns:
        (values, indices): values of ``input``'s dtype and ``index_type`` indices.
    """
    index_type = dtypes.as_dtype(index_type)
    if index_type not in (dtypes.int16, dtypes.int32, dtypes.int64):
        raise TypeError(f"top_k: index_type must be int16, int32 or int64, got "
                        f"{index_type.name}")
    vals, idx = bind(TopKV2, [convert(input), _int_input(k, "k")], {"sorted": bool(sorted)},
                     name=name)
    return _TopKOutput(vals, idx if index_type == dtypes.int32 else cast(idx, index_type))


# As TensorFlow, top_k and unique return named tuples: tw.math.top_k(x, 2).values
_TopKOutput = namedtuple("TopKV2", ["values", "indices"])
_UniqueOutput = namedtuple("Unique", ["y", "idx"])


# ----- unique, meshgrid -----------------------------------------------------------------------

@register_op("Unique", multi_output=True)
class Unique:
    """The distinct values of a 1-D tensor in order of first appearance, and for each element
    the index of its value among them."""

    def infer(x, *, out_idx=dtypes.int32):
        if x.shape.rank not in (None, 1):
            raise _err(f"unique expects a 1D vector, got shape {_fmt(x.shape)}")
        return [(x.dtype, TensorShape([None])), (out_idx, x.shape.with_rank(1))]

    def kernel(x, *, out_idx=dtypes.int32):
        if x.ndim != 1:
            raise _err(f"unique expects a 1D vector, got shape {list(x.shape)}")
        # equal_nan=False: every NaN is a value of its own, as in TensorFlow
        _, first, inv = np.unique(x, return_index=True, return_inverse=True, equal_nan=False)
        order = np.argsort(first, kind="stable")
        rank_of = np.empty_like(order)
        rank_of[order] = np.arange(len(order))
        return x[np.sort(first)], rank_of[inv.reshape(-1)].astype(out_idx.np)

    def grad(op, *dys):
        return None


def unique(x: TensorLike, out_idx: DTypeLike = dtypes.int32, name: str | None = None) -> tuple:
    """The distinct values of 1-D ``x`` in order of first appearance (``tw.unique``).

    Args:
        x: a 1-D tensor.
        out_idx: the index dtype (int32 or int64).
        name: op name.

    Returns:
        (y, idx) with ``x == gather(y, idx)``.
    """
    y, idx = bind(Unique, [convert(x)], {"out_idx": dtypes.as_dtype(out_idx)}, name=name)
    return _UniqueOutput(y, idx)


def meshgrid(*args, **kwargs) -> list:
    """N-D coordinate grids from 1-D coordinate vectors (``tw.meshgrid``).

    Args:
        *args: 1-D tensors.
        **kwargs: ``indexing`` ("xy", the default, or "ij") and ``name``.

    Returns:
        A list of N-D tensors, one per input.
    """
    indexing = kwargs.pop("indexing", "xy")
    kwargs.pop("name", None)
    if kwargs:
        raise TypeError(f"meshgrid: unexpected arguments {sorted(kwargs)}")
    if indexing not in ("xy", "ij"):
        raise ValueError(f"meshgrid: indexing must be 'xy' or 'ij', got {indexing!r}")
    xs = [reshape(convert(a), [-1]) for a in args]
    n = len(xs)
    if n == 0:
        return []
    sizes = [size(x) for x in xs]
    if indexing == "xy" and n > 1:
        sizes[0], sizes[1] = sizes[1], sizes[0]
    full = stack(sizes)
    out = []
    for i, x in enumerate(xs):
        pos = i
        if indexing == "xy" and n > 1 and i < 2:
            pos = 1 - i
        dims = [1] * n
        dims[pos] = -1
        out.append(broadcast_to(reshape(x, dims), full))
    return out


@register_op("Repeat")
class Repeat:
    """Repeats each element of ``x`` along ``axis`` ``repeats`` times (flattening if axis is
    None)."""

    def infer(x, repeats, *, axis=None):
        r = constant_value(repeats)
        if x.shape.rank is None:
            return x.dtype, TensorShape(None if axis is not None else [None])
        dims = x.shape.as_list() if axis is not None else [x.shape.num_elements()]
        ax = 0 if axis is None else _norm_axis(axis, len(dims), "repeat")
        d = dims[ax]
        if r is None or d is None:
            dims[ax] = None
        else:
            r = np.asarray(r).reshape(-1)
            if r.size not in (1, d):
                raise _err(f"repeat: repeats of length {r.size} for a dimension of size {d}")
            dims[ax] = int(r.sum() * (d if r.size == 1 else 1))
        return x.dtype, TensorShape(dims)

    def kernel(x, repeats, *, axis=None):
        return np.repeat(x, np.asarray(repeats).reshape(-1) if np.ndim(repeats) else
                         int(repeats), axis=axis)

    def grad(op, dy):
        x, repeats = op.inputs
        return bind(RepeatGrad, [dy, repeats, shape(x)], op.attrs), None


@register_op("RepeatGrad")
class RepeatGrad:
    """Sums each run of repeated elements of ``dy`` (gradient of Repeat)."""

    def infer(dy, repeats, shape_, *, axis=None):
        return dy.dtype, shape_from_tensor(shape_)

    def kernel(dy, repeats, shape_, *, axis=None):
        shp = tuple(int(d) for d in shape_)
        ax = 0 if axis is None else axis % len(shp)
        n = int(np.prod(shp)) if axis is None else shp[ax]
        reps = np.broadcast_to(np.asarray(repeats).reshape(-1), (n,))
        owner = np.repeat(np.arange(n), reps)
        d = np.moveaxis(dy, ax, 0)
        out = np.zeros((n,) + d.shape[1:], dtype=dy.dtype)
        np.add.at(out, owner, d)
        out = np.moveaxis(out, 0, ax)
        return out.reshape(shp)

    def grad(op, ddx):
        return bind(Repeat, [ddx, op.inputs[1]], op.attrs), None, None


def repeat(input: TensorLike, repeats, axis: TensorLike | None = None,
           name: str | None = None) -> Tensor:
    """Repeats elements of ``input`` (``tw.repeat``, like ``np.repeat``).

    Args:
        input: a tensor.
        repeats: an int or 1-D int tensor (one count per element along ``axis``).
        axis: the dimension; None flattens the input first.
        name: op name.

    Returns:
        The repeated tensor.
    """
    x = convert(input)
    ax = None if axis is None else _static_int(axis, "repeat: axis")
    return bind(Repeat, [x, _int_input(repeats, "repeats")], {"axis": ax}, name=name)


