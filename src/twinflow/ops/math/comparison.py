"""Comparisons, logic, bitwise ops and selection (``where``)."""
from __future__ import annotations

import operator

import numpy as np

from ...core.shapes import broadcast_shapes
from ...graph.tensor import TensorLike
from ..array.create import zeros_like
from ..array.shape import sum_to
from ..core import (
    InvalidArgumentError,
    Tensor,
    TensorShape,
    binary_infer,
    bind,
    convert,
    convert_pair,
    dtypes,
    register_op,
)
from ..core import _fmt as _fmt_shape
from .elementwise import _BOOL, _FLOAT, _INT, _REAL, _binary, _lower_to, _no_grad, _unary


def _equal_kernel(x, y):
    out = np.equal(x, y)
    return out if out.dtype == np.bool_ else out.astype(np.bool_)


def _not_equal_kernel(x, y):
    out = np.not_equal(x, y)
    return out if out.dtype == np.bool_ else out.astype(np.bool_)


def _equality_infer(x, y):
    return dtypes.bool_, binary_infer(x, y)[1]


@register_op("Equal", same_dtype=True)
class Equal:
    """x == y elementwise (any dtype), with broadcasting."""

    infer = _equality_infer
    kernel = _equal_kernel
    grad = _no_grad


@register_op("NotEqual", same_dtype=True)
class NotEqual:
    """x != y elementwise (any dtype), with broadcasting."""

    infer = _equality_infer
    kernel = _not_equal_kernel
    grad = _no_grad


@register_op("Less", same_dtype=True)
class Less:
    """x < y elementwise, with broadcasting."""

    lower = _lower_to(operator.lt)
    infer, kernel = _binary("Less", np.less, _REAL, out=dtypes.bool_)
    grad = _no_grad


@register_op("LessEqual", same_dtype=True)
class LessEqual:
    """x <= y elementwise, with broadcasting."""

    lower = _lower_to(operator.le)
    infer, kernel = _binary("LessEqual", np.less_equal, _REAL, out=dtypes.bool_)
    grad = _no_grad


@register_op("Greater", same_dtype=True)
class Greater:
    """x > y elementwise, with broadcasting."""

    lower = _lower_to(operator.gt)
    infer, kernel = _binary("Greater", np.greater, _REAL, out=dtypes.bool_)
    grad = _no_grad


@register_op("GreaterEqual", same_dtype=True)
class GreaterEqual:
    """x >= y elementwise, with broadcasting."""

    lower = _lower_to(operator.ge)
    infer, kernel = _binary("GreaterEqual", np.greater_equal, _REAL, out=dtypes.bool_)
    grad = _no_grad


@register_op("IsNan")
class IsNan:
    """True where x is NaN."""

    infer, kernel = _unary("IsNan", np.isnan, _FLOAT, out=dtypes.bool_)
    grad = _no_grad


@register_op("IsInf")
class IsInf:
    """True where x is +inf or -inf."""

    infer, kernel = _unary("IsInf", np.isinf, _FLOAT, out=dtypes.bool_)
    grad = _no_grad


@register_op("IsFinite")
class IsFinite:
    """True where x is neither NaN nor infinite."""

    infer, kernel = _unary("IsFinite", np.isfinite, _FLOAT, out=dtypes.bool_)
    grad = _no_grad


# ----- logical and bitwise ----------------------------------------------------------------------

@register_op("LogicalAnd")
class LogicalAnd:
    """x AND y for bool tensors, with broadcasting."""

    infer, kernel = _binary("LogicalAnd", np.logical_and, _BOOL)
    grad = _no_grad


@register_op("LogicalOr")
class LogicalOr:
    """x OR y for bool tensors, with broadcasting."""

    infer, kernel = _binary("LogicalOr", np.logical_or, _BOOL)
    grad = _no_grad


@register_op("LogicalNot")
class LogicalNot:
    """NOT x for a bool tensor."""

    infer, kernel = _unary("LogicalNot", np.logical_not, _BOOL)
    grad = _no_grad


@register_op("BitwiseAnd", same_dtype=True)
class BitwiseAnd:
    """x & y for integer tensors."""

    infer, kernel = _binary("BitwiseAnd", np.bitwise_and, _INT)
    grad = _no_grad


@register_op("BitwiseOr", same_dtype=True)
class BitwiseOr:
    """x | y for integer tensors."""

    infer, kernel = _binary("BitwiseOr", np.bitwise_or, _INT)
    grad = _no_grad


@register_op("BitwiseXor", same_dtype=True)
class BitwiseXor:
    """x ^ y for integer tensors."""

    infer, kernel = _binary("BitwiseXor", np.bitwise_xor, _INT)
    grad = _no_grad


@register_op("Invert")
class Invert:
    """~x (flips every bit) for integer tensors."""

    infer, kernel = _unary("Invert", np.invert, _INT)
    grad = _no_grad


# ----- selection --------------------------------------------------------------------------------

def _broadcast3(op_name: str, a, b, c) -> TensorShape:
    ab = broadcast_shapes(a.shape, b.shape)
    out = None if ab is None else broadcast_shapes(ab, c.shape)
    if out is None:
        raise InvalidArgumentError(
            None, None, f"{op_name}: incompatible shapes {_fmt_shape(a.shape)}, "
            f"{_fmt_shape(b.shape)} and {_fmt_shape(c.shape)}")
    return out


@register_op("SelectV2")
class SelectV2:
    """x where condition is true, else y; all three broadcast together."""

    def infer(condition, x, y):
        if not condition.dtype.is_bool:
            raise InvalidArgumentError(
                None, None, f"SelectV2: condition must be a bool tensor, got "
                f"{condition.dtype.name}")
        if x.dtype is not y.dtype:
            raise InvalidArgumentError(
                None, None, f"SelectV2: x and y must have one dtype, got {x.dtype.name} and "
                f"{y.dtype.name}; twinflow, like TensorFlow, does not promote dtypes")
        return x.dtype, _broadcast3("SelectV2", condition, x, y)

    def kernel(condition, x, y):
        if condition.dtype != np.bool_ or x.dtype != y.dtype:
            raise TypeError("SelectV2 dtypes")
        return np.where(condition, x, y)

    def grad(op, dy):
        c, x, y = op.inputs
        zeros = zeros_like(dy)
        return None, sum_to(where(c, dy, zeros), x), sum_to(where(c, zeros, dy), y)


@register_op("Where")
class Where:
    """The int64 coordinates [N, rank] of the true (non-zero) elements of ``condition``."""

    def infer(condition):
        rank = condition.shape.rank
        return dtypes.int64, TensorShape(None if rank is None else [None, rank])

    def kernel(condition):
        return np.argwhere(condition).astype(np.int64, copy=False)

    grad = _no_grad


# ----- scans ------------------------------------------------------------------------------------

def is_nan(x: TensorLike, name: str | None = None) -> Tensor:
    """True where x is NaN (``tw.math.is_nan``).

    Args:
        x: a floating-point tensor.
        name: op name in graph mode.

    Returns:
        A bool tensor.
    """
    return bind(IsNan, (convert(x),), name=name)

def is_inf(x: TensorLike, name: str | None = None) -> Tensor:
    """True where x is infinite (``tw.math.is_inf``).

    Args:
        x: a floating-point tensor.
        name: op name in graph mode.

    Returns:
        A bool tensor.
    """
    return bind(IsInf, (convert(x),), name=name)

def is_finite(x: TensorLike, name: str | None = None) -> Tensor:
    """True where x is finite (``tw.math.is_finite``).

    Args:
        x: a floating-point tensor.
        name: op name in graph mode.

    Returns:
        A bool tensor.
    """
    return bind(IsFinite, (convert(x),), name=name)

def logical_not(x: TensorLike, name: str | None = None) -> Tensor:
    """Elementwise NOT (``tw.logical_not``, ``~`` on bool tensors).

    Args:
        x: a bool tensor.
        name: op name in graph mode.

    Returns:
        A bool tensor.
    """
    return bind(LogicalNot, (convert(x),), name=name)

def invert(x: TensorLike, name: str | None = None) -> Tensor:
    """Flips every bit (``tw.bitwise.invert``, ``~`` on integer tensors).

    Args:
        x: an integer tensor.
        name: op name in graph mode.

    Returns:
        ~x.
    """
    return bind(Invert, (convert(x),), name=name)


# ----- public functions: comparisons and logic ---------------------------------------------------

def equal(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """x == y elementwise, broadcasting (``tw.equal``).

    Args:
        x: a tensor or value of any dtype.
        y: a tensor or value of the same dtype.
        name: op name in graph mode.

    Returns:
        A bool tensor.
    """
    x, y = convert_pair(x, y)
    return bind(Equal, (x, y), name=name)

def not_equal(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """x != y elementwise, broadcasting (``tw.not_equal``).

    Args:
        x: a tensor or value of any dtype.
        y: a tensor or value of the same dtype.
        name: op name in graph mode.

    Returns:
        A bool tensor.
    """
    x, y = convert_pair(x, y)
    return bind(NotEqual, (x, y), name=name)

def less(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """x < y elementwise, broadcasting (``tw.less``).

    Args:
        x: a real tensor or value.
        y: a tensor or value of the same dtype.
        name: op name in graph mode.

    Returns:
        A bool tensor.
    """
    x, y = convert_pair(x, y)
    return bind(Less, (x, y), name=name)

def less_equal(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """x <= y elementwise, broadcasting (``tw.less_equal``).

    Args:
        x: a real tensor or value.
        y: a tensor or value of the same dtype.
        name: op name in graph mode.

    Returns:
        A bool tensor.
    """
    x, y = convert_pair(x, y)
    return bind(LessEqual, (x, y), name=name)

def greater(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """x > y elementwise, broadcasting (``tw.greater``).

    Args:
        x: a real tensor or value.
        y: a tensor or value of the same dtype.
        name: op name in graph mode.

    Returns:
        A bool tensor.
    """
    x, y = convert_pair(x, y)
    return bind(Greater, (x, y), name=name)

def greater_equal(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """x >= y elementwise, broadcasting (``tw.greater_equal``).

    Args:
        x: a real tensor or value.
        y: a tensor or value of the same dtype.
        name: op name in graph mode.

    Returns:
        A bool tensor.
    """
    x, y = convert_pair(x, y)
    return bind(GreaterEqual, (x, y), name=name)

def logical_and(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """Elementwise AND of bool tensors (``tw.logical_and``, ``&``).

    Args:
        x: a bool tensor or value.
        y: a tensor or value of the same dtype.
        name: op name in graph mode.

    Returns:
        A bool tensor.
    """
    x, y = convert_pair(x, y)
    return bind(LogicalAnd, (x, y), name=name)

def logical_or(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """Elementwise OR of bool tensors (``tw.logical_or``, ``|``).

    Args:
        x: a bool tensor or value.
        y: a tensor or value of the same dtype.
        name: op name in graph mode.

    Returns:
        A bool tensor.
    """
    x, y = convert_pair(x, y)
    return bind(LogicalOr, (x, y), name=name)

def bitwise_and(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """x & y for integer tensors (``tw.bitwise.bitwise_and``).

    Args:
        x: an integer tensor or value.
        y: a tensor or value of the same dtype.
        name: op name in graph mode.

    Returns:
        An integer tensor.
    """
    x, y = convert_pair(x, y)
    return bind(BitwiseAnd, (x, y), name=name)

def bitwise_or(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """x | y for integer tensors (``tw.bitwise.bitwise_or``).

    Args:
        x: an integer tensor or value.
        y: a tensor or value of the same dtype.
        name: op name in graph mode.

    Returns:
        An integer tensor.
    """
    x, y = convert_pair(x, y)
    return bind(BitwiseOr, (x, y), name=name)

def bitwise_xor(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """x ^ y for integer tensors (``tw.bitwise.bitwise_xor``).

    Args:
        x: an integer tensor or value.
        y: a tensor or value of the same dtype.
        name: op name in graph mode.

    Returns:
        An integer tensor.
    """
    x, y = convert_pair(x, y)
    return bind(BitwiseXor, (x, y), name=name)


def logical_xor(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """Elementwise XOR of bool tensors (``tw.math.logical_xor``, ``^`` on bool tensors).

    Args:
        x: a bool tensor or value.
        y: a bool tensor or value.
        name: op name in graph mode.

    Returns:
        A bool tensor.
    """
    x, y = convert_pair(x, y)
    for t in (x, y):
        if not t.dtype.is_bool:
            raise InvalidArgumentError(
                None, None, f"logical_xor needs bool tensors, got {x.dtype.name} and "
                f"{y.dtype.name} [Op:LogicalXor]")
    # on bools, xor is inequality: one op instead of TensorFlow's four
    return bind(NotEqual, (x, y), name=name)


# ----- public functions: special cases ----------------------------------------------------------

def where(condition: TensorLike, x: TensorLike | None = None, y: TensorLike | None = None,
          name: str | None = None) -> Tensor:
    """Selects from x or y by ``condition``, or lists the true coordinates (``tw.where``).

    Args:
        condition: a bool tensor.
        x: values where condition is true (broadcasts with condition and y).
        y: values where condition is false, of x's dtype.
        name: op name in graph mode.

    Returns:
        With x and y, the selected values; without, an int64 tensor [num_true, rank] of the
        coordinates of the true elements.
    """
    c = convert(condition)
    if x is None and y is None:
        return bind(Where, (c,), name=name)
    if x is None or y is None:
        raise ValueError("x and y must both be non-None or both be None.")
    x, y = convert_pair(x, y)
    return bind(SelectV2, (c, x, y), name=name)


