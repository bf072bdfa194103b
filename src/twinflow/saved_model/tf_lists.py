"""TensorFlow's TensorList ops (what ``tf.TensorArray`` and Keras RNNs trace to) onto
twinflow's, when a SavedModel TensorFlow wrote is imported.

TensorFlow passes an element shape as an input tensor (``-1`` for an unknown dim, a scalar
``-1`` for an unknown rank) and names its attrs differently; twinflow's ops
(``control/tensor_array.py``) take the element shape and dtype as attrs. The element shape
only fills reads of never-written elements and stacks of empty lists, so one that is not a
Const imports as unknown.
"""
from __future__ import annotations

from ..core import dtypes, errors
from ..core.shapes import TensorShape
from ..eager.execute import bind
from ..graph.registry import REGISTRY
from .graph_import import _attr_value

# TensorFlow op -> (positions of the inputs twinflow's op takes, position of the element
# shape input or None).
_INPUTS = {
    "TensorListReserve": ((1,), 0),
    "TensorListFromTensor": ((0,), 1),
    "TensorListStack": ((0,), 1),
    "TensorListGetItem": ((0, 1), 2),
    "TensorListSetItem": ((0, 1, 2), None),
    "TensorListLength": ((0,), None),
}
TF_LIST_OPS = frozenset(_INPUTS)


def _element_shape(ref: str | None, consts: dict) -> TensorShape:
    value = consts.get(ref.split(":")[0]) if ref is not None else None
    if value is None or value.ndim == 0:
        return TensorShape(None)
    return TensorShape([None if int(d) < 0 else int(d) for d in value.reshape(-1)])


def import_list_op(node, data: list, inputs: list, consts: dict) -> list:
    """Adds twinflow's op for TensorFlow's TensorList node ``node``.

    Args:
        node: the NodeDef.
        data: its data input names.
        inputs: its input tensors.
        consts: node name -> value of the Const nodes imported so far.

    Returns:
        The output tensors.
    """
    keep, shape_at = _INPUTS[node.op]
    if len(inputs) != max(keep + ((shape_at,) if shape_at is not None else ())) + 1:
        raise errors.InvalidArgumentError(None, None, f"TensorFlow's {node.op} has "
                                                      f"{len(inputs)} inputs, expected another "
                                                      "number")
    attrs: dict = {}
    if shape_at is not None:
        attrs["element_shape"] = _element_shape(data[shape_at], consts)
    if node.op in ("TensorListReserve", "TensorListStack", "TensorListGetItem"):
        attrs["element_dtype"] = dtypes.as_dtype(_attr_value(node.attr["element_dtype"]))
    if node.op == "TensorListSetItem":
        r = node.attr.get("resize_if_index_out_of_bounds")
        attrs["resize"] = bool(_attr_value(r)) if r is not None else False
    out = bind(REGISTRY[node.op], [inputs[i] for i in keep], attrs, name=node.name)
    return list(out) if isinstance(out, (list, tuple)) else [out]
