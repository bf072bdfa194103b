"""TensorFlow's ``Example``, ``SequenceExample`` and ``TensorProto`` messages, described in
Python (a FileDescriptorProto with TensorFlow's message names and field numbers) and built
with the ``protobuf`` library on first use, in a private descriptor pool (so they never clash
with TensorFlow's own classes if both are imported). Serialized bytes are interchangeable with
TensorFlow's.
"""
from __future__ import annotations

import threading

from ..graph.protos import lazy_message

_LOCK = threading.Lock()
_CLASSES: dict = {}

# message -> [(field name, number, label, type, type name)]; label 'r' repeated, 'o' optional.
# Types: 'bytes', 'float', 'int64', 'int32', 'string', 'bool', 'double', or '.Msg'.
_MESSAGES = {
    "BytesList": [("value", 1, "r", "bytes", None)],
    "FloatList": [("value", 1, "r", "float", None)],
    "Int64List": [("value", 1, "r", "int64", None)],
    "Feature": [("bytes_list", 1, "o", "msg", "BytesList"),
                ("float_list", 2, "o", "msg", "FloatList"),
                ("int64_list", 3, "o", "msg", "Int64List")],
    "Features": [("feature", 1, "map", "msg", "Feature")],
    "Example": [("features", 1, "o", "msg", "Features")],
    "FeatureList": [("feature", 1, "r", "msg", "Feature")],
    "FeatureLists": [("feature_list", 1, "map", "msg", "FeatureList")],
    "SequenceExample": [("context", 1, "o", "msg", "Features"),
                        ("feature_lists", 2, "o", "msg", "FeatureLists")],
    "TensorShapeProto.Dim": [("size", 1, "o", "int64", None), ("name", 2, "o", "string", None)],
    "TensorShapeProto": [("dim", 2, "r", "msg", "TensorShapeProto.Dim"),
                         ("unknown_rank", 3, "o", "bool", None)],
    "TensorProto": [("dtype", 1, "o", "int32", None),
                    ("tensor_shape", 2, "o", "msg", "TensorShapeProto"),
                    ("version_number", 3, "o", "int32", None),
                    ("tensor_content", 4, "o", "bytes", None),
                    ("float_val", 5, "r", "float", None), ("double_val", 6, "r", "double", None),
                    ("int_val", 7, "r", "int32", None), ("string_val", 8, "r", "bytes", None),
                    ("scomplex_val", 9, "r", "float", None),
                    ("int64_val", 10, "r", "int64", None), ("bool_val", 11, "r", "bool", None),
                    ("dcomplex_val", 12, "r", "double", None),
                    ("half_val", 13, "r", "int32", None),
                    ("uint32_val", 16, "r", "uint32", None),
                    ("uint64_val", 17, "r", "uint64", None)],
}


def _build() -> dict:
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory  # noqa: PLC0415  (protobuf is imported on first use)
    fd = descriptor_pb2.FieldDescriptorProto
    types = {"bytes": fd.TYPE_BYTES, "float": fd.TYPE_FLOAT, "int64": fd.TYPE_INT64,
             "int32": fd.TYPE_INT32, "string": fd.TYPE_STRING, "bool": fd.TYPE_BOOL,
             "double": fd.TYPE_DOUBLE, "uint32": fd.TYPE_UINT32, "uint64": fd.TYPE_UINT64,
             "msg": fd.TYPE_MESSAGE}
    f = descriptor_pb2.FileDescriptorProto(name="twinflow/tf_protos.proto",
                                           package="tensorflow", syntax="proto3")
    protos = {}
    for full, fields in _MESSAGES.items():
        outer, _, inner = full.partition(".")
        if outer not in protos:
            protos[outer] = f.message_type.add(name=outer)
        m = protos[outer].nested_type.add(name=inner) if inner else protos[outer]
        oneof = full == "Feature"
        if oneof:
            m.oneof_decl.add(name="kind")
        for name, number, label, typ, type_name in fields:
            if label == "map":
                entry = m.nested_type.add(name=name.title().replace("_", "") + "Entry")
                entry.options.map_entry = True
                entry.field.add(name="key", number=1, label=fd.LABEL_OPTIONAL,
                                type=fd.TYPE_STRING)
                entry.field.add(name="value", number=2, label=fd.LABEL_OPTIONAL,
                                type=fd.TYPE_MESSAGE, type_name=f".tensorflow.{type_name}")
                m.field.add(name=name, number=number, label=fd.LABEL_REPEATED,
                            type=fd.TYPE_MESSAGE,
                            type_name=f".tensorflow.{full}.{entry.name}")
                continue
            field = m.field.add(name=name, number=number, type=types[typ],
                                label=fd.LABEL_REPEATED if label == "r" else fd.LABEL_OPTIONAL)
            if type_name:
                field.type_name = f".tensorflow.{type_name}"
            if oneof:
                field.oneof_index = 0
    pool = descriptor_pool.DescriptorPool()
    pool.Add(f)
    out = {}
    get_class = getattr(message_factory, "GetMessageClass", None)
    if get_class is None:  # protobuf before 4.21
        get_class = message_factory.MessageFactory(pool).GetPrototype
    for full in _MESSAGES:
        out[full] = get_class(pool.FindMessageTypeByName(f"tensorflow.{full}"))
    return out


def message_class(name: str) -> type:
    """The protobuf class of TensorFlow's message ``name`` (``Example``, ``TensorProto``...).

    Args:
        name: the message name.

    Returns:
        The generated message class.

    Raises:
        ImportError: the ``protobuf`` package is missing (with how to install it).
    """
    if not _CLASSES:
        with _LOCK:
            if not _CLASSES:
                try:
                    _CLASSES.update(_build())
                except ImportError as e:
                    raise ImportError("tf.train.Example and the tf.io parsing functions need "
                                      "the 'protobuf' package: pip install protobuf") from e
    return _CLASSES[name]


def _lazy(name: str) -> type:
    return lazy_message(name, message_class)


Example = _lazy("Example")
Features = _lazy("Features")
Feature = _lazy("Feature")
BytesList = _lazy("BytesList")
FloatList = _lazy("FloatList")
Int64List = _lazy("Int64List")
FeatureList = _lazy("FeatureList")
FeatureLists = _lazy("FeatureLists")
SequenceExample = _lazy("SequenceExample")
TensorProto = _lazy("TensorProto")
