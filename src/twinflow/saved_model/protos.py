"""TensorFlow's SavedModel messages (``SavedModel``, ``MetaGraphDef``, ``SignatureDef``,
``SavedObjectGraph``, the checkpoints' ``TrackableObjectGraph``, the ``StructuredValue`` of
function signatures, ``FingerprintDef``), described with TensorFlow's names and field numbers
and added to the shared pool of ``graph/protos.py`` (they use its ``GraphDef``,
``TensorShapeProto`` and ``DataType``). TensorFlow's enums that only appear as fields
(``VariableSynchronization``, ``FunctionSpec.JitCompile``...) are written as ``int32``: the
same varint on the wire.
"""
from __future__ import annotations

import threading

from ..graph.protos import add_file, message_class

__all__ = ["saved_model_message", "SAVED_MODEL_MESSAGES"]

_M = "msg"
_T = "TrackableObjectGraph.TrackableObject"
_S = "StructuredValue"
_SV = ("value",)  # the StructuredValue ``kind`` oneof

SAVED_MODEL_MESSAGES = {
    "SavedModel": [("saved_model_schema_version", 1, "o", "int64", None),
                   ("meta_graphs", 2, "r", _M, "MetaGraphDef")],
    "MetaGraphDef": [("meta_info_def", 1, "o", _M, "MetaGraphDef.MetaInfoDef"),
                     ("graph_def", 2, "o", _M, "GraphDef"),
                     ("saver_def", 3, "o", _M, "SaverDef"),
                     ("signature_def", 5, "map", _M, "SignatureDef"),
                     ("asset_file_def", 6, "r", _M, "AssetFileDef"),
                     ("object_graph_def", 7, "o", _M, "SavedObjectGraph")],
    "MetaGraphDef.MetaInfoDef": [("meta_graph_version", 1, "o", "string", None),
                                 ("tags", 4, "r", "string", None),
                                 ("tensorflow_version", 5, "o", "string", None),
                                 ("tensorflow_git_version", 6, "o", "string", None),
                                 ("stripped_default_attrs", 7, "o", "bool", None),
                                 ("function_aliases", 8, "map", "string", None)],
    "SaverDef": [("filename_tensor_name", 1, "o", "string", None),
                 ("save_tensor_name", 2, "o", "string", None),
                 ("restore_op_name", 3, "o", "string", None),
                 ("max_to_keep", 4, "o", "int32", None), ("sharded", 5, "o", "bool", None),
                 ("version", 7, "o", "int32", None)],
    "SignatureDef": [("inputs", 1, "map", _M, "TensorInfo"),
                     ("outputs", 2, "map", _M, "TensorInfo"),
                     ("method_name", 3, "o", "string", None)],
    "TensorInfo": [("name", 1, "o", "string", None, "encoding"),
                   ("dtype", 2, "o", "enum", "DataType"),
                   ("tensor_shape", 3, "o", _M, "TensorShapeProto")],
    "AssetFileDef": [("tensor_info", 1, "o", _M, "TensorInfo"),
                     ("filename", 2, "o", "string", None)],
    "SavedObjectGraph": [("nodes", 1, "r", _M, "SavedObject"),
                         ("concrete_functions", 2, "map", _M, "SavedConcreteFunction")],
    "SavedObject": [("children", 1, "r", _M, _T + ".ObjectReference"),
                    ("dependencies", 15, "r", _M, _T + ".ObjectReference"),
                    ("user_object", 4, "o", _M, "SavedUserObject", "kind"),
                    ("asset", 5, "o", _M, "SavedAsset", "kind"),
                    ("function", 6, "o", _M, "SavedFunction", "kind"),
                    ("variable", 7, "o", _M, "SavedVariable", "kind"),
                    ("bare_concrete_function", 8, "o", _M, "SavedBareConcreteFunction",
                     "kind"),
                    ("constant", 9, "o", _M, "SavedConstant", "kind"),
                    ("resource", 10, "o", _M, "SavedResource", "kind"),
                    ("captured_tensor", 12, "o", _M, "CapturedTensor", "kind"),
                    ("registered_name", 13, "o", "string", None)],
    "SavedUserObject": [("identifier", 1, "o", "string", None),
                        ("version", 2, "o", _M, "VersionDef"),
                        ("metadata", 3, "o", "string", None)],
    "SavedAsset": [("asset_file_def_index", 1, "o", "int32", None)],
    "SavedFunction": [("concrete_functions", 1, "r", "string", None),
                      ("function_spec", 2, "o", _M, "FunctionSpec")],
    "CapturedTensor": [("name", 1, "o", "string", None),
                       ("concrete_function", 2, "o", "string", None)],
    "SavedConcreteFunction": [("bound_inputs", 2, "r", "int32", None),
                              ("canonicalized_input_signature", 3, "o", _M, _S),
                              ("output_signature", 4, "o", _M, _S)],
    "SavedBareConcreteFunction": [("concrete_function_name", 1, "o", "string", None),
                                  ("argument_keywords", 2, "r", "string", None),
                                  ("allowed_positional_arguments", 3, "o", "int64", None),
                                  ("function_spec", 4, "o", _M, "FunctionSpec")],
    "SavedConstant": [("operation", 1, "o", "string", None)],
    "SavedVariable": [("dtype", 1, "o", "enum", "DataType"),
                      ("shape", 2, "o", _M, "TensorShapeProto"),
                      ("trainable", 3, "o", "bool", None),
                      ("synchronization", 4, "o", "int32", None),
                      ("aggregation", 5, "o", "int32", None),
                      ("name", 6, "o", "string", None), ("device", 7, "o", "string", None)],
    "FunctionSpec": [("fullargspec", 1, "o", _M, _S), ("is_method", 2, "o", "bool", None),
                     ("input_signature", 5, "o", _M, _S),
                     ("jit_compile", 6, "o", "int32", None)],
    "SavedResource": [("device", 1, "o", "string", None)],
    "TrackableObjectGraph": [("nodes", 1, "r", _M, _T)],
    _T: [("children", 1, "r", _M, _T + ".ObjectReference"),
         ("attributes", 2, "r", _M, _T + ".SerializedTensor")],
    _T + ".ObjectReference": [("node_id", 1, "o", "int32", None),
                              ("local_name", 2, "o", "string", None)],
    _T + ".SerializedTensor": [("name", 1, "o", "string", None),
                               ("full_name", 2, "o", "string", None),
                               ("checkpoint_key", 3, "o", "string", None)],
    _S: [("none_value", 1, "o", _M, "NoneValue", "kind"),
         ("float64_value", 11, "o", "double", None, "kind"),
         ("int64_value", 12, "o", "sint64", None, "kind"),
         ("string_value", 13, "o", "string", None, "kind"),
         ("bool_value", 14, "o", "bool", None, "kind"),
         ("tensor_shape_value", 31, "o", _M, "TensorShapeProto", "kind"),
         ("tensor_dtype_value", 32, "o", "enum", "DataType", "kind"),
         ("tensor_spec_value", 33, "o", _M, "TensorSpecProto", "kind"),
         ("type_spec_value", 34, "o", _M, "TypeSpecProto", "kind"),
         ("list_value", 51, "o", _M, "ListValue", "kind"),
         ("tuple_value", 52, "o", _M, "TupleValue", "kind"),
         ("dict_value", 53, "o", _M, "DictValue", "kind"),
         ("named_tuple_value", 54, "o", _M, "NamedTupleValue", "kind"),
         ("tensor_value", 55, "o", _M, "TensorProto", "kind")],
    "NoneValue": [],
    "ListValue": [("values", 1, "r", _M, _S)],
    "TupleValue": [("values", 1, "r", _M, _S)],
    "DictValue": [("fields", 1, "map", _M, _S)],
    "PairValue": [("key", 1, "o", "string", None), ("value", 2, "o", _M, _S)],
    "NamedTupleValue": [("name", 1, "o", "string", None),
                        ("values", 2, "r", _M, "PairValue")],
    "TensorSpecProto": [("name", 1, "o", "string", None),
                        ("shape", 2, "o", _M, "TensorShapeProto"),
                        ("dtype", 3, "o", "enum", "DataType")],
    "TypeSpecProto": [("type_spec_class", 1, "o", "int32", None),
                      ("type_state", 2, "o", _M, _S),
                      ("type_spec_class_name", 3, "o", "string", None),
                      ("num_flat_components", 4, "o", "int32", None)],
    "FingerprintDef": [("saved_model_checksum", 1, "o", "uint64", None),
                       ("graph_def_program_hash", 2, "o", "uint64", None),
                       ("signature_def_hash", 3, "o", "uint64", None),
                       ("saved_object_graph_hash", 4, "o", "uint64", None),
                       ("checkpoint_hash", 5, "o", "uint64", None),
                       ("uuid", 7, "o", "string", None),
                       ("version", 6, "o", _M, "VersionDef")],
}
_ADDED = threading.Lock()


def saved_model_message(name: str) -> type:
    """The protobuf class of TensorFlow's SavedModel message ``name``.

    Args:
        name: the message name (``SavedModel``, ``SavedObjectGraph``...).

    Returns:
        The generated message class.
    """
    with _ADDED:
        add_file("twinflow/saved_model.proto", SAVED_MODEL_MESSAGES)
    return message_class(name)
