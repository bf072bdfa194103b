"""Reductions: sum, mean, max, min, prod, any, all, logsumexp, std, variance, argmax..."""
from __future__ import annotations

import numpy as np

from .array_ops import broadcast_to, reshape, shape
from .core import TensorShape, bind, convert, normalize_axis, register_op


def _reduce_infer(x, *, axis, keepdims=False):
    rank = x.shape.rank
    axes = normalize_axis(axis, rank, "reduction")
    if rank is None:
        return x.dtype, TensorShape(None)
    dims = x.shape.as_list()
    if keepdims:
        out = [1 if i in axes else d for i, d in enumerate(dims)]
    else:
        out = [d for i, d in enumerate(dims) if i not in axes]
    return x.dtype, TensorShape(out)


def _keepdims_shape(x, axis):
    """The shape of a reduction of ``x`` over ``axis`` with keepdims, as a tensor."""
    return bind(ReducedShape, [shape(x)], {"axis": axis})


@register_op("ReducedShape")
class ReducedShape:
    """The shape ``input_shape`` has after a keepdims reduction over ``axis`` (grad helper)."""

    def infer(s, *, axis):
        return s.dtype, s.shape

    def kernel(s, *, axis):
        out = np.array(s)
        out[list(range(len(s))) if axis is None else list(axis)] = 1
        return out

    def grad(op, dy):
        return None


@register_op("Sum")
class Sum:
    """Sum of elements over ``axis`` (None: all), optionally keeping reduced dims."""

    infer = _reduce_infer

    def kernel(x, *, axis, keepdims=False):
        return np.sum(x, axis=axis, keepdims=keepdims, dtype=x.dtype)

    def grad(op, dy):
        x = op.inputs[0]
        dy = reshape(dy, _keepdims_shape(x, op.attrs["axis"]))
        return broadcast_to(dy, shape(x))


def reduce_sum(input_tensor, axis=None, keepdims=False, name=None):
    """Sums ``input_tensor`` over ``axis`` (``tw.reduce_sum``).

    Args:
        input_tensor: the tensor.
        axis: an int, list of ints, or None for all axes; negative values count from the end.
        keepdims: keep reduced dimensions with length 1.
        name: op name.

    Returns:
        The reduced tensor, of the input's dtype.
    """
    x = convert(input_tensor)
    axes = normalize_axis(axis, x.shape.rank, "reduce_sum")
    return bind(Sum, [x], {"axis": axes, "keepdims": bool(keepdims)}, name=name)


__all__ = ["reduce_sum"]
