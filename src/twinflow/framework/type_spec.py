"""``tw.TypeSpec`` and ``CompositeTensor``: values made of several tensors.

A composite value (a RaggedTensor, SparseTensor, IndexedSlices or a user ExtensionType) is
described by its ``TypeSpec``. The spec turns the value into a nested structure of component
tensors (``_to_components``) and back (``_from_components``), and describes those components
with specs of its own (``_component_specs``). Everything that moves tensors across a boundary
(``tw.nest`` with ``expand_composites=True``, ``tw.function`` arguments/results, cond/while_loop,
map_fn) handles composites only through that protocol, never per type.

``core.nest`` recognises composites and specs by duck typing (``_tw_expands``), because core sits
below this package.
"""
from __future__ import annotations

from typing import Any

from ..core.shapes import TensorShape


class TypeSpec:
    """The type of a value that may be made of several tensors (``tw.TypeSpec``).

    Subclasses define ``value_type``, ``_serialize`` (the spec's parameters, used for equality,
    hashing, compatibility and trace keys), ``_component_specs``, ``_to_components`` and
    ``_from_components``.
    """

    __slots__ = ()
    _tw_expands = True  # flattened into its component specs by nest(expand_composites=True)

    # ----- to override -----
    @property
    def value_type(self) -> type:
        """The Python type of the values this spec describes."""
        raise NotImplementedError(f"{type(self).__name__}.value_type")

    def _serialize(self) -> tuple:
        raise NotImplementedError(f"{type(self).__name__}._serialize")

    @property
    def _component_specs(self) -> Any:
        raise NotImplementedError(f"{type(self).__name__}._component_specs")

    def _to_components(self, value) -> Any:
        raise NotImplementedError(f"{type(self).__name__}._to_components")

    def _from_components(self, components) -> Any:
        raise NotImplementedError(f"{type(self).__name__}._from_components")

    # ----- generic behaviour -----
    def is_compatible_with(self, spec_or_value) -> bool:
        """True if ``spec_or_value`` (a spec or a value) has this type, with compatible shapes.

        Args:
            spec_or_value: a TypeSpec or a value.

        Returns:
            Whether it fits this spec.
        """
        other = spec_or_value
        if not isinstance(other, TypeSpec):
            other = getattr(other, "_type_spec", None)
        if other is None or type(other) is not type(self):
            return False
        return _compatible(self._serialize(), other._serialize())

    def most_specific_common_supertype(self, others: list) -> TypeSpec | None:
        """The most specific spec compatible with this one and all ``others`` (or None).

        Args:
            others: TypeSpecs.

        Returns:
            The common spec (unknown dims where the shapes differ), or None if the types differ.
        """
        params = self._serialize()
        for o in others:
            if type(o) is not type(self):
                return None
            params = _supertype(params, o._serialize())
            if params is _NONE:
                return None
        return type(self)(*params)

    def _trace_key(self) -> tuple:
        """A hashable key of this spec for ``tw.function``'s trace cache."""
        return (type(self), _hashable(self._serialize()))

    def __eq__(self, other) -> bool:
        return type(other) is type(self) and self._trace_key() == other._trace_key()

    def __ne__(self, other) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return hash(self._trace_key())

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(_param_repr(p) for p in self._serialize())})"


class BatchableTypeSpec(TypeSpec):
    """A TypeSpec whose values can be stacked into a batch (``tw.data``, ``map_fn``)."""

    __slots__ = ()


class CompositeTensor:
    """Base of values made of several tensors; ``_type_spec`` describes them."""

    __slots__ = ()
    _tw_expands = True  # flattened into its components by nest(expand_composites=True)

    @property
    def _type_spec(self) -> TypeSpec:
        raise NotImplementedError(f"{type(self).__name__}._type_spec")

    def _consumers(self) -> list:
        return []


def is_composite(x) -> bool:
    """True for composite values (not specs, not dense tensors)."""
    return isinstance(x, CompositeTensor)


def _hashable(p):
    if isinstance(p, TensorShape):
        return ("shape", p.as_tuple())
    if isinstance(p, (list, tuple)):
        return tuple(_hashable(x) for x in p)
    if isinstance(p, dict):
        return tuple(sorted((k, _hashable(v)) for k, v in p.items()))
    if isinstance(p, TypeSpec):
        return p._trace_key()
    return p


def _compatible(a, b) -> bool:
    if isinstance(a, TensorShape):
        return isinstance(b, TensorShape) and a.is_compatible_with(b)
    if isinstance(a, TypeSpec):
        return a.is_compatible_with(b)
    if isinstance(a, (list, tuple)):
        return isinstance(b, (list, tuple)) and len(a) == len(b) and all(
            _compatible(x, y) for x, y in zip(a, b))
    return a == b


_NONE = object()


def _supertype(a, b):
    if isinstance(a, TensorShape):
        if not isinstance(b, TensorShape):
            return _NONE
        return a.most_specific_compatible_shape(b)
    if isinstance(a, TypeSpec):
        r = a.most_specific_common_supertype([b])
        return _NONE if r is None else r
    if isinstance(a, (list, tuple)):
        if not isinstance(b, (list, tuple)) or len(a) != len(b):
            return _NONE
        out = [_supertype(x, y) for x, y in zip(a, b)]
        return _NONE if any(o is _NONE for o in out) else type(a)(out)
    return a if a == b else _NONE


def _param_repr(p) -> str:
    if isinstance(p, TensorShape):
        return shape_repr(p)
    return repr(p)


def shape_repr(shape: TensorShape) -> str:
    """``TensorShape([2, None])`` as TensorFlow prints a shape inside a spec."""
    dims = shape.as_tuple()
    if dims is None:
        return "TensorShape(None)"
    return f"TensorShape([{', '.join(str(d) for d in dims)}])"
