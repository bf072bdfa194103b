"""TensorFlow's ``Example`` and ``SequenceExample`` messages, described in Python (TensorFlow's
message names and field numbers) and added on first use to ``graph.protos``' private descriptor
pool (so they never clash with TensorFlow's own classes if both are imported), which also
describes ``TensorProto`` once for both. Serialized bytes are interchangeable with TensorFlow's.
"""
from __future__ import annotations

from ..graph.protos import file_message_class, lazy_message

# message -> [(field, number, label, type, type name, oneof)], as ``graph.protos`` describes.
_M = "msg"
_EXAMPLE_MESSAGES = {
    "BytesList": [("value", 1, "r", "bytes", None)],
    "FloatList": [("value", 1, "r", "float", None)],
    "Int64List": [("value", 1, "r", "int64", None)],
    "Feature": [("bytes_list", 1, "o", _M, "BytesList", "kind"),
                ("float_list", 2, "o", _M, "FloatList", "kind"),
                ("int64_list", 3, "o", _M, "Int64List", "kind")],
    "Features": [("feature", 1, "map", _M, "Feature")],
    "Example": [("features", 1, "o", _M, "Features")],
    "FeatureList": [("feature", 1, "r", _M, "Feature")],
    "FeatureLists": [("feature_list", 1, "map", _M, "FeatureList")],
    "SequenceExample": [("context", 1, "o", _M, "Features"),
                        ("feature_lists", 2, "o", _M, "FeatureLists")],
}


# ``message_class(name)``: ``Example``, ``TensorProto``... (ImportError, saying how to install
# protobuf, when it is missing).
message_class = file_message_class("twinflow/tf_protos.proto", _EXAMPLE_MESSAGES,
                                   needed_by="tf.train.Example and the tf.io parsing functions")


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
