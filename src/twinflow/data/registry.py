"""The dataset node types, by name.

``Dataset``'s methods build nodes (``Map``, ``Batch``...) that subclass ``Dataset``, so the
node modules import ``dataset.py`` and ``dataset.py`` cannot import them back. Each node
module registers its node types here (as ``graph/registry.py`` holds the op declarations of
the layers above it); ``twinflow.data``'s ``__init__`` imports them all.
"""
from __future__ import annotations

from collections.abc import Callable

_NODES: dict = {}


def register_node(obj: Callable) -> Callable:
    """Class or function decorator: makes ``obj`` reachable as ``node(obj.__name__)``.

    Args:
        obj: the node class (or function building one).

    Returns:
        ``obj``.
    """
    _NODES[obj.__name__] = obj
    return obj


def node(name: str) -> Callable:
    """The node type (or builder function) registered as ``name``.

    Args:
        name: its name.

    Returns:
        The class or function.
    """
    try:
        return _NODES[name]
    except KeyError:
        raise RuntimeError(f"internal: dataset node {name!r} is not registered (the "
                           "twinflow.data package registers them on import)") from None
