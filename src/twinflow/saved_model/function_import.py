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

import inspect

from ..autodiff.custom_gradient import CustomGradient
from ..control.cond import Case, If, StatelessCase, StatelessIf
from ..control.subgraph import finish, trace
from ..control.while_loop import StatelessWhile, While
from ..core import dtypes, errors
from ..core.shapes import TensorShape
from ..eager.execute import bind
from ..graph.graph import get_default_graph
from ..graph.graph_def import TF_INPUT_ATTRS, fill_attr, shape_of_proto, window_attrs
from ..graph.registry import REGISTRY, load_all_op_families
from ..graph.tf_defaults import TF_DEFAULTS
from ..ops.core import ZerosLike
from ..ops.scopes import get_static_value
from .function_def import output_args
from .graph_import import _attr_value, _op_attrs, _ordered, input_attr_value, tensor_of_proto
from .tf_lists import TF_LIST_OPS, import_list_op

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
        # _gradient_op_type -> (gradient function, its captures: ("tensor", name in the
        # forward function) or ("variable", Variable)); set by the loader.
        self.gradients: dict = {}

    def missing_ops(self, names: list) -> list:
        """The op types that ``names`` (and the functions they call) use and twinflow lacks
        (after importing every op family: the answer does not depend on what was imported).

        Args:
            names: function names.

        Returns:
            The missing op types, in the order first met.
        """
        missing = self._missing(names)
        if missing:
            load_all_op_families()
            missing = self._missing(names)
        return missing

    def _missing(self, names: list) -> list:
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
                        node.op != "IdentityN" and \
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
            if node.op == "IdentityN":
                nodes[node.name] = (None, self._identity_n(node, inputs, values, nodes))
                return
            if node.op in _IFS:
                outs = self._branches(node, inputs, shapes)
            elif node.op in _WHILES:   # outputs in TensorFlow's order
                nodes[node.name] = (None, self._while(node, inputs, shapes))
                return
            elif node.op in TF_LIST_OPS:
                outs = import_list_op(node, data, inputs, consts)
            else:
                outs = self._plain(node, data, inputs, consts, shapes)
        op = outs[0].op if outs else g.get_operations()[-1]
        nodes[node.name] = (op.opdef, list(op.outputs), op)
        if node.op == "Const":
            consts[node.name] = tensor_of_proto(node.attr["value"].tensor)

    def _identity_n(self, node, inputs: list, values: dict, nodes: dict) -> list:
        """``IdentityN``: with a registered ``_gradient_op_type``, one CustomGradient op whose
        gradient calls the saved gradient function; else an Identity per input."""
        kind = node.attr["_gradient_op_type"].s.decode() \
            if "_gradient_op_type" in node.attr else None
        if kind not in self.gradients:
            return [bind(REGISTRY["Identity"], [t], {}, name=f"{node.name}/{i}")
                    for i, t in enumerate(inputs)]
        fname, captures = self.gradients[kind]

        def grad_fn(op, dys):
            dys = [dy if dy is not None else bind(ZerosLike, [op.outputs[i]])
                   for i, dy in enumerate(dys)]
            caps = [ref.handle if what == "variable" else
                    _in_graph(_by_graph_name(ref, values, nodes), op.graph)
                    for what, ref in captures]
            return self.call(fname, dys + caps)

        return list(bind(CustomGradient, inputs, {"n_out": len(inputs), "grad_fn": grad_fn},
                         name=node.name))

    def _plain(self, node, data: list, inputs: list, consts: dict, shapes: dict) -> list:
        if node.op not in REGISTRY:
            raise errors.NotFoundError(None, None, f"Op type not registered '{node.op}': "
                                                   "twinflow has no such op")
        opdef = REGISTRY[node.op]
        if opdef.schema is None:   # no schema to map attrs: they pass under TensorFlow's names
            attrs = _schemaless_attrs(node, opdef)
        else:
            attrs = _op_attrs(_with_defaults(node, opdef), opdef)
        if node.op in TF_INPUT_ATTRS and opdef.schema is not None and \
                len(data) > len(opdef.schema.inputs) - any(s.variadic
                                                           for s in opdef.schema.inputs):
            attr, _, pos = TF_INPUT_ATTRS[node.op]
            value = consts.get(_producer(data[pos]))
            if value is None:  # computed from constants (a Range over the rank): folded
                value = get_static_value(inputs[pos])
            if value is None:
                raise errors.UnimplementedError(
                    None, None, f"its {attr} must be a constant to import (twinflow takes it "
                                f"as an attr), got {data[pos]!r}")
            kind = opdef.schema.attrs[attr].kind
            attrs[attr] = input_attr_value(value, kind)
            inputs = inputs[:pos % len(inputs)] + inputs[pos % len(inputs) + 1:]
        _derived_type_attrs(opdef, inputs, attrs)
        if node.op == "ReadVariableOp":
            known = shapes.get(id(inputs[0]))
            attrs["shape"] = known[1] if known else TensorShape(None)
        out = bind(opdef, inputs, attrs, name=node.name)
        return list(out) if isinstance(out, (list, tuple)) else [out]

    def _graph(self, fname: str, specs: list, outer: list, shapes: dict):
        g, outs = trace(lambda *phs: self.call(fname, list(phs), _inner(phs, outer, shapes)),
                        specs, fname)
        finish(g, outs)
        return g

    def _branches(self, node, inputs: list, rshapes: dict) -> list:
        ins = inputs[1:]
        specs = [(t.dtype, t.shape) for t in ins]
        if node.op in ("If", "StatelessIf"):
            names = [node.attr["then_branch"].func.name, node.attr["else_branch"].func.name]
        else:
            names = [f.name for f in node.attr["branches"].list.func]
        graphs = [self._graph(n, specs, ins, rshapes) for n in names]
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

    def _while(self, node, inputs: list, rshapes: dict) -> list:
        given = [shape_of_proto(s) for s in node.attr["output_shapes"].list.shape] \
            if "output_shapes" in node.attr else []
        shapes = [given[i] if i < len(given) else TensorShape(None)
                  for i in range(len(inputs))]
        body_name = node.attr["body"].func.name
        # Values the body passes through unchanged are captures in twinflow's While (after
        # the loop variables): a variable handle then gets its gradient as a capture.
        fixed = set(self._passthrough(body_name))
        order = [i for i in range(len(inputs)) if i not in fixed] + sorted(fixed)
        n_vars = len(inputs) - len(fixed)
        back = {j: i for i, j in enumerate(order)}

        def in_tf_order(phs):
            return [phs[back[j]] for j in range(len(inputs))]

        specs = [(inputs[j].dtype, shapes[j]) for j in order]
        def run(fname, phs):
            tf_order = in_tf_order(phs)
            return self.call(fname, tf_order, _inner(tf_order, inputs, rshapes))

        cond, c = trace(lambda *phs: run(node.attr["cond"].func.name, phs), specs,
                        "while_cond")
        finish(cond, c)
        body, b = trace(lambda *phs: run(body_name, phs), specs, "while_body")
        finish(body, [b[j] for j in order[:n_vars]])
        attrs = {"cond": cond, "body": body, "T": [inputs[j].dtype for j in order[:n_vars]],
                 "output_shapes": [shapes[j] for j in order[:n_vars]], "n_vars": n_vars,
                 "has_max": False,
                 "parallel_iterations": int(_attr_value(node.attr["parallel_iterations"]))
                 if "parallel_iterations" in node.attr else 10}
        res = bind(_WHILES[node.op], [inputs[j] for j in order], attrs, name=node.name)
        out = list(inputs)
        for k, j in enumerate(order[:n_vars]):
            out[j] = res[k]
        return out

    def _passthrough(self, fname: str) -> list:
        """The argument positions a loop body returns unchanged (directly or through
        Identity nodes)."""
        fdef = self.fdef(fname)
        args = [a.name for a in fdef.signature.input_arg]
        nodes = {n.name: n for n in fdef.node_def}
        out = []
        for i, a in enumerate(fdef.signature.output_arg):
            ref = fdef.ret[a.name]
            for _ in range(8):
                src = nodes.get(_producer(ref))
                if src is None or src.op != "Identity":
                    break
                ref = src.input[0]
            if i < len(args) and ref == args[i]:
                out.append(i)
        return out


def _by_graph_name(ref: str, values: dict, nodes: dict):
    """A forward tensor named as in a graph (``node:index``, or an argument ``arg:0``)."""
    name, _, idx = ref.rpartition(":")
    if name in values:
        return values[name][0]
    if name not in nodes:
        raise errors.NotFoundError(None, None, f"a gradient function captures {ref!r}, which "
                                               "its forward function does not have")
    return nodes[name][1][int(idx)]


def _schemaless_attrs(node, opdef) -> dict:
    """The attrs of an op twinflow declares without a schema: TensorFlow's, by name; a type
    attr its declaration does not take (it follows from an input) is dropped, any other it
    does not take is an error."""
    attrs = window_attrs(node.op, {k: _attr_value(v) for k, v in node.attr.items()
                                   if not k.startswith("_")}, to_tf=False)
    params = inspect.signature(opdef.infer).parameters
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return attrs
    for k in [k for k in attrs if k not in params]:
        if node.attr[k].WhichOneof("value") != "type":
            raise errors.UnimplementedError(None, None, f"attr {k!r} of TensorFlow's {node.op} "
                                                        "is not supported by twinflow's")
        del attrs[k]
    return attrs


def _derived_type_attrs(opdef, inputs: list, attrs: dict) -> None:
    """Type attrs (``Tidx``) that twinflow's op takes although they follow from its inputs:
    set from the inputs' dtypes."""
    params = inspect.signature(opdef.infer).parameters if opdef.infer else {}
    pos = 0
    for spec in opdef.schema.inputs if opdef.schema is not None else ():
        t = spec.type_attr
        if t and t not in attrs and t in params and pos < len(inputs):
            attrs[t] = inputs[pos].dtype
        pos += 1


def _with_defaults(node, opdef):
    """``node`` with TensorFlow's default value of each attr it omits (TensorFlow strips
    them on save) that twinflow's op requires, and without type attrs twinflow's op derives
    from its inputs (an assignment's ``dtype``)."""
    missing = {k: v for (op, k), v in TF_DEFAULTS.items() if op == node.op and
               k not in node.attr}
    known = {s.tf_name for s in opdef.schema.attrs.values()} | \
        {s.type_attr for s in opdef.schema.inputs if s.type_attr}
    derived = [k for k, v in node.attr.items() if v.WhichOneof("value") == "type" and
               k not in known and not k.startswith("_")]
    if not missing and not derived:
        return node
    full = type(node)()
    full.CopyFrom(node)
    for k in derived:
        del full.attr[k]
    for k, v in missing.items():
        fill_attr(full.attr[k], list(v) if isinstance(v, tuple) else v)
    return full


def _in_graph(t, graph):
    """``t``, or the tensor of the same name in ``graph`` (the copy of the forward graph a
    gradient is traced from)."""
    if t.graph is graph:
        return t
    try:
        return graph.get_tensor_by_name(t.name)
    except (KeyError, ValueError):
        return t


def _inner(phs, outer: list, shapes: dict) -> dict:
    """The variable (dtype, shape) of each resource placeholder, from its outer tensor."""
    return {id(p): shapes[id(o)] for p, o in zip(phs, outer) if id(o) in shapes}
