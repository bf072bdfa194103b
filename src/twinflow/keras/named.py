"""What ``activations``, ``losses`` and ``metrics`` share to resolve and name their functions:
``get`` looks a name up in the module's table, ``serialize`` gives an object's
``{"class_name", "config"}`` or a function's name."""
from __future__ import annotations

import inspect
from collections.abc import Callable
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


def serializers(what: str, module: str, resolve: Callable, base: type | None = None,
                names: tuple = ("obj", "config")) -> tuple[Callable, Callable]:
    """A module's ``serialize`` and ``deserialize`` (losses, metrics, activations,
    initializers, regularizers): the same two functions, documented for ``what``.

    Args:
        what: ``"loss"``, ``"metric"``..., for the docstrings.
        module: the module they belong to (``__name__``).
        resolve: ``resolve(config, custom_objects)``, what ``deserialize`` returns.
        base: the class whose instances serialize to ``{"class_name", "config"}``.
        names: the names of ``serialize``'s and ``deserialize``'s first arguments (Keras').

    Returns:
        ``(serialize, deserialize)``.
    """
    def serialize(obj) -> dict | str | None:
        return None if obj is None else serialize_named(obj, base)

    def deserialize(config, custom_objects: dict | None = None) -> Any:
        return resolve(config, custom_objects)

    P = inspect.Parameter
    serialize.__signature__ = inspect.Signature(
        [P(names[0], P.POSITIONAL_OR_KEYWORD)], return_annotation=dict | str | None)
    deserialize.__signature__ = inspect.Signature(
        [P(names[1], P.POSITIONAL_OR_KEYWORD),
         P("custom_objects", P.POSITIONAL_OR_KEYWORD, default=None)], return_annotation=Any)
    serialize.__doc__ = f"""``{{"class_name", "config"}}`` of a {what} object, or a {what}
    function's name (None stays None).

    Args:
        {names[0]}: the {what}.

    Returns:
        The dict or name.
    """
    deserialize.__doc__ = f"""The {what} of a ``serialize`` result (a dict or a name).

    Args:
        {names[1]}: the dict or name.
        custom_objects: name -> class or function for custom {what}s.

    Returns:
        The {what}.
    """
    for fn in (serialize, deserialize):
        fn.__module__ = module
        fn.__qualname__ = fn.__name__
    return serialize, deserialize
