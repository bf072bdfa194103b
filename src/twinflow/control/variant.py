"""Variant values: Python objects carried by ``variant`` tensors inside graphs.

Loop histories (``History``) and tensor lists (``TensorList``, behind ``tw.TensorArray`` in
graphs) are immutable Python objects. Their gradients are objects of the same kind where
``None`` stands for zeros, so that ``+`` (AddN) and ``zeros_like`` are all backprop needs.
"""
from __future__ import annotations

import numpy as np

from ..core import dtypes
from ..eager.execute import bind
from ..graph.registry import register_op
from ..ops.core import ZerosLike

_OBJECT = np.dtype(object)


def _add(a, b):
    if a is None:
        return b
    if b is None:
        return a
    return a + b


class History:
    """The loop-variable values at the start of each iteration of a While (for its gradient).

    ``steps[k]`` is the list of loop values entering iteration k; in a gradient, an entry (or
    a value inside one) may be None for zeros.
    """

    __slots__ = ("steps",)
    dtype = _OBJECT
    shape = ()
    ndim = 0

    def __init__(self, steps: list) -> None:
        self.steps = steps

    def __len__(self) -> int:
        return len(self.steps)

    def __add__(self, other) -> History:
        if not isinstance(other, History):
            return NotImplemented
        out = []
        for a, b in zip(self.steps, other.steps):
            if a is None or b is None:
                out.append(a if b is None else b)
            else:
                out.append([_add(x, y) for x, y in zip(a, b)])
        return History(out)

    __radd__ = __add__

    def zeros_like(self) -> History:
        return History([None] * len(self.steps))

    def __repr__(self) -> str:
        return f"<History of {len(self.steps)} iterations>"


@register_op("VariantZerosLike")
class VariantZerosLike:
    """The zero gradient of a variant value (a History or TensorList of Nones)."""

    def infer(x):
        return x.dtype, x.shape

    def kernel(x):
        return x.zeros_like()

    def grad(op, dy):
        return None


def zeros_for(t):
    """Zeros shaped like tensor ``t`` (variant tensors included)."""
    if t.dtype is dtypes.variant:
        return bind(VariantZerosLike, [t])
    return bind(ZerosLike, [t])
