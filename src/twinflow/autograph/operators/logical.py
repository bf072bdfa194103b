"""``and``/``or``/``not``: Python semantics, or logical ops on symbolic tensors."""
from __future__ import annotations

from ...graph.tensor import SymbolicTensor
from ...ops import math_ops
from ...ops.core import convert


def _is_sym(x) -> bool:
    return isinstance(x, SymbolicTensor)


def _chain(thunks, logical_op, stop_on: bool):
    """Evaluates ``thunks`` in order, stopping at a Python value whose truth is ``stop_on``;
    once a value is a symbolic tensor the rest are combined with ``logical_op``."""
    value = thunks[0]()
    for t in thunks[1:]:
        if _is_sym(value):
            value = logical_op(value, convert(t(), dtype=value.dtype))
        elif bool(value) == stop_on:
            return value
        else:
            value = t()
    return value


def and_(*thunks):
    """``a and b and ...`` with lazily evaluated operands.

    Args:
        *thunks: callables producing the operands.

    Returns:
        Python's result, or a bool tensor when an operand is a symbolic tensor.
    """
    return _chain(thunks, math_ops.logical_and, stop_on=False)


def or_(*thunks):
    """``a or b or ...`` with lazily evaluated operands.

    Args:
        *thunks: callables producing the operands.

    Returns:
        Python's result, or a bool tensor when an operand is a symbolic tensor.
    """
    return _chain(thunks, math_ops.logical_or, stop_on=True)


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
