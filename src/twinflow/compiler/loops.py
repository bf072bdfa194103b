"""While-loop semantics, defined once for every way a loop runs.

A ``tw.while_loop`` runs as a Python loop eagerly (``control/while_loop.py``), as a While op's
kernel or lowering (same file), and inlined by codegen as a ``while True:`` block. All of them
take the iteration limit from ``iteration_limit`` and count an iteration *before* its condition
runs (the condition may have side effects); the kernel and the lowering share ``run_while``,
and codegen emits the same steps as source. The values entering each iteration are recorded in a
``History`` (what the loop's gradient reads).
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

_OBJECT = np.dtype(object)


def _add(a, b):
    if a is None:
        return b
    if b is None:
        return a
    return a + b


class History:
    """The loop-variable values at the start of each iteration of a While (for its gradient).

    ``steps[k]`` is the list of loop values entering iteration k; in a gradient, an entry (or
    a value inside one) may be None for zeros.
    """

    __slots__ = ("steps",)
    dtype = _OBJECT
    shape = ()
    ndim = 0

    def __init__(self, steps: list) -> None:
        self.steps = steps

    def __len__(self) -> int:
        return len(self.steps)

    def __add__(self, other) -> History:
        if not isinstance(other, History):
            return NotImplemented
        out = []
        for a, b in zip(self.steps, other.steps):
            if a is None or b is None:
                out.append(a if b is None else b)
            else:
                out.append([_add(x, y) for x, y in zip(a, b)])
        return History(out)

    __radd__ = __add__

    def zeros_like(self) -> History:
        """A History of as many iterations holding only zeros (None)."""
        return History([None] * len(self.steps))

    def __repr__(self) -> str:
        return f"<History of {len(self.steps)} iterations>"


def iteration_limit(maximum_iterations) -> int:
    """The number of iterations a loop may run at most, as TensorFlow counts it.

    A negative maximum runs no iteration (TensorFlow's loop tests ``i < maximum_iterations``).

    Args:
        maximum_iterations: an integer scalar (Python int, NumPy scalar or 0-d array).

    Returns:
        The limit, >= 0.
    """
    return max(int(maximum_iterations), 0)


def run_while(run_cond: Callable, run_body: Callable, vals: tuple, caps: tuple,
              limit: int | None) -> tuple:
    """Runs a loop over compiled ``run_cond``/``run_body`` (arrays in, sequence out).

    Args:
        run_cond: loop values, then captures -> (bool scalar,).
        run_body: loop values, then captures -> next loop values.
        vals: the loop values entering the loop.
        caps: the captured values both take after the loop values.
        limit: ``iteration_limit`` of the maximum, or None for no maximum.

    Returns:
        The final loop values followed by the loop's History.
    """
    steps: list = []
    if limit is None:
        while run_cond(*vals, *caps)[0]:
            steps.append(vals)
            vals = tuple(run_body(*vals, *caps))
    else:
        while len(steps) < limit and run_cond(*vals, *caps)[0]:
            steps.append(vals)
            vals = tuple(run_body(*vals, *caps))
    return (*vals, History(steps))
