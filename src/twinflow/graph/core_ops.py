"""The ops every graph needs before any math exists: constants, placeholders, no-ops."""
from __future__ import annotations

from ..core.shapes import TensorShape
from .registry import register_op


@register_op("Const")
class Const:
    """A constant embedded in the graph (attrs: ``value`` array, ``dtype``)."""

    def infer(*, value, dtype):
        return dtype, TensorShape._from_tuple(tuple(getattr(value, "shape", ())))

    def kernel(*, value, dtype):
        return value


@register_op("Placeholder")
class Placeholder:
    """A graph input, given a value when the graph runs (attrs: ``dtype``, ``shape``)."""

    def infer(*, dtype, shape):
        return dtype, shape


@register_op("NoOp", multi_output=True)
class NoOp:
    """Does nothing; used as a target for control dependencies (``tw.group``)."""

    def infer():
        return []

    def kernel():
        return ()
