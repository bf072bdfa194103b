"""``and``/``or``/``not``: Python semantics, or logical ops on symbolic tensors."""
from __future__ import annotations

from ...graph.tensor import SymbolicTensor
from ...ops import math_ops
from ...ops.core import convert


def _is_sym(x) -> bool:
    return isinstance(x, SymbolicTensor)


def and_(*thunks):
    """``a and b and ...`` with lazily evaluated operands.

    Args:
        *thunks: callables producing the operands.

    Returns:
        Python's result, or a bool tensor when an operand is a symbolic tensor.
    """
    value = thunks[0]()
    for t in thunks[1:]:
        if _is_sym(value):
            value = math_ops.logical_and(value, convert(t(), dtype=value.dtype))
        elif not value:
            return value
        else:
            value = t()
    return value


def or_(*thunks):
    """``a or b or ...`` with lazily evaluated operands.

    Args:
        *thunks: callables producing the operands.

    Returns:
        Python's result, or a bool tensor when an operand is a symbolic tensor.
    """
    value = thunks[0]()
    for t in thunks[1:]:
        if _is_sym(value):
            value = math_ops.logical_or(value, convert(t(), dtype=value.dtype))
        elif value:
            return value
        else:
            value = t()
    return value


def not_(x):
    """``not x``: ``tw.logical_not`` on a symbolic tensor, Python's ``not`` otherwise.

    Args:
        x: the operand.

    Returns:
        A bool or a bool tensor.
    """
    if _is_sym(x):
        return math_ops.logical_not(x)
    return not x
