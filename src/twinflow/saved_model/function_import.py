"""TensorFlow's ``FunctionDef`` s back into twinflow graphs (how ``tw.saved_model.load``
rebuilds a SavedModel's functions, whoever wrote them).

``FunctionImporter.call(name, inputs)`` adds the body of function ``name`` to the graph being
built, on ``inputs`` (one tensor per argument), and returns its outputs. Calls of other
functions (``StatefulPartitionedCall``/``PartitionedCall``) are inlined; ``If``/``Case``/
``While`` (and their stateless forms) get sub-graphs built from their function attrs, as
``tw.cond``/``tw.while_loop`` build them. Attrs TensorFlow passes as inputs (a reduction's
axes) must come from a ``Const``. Nothing is evaluated but the graph's own ops.
"""
from __future__ import annotations

from ..control.cond import Case, If, StatelessCase, StatelessIf
from ..control.subgraph import finish, trace
from ..control.while_loop import StatelessWhile, While
from ..core import dtypes, errors
from ..core.shapes import TensorShape
from ..eager.execute import bind
from ..graph.graph import get_default_graph
from ..graph.graph_def import TF_INPUT_ATTRS, shape_of_proto
from ..graph.registry import REGISTRY
from .function_def import output_args
from .graph_import import _attr_value, _op_attrs, _ordered, tensor_of_proto

__all__ = ["FunctionImporter"]

_CALLS = ("StatefulPartitionedCall", "PartitionedCall")
_IFS = {"If": If, "StatelessIf": StatelessIf, "Case": Case, "StatelessCase": StatelessCase}
_WHILES = {"While": While, "StatelessWhile": StatelessWhile}
def _producer(ref: str) -> str:
    return ref[1:] if ref.startswith("^") else ref.split(":")[0]


class FunctionImporter:
    """Imports the FunctionDefs of a library into twinflow graphs.

    Args:
        library: a ``FunctionDefLibrary`` message.
    """

    def __init__(self, library) -> None:
        self.fdefs = {f.signature.name: f for f in library.function}

    def missing_ops(self, names: list) -> list:
        """The op types that ``names`` (and the functions they call) use and twinflow lacks.

        Args:
            names: function names.

        Returns:
            The missing op types, in the order first met.
        """
        seen, missing, stack = set(), [], list(names)
        while stack:
            fname = stack.pop(0)
            if fname in seen or fname not in self.fdefs:
                continue
            seen.add(fname)
            for node in self.fdefs[fname].node_def:
                if node.op in self.fdefs:
                    stack.append(node.op)
                elif node.op not in REGISTRY and node.op not in _CALLS and \
                        node.op not in missing:
                    missing.append(node.op)
                for v in node.attr.values():
                    if v.WhichOneof("value") == "func":
                        stack.append(v.func.name)
                    elif v.WhichOneof("value") == "list":
                        stack.extend(f.name for f in v.list.func)
        return missing

    def fdef(self, name: str):
        """The FunctionDef called ``name``.

        Args:
            name: the function name.

        Returns:
            The FunctionDef message.
        """
        if name not in self.fdefs:
            raise errors.NotFoundError(None, None, f"function {name!r} is not in the "
                                                   "SavedModel's function library")
        return self.fdefs[name]

    def call(self, name: str, inputs: list, resource_shapes: dict | None = None) -> list:
        """Adds function ``name``'s body to the graph being built.

        Args:
            name: the function name.
            inputs: one tensor per argument.
            resource_shapes: id(resource tensor) -> (dtype, shape) of the variable it holds.

        Returns:
            The function's output tensors.
        """
        fdef = self.fdef(name)
        args = fdef.signature.input_arg
        if len(inputs) != len(args):
            raise errors.InvalidArgumentError(None, None, f"function {name!r} takes "
                                                          f"{len(args)} inputs, got {len(inputs)}")
        shapes = dict(resource_shapes or {})
        for a, t in zip(args, inputs):
            if a.handle_data and id(t) not in shapes:
                h = a.handle_data[0]
                shapes[id(t)] = (dtypes.as_dtype(h.dtype), shape_of_proto(h.shape))
        values = {a.name: [t] for a, t in zip(args, inputs)}
        nodes: dict = {}
        consts: dict = {}
        for node in _ordered(list(fdef.node_def)):
            try:
                self._import_node(node, values, nodes, consts, shapes)
            except errors.OpError as e:
                raise type(e)(None, None, f"function {name!r}, node {node.name!r} "
                                          f"({node.op}): {e.message}") from None
        return [self._tensor(fdef.ret[a.name], values, nodes) for a in fdef.signature.output_arg]

    # ----- one node -----
    def _tensor(self, ref: str, values: dict, nodes: dict):
        parts = ref.split(":")
        if parts[0] in values and len(parts) == 1:
            return values[parts[0]][0]
        if parts[0] not in nodes:
            raise errors.InvalidArgumentError(None, None, f"input {ref!r} is not in the "
                                                          "function")
        opdef, outs = nodes[parts[0]][:2]
        if len(parts) == 1:
            return outs[0]
        if len(parts) == 2:  # GraphDef style ``node:index``
            return outs[int(parts[1])]
        start = 0
        for arg, count in ([("output", len(outs))] if opdef is None
                           else output_args(opdef, len(outs))):
            if arg == parts[1]:
                return outs[start + int(parts[2])]
            start += count
        return outs[int(parts[2])]   # an output name that differs: its index in the list

    def _import_node(self, node, values: dict, nodes: dict, consts: dict, shapes: dict):
        data = [i for i in node.input if not i.startswith("^")]
        controls = [nodes[_producer(i)][2] for i in node.input
                    if i.startswith("^") and _producer(i) in nodes
                    and len(nodes[_producer(i)]) > 2]
        inputs = [self._tensor(i, values, nodes) for i in data]
        g = get_default_graph()
        with g.control_dependencies(controls):
            if node.op in _CALLS or node.op in self.fdefs:
                fname = node.attr["f"].func.name if node.op in _CALLS else node.op
                outs = self.call(fname, inputs, shapes)
                nodes[node.name] = (None, outs)
                return
            if node.op in _IFS:
                outs = self._branches(node, inputs)
            elif node.op in _WHILES:
                outs = self._while(node, inputs)
            else:
                outs = self._plain(node, data, inputs, consts, shapes)
        op = outs[0].op if outs else g.get_operations()[-1]
        nodes[node.name] = (op.opdef, list(op.outputs), op)
        if node.op == "Const":
            consts[node.name] = tensor_of_proto(node.attr["value"].tensor)

    def _plain(self, node, data: list, inputs: list, consts: dict, shapes: dict) -> list:
        if node.op not in REGISTRY:
            raise errors.NotFoundError(None, None, f"Op type not registered '{node.op}': "
                                                   "twinflow has no such op")
        opdef = REGISTRY[node.op]
        attrs = _op_attrs(node, opdef)
        if node.op in TF_INPUT_ATTRS and opdef.schema is not None and \
                len(data) > len(opdef.schema.inputs) - any(s.variadic
                                                           for s in opdef.schema.inputs):
            attr, _, pos = TF_INPUT_ATTRS[node.op]
            src = _producer(data[pos])
            if src not in consts:
                raise errors.UnimplementedError(
                    None, None, f"its {attr} must be a Const to import (twinflow takes it as "
                                f"an attr), got {data[pos]!r}")
            value = consts[src]
            kind = opdef.schema.attrs[attr].kind
            attrs[attr] = int(value) if kind == "int" or value.ndim == 0 else \
                tuple(value.reshape(-1).tolist())
            inputs = inputs[:pos % len(inputs)] + inputs[pos % len(inputs) + 1:]
        if node.op == "ReadVariableOp":
            known = shapes.get(id(inputs[0]))
            attrs["shape"] = known[1] if known else TensorShape(None)
        out = bind(opdef, inputs, attrs, name=node.name)
        return list(out) if isinstance(out, (list, tuple)) else [out]

    def _graph(self, fname: str, specs: list):
        g, outs = trace(lambda *phs: self.call(fname, list(phs)), specs, fname)
        finish(g, outs)
        return g

    def _branches(self, node, inputs: list) -> list:
        ins = inputs[1:]
        specs = [(t.dtype, t.shape) for t in ins]
        if node.op in ("If", "StatelessIf"):
            names = [node.attr["then_branch"].func.name, node.attr["else_branch"].func.name]
        else:
            names = [f.name for f in node.attr["branches"].list.func]
        graphs = [self._graph(n, specs) for n in names]
        tout = [dtypes.as_dtype(t) for t in node.attr["Tout"].list.type]
        shapes = []
        for i in range(len(tout)):
            sh = graphs[0].outputs[i].shape
            for gg in graphs[1:]:
                sh = sh.most_specific_compatible_shape(gg.outputs[i].shape)
            shapes.append(sh)
        if node.op in ("If", "StatelessIf"):
            attrs = {"then_branch": graphs[0], "else_branch": graphs[1], "Tout": tout,
                     "output_shapes": shapes}
        else:
            attrs = {"branches": graphs, "Tout": tout, "output_shapes": shapes}
        return list(bind(_IFS[node.op], inputs, attrs, name=node.name))

    def _while(self, node, inputs: list) -> list:
        given = [shape_of_proto(s) for s in node.attr["output_shapes"].list.shape] \
            if "output_shapes" in node.attr else []
        shapes = [given[i] if i < len(given) else TensorShape(None)
                  for i in range(len(inputs))]
        specs = [(t.dtype, sh) for t, sh in zip(inputs, shapes)]
        cond = self._graph(node.attr["cond"].func.name, specs)
        body = self._graph(node.attr["body"].func.name, specs)
        attrs = {"cond": cond, "body": body, "T": [t.dtype for t in inputs],
                 "output_shapes": shapes, "n_vars": len(inputs), "has_max": False,
                 "parallel_iterations": int(_attr_value(node.attr["parallel_iterations"]))
                 if "parallel_iterations" in node.attr else 10}
        return list(bind(_WHILES[node.op], inputs, attrs, name=node.name))[:len(inputs)]
