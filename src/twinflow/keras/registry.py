"""The global registry of custom objects (``register_keras_serializable``): names that load
without ``custom_objects``. Deserialization (``saving.py``) looks here after the
``custom_objects`` in scope."""
from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

REGISTERED: dict = {}  # "package>name" and "name" -> class or function
_CUSTOM: list = []  # stack of custom_objects dicts (load_model, custom_object_scope)


def register_object(name: str, obj) -> None:
    """Makes ``obj`` loadable as ``name`` without ``custom_objects``.

    Args:
        name: the saved name.
        obj: the class or function.
    """
    REGISTERED[name] = obj


@contextlib.contextmanager
def custom_object_scope(custom_objects: dict | None) -> Iterator[None]:
    """Makes ``custom_objects`` (name -> class or function) visible to deserialization.

    Args:
        custom_objects: the objects, by the names saved in configs.

    Yields:
        Nothing.
    """
    _CUSTOM.append(dict(custom_objects or {}))
    try:
        yield
    finally:
        _CUSTOM.pop()


def custom(name: str) -> Any:
    """The object saved as ``name``: from the custom_objects in scope, then registered."""
    for table in reversed(_CUSTOM):
        if name in table:
            return table[name]
    return REGISTERED.get(name)


def jsonable(x, where: str) -> Any:
    """``x`` as plain JSON values (tuples as lists); raises TypeError naming ``where``."""
    if x is None or isinstance(x, (bool, int, float, str)):
        return x
    if isinstance(x, (np.integer, np.floating, np.bool_)):
        return x.item()
    if isinstance(x, (list, tuple)):
        return [jsonable(v, where) for v in x]
    if isinstance(x, dict):
        return {str(k): jsonable(v, where) for k, v in x.items()}
    raise TypeError(f"Cannot save {where}: the argument {x!r} is not a tensor from the model "
                    "nor a JSON value")


def deserialize_object(config, custom_objects: dict | None, namespace: dict, base: type,
                       get: Callable, what: str) -> Any:
    """``{"class_name", "config"}`` (a class of ``namespace`` deriving from ``base``, or of
    ``custom_objects``) instantiated, or a name resolved by ``custom_objects`` then ``get``.

    Args:
        config: the dict or name.
        custom_objects: name -> class or function.
        namespace: the module's globals, where the built-in classes are.
        base: the classes' base (Loss, Metric).
        get: the module's ``get`` for names.
        what: "loss", "metric"..., for the error.

    Returns:
        The object.
    """
    if isinstance(config, dict):
        key = config.get("class_name")
        cls = (custom_objects or {}).get(key) or namespace.get(key)
        if not (isinstance(cls, type) and issubclass(cls, base)):
            raise ValueError(f"Unknown {what} class {key!r}")
        return cls(**config.get("config", {}))
    if custom_objects and config in custom_objects:
        return custom_objects[config]
    return get(config)
