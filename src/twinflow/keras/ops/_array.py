"""``keras.ops`` array functions: those of ``numpy_api.arrays`` under Keras' dtype rules
(``_common.KERAS``), as this module's names, and Keras' own ``rearrange`` (einops patterns).
"""
from __future__ import annotations

import numpy as np

from ...numpy_api.arrays import array_functions
from ...ops import array_ops as A
from ._common import KERAS
from ._common import tensor as _tensor

_FNS = array_functions(KERAS)
# zeros, reshape, split... and the helpers _dims, _ax, _like, _window as this module's names
# (``numpy.py`` publishes them; ``nn.py``, ``linalg.py``, ``_stats.py`` import the helpers).
globals().update(vars(_FNS))


def _groups(side: str) -> list:
    """'b (h w) c' -> [['b'], ['h', 'w'], ['c']]."""
    out, cur = [], None
    for tok in side.replace("(", " ( ").replace(")", " ) ").split():
        if tok == "(":
            if cur is not None:
                raise ValueError(f"keras.ops.rearrange: nested parentheses in {side!r}")
            cur = []
        elif tok == ")":
            if cur is None:
                raise ValueError(f"keras.ops.rearrange: unbalanced ')' in {side!r}")
            out.append(cur)
            cur = None
        elif cur is not None:
            cur.append(tok)
        else:
            out.append([tok])
    if cur is not None:
        raise ValueError(f"keras.ops.rearrange: unbalanced '(' in {side!r}")
    return out


def rearrange(tensor, pattern: str, **axes_lengths):  # noqa: F811 (Keras' name)
    x = _tensor(tensor)
    if "->" not in pattern:
        raise ValueError(f"keras.ops.rearrange: the pattern needs '->', got {pattern!r}")
    left, right = (_groups(s) for s in pattern.split("->"))
    dims = _FNS._dims(x, "rearrange")
    if len(left) != len(dims):
        raise ValueError(f"keras.ops.rearrange: the pattern names {len(left)} axes, the "
                         f"input has {len(dims)}")
    sizes = dict(axes_lengths)
    for group, n in zip(left, dims):
        unknown = [a for a in group if a not in sizes]
        known = int(np.prod([sizes[a] for a in group if a in sizes]))
        if len(unknown) > 1:
            raise ValueError(f"keras.ops.rearrange: cannot infer the sizes of {unknown}")
        if unknown:
            sizes[unknown[0]] = n // known
        elif known != n:
            raise ValueError(f"keras.ops.rearrange: {group} has size {known}, the axis {n}")
    flat_left = [a for g in left for a in g]
    flat_right = [a for g in right for a in g]
    if sorted(flat_left) != sorted(flat_right):
        raise ValueError(f"keras.ops.rearrange: both sides must name the same axes: "
                         f"{pattern!r}")
    x = A.reshape(x, [sizes[a] for a in flat_left])
    x = A.transpose(x, [flat_left.index(a) for a in flat_right])
    return A.reshape(x, [int(np.prod([sizes[a] for a in g])) for g in right])
