"""``x if c else y``: Python, or ``tw.cond`` when ``c`` is a symbolic tensor."""
from __future__ import annotations

from collections.abc import Callable

from ...control.cond import cond
from ...graph.tensor import SymbolicTensor


def if_exp(test, true_fn: Callable, false_fn: Callable):
    """A conditional expression.

    Args:
        test: the condition.
        true_fn: thunk for the true value.
        false_fn: thunk for the false value.

    Returns:
        The chosen value (an If op's output for a symbolic ``test``).
    """
    if isinstance(test, SymbolicTensor):
        return cond(test, true_fn, false_fn, name="ifexp")
    return true_fn() if test else false_fn()
