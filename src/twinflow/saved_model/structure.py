"""Nested Python structures as TensorFlow's ``StructuredValue`` (how a SavedModel records the
input signature and output structure of a function) and back.

Supported: None, bool, int, float, str, tuples, lists, dicts (string keys), namedtuples,
``TensorSpec``, ``TensorShape`` and ``DType``. Anything else (a Python object, a composite
tensor's spec) raises ``ValueError`` naming it: a SavedModel keeps no Python objects.
"""
from __future__ import annotations

import collections

from ..core import dtypes
from ..core.shapes import TensorShape
from ..eager.func_graph import TensorSpec
from ..graph.graph_def import fill_shape, shape_of_proto
from ..graph.tensor import Tensor
from .protos import saved_model_message

__all__ = ["encode_structure", "decode_structure"]


def encode_structure(value, proto=None):
    """``value`` as a ``StructuredValue`` message.

    Args:
        value: a nested structure (see the module docstring); a tensor is written as its spec.
        proto: a message to fill (a new one if None).

    Returns:
        The message.

    Raises:
        ValueError: a leaf of ``value`` has no StructuredValue form.
    """
    p = saved_model_message("StructuredValue")() if proto is None else proto
    if value is None:
        p.none_value.SetInParent()
    elif isinstance(value, bool):
        p.bool_value = value
    elif isinstance(value, int):
        p.int64_value = value
    elif isinstance(value, float):
        p.float64_value = value
    elif isinstance(value, str):
        p.string_value = value
    elif isinstance(value, TensorSpec) or isinstance(value, Tensor):
        spec = p.tensor_spec_value
        name = getattr(value, "name", None) if isinstance(value, TensorSpec) else None
        spec.name = name or ""
        fill_shape(spec.shape, value.shape)
        spec.dtype = value.dtype.as_datatype_enum
    elif isinstance(value, TensorShape):
        fill_shape(p.tensor_shape_value, value)
    elif isinstance(value, dtypes.DType):
        p.tensor_dtype_value = value.as_datatype_enum
    elif isinstance(value, tuple) and hasattr(value, "_fields"):
        nt = p.named_tuple_value
        nt.name = type(value).__name__
        for k in value._fields:
            encode_structure(getattr(value, k), nt.values.add(key=k).value)
    elif isinstance(value, tuple):
        p.tuple_value.SetInParent()
        for v in value:
            encode_structure(v, p.tuple_value.values.add())
    elif isinstance(value, list):
        p.list_value.SetInParent()
        for v in value:
            encode_structure(v, p.list_value.values.add())
    elif isinstance(value, dict):
        p.dict_value.SetInParent()
        for k in sorted(value, key=str):
            if not isinstance(k, str):
                raise ValueError(f"a SavedModel records dicts with string keys only, got {k!r}")
            encode_structure(value[k], p.dict_value.fields[k])
    else:
        raise ValueError(f"{type(value).__name__} {value!r} cannot be saved in a SavedModel's "
                         "function signature (tensors, TensorSpecs, Python numbers, strings, "
                         "None and lists/tuples/dicts of them can)")
    return p


def decode_structure(proto):
    """The Python structure a ``StructuredValue`` describes (TensorSpecs for tensor specs,
    namedtuples rebuilt as ``collections.namedtuple`` classes of the same name and fields).

    Args:
        proto: the message.

    Returns:
        The structure.

    Raises:
        ValueError: the message holds a kind twinflow does not restore (a composite spec).
    """
    kind = proto.WhichOneof("kind")
    if kind is None or kind == "none_value":
        return None
    if kind in ("bool_value", "int64_value", "float64_value", "string_value"):
        return getattr(proto, kind)
    if kind == "tensor_spec_value":
        s = proto.tensor_spec_value
        return TensorSpec(shape_of_proto(s.shape), dtypes.as_dtype(s.dtype), s.name or None)
    if kind == "tensor_shape_value":
        return shape_of_proto(proto.tensor_shape_value)
    if kind == "tensor_dtype_value":
        return dtypes.as_dtype(proto.tensor_dtype_value)
    if kind == "tuple_value":
        return tuple(decode_structure(v) for v in proto.tuple_value.values)
    if kind == "list_value":
        return [decode_structure(v) for v in proto.list_value.values]
    if kind == "dict_value":
        return {k: decode_structure(proto.dict_value.fields[k])
                for k in sorted(proto.dict_value.fields)}
    if kind == "named_tuple_value":
        nt = proto.named_tuple_value
        cls = collections.namedtuple(nt.name or "NamedTuple", [p.key for p in nt.values])
        return cls(*[decode_structure(p.value) for p in nt.values])
    raise ValueError(f"this SavedModel's function signature holds a {kind!r}, which twinflow "
                     "does not restore (composite tensor specs are not supported)")
