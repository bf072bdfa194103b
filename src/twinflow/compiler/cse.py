"""Common-subexpression elimination: two stateless ops of one type, with the same inputs
and attrs, compute the same value; the later one is replaced by the earlier.

Small constants with equal dtype, shape and bytes are merged too.
"""
from __future__ import annotations

import numpy as np

from .program import Program, Rewriter

MAX_CONST_BYTES = 1 << 12


def _attr_key(v):
    if isinstance(v, np.ndarray):
        if v.dtype == object or v.nbytes > MAX_CONST_BYTES:
            raise TypeError("unhashable")
        return ("nd", v.dtype.str, v.shape, v.tobytes())
    if isinstance(v, np.generic):
        return ("np", v.dtype.str, v.tobytes())
    if isinstance(v, (list, tuple)):
        return (type(v).__name__,) + tuple(_attr_key(x) for x in v)
    if isinstance(v, dict):
        return ("dict",) + tuple((k, _attr_key(x)) for k, x in sorted(v.items()))
    hash(v)
    return (type(v).__name__, v)


def eliminate_common_subexpressions(prog: Program) -> tuple:
    """Merges duplicate stateless ops.

    Args:
        prog: the Program.

    Returns:
        (new Program, number of ops merged away).
    """
    rw = Rewriter(prog)
    seen: dict = {}
    merged = 0
    for op in prog.graph.get_operations():
        if op.stateful or op.control_inputs or op.type in ("Placeholder", "NoOp") \
                or not op.outputs:
            rw.copy(op)
            continue
        try:
            key = (op.type, tuple(id(rw.get(t)) for t in op.inputs),
                   tuple((k, _attr_key(v)) for k, v in sorted(op.attrs.items())))
        except TypeError:
            rw.copy(op)
            continue
        hit = seen.get(key)
        if hit is None:
            seen[key] = rw.copy(op)
            continue
        for old, new in zip(op.outputs, hit.outputs):
            rw.alias(old, new)
        merged += 1
    return rw.finish(), merged
