"""Constant folding: an op whose inputs are all constants is run once, at compile time.

Stateful ops and ops with control inputs are never folded; nor are results larger than
``MAX_ELEMENTS`` (folding would trade a fast kernel for a large constant in memory).
"""
from __future__ import annotations

import numpy as np

from .program import Program, Rewriter, const_value

MAX_ELEMENTS = 1 << 16
_NEVER = frozenset({"Const", "Placeholder", "NoOp"})


def fold_constants(prog: Program) -> tuple:
    """Replaces ops computable from constants by Const ops holding their value.

    Args:
        prog: the Program.

    Returns:
        (new Program, number of ops folded).
    """
    rw = Rewriter(prog)
    folded = 0
    for op in prog.graph.get_operations():
        if op.type in _NEVER or op.stateful or op.control_inputs or op.opdef.kernel is None \
                or not op.outputs:
            rw.copy(op)
            continue
        new_inputs = [rw.get(t) for t in op.inputs]
        values = [const_value(t) for t in new_inputs]
        if any(v is None for v in values) or any(
                isinstance(v, np.ndarray) and v.dtype == object for v in values):
            rw.copy(op)
            continue
        outs = _try_run(op, values)
        if outs is None:
            rw.copy(op)
            continue
        for i, (t, v) in enumerate(zip(op.outputs, outs)):
            rw.alias(t, rw.const(v, op, op.name if i == 0 else f"{op.name}_{i}"))
        folded += 1
    return rw.finish(), folded


def _try_run(op, values: list):
    """The op's outputs as a list, or None if it cannot or should not be folded."""
    try:
        out = op.opdef.kernel(*values, **op.attrs)
    except Exception:  # noqa: BLE001  (a failing op is left for run time to report)
        return None
    outs = list(out) if op.opdef.multi_output else [out]
    if len(outs) != len(op.outputs):
        return None
    for t, v in zip(op.outputs, outs):
        if not isinstance(v, (np.ndarray, np.generic)) or np.size(v) > MAX_ELEMENTS \
                or v.dtype != t.dtype.np:
            return None
    return outs
