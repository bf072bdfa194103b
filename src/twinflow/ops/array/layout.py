"""Layout: stack/unstack, transpose, expand_dims, squeeze, reverse, stop_gradient."""
from __future__ import annotations

import numpy as np

from ...core.shapes import TensorShape
from ...eager.execute import bind
from ...graph.registry import register_op
from ...graph.tensor import Tensor, TensorLike
from ..core import Pack, Unpack, _fmt, convert, convert_n, static_int, unary_infer
from ..core import invalid_argument as _err
from ..dispatch import CompositeArgument, dispatch
from .shape import Identity, _norm_axis, _static_int, _static_ints, reshape, shape


def stack(values: TensorLike, axis: int = 0, name: str = "stack") -> Tensor:
    """Stacks tensors of one shape along a new axis (``tw.stack``).

    Args:
        values: a list of tensors of one shape and dtype.
        axis: where the new axis goes.
        name: op name.

    Returns:
        The stacked tensor.
    """
    dtype = None
    if values and not any(isinstance(v, Tensor) or hasattr(v, "_as_tensor") for v in values):
        try:  # Python values only: one dtype for all, as TensorFlow (tw.stack([1, 2.5]))
            dtype = convert(list(values)).dtype
        except (TypeError, ValueError):
            pass
    try:
        xs = convert_n(values, dtype)
    except CompositeArgument as e:  # ragged inputs
        return dispatch("stack", e, (values, axis), {})
    if not xs:
        raise ValueError("tw.stack needs at least one tensor")
    return bind(Pack, xs, {"axis": static_int(axis, "stack: axis")}, name=name)


def unstack(value: TensorLike, num=None, axis: int = 0, name: str = "unstack") -> list:
    """Splits ``value`` along ``axis`` into a list of tensors (``tw.unstack``).

    Args:
        value: a tensor of rank >= 1.
        num: the length of that axis, needed only when it is not statically known.
        axis: the axis to unstack.
        name: op name.

    Returns:
        A list of tensors.
    """
    x = convert(value)
    axis = static_int(axis, "unstack: axis")
    if x.shape.rank == 0:  # as TensorFlow
        raise ValueError(f"Argument `axis` = {axis} not in range [0, 0)")
    if num is None:
        rank = x.shape.rank
        if rank is None or x.shape[axis % rank if rank else 0] is None:
            raise ValueError(f"Cannot infer argument `num` from shape {x.shape}")
        num = x.shape[axis % rank]
    return bind(Unpack, [x], {"num": static_int(num, "unstack: num"), "axis": axis}, name=name)


# ----- transpose, expand_dims, squeeze, reverse ---------------------------------------------------

def _check_perm(perm, rank: int) -> tuple:
    if len(perm) != rank or sorted(p % rank if rank else p for p in perm) != list(
            range(rank)) or any(not -rank <= p < rank for p in perm):
        raise _err(f"transpose expects a permutation of [0, {rank}) for a tensor of rank "
                   f"{rank}, got perm {list(perm)}")
    return tuple(p % rank for p in perm)


@register_op("Transpose")
class Transpose:
    """Permutes the dimensions of ``x`` by ``perm`` (None: reverse them)."""

    def infer(x, *, perm=None, conjugate=False):
        if x.shape.rank is None:
            return x.dtype, TensorShape(None if perm is None else [None] * len(perm))
        dims = x.shape.as_list()
        if perm is None:
            return x.dtype, TensorShape(dims[::-1])
        perm = _check_perm(perm, len(dims))
        return x.dtype, TensorShape([dims[p] for p in perm])

    def kernel(x, *, perm=None, conjugate=False):
        out = np.transpose(x, perm)
        return np.conj(out) if conjugate and out.dtype.kind == "c" else out

    def grad(op, dy):
        perm = op.attrs.get("perm")
        inv = None if perm is None else tuple(
            int(i) for i in np.argsort([p % len(perm) for p in perm]))
        return bind(Transpose, [dy], {"perm": inv, "conjugate": op.attrs.get("conjugate", False)})


def transpose(a: TensorLike, perm=None, conjugate: bool = False, name: str = "transpose") -> Tensor:
    """Permutes the dimensions of ``a`` (``tw.transpose``).

    Args:
        a: a tensor.
        perm: a permutation of the dimensions (list or constant tensor); None reverses them.
        conjugate: also take the complex conjugate.
        name: op name.

    Returns:
        The transposed tensor.
    """
    x = convert(a)
    if perm is not None:
        perm = _static_ints(perm, "transpose: perm")
        if x.shape.rank is not None:
            perm = _check_perm(perm, x.shape.rank)
    return bind(Transpose, [x], {"perm": perm, "conjugate": bool(conjugate)}, name=name)


@register_op("ExpandDims")
class ExpandDims:
    """Inserts a dimension of length 1 at ``axis``."""

    def infer(x, *, axis):
        if x.shape.rank is None:
            return x.dtype, TensorShape(None)
        dims = x.shape.as_list()
        if not -len(dims) - 1 <= axis <= len(dims):
            raise _err(f"Tried to expand dim index {axis} for tensor with {len(dims)} "
                       "dimensions.")
        dims.insert(axis % (len(dims) + 1), 1)
        return x.dtype, TensorShape(dims)

    def kernel(x, *, axis):
        return np.expand_dims(x, axis)

    def grad(op, dy):
        return reshape(dy, shape(op.inputs[0]))


def expand_dims(input: TensorLike, axis: TensorLike, name: str | None = None) -> Tensor:
    """Inserts a length-1 dimension at ``axis`` (``tw.expand_dims``).

    Args:
        input: a tensor.
        axis: where the new dimension goes, in ``[-rank-1, rank]``.
        name: op name.

    Returns:
        The tensor with one more dimension.
    """
    try:
        x = convert(input)
    except CompositeArgument as e:
        return dispatch("expand_dims", e, (input, axis), {})
    return bind(ExpandDims, [x], {"axis": _static_int(axis, "expand_dims: axis")},
                name=name)


@register_op("Squeeze")
class Squeeze:
    """Removes dimensions of length 1 (those in ``squeeze_dims``, or all)."""

    def infer(x, *, squeeze_dims=()):
        if x.shape.rank is None:
            return x.dtype, TensorShape(None)
        dims = x.shape.as_list()
        if not squeeze_dims:
            if None in dims:
                return x.dtype, TensorShape(None)
            return x.dtype, TensorShape([d for d in dims if d != 1])
        axes = {_norm_axis(a, len(dims), "squeeze") for a in squeeze_dims}
        for a in sorted(axes):
            if dims[a] is not None and dims[a] != 1:
                raise _err(f"Can not squeeze dim[{a}], expected a dimension of 1, got {dims[a]} "
                           f"(input shape {_fmt(x.shape)})")
        return x.dtype, TensorShape([d for i, d in enumerate(dims) if i not in axes])

    def kernel(x, *, squeeze_dims=()):
        for a in squeeze_dims:
            if x.shape[a] != 1:
                raise _err(f"Can not squeeze dim[{a % x.ndim}], expected a dimension of 1, got "
                           f"{x.shape[a]} (input shape {list(x.shape)})")
        return np.squeeze(x, axis=tuple(squeeze_dims) if squeeze_dims else None)

    def grad(op, dy):
        return reshape(dy, shape(op.inputs[0]))


def squeeze(input: TensorLike, axis: TensorLike | None = None, name: str | None = None) -> Tensor:
    """Removes length-1 dimensions (``tw.squeeze``).

    Args:
        input: a tensor.
        axis: an int or list of ints: the dimensions to remove (each must have length 1);
            None removes all length-1 dimensions.
        name: op name.

    Returns:
        The squeezed tensor.
    """
    dims = () if axis is None else _static_ints(axis, "squeeze: axis")
    return bind(Squeeze, [convert(input)], {"squeeze_dims": dims}, name=name)


@register_op("ReverseV2")
class ReverseV2:
    """Reverses ``x`` along the dimensions in ``axis``."""

    def infer(x, *, axis):
        for a in axis:
            _norm_axis(a, x.shape.rank, "reverse")
        return x.dtype, x.shape

    def kernel(x, *, axis):
        return np.flip(x, axis) if axis else x

    def grad(op, dy):
        return bind(ReverseV2, [dy], op.attrs)


def reverse(tensor: TensorLike, axis: TensorLike, name: str | None = None) -> Tensor:
    """Reverses ``tensor`` along the dimensions in ``axis`` (``tw.reverse``).

    Args:
        tensor: a tensor.
        axis: a list of dimensions to reverse.
        name: op name.

    Returns:
        The reversed tensor.
    """
    x = convert(tensor)
    axes = _static_ints(axis, "reverse: axis")
    if len(set(axes)) != len(axes):
        raise _err(f"reverse: axis {list(axes)} names a dimension twice")
    return bind(ReverseV2, [x], {"axis": axes}, name=name)


@register_op("StopGradient")
class StopGradient:
    """Identity that blocks gradients."""

    infer = unary_infer
    kernel = Identity.kernel

    def grad(op, dy):
        return None


def stop_gradient(input: TensorLike, name: str | None = None) -> Tensor:
    """Returns ``input``; gradients do not flow through it (``tw.stop_gradient``).

    Args:
        input: a tensor.
        name: op name.

    Returns:
        The same value, treated as a constant by GradientTape.
    """
    return bind(StopGradient, [convert(input)], name=name)
