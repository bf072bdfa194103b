"""What ``activations``, ``losses`` and ``metrics`` share to resolve and name their functions:
``get`` looks a name up in the module's table, ``serialize`` gives an object's
``{"class_name", "config"}`` or a function's name."""
from __future__ import annotations

from typing import Any


def by_name(table: dict, name: str, what: str) -> Any:
    """``table[name.lower()]``, or a ValueError listing the known names.

    Args:
        table: lower-case name -> function or class.
        name: the name asked for.
        what: e.g. ``"loss function"``, for the error.

    Returns:
        The entry.
    """
    try:
        return table[name.lower()]
    except KeyError:
        raise ValueError(f"Unknown {what}: {name!r}. Known: {sorted(table)}") from None


def serialize_named(obj, base: type | None = None) -> dict | str:
    """``{"class_name", "config"}`` of an instance of ``base``, else the function's name.

    Args:
        obj: the object or function.
        base: the class whose instances carry a config (Loss, Metric), if any.

    Returns:
        The dict or name.
    """
    if base is not None and isinstance(obj, base):
        return {"class_name": type(obj).__name__, "config": obj.get_config()}
    return getattr(obj, "__name__", str(obj))
