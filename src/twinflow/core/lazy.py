"""Loaders of the public namespace's lazy areas, for a lower package that needs one loaded.

``twinflow/__init__`` registers how to load an area (``register_loader("lookup", ...)``); a
package that must see what that area declares in it (``tw.data.experimental``'s table
functions, declared by ``tw.lookup``) calls ``load("lookup")``. Layers stay one-way: the lower
package never imports the area.
"""
from __future__ import annotations

from collections.abc import Callable

_LOADERS: dict = {}


def register_loader(name: str, loader: Callable[[], object]) -> None:
    """Declares how to load area ``name`` (called by the public namespace).

    Args:
        name: the area (``"lookup"``).
        loader: imports it.
    """
    _LOADERS[name] = loader


def load(name: str) -> bool:
    """Loads area ``name`` if a loader is registered.

    Args:
        name: the area.

    Returns:
        Whether a loader ran.
    """
    loader = _LOADERS.get(name)
    if loader is None:
        return False
    loader()
    return True


def get(name: str):
    """What the loader registered for ``name`` returns (loading its area).

    Args:
        name: the registered name.

    Returns:
        The loader's result.

    Raises:
        AttributeError: no loader is registered for ``name``.
    """
    loader = _LOADERS.get(name)
    if loader is None:
        raise AttributeError(f"no lazy loader for {name!r}")
    return loader()
