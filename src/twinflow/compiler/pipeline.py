"""The pass pipeline: which passes run, in which order, and how often each fired."""
from __future__ import annotations

from .arithmetic import simplify_arithmetic
from .constant_folding import fold_constants
from .cse import eliminate_common_subexpressions
from .fusion import AGGRESSIVE, fuse_elementwise
from .program import Program
from .prune import prune
from .remap import remap
from .schedule import schedule_concurrent

# Folding first exposes constants to simplification; simplification and CSE leave dead ops
# behind, which the final prune removes. Remapping then fusion run last: they see the
# simplified graph, and their ops hide the ops the other passes would otherwise match.
DEFAULT_PASSES = (
    ("prune", prune),
    ("constant_folding", fold_constants),
    ("arithmetic", simplify_arithmetic),
    ("cse", eliminate_common_subexpressions),
    ("prune_final", prune),
    ("remap", remap),     # Conv2D -> BiasAdd -> Relu, the two conv gradients: one op each
    ("fusion", fuse_elementwise),
    ("prune_final", prune),   # again: constants folded into fused groups (counts add up)
    ("schedule", schedule_concurrent),   # independent heavy ops side by side
)

# ``tw.function(jit_compile=True)``: the same passes, fusion with lower size thresholds,
# larger blocks and parallel blocks from smaller sizes (``fusion.AGGRESSIVE``).
JIT_PASSES = DEFAULT_PASSES[:-3] + (
    ("fusion", lambda prog: fuse_elementwise(prog, AGGRESSIVE)),
    ("prune_final", prune),
    ("schedule", schedule_concurrent),
)

# Without remapping and fusion (the tests compare fused programs with these).
UNFUSED_PASSES = DEFAULT_PASSES[:-4]


def passes_for(jit_compile) -> tuple:
    """The pass list for a function's ``jit_compile`` setting.

    Args:
        jit_compile: True for the aggressive pipeline; None/False for the default.

    Returns:
        (name, pass) pairs.
    """
    return JIT_PASSES if jit_compile else DEFAULT_PASSES


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
