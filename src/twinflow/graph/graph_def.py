"""GraphDef: a serializable description of a Graph, printed like TensorFlow's text format."""
from __future__ import annotations

import numpy as np

from ..core import dtypes
from ..core.shapes import TensorShape

GRAPH_DEF_VERSION = 1645

# TensorFlow's enum names where they differ from "DT_" + the dtype's name in upper case.
_DT_NAMES = {"float32": "DT_FLOAT", "float64": "DT_DOUBLE", "float16": "DT_HALF"}
# Private attrs TensorFlow itself prints.
_PRINTED_PRIVATE = ("_user_specified_name", "_output_shapes")


def dt_name(dtype) -> str:
    """The ``DataType`` enum name TensorFlow prints for ``dtype`` (``DT_FLOAT``...)."""
    return _DT_NAMES.get(dtype.name, f"DT_{dtype.name.upper()}")


class AttrValue:
    """One attribute value; prints as TensorFlow's ``AttrValue`` text proto."""

    def __init__(self, value) -> None:
        self.value = value

    def lines(self) -> list:
        v = self.value
        if isinstance(v, dtypes.DType):
            return [f"type: {dt_name(v)}"]
        if isinstance(v, TensorShape):
            return _shape_lines(v)
        if isinstance(v, bool):
            return [f"b: {'true' if v else 'false'}"]
        if isinstance(v, (int, np.integer)):
            return [f"i: {int(v)}"]
        if isinstance(v, (float, np.floating)):
            return [f"f: {float(v)!r}"]
        if isinstance(v, str):
            return [f's: "{_escape(v)}"']
        if isinstance(v, np.ndarray) or np.isscalar(v) and not isinstance(v, str):
            return _tensor_lines(np.asarray(v))
        if isinstance(v, (list, tuple)):
            inner = []
            for item in v:
                inner.extend(AttrValue(item).lines())
            return ["list {"] + ["  " + x for x in inner] + ["}"]
        if v is None:
            return ["list {", "}"]
        if hasattr(v, "get_operations") and hasattr(v, "name"):
            return ["func {", f'  name: "{_escape(str(v.name))}"', "}"]
        return [f's: "{_escape(repr(v))}"']


def _escape(s: str) -> str:
    return s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def _shape_lines(shape: TensorShape) -> list:
    if shape.rank is None:
        return ["shape {", "  unknown_rank: true", "}"]
    body = []
    for d in shape.as_list():
        body += ["  dim {", f"    size: {-1 if d is None else d}", "  }"]
    return ["shape {"] + body + ["}"]


def _tensor_lines(arr: np.ndarray) -> list:
    dt = dtypes.from_numpy(arr.dtype)
    body = [f"  dtype: {dt_name(dt)}", "  tensor_shape {"]
    for d in arr.shape:
        body += ["    dim {", f"      size: {d}", "    }"]
    body.append("  }")
    flat = arr.reshape(-1)
    field = {"f": "float_val", "i": "int_val", "u": "int_val", "b": "bool_val",
             "c": "scomplex_val"}.get(arr.dtype.kind, "string_val")
    if dt is dtypes.float64:
        field = "double_val"
    elif dt is dtypes.int64:
        field = "int64_val"
    if flat.size and np.all(flat == flat[0]):
        flat = flat[:1]  # TensorFlow stores a splat constant as its one value
    for x in flat[:16]:
        if field == "bool_val":
            body.append(f"  {field}: {'true' if x else 'false'}")
        elif field == "string_val":
            body.append(f'  {field}: "{_escape(str(x))}"')
        else:
            body.append(f"  {field}: {x.item()!r}")
    return ["tensor {"] + body + ["}"]


class NodeDef:
    """One node: name, op type, input names (``^name`` for control inputs), device, attrs."""

    def __init__(self, name: str, op: str, inputs: list, device: str, attr: dict) -> None:
        self.name, self.op, self.input, self.device, self.attr = name, op, inputs, device, attr

    def lines(self) -> list:
        out = [f'name: "{self.name}"', f'op: "{self.op}"']
        out += [f'input: "{i}"' for i in self.input]
        if self.device:
            out.append(f'device: "{self.device}"')
        for key in sorted(self.attr):
            out += ["attr {", f'  key: "{key}"', "  value {"]
            out += ["    " + x for x in self.attr[key].lines()]
            out += ["  }", "}"]
        return out

    def __str__(self) -> str:
        return "\n".join(self.lines()) + "\n"


class ArgDef:
    """An input or output argument of a function's signature: a name and a dtype."""

    def __init__(self, name: str, dtype) -> None:
        self.name, self.type = name, dtype

    def lines(self) -> list:
        return [f'name: "{_escape(self.name)}"', f"type: {dt_name(self.type)}"]


class FunctionSignature:
    """A function's name, input and output arguments (TensorFlow's ``OpDef``)."""

    def __init__(self, name: str, input_arg: list, output_arg: list,
                 is_stateful: bool = False) -> None:
        self.name, self.input_arg, self.output_arg = name, input_arg, output_arg
        self.is_stateful = is_stateful

    def lines(self) -> list:
        out = [f'name: "{_escape(self.name)}"']
        for field, args in (("input_arg", self.input_arg), ("output_arg", self.output_arg)):
            for a in args:
                out += [f"{field} {{"] + ["  " + x for x in a.lines()] + ["}"]
        if self.is_stateful:
            out.append("is_stateful: true")
        return out


class FunctionDef:
    """A sub-graph (an If branch, a While condition or body) in a GraphDef's library: its
    signature (the sub-graph's placeholders are the input args), its other nodes, and
    ``ret``: output arg name -> the tensor returned (``node`` or ``node:i``)."""

    def __init__(self, signature: FunctionSignature, nodes: list, ret: dict) -> None:
        self.signature, self.node_def, self.ret = signature, nodes, ret

    def lines(self) -> list:
        out = ["signature {"] + ["  " + x for x in self.signature.lines()] + ["}"]
        for n in self.node_def:
            out += ["node_def {"] + ["  " + x for x in n.lines()] + ["}"]
        for key, value in self.ret.items():
            out += ["ret {", f'  key: "{_escape(key)}"', f'  value: "{_escape(value)}"', "}"]
        return out


class FunctionDefLibrary:
    """The functions the nodes of a GraphDef (and of its functions) refer to by name."""

    def __init__(self, functions: list) -> None:
        self.function = functions

    def lines(self) -> list:
        out = []
        for f in self.function:
            out += ["function {"] + ["  " + x for x in f.lines()] + ["}"]
        return out


class GraphDef:
    """NodeDefs, the library of functions they refer to, and a version; ``str()`` gives
    TensorFlow's text format."""

    def __init__(self, nodes: list, producer: int = GRAPH_DEF_VERSION,
                 library: FunctionDefLibrary | None = None) -> None:
        self.node = nodes
        self.producer = producer
        self.library = library if library is not None else FunctionDefLibrary([])

    def __str__(self) -> str:
        out = []
        for n in self.node:
            out.append("node {")
            out += ["  " + x for x in n.lines()]
            out.append("}")
        if self.library.function:
            out += ["library {"] + ["  " + x for x in self.library.lines()] + ["}"]
        out += ["versions {", f"  producer: {self.producer}", "}"]
        return "\n".join(out) + "\n"

    __repr__ = __str__


def _tensor_input_name(t) -> str:
    return t.op.name if t.value_index == 0 else f"{t.op.name}:{t.value_index}"


def node_def_of(op, add_shapes: bool = False) -> NodeDef:
    """The NodeDef of an Operation: name, op type, inputs (``^name`` for control inputs),
    attrs; type-polymorphic ops get TensorFlow's ``T`` attr from their first input.
    """
    attrs = {}
    for k, v in op.attrs.items():
        if k.startswith("_") and k not in _PRINTED_PRIVATE:
            continue  # private attrs do not serialize
        if callable(v) and not isinstance(v, dtypes.DType) or _is_object(v):
            continue  # Python objects (callables, functions, variables) do not serialize
        attrs[k] = AttrValue(v)
    if op.inputs and "dtype" not in attrs and not any(k[:1] == "T" for k in attrs):
        first = next((t for t in op.inputs if t.dtype is not dtypes.resource), None)
        if first is not None:
            attrs["T"] = AttrValue(first.dtype)
    if add_shapes:
        attrs["_output_shapes"] = AttrValue([t.shape for t in op.outputs])
    inputs = [_tensor_input_name(t) for t in op.inputs]
    inputs += ["^" + c.name for c in op.control_inputs]
    return NodeDef(op.name, op.type, inputs, "", attrs)


def _is_object(v) -> bool:
    if isinstance(v, np.ndarray):
        return v.dtype == object and v.size > 0 and not isinstance(v.flat[0], (str, bytes))
    if _is_function(v):
        return False  # a function (sub-graph) attr prints as func { name: ... }
    return not isinstance(v, (dtypes.DType, TensorShape, bool, int, float, str, list, tuple,
                              np.generic, type(None)))


def _is_function(v) -> bool:
    return hasattr(v, "get_operations") and hasattr(v, "name")


def _functions_of(ops: list, found: dict) -> None:
    """Adds to ``found`` (id -> graph) the sub-graphs ``ops`` refer to in attrs, and theirs
    (in the order the attrs print)."""
    for op in ops:
        for key in sorted(op.attrs):
            v = op.attrs[key]
            for f in v if isinstance(v, (list, tuple)) else [v]:
                if _is_function(f) and id(f) not in found:
                    found[id(f)] = f
                    _functions_of(f.get_operations(), found)


def function_def_of(g, add_shapes: bool = False) -> FunctionDef:
    """The FunctionDef of a sub-graph: its input placeholders become the input args."""
    inputs = list(getattr(g, "inputs", None) or [])
    outputs = list(getattr(g, "outputs", None) or [])
    arg_ops = {id(t.op) for t in inputs}
    nodes = [node_def_of(op, add_shapes) for op in g.get_operations() if id(op) not in arg_ops]
    out_names = [f"output_{i}" for i in range(len(outputs))]
    stateful = any(op.opdef.stateful and op.type != "Placeholder" for op in g.get_operations())
    sig = FunctionSignature(str(g.name), [ArgDef(t.op.name, t.dtype) for t in inputs],
                            [ArgDef(n, t.dtype) for n, t in zip(out_names, outputs)], stateful)
    return FunctionDef(sig, nodes, {n: _tensor_input_name(t) for n, t in zip(out_names, outputs)})


def graph_def_of(graph, add_shapes: bool = False) -> GraphDef:
    ops = graph.get_operations()
    found: dict = {}
    _functions_of(ops, found)
    library = FunctionDefLibrary([function_def_of(f, add_shapes) for f in found.values()])
    return GraphDef([node_def_of(op, add_shapes) for op in ops], library=library)
