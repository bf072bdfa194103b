"""Cumulative sums and products along an axis."""
from __future__ import annotations

import numpy as np

from ...graph.tensor import TensorLike
from ..core import (
    InvalidArgumentError,
    Tensor,
    bind,
    convert,
    quietly,
    register_op,
    static_value,
)
from .binary import multiply, realdiv
from .elementwise import _NUMERIC, _check_kind
from .unary import _c


def _scan_infer(op_name: str):
    def infer(x, *, axis, exclusive=False, reverse=False):
        _check_kind(op_name, x, _NUMERIC)
        rank = x.shape.rank
        if rank is not None and not -rank <= axis < max(rank, 1):
            raise InvalidArgumentError(
                None, None, f"{op_name}: axis {axis} is out of range for a tensor of rank "
                f"{rank} (expected in [{-rank}, {rank}))")
        return x.dtype, x.shape
    return infer


def _scan(fn, identity, x, axis, exclusive, reverse):
    if x.dtype.kind not in _NUMERIC:
        raise TypeError(f"unsupported dtype {x.dtype}")
    if x.ndim == 0:
        raise IndexError("scan over a scalar")
    if reverse:
        x = np.flip(x, axis)
    out = fn(x, axis=axis, dtype=x.dtype)
    if exclusive:
        # shift one step along axis, starting from the identity element
        head = np.full_like(np.take(out, [0], axis=axis), identity)
        out = np.concatenate([head, np.delete(out, -1, axis=axis)], axis=axis)
    if reverse:
        out = np.flip(out, axis)
    return np.ascontiguousarray(out)


@register_op("Cumsum")
class Cumsum:
    """Cumulative sum along ``axis`` (optionally exclusive and/or reversed)."""

    infer = _scan_infer("Cumsum")

    def kernel(x, *, axis, exclusive=False, reverse=False):
        return quietly(_scan, np.cumsum, 0, x, axis, exclusive, reverse)

    def grad(op, dy):
        a = op.attrs
        return cumsum(dy, a["axis"], exclusive=a["exclusive"], reverse=not a["reverse"])


@register_op("Cumprod")
class Cumprod:
    """Cumulative product along ``axis`` (optionally exclusive and/or reversed)."""

    infer = _scan_infer("Cumprod")

    def kernel(x, *, axis, exclusive=False, reverse=False):
        return quietly(_scan, np.cumprod, 1, x, axis, exclusive, reverse)

    def grad(op, dy):
        # As TensorFlow: exact when x has no zeros.
        x, a = op.inputs[0], op.attrs
        prod = op.outputs[0]
        out = cumsum(multiply(prod, dy), a["axis"], exclusive=a["exclusive"],
                     reverse=not a["reverse"])
        return realdiv(out, _c(x))


# ----- clipping ---------------------------------------------------------------------------------

def _static_axis(axis, op_name: str) -> int:
    return int(np.asarray(static_value(axis, f"{op_name}: axis")).reshape(()))


def cumsum(x: TensorLike, axis: int = 0, exclusive: bool = False, reverse: bool = False,
           name: str | None = None) -> Tensor:
    """Cumulative sum along ``axis`` (``tw.cumsum``, ``tw.math.cumsum``).

    Args:
        x: a numeric tensor.
        axis: the axis to scan (an int; negative counts from the end).
        exclusive: exclude each element itself: [a, b, c] -> [0, a, a + b].
        reverse: scan from the end: [a, b, c] -> [a + b + c, b + c, c].
        name: op name in graph mode.

    Returns:
        A tensor like ``x``.
    """
    attrs = {"axis": _static_axis(axis, "Cumsum"), "exclusive": bool(exclusive),
             "reverse": bool(reverse)}
    return bind(Cumsum, (convert(x),), attrs, name=name)


def cumprod(x: TensorLike, axis: int = 0, exclusive: bool = False, reverse: bool = False,
            name: str | None = None) -> Tensor:
    """Cumulative product along ``axis`` (``tw.math.cumprod``).

    Args:
        x: a numeric tensor.
        axis: the axis to scan (an int; negative counts from the end).
        exclusive: exclude each element itself: [a, b, c] -> [1, a, a * b].
        reverse: scan from the end: [a, b, c] -> [a * b * c, b * c, c].
        name: op name in graph mode.

    Returns:
        A tensor like ``x``.
    """
    attrs = {"axis": _static_axis(axis, "Cumprod"), "exclusive": bool(exclusive),
             "reverse": bool(reverse)}
    return bind(Cumprod, (convert(x),), attrs, name=name)


