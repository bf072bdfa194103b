"""Inter-op concurrency: independent heavy ops of a program run side by side.

The backward pass of a dense layer computes ``dX = dY @ W^T`` and ``dW = X^T @ dY``: two
matrix products that read the same gradient and not each other's result. Run one after the
other they use one core; run at once (NumPy releases the GIL inside BLAS) they use two.

Two pieces do it:

* ``schedule_concurrent`` (a pass, after fusion): for each heavy op it looks ahead for another
  heavy op that does not depend on it, whose inputs are all computed before it and which is
  stateless, and moves that op up to follow it: the two are then adjacent in program order.
  Only stateless ops move, and only earlier, to a point where their inputs exist, so every
  value and every stateful op's order are as before.
* ``concurrent_groups`` (used by codegen): runs of adjacent heavy ops, none reading another's
  result, become one line of generated code that hands the calls to ``core.workers``::

      r0, r2 = k30(k18, (r2, r0), k19, (r1, r2))  # MatMul_5 | MatMul_6 (concurrent)

  ``run_group`` runs them on up to ``inter_threads()`` threads
  (``tw.config.threading.set_inter_op_parallelism_threads``; 1 runs them in order). Each op
  calls the same kernel on the same arrays either way, so results are bit-for-bit the same.

A heavy op is a matrix product of static shape with at least ``GROUP_MIN_FLOPS`` multiply-adds
(about 0.3 ms on one core). The hand-off itself costs ~14 µs, but on the 2-vCPU machine this was
tuned on the second thread often runs slowly: grouping the bench MLP's 4M-flop layer-2 pair made
the step's median 1.11x its serial median (best 1.01-1.05x vs 0.99x, A/B of 100 rounds), so only
products well above that size are grouped by default.
"""
from __future__ import annotations

import numpy as np

from ..core import blas
from ..core.workers import inter_threads, machine_busy, run_calls
from .program import Program, Rewriter

GROUP_MIN_FLOPS = 32 << 20
# The most ops one concurrent group holds (more than the cores of a usual machine).
MAX_GROUP = 8


def flops(op) -> int:
    """The floating-point operations of a heavy op (0 for any other op, or unknown shapes).

    Args:
        op: an Operation.

    Returns:
        ``2 * m * n * k`` (times the batch) for a ``MatMul`` of static shape, else 0.
    """
    if op.type != "MatMul" or op.stateful or len(op.outputs) != 1:
        return 0
    a = op.inputs[0]
    out = op.outputs[0].shape
    if a.shape.rank is None or a.shape.rank < 2 or not out.is_fully_defined():
        return 0
    k = a.shape.as_list()[-2 if op.attrs.get("transpose_a") else -1]
    if k is None or a.dtype.np is None or a.dtype.np.kind not in "fc":
        return 0
    return 2 * int(np.prod(out.as_list(), dtype=np.int64)) * k


def _heavy(op) -> bool:
    return flops(op) >= GROUP_MIN_FLOPS


def schedule_concurrent(prog: Program) -> tuple:
    """Moves independent heavy ops next to each other (see the module docstring).

    Args:
        prog: the Program.

    Returns:
        (new Program, number of ops moved).
    """
    ops = prog.graph.get_operations()
    heavy = [i for i, op in enumerate(ops) if _heavy(op)]
    if len(heavy) < 2:
        return prog, 0
    pos = {id(op): i for i, op in enumerate(ops)}

    def ready_before(j: int, i: int) -> bool:
        """Whether op j's inputs and control inputs all come from ops before position i."""
        op = ops[j]
        return all(pos[id(t.op)] < i for t in op.inputs) and \
            all(pos[id(c)] < i for c in op.control_inputs)

    follow: dict = {}   # op index -> the indices moved to follow it
    moved: set = set()
    for i in heavy:
        if i in moved:
            continue
        group = [i]
        for j in heavy:
            if len(group) == MAX_GROUP:
                break
            if j > i and j not in moved and not follow.get(j) and ready_before(j, i):
                group.append(j)
        if len(group) > 1:
            follow[i] = group[1:]
            moved.update(group[1:])
    if not any(j != i + 1 + n for i, js in follow.items() for n, j in enumerate(js)):
        return prog, 0   # already adjacent
    rw = Rewriter(prog)
    count = 0
    for i, op in enumerate(ops):
        if i in moved:
            continue
        rw.copy(op)
        for n, j in enumerate(follow.get(i, ())):
            rw.copy(ops[j])
            count += j != i + 1 + n
    return rw.finish(), count


def concurrent_groups(ops: list, eligible: set) -> dict:
    """Runs of adjacent heavy ops that may run at once.

    Args:
        ops: the program's operations, in order.
        eligible: indices of ops codegen can emit in a group (one output, kernel called with
            the input arrays alone, no buffer overwritten in place).

    Returns:
        {index of a group's first op: [indices of its ops, in order]} for groups of 2 or more.
    """
    groups: dict = {}
    i = 0
    while i < len(ops):
        if i not in eligible or not _heavy(ops[i]):
            i += 1
            continue
        made = {id(t) for t in ops[i].outputs} | {id(ops[i])}
        run = [i]
        j = i + 1
        while j < len(ops) and len(run) < MAX_GROUP and j in eligible and _heavy(ops[j]) \
                and not any(id(t) in made for t in ops[j].inputs) \
                and not any(id(c) in made for c in ops[j].control_inputs):
            made |= {id(t) for t in ops[j].outputs} | {id(ops[j])}
            run.append(j)
            j += 1
        if len(run) > 1:
            groups[i] = run
        i = j
    return groups


def run_group(*kernels_and_args) -> list:
    """Runs one concurrent group: ``run_group(k0, args0, k1, args1, ...)``.

    Args:
        *kernels_and_args: each op's kernel followed by the tuple of its input arrays.

    Returns:
        The ops' results, in order.
    """
    calls = list(zip(kernels_and_args[::2], kernels_and_args[1::2]))
    # (products in order, each on all of BLAS's threads, when BLAS threads itself: see
    # ``blas.threads_itself``)
    alone = machine_busy() or blas.threads_itself()
    return run_calls(calls, 1 if alone else inter_threads())
