"""TensorFlow's graph messages (``GraphDef``, ``NodeDef``, ``AttrValue``, ``TensorProto``,
``TensorShapeProto``, the ``DataType`` enum, ``FunctionDefLibrary``/``FunctionDef``/``OpDef``,
``VersionDef``) described in Python with TensorFlow's names and field numbers, built with the
``protobuf`` library on first use in a private descriptor pool (never clashing with
TensorFlow's own classes). Higher layers add their own files to the same pool with
``add_file`` (the checkpoint bundle's messages use ``TensorShapeProto`` and ``DataType``).
Serialized bytes are interchangeable with TensorFlow's.
"""
from __future__ import annotations

import threading
from collections.abc import Callable

__all__ = ["message_class", "add_file", "lazy_message", "GRAPH_MESSAGES"]

_LOCK = threading.RLock()
_STATE: dict = {}

# enum name -> [(value name, number)]
_DATA_TYPES = [("DT_INVALID", 0), ("DT_FLOAT", 1), ("DT_DOUBLE", 2), ("DT_INT32", 3),
               ("DT_UINT8", 4), ("DT_INT16", 5), ("DT_INT8", 6), ("DT_STRING", 7),
               ("DT_COMPLEX64", 8), ("DT_INT64", 9), ("DT_BOOL", 10), ("DT_QINT8", 11),
               ("DT_QUINT8", 12), ("DT_QINT32", 13), ("DT_BFLOAT16", 14), ("DT_QINT16", 15),
               ("DT_QUINT16", 16), ("DT_UINT16", 17), ("DT_COMPLEX128", 18), ("DT_HALF", 19),
               ("DT_RESOURCE", 20), ("DT_VARIANT", 21), ("DT_UINT32", 22), ("DT_UINT64", 23),
               ("DT_FLOAT8_E5M2", 24), ("DT_FLOAT8_E4M3FN", 25), ("DT_FLOAT8_E4M3FNUZ", 26),
               ("DT_FLOAT8_E4M3B11FNUZ", 27), ("DT_FLOAT8_E5M2FNUZ", 28), ("DT_INT4", 29),
               ("DT_UINT4", 30), ("DT_INT2", 31), ("DT_UINT2", 32), ("DT_FLOAT4_E2M1FN", 33)]
ENUMS = {"DataType": _DATA_TYPES}

# message -> [(field, number, label, type, type name, oneof)]; label 'o' optional,
# 'r' repeated, 'map' a map<string, type name> ('string' values allowed), 'map_i32'/'map_u32'
# one with int32/uint32 keys; type 'msg' or
# 'enum' with a type name, else a scalar type.
_M = "msg"
GRAPH_MESSAGES = {
    "TensorShapeProto": [("dim", 2, "r", _M, "TensorShapeProto.Dim"),
                         ("unknown_rank", 3, "o", "bool", None)],
    "TensorShapeProto.Dim": [("size", 1, "o", "int64", None), ("name", 2, "o", "string", None)],
    "TensorProto": [("dtype", 1, "o", "enum", "DataType"),
                    ("tensor_shape", 2, "o", _M, "TensorShapeProto"),
                    ("version_number", 3, "o", "int32", None),
                    ("tensor_content", 4, "o", "bytes", None),
                    ("half_val", 13, "r", "int32", None),
                    ("float_val", 5, "r", "float", None), ("double_val", 6, "r", "double", None),
                    ("int_val", 7, "r", "int32", None), ("string_val", 8, "r", "bytes", None),
                    ("scomplex_val", 9, "r", "float", None),
                    ("int64_val", 10, "r", "int64", None), ("bool_val", 11, "r", "bool", None),
                    ("dcomplex_val", 12, "r", "double", None),
                    ("uint32_val", 16, "r", "uint32", None),
                    ("uint64_val", 17, "r", "uint64", None),
                    ("float8_val", 18, "o", "bytes", None)],
    "AttrValue": [("s", 2, "o", "bytes", None, "value"), ("i", 3, "o", "int64", None, "value"),
                  ("f", 4, "o", "float", None, "value"), ("b", 5, "o", "bool", None, "value"),
                  ("type", 6, "o", "enum", "DataType", "value"),
                  ("shape", 7, "o", _M, "TensorShapeProto", "value"),
                  ("tensor", 8, "o", _M, "TensorProto", "value"),
                  ("list", 1, "o", _M, "AttrValue.ListValue", "value"),
                  ("func", 10, "o", _M, "NameAttrList", "value"),
                  ("placeholder", 9, "o", "string", None, "value")],
    "AttrValue.ListValue": [("s", 2, "r", "bytes", None), ("i", 3, "r", "int64", None),
                            ("f", 4, "r", "float", None), ("b", 5, "r", "bool", None),
                            ("type", 6, "r", "enum", "DataType"),
                            ("shape", 7, "r", _M, "TensorShapeProto"),
                            ("tensor", 8, "r", _M, "TensorProto"),
                            ("func", 9, "r", _M, "NameAttrList")],
    "NameAttrList": [("name", 1, "o", "string", None), ("attr", 2, "map", _M, "AttrValue")],
    "NodeDef": [("name", 1, "o", "string", None), ("op", 2, "o", "string", None),
                ("input", 3, "r", "string", None), ("device", 4, "o", "string", None),
                ("attr", 5, "map", _M, "AttrValue")],
    "VersionDef": [("producer", 1, "o", "int32", None),
                   ("min_consumer", 2, "o", "int32", None),
                   ("bad_consumers", 3, "r", "int32", None)],
    "OpDef.ArgDef": [("name", 1, "o", "string", None), ("description", 2, "o", "string", None),
                     ("type", 3, "o", "enum", "DataType"),
                     ("type_attr", 4, "o", "string", None),
                     ("number_attr", 5, "o", "string", None),
                     ("type_list_attr", 6, "o", "string", None),
                     ("handle_data", 7, "r", _M, "ResourceHandleProto.DtypeAndShape"),
                     ("is_ref", 16, "o", "bool", None)],
    "ResourceHandleProto": [],
    "ResourceHandleProto.DtypeAndShape": [("dtype", 1, "o", "enum", "DataType"),
                                          ("shape", 2, "o", _M, "TensorShapeProto")],
    "OpDef": [("name", 1, "o", "string", None), ("input_arg", 2, "r", _M, "OpDef.ArgDef"),
              ("output_arg", 3, "r", _M, "OpDef.ArgDef"),
              ("summary", 5, "o", "string", None), ("description", 6, "o", "string", None),
              ("is_aggregate", 16, "o", "bool", None), ("is_stateful", 17, "o", "bool", None),
              ("control_output", 20, "r", "string", None)],
    "FunctionDef": [("signature", 1, "o", _M, "OpDef"), ("attr", 5, "map", _M, "AttrValue"),
                    ("arg_attr", 7, "map_u32", _M, "FunctionDef.ArgAttrs"),
                    ("node_def", 3, "r", _M, "NodeDef"), ("ret", 4, "map", "string", None),
                    ("control_ret", 6, "map", "string", None)],
    "FunctionDef.ArgAttrs": [("attr", 1, "map", _M, "AttrValue")],
    "FunctionDefLibrary": [("function", 1, "r", _M, "FunctionDef"),
                           ("gradient", 2, "r", _M, "GradientDef"),
                           ("registered_gradients", 3, "r", _M, "RegisteredGradient")],
    "GradientDef": [("function_name", 1, "o", "string", None),
                    ("gradient_func", 2, "o", "string", None)],
    "RegisteredGradient": [("gradient_func", 1, "o", "string", None),
                           ("registered_op_type", 2, "o", "string", None)],
    "GraphDef": [("node", 1, "r", _M, "NodeDef"), ("versions", 4, "o", _M, "VersionDef"),
                 ("library", 2, "o", _M, "FunctionDefLibrary")],
}


def _file_proto(name: str, messages: dict, enums: dict, deps: list):
    from google.protobuf import descriptor_pb2  # noqa: PLC0415  (protobuf is imported on first use)
    fd = descriptor_pb2.FieldDescriptorProto
    scalar = {"bytes": fd.TYPE_BYTES, "float": fd.TYPE_FLOAT, "int64": fd.TYPE_INT64,
              "int32": fd.TYPE_INT32, "string": fd.TYPE_STRING, "bool": fd.TYPE_BOOL,
              "double": fd.TYPE_DOUBLE, "uint32": fd.TYPE_UINT32, "uint64": fd.TYPE_UINT64,
              "sint64": fd.TYPE_SINT64,
              "fixed32": fd.TYPE_FIXED32, "enum": fd.TYPE_ENUM, _M: fd.TYPE_MESSAGE}
    f = descriptor_pb2.FileDescriptorProto(name=name, package="tensorflow", syntax="proto3",
                                           dependency=deps)
    for enum_name, values in enums.items():
        e = f.enum_type.add(name=enum_name)
        for value_name, number in values:
            e.value.add(name=value_name, number=number)
    protos: dict = {}
    for full in sorted(messages, key=lambda n: n.count(".")):  # parents before nested ones
        parent, _, inner = full.rpartition(".")
        protos[full] = protos[parent].nested_type.add(name=inner) if parent else \
            f.message_type.add(name=inner)
    for full, fields in messages.items():
        m = protos[full]
        for name, number, label, typ, type_name, *oneof in fields:
            if label in ("map", "map_u32", "map_i32"):
                entry = m.nested_type.add(name=name.title().replace("_", "") + "Entry")
                entry.options.map_entry = True
                entry.field.add(name="key", number=1, label=fd.LABEL_OPTIONAL,
                                type={"map": fd.TYPE_STRING, "map_u32": fd.TYPE_UINT32,
                                      "map_i32": fd.TYPE_INT32}[label])
                value = entry.field.add(name="value", number=2, label=fd.LABEL_OPTIONAL,
                                        type=scalar[typ])
                if type_name:
                    value.type_name = f".tensorflow.{type_name}"
                m.field.add(name=name, number=number, label=fd.LABEL_REPEATED,
                            type=fd.TYPE_MESSAGE, type_name=f".tensorflow.{full}.{entry.name}")
                continue
            field = m.field.add(name=name, number=number, type=scalar[typ],
                                label=fd.LABEL_REPEATED if label == "r" else fd.LABEL_OPTIONAL)
            if type_name:
                field.type_name = f".tensorflow.{type_name}"
            if oneof:
                names = [o.name for o in m.oneof_decl]
                if oneof[0] not in names:
                    m.oneof_decl.add(name=oneof[0])
                    names.append(oneof[0])
                field.oneof_index = names.index(oneof[0])
    return f


def _pool():
    if "pool" not in _STATE:
        try:
            from google.protobuf import descriptor_pool  # noqa: PLC0415  (imported on first use)
        except ImportError as e:
            raise ImportError("GraphDef messages and TensorFlow's checkpoint format need the "
                              "'protobuf' package: pip install protobuf") from e
        pool = descriptor_pool.DescriptorPool()
        pool.Add(_file_proto("twinflow/graph.proto", GRAPH_MESSAGES, ENUMS, []))
        _STATE["pool"] = pool
        _STATE["files"] = {"twinflow/graph.proto"}
    return _STATE["pool"]


def add_file(name: str, messages: dict, enums: dict | None = None) -> None:
    """Adds a file of messages (described like ``GRAPH_MESSAGES``) to the shared pool, once;
    its messages may use the graph messages and the ``DataType`` enum.

    Args:
        name: the file's name (``twinflow/bundle.proto``).
        messages: message name -> fields.
        enums: enum name -> [(value name, number)].
    """
    with _LOCK:
        pool = _pool()
        if name not in _STATE["files"]:
            pool.Add(_file_proto(name, messages, enums or {}, ["twinflow/graph.proto"]))
            _STATE["files"].add(name)


def message_class(name: str) -> type:
    """The protobuf class of TensorFlow's message ``name`` (``GraphDef``, ``NodeDef``...).

    Args:
        name: the message name (``AttrValue.ListValue`` for a nested one).

    Returns:
        The generated message class.
    """
    key = "class:" + name
    if key not in _STATE:
        with _LOCK:
            from google.protobuf import message_factory  # noqa: PLC0415  (imported on first use)
            desc = _pool().FindMessageTypeByName(f"tensorflow.{name}")
            get_class = getattr(message_factory, "GetMessageClass", None)
            if get_class is None:  # protobuf before 4.21
                get_class = message_factory.MessageFactory(_pool()).GetPrototype
            _STATE[key] = get_class(desc)
    return _STATE[key]


def file_message_class(file: str, messages: dict, enums: dict | None = None,
                       needed_by: str | None = None) -> Callable[[str], type]:
    """The ``message_class`` of a file of messages that ``add_file`` adds on first use.

    Args:
        file: the file's name (``twinflow/saved_model.proto``).
        messages: message name -> fields, as ``add_file``'s.
        enums: enum name -> values, as ``add_file``'s.
        needed_by: what needs the messages, named by the ImportError raised when ``protobuf`` is
            missing (None: protobuf's own ImportError).

    Returns:
        ``message_class(name)``: the generated class of the file's message ``name``.
    """
    def file_message(name: str) -> type:
        try:
            add_file(file, messages, enums)
            return message_class(name)
        except ImportError as e:
            if needed_by is None:
                raise
            raise ImportError(f"{needed_by} need the 'protobuf' package: "
                              "pip install protobuf") from e
    file_message.__doc__ = (f"The protobuf class of message ``name`` of ``{file}``.\n\n"
                            "Args:\n    name: the message name.\n\n"
                            "Returns:\n    The generated message class.\n")
    return file_message


class _LazyMessage(type):
    """A stand-in class: calling it (or isinstance) uses the real protobuf class, built on
    first use."""

    def __call__(cls, *args, **kwargs):
        return cls._get_class(cls._proto_name)(*args, **kwargs)

    def __instancecheck__(cls, obj) -> bool:
        return isinstance(obj, cls._get_class(cls._proto_name))

    def __getattr__(cls, name: str):
        return getattr(cls._get_class(cls._proto_name), name)


def lazy_message(name: str, get_class=message_class) -> type:
    """A stand-in for protobuf message ``name`` that does not import protobuf until used.

    Args:
        name: the message name (``GraphDef``).
        get_class: the function giving the real class from the name (this module's
            ``message_class`` by default).

    Returns:
        A class whose calls, isinstance checks and attributes go to the real class.
    """
    return _LazyMessage(name.replace(".", ""), (), {
        "_proto_name": name, "_get_class": staticmethod(get_class),
        "__doc__": f"TensorFlow's ``{name}`` protobuf message (built on first use)."})
