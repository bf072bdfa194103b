"""Comparisons, logic, bitwise ops (``Binary``/``Unary`` rows, see ``elementwise.py``) and
selection (``where``), bucketizing. None of them has a gradient except ``SelectV2``."""
from __future__ import annotations

import operator

import numpy as np

from ...core import dtypes
from ...core.errors import InvalidArgumentError
from ...core.shapes import TensorShape, broadcast_shapes
from ...eager.execute import bind
from ...graph.registry import register_op
from ...graph.tensor import Tensor, TensorLike
from ..array.create import zeros_like
from ..array.shape import sum_to
from ..core import _fmt as _fmt_shape
from ..core import convert, convert_pair
from ..dispatch import CompositeArgument, dispatch
from ..fast_elementwise import select
from .elementwise import (
    BOOL,
    FLOAT,
    INT,
    REAL,
    Binary,
    Unary,
    declare,
    no_grad,
    public_functions,
)


def _shift_amount(x, y):
    """Shift counts clamped to [0, bits - 1]: NumPy (and C) leave larger or negative counts
    undefined; TensorFlow's kernel clamps them, so twinflow does too."""
    return np.clip(y, 0, x.dtype.itemsize * 8 - 1).astype(y.dtype, copy=False)


def _equal_kernel(x, y):
    out = np.equal(x, y)
    return out if out.dtype == np.bool_ else out.astype(np.bool_)


def _not_equal_kernel(x, y):
    out = np.not_equal(x, y)
    return out if out.dtype == np.bool_ else out.astype(np.bool_)


def _ordering(op: str, fn: str, kernel, symbol: str, infix) -> Binary:
    """The row of ``x <symbol> y`` for real tensors (``Less``, ``LessEqual``...)."""
    return Binary(op, fn, kernel, REAL, out=dtypes.bool_, infix=infix,
                  doc=f"x {symbol} y elementwise, with broadcasting.",
                  api=(f"x {symbol} y elementwise, broadcasting (``tw.{fn}``).",
                       "a real tensor or value.", "a tensor or value of the same dtype.",
                       "A bool tensor."))


def _bitwise(op: str, fn: str, kernel, symbol: str) -> Binary:
    """The row of ``x <symbol> y`` for integer tensors (``BitwiseAnd``...)."""
    return Binary(op, fn, kernel, INT,
                  doc=f"x {symbol} y for integer tensors.",
                  api=(f"x {symbol} y for integer tensors (``tw.bitwise.{fn}``).",
                       "an integer tensor or value.", "a tensor or value of the same dtype.",
                       "An integer tensor."))


# ----- the table ------------------------------------------------------------------------------

COMPARISON = [
    Binary("Equal", "equal", _equal_kernel, None, out=dtypes.bool_, raw=True,
          doc="x == y elementwise (any dtype), with broadcasting.",
          api=("x == y elementwise, broadcasting (``tw.equal``).",
               "a tensor or value of any dtype.", "a tensor or value of the same dtype.",
               "A bool tensor.")),
    Binary("NotEqual", "not_equal", _not_equal_kernel, None, out=dtypes.bool_, raw=True,
          doc="x != y elementwise (any dtype), with broadcasting.",
          api=("x != y elementwise, broadcasting (``tw.not_equal``).",
               "a tensor or value of any dtype.", "a tensor or value of the same dtype.",
               "A bool tensor.")),
    _ordering("Less", "less", np.less, "<", operator.lt),
    _ordering("LessEqual", "less_equal", np.less_equal, "<=", operator.le),
    _ordering("Greater", "greater", np.greater, ">", operator.gt),
    _ordering("GreaterEqual", "greater_equal", np.greater_equal, ">=", operator.ge),
    Unary("IsNan", "is_nan", np.isnan, FLOAT, out=dtypes.bool_,
          doc="True where x is NaN.",
          api=("True where x is NaN (``tw.math.is_nan``).", "a floating-point tensor.",
               "A bool tensor.")),
    Unary("IsInf", "is_inf", np.isinf, FLOAT, out=dtypes.bool_,
          doc="True where x is +inf or -inf.",
          api=("True where x is infinite (``tw.math.is_inf``).", "a floating-point tensor.",
               "A bool tensor.")),
    Unary("IsFinite", "is_finite", np.isfinite, FLOAT, out=dtypes.bool_,
          doc="True where x is neither NaN nor infinite.",
          api=("True where x is finite (``tw.math.is_finite``).", "a floating-point tensor.",
               "A bool tensor.")),
    Binary("LogicalAnd", "logical_and", np.logical_and, BOOL, same_dtype=False,
          doc="x AND y for bool tensors, with broadcasting.",
          api=("Elementwise AND of bool tensors (``tw.logical_and``, ``&``).",
               "a bool tensor or value.", "a tensor or value of the same dtype.",
               "A bool tensor.")),
    Binary("LogicalOr", "logical_or", np.logical_or, BOOL, same_dtype=False,
          doc="x OR y for bool tensors, with broadcasting.",
          api=("Elementwise OR of bool tensors (``tw.logical_or``, ``|``).",
               "a bool tensor or value.", "a tensor or value of the same dtype.",
               "A bool tensor.")),
    Unary("LogicalNot", "logical_not", np.logical_not, BOOL,
          doc="NOT x for a bool tensor.",
          api=("Elementwise NOT (``tw.logical_not``, ``~`` on bool tensors).", "a bool tensor.",
               "A bool tensor.")),
    _bitwise("BitwiseAnd", "bitwise_and", np.bitwise_and, "&"),
    _bitwise("BitwiseOr", "bitwise_or", np.bitwise_or, "|"),
    _bitwise("BitwiseXor", "bitwise_xor", np.bitwise_xor, "^"),
    Unary("Invert", "invert", np.invert, INT,
          doc="~x (flips every bit) for integer tensors.",
          api=("Flips every bit (``tw.bitwise.invert``, ``~`` on integer tensors).",
               "an integer tensor.", "~x.")),
    Binary("LeftShift", "left_shift", lambda x, y: np.left_shift(x, _shift_amount(x, y)), INT,
          doc="x << y, y clamped to [0, bits - 1] (TensorFlow's kernel does the same).",
          api=("x << y for integer tensors (``tw.bitwise.left_shift``); shift counts outside "
               "[0, bits) are clamped into it, as TensorFlow's kernel does.",
               "an integer tensor or value.", "a tensor or value of the same dtype.",
               "An integer tensor; bits shifted out are lost.")),
    Binary("RightShift", "right_shift",
          lambda x, y: np.right_shift(x, _shift_amount(x, y)), INT,
          doc="x >> y (arithmetic for signed x), y clamped to [0, bits - 1].",
          api=("x >> y for integer tensors (``tw.bitwise.right_shift``): arithmetic (sign "
               "filling) for signed dtypes; shift counts are clamped into [0, bits).",
               "an integer tensor or value.", "a tensor or value of the same dtype.",
               "An integer tensor.")),
]
_OPS = declare(COMPARISON)
(Equal, NotEqual, Less, LessEqual, Greater, GreaterEqual, IsNan, IsInf, IsFinite, LogicalAnd,
 LogicalOr, LogicalNot, BitwiseAnd, BitwiseOr, BitwiseXor, Invert, LeftShift, RightShift) = _OPS
(equal, not_equal, less, less_equal, greater, greater_equal, is_nan, is_inf, is_finite,
 logical_and, logical_or, logical_not, bitwise_and, bitwise_or, bitwise_xor,
 invert, left_shift, right_shift) = public_functions(COMPARISON, _OPS, __name__)


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

    def infer(condition, x, y):  # (the schema checks the dtypes)
        return x.dtype, _broadcast3("SelectV2", condition, x, y)

    def kernel(condition, x, y):
        # np.where without its mispredicted branches where shapes agree (fast_elementwise)
        return select(condition, x, y)

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

    grad = no_grad


# ----- public functions that do more than bind -------------------------------------------------


def logical_xor(x: TensorLike, y: TensorLike, name: str = "LogicalXor") -> Tensor:
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
    try:
        c = convert(condition)
        if x is not None and y is not None:
            cx, cy = convert_pair(x, y)
    except CompositeArgument as e:  # ragged arguments
        return dispatch("where", e, (condition, x, y), {})
    if x is None and y is None:
        return bind(Where, (c,), name=name)
    if x is None or y is None:
        raise ValueError("x and y must both be non-None or both be None.")
    return bind(SelectV2, (c, cx, cy), name=name)




@register_op("Bucketize", schema="x@input:T -> output:int32 | "
                                 "T:type in [int32,int64,float,double]; boundaries:list(float)")
class Bucketize:
    """The index of the bucket of each value: ``i`` with ``b[i-1] <= x < b[i]`` (int32)."""

    def infer(x, *, boundaries):
        return dtypes.int32, x.shape

    def kernel(x, *, boundaries):
        return np.digitize(np.asarray(x), np.asarray(boundaries, np.float64)).astype(np.int32)

    def grad(op, dy):
        return None  # bucket indices are piecewise constant


def bucketize(input: TensorLike, boundaries, name: str | None = None) -> Tensor:
    """TensorFlow's raw op ``Bucketize``: the bucket index of each value.

    Args:
        input: an int32/int64/float32/float64 tensor.
        boundaries: sorted floats.
        name: op name.

    Returns:
        An int32 tensor of ``input``'s shape.
    """
    b = tuple(float(v) for v in boundaries)
    if list(b) != sorted(b):
        raise ValueError(f"bin boundaries must be sorted, got {list(b)}")
    return bind(Bucketize, [convert(input)], {"boundaries": b}, name=name)
