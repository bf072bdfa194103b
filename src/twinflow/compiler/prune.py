"""Pruning: drops ops that neither feed an output nor have side effects.

Stateful ops (variable reads and writes, random, print, asserts) are always kept, with
everything they depend on, and stay in program order.
"""
from __future__ import annotations

from .program import Program, Rewriter


def prune(prog: Program) -> tuple:
    """Removes ops no output or stateful op needs.

    Args:
        prog: the Program.

    Returns:
        (new Program, number of ops removed).
    """
    ops = prog.graph.get_operations()
    roots = [t.op for t in prog.outputs] + [t.op for t in prog.inputs]
    roots += [op for op in ops if op.stateful]
    needed: set = set()
    stack = list(roots)
    while stack:
        op = stack.pop()
        if id(op) in needed:
            continue
        needed.add(id(op))
        stack.extend(t.op for t in op.inputs)
        stack.extend(op.control_inputs)
    rw = Rewriter(prog)
    for op in ops:
        if id(op) in needed:
            rw.copy(op)
    return rw.finish(), len(ops) - len(needed)
