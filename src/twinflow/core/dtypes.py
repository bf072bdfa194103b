"""Data types, with TensorFlow's names and inference rules.

A DType wraps a NumPy dtype. There is exactly one DType object per type, so dtypes compare
by identity on the hot path.
"""
from __future__ import annotations

import numpy as np


class DType:
    """A tensor element type (``tw.float32``, ``tw.int32``...).

    Args:
        name: the TensorFlow name (``"float32"``).
        np_dtype: the matching NumPy dtype.
        enum: TensorFlow's DataType enum value.
    """

    __slots__ = ("name", "as_numpy_dtype", "np", "_enum")

    def __init__(self, name: str, np_dtype, enum: int) -> None:
        self.name = name
        self.np = np.dtype(np_dtype)
        self.as_numpy_dtype = self.np.type
        self._enum = enum

    @property
    def is_floating(self) -> bool:
        return self.np.kind == "f"

    @property
    def is_integer(self) -> bool:
        return self.np.kind in "iu"

    @property
    def is_unsigned(self) -> bool:
        return self.np.kind == "u"

    @property
    def is_complex(self) -> bool:
        return self.np.kind == "c"

    @property
    def is_bool(self) -> bool:
        return self.np.kind == "b"

    @property
    def is_numeric(self) -> bool:
        return self.np.kind in "iufc"

    @property
    def is_string(self) -> bool:
        return self.np.kind in "OSU"

    @property
    def is_differentiable(self) -> bool:
        return self.np.kind in "fc"

    @property
    def real_dtype(self) -> DType:
        return {"complex64": float32, "complex128": float64}.get(self.name, self)

    @property
    def base_dtype(self) -> DType:
        return self

    @property
    def size(self) -> int:
        return self.np.itemsize

    @property
    def min(self):
        return np.finfo(self.np).min if self.is_floating else np.iinfo(self.np).min

    @property
    def max(self):
        return np.finfo(self.np).max if self.is_floating else np.iinfo(self.np).max

    @property
    def as_datatype_enum(self) -> int:
        return self._enum

    def is_compatible_with(self, other) -> bool:
        """Whether ``other`` names this dtype.

        Args:
            other: a DType, NumPy dtype or dtype name.

        Returns:
            True when ``as_dtype(other)`` is this dtype.
        """
        return as_dtype(other) is self

    def __repr__(self) -> str:
        return f"tw.{self.name}"

    def __str__(self) -> str:
        return f"<dtype: '{self.name}'>"  # as TensorFlow's str(tf.float32)

    def __reduce__(self):
        return as_dtype, (self.name,)

    def __eq__(self, other) -> bool:
        if other is self:
            return True
        try:
            return as_dtype(other) is self
        except TypeError:
            return False

    def __ne__(self, other) -> bool:
        return not self.__eq__(other)

    def __hash__(self) -> int:
        return hash(self.name)


# Enum values follow TensorFlow's DataType proto so GraphDefs read the same.
float16 = DType("float16", np.float16, 19)
float32 = DType("float32", np.float32, 1)
float64 = DType("float64", np.float64, 2)
int8 = DType("int8", np.int8, 6)
int16 = DType("int16", np.int16, 5)
int32 = DType("int32", np.int32, 3)
int64 = DType("int64", np.int64, 9)
uint8 = DType("uint8", np.uint8, 4)
uint16 = DType("uint16", np.uint16, 17)
uint32 = DType("uint32", np.uint32, 22)
uint64 = DType("uint64", np.uint64, 23)
bool_ = DType("bool", np.bool_, 10)
complex64 = DType("complex64", np.complex64, 8)
complex128 = DType("complex128", np.complex128, 18)
string = DType("string", np.object_, 7)
# Handles to variables: the value of a resource tensor is the Python Variable object itself.
resource = DType("resource", np.object_, 20)
variant = DType("variant", np.object_, 21)
half = float16
double = float64

ALL = (float16, float32, float64, int8, int16, int32, int64, uint8, uint16, uint32, uint64,
       bool_, complex64, complex128, string, resource, variant)

_BY_NAME = {d.name: d for d in ALL}
_BY_NAME.update(half=float16, double=float64, bool_=bool_)
# Keyed by NumPy dtype: the eager hot path maps array.dtype -> DType with one dict lookup.
_BY_NP: dict = {d.np: d for d in ALL if d.name not in ("resource", "variant")}
_BY_NP[np.dtype("U")] = string
_BY_NP[np.dtype("S")] = string


def from_numpy(np_dtype) -> DType:
    """Returns the DType of a NumPy dtype (strings and bytes map to ``string``)."""
    d = _BY_NP.get(np_dtype)
    if d is not None:
        return d
    np_dtype = np.dtype(np_dtype)
    d = _BY_NP.get(np_dtype)
    if d is None:
        if np_dtype.kind in "USO":
            return string
        raise TypeError(f"twinflow has no dtype for NumPy dtype {np_dtype}")
    return d


def as_dtype(value) -> DType:
    """Converts a DType, a name (``'float32'``), a NumPy dtype or a Python type to a DType.

    Args:
        value: what to convert.

    Returns:
        The DType.
    """
    if isinstance(value, DType):
        return value
    if value is None:  # np.dtype(None) would say float64; TensorFlow refuses
        raise TypeError("Cannot convert the argument `type_value`: None to a twinflow DType.")
    if type(value) is int:  # a DataType enum, as TensorFlow: tf.as_dtype(1) is tf.float32
        for d in ALL:
            if d._enum == value:
                return d
        raise TypeError(f"Cannot convert the argument `type_value`: {value!r} to a twinflow "
                        "DType.")
    if isinstance(value, str):
        d = _BY_NAME.get(value)
        if d is None:
            raise TypeError(f"Cannot convert {value!r} to a twinflow dtype")
        return d
    if value is float:
        return float32
    if value is int:
        return int32
    if value is bool:
        return bool_
    if value is complex:
        return complex128
    if value is str or value is bytes:
        return string
    if hasattr(value, "as_numpy_dtype") and hasattr(value, "name"):  # a foreign DType-like
        return as_dtype(value.name)
    try:
        return from_numpy(np.dtype(value))
    except TypeError as e:
        raise TypeError(f"Cannot convert {value!r} to a twinflow dtype") from e
