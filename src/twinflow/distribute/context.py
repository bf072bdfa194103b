"""Which strategy is current in this thread, and whether in a replica or cross-replica context.

Outside any scope the *default strategy* is current, in its replica context (one replica).
``with strategy.scope():`` enters the strategy's cross-replica context; ``strategy.run`` runs
its function in each replica's context. The stack is per thread; replica threads start with
their caller's entries.
"""
from __future__ import annotations

import threading
from typing import Any, NamedTuple


class Entry(NamedTuple):
    """One level of the stack: the strategy, and the replica context (None: cross-replica)."""

    strategy: Any
    replica_context: Any


class _State(threading.local):
    def __init__(self) -> None:
        self.stack: list = []
        self.set_strategy: Any = None  # experimental_set_strategy's


_state = _State()
_defaults: list = []  # [(default strategy, its replica context)], made on first use


def register_default(strategy, replica_context) -> None:
    """Declares the default strategy and its replica context (strategy.py, at import).

    Args:
        strategy: the default Strategy.
        replica_context: its ReplicaContext.
    """
    _defaults[:] = [(strategy, replica_context)]


def current() -> Entry:
    """The innermost entry of this thread (the default strategy's replica context if none).

    Returns:
        The Entry.
    """
    stack = _state.stack
    if stack:
        return stack[-1]
    if _state.set_strategy is not None:
        return Entry(_state.set_strategy, None)
    return Entry(*_defaults[0])


def push(strategy, replica_context) -> None:
    """Enters a context.

    Args:
        strategy: the strategy.
        replica_context: a ReplicaContext, or None for the cross-replica context.
    """
    _state.stack.append(Entry(strategy, replica_context))


def pop() -> None:
    """Leaves the innermost context."""
    _state.stack.pop()


def snapshot() -> list:
    """This thread's entries (what a replica thread starts with).

    Returns:
        A copy of the stack.
    """
    return list(_state.stack)


def install(entries: list) -> None:
    """Makes ``entries`` this thread's stack (in a new replica thread).

    Args:
        entries: a stack from ``snapshot``.
    """
    _state.stack = list(entries)


def set_strategy(strategy) -> None:
    """Sets (or, with None, clears) the strategy of ``experimental_set_strategy``.

    Args:
        strategy: a Strategy or None.
    """
    if strategy is not None and _state.stack:
        raise RuntimeError("Must not be called inside a `tf.distribute.Strategy` scope.")
    _state.set_strategy = strategy


def is_default(strategy) -> bool:
    """Whether ``strategy`` is the default strategy.

    Args:
        strategy: a Strategy.

    Returns:
        True for the default strategy.
    """
    return bool(_defaults) and strategy is _defaults[0][0]
