"""How much memory a compiled program's intermediates take, before and after planning.

*Before planning* is what a naive runner holds: every intermediate array of the program,
fused groups expanded into their ops (one full-size array per op), all alive until the call
returns. *After planning* is what the generated code holds at its worst moment: an array is
dropped at its last use (codegen recycles its name), an op that writes with ``out=`` into a dead
input allocates nothing (``codegen._reusable_buffers``), and a fused group allocates only its
result plus its block-sized scratch buffers.

``ConcreteFunction.memory_stats`` reports both (beside ``pass_stats``).
"""
from __future__ import annotations

import numpy as np

from .codegen import _kernel_of, _reusable_buffers
from .fused_codegen import scratch_bytes
from .program import Program

_OPAQUE = ("While", "StatelessWhile", "If", "StatelessIf", "Case", "StatelessCase")


class _FreshKernel:
    """Stands for a fused group's kernel: a fresh result, never a view of its inputs."""

    fresh_result = True


def _bytes(t) -> int | None:
    if not t.shape.is_fully_defined() or t.dtype.np.kind not in "biufc":
        return None
    return int(np.prod(t.shape.as_list(), dtype=np.int64)) * t.dtype.np.itemsize


def memory_stats(prog: Program) -> dict:
    """Intermediate memory of ``prog`` (an optimized program) before and after planning.

    Args:
        prog: the Program codegen compiles.

    Returns:
        ``{"unplanned_bytes", "peak_bytes", "bytes_saved", "buffers_reused", "fused_groups",
        "exact"}``; ``exact`` is False when some intermediate has an unknown shape (it then
        counts as 0 bytes).
    """
    ops = prog.graph.get_operations()
    outputs = {id(t) for t in prog.outputs}
    exact = True
    kernels: dict = {}
    for i, op in enumerate(ops):
        if op.type in ("Placeholder", "Const") or op.type in _OPAQUE:
            continue
        if op.type == "FusedElementwise":
            kernels[i] = (_FreshKernel(), {})
            continue
        try:
            kernels[i] = _kernel_of(op)
        except Exception:  # noqa: BLE001 - an op that cannot run has no buffer to plan
            continue
    reuse, _ = _reusable_buffers(ops, kernels, outputs)
    last: dict = {}
    for i, op in enumerate(ops):
        for t in op.inputs:
            last[id(t)] = i
    unplanned = live = peak = 0
    sizes: dict = {}
    groups = 0
    for i, op in enumerate(ops):
        if op.type in ("Placeholder", "Const"):
            continue
        scratch = 0
        for t in op.outputs:
            b = _bytes(t)
            if b is None:
                exact = False
                b = 0
            if op.type == "FusedElementwise":
                groups += 1
                steps = op.attrs["steps"]
                body = int(np.prod(op.attrs["body_shape"], dtype=np.int64))
                unplanned += sum(body * np.dtype(s.dtype).itemsize for s in steps[:-1])
                scratch = scratch_bytes(op)
            unplanned += b
            if i in reuse and t is op.outputs[0]:
                sizes[id(t)] = sizes.pop(id(reuse[i]), b)   # takes over a dead buffer
                continue
            sizes[id(t)] = b
            live += b
        peak = max(peak, live + scratch)
        for t in op.inputs:
            if last.get(id(t)) == i and id(t) not in outputs and id(t) in sizes:
                live -= sizes.pop(id(t))
    return {"unplanned_bytes": unplanned, "peak_bytes": peak,
            "bytes_saved": unplanned - peak, "buffers_reused": len(reuse),
            "fused_groups": groups, "exact": exact}
