"""The pass pipeline: which passes run, in which order, and how often each fired."""
from __future__ import annotations

from .arithmetic import simplify_arithmetic
from .constant_folding import fold_constants
from .cse import eliminate_common_subexpressions
from .program import Program
from .prune import prune

# Folding first exposes constants to simplification; simplification and CSE leave dead ops
# behind, which the final prune removes.
DEFAULT_PASSES = (
    ("prune", prune),
    ("constant_folding", fold_constants),
    ("arithmetic", simplify_arithmetic),
    ("cse", eliminate_common_subexpressions),
    ("prune_final", prune),
)


def optimize(prog: Program, passes=DEFAULT_PASSES) -> tuple:
    """Runs ``passes`` over ``prog`` in order.

    Args:
        prog: the Program (not modified).
        passes: (name, pass) pairs; each pass maps a Program to (Program, count).

    Returns:
        (optimized Program, {pass name: number of changes}).
    """
    stats: dict = {}
    for name, fn in passes:
        prog, n = fn(prog)
        stats[name] = stats.get(name, 0) + n
    return prog, stats
