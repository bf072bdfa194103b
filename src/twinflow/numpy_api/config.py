"""``tf.experimental.numpy``'s dtype rules: NumPy's promotion, and its process-wide settings.

TensorFlow's NumPy API promotes as NumPy 2 does (``np.result_type``): Python scalars are weak
(``int32 + 1`` stays int32, ``float16 + 1.5`` stays float16, ``int32 + 1.5`` is float64), an
int32 with a float32 tensor gives float64, int8 with uint8 int16. Python floats and lists of
them become float64 tensors and Python ints int64, unless ``prefer_float32`` is set (by
``experimental_enable_numpy_behavior(prefer_float32=True)``), which makes a Python float
count as a float32 value. Math functions compute integer and bool inputs in float64.
"""
from __future__ import annotations

import threading

import numpy as np

from ..core import dtypes
from ..eager.execute import convert_to_tensor
from ..graph.tensor import Tensor
from ..ops import array_ops, math_ops
from .policy import Policy

_PY_SCALARS = (bool, int, float, complex)


class _Settings:
    """The process-wide switches of ``experimental_enable_numpy_behavior`` (as TensorFlow's,
    they are global, not per thread)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.prefer_float32 = False
        self.numpy_behavior = False
        self.dtype_conversion_mode = "legacy"


SETTINGS = _Settings()


def as_np_dtype(dtype) -> np.dtype:
    """A dtype argument as NumPy reads it (``float`` is float64, ``int`` int64), or a DType's
    NumPy dtype.

    Args:
        dtype: a twinflow DType, a NumPy type or dtype, a name, or a Python type.

    Returns:
        The NumPy dtype.
    """
    if isinstance(dtype, dtypes.DType):
        return np.dtype(dtype.np)
    if hasattr(dtype, "as_numpy_dtype"):
        return np.dtype(dtype.as_numpy_dtype)
    return np.dtype(dtype)


def as_dtype(dtype) -> dtypes.DType:
    """A dtype argument as a twinflow DType, read as NumPy reads it (``float`` is float64).

    Args:
        dtype: a twinflow DType, a NumPy type or dtype, a name, or a Python type.

    Returns:
        The DType.
    """
    if isinstance(dtype, dtypes.DType):
        return dtype
    return dtypes.from_numpy(as_np_dtype(dtype))


def _operand(x):
    """What ``np.result_type`` should see for ``x``: a dtype, or a (weak) Python scalar."""
    if _is_tensor(x):
        return x.dtype.np if isinstance(x.dtype, dtypes.DType) else x.dtype
    if isinstance(x, dtypes.DType):
        return x.np
    if isinstance(x, (np.ndarray, np.generic)):
        return x.dtype
    if isinstance(x, _PY_SCALARS):
        if SETTINGS.prefer_float32 and type(x) is float:
            return np.float32
        if SETTINGS.prefer_float32 and type(x) is complex:
            return np.complex64
        return x
    if isinstance(x, (list, tuple)):
        return _list_dtype(x)
    if isinstance(x, type) or isinstance(x, (str, np.dtype)):
        return as_np_dtype(x)
    return np.asarray(x).dtype


def _is_tensor(v) -> bool:
    return isinstance(v, Tensor) or hasattr(v, "_as_tensor")


def _has_tensor(x) -> bool:
    return any(_has_tensor(v) if isinstance(v, (list, tuple)) else _is_tensor(v) for v in x)


def _leaves(x) -> list:
    return [w for v in x for w in (_leaves(v) if isinstance(v, (list, tuple)) else [v])]


def _list_dtype(x) -> np.dtype:
    if _has_tensor(x):  # tensors (symbolic ones too) promote with the other elements
        return np.dtype(result_type(*_leaves(x)).np)
    arr = np.asarray(x)
    if arr.dtype == np.float64 and SETTINGS.prefer_float32 and not _has_array(x):
        return np.dtype(np.float32)
    if arr.dtype == np.complex128 and SETTINGS.prefer_float32 and not _has_array(x):
        return np.dtype(np.complex64)
    return arr.dtype


def _has_array(x) -> bool:
    return any(_has_array(v) if isinstance(v, (list, tuple)) else
               isinstance(v, (np.ndarray, np.generic, Tensor)) for v in x)


def result_type(*arrays_and_dtypes) -> dtypes.DType:
    """The dtype NumPy gives a result computed from these values (TensorFlow's tnp rules).

    Args:
        *arrays_and_dtypes: tensors, arrays, Python scalars (weak), dtypes.

    Returns:
        The promoted DType.
    """
    ops = [_operand(x) for x in arrays_and_dtypes if x is not None]
    if not ops:
        return dtypes.float64
    return dtypes.from_numpy(np.result_type(*ops))


def tensor(x, dtype=None) -> Tensor:
    """``x`` as a tensor (Python floats float64, ints int64, as NumPy), cast to ``dtype``.

    Args:
        x: a tensor, variable, array or Python value.
        dtype: the dtype to cast to, or None.

    Returns:
        The tensor.
    """
    if x is None:
        raise TypeError("tf.experimental.numpy: None is not an array")
    if isinstance(x, Tensor):
        t = x
    elif hasattr(x, "_as_tensor"):
        t = convert_to_tensor(x)
    elif isinstance(x, (np.ndarray, np.generic)):
        t = convert_to_tensor(np.asarray(x))
    elif isinstance(x, (str, bytes)):
        t = convert_to_tensor(x)
    elif isinstance(x, (list, tuple)) and _has_tensor(x):
        dt = result_type(*_leaves(x)) if dtype is None else as_dtype(dtype)
        return array_ops.stack([tensor(v, dt) for v in x])
    else:
        dt = result_type(x) if dtype is None else as_dtype(dtype)
        return convert_to_tensor(np.asarray(x, dtype=dt.np))
    if dtype is not None:
        dt = as_dtype(dtype)
        if t.dtype is not dt:
            t = math_ops.cast(t, dt)
    return t


def promote(*xs) -> list:
    """The operands as tensors of their NumPy result type (None stays None).

    Args:
        *xs: the operands.

    Returns:
        A list of tensors of one dtype.
    """
    if isinstance(xs[0], Tensor):  # the common case: tensors of one dtype already
        d = xs[0].dtype
        if all(isinstance(x, Tensor) and x.dtype is d for x in xs[1:]):
            return list(xs)
    dt = result_type(*xs)
    return [None if x is None else tensor(x, dt) for x in xs]


def default_float() -> dtypes.DType:
    """float32 under ``prefer_float32``, else float64."""
    return dtypes.float32 if SETTINGS.prefer_float32 else dtypes.float64


def as_float(x) -> Tensor:
    """``x`` as an inexact tensor: integers and bools in float64 (TensorFlow's tnp:
    ``result_type(x, float)``), and so the ml_dtypes floats (bfloat16, float8), which NumPy
    does not count as inexact.

    Args:
        x: the value.

    Returns:
        The tensor.
    """
    t = tensor(x)
    if not (t.dtype.is_complex or np.issubdtype(t.dtype.np, np.inexact)):
        t = math_ops.cast(t, dtypes.float64)
    return t


def accumulate(x) -> Tensor:
    """``x`` as NumPy sums it: bools and signed ints below 64 bits in int64, unsigned in
    uint64.

    Args:
        x: the value.

    Returns:
        The tensor.
    """
    t = tensor(x)
    if t.dtype.is_bool or (t.dtype.is_integer and not t.dtype.is_unsigned
                           and t.dtype.size < 8):
        return math_ops.cast(t, dtypes.int64)
    if t.dtype.is_unsigned and t.dtype.size < 8:
        return math_ops.cast(t, dtypes.uint64)
    return t


TNP = Policy("tf.experimental.numpy", tensor, promote, as_float, default_float,
             lambda: dtypes.int64, accumulate)
