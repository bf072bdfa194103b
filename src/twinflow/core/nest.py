"""Flatten and rebuild nested structures of lists, tuples, namedtuples and dicts.

Dicts flatten in sorted key order, as TensorFlow's ``tf.nest`` does, so two dicts with the same
keys flatten alike whatever their insertion order.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any


def is_nested(seq) -> bool:
    """True for the containers nest descends into: list, tuple (incl. namedtuple), dict."""
    return isinstance(seq, (list, tuple, dict))


def _sorted_keys(d: dict) -> list:
    try:
        return sorted(d)
    except TypeError:
        return sorted(d, key=repr)


def _children(x) -> list:
    if isinstance(x, dict):
        return [x[k] for k in _sorted_keys(x)]
    return list(x)


def expands(x) -> bool:
    """True for composite values and TypeSpecs that ``expand_composites`` opens up."""
    return getattr(type(x), "_tw_expands", False)


def _spec_of(x):
    """The TypeSpec describing composite ``x`` (``x`` itself for a TypeSpec)."""
    spec = getattr(x, "_type_spec", None)
    return x if spec is None else spec


def _components(x):
    """The nested components of a composite value (or the component specs of a spec)."""
    spec = _spec_of(x)
    return spec._component_specs if spec is x else spec._to_components(x)


def flatten(structure, expand_composites: bool = False) -> list:
    """Returns the leaves of ``structure`` in a flat list (a leaf alone gives ``[leaf]``).

    Args:
        structure: a nested structure.
        expand_composites: open composite values up into their component tensors (and
            TypeSpecs into their component specs).

    Returns:
        The leaves, in order.
    """
    out: list = []
    _flatten_into(structure, out, expand_composites)
    return out


def _flatten_into(x, out: list, expand: bool) -> None:
    if isinstance(x, dict):
        for k in _sorted_keys(x):
            _flatten_into(x[k], out, expand)
    elif isinstance(x, (list, tuple)):
        for c in x:
            _flatten_into(c, out, expand)
    elif expand and expands(x):
        _flatten_into(_components(x), out, expand)
    else:
        out.append(x)


def _rebuild(template, children: list):
    if isinstance(template, dict):
        keys = _sorted_keys(template)
        by_key = dict(zip(keys, children))
        return type(template)((k, by_key[k]) for k in template)
    if isinstance(template, tuple) and hasattr(template, "_fields"):
        return type(template)(*children)
    if isinstance(template, tuple):
        return tuple(children)
    return list(children) if type(template) is list else type(template)(children)


def pack_sequence_as(structure, flat_sequence, expand_composites: bool = False):
    """Packs the leaves of ``flat_sequence`` into the shape of ``structure``.

    Args:
        structure: the nested structure to follow.
        flat_sequence: its new leaves, in ``flatten`` order.
        expand_composites: composites (and TypeSpecs) of ``structure`` take their components
            from ``flat_sequence`` and are rebuilt through their spec.

    Returns:
        The packed structure.
    """
    flat_sequence = list(flat_sequence)
    expand = expand_composites
    if not is_nested(structure) and not (expand and expands(structure)):
        if len(flat_sequence) != 1:
            raise ValueError(
                f"Structure is a scalar but flat_sequence has {len(flat_sequence)} elements")
        return flat_sequence[0]
    n_leaves = len(flatten(structure, expand))
    if n_leaves != len(flat_sequence):
        raise ValueError(f"Could not pack sequence: structure has {n_leaves} leaves, "
                         f"flat_sequence has {len(flat_sequence)}")
    it = iter(flat_sequence)

    def build(t):
        if expand and expands(t):
            spec = _spec_of(t)
            return spec._from_components(build(_components(t)))
        if not is_nested(t):
            return next(it)
        return _rebuild(t, [build(c) for c in _children(t)])

    return build(structure)


def assert_same_structure(nest1, nest2, check_types: bool = True,
                          expand_composites: bool = False) -> None:
    """Raises ValueError (TypeError for type mismatches) if nest1 and nest2 nest differently.

    Args:
        nest1: a nested structure.
        nest2: another.
        check_types: also require the same sequence types (list vs tuple...).
        expand_composites: composites (and specs) must have the same TypeSpec class.
    """
    def check(x, y, path):
        if expand_composites and (expands(x) or expands(y)):
            sx, sy = _spec_of(x) if expands(x) else None, _spec_of(y) if expands(y) else None
            if sx is None or sy is None or type(sx) is not type(sy):
                raise TypeError(f"The two structures don't have the same type at "
                                f"{path or 'the top'}: {_short(x)} vs {_short(y)}")
            return
        nx, ny = is_nested(x), is_nested(y)
        if nx != ny:
            raise ValueError(f"The two structures don't have the same nested structure at "
                             f"{path or 'the top'}: {_short(x)} vs {_short(y)}")
        if not nx:
            return
        if check_types and _kind(x) != _kind(y):
            raise TypeError(f"The two structures don't have the same sequence type at "
                            f"{path or 'the top'}: {type(x).__name__} vs {type(y).__name__}")
        if isinstance(x, dict) and set(x) != set(y):
            raise ValueError(f"The two dicts at {path or 'the top'} have different keys: "
                             f"{sorted(map(str, x))} vs {sorted(map(str, y))}")
        cx, cy = _children(x), _children(y)
        if len(cx) != len(cy):
            raise ValueError(f"The two structures don't have the same number of elements at "
                             f"{path or 'the top'}: {len(cx)} vs {len(cy)}")
        for i, (p, q) in enumerate(zip(cx, cy)):
            check(p, q, f"{path}[{i}]")

    check(nest1, nest2, "")


def _kind(x):
    if isinstance(x, dict):
        return dict
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return type(x)
    return list if isinstance(x, list) else tuple


def _short(x) -> str:
    r = repr(x)
    return r if len(r) < 60 else r[:57] + "..."


def map_structure(func: Callable, *structure, **kwargs) -> Any:
    """Applies ``func`` leafwise to structures of the same nesting; returns the same nesting."""
    if not structure:
        raise ValueError("map_structure needs at least one structure")
    expand = kwargs.get("expand_composites", False)
    for s in structure[1:]:
        assert_same_structure(structure[0], s, check_types=kwargs.get("check_types", True),
                              expand_composites=expand)
    flats = [flatten(s, expand) for s in structure]
    return pack_sequence_as(structure[0], [func(*xs) for xs in zip(*flats)], expand)


def map_structure_up_to(shallow, func: Callable, *structures):
    """Applies ``func`` to the sub-structures of ``structures`` at the leaves of ``shallow``."""
    def parts(shallow_t, s):
        if not is_nested(shallow_t):
            return [s]
        out = []
        for a, b in zip(_children(shallow_t), _children(s)):
            out.extend(parts(a, b))
        return out
    flats = [parts(shallow, s) for s in structures]
    return pack_sequence_as(shallow, [func(*xs) for xs in zip(*flats)])
