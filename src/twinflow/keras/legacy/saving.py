"""``keras.legacy.saving`` (also ``keras.utils.legacy``): the TF-Keras 2 serialization
format, ``{"class_name": ..., "config": ...}`` without Keras 3's ``module`` and
``registered_name``. Classes are found by name (``custom_objects``, the registry of
``register_keras_serializable``, ``module_objects``, then twinflow's Keras classes); nothing
is evaluated."""
from __future__ import annotations

import inspect
from typing import Any

from .. import registry as _registry
from .. import serialization as _serialization
from ..saving import custom_object_scope

__all__ = ["deserialize_keras_object", "serialize_keras_object"]


def _registered_name(obj) -> str:
    return getattr(obj, "_tw_registered_name", None) or obj.__name__


def serialize_keras_object(instance) -> Any:
    """``{"class_name", "config"}`` of an object with ``get_config`` (nested objects in its
    config serialized too and marked ``__passive_serialization__``); a function gives its
    (registered) name.

    Args:
        instance: the object, or None.

    Returns:
        The serialized form (None for None).
    """
    if instance is None:
        return None
    if hasattr(instance, "get_config") and not isinstance(instance, type):
        config = {}
        for key, item in instance.get_config().items():
            if isinstance(item, str):
                config[key] = item
                continue
            try:
                value = serialize_keras_object(item)
            except ValueError:
                value = item
            if isinstance(value, dict) and not isinstance(item, dict):
                value["__passive_serialization__"] = True
            config[key] = value
        return {"class_name": _registered_name(type(instance)), "config": config}
    if hasattr(instance, "__name__"):
        return _registered_name(instance)
    if isinstance(instance, (bool, int, float, list, tuple, dict)):
        raise ValueError(f"Cannot serialize {instance!r} because it doesn't implement "
                         "`get_config()`.")
    raise ValueError(f"Cannot serialize {instance!r} because it doesn't implement "
                     "`get_config()`.")


def _lookup(name: str, module_objects, custom_objects) -> Any:
    for table in (custom_objects, _registry.REGISTERED, module_objects):
        if table and name in table:
            return table[name]
    return None


def _revive(value, custom_objects) -> Any:
    if isinstance(value, dict):
        if value.get("__passive_serialization__"):
            inner = {k: v for k, v in value.items() if k != "__passive_serialization__"}
            return deserialize_keras_object(inner, custom_objects=custom_objects)
        return {k: _revive(v, custom_objects) for k, v in value.items()}
    return value


def deserialize_keras_object(identifier, module_objects: dict | None = None,
                             custom_objects: dict | None = None,
                             printable_module_name: str = "object") -> Any:
    """The object of a ``serialize_keras_object`` result (or of a name).

    Args:
        identifier: a ``{"class_name", "config"}`` dict, a name, a callable or None.
        module_objects: name -> class or function, looked up after the custom objects.
        custom_objects: name -> class or function, looked up first.
        printable_module_name: what the object is, for error messages.

    Returns:
        The object (a class named by a string is instantiated without arguments, as Keras).
    """
    if identifier is None:
        return None
    if isinstance(identifier, dict):
        if "class_name" not in identifier or "config" not in identifier:
            raise ValueError(f"Improper config format for {identifier}. Expecting python dict "
                             "contains `class_name` and `config` as keys")
        name = identifier["class_name"]
        cls = _lookup(name, module_objects, custom_objects)
        config = identifier["config"]
        if cls is None:
            if module_objects is None:  # twinflow's own Keras classes
                return _serialization.deserialize_keras_object(
                    {"class_name": name, "config": _revive(config, custom_objects)},
                    custom_objects)
            raise ValueError(f"Unknown {printable_module_name}: '{name}'. Please ensure you "
                             "are using a `keras.utils.custom_object_scope` and that this "
                             "object is included in the scope.")
        config = _revive(config, custom_objects) if isinstance(config, dict) else config
        if hasattr(cls, "from_config"):
            params = inspect.signature(cls.from_config).parameters
            with custom_object_scope(custom_objects):
                if "custom_objects" in params:
                    return cls.from_config(config, custom_objects=dict(custom_objects or {}))
                return cls.from_config(config)
        with custom_object_scope(custom_objects):
            return cls(**config)
    if isinstance(identifier, str):
        obj = _lookup(identifier, module_objects, custom_objects)
        if obj is None:
            raise ValueError(f"Unknown {printable_module_name}: '{identifier}'. Please ensure "
                             "you are using a `keras.utils.custom_object_scope` and that this "
                             "object is included in the scope.")
        return obj() if isinstance(obj, type) else obj
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret serialized {printable_module_name}: {identifier}")
