"""A traced graph as TensorFlow's ``FunctionDef`` (what a SavedModel's function library holds).

A FunctionDef names its inputs as TensorFlow's function runtime does: an argument by its name,
any other tensor as ``node:output_arg:index`` (``MatMul:product:0``), the output argument
names coming from each op's schema. Functional control flow is written as TensorFlow's:

* ``If``/``StatelessIf``/``Case`` get ``Tcond``/``Tin``; their branches are FunctionDefs.
* ``While``/``StatelessWhile``: twinflow's loop takes the captured tensors after the loop
  variables and its body returns only the loop variables; TensorFlow's loop carries every
  input, so the body's FunctionDef passes the captures through. A maximum number of
  iterations becomes two more loop values (a counter and the limit) that the written
  ``cond``/``body`` test and advance, as TensorFlow's ``while_loop`` does.

``Library`` collects the FunctionDefs of one SavedModel with unique names.
"""
from __future__ import annotations

import re

import numpy as np

from ..core import dtypes
from ..core.shapes import TensorShape
from ..graph.graph_def import add_node, fill_attr, fill_shape, fill_tensor

__all__ = ["Library", "output_args", "LIST_OUTPUT_OPS"]

# Ops whose outputs are one list argument named ``output`` in TensorFlow.
LIST_OUTPUT_OPS = frozenset({"If", "StatelessIf", "While", "StatelessWhile", "Case",
                             "StatelessCase", "StatefulPartitionedCall", "PartitionedCall",
                             "IdentityN", "CustomGradient"})
# TensorFlow's output argument names of ops that have no schema here.
_OUTPUT_NAMES = {**{op: ("y",) for op in (
    "Lgamma", "Digamma", "Erfinv", "Ndtri", "BesselI0", "BesselI0e", "BesselI1", "BesselI1e",
    "BesselJ0", "BesselJ1", "BesselY0", "BesselY1", "BesselK0", "BesselK0e", "BesselK1",
    "BesselK1e", "Dawsn", "Expint", "FresnelCos", "FresnelSin", "Spence")},
    "UniqueWithCounts": ("y", "idx", "count"), "HistogramFixedWidth": ("out",),
    "Timestamp": ("ts",)}
_CONTROL_FLOW = ("If", "StatelessIf", "While", "StatelessWhile", "Case", "StatelessCase")


def output_args(opdef, n_outputs: int) -> list:
    """TensorFlow's output arguments of an op: [(name, number of tensors)].

    Args:
        opdef: the twinflow OpDef.
        n_outputs: how many outputs the op has.

    Returns:
        The output arguments in order.
    """
    if opdef.name in LIST_OUTPUT_OPS:
        return [("output", n_outputs)]
    if opdef.name in _OUTPUT_NAMES:
        return [(n, 1) for n in _OUTPUT_NAMES[opdef.name]]
    schema = opdef.schema
    if schema is None or not schema.outputs:
        return [("output", n_outputs)]
    n_var = n_outputs - (len(schema.outputs) - 1)
    return [(s.tf_name, n_var if s.variadic else 1) for s in schema.outputs]


def _arg_name(raw: str, taken: set) -> str:
    """A valid, unique FunctionDef argument name (``[a-z][a-z0-9_]*``)."""
    name = re.sub(r"[^a-z0-9_]", "_", raw.lower()) or "arg"
    if not name[0].isalpha():
        name = "arg_" + name
    base, i = name, 0
    while name in taken:
        i += 1
        name = f"{base}_{i}"
    taken.add(name)
    return name


def _ref(op, index: int) -> str:
    """``node:output_arg:index`` of output ``index`` of ``op``."""
    start = 0
    for name, count in output_args(op.opdef, len(op.outputs)):
        if index < start + count:
            return f"{op.name}:{name}:{index - start}"
        start += count
    return f"{op.name}:output:{index}"


class Library:
    """The FunctionDefs of one SavedModel: sub-graphs get unique names, written once.

    Args:
        proto: the ``FunctionDefLibrary`` message to fill.
    """

    def __init__(self, proto) -> None:
        self.proto = proto
        self._names: dict = {}      # id(graph) -> function name
        self._keep: list = []       # graphs named (their ids stay unique)
        self._used = {f.signature.name for f in proto.function}

    def unique(self, base: str) -> str:
        """A function name not used yet in the library.

        Args:
            base: the wanted name.

        Returns:
            ``base`` or ``base_N``.
        """
        name = re.sub(r"[^A-Za-z0-9_.\-]", "_", base) or "function"
        out, i = name, 0
        while out in self._used:
            i += 1
            out = f"{name}_{i}"
        self._used.add(out)
        return out

    def add(self, g, name: str | None = None, handle_data: list | None = None,
            while_role: str | None = None, n_vars: int = 0, has_max: bool = False,
            outputs: list | None = None, constants: dict | None = None,
            role: str | None = None) -> str:
        """Writes the FunctionDef of a graph (once per graph and role) and returns its name.

        Args:
            g: a FuncGraph (``inputs`` placeholders, ``outputs``).
            name: the function name (default: a unique one from ``g.name``).
            handle_data: per input, (dtype, shape) of the variable a resource input holds, or
                None.
            while_role: ``"cond"``/``"body"`` for the sub-graphs of a While (see the module
                docstring).
            n_vars: the While's number of loop variables.
            has_max: the While has a maximum number of iterations.
            outputs: the tensors to return instead of ``g.outputs``.
            constants: placeholder name -> array: inputs written as Const nodes.
            role: distinguishes functions written from the same graph (a signature).

        Returns:
            The function's name.
        """
        key = (id(g), while_role, has_max, role)
        if key in self._names:
            return self._names[key]
        fname = self.unique(name or str(g.name))
        self._names[key] = fname
        self._keep.append(g)
        self._write(self.proto.function.add(), g, fname, handle_data or [], while_role,
                    n_vars, has_max, list(g.outputs) if outputs is None else list(outputs),
                    constants or {})
        return fname

    # ----- writing one function -----
    def _write(self, proto, g, fname: str, handle_data: list, while_role, n_vars: int,
               has_max: bool, results: list, constants: dict) -> None:
        ops = g.get_operations()
        for t in g.inputs:
            if t.op.name in constants:
                const = proto.node_def.add(name=t.op.name, op="Const")
                fill_attr(const.attr["dtype"], t.dtype)
                fill_tensor(const.attr["value"].tensor, constants[t.op.name])
        kept = [i for i, t in enumerate(g.inputs) if t.op.name not in constants]
        inputs = [g.inputs[i] for i in kept]
        handle_data = [handle_data[i] if i < len(handle_data) else None for i in kept]
        taken = {op.name.lower() for op in ops}
        args: dict = {}
        sig = proto.signature
        sig.name = fname
        for i, t in enumerate(inputs):
            raw = t.op.attrs.get("_user_specified_name") or t.op.name
            arg = _arg_name(str(raw), taken)
            args[t.op.name] = arg
            a = sig.input_arg.add(name=arg, type=t.dtype.as_datatype_enum)
            hd = handle_data[i] if i < len(handle_data) else None
            if hd is not None:
                h = a.handle_data.add(dtype=hd[0].as_datatype_enum)
                fill_shape(h.shape, hd[1])
            attrs = proto.arg_attr[i].attr
            attrs["_user_specified_name"].s = str(raw).encode()
            fill_attr(attrs["_output_shapes"], [t.shape])
        fill_attr(proto.attr["_input_shapes"], [t.shape for t in inputs])
        by_name = {op.name: op for op in ops}
        for op in ops:
            if op.name in args or op.name in constants:
                continue
            self._add_op(proto.node_def, op)
        for node in proto.node_def:
            node.input[:] = [self._input(i, by_name, args) for i in node.input]
        outputs = [self._input(_graph_name(t), by_name, args) for t in results]
        if while_role == "body":   # TensorFlow's body returns every loop value
            outputs += [args[t.op.name] for t in inputs[n_vars:]]
        extra = self._while_extra(proto, sig, while_role, has_max, outputs)
        for i, ref in enumerate(outputs):
            t_dtype = results[i].dtype if i < len(results) else \
                (inputs[i].dtype if i < len(inputs) else extra[i - len(inputs)])
            sig.output_arg.add(name=f"output_{i}", type=t_dtype.as_datatype_enum)
            proto.ret[f"output_{i}"] = ref
        if any(op.opdef.stateful and op.type != "Placeholder" for op in ops):
            sig.is_stateful = True

    def _while_extra(self, proto, sig, role, has_max: bool, outputs: list) -> list:
        """For a While with a maximum: the counter and limit arguments, and the nodes that
        test (cond) or advance (body) them. Rewrites ``outputs`` in place."""
        if role is None or not has_max:
            return []
        for name in ("while_counter", "while_maximum"):
            sig.input_arg.add(name=name, type=dtypes.int32.as_datatype_enum)
        if role == "cond":
            less = _node(proto, "while_counter_less", "Less", ["while_counter",
                                                               "while_maximum"])
            both = _node(proto, "while_counter_and", "LogicalAnd",
                         [less.name + ":z:0", outputs[0]], typed=False)
            outputs[0] = both.name + ":z:0"
            return []
        one = _node(proto, "while_counter_one", "Const", [], typed=False)
        fill_attr(one.attr["dtype"], dtypes.int32)
        fill_tensor(one.attr["value"].tensor, np.int32(1))
        nxt = _node(proto, "while_counter_next", "AddV2",
                    ["while_counter", one.name + ":output:0"])
        outputs += [nxt.name + ":z:0", "while_maximum"]
        return [dtypes.int32, dtypes.int32]

    def _add_op(self, nodes, op) -> None:
        add_node(nodes, op)
        node = nodes[-1]
        if op.type in _CONTROL_FLOW:
            self._control_flow(nodes, node, op)
        elif op.type == "CustomGradient":
            raise ValueError(
                "this function uses tw.custom_gradient, which a SavedModel does not keep: "
                "save it with tw.saved_model.SaveOptions(experimental_custom_gradients=False) "
                "to save the function's own gradient instead")

    def _control_flow(self, nodes, node, op) -> None:
        a = op.attrs
        for k in ("T", "n_vars", "has_max", "cond", "body", "then_branch", "else_branch",
                  "branches", "output_shapes", "parallel_iterations"):
            if k in node.attr:
                del node.attr[k]
        ins = list(op.inputs)
        if op.type in ("While", "StatelessWhile"):
            n, has_max = a["n_vars"], bool(a["has_max"])
            names = list(node.input[:len(ins)])
            controls = list(node.input[len(ins):])
            data = ins[:n] + ins[n + has_max:]
            new = names[:n] + names[n + has_max:]
            if has_max:  # a counter from 0 and the limit: two more loop values
                zero = nodes.add(name=f"{op.name}/while_counter_start", op="Const")
                fill_attr(zero.attr["dtype"], dtypes.int32)
                fill_tensor(zero.attr["value"].tensor, np.int32(0))
                new += [zero.name, names[n]]
            node.input[:] = new + controls
            fill_attr(node.attr["T"], [t.dtype for t in data] + [dtypes.int32] * (2 * has_max))
            shapes = list(a["output_shapes"]) + [t.shape for t in ins[n + has_max:]] + \
                [TensorShape([])] * (2 * has_max)
            fill_attr(node.attr["output_shapes"], shapes)
            node.attr["parallel_iterations"].i = int(a.get("parallel_iterations", 10))
            node.attr["cond"].func.name = self.add(a["cond"], None, None, "cond", n, has_max)
            node.attr["body"].func.name = self.add(a["body"], None, None, "body", n, has_max)
            return
        fill_attr(node.attr["Tin"], [t.dtype for t in ins[1:]])
        fill_attr(node.attr["output_shapes"], list(a["output_shapes"]))
        if op.type in ("If", "StatelessIf"):
            node.attr["Tcond"].type = ins[0].dtype.as_datatype_enum
            node.attr["then_branch"].func.name = self.add(a["then_branch"])
            node.attr["else_branch"].func.name = self.add(a["else_branch"])
        else:
            lst = node.attr["branches"].list
            for g in a["branches"]:
                lst.func.add(name=self.add(g))

    @staticmethod
    def _input(i: str, by_name: dict, args: dict) -> str:
        if i.startswith("^"):
            return i
        name, _, idx = i.partition(":")
        if name in args:
            return args[name]
        op = by_name.get(name)
        if op is None:  # a Const that add_node wrote for an attr TensorFlow takes as input
            return f"{name}:output:{int(idx or 0)}"
        return _ref(op, int(idx or 0))


def _graph_name(t) -> str:
    return t.op.name if t.value_index == 0 else f"{t.op.name}:{t.value_index}"


def _node(proto, name: str, op: str, inputs: list, typed: bool = True):
    node = proto.node_def.add(name=name, op=op)
    node.input.extend(inputs)
    if typed:
        node.attr["T"].type = dtypes.int32.as_datatype_enum
    return node
