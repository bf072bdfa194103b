"""Walking the structures a Layer holds (its attributes, its input and output shapes): the
helpers of ``base.py``."""
from __future__ import annotations

import numpy as np

from ...core.shapes import TensorShape
from ...ops.variables import Variable


def _shape_tuple(shape) -> tuple | None:
    if shape is None:
        return None
    s = shape if isinstance(shape, TensorShape) else TensorShape(shape)
    return None if s.rank is None else tuple(s.as_list())


def _unique(items) -> list:
    """``items`` without repeats (by identity), in order."""
    out, seen = [], set()
    for x in items:
        if id(x) not in seen:
            seen.add(id(x))
            out.append(x)
    return out


def _leaves(value):
    if isinstance(value, (list, tuple)):
        for v in value:
            yield from _leaves(v)
    elif isinstance(value, dict):
        for k in value:
            yield from _leaves(value[k])
    else:
        yield value


def _walk(prefix: str, value, out: dict) -> None:
    if isinstance(value, Variable) or hasattr(value, "_trackable_children"):
        out[prefix] = value
    elif isinstance(value, dict):
        for k in value:
            _walk(f"{prefix}/{k}", value[k], out)
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            _walk(f"{prefix}/{i}", v, out)


def _is_shape(s) -> bool:
    if isinstance(s, TensorShape):
        return True
    if isinstance(s, (list, tuple)):
        return all(d is None or isinstance(d, (int, np.integer)) for d in s)
    return False


def _shape_structure(s):
    if _is_shape(s):
        return None
    if isinstance(s, dict):
        return {k: _shape_structure(v) for k, v in s.items()}
    return [_shape_structure(v) for v in s]


def _as_shape_tuples(shapes):
    if shapes is None:
        return None
    if isinstance(shapes, TensorShape):
        return _shape_tuple(shapes)
    if isinstance(shapes, dict):
        return {k: _as_shape_tuples(v) for k, v in shapes.items()}
    if isinstance(shapes, (list, tuple)):
        return [_as_shape_tuples(v) for v in shapes]
    return shapes


