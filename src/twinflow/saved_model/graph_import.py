"""``tf.graph_util.import_graph_def`` (a GraphDef message into a twinflow graph) and
``tf.compat.v1.graph_util.convert_variables_to_constants`` (a frozen GraphDef)."""
from __future__ import annotations

import numpy as np

from ..core import dtypes, errors
from ..core.shapes import TensorShape
from ..eager.execute import bind
from ..graph.graph import Graph, get_default_graph
from ..graph.graph_def import (
    TF_IMPLIED,
    TF_INPUT_ATTRS,
    TF_WINDOW_ATTRS,
    fill_tensor,
    shape_of_proto,
    window_attrs,
)
from ..graph.protos import message_class
from ..graph.registry import REGISTRY
from ..graph.schema import AttrSpec
from ..graph.tf_defaults import tf_only_attrs

__all__ = ["import_graph_def", "convert_variables_to_constants", "as_graph_def_message",
           "tensor_of_proto", "extract_sub_graph"]

# The window attrs of a conv/pool op (TF_WINDOW_ATTRS), by TensorFlow's names and twinflow's.
_WINDOW_KEYS = ("strides", "dilations", "ksize", "padding", "explicit_paddings")
# TensorProto's repeated field for each kind of dtype (when there is no tensor_content).
_VAL_FIELD = {"f": "float_val", "i": "int_val", "u": "int_val", "b": "bool_val"}


def as_graph_def_message(graph_def):
    """``graph_def`` as twinflow's GraphDef message (one of TensorFlow's, or bytes, is parsed).

    Args:
        graph_def: a GraphDef message (any protobuf class of that message) or its bytes.

    Returns:
        twinflow's ``GraphDef`` message.
    """
    cls = message_class("GraphDef")
    if isinstance(graph_def, cls):
        return graph_def
    data = graph_def if isinstance(graph_def, (bytes, bytearray)) else None
    if data is None:
        if not hasattr(graph_def, "SerializeToString"):
            raise TypeError(f"graph_def must be a GraphDef, got {type(graph_def).__name__}")
        data = graph_def.SerializeToString()
    out = cls()
    try:
        out.ParseFromString(bytes(data))
    except Exception as e:  # protobuf's DecodeError
        raise errors.DataLossError(None, None, f"not a valid GraphDef: {e}") from None
    return out


def tensor_of_proto(proto) -> np.ndarray:
    """The array a ``TensorProto`` holds.

    Args:
        proto: the TensorProto.

    Returns:
        A NumPy array of its dtype and shape.
    """
    dt = dtypes.as_dtype(proto.dtype)
    shape = [d.size for d in proto.tensor_shape.dim]
    size = int(np.prod(shape)) if shape else 1
    if dt is dtypes.string:
        flat = np.array(list(proto.string_val), dtype=object)
    elif proto.tensor_content:
        return np.frombuffer(proto.tensor_content, dt.as_numpy_dtype().dtype.newbyteorder("<")) \
            .astype(dt.as_numpy_dtype, copy=True).reshape(shape)
    else:
        np_dt = np.dtype(dt.as_numpy_dtype)
        field = {dtypes.float64: "double_val", dtypes.int64: "int64_val",
                 dtypes.uint64: "uint64_val", dtypes.uint32: "uint32_val",
                 dtypes.float16: "half_val"}.get(dt, _VAL_FIELD.get(np_dt.kind, "int_val"))
        vals = list(getattr(proto, field))
        if dt is dtypes.float16:
            flat = np.array(vals, np.uint16).view(np.float16)
        else:
            flat = np.array(vals, np_dt)
    if flat.size == 0:
        flat = np.zeros(1, flat.dtype) if size else flat
    if flat.size not in (size, 1):
        raise errors.InvalidArgumentError(None, None, f"TensorProto holds {flat.size} values "
                                                      f"for shape {shape}")
    return np.broadcast_to(flat[-1:] if flat.size != size else flat, (size,)).reshape(shape) \
        .copy()


def _attr_value(v):
    which = v.WhichOneof("value")
    if which == "s":
        try:
            return v.s.decode()
        except UnicodeDecodeError:
            return v.s
    if which in ("i", "f", "b"):
        return getattr(v, which)
    if which == "type":
        return dtypes.as_dtype(v.type)
    if which == "shape":
        return shape_of_proto(v.shape)
    if which == "tensor":
        return tensor_of_proto(v.tensor)
    if which == "list":
        lst = v.list
        for field in ("i", "f", "b", "s", "type", "shape"):
            items = list(getattr(lst, field))
            if items:
                if field == "type":
                    return [dtypes.as_dtype(t) for t in items]
                if field == "shape":
                    return [shape_of_proto(s) for s in items]
                if field == "s":
                    return [s.decode() for s in items]
                return items
        if lst.func:
            raise errors.UnimplementedError(None, None, "function-valued attrs do not import")
        return []
    if which == "func":
        raise errors.UnimplementedError(
            None, None, f"importing ops with function attrs ({v.func.name}) is not supported: "
                        "If/While nodes of a GraphDef do not import yet")
    return None


def _op_attrs(node, opdef) -> dict:
    """twinflow's attrs of ``opdef`` from a NodeDef's TensorFlow attrs."""
    schema = opdef.schema
    by_tf = {}
    type_attrs = set()
    if schema is not None:
        by_tf = {s.tf_name: s for s in schema.attrs.values()}
        type_attrs = {s.type_attr for s in schema.inputs if s.type_attr} | {"N"}
        if node.op in TF_INPUT_ATTRS:
            type_attrs.add(TF_INPUT_ATTRS[node.op][1])
    attrs = {}
    for key in node.attr:
        if key.startswith("_"):
            continue
        spec = by_tf.get(key)
        if spec is None:
            if schema is not None and key in type_attrs or node.op == "Const":
                if node.op == "Const" and key == "dtype":
                    attrs["dtype"] = _attr_value(node.attr[key])
                elif node.op == "Const" and key == "value":
                    attrs["value"] = _attr_value(node.attr[key])
                continue  # derived again from the inputs' dtypes
            # TensorFlow attrs twinflow's op implements only at their default (hints for
            # gradients and GPU kernels, channels-last layouts); any other value is refused
            only = tf_only_attrs(node.op)
            if key in only and _attr_value(node.attr[key]) == only[key]:
                continue
            if key in _WINDOW_KEYS and node.op in TF_WINDOW_ATTRS:
                attrs[key] = _attr_value(node.attr[key])  # twinflow's form in window_attrs
                continue
            raise errors.UnimplementedError(
                None, None, f"node {node.name!r} ({node.op}) has attr {key!r}, which "
                            f"twinflow's {node.op} does not take")
        if spec.kind in ("type", "list(type)") and spec.name in type_attrs:
            continue
        attrs[spec.name] = _attr_value(node.attr[key])
    if schema is not None:
        for spec in schema.attrs.values():
            if spec.name in attrs or spec.name in type_attrs:
                continue
            if (node.op, spec.name) in TF_IMPLIED:
                attrs[spec.name] = TF_IMPLIED[node.op, spec.name]
            elif spec.default is not AttrSpec.REQUIRED:
                attrs[spec.name] = spec.default
            elif spec.kind == "shape":
                attrs[spec.name] = TensorShape(None)
    return window_attrs(node.op, attrs, to_tf=False)


def _constant_input(by_name: dict, name: str, node, attr: str, kind: str):
    """The value of a Const input that twinflow takes as the attr ``attr``."""
    src = by_name.get(_split(name)[0])
    if src is None or src.op != "Const":
        raise errors.UnimplementedError(
            None, None, f"node {node.name!r} ({node.op}): its {attr} must be a Const to "
                        f"import (twinflow takes it as an attr), got {name!r}")
    return input_attr_value(tensor_of_proto(src.attr["value"].tensor), kind)


def input_attr_value(value, kind: str):
    """A Const input's value as the attr twinflow takes instead: a list attr (a reduction's
    axes) from a scalar or a vector, as TensorFlow accepts both; an int attr from a scalar or
    a one-element vector."""
    flat = [int(v) for v in value.reshape(-1)]
    if kind.startswith("list"):
        return tuple(flat)
    if len(flat) != 1:
        raise errors.InvalidArgumentError(None, None, f"expected a scalar, got shape "
                                                      f"{list(value.shape)}")
    return flat[0]


def _split(name: str) -> tuple:
    if name.startswith("^"):
        return name[1:], None
    op, _, idx = name.partition(":")
    return op, int(idx) if idx else 0


def _ordered(nodes: list) -> list:
    """The nodes (of a GraphDef or a FunctionDef) in an order where each comes after its
    inputs."""
    by_name = {n.name: n for n in nodes}
    done: set = set()
    out = []
    for root in nodes:
        stack = [(root, False)]
        while stack:
            n, expanded = stack.pop()
            if n.name in done:
                continue
            if expanded:
                done.add(n.name)
                out.append(n)
                continue
            stack.append((n, True))
            for i in n.input:
                # "^op" (control), "op:0" (GraphDef) or "op:out:0" (FunctionDef)
                src = by_name.get(i.lstrip("^").partition(":")[0])
                if src is not None and src.name not in done:
                    stack.append((src, False))
    return out


def import_graph_def(graph_def, input_map: dict | None = None,
                     return_elements: list | None = None, name: str | None = None,
                     op_dict=None, producer_op_list=None) -> list | None:
    """Imports a GraphDef into the default graph (the graph being built, or the global one).

    Args:
        graph_def: a GraphDef message (twinflow's, TensorFlow's) or its serialized bytes.
        input_map: tensor name in ``graph_def`` (``"x:0"`` or ``"x"``) -> a tensor of the
            default graph to use instead.
        return_elements: names in ``graph_def`` to return: ``"y:0"`` gives a tensor, ``"y"``
            an Operation.
        name: the name scope prefixed to the imported names (default ``"import"``; ``""``
            keeps them).
        op_dict: deprecated in TensorFlow; must be None.
        producer_op_list: TensorFlow's list of the producer's OpDefs (to strip default attrs);
            not supported: must be None.

    Returns:
        The list of ``return_elements``, or None.

    Raises:
        ValueError: a name of ``input_map`` or ``return_elements`` is not in the GraphDef.
        NotFoundError: the GraphDef uses an op twinflow does not have.
    """
    if op_dict is not None or producer_op_list is not None:
        raise ValueError("import_graph_def: op_dict and producer_op_list are not supported by "
                         "twinflow (ops are looked up in its registry by name)")
    gd = as_graph_def_message(graph_def)
    g: Graph = get_default_graph()
    prefix = "import" if name is None else name
    input_map = {(k if ":" in k else k + ":0"): v for k, v in (input_map or {}).items()}
    names = {n.name for n in gd.node}
    for k in input_map:
        if _split(k)[0] not in names:
            raise ValueError(f"Attempted to map inputs that were not found in graph_def: [{k}]")
    missing = sorted({n.op for n in gd.node if n.op not in REGISTRY})
    if missing:
        raise errors.NotFoundError(None, None, f"Op type not registered '{missing[0]}': the "
                                               f"GraphDef uses ops twinflow lacks: {missing}")
    ops: dict = {}
    by_name = {n.name: n for n in gd.node}
    with g.as_default():
        for node in _ordered(list(gd.node)):
            inputs, controls = [], []
            attrs = _op_attrs(node, REGISTRY[node.op])
            data_inputs = [i for i in node.input if not i.startswith("^")]
            if node.op in TF_INPUT_ATTRS and REGISTRY[node.op].schema is not None and \
                    len(data_inputs) > len(REGISTRY[node.op].schema.inputs) - \
                    any(s.variadic for s in REGISTRY[node.op].schema.inputs):
                attr, _, pos = TF_INPUT_ATTRS[node.op]
                taken = data_inputs[pos]
                attrs[attr] = _constant_input(by_name, taken, node, attr,
                                              REGISTRY[node.op].schema.attrs[attr].kind)
                node_inputs = data_inputs[:pos % len(data_inputs)] + \
                    data_inputs[pos % len(data_inputs) + 1:] + \
                    [i for i in node.input if i.startswith("^")]
            else:
                node_inputs = list(node.input)
            for i in node_inputs:
                src, idx = _split(i)
                if idx is None:
                    controls.append(ops[src])
                    continue
                key = f"{src}:{idx}"
                inputs.append(input_map[key] if key in input_map else ops[src].outputs[idx])
            opdef = REGISTRY[node.op]
            full = f"{prefix}/{node.name}" if prefix else node.name
            try:
                with g.control_dependencies(controls):
                    out = bind(opdef, inputs, attrs, name=full)
            except errors.OpError as e:
                raise type(e)(None, None, f"importing node {node.name!r} ({node.op}): "
                                          f"{e.message}") from None
            outs = out if isinstance(out, (list, tuple)) else [out]
            ops[node.name] = outs[0].op if outs else g.get_operations()[-1]
    if return_elements is None:
        return None
    result = []
    for r in return_elements:
        src, idx = _split(r)
        if src not in ops:
            raise ValueError(f"Requested return_element {r!r} not found in graph_def.")
        result.append(ops[src] if ":" not in r else ops[src].outputs[idx])
    return result


def extract_sub_graph(graph_def, dest_nodes: list):
    """The part of ``graph_def`` that ``dest_nodes`` need (their inputs, transitively).

    Args:
        graph_def: a GraphDef message.
        dest_nodes: node names.

    Returns:
        A new GraphDef with those nodes, in the original order.
    """
    gd = as_graph_def_message(graph_def)
    by_name = {n.name: n for n in gd.node}
    for d in dest_nodes:
        if d not in by_name:
            raise ValueError(f"{d} is not in graph")
    keep: set = set()
    stack = list(dest_nodes)
    while stack:
        n = stack.pop()
        if n in keep:
            continue
        keep.add(n)
        stack.extend(_split(i)[0] for i in by_name[n].input)
    out = message_class("GraphDef")()
    out.versions.CopyFrom(gd.versions)
    out.library.CopyFrom(gd.library)
    for n in gd.node:
        if n.name in keep:
            out.node.add().CopyFrom(n)
    return out


def convert_variables_to_constants(sess, input_graph_def, output_node_names: list,
                                   variable_names_whitelist=None,
                                   variable_names_blacklist=None):
    """A frozen GraphDef: each variable read becomes a ``Const`` of the variable's value in
    ``sess``, and only what ``output_node_names`` need is kept.

    Args:
        sess: a ``tw.compat.v1.Session`` whose graph produced ``input_graph_def``.
        input_graph_def: the graph's GraphDef.
        output_node_names: the names of the nodes to keep (with their inputs).
        variable_names_whitelist: if given, only reads of these variables (the names of the
            read ops' handle inputs) are converted.
        variable_names_blacklist: reads of these variables stay as they are.

    Returns:
        The frozen GraphDef.
    """
    gd = extract_sub_graph(input_graph_def, list(output_node_names))
    graph = sess.graph
    out = message_class("GraphDef")()
    out.versions.CopyFrom(gd.versions)
    out.library.CopyFrom(gd.library)
    reads = [n for n in gd.node if n.op == "ReadVariableOp"]
    allowed = [n for n in reads if (variable_names_whitelist is None or
                                    _split(n.input[0])[0] in variable_names_whitelist) and
               _split(n.input[0])[0] not in (variable_names_blacklist or ())]
    values = sess.run([graph.get_tensor_by_name(n.name + ":0") for n in allowed]) \
        if allowed else []
    frozen = {n.name: v for n, v in zip(allowed, values)}
    for n in gd.node:
        node = out.node.add()
        if n.name in frozen:
            value = np.asarray(frozen[n.name])
            node.name, node.op = n.name, "Const"
            node.input.extend(i for i in n.input if i.startswith("^"))
            node.attr["dtype"].type = dtypes.from_numpy(value.dtype).as_datatype_enum
            fill_tensor(node.attr["value"].tensor, value)
        else:
            node.CopyFrom(n)
    return extract_sub_graph(out, list(output_node_names))
