"""``keras.layers.serialize`` / ``deserialize``: a layer as Keras 3's
``{"module", "class_name", "config", "registered_name"}`` dict and back (classes found by
name; nothing is evaluated)."""
from __future__ import annotations

from typing import Any

from .. import serialization as _serialization
from ..declare import with_args
from .base import Layer

_ARGS = {"layer": "the layer.", "config": "the dict.",
         "custom_objects": "name -> class, looked up first."}


@with_args(_ARGS)
def serialize(layer: Layer) -> dict:
    """Keras 3's serialized form of ``layer``.

    Returns:
        A JSON-compatible dict.
    """
    if not isinstance(layer, Layer):
        raise TypeError(f"keras.layers.serialize expects a Layer, got {type(layer).__name__}")
    return _serialization.serialize_keras_object(layer)


@with_args(_ARGS)
def deserialize(config: dict, custom_objects: dict | None = None) -> Any:
    """The layer of a ``serialize`` result (also TF-Keras 2's ``{"class_name", "config"}``).

    Returns:
        The layer.
    """
    if not isinstance(config, dict) or "class_name" not in config:
        raise ValueError(f"keras.layers.deserialize expects a dict with 'class_name' and "
                         f"'config', got {config!r}")
    out = _serialization.deserialize_keras_object(config, custom_objects)
    if not isinstance(out, Layer):
        raise ValueError(f"keras.layers.deserialize: {config['class_name']!r} is not a layer")
    return out
