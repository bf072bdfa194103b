"""``keras.utils.serialize_keras_object`` / ``deserialize_keras_object``: Keras 3's
``{"module", "class_name", "config", "registered_name"}`` form of layers, optimizers, losses,
metrics, initializers, regularizers, constraints and dtype policies. Classes are looked up by
name (``custom_objects`` first); nothing is evaluated."""
from __future__ import annotations

from typing import Any

from . import constraints, initializers, losses, metrics, optimizers, regularizers
from . import dtype_policies as _policies
from . import quantizers as _quantizers
from . import saving as _saving
from .layers.base import Layer

_FAMILIES = (("keras.optimizers", optimizers.Optimizer, optimizers),
             ("keras.losses", losses.Loss, losses),
             ("keras.metrics", metrics.Metric, metrics),
             ("keras.initializers", initializers.Initializer, initializers),
             ("keras.regularizers", regularizers.Regularizer, regularizers),
             ("keras.constraints", constraints.Constraint, constraints))


def serialize_keras_object(obj) -> Any:
    """Keras 3's serialized form of ``obj`` (plain values pass through; a named function
    becomes its name).

    Args:
        obj: a layer, optimizer, loss, metric, initializer, regularizer, constraint, dtype
            policy, function or plain value.

    Returns:
        A JSON-compatible value.
    """
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    if isinstance(obj, (list, tuple)):
        return [serialize_keras_object(v) for v in obj]
    if isinstance(obj, dict):
        return {k: serialize_keras_object(v) for k, v in obj.items()}
    if isinstance(obj, _policies.DTypePolicy):
        return _policies.serialize(obj)
    if isinstance(obj, (_quantizers.Quantizer, _quantizers.QuantizationConfig)):
        return _quantizers.serialize(obj)
    if isinstance(obj, Layer):
        entry = _saving.serialize_layer(obj)
        return {"module": "keras.layers", "class_name": entry["class_name"],
                "config": entry["config"], "registered_name": None}
    for module, base, _ in _FAMILIES:
        if isinstance(obj, base):
            return {"module": module, "class_name": type(obj).__name__,
                    "config": obj.get_config(), "registered_name": None}
    name = getattr(obj, "__name__", None)
    if callable(obj) and name and name != "<lambda>":
        return name
    raise TypeError(f"Cannot serialize {obj!r}: not a Keras object, a named function or a "
                    "JSON value")


def deserialize_keras_object(config, custom_objects: dict | None = None, **kwargs) -> Any:
    """The object of a ``serialize_keras_object`` result.

    Args:
        config: the serialized value.
        custom_objects: name -> class or function, looked up first.
        **kwargs: ``module_objects``/``printable_module_name``/``safe_mode`` (accepted at
            their defaults only).

    Returns:
        The object.
    """
    bad = {k: v for k, v in kwargs.items() if v not in (None, True, "object")}
    if bad:
        raise ValueError(f"deserialize_keras_object: unsupported arguments {bad}")
    if isinstance(config, list):
        return [deserialize_keras_object(v, custom_objects) for v in config]
    if not isinstance(config, dict) or "class_name" not in config:
        if isinstance(config, str) and custom_objects and config in custom_objects:
            return custom_objects[config]
        return config
    name = config["class_name"]
    module = str(config.get("module") or "")
    inner = config.get("config", {})
    if name in _policies._CLASSES:
        return _policies.deserialize(config, custom_objects)
    if module.startswith("keras.quantizers"):
        return _quantizers.deserialize(config, custom_objects)
    with _saving.custom_object_scope(custom_objects):
        custom = (custom_objects or {}).get(name)
        for fam_module, base, namespace in _FAMILIES:
            cls = custom or getattr(namespace, name, None)
            if isinstance(cls, type) and issubclass(cls, base) and \
                    (not module or module.startswith(fam_module) or custom is not None):
                return cls.from_config(inner) if hasattr(cls, "from_config") else cls(**inner)
        return _saving.deserialize_layer({"class_name": name, "config": inner})
