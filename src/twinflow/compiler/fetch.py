"""Running part of a graph: the ops some fetches need, with some tensors fed.

``fetch_program`` cuts that part out of a graph as a Program whose inputs are the fed tensors
(a Placeholder stands in for a fed tensor that is not one); ``compile_fetches`` optimizes and
compiles it with the same pipeline and codegen as a ``tw.function`` body. This is how
``tw.compat.v1.Session.run`` runs a TF1-style graph (it caches one compiled program per
fetches and feed keys); ``run_graph`` compiles and runs once.

Only what the fetches need runs: a stateful op elsewhere in the graph (another assignment, an
initializer) does not, as in TensorFlow's Session; the stateful ops that are needed run once, in
the order they were created.
"""
from __future__ import annotations

from ..graph.core_ops import Placeholder
from ..graph.tensor import SymbolicTensor
from .codegen import CompiledProgram, compile_program
from .pipeline import DEFAULT_PASSES, optimize
from .program import Program, Rewriter


def ops_needed(fetch_ops: list, feeds) -> list:
    """The ops that ``fetch_ops`` depend on (data and control inputs), feeds cutting the walk.

    Args:
        fetch_ops: Operations of one graph.
        feeds: ids of the tensors whose values are given (their producers are not needed
            for them).

    Returns:
        The needed Operations, each after the ones it depends on.
    """
    order: list = []
    seen: set = set()
    stack = [(op, False) for op in reversed(fetch_ops)]
    while stack:
        op, expanded = stack.pop()
        if expanded:
            order.append(op)
            continue
        if id(op) in seen:
            continue
        seen.add(id(op))
        stack.append((op, True))
        deps = [t.op for t in op.inputs if id(t) not in feeds] + list(op.control_inputs)
        for d in reversed(deps):
            if id(d) not in seen:
                stack.append((d, False))
    return order


def fetch_program(fetches: list, feeds: list) -> Program:
    """The part of a graph that ``fetches`` need, as a Program fed by ``feeds``.

    Args:
        fetches: SymbolicTensors or Operations of one graph.
        feeds: SymbolicTensors of that graph whose values are given (placeholders, or any
            tensor to override).

    Returns:
        A Program over a new graph: its inputs stand for ``feeds`` in order, its outputs are
        the tensor fetches in order (Operations only run).
    """
    fetch_ops = [f.op if isinstance(f, SymbolicTensor) else f for f in fetches]
    fed = {id(t) for t in feeds}
    needed = {id(op) for op in ops_needed(fetch_ops, fed)}
    outputs = [f for f in fetches if isinstance(f, SymbolicTensor)]
    rw = Rewriter(Program(None, feeds, outputs))
    stand_ins: dict = {}
    for t in feeds:
        if id(t) in stand_ins:
            continue
        if t.op.type == "Placeholder":
            ph = rw.copy(t.op).outputs[0]
        else:
            ph = rw.new_op(Placeholder, [], {"dtype": t.dtype, "shape": t.shape},
                           [(t.dtype, t.shape)], t.op, name=f"{t.op.name}_fed").outputs[0]
        stand_ins[id(t)] = ph
        rw.alias(t, ph)
    graph = fetch_ops[0].graph if fetch_ops else None
    for op in graph.get_operations() if graph is not None else ():
        if id(op) not in needed:
            continue
        if op.type == "Placeholder" and all(id(t) in fed for t in op.outputs):
            continue
        rw.copy(op)
        for t in op.outputs:  # a fed output keeps its stand-in
            if id(t) in stand_ins:
                rw.alias(t, stand_ins[id(t)])
    return rw.finish()


def compile_fetches(fetches: list, feeds: list, passes=DEFAULT_PASSES,
                    name: str = "session_run") -> CompiledProgram:
    """Compiles what ``fetches`` need, taking the values of ``feeds`` as arguments.

    Args:
        fetches: SymbolicTensors or Operations of one graph.
        feeds: SymbolicTensors given as arguments, in order.
        passes: the compiler passes to run first (``()`` runs the graph as built).
        name: the generated function's name.

    Returns:
        The CompiledProgram: called with one array per feed, returns one value per tensor
        fetch.

    Raises:
        InvalidArgumentError: a placeholder that is needed is not fed.
    """
    prog, _ = optimize(fetch_program(fetches, feeds), passes)
    return compile_program(prog, name)


def run_graph(fetches: list, feeds: dict, passes=DEFAULT_PASSES) -> list:
    """Evaluates tensors (or runs Operations) of a graph once, given some tensors' values.

    Args:
        fetches: SymbolicTensors or Operations of one graph.
        feeds: {id(tensor): value} for placeholders (or any tensor to override).
        passes: the compiler passes to run first.

    Returns:
        One value per fetch (None for Operations).
    """
    fetch_ops = [f.op if isinstance(f, SymbolicTensor) else f for f in fetches]
    found: dict = {}
    for op in ops_needed(fetch_ops, feeds):
        for t in op.inputs:
            if id(t) in feeds:
                found[id(t)] = t
        for t in op.outputs:
            if id(t) in feeds:
                found[id(t)] = t
    fed = list(found.values())
    cp = compile_fetches(fetches, fed, passes)
    values = iter(cp(*[feeds[id(t)] for t in fed]))
    return [next(values) if isinstance(f, SymbolicTensor) else None for f in fetches]


__all__ = ["compile_fetches", "fetch_program", "ops_needed", "run_graph"]
