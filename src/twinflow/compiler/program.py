"""``Program``: a graph plus the tensors fed into it and fetched from it; and ``Rewriter``.

Every pass takes a Program and returns a new one (the input is never modified). Passes build
their result with a ``Rewriter``, which copies ops into a fresh Graph, keeping each op's name,
attrs, device and the user's source line, so the optimized graph still reads like the traced one.
"""
from __future__ import annotations

import numpy as np

from ..core import dtypes
from ..core.shapes import TensorShape
from ..graph.core_ops import Const
from ..graph.graph import Graph, Operation
from ..graph.tensor import SymbolicTensor


class Program:
    """A graph to run: ``inputs`` (placeholders, fed in order) and ``outputs`` (fetched).

    Args:
        graph: the Graph holding every op.
        inputs: placeholder tensors, the arguments of the compiled callable.
        outputs: tensors it returns, in order (may include inputs).
    """

    def __init__(self, graph: Graph, inputs: list, outputs: list) -> None:
        self.graph = graph
        self.inputs = list(inputs)
        self.outputs = list(outputs)

    def __repr__(self) -> str:
        return (f"<Program {len(self.graph.get_operations())} ops, {len(self.inputs)} inputs, "
                f"{len(self.outputs)} outputs>")


class Rewriter:
    """Builds a new Program from an old one, op by op.

    Args:
        src: the Program being rewritten.
    """

    def __init__(self, src: Program) -> None:
        self.src = src
        self.graph = Graph()
        self._map: dict = {}
        self._op_map: dict = {}

    def get(self, t: SymbolicTensor) -> SymbolicTensor:
        """The new tensor standing for old tensor ``t``."""
        return self._map[id(t)]

    def has(self, t: SymbolicTensor) -> bool:
        return id(t) in self._map

    def alias(self, old: SymbolicTensor, new: SymbolicTensor) -> None:
        """Makes every later use of ``old`` use ``new`` (already in the new graph)."""
        self._map[id(old)] = new

    def copy(self, op: Operation, inputs: list | None = None, attrs: dict | None = None,
             opdef=None) -> Operation:
        """Copies ``op`` (optionally with new inputs/attrs, or as another op ``opdef`` with the
        same outputs) into the new graph."""
        new_inputs = [self._map[id(t)] for t in op.inputs] if inputs is None else inputs
        specs = [(t.dtype, t.shape) for t in op.outputs]
        new = self.graph.create_op(opdef or op.opdef, new_inputs,
                                   op.attrs if attrs is None else attrs, specs, name=op.name)
        new.source = op.source
        new.device = op.device
        new.control_inputs = [self._op_map[id(c)] for c in op.control_inputs
                              if id(c) in self._op_map]
        for o, n in zip(op.outputs, new.outputs):
            self._map[id(o)] = n
        self._op_map[id(op)] = new
        return new

    def new_op(self, opdef, inputs: list, attrs: dict, specs: list, like: Operation,
               name: str | None = None) -> Operation:
        """Adds a new op, attributed to the source line of ``like``."""
        new = self.graph.create_op(opdef, inputs, attrs, specs, name=name or like.name)
        new.source = like.source
        new.device = like.device
        return new

    def const(self, value, like: Operation, name: str | None = None) -> SymbolicTensor:
        """A Const op holding ``value`` (a NumPy array or scalar)."""
        arr = value if isinstance(value, (np.ndarray, np.generic)) else np.asarray(value)
        dt = dtypes.from_numpy(arr.dtype)
        op = self.new_op(Const, [], {"value": arr, "dtype": dt},
                         [(dt, TensorShape._from_tuple(np.shape(arr)))], like, name)
        return op.outputs[0]

    def finish(self) -> Program:
        """The new Program (inputs and outputs mapped)."""
        return Program(self.graph, [self._map[id(t)] for t in self.src.inputs],
                       [self._map[id(t)] for t in self.src.outputs])


def rewrite_each(prog: Program, rule) -> tuple:
    """The common loop of a pass that looks at one op at a time.

    Args:
        prog: the Program.
        rule: ``rule(op, rw) -> bool``: True when it replaced ``op`` (aliasing its outputs in
            ``rw``); False to keep it, copied as it is unless the rule copied it itself.

    Returns:
        (new Program, number of ops replaced).
    """
    rw = Rewriter(prog)
    count = 0
    for op in prog.graph.get_operations():
        if rule(op, rw):
            count += 1
        elif id(op) not in rw._op_map:
            rw.copy(op)
    return rw.finish(), count


def const_value(t: SymbolicTensor):
    """The value of ``t`` if it is the output of a Const op, else None."""
    op = t.op
    if op.type == "Const":
        return op.attrs["value"]
    return None


def copy_program(prog: Program) -> Program:
    """A copy of ``prog`` with its own graph (ops kept in order)."""
    rw = Rewriter(prog)
    for op in prog.graph.get_operations():
        rw.copy(op)
    return rw.finish()


def bind_captures(graph: Graph, inputs: list, captures: list, outputs: list) -> Program:
    """A Program in which captured eager values are constants.

    Args:
        graph: a traced FuncGraph.
        inputs: its argument placeholders (without captures).
        captures: ``[(outer, placeholder)]``; eager outer tensors become Const ops holding
            their value (a variable handle's value is its Variable, read when the graph runs);
            symbolic ones stay inputs, appended after ``inputs``.
        outputs: the tensors to fetch.

    Returns:
        The Program; its inputs are ``inputs`` then the symbolic captures.
    """
    symbolic = [ph for outer, ph in captures if isinstance(outer, SymbolicTensor)]
    src = Program(graph, list(inputs) + symbolic, outputs)
    eager = {id(ph): outer for outer, ph in captures if not isinstance(outer, SymbolicTensor)}
    rw = Rewriter(src)
    for op in graph.get_operations():
        t = op.outputs[0] if op.type == "Placeholder" else None
        if t is not None and id(t) in eager:
            outer = eager[id(t)]
            new = rw.new_op(Const, [], {"value": outer._value, "dtype": t.dtype},
                            [(t.dtype, t.shape)], op)
            rw.alias(t, new.outputs[0])
        else:
            rw.copy(op)
    return rw.finish()
