"""Data types, with TensorFlow's names and inference rules.

A DType wraps a NumPy dtype. There is exactly one DType object per type, so dtypes compare
by identity on the hot path.
"""
from __future__ import annotations

import threading

import numpy as np


def _kind_in(kinds: str, doc: str) -> property:
    """A DType property: whether its kind letter (always one letter) is one of ``kinds``."""
    return property(lambda self: self.kind in kinds, doc=doc)


class DType:
    """A tensor element type (``tw.float32``, ``tw.int32``...).

    Args:
        name: the TensorFlow name (``"float32"``).
        np_dtype: the matching NumPy dtype; None for the ``ml_dtypes`` types (bfloat16, the
            float8 and int4 families), whose NumPy dtype is made on first use so that
            ``import twinflow`` does not import ``ml_dtypes``.
        enum: TensorFlow's DataType enum value.
        kind: the dtype kind (NumPy's letters; ``q`` for the quantized types), when the NumPy
            dtype does not say it (``ml_dtypes`` types are NumPy kind ``V``).
    """

    __slots__ = ("name", "as_numpy_dtype", "np", "_enum", "kind")

    def __init__(self, name: str, np_dtype, enum: int, kind: str | None = None) -> None:
        self.name = name
        self._enum = enum
        if np_dtype is not None:
            self.np = np.dtype(np_dtype)
            # (the quantized types: the structured dtype itself, as TensorFlow)
            self.as_numpy_dtype = self.np if kind == "q" else self.np.type
        self.kind = kind or self.np.kind

    def __getattr__(self, attr: str):
        # Only reached when a slot is unset: ``np``/``as_numpy_dtype`` of an ml_dtypes type
        # before ml_dtypes is loaded. The hot path (a set slot) never comes here.
        if attr in ("np", "as_numpy_dtype"):
            load_ml_dtypes()
            return object.__getattribute__(self, attr)
        raise AttributeError(f"'DType' object has no attribute {attr!r}")

    # ----- what kind of type (from the kind letter) -----
    is_floating = _kind_in("f", "Whether the type is a (real) floating-point type.")
    is_complex = _kind_in("c", "Whether the type is a complex type.")
    is_differentiable = _kind_in("fc", "Whether gradients flow through the type (float, complex).")

    @property
    def is_numeric(self) -> bool:
        # As TensorFlow: the float8/float4/int4/int2 types (storage types) are not numeric.
        return self.kind in "iufcq" and self not in _STORAGE_ONLY

    is_integer = _kind_in("iu", "Whether the type is a signed or unsigned integer type.")
    is_unsigned = _kind_in("u", "Whether the type is an unsigned integer type.")
    is_bool = _kind_in("b", "Whether the type is ``bool``.")

    @property
    def is_numpy_compatible(self) -> bool:
        return self not in (resource, variant)

    is_quantized = _kind_in("q", "Whether the type is a quantized type (``qint8``...).")
    is_string = _kind_in("OSU", "Whether the type is ``string``.")

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
        return self._info().min

    @property
    def max(self):
        return self._info().max

    def _info(self):
        if any(self is d for d in ML_DTYPES):
            ml = _LOADED["np"] if "np" in _LOADED else (load_ml_dtypes(), _LOADED["np"])[1]
            return ml.finfo(self.np) if self.kind == "f" else ml.iinfo(self.np)
        if self.kind == "f":
            return np.finfo(self.np)
        if self.kind in "iu":
            return np.iinfo(self.np)
        if self.kind == "b":
            return _BoolInfo
        raise TypeError(f"Cannot find minimum/maximum value for {self}.")

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


class _BoolInfo:
    min, max = False, True


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

# The ml_dtypes types (TensorFlow's and JAX's bfloat16/float8/int4): NumPy dtypes made when
# first needed (``load_ml_dtypes``).
bfloat16 = DType("bfloat16", None, 14, "f")
float8_e5m2 = DType("float8_e5m2", None, 24, "f")
float8_e4m3fn = DType("float8_e4m3fn", None, 25, "f")
float8_e4m3fnuz = DType("float8_e4m3fnuz", None, 26, "f")
float8_e4m3b11fnuz = DType("float8_e4m3b11fnuz", None, 27, "f")
float8_e5m2fnuz = DType("float8_e5m2fnuz", None, 28, "f")
int4 = DType("int4", None, 29, "i")
uint4 = DType("uint4", None, 30, "u")
int2 = DType("int2", None, 31, "i")
uint2 = DType("uint2", None, 32, "u")
float4_e2m1fn = DType("float4_e2m1fn", None, 33, "f")
ML_DTYPES = (bfloat16, float8_e5m2, float8_e4m3fn, float8_e4m3fnuz, float8_e4m3b11fnuz,
             float8_e5m2fnuz, int4, uint4, int2, uint2, float4_e2m1fn)
# Types TensorFlow only stores and casts (no arithmetic kernels): float8, float4, int4, int2.
_STORAGE_ONLY = frozenset(ML_DTYPES[1:])
STORAGE_ONLY = _STORAGE_ONLY

# The quantized types: as in TensorFlow, a NumPy structured dtype of one field names the type;
# ``Tensor.numpy()`` gives the plain integers.
qint8 = DType("qint8", [("qint8", np.int8)], 11, "q")
quint8 = DType("quint8", [("quint8", np.uint8)], 12, "q")
qint16 = DType("qint16", [("qint16", np.int16)], 15, "q")
quint16 = DType("quint16", [("quint16", np.uint16)], 16, "q")
qint32 = DType("qint32", [("qint32", np.int32)], 13, "q")
QUANTIZED_DTYPES = frozenset((qint8, quint8, qint16, quint16, qint32))

ALL = (float16, float32, float64, int8, int16, int32, int64, uint8, uint16, uint32, uint64,
       bool_, complex64, complex128, string, resource, variant, qint8, quint8, qint16, quint16,
       qint32) + ML_DTYPES

_BY_NAME = {d.name: d for d in ALL}
_BY_NAME.update(half=float16, double=float64, bool_=bool_)
# Keyed by NumPy dtype: the eager hot path maps array.dtype -> DType with one dict lookup.
_BY_NP: dict = {d.np: d for d in ALL[:-len(ML_DTYPES)] if d.name not in ("resource",
                                                                         "variant")}
_BY_NP[np.dtype("U")] = string
_BY_NP[np.dtype("S")] = string
_BY_ENUM = {d._enum: d for d in ALL}
_ML_LOCK = threading.Lock()


def load_ml_dtypes() -> None:
    """Imports ``ml_dtypes`` and gives bfloat16, the float8/float4 and the int4/int2 DTypes
    their NumPy dtypes (once; later calls return at once).

    Raises:
        ImportError: ``ml_dtypes`` is not installed.
    """
    if "np" in _LOADED:
        return
    with _ML_LOCK:
        if "np" in _LOADED:
            return
        try:
            import ml_dtypes  # noqa: PLC0415  (keeps ``import twinflow`` fast)
        except ImportError as e:
            raise ImportError("twinflow's bfloat16, float8 and int4 dtypes need the "
                              "'ml_dtypes' package: pip install ml_dtypes") from e
        for d in ML_DTYPES:
            d.np = np.dtype(getattr(ml_dtypes, d.name))
            d.as_numpy_dtype = d.np.type
            _BY_NP[d.np] = d
        _LOADED["np"] = ml_dtypes


_LOADED: dict = {}  # "np": the ml_dtypes module, once loaded


def kind_of(np_dtype: np.dtype) -> str:
    """The dtype kind of a NumPy dtype as twinflow sees it: NumPy's letter, but ``f``/``i``/``u``
    for the ml_dtypes types (NumPy says ``V``) and ``q`` for the quantized types.

    Args:
        np_dtype: a NumPy dtype.

    Returns:
        One letter.
    """
    k = np_dtype.kind
    if k != "V":
        return k
    d = _BY_NP.get(np_dtype)
    return d.kind if d is not None else from_numpy(np_dtype).kind


def quantized_storage(d: DType) -> np.dtype:
    """The plain integer NumPy dtype a quantized DType stores (``qint8`` -> int8).

    Args:
        d: a quantized DType.

    Returns:
        Its field's NumPy dtype.
    """
    return d.np.fields[d.name][0]


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
        if "np" not in _LOADED and \
                getattr(np_dtype.type, "__module__", "").startswith("ml_dtypes"):  # first use
            load_ml_dtypes()
            d = _BY_NP.get(np_dtype)
            if d is not None:
                return d
        raise TypeError(f"twinflow has no dtype for NumPy dtype {np_dtype}")
    return d


def as_dtype(type_value) -> DType:
    """Converts a DType, a name (``'float32'``), a NumPy dtype or a Python type to a DType.

    Args:
        type_value: what to convert.

    Returns:
        The DType.
    """
    if isinstance(type_value, DType):
        return type_value
    if type_value is None:  # np.dtype(None) would say float64; TensorFlow refuses
        raise TypeError("Cannot convert the argument `type_value`: None to a twinflow DType.")
    if type(type_value) is int:  # a DataType enum, as TensorFlow: tf.as_dtype(1) is tf.float32
        d = _BY_ENUM.get(type_value)
        if d is not None:
            return d
        raise TypeError(f"Cannot convert the argument `type_value`: {type_value!r} to a "
                        "twinflow DType.")
    if isinstance(type_value, str):
        d = _BY_NAME.get(type_value)
        if d is None:
            raise TypeError(f"Cannot convert {type_value!r} to a twinflow dtype")
        return d
    if type_value is float:
        return float32
    if type_value is int:
        return int32
    if type_value is bool:
        return bool_
    if type_value is complex:
        return complex128
    if type_value is str or type_value is bytes:
        return string
    if hasattr(type_value, "as_numpy_dtype") and hasattr(type_value, "name"):  # DType-like
        return as_dtype(type_value.name)
    try:
        return from_numpy(np.dtype(type_value))
    except TypeError as e:
        raise TypeError(f"Cannot convert {type_value!r} to a twinflow dtype") from e


_UINT_OF_SIZE = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def bits_uint(dtype) -> type | None:
    """The unsigned integer NumPy type as wide as ``dtype``: its values' bit patterns, for the
    branch-free kernels that select or mask them (``ops/fast_elementwise``, fused blocks).

    Args:
        dtype: a NumPy dtype (or anything ``np.dtype`` takes).

    Returns:
        ``np.uint8``/``16``/``32``/``64``, or None for other widths.
    """
    return _UINT_OF_SIZE.get(np.dtype(dtype).itemsize)
