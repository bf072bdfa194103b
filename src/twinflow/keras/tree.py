"""``tw.keras.tree``: nested structures (lists, tuples, dicts, namedtuples), as Keras 3's
``keras.tree`` over twinflow's ``nest``."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..core import nest

MAP_TO_NONE = object()  # returned by a ``traverse`` function: replace the subtree by None


def is_nested(structure) -> bool:
    """Whether ``structure`` is a list, tuple, dict... (not a leaf).

    Args:
        structure: the value.

    Returns:
        The flag.
    """
    return nest.is_nested(structure)


def flatten(structure) -> list:
    """The leaves, in order (dicts by sorted key).

    Args:
        structure: the structure.

    Returns:
        The list of leaves.
    """
    return nest.flatten(structure)


def flatten_with_path(structure) -> list:
    """``(path, leaf)`` pairs; a path is the tuple of keys/indices from the root.

    Args:
        structure: the structure.

    Returns:
        The list of pairs.
    """
    out: list = []

    def walk(x, path):
        if isinstance(x, dict):
            for k in sorted(x):
                walk(x[k], path + (k,))
        elif nest.is_nested(x):
            for i, v in enumerate(x):
                walk(v, path + (i,))
        else:
            out.append((path, x))
    walk(structure, ())
    return out


def map_structure(func: Callable, *structures, none_is_leaf: bool = True) -> Any:
    """``func`` applied to the leaves of ``structures`` (same structure each).

    Args:
        func: the function.
        *structures: the structures.
        none_is_leaf: accepted (None is a leaf, as in Keras' default).

    Returns:
        A structure like the first.
    """
    return nest.map_structure(func, *structures)


def map_structure_up_to(shallow_structure, func: Callable, *structures) -> Any:
    """``func`` applied to the subtrees of ``structures`` at the leaves of
    ``shallow_structure``.

    Args:
        shallow_structure: the structure deciding the depth.
        func: the function.
        *structures: the structures.

    Returns:
        A structure like ``shallow_structure``.
    """
    return nest.map_structure_up_to(shallow_structure, func, *structures)


def map_shape_structure(func: Callable, structure) -> Any:
    """``func`` applied to each shape (a tuple or list of ints/None) in ``structure``.

    Args:
        func: the function.
        structure: nested shapes.

    Returns:
        The mapped structure.
    """
    def is_shape(x) -> bool:
        return isinstance(x, (tuple, list)) and all(v is None or isinstance(v, int)
                                                    for v in x)
    if is_shape(structure) or not nest.is_nested(structure):
        return func(structure)
    if isinstance(structure, dict):
        return {k: map_shape_structure(func, v) for k, v in structure.items()}
    return type(structure)(map_shape_structure(func, v) for v in structure)


def pack_sequence_as(structure, flat_sequence) -> Any:
    """``flat_sequence`` in the shape of ``structure``.

    Args:
        structure: the template.
        flat_sequence: the leaves.

    Returns:
        The packed structure.
    """
    return nest.pack_sequence_as(structure, list(flat_sequence))


def assert_same_structure(a, b, check_types: bool = False) -> None:
    """Raises ValueError/TypeError unless ``a`` and ``b`` nest the same way.

    Args:
        a: a structure.
        b: another.
        check_types: also require the same sequence types.
    """
    nest.assert_same_structure(a, b, check_types=check_types)


def assert_same_paths(a, b) -> None:
    """Raises ValueError unless ``a`` and ``b`` have the same leaf paths.

    Args:
        a: a structure.
        b: another.
    """
    pa = [p for p, _ in flatten_with_path(a)]
    pb = [p for p, _ in flatten_with_path(b)]
    if pa != pb:
        raise ValueError(f"The two structures have different paths: {pa} and {pb}")


def lists_to_tuples(structure) -> Any:
    """``structure`` with every list turned into a tuple.

    Args:
        structure: the structure.

    Returns:
        The converted structure.
    """
    if isinstance(structure, dict):
        return {k: lists_to_tuples(v) for k, v in structure.items()}
    if isinstance(structure, (list, tuple)) and not hasattr(structure, "_fields"):
        return tuple(lists_to_tuples(v) for v in structure)
    return structure


def traverse(func: Callable, structure, top_down: bool = True) -> Any:
    """Calls ``func`` on every subtree; a non-None result replaces it (``MAP_TO_NONE``
    for None).

    Args:
        func: the function.
        structure: the structure.
        top_down: visit parents before children.

    Returns:
        The rebuilt structure.
    """
    def fix(v):
        return None if v is MAP_TO_NONE else v

    def children(x, fn):
        if isinstance(x, dict):
            return {k: fn(v) for k, v in x.items()}
        if nest.is_nested(x):
            vals = [fn(v) for v in x]
            return type(x)(*vals) if hasattr(x, "_fields") else type(x)(vals)
        return x

    def walk(x):
        if top_down:
            r = func(x)
            if r is not None:
                return fix(r)
            return children(x, walk)
        y = children(x, walk)
        r = func(y)
        return y if r is None else fix(r)
    return walk(structure)


__all__ = ["MAP_TO_NONE", "is_nested", "flatten", "flatten_with_path", "map_structure",
           "map_structure_up_to", "map_shape_structure", "pack_sequence_as",
           "assert_same_structure", "assert_same_paths", "lists_to_tuples", "traverse"]
