"""The global registry of custom objects (``register_keras_serializable``): names that load
without ``custom_objects``. Deserialization (``saving.py``) looks here after the
``custom_objects`` in scope."""
from __future__ import annotations

REGISTERED: dict = {}  # "package>name" and "name" -> class or function


def register_object(name: str, obj) -> None:
    """Makes ``obj`` loadable as ``name`` without ``custom_objects``.

    Args:
        name: the saved name.
        obj: the class or function.
    """
    REGISTERED[name] = obj
