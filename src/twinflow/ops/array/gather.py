"""Gather and scatter: gather, gather_nd, scatter_nd, tensor_scatter_nd_*, boolean_mask."""
from __future__ import annotations

import numpy as np

from ...core import dtypes
from ...core.shapes import TensorShape
from ...eager.execute import bind, constant_value
from ...graph.registry import register_op
from ...graph.tensor import ShapeLike, Tensor, TensorLike
from ..core import ZerosLike, _fmt, convert, shape_from_tensor
from ..core import invalid_argument as _err
from ..dispatch import CompositeArgument, dispatch
from ..indexed_slices import IndexedSlices
from .join import concat
from .shape import _int_input, _norm_axis, _static_int, reshape, shape


def _check_indices(indices, n: int) -> None:
    if indices.size and (indices.min() < 0 or indices.max() >= n):
        flat = indices.reshape(-1)
        j = int(np.argmax((flat < 0) | (flat >= n)))
        pos = np.unravel_index(j, indices.shape)
        where = ",".join(str(int(p)) for p in pos)
        raise _err(f"indices[{where}] = {int(flat[j])} is not in [0, {n})")


def _gather_layout(params_shape: tuple, indices_shape: tuple, axis: int, batch_dims: int):
    """Normalized (axis, batch_dims, B, number of index dims, dims between batch and axis)."""
    axis %= len(params_shape)
    b = batch_dims + len(indices_shape) if batch_dims < 0 else batch_dims
    big_b = int(np.prod(params_shape[:b], dtype=np.int64))
    return axis, b, big_b, len(indices_shape) - b, axis - b


def _gather_kernel(params, indices, axis, batch_dims):
    axis, b, big_b, ni, n1 = _gather_layout(params.shape, indices.shape, axis, batch_dims)
    _check_indices(indices, params.shape[axis])
    if b == 0:
        return np.take(params, indices, axis=axis)
    p = np.moveaxis(params.reshape((big_b,) + params.shape[b:]), axis - b + 1, 1)
    ind = indices.reshape((big_b,) + indices.shape[b:])
    bidx = np.arange(big_b).reshape((big_b,) + (1,) * ni)
    out = p[bidx, ind]  # [B, I..., P1..., P2...]
    perm = ([0] + list(range(1 + ni, 1 + ni + n1)) + list(range(1, 1 + ni))
            + list(range(1 + ni + n1, out.ndim)))
    out = out.transpose(perm)
    return out.reshape(params.shape[:b] + out.shape[1:])


def _gather_infer(params, indices, *, axis, batch_dims):
    pr, ir = params.shape.rank, indices.shape.rank
    if pr is None or ir is None:
        return params.dtype, TensorShape(None)
    b = batch_dims + ir if batch_dims < 0 else batch_dims
    if not 0 <= b <= ir:
        raise _err(f"Expected batch_dims in the range [{-ir}, {ir}], but got {batch_dims}")
    if not -pr <= axis < pr:
        raise _err(f"Expected axis in the range [{-pr}, {pr}), but got {axis}")
    ax = axis % pr
    if b > ax:
        raise _err(f"batch_dims ({b}) must be less than or equal to axis ({ax})")
    pd, idd = params.shape.as_list(), indices.shape.as_list()
    for j in range(b):
        if pd[j] is not None and idd[j] is not None and pd[j] != idd[j]:
            raise _err(f"params.shape[{j}]: {pd[j]} should be equal to indices.shape[{j}]: "
                       f"{idd[j]} (batch_dims = {b})")
    return params.dtype, TensorShape(pd[:ax] + idd[b:] + pd[ax + 1:])


@register_op("GatherV2")
class GatherV2:
    """Slices of ``params`` along ``axis`` at ``indices`` (with ``batch_dims`` leading batch
    dimensions shared by params and indices)."""

    infer = _gather_infer
    kernel = _gather_kernel

    def grad(op, dy):
        params, indices = op.inputs
        if op.attrs["axis"] == 0 and op.attrs["batch_dims"] == 0:
            # As TensorFlow: the gathered rows' gradients, sparse (tw.IndexedSlices).
            pshape = shape(params)
            values = reshape(dy, concat([[-1], pshape[1:]], 0))
            return IndexedSlices(values, reshape(indices, [-1]), pshape), None
        return bind(GatherGrad, [shape(params), indices, dy], op.attrs), None


@register_op("GatherGrad")
class GatherGrad:
    """Scatter-adds ``dy`` into zeros of ``params_shape`` (gradient of GatherV2)."""

    def infer(params_shape, indices, dy, *, axis, batch_dims):
        return dy.dtype, shape_from_tensor(params_shape)

    def kernel(params_shape, indices, dy, *, axis, batch_dims):
        pshape = tuple(int(d) for d in params_shape)
        axis, b, big_b, ni, n1 = _gather_layout(pshape, indices.shape, axis, batch_dims)
        out = np.zeros((big_b,) + pshape[b:], dtype=dy.dtype)
        om = np.moveaxis(out, axis - b + 1, 1)
        d = np.reshape(dy, (big_b,) + np.shape(dy)[b:])  # [B, P1..., I..., P2...]
        perm = ([0] + list(range(1 + n1, 1 + n1 + ni)) + list(range(1, 1 + n1))
                + list(range(1 + n1 + ni, d.ndim)))
        ind = indices.reshape((big_b,) + indices.shape[b:])
        bidx = np.arange(big_b).reshape((big_b,) + (1,) * ni)
        np.add.at(om, (bidx, ind), d.transpose(perm))
        return out.reshape(pshape)

    def grad(op, ddx):
        _, indices, _ = op.inputs
        return None, None, bind(GatherV2, [ddx, indices], op.attrs)


def gather(params: TensorLike, indices: TensorLike, validate_indices=None,
           axis: TensorLike | None = None, batch_dims=0, name: str | None = None) -> Tensor:
    """Gathers slices of ``params`` along ``axis`` (``tw.gather``).

    Args:
        params: a tensor.
        indices: an int tensor of indices into ``params``'s dimension ``axis``; out-of-range
            indices raise InvalidArgumentError.
        validate_indices: a hint that changes nothing: deprecated, and TensorFlow ignores it
            too (indices are always checked).
        axis: the dimension to gather from (default ``batch_dims``).
        batch_dims: the number of leading dimensions shared by params and indices.
        name: op name.

    Returns:
        ``params.shape[:axis] + indices.shape[batch_dims:] + params.shape[axis + 1:]``.
    """
    try:
        p = convert(params)
        ind = _int_input(indices, "indices")
    except CompositeArgument as e:  # ragged params or indices
        return dispatch("gather", e, (params, indices), {"axis": axis or 0,
                                                          "batch_dims": batch_dims})
    batch_dims = _static_int(batch_dims, "gather: batch_dims")
    axis = batch_dims if axis is None else _static_int(axis, "gather: axis")
    if axis < 0 and p.shape.rank is not None:
        axis = _norm_axis(axis, p.shape.rank, "GatherV2")
    if batch_dims < 0 and ind.shape.rank is not None:
        batch_dims += ind.shape.rank
    return bind(GatherV2, [p, ind], {"axis": axis, "batch_dims": batch_dims}, name=name)


def _nd_index(shape_: tuple, indices, batch_dims: int):
    """(flattened view shape, index tuple) addressing ``indices`` into an array of ``shape_``."""
    b = batch_dims
    big_b = int(np.prod(shape_[:b], dtype=np.int64))
    m = indices.shape[-1]
    ind = indices.reshape((big_b, int(np.prod(indices.shape[b:-1], dtype=np.int64)), m))
    for k in range(m):
        n = shape_[b + k]
        col = ind[..., k]
        if col.size and (col.min() < 0 or col.max() >= n):
            j = int(np.argmax(((col < 0) | (col >= n)).reshape(-1)))
            bad = ind.reshape(-1, m)[j].tolist()
            raise _err(f"indices{list(np.unravel_index(j, indices.shape[:-1]))} = {bad} does "
                       f"not index into param shape {list(shape_)}")
    bidx = np.arange(big_b).reshape(big_b, 1)
    view = (big_b,) + tuple(shape_[b:])
    return view, (bidx,) + tuple(ind[..., k] for k in range(m))


def _gather_nd_shape(params, indices, batch_dims):
    pr, ir = params.shape.rank, indices.shape.rank
    if pr is None or ir is None or indices.shape[-1] is None:
        return TensorShape(None)
    m = indices.shape[-1]
    if m + batch_dims > pr:
        raise _err(f"index innermost dimension length must be <= params rank; saw: {m} vs. "
                   f"{pr - batch_dims} (params shape {_fmt(params.shape)}, indices shape "
                   f"{_fmt(indices.shape)})")
    return TensorShape(indices.shape.as_list()[:-1] + params.shape.as_list()[batch_dims + m:])


@register_op("GatherNd")
class GatherNd:
    """``params[indices[..., :]]``: the last axis of ``indices`` indexes params' leading dims."""

    def infer(params, indices, *, batch_dims=0):
        if indices.shape.rank == 0:  # as TensorFlow
            raise _err(f"indices must be at least a vector, got shape {indices.shape}")
        return params.dtype, _gather_nd_shape(params, indices, batch_dims)

    def kernel(params, indices, *, batch_dims=0):
        if indices.ndim == 0:
            raise ValueError("indices must be at least a vector")  # (infer explains)
        view, idx = _nd_index(params.shape, indices, batch_dims)
        out = params.reshape(view)[idx]
        return out.reshape(indices.shape[:-1] + params.shape[batch_dims + indices.shape[-1]:])

    def grad(op, dy):
        params, indices = op.inputs
        return bind(ScatterNd, [indices, dy, shape(params, out_type=indices.dtype)],
                    op.attrs), None


@register_op("ScatterNd")
class ScatterNd:
    """Zeros of ``shape`` with ``updates`` added at ``indices`` (duplicates sum)."""

    def infer(indices, updates, shape_, *, batch_dims=0):
        return updates.dtype, shape_from_tensor(shape_)

    def kernel(indices, updates, shape_, *, batch_dims=0):
        shp = tuple(int(d) for d in shape_)
        view, idx = _nd_index(shp, indices, batch_dims)
        out = np.zeros(view, dtype=updates.dtype)
        n = int(np.prod(indices.shape[batch_dims:-1], dtype=np.int64))
        np.add.at(out, idx, np.reshape(updates, (view[0], n) + view[1 + indices.shape[-1]:]))
        return out.reshape(shp)

    def grad(op, dy):
        indices = op.inputs[0]
        return None, bind(GatherNd, [dy, indices], op.attrs), None


def gather_nd(params: TensorLike, indices: TensorLike, batch_dims=0,
              name: str | None = None) -> Tensor:
    """Gathers slices of ``params`` addressed by the last axis of ``indices`` (``tw.gather_nd``).

    Args:
        params: a tensor.
        indices: an int tensor whose last dimension indexes ``params``'s leading dimensions.
        batch_dims: the number of leading batch dimensions shared by params and indices.
        name: op name.

    Returns:
        ``indices.shape[:-1] + params.shape[batch_dims + indices.shape[-1]:]``.
    """
    return bind(GatherNd, [convert(params), _int_input(indices, "indices")],
                {"batch_dims": _static_int(batch_dims, "gather_nd: batch_dims")}, name=name)


def scatter_nd(indices: TensorLike, updates: TensorLike, shape: ShapeLike,
               name: str | None = None) -> Tensor:
    """Scatters ``updates`` into zeros of ``shape`` at ``indices``, summing duplicates.

    Args:
        indices: an int tensor ``[..., M]`` of indices into the first M dimensions.
        updates: values, ``indices.shape[:-1] + shape[M:]``.
        shape: the output shape.
        name: op name.

    Returns:
        The scattered tensor.
    """
    ind = _int_input(indices, "indices")
    return bind(ScatterNd, [ind, convert(updates), _int_input(shape, "shape", dtype=None
                            if isinstance(shape, Tensor) else ind.dtype)], name=name)


def scatter_infer(tensor, indices, updates):
    """Shape rule shared by the TensorScatter* ops: a copy of ``tensor``."""
    if updates.dtype is not tensor.dtype:
        raise _err(f"tensor_scatter: updates have dtype {updates.dtype.name}, the tensor "
                   f"{tensor.dtype.name}")
    if not indices.dtype.is_integer:
        raise _err(f"tensor_scatter: indices must be int32 or int64, got {indices.dtype.name}")
    return tensor.dtype, tensor.shape


def scatter_kernel(ufunc):
    """Kernel of a TensorScatter* op combining old and new values with ``ufunc.at``."""
    def kernel(tensor, indices, updates):
        view, idx = _nd_index(tensor.shape, indices, 0)
        out = np.array(tensor).reshape(view)
        ufunc.at(out, idx, np.reshape(updates, out[idx].shape))
        return out.reshape(tensor.shape)
    return kernel


def tensor_scatter(opdef, tensor, indices, updates, name):
    """Binds a TensorScatter* op, converting ``updates`` to the tensor's dtype."""
    x = convert(tensor)
    return bind(opdef, [x, _int_input(indices, "indices"), convert(updates, x.dtype)], name=name)


def tensor_scatter_function(fn_name: str, opdef, summary: str, module: str = __name__):
    """The public function ``fn(tensor, indices, updates, name=None)`` of a TensorScatter* op
    (``module``: the ``__name__`` of the module that holds it)."""
    def fn(tensor: TensorLike, indices: TensorLike, updates: TensorLike,
           name: str | None = None) -> Tensor:
        return tensor_scatter(opdef, tensor, indices, updates, name)
    fn.__name__ = fn.__qualname__ = fn_name
    fn.__module__ = module
    fn.__doc__ = f"""{summary}

    Args:
        tensor: a tensor.
        indices: an int tensor ``[..., M]``.
        updates: ``indices.shape[:-1] + tensor.shape[M:]`` values.
        name: op name.

    Returns:
        The updated copy.
    """
    return fn


@register_op("TensorScatterUpdate")
class TensorScatterUpdate:
    """A copy of ``tensor`` with the slices at ``indices`` replaced by ``updates``."""

    infer = scatter_infer

    def kernel(tensor, indices, updates):
        view, idx = _nd_index(tensor.shape, indices, 0)
        out = np.array(tensor).reshape(view)
        out[idx] = np.reshape(updates, out[idx].shape)
        return out.reshape(tensor.shape)

    def grad(op, dy):
        _, indices, updates = op.inputs
        return (bind(TensorScatterUpdate, [dy, indices, bind(ZerosLike, [updates])]), None,
                bind(GatherNd, [dy, indices], {"batch_dims": 0}))


@register_op("TensorScatterAdd")
class TensorScatterAdd:
    """A copy of ``tensor`` with ``updates`` added at ``indices``."""

    infer = scatter_infer
    kernel = scatter_kernel(np.add)

    def grad(op, dy):
        return dy, None, bind(GatherNd, [dy, op.inputs[1]], {"batch_dims": 0})


tensor_scatter_nd_update = tensor_scatter_function(
    "tensor_scatter_nd_update", TensorScatterUpdate,
    "Replaces the slices of ``tensor`` at ``indices`` with ``updates``.")
tensor_scatter_nd_add = tensor_scatter_function(
    "tensor_scatter_nd_add", TensorScatterAdd,
    "Adds ``updates`` to the slices of ``tensor`` at ``indices`` (duplicates sum).")


def _mask_infer_shape(tensor, mask, axis):
    r, k = tensor.shape.rank, mask.shape.rank
    if r is None or k is None:
        return TensorShape(None)
    if k == 0:
        raise _err("mask cannot be scalar.")
    if not 0 <= axis <= r - k:
        raise _err(f"boolean_mask: axis {axis} with a mask of rank {k} does not fit a tensor of "
                   f"rank {r}")
    dims = tensor.shape.as_list()
    part = TensorShape(dims[axis:axis + k])
    if not part.is_compatible_with(mask.shape):
        raise _err(f"Shapes {_fmt(part)} and {_fmt(mask.shape)} are incompatible (tensor shape "
                   f"{_fmt(tensor.shape)}, mask at axis {axis})")
    m = constant_value(mask)
    n = None if m is None else int(np.count_nonzero(m))
    return TensorShape(dims[:axis] + [n] + dims[axis + k:])


@register_op("BooleanMask")
class BooleanMask:
    """The slices of ``tensor`` (from ``axis``) where ``mask`` is True, flattened into one dim."""

    def infer(tensor, mask, *, axis):
        return tensor.dtype, _mask_infer_shape(tensor, mask, axis)

    def kernel(tensor, mask, *, axis):
        k = mask.ndim
        if tensor.shape[axis:axis + k] != mask.shape:
            raise _err(f"Shapes {list(tensor.shape[axis:axis + k])} and {list(mask.shape)} are "
                       "incompatible")
        flat = tensor.reshape(tensor.shape[:axis] + (-1,) + tensor.shape[axis + k:])
        return np.compress(mask.reshape(-1), flat, axis=axis)

    def grad(op, dy):
        tensor, mask = op.inputs
        return bind(BooleanMaskGrad, [dy, mask, shape(tensor)], op.attrs), None


@register_op("BooleanMaskGrad")
class BooleanMaskGrad:
    """Zeros of ``shape`` with ``dy`` placed where ``mask`` is True (BooleanMask gradient)."""

    def infer(dy, mask, shape_, *, axis):
        return dy.dtype, shape_from_tensor(shape_)

    def kernel(dy, mask, shape_, *, axis):
        shp = tuple(int(d) for d in shape_)
        k = mask.ndim
        out = np.zeros(shp[:axis] + (int(np.prod(shp[axis:axis + k])),) + shp[axis + k:],
                       dtype=dy.dtype)
        idx = (slice(None),) * axis + (mask.reshape(-1),)
        out[idx] = dy
        return out.reshape(shp)

    def grad(op, ddx):
        return bind(BooleanMask, [ddx, op.inputs[1]], op.attrs), None, None


def boolean_mask(tensor: TensorLike, mask: TensorLike, axis: TensorLike | None = None,
                 name: str = "boolean_mask") -> Tensor:
    """Keeps the entries of ``tensor`` where ``mask`` is True (``tw.boolean_mask``).

    Args:
        tensor: a tensor.
        mask: a bool tensor matching ``tensor.shape[axis:axis + mask.rank]``.
        axis: the first dimension the mask applies to (default 0).
        name: op name.

    Returns:
        ``tensor.shape[:axis] + [number of True] + tensor.shape[axis + mask.rank:]``.
    """
    x = convert(tensor)
    m = convert(mask, dtype=dtypes.bool_ if not isinstance(mask, Tensor) else None)
    if not m.dtype.is_bool:
        raise _err(f"boolean_mask: mask must be a bool tensor, got {m.dtype.name}")
    axis = 0 if axis is None else _static_int(axis, "boolean_mask: axis")
    if axis < 0:
        if x.shape.rank is None:
            raise _err("boolean_mask: a negative axis needs a tensor of known rank")
        axis += x.shape.rank
    return bind(BooleanMask, [x, m], {"axis": axis}, name=name)
