"""GraphDef: a Graph as TensorFlow's ``GraphDef`` protobuf message (``graph/protos.py``).

Nodes carry TensorFlow's attr names and types from each op's schema (``keepdims`` is written
``keep_dims``, a type attr such as ``T`` or ``Tidx`` comes from its input's dtype), so
TensorFlow can import the graph when its ops are TensorFlow's; ``str()`` of the message is
TensorFlow's text format. If/While sub-graphs are FunctionDefs of the ``library``.
"""
from __future__ import annotations

import numpy as np

from ..core import dtypes
from ..core.errors import UnimplementedError
from ..core.shapes import TensorShape
from .protos import lazy_message, message_class

GRAPH_DEF_VERSION = 1645

# Private attrs TensorFlow itself writes.
_PRINTED_PRIVATE = ("_user_specified_name", "_output_shapes")
# twinflow-only attrs that TensorFlow's op implies: omitted when they have that value.
TF_IMPLIED = {("Softmax", "axis"): -1, ("LogSoftmax", "axis"): -1,
              ("Transpose", "conjugate"): False, ("GatherNd", "batch_dims"): 0,
              ("LinSpace", "axis"): 0}
# Attrs of twinflow ops that are input tensors of TensorFlow's: op -> (twinflow attr,
# TensorFlow's type attr of that input or None for int32, its position among TensorFlow's
# inputs; -1: after all the others). Written as a Const input node ``<op>/<tf name>``.
TF_INPUT_ATTRS = {
    **{op: ("axis", "Tidx", 1) for op in ("All", "Any", "Max", "Mean", "Min", "Prod", "Sum",
                                          "ArgMax", "ArgMin", "Cumprod", "Cumsum",
                                          "ReverseV2")},
    "ReduceJoin": ("axis", None, 1), "ConcatV2": ("axis", "Tidx", -1),
    "ExpandDims": ("axis", "Tdim", 1), "GatherV2": ("axis", "Taxis", 2),
    "Split": ("axis", None, 0), "SplitV": ("axis", None, 2), "Transpose": ("perm", "Tperm", 1),
    "ConcatOffset": ("axis", None, 0),
}


# Window attrs that twinflow keeps per spatial dim and TensorFlow per dim of the NHWC/NDHWC
# tensor (1 for the batch and the channels).
_WINDOW_OPS = ("Conv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter", "DepthwiseConv2dNative",
               "DepthwiseConv2dNativeBackpropInput", "DepthwiseConv2dNativeBackpropFilter",
               "MaxPool", "AvgPool", "MaxPoolGrad", "AvgPoolGrad", "MaxPoolGradGrad", "Conv3D",
               "Conv3DBackpropInputV2", "Conv3DBackpropFilterV2", "MaxPool3D", "AvgPool3D",
               "MaxPool3DGrad", "AvgPool3DGrad", "MaxPool3DGradGrad")
TF_WINDOW_ATTRS = {op: ("strides", "dilations", "ksize") for op in _WINDOW_OPS}
# Ops whose TensorFlow op has ``explicit_paddings`` (a flat list, two ints per dim of the
# NHWC tensor); twinflow keeps ``(before, after)`` pairs per spatial dim, or None.
TF_EXPLICIT_PADDINGS = ("Conv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter",
                        "DepthwiseConv2dNative", "DepthwiseConv2dNativeBackpropInput",
                        "DepthwiseConv2dNativeBackpropFilter", "MaxPool", "MaxPoolGrad")


def window_attrs(op_type: str, attrs: dict, to_tf: bool) -> dict:
    """Converts the window attrs (strides, dilations, ksize) of a conv/pool op between
    twinflow's per-spatial-dim form and TensorFlow's per-dim NHWC form.

    Args:
        op_type: the op's type.
        attrs: attr name -> value (changed in place).
        to_tf: True for twinflow -> TensorFlow, False for the other way.

    Returns:
        ``attrs``.
    """
    if attrs.get("data_format", "NHWC") not in ("NHWC", "NDHWC", b"NHWC", b"NDHWC"):
        return attrs
    spatial = 3 if "3D" in op_type else 2
    for k in TF_WINDOW_ATTRS.get(op_type, ()):
        v = attrs.get(k)
        if not isinstance(v, (list, tuple)):
            continue
        if to_tf and len(v) == spatial:
            attrs[k] = [1, *v, 1]
        elif not to_tf and len(v) == spatial + 2:
            _only_spatial(op_type, k, v[:1] + v[-1:], 1)
            attrs[k] = tuple(v[1:-1])
    pads = attrs.get("explicit_paddings")
    if op_type in TF_EXPLICIT_PADDINGS and isinstance(pads, (list, tuple)):
        if to_tf and pads and isinstance(pads[0], (list, tuple)):
            attrs["explicit_paddings"] = [0, 0, *(int(i) for p in pads for i in p), 0, 0]
        elif not to_tf and len(pads) == 2 * (spatial + 2):
            _only_spatial(op_type, "explicit_paddings", pads[:2] + pads[-2:], 0)
            attrs["explicit_paddings"] = tuple((int(pads[2 * d]), int(pads[2 * d + 1]))
                                               for d in range(1, spatial + 1))
        elif not to_tf and not pads:
            attrs["explicit_paddings"] = None
    return attrs


def _only_spatial(op_type: str, attr: str, batch_and_channels, neutral: int) -> None:
    # TensorFlow's CPU kernels refuse windows over the batch and channel dimensions too.
    if any(int(v) != neutral for v in batch_and_channels):
        raise UnimplementedError(
            None, None, f"{op_type}: {attr} must be {neutral} in the batch and channel "
            f"dimensions (windows move over the spatial ones only), got "
            f"{list(batch_and_channels)} there")


# Type attrs of TensorFlow's op that twinflow's schema leaves out: attr -> the input whose
# dtype it is (written on export; dropped again on import).
TF_TYPE_FROM_INPUT = {
    **{op: ("dtype", 1) for op in ("AssignVariableOp", "AssignAddVariableOp",
                                   "AssignSubVariableOp")},
    **{f"ResourceScatter{k}": ("dtype", 2) for k in ("Add", "Sub", "Mul", "Div", "Min", "Max",
                                                      "Update")},
    **{f"ResourceScatterNd{k}": ("T", 2) for k in ("Add", "Sub", "Min", "Max", "Update")},
    "ResourceStridedSliceAssign": ("T", 4), "RandomUniformInt": ("Tout", 1),
    "RandomGamma": ("S", 0), "RandomPoissonV2": ("S", 0), "Where": ("T", 0),
}
# Type attrs of TensorFlow's op that are an output's dtype: attr -> the output.
TF_TYPE_FROM_OUTPUT = {
    **{op: ("Tout", 0) for op in ("Complex", "Real", "Imag", "ComplexAbs", "Eig")},
    **{f"RFFT{d}": ("Tcomplex", 0) for d in ("", "2D", "3D")},
    **{f"IRFFT{d}": ("Treal", 0) for d in ("", "2D", "3D")},
}

GraphDef = lazy_message("GraphDef")
NodeDef = lazy_message("NodeDef")
AttrValue = lazy_message("AttrValue")


def dt_name(dtype) -> str:
    """The ``DataType`` enum name TensorFlow prints for ``dtype`` (``DT_FLOAT``...).

    Args:
        dtype: a twinflow DType.

    Returns:
        The enum value's name.
    """
    return message_class("AttrValue").DESCRIPTOR.fields_by_name["type"].enum_type \
        .values_by_number[dtype.as_datatype_enum].name


def fill_shape(proto, shape: TensorShape) -> None:
    """Writes ``shape`` into a ``TensorShapeProto`` (unknown dims are -1).

    Args:
        proto: the message to fill.
        shape: the shape.
    """
    if shape.rank is None:
        proto.unknown_rank = True
        return
    proto.SetInParent()
    for d in shape.as_list():
        proto.dim.add(size=-1 if d is None else d)


def shape_of_proto(proto) -> TensorShape:
    """The TensorShape a ``TensorShapeProto`` describes.

    Args:
        proto: the message.

    Returns:
        The shape (-1 dims are unknown).
    """
    if proto.unknown_rank:
        return TensorShape(None)
    return TensorShape([None if d.size < 0 else d.size for d in proto.dim])


def fill_tensor(proto, value) -> None:
    """Writes an array into a ``TensorProto``: one value for a splat constant (as TensorFlow
    stores it), ``tensor_content`` bytes for other numbers, ``string_val`` for strings.

    Args:
        proto: the message to fill.
        value: an array or scalar.
    """
    arr = np.asarray(value)
    dt = dtypes.from_numpy(arr.dtype)
    proto.dtype = dt.as_datatype_enum
    fill_shape(proto.tensor_shape, TensorShape(list(arr.shape)))
    flat = arr.reshape(-1)
    if arr.dtype.kind in "OSU":
        proto.string_val.extend(x if isinstance(x, bytes) else str(x).encode() for x in flat)
        return
    if flat.size == 0:
        return
    if not np.all(flat == flat[0]) or arr.dtype.kind == "c":
        proto.tensor_content = np.ascontiguousarray(arr).astype(arr.dtype.newbyteorder("<"),
                                                                copy=False).tobytes()
        return
    x = flat[0]
    if dt is dtypes.float64:
        proto.double_val.append(float(x))
    elif dt is dtypes.int64:
        proto.int64_val.append(int(x))
    elif dt is dtypes.uint64:
        proto.uint64_val.append(int(x))
    elif dt is dtypes.uint32:
        proto.uint32_val.append(int(x))
    elif dt is dtypes.float16 or dt.name == "bfloat16":
        proto.half_val.append(int(np.asarray(x).view(np.uint16)))
    elif arr.dtype.kind == "b":
        proto.bool_val.append(bool(x))
    elif arr.dtype.kind == "f":
        proto.float_val.append(float(x))
    else:
        proto.int_val.append(int(x))


def fill_attr(proto, v) -> None:
    """Writes one attribute value into an ``AttrValue``.

    Args:
        proto: the message to fill.
        v: a DType, TensorShape, bool, int, float, str/bytes, array, list, None (an empty
            list) or a sub-graph (a ``func``).
    """
    if isinstance(v, dtypes.DType):
        proto.type = v.as_datatype_enum
    elif isinstance(v, TensorShape):
        fill_shape(proto.shape, v)
    elif isinstance(v, (bool, np.bool_)):
        proto.b = bool(v)
    elif isinstance(v, (int, np.integer)):
        proto.i = int(v)
    elif isinstance(v, (float, np.floating)):
        proto.f = float(v)
    elif isinstance(v, (str, bytes)):
        proto.s = v.encode() if isinstance(v, str) else v
    elif isinstance(v, np.ndarray):
        fill_tensor(proto.tensor, v)
    elif isinstance(v, (list, tuple)) or v is None:
        lst = proto.list
        lst.SetInParent()
        for item in v or ():
            if isinstance(item, dtypes.DType):
                lst.type.append(item.as_datatype_enum)
            elif isinstance(item, TensorShape):
                fill_shape(lst.shape.add(), item)
            elif isinstance(item, (bool, np.bool_)):
                lst.b.append(bool(item))
            elif isinstance(item, (int, np.integer)):
                lst.i.append(int(item))
            elif isinstance(item, (float, np.floating)):
                lst.f.append(float(item))
            elif _is_function(item):
                lst.func.add(name=str(item.name))
            else:
                lst.s.append(item.encode() if isinstance(item, str) else bytes(item))
    elif _is_function(v):
        proto.func.name = str(v.name)
    else:
        raise TypeError(f"attr value {v!r} of type {type(v).__name__} has no AttrValue form")


def _tensor_input_name(t) -> str:
    return t.op.name if t.value_index == 0 else f"{t.op.name}:{t.value_index}"


def _type_attrs(op, schema) -> dict:
    """TensorFlow's type attrs (``T``, ``Tidx``, ``N``) of ``op``, from its inputs' dtypes."""
    out: dict = {}
    specs = schema.inputs
    variadic = [i for i, s in enumerate(specs) if s.variadic]
    n_var = len(op.inputs) - (len(specs) - 1) if variadic else 0
    pos = 0
    for s in specs:
        count = n_var if s.variadic else 1
        ts = op.inputs[pos:pos + count]
        pos += count
        if s.type_attr and schema.attrs[s.type_attr].kind == "list(type)":
            out[s.type_attr] = [t.dtype for t in ts]  # no N: each has its own dtype
            continue
        if s.type_attr and ts and s.type_attr not in out:
            out[s.type_attr] = ts[0].dtype
        if s.variadic:
            out["N"] = count
    return out


def tf_attrs(op) -> dict:
    """The attrs of ``op`` as TensorFlow names them (its schema's ``@`` names), with type
    attrs from its inputs, without attrs TensorFlow's op does not have.

    Args:
        op: an Operation.

    Returns:
        TensorFlow attr name -> Python value.
    """
    schema = op.opdef.schema
    attrs: dict = {}
    for k, v in op.attrs.items():
        if k.startswith("_") and k not in _PRINTED_PRIVATE:
            continue  # private attrs do not serialize
        if callable(v) and not isinstance(v, dtypes.DType) or _is_object(v):
            continue  # Python objects (callables, functions, variables) do not serialize
        if (op.type, k) in TF_IMPLIED and TF_IMPLIED[op.type, k] == v:
            continue
        if schema is not None and not k.startswith("_"):
            spec = schema.attrs.get(k)
            if k == "explicit_paddings" and op.type in TF_EXPLICIT_PADDINGS:
                if v:
                    attrs[k] = v
                continue
            if spec is None:
                continue  # twinflow-only bookkeeping (a ReadVariableOp's shape)
            k = spec.tf_name
        attrs[k] = v
    window_attrs(op.type, attrs, to_tf=True)
    implied = TF_TYPE_FROM_INPUT.get(op.type)
    if implied is not None and implied[1] < len(op.inputs):
        attrs.setdefault(implied[0], op.inputs[implied[1]].dtype)
    implied = TF_TYPE_FROM_OUTPUT.get(op.type)
    if implied is not None:
        attrs.setdefault(implied[0], op.outputs[implied[1]].dtype)
    if schema is not None:
        for k, v in _type_attrs(op, schema).items():
            attrs.setdefault(k, v)
    elif op.inputs and "dtype" not in attrs and not any(k[:1] == "T" for k in attrs):
        first = next((t for t in op.inputs if t.dtype is not dtypes.resource), None)
        if first is not None:
            attrs["T"] = first.dtype
    return attrs


def _input_attr_const(nodes, op, attrs: dict) -> str | None:
    """For an op whose attr is an input in TensorFlow (``TF_INPUT_ATTRS``): adds the Const
    node holding it to ``nodes``, removes the attr, returns the Const's name."""
    entry = TF_INPUT_ATTRS.get(op.type)
    if entry is None or op.opdef.schema is None or entry[0] not in op.opdef.schema.attrs:
        return None
    spec = op.opdef.schema.attrs[entry[0]]
    value = attrs.pop(spec.tf_name, None)
    if value is None:  # all axes (a reduction over everything), a reversing transpose
        rank = op.inputs[0].shape.rank if op.inputs else None
        if rank is None:
            return None  # stays an attr: TensorFlow cannot import it, twinflow can
        value = list(range(rank))[::-1] if op.type == "Transpose" else list(range(rank))
    const = nodes.add()
    const.name, const.op = f"{op.name}/{spec.tf_name}", "Const"
    arr = np.asarray(value, np.int32)
    fill_attr(const.attr["dtype"], dtypes.int32)
    fill_tensor(const.attr["value"].tensor, arr)
    if entry[1]:
        attrs[entry[1]] = dtypes.int32
    return const.name


def _explicit_pad_input(nodes, op, attrs: dict) -> str | None:
    """TensorFlow's 3-D convolutions and pools take no ``EXPLICIT`` padding. A Conv3D with
    explicit pads is written as a ``PadV2`` node (zeros) feeding a ``VALID`` Conv3D (the same
    numbers); this adds the ``<op>/paddings``, ``<op>/constant_values`` and ``<op>/Pad`` nodes, sets
    ``padding`` in ``attrs`` and returns the Pad's name. Other ops with explicit pads that
    TensorFlow's op cannot express (pools pad with -inf or leave pads out of the average,
    gradient ops) raise."""
    if attrs.get("padding") not in ("EXPLICIT", b"EXPLICIT") or op.type in TF_EXPLICIT_PADDINGS:
        return None
    pads = op.attrs.get("explicit_paddings")
    if op.type != "Conv3D" or not pads or attrs.get("data_format", "NDHWC") != "NDHWC":
        raise UnimplementedError(
            None, None, f"GraphDef export: TensorFlow's {op.type} op (node '{op.name}') does "
            "not accept padding='EXPLICIT'; pad the input with tw.pad and use 'VALID' "
            "padding instead")
    const = nodes.add()
    const.name, const.op = f"{op.name}/paddings", "Const"
    fill_attr(const.attr["dtype"], dtypes.int32)
    fill_tensor(const.attr["value"].tensor,
                np.asarray([(0, 0), *pads, (0, 0)], np.int32).reshape(-1, 2))
    zero = nodes.add()
    zero.name, zero.op = f"{op.name}/constant_values", "Const"
    fill_attr(zero.attr["dtype"], op.inputs[0].dtype)
    fill_tensor(zero.attr["value"].tensor, np.zeros((), op.inputs[0].dtype.as_numpy_dtype))
    pad = nodes.add()
    pad.name, pad.op = f"{op.name}/Pad", "PadV2"
    pad.input.extend([_tensor_input_name(op.inputs[0]), const.name, zero.name])
    fill_attr(pad.attr["T"], op.inputs[0].dtype)
    fill_attr(pad.attr["Tpaddings"], dtypes.int32)
    attrs["padding"] = "VALID"
    return pad.name


def add_node(nodes, op, add_shapes: bool = False) -> None:
    """Adds the NodeDef of an Operation to ``nodes`` (a GraphDef's ``node`` or a
    FunctionDef's ``node_def``): name, op type, inputs (``^name`` for control inputs), attrs
    with TensorFlow's names; an attr that is an input in TensorFlow becomes a Const node.

    Args:
        nodes: the repeated NodeDef field.
        op: the Operation.
        add_shapes: also write ``_output_shapes``.
    """
    attrs = tf_attrs(op)
    const = _input_attr_const(nodes, op, attrs)
    padded = _explicit_pad_input(nodes, op, attrs)
    proto = nodes.add()
    proto.name, proto.op = op.name, op.type
    if op.device:  # the tw.device the op was placed with ('' when none, as TensorFlow)
        proto.device = op.device
    inputs = [_tensor_input_name(t) for t in op.inputs]
    if padded is not None:
        inputs[0] = padded
    if const is not None:
        pos = TF_INPUT_ATTRS[op.type][2]
        inputs.insert(len(inputs) if pos < 0 else pos, const)
    proto.input.extend(inputs + ["^" + c.name for c in op.control_inputs])
    if add_shapes:
        attrs["_output_shapes"] = [t.shape for t in op.outputs]
    for k in sorted(attrs):  # sorted, as TensorFlow's C++ text printer writes maps
        fill_attr(proto.attr[k], attrs[k])


def node_def_of(op, add_shapes: bool = False):
    """The NodeDef message of an Operation.

    Args:
        op: the Operation.
        add_shapes: also write ``_output_shapes``.

    Returns:
        A ``NodeDef``.
    """
    gd = message_class("GraphDef")()
    add_node(gd.node, op, add_shapes)
    return gd.node[-1]


def _is_object(v) -> bool:
    if isinstance(v, np.ndarray):
        return v.dtype == object and v.size > 0 and not isinstance(v.flat[0], (str, bytes))
    if _is_function(v):
        return False  # a function (sub-graph) attr is written as func { name: ... }
    return not isinstance(v, (dtypes.DType, TensorShape, bool, int, float, str, bytes, list,
                              tuple, np.generic, type(None)))


def _is_function(v) -> bool:
    return hasattr(v, "get_operations") and hasattr(v, "name")


def _functions_of(ops: list, found: dict) -> None:
    """Adds to ``found`` (id -> graph) the sub-graphs ``ops`` refer to in attrs, and theirs
    (in the order of the attrs' names)."""
    for op in ops:
        for key in sorted(op.attrs):
            v = op.attrs[key]
            for f in v if isinstance(v, (list, tuple)) else [v]:
                if _is_function(f) and id(f) not in found:
                    found[id(f)] = f
                    _functions_of(f.get_operations(), found)


def fill_function(proto, g, add_shapes: bool = False) -> None:
    """Writes the FunctionDef of a sub-graph: its input placeholders become the input args,
    ``ret`` maps ``output_i`` to the tensor returned (``node`` or ``node:i``).

    Args:
        proto: the ``FunctionDef`` to fill.
        g: the sub-graph (``inputs``, ``outputs``).
        add_shapes: also write ``_output_shapes``.
    """
    inputs = list(getattr(g, "inputs", None) or [])
    outputs = list(getattr(g, "outputs", None) or [])
    arg_ops = {id(t.op) for t in inputs}
    for op in g.get_operations():
        if id(op) not in arg_ops:
            add_node(proto.node_def, op, add_shapes)
    sig = proto.signature
    sig.name = str(g.name)
    for t in inputs:
        sig.input_arg.add(name=t.op.name, type=t.dtype.as_datatype_enum)
    for i, t in enumerate(outputs):
        sig.output_arg.add(name=f"output_{i}", type=t.dtype.as_datatype_enum)
        proto.ret[f"output_{i}"] = _tensor_input_name(t)
    if any(op.opdef.stateful and op.type != "Placeholder" for op in g.get_operations()):
        sig.is_stateful = True


def graph_def_of(graph, add_shapes: bool = False):
    """The GraphDef message of a graph, with the sub-graphs its ops use as the library.

    Args:
        graph: the Graph.
        add_shapes: also write each node's ``_output_shapes``.

    Returns:
        A ``GraphDef``.
    """
    gd = message_class("GraphDef")()
    ops = graph.get_operations()
    for op in ops:
        add_node(gd.node, op, add_shapes)
    found: dict = {}
    _functions_of(ops, found)
    for f in found.values():
        fill_function(gd.library.function.add(), f, add_shapes)
    gd.versions.producer = GRAPH_DEF_VERSION
    return gd
