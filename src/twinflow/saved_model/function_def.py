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
from ..ops import script_ops
from ..ops.variables import variable_of

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
    name = unique_name(name, taken)
    taken.add(name)
    return name


def unique_name(name: str, taken) -> str:
    """``name``, else the first of ``name_1``, ``name_2``... that is not in ``taken``.

    Args:
        name: the name wanted.
        taken: the names in use (anything supporting ``in``).

    Returns:
        The name.
    """
    base, i = name, 0
    while name in taken:
        i += 1
        name = f"{base}_{i}"
    return name


def _ref(op, index: int) -> str:
    """``node:output_arg:index`` of output ``index`` of ``op``."""
    if op.type in ("While", "StatelessWhile"):   # after TensorFlow's counter and maximum
        return f"{op.name}:output:{index + 2}"
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
        custom_gradient: called as ``custom_gradient(op, function_name, args)`` for each
            ``tw.custom_gradient`` op written (``args``: placeholder name -> argument name of
            the function being written); returns the ``_gradient_op_type`` under which it
            registered the gradient, or None to keep the function's own gradient.
    """

    def __init__(self, proto, custom_gradient=None) -> None:
        self.custom_gradient = custom_gradient
        self._current: list = []    # (function name, args) of the functions being written
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
            role: str | None = None, input_order: list | None = None) -> str:
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
            input_order: the positions of ``g.inputs`` in the order the function takes them
                (default: as they are).

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
                    constants or {}, input_order)
        return fname

    # ----- writing one function -----
    def _write(self, proto, g, fname: str, handle_data: list, while_role, n_vars: int,
               has_max: bool, results: list, constants: dict, order=None) -> None:
        ops = g.get_operations()
        for t in g.inputs:
            if t.op.name in constants:
                const = proto.node_def.add(name=t.op.name, op="Const")
                fill_attr(const.attr["dtype"], t.dtype)
                fill_tensor(const.attr["value"].tensor, constants[t.op.name])
        order = list(range(len(g.inputs))) if order is None else list(order)
        kept = [i for i in order if g.inputs[i].op.name not in constants]
        inputs = [g.inputs[i] for i in kept]
        handle_data = [handle_data[i] if i < len(handle_data) else None for i in kept]
        taken = {op.name.lower() for op in ops} | {"while_counter", "while_maximum"}
        args: dict = {}
        sig = proto.signature
        sig.name = fname
        lead = 2 if while_role else 0   # TensorFlow's loop counter and maximum come first
        for name in ("while_counter", "while_maximum")[:lead]:
            sig.input_arg.add(name=name, type=dtypes.int32.as_datatype_enum)
        for i, t in enumerate(inputs):
            raw = t.op.attrs.get("_user_specified_name") or t.op.name
            arg = _arg_name(str(raw), taken)
            args[t.op.name] = arg
            a = sig.input_arg.add(name=arg, type=t.dtype.as_datatype_enum)
            hd = handle_data[i] if i < len(handle_data) else None
            if hd is not None:
                h = a.handle_data.add(dtype=hd[0].as_datatype_enum)
                fill_shape(h.shape, hd[1])
            attrs = proto.arg_attr[i + lead].attr
            attrs["_user_specified_name"].s = str(raw).encode()
            fill_attr(attrs["_output_shapes"], [t.shape])
        fill_attr(proto.attr["_input_shapes"], [TensorShape([])] * lead +
                  [t.shape for t in inputs])
        by_name = {op.name: op for op in ops}
        self._current.append((fname, args))
        for op in ops:
            if op.name in args or op.name in constants:
                continue
            self._add_op(proto.node_def, op)
        self._current.pop()
        self._order_stateful(proto, ops, args, constants)
        for node in proto.node_def:
            node.input[:] = [self._input(i, by_name, args) for i in node.input]
        outputs = [self._input(_graph_name(t), by_name, args) for t in results]
        types = [t.dtype for t in results]
        if while_role == "body":   # TensorFlow's body returns every loop value
            outputs += [args[t.op.name] for t in inputs[n_vars:]]
            types += [t.dtype for t in inputs[n_vars:]]
        if while_role:
            self._while_extra(proto, while_role, has_max, outputs, types)
        for i, (ref, dt) in enumerate(zip(outputs, types)):
            sig.output_arg.add(name=f"output_{i}", type=dt.as_datatype_enum)
            proto.ret[f"output_{i}"] = ref
        if any(op.opdef.stateful and op.type != "Placeholder" for op in ops):
            sig.is_stateful = True

    @staticmethod
    def _order_stateful(proto, ops: list, args: dict, constants: dict) -> None:
        """Stateful ops run in the order they were created (as in twinflow): each waits for
        the previous one, and all are control outputs, so TensorFlow's runtime neither
        prunes an assignment nor reorders it with a read (what its automatic control
        dependencies do)."""
        nodes = {n.name: n for n in proto.node_def}
        prev = None
        for op in ops:
            if not op.opdef.stateful or op.type == "Placeholder" or op.name in args or \
                    op.name in constants or op.name not in nodes:
                continue
            if prev is not None:
                nodes[op.name].input.append("^" + prev)
            prev = op.name
            proto.control_ret[op.name] = op.name
            proto.signature.control_output.append(op.name)

    @staticmethod
    def _while_extra(proto, role: str, has_max: bool, outputs: list, types: list) -> None:
        """TensorFlow's loop counter: ``cond`` also tests it against the maximum (when there
        is one), ``body`` advances it. Rewrites ``outputs``/``types`` in place."""
        if role == "cond":
            if has_max:
                less = _node(proto, "while_counter_less", "Less", ["while_counter",
                                                                   "while_maximum"])
                both = _node(proto, "while_counter_and", "LogicalAnd",
                             [less.name + ":z:0", outputs[0]], typed=False)
                outputs[0] = both.name + ":z:0"
            return
        one = _node(proto, "while_counter_one", "Const", [], typed=False)
        fill_attr(one.attr["dtype"], dtypes.int32)
        fill_tensor(one.attr["value"].tensor, np.int32(1))
        nxt = _node(proto, "while_counter_next", "AddV2",
                    ["while_counter", one.name + ":output:0"])
        outputs[:0] = [nxt.name + ":z:0", "while_maximum"]
        types[:0] = [dtypes.int32, dtypes.int32]

    def _add_op(self, nodes, op) -> None:
        if op.type == "PyFunc":  # a tw.lookup table's state lives in Python, not the graph
            reason = getattr(script_ops.lookup_function(op.attrs["token"])[0], "unsaveable", None)
            if reason:
                raise ValueError(f"{op.name}: {reason} cannot be saved in a SavedModel by "
                                 "twinflow")
        add_node(nodes, op)
        node = nodes[-1]
        if op.type in _CONTROL_FLOW:
            self._control_flow(nodes, node, op)
        elif op.type == "CustomGradient":
            self._custom_gradient(nodes, node, op)

    def _custom_gradient(self, nodes, node, op) -> None:
        """A ``tw.custom_gradient`` op as TensorFlow writes one: an ``IdentityN`` over the
        results, the arguments and the values of the variables read, whose
        ``_gradient_op_type`` names the registered gradient function."""
        node.op = "IdentityN"
        for k in ("n_out", "T"):
            if k in node.attr:
                del node.attr[k]
        for k, t in enumerate(op.inputs):
            if t.dtype is dtypes.resource:   # TensorFlow passes the variable's value
                read = nodes.add(name=f"{op.name}/read_{k}", op="ReadVariableOp")
                read.input.append(node.input[k])
                read.attr["dtype"].type = _read_dtype(op, k).as_datatype_enum
                node.input[k] = read.name + ":value:0"
        fill_attr(node.attr["T"], [_read_dtype(op, k) if t.dtype is dtypes.resource
                                   else t.dtype for k, t in enumerate(op.inputs)])
        if self.custom_gradient is not None:
            fname, args = self._current[-1]
            kind = self.custom_gradient(op, fname, args)
            if kind:
                node.attr["_gradient_op_type"].s = kind.encode()

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
            zero = nodes.add(name=f"{op.name}/loop_counter", op="Const")
            fill_attr(zero.attr["dtype"], dtypes.int32)
            fill_tensor(zero.attr["value"].tensor, np.int32(0))
            lead = [zero.name]
            if has_max:
                lead.append(names[n])
            else:  # -1: no maximum, as TensorFlow writes it
                unbounded = nodes.add(name=f"{op.name}/maximum_iterations", op="Const")
                fill_attr(unbounded.attr["dtype"], dtypes.int32)
                fill_tensor(unbounded.attr["value"].tensor, np.int32(-1))
                lead.append(unbounded.name)
            node.input[:] = lead + names[:n] + names[n + has_max:] + controls
            fill_attr(node.attr["T"], [dtypes.int32] * 2 + [t.dtype for t in data])
            shapes = [TensorShape([])] * 2 + list(a["output_shapes"]) + \
                [t.shape for t in ins[n + has_max:]]
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
        if i.startswith("^") or i.count(":") == 2:   # a control input, or already written
            return i
        name, _, idx = i.partition(":")
        if name in args:
            return args[name]
        op = by_name.get(name)
        if op is None:  # a Const that add_node wrote for an attr TensorFlow takes as input
            return f"{name}:output:{int(idx or 0)}"
        return _ref(op, int(idx or 0))


def _read_dtype(op, k: int):
    """The dtype of the variable behind resource input ``k`` of a CustomGradient op (its
    gradient has that dtype)."""
    var = variable_of(op.inputs[k])
    if var is None:
        raise ValueError(f"{op.name}: a tw.custom_gradient input is a resource that is not a "
                         "variable; it cannot be saved")
    return var.dtype


def _graph_name(t) -> str:
    return t.op.name if t.value_index == 0 else f"{t.op.name}:{t.value_index}"


def _node(proto, name: str, op: str, inputs: list, typed: bool = True):
    node = proto.node_def.add(name=name, op=op)
    node.input.extend(inputs)
    if typed:
        node.attr["T"].type = dtypes.int32.as_datatype_enum
    return node
