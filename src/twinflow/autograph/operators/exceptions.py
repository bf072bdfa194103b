"""``assert``: ``tw.debugging.Assert`` on symbolic tensors, a Python assert otherwise."""
from __future__ import annotations

from collections.abc import Callable

from ...graph.tensor import SymbolicTensor
from ...ops.debugging_ops import Assert


def assert_stmt(expression, msg_fn: Callable):
    """An assert statement.

    Args:
        expression: the asserted condition.
        msg_fn: thunk for the message (evaluated only when needed in Python).

    Returns:
        The Assert op in a graph, else None.
    """
    if isinstance(expression, SymbolicTensor):
        msg = msg_fn()
        return Assert(expression, ["Assertion failed" if msg is None else msg])
    if not expression:
        msg = msg_fn()
        raise AssertionError(msg) if msg is not None else AssertionError()
    return None
