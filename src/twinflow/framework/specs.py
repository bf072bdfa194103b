"""Small TypeSpecs of TensorFlow's top level: ``tw.NoneTensorSpec`` (a ``None`` inside a
structure of specs) and ``tw.TensorArraySpec`` (the type of a ``tw.TensorArray``)."""
from __future__ import annotations

from typing import Any

from ..core import dtypes
from ..core.shapes import TensorShape
from .type_spec import BatchableTypeSpec, CompositeTensor, TypeSpec


class NoneTensor(CompositeTensor):
    """The value of a ``NoneTensorSpec``: stands for ``None``; it has no components."""

    __slots__ = ()

    @property
    def _type_spec(self) -> NoneTensorSpec:
        return NoneTensorSpec()

    def __repr__(self) -> str:
        return "NoneTensor()"


class NoneTensorSpec(BatchableTypeSpec):
    """The spec of a missing value in a structure (``tw.NoneTensorSpec``): no components."""

    __slots__ = ()

    @property
    def value_type(self) -> type:
        """``NoneTensor``."""
        return NoneTensor

    def _serialize(self) -> tuple:
        return ()

    @property
    def _component_specs(self) -> list:
        return []

    def _to_components(self, value) -> list:
        if value is not None and not isinstance(value, NoneTensor):
            raise TypeError(f"NoneTensorSpec describes None, got {value!r}")
        return []

    def _from_components(self, components) -> NoneTensor:
        return NoneTensor()


class TensorArraySpec(TypeSpec):
    """The type of a ``tw.TensorArray`` (``tw.TensorArraySpec``).

    twinflow describes TensorArrays with it (``from_value``, compatibility, common supertype)
    but does not pass TensorArrays across ``tw.function`` boundaries as TensorFlow does with
    its variant flow tensor: asking for the components raises.

    Args:
        element_shape: the shape of each element (None: unknown).
        dtype: the elements' dtype.
        dynamic_size: whether writes past the end grow the array.
        infer_shape: whether written elements' shapes refine ``element_shape``.
    """

    __slots__ = ("_element_shape", "_dtype", "_dynamic_size", "_infer_shape")
    _tw_value_type: type | None = None  # tw.TensorArray, set by control/tensor_array.py

    def __init__(self, element_shape=None, dtype=dtypes.float32, dynamic_size: bool = False,
                 infer_shape: bool = True) -> None:
        self._element_shape = element_shape if isinstance(element_shape, TensorShape) \
            else TensorShape(element_shape)
        self._dtype = dtypes.as_dtype(dtype)
        self._dynamic_size = bool(dynamic_size)
        self._infer_shape = bool(infer_shape)

    @property
    def value_type(self) -> type:
        """``tw.TensorArray``."""
        return TensorArraySpec._tw_value_type

    def _serialize(self) -> tuple:
        return (self._element_shape, self._dtype, self._dynamic_size, self._infer_shape)

    @property
    def _component_specs(self) -> Any:
        raise _no_components()

    def _to_components(self, value) -> Any:
        raise _no_components()

    def _from_components(self, components) -> Any:
        raise _no_components()

    @staticmethod
    def from_value(value) -> TensorArraySpec:
        """The spec of a TensorArray.

        Args:
            value: a ``tw.TensorArray``.

        Returns:
            Its TensorArraySpec.
        """
        for attr in ("element_shape", "dtype", "dynamic_size"):
            if not hasattr(value, attr):
                raise TypeError(f"Expected value to be a TensorArray, but saw: {type(value)}")
        return TensorArraySpec(value.element_shape, value.dtype, value.dynamic_size,
                               getattr(value, "_infer_shape", True))


def _no_components() -> NotImplementedError:
    return NotImplementedError("twinflow does not pass TensorArrays as tw.function arguments "
                               "or results (TensorFlow's variant flow tensor); pass ta.stack()")
