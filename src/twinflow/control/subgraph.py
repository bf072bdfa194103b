"""Sub-graphs: the bodies of functional control-flow ops (If branches, While cond/body).

A ``SubGraph`` is a Graph traced from a Python callable. Tensors from outside it (of an
enclosing graph, or eager values) become Placeholders listed in ``captures``; the op that holds
the sub-graph passes the outside tensors as extra inputs, so gradients flow through them and
nested control flow composes (an inner capture becomes a capture of the enclosing sub-graph).

``SubGraph.inputs`` are all Placeholders in order (explicit arguments first, then captures) and
``SubGraph.outputs`` the returned tensors: the interface through which the compiler lowers it
(``compiled``: the control-flow kernels' callable; codegen inlines the same optimized Program).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import NoReturn

from ..compiler.codegen import CompiledProgram, compile_program
from ..compiler.fetch import ops_needed
from ..compiler.pipeline import optimize
from ..compiler.program import Program
from ..core import context
from ..core.context import ctx
from ..eager.func_graph import FuncGraph, TensorSpec
from ..graph.tensor import SymbolicTensor, Tensor


class SubGraph(FuncGraph):
    """A FuncGraph holding a branch or loop body; outside tensors become capture placeholders.

    Args:
        name: a readable name (``cond_true``, ``while_body``...); in a graph it gets a number
            unique in the outermost graph (``cond_true_3``), its name in GraphDef libraries.
        outer: the graph the holding op is created in (None when building eagerly).
    """

    def __init__(self, name: str, outer=None) -> None:
        super().__init__(name if outer is None else outer.unique_function_name(name), outer)
        self.arg_count = 0
        self._plan = None
        if outer is not None:
            self.seed = outer.seed

    def add_arg(self, dtype, shape, name: str = "arg") -> SymbolicTensor:
        """A new explicit argument placeholder (call before any capture)."""
        self.arg_count += 1
        return self.add_input(TensorSpec(shape, dtype), name)

    def __repr__(self) -> str:
        return f"<SubGraph {self.name}: {self.arg_count} args, {len(self.captures)} captures, " \
               f"{len(self.outputs)} outputs, {len(self._ops)} ops>"

    # GraphDef attrs print the str; keep it short like TensorFlow's ``func { name: ... }``.
    def __str__(self) -> str:
        return self.name


def trace(fn: Callable, args: list, name: str, arg_names: list | None = None):
    """Traces ``fn(*placeholders)`` into a new SubGraph.

    Args:
        fn: the Python callable; it receives one placeholder per entry of ``args``.
        args: (dtype, TensorShape) of each argument.
        name: the sub-graph's name.
        arg_names: placeholder names.

    Returns:
        (subgraph, python result of ``fn``). ``subgraph.outputs`` is left for the caller to set.
    """
    g = SubGraph(name, ctx.graph)
    names = arg_names or [f"arg{i}" for i in range(len(args))]
    with context.graph_mode(g):
        phs = [g.add_arg(dt, sh, n) for (dt, sh), n in zip(args, names)]
        result = fn(*phs)
    return g, result


def finish(g: SubGraph, outputs: list) -> None:
    """Sets ``g.outputs``, turning outside tensors and Python values into graph tensors."""
    outs = []
    with context.graph_mode(g):
        for t in outputs:
            if isinstance(t, SymbolicTensor) and t.graph is g:
                outs.append(t)
            elif isinstance(t, Tensor):
                outs.append(g.capture(t))
            else:
                raise TypeError(f"sub-graph output must be a tensor, got {t!r}")
    g.outputs = outs
    g._plan = None


# ---------------------------------------------------------------------------------------------
# Running a sub-graph: the compiler's lowering, as for the function holding it.

def compiled(g: SubGraph) -> CompiledProgram:
    """``g`` optimized and compiled (cached on ``g``): ``compiled(g).run(*args)`` returns its
    outputs; ``compiled(g).error(e)`` names the op that raised ``e`` inside it."""
    p = g._plan
    if p is None:
        prog, _ = optimize(Program(g, g.inputs, g.outputs))
        p = g._plan = compile_program(prog, g.name)
    return p


def raise_explained(e: BaseException, *runs: CompiledProgram) -> NoReturn:
    """Raises ``e`` (raised while running compiled sub-graphs ``runs``) naming the op that failed.

    Args:
        e: the exception.
        *runs: the CompiledPrograms (from ``compiled``) that ran.

    Raises:
        A new exception (``from e``) naming the op, or ``e`` itself when no sub-graph can
        explain it.
    """
    for r in runs:
        new = r.error(e)
        if new is not e:
            raise new from e
    raise e


# ---------------------------------------------------------------------------------------------
# Replaying a sub-graph's ops into the graph being built (for gradients).

def replay(g: SubGraph, inputs: list) -> list:
    """Copies the ops of ``g`` into the current graph with ``inputs`` for its placeholders.

    Args:
        g: the sub-graph.
        inputs: tensors of the current graph, one per ``g.inputs``.

    Returns:
        (outputs, mapping): the copies of ``g.outputs`` and {id(original): copy} for all
        tensors, and the list of copied Operations in order (for backprop).
    """
    target = ctx.graph
    mapping = {id(p): t for p, t in zip(g.inputs, inputs)}
    # Only what the outputs need: side effects (prints, assignments) must not run again.
    needed = {id(op) for op in ops_needed([t.op for t in g.outputs], mapping)}
    new_ops = []
    for op in g.get_operations():
        if id(op) not in needed or op.type == "Placeholder" and id(op.outputs[0]) in mapping:
            continue
        ins = [mapping[id(t)] for t in op.inputs]
        specs = [(t.dtype, t.shape) for t in op.outputs]
        new = target.create_op(op.opdef, ins, op.attrs, specs, name=op.name.split("/")[-1])
        for a, b in zip(op.outputs, new.outputs):
            mapping[id(a)] = b
        new_ops.append(new)
    return [mapping[id(t)] for t in g.outputs], mapping, new_ops
