"""Constant folding: an op whose inputs are all constants is run once, at compile time.

Ops whose declaration has ``constant_value(op)`` (``Shape`` of a tensor of known shape...) are
folded when it gives a value, even if their inputs are not constants.

Stateful ops and ops with control inputs are never folded; nor are results larger than
``MAX_ELEMENTS`` (folding would trade a fast kernel for a large constant in memory).
"""
from __future__ import annotations

import numpy as np

from .program import Program, const_value, rewrite_each

MAX_ELEMENTS = 1 << 16
_NEVER = frozenset({"Const", "Placeholder", "NoOp"})
# Ops whose value depends only on their input's static shape and dtype.
_FILL = {"OnesLike": 1, "ZerosLike": 0}


def fold_constants(prog: Program) -> tuple:
    """Replaces ops computable from constants by Const ops holding their value.

    Args:
        prog: the Program.

    Returns:
        (new Program, number of ops folded).
    """
    return rewrite_each(prog, _fold)


def _fold(op, rw) -> bool:
    """Folds ``op`` into Const ops if it can (``rewrite_each``'s rule)."""
    if op.type in _NEVER or op.stateful or op.control_inputs or op.opdef.kernel is None \
            or not op.outputs:
        return False
    values = [const_value(rw.get(t)) for t in op.inputs]
    if any(v is None for v in values) or any(
            isinstance(v, np.ndarray) and v.dtype == object for v in values):
        known = _known_value(rw.copy(op))   # (the copy sees folded inputs)
        if known is None:
            return False
        rw.alias(op.outputs[0], rw.const(known, op))
        return True
    outs = _try_run(op, values)
    if outs is None:
        return False
    for i, (t, v) in enumerate(zip(op.outputs, outs)):
        rw.alias(t, rw.const(v, op, op.name if i == 0 else f"{op.name}_{i}"))
    return True


def _known_value(op):
    """The op's value from its declaration's ``constant_value`` rule, or None."""
    if len(op.outputs) != 1:
        return None
    t = op.outputs[0]
    if op.type in _FILL and t.shape.is_fully_defined() and t.dtype.np is not None \
            and np.dtype(t.dtype.np).kind in "biufc":
        dims = tuple(t.shape.as_list())
        if int(np.prod(dims)) <= MAX_ELEMENTS:
            return np.full(dims, _FILL[op.type], dtype=t.dtype.np)
    rule = getattr(op.opdef, "constant_value", None)
    if rule is None:
        return None
    try:
        v = rule(op)
    except Exception:  # noqa: BLE001  (a rule that cannot decide leaves the op alone)
        return None
    if v is None:
        return None
    v = np.asarray(v)
    if v.dtype != t.dtype.np or v.size > MAX_ELEMENTS or not t.shape.is_compatible_with(v.shape):
        return None
    return v


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
