"""``tw.experimental.Optional`` and ``tw.OptionalSpec``: a value that may be absent.

An Optional is a composite value: its components are a boolean scalar (whether it holds a
value) and the value's tensors, so it passes into and out of ``tw.function`` and through
``tw.data`` like any other composite, and its type (``OptionalSpec(element_spec)``) does not
say whether the value is present (a full and an empty Optional of one spec share a trace). An
empty Optional carries zeros of its element spec (unknown dims as 0) in place of the value.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..core import dtypes, errors, nest
from ..core.context import ctx
from ..core.props import readonly
from ..eager.func_graph import TensorSpec
from ..eager.tensor import EagerTensor
from ..framework.type_spec import CompositeTensor, TypeSpec
from ..graph.graph import control_dependencies
from ..graph.tensor import Tensor
from ..ops import array_ops
from ..ops.core import convert
from ..ops.debugging.asserts import Assert

_NO_VALUE = "The optional does not have a value"


def _spec_of(x):
    if isinstance(x, CompositeTensor):
        return x._type_spec
    return TensorSpec.from_tensor(x)


def _placeholder_value(element_spec):
    """Zeros standing in for the value of an empty Optional of ``element_spec`` (composites
    are built from zeros of their component specs: a value nobody reads, get_value raises)."""
    def zeros(s):
        shape = () if s.shape.rank is None else [d or 0 for d in s.shape.as_list()]
        if s.dtype is dtypes.string:
            return EagerTensor(np.full(shape, b"", object))
        return EagerTensor(np.zeros(shape, s.dtype.np))
    flat = nest.flatten(element_spec, expand_composites=True)
    return nest.pack_sequence_as(element_spec, [zeros(s) for s in flat], expand_composites=True)


class OptionalSpec(TypeSpec):
    """The type of an Optional (``tw.OptionalSpec``): the spec of the value it may hold.

    Args:
        element_spec: a structure of specs (TensorSpec, composite specs).
    """

    __slots__ = ("_element_spec",)

    def __init__(self, element_spec) -> None:
        self._element_spec = element_spec

    element_spec = readonly("_element_spec", "The spec of the value.")
    value_type = property(lambda self: Optional, doc="The type of the values: Optional.")

    def _serialize(self) -> tuple:
        return (self._element_spec,)

    @property
    def _component_specs(self) -> tuple:
        return (TensorSpec([], dtypes.bool_), self._element_spec)

    def _to_components(self, value) -> tuple:
        return (value._has_value, value._value)

    def _from_components(self, components) -> Optional:
        has_value, value = components
        return Optional(has_value, value, self._element_spec)

    @staticmethod
    def from_value(value) -> OptionalSpec:
        """The spec of an Optional.

        Args:
            value: an Optional.

        Returns:
            Its OptionalSpec.
        """
        if not isinstance(value, Optional):
            raise TypeError(f"OptionalSpec.from_value expects an Optional, got "
                            f"{type(value).__name__}")
        return value._type_spec


class Optional(CompositeTensor):
    """A value that may be absent (``tw.experimental.Optional``); build one with
    ``Optional.from_value`` or ``Optional.empty``.

    Args:
        has_value: a boolean scalar tensor.
        value: the value (zeros of ``element_spec`` when empty).
        element_spec: the value's spec.
    """

    __slots__ = ("_has_value", "_value", "_element_spec")

    def __init__(self, has_value, value, element_spec) -> None:
        self._has_value = has_value
        self._value = value
        self._element_spec = element_spec

    @staticmethod
    def from_value(value) -> Optional:
        """An Optional holding ``value``.

        Args:
            value: a structure of tensors (or values convertible to them) and composites.

        Returns:
            The Optional.
        """
        value = nest.map_structure(
            lambda x: x if isinstance(x, (Tensor, CompositeTensor)) else convert(x), value)
        spec = nest.map_structure(_spec_of, value)
        return Optional(convert(True), value, spec)

    @staticmethod
    def empty(element_spec) -> Optional:
        """An empty Optional.

        Args:
            element_spec: the spec of the value it would hold.

        Returns:
            The Optional.
        """
        return Optional(convert(False), _placeholder_value(element_spec), element_spec)

    element_spec = readonly("_element_spec",
                            "The spec of the value (whether or not it is present).")
    _type_spec = property(lambda self: OptionalSpec(self._element_spec))

    def has_value(self, name: str | None = None) -> Tensor:
        """Whether a value is present.

        Args:
            name: the name of the (identity) op in a graph.

        Returns:
            A boolean scalar tensor.
        """
        if ctx.graph is None or name is None:
            return self._has_value
        return array_ops.identity(self._has_value, name=name)

    def get_value(self, name: str | None = None) -> Any:
        """The value.

        Args:
            name: the name of the assertion op in a graph.

        Returns:
            The value.

        Raises:
            InvalidArgumentError: the Optional is empty (when the graph runs, in a tw.function).
        """
        if ctx.graph is None:
            if not bool(np.asarray(self._has_value)):
                raise errors.InvalidArgumentError(None, None, _NO_VALUE)
            return self._value
        check = Assert(self._has_value, [_NO_VALUE], name=name)
        flat = nest.flatten(self._value, expand_composites=True)
        with control_dependencies([check]):
            flat = [array_ops.identity(t) for t in flat]
        return nest.pack_sequence_as(self._value, flat, expand_composites=True)

    def __repr__(self) -> str:
        return f"<Optional element_spec={self._element_spec!r}>"
