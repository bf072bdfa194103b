"""``tf.experimental.numpy``'s dtypes, constants and dtype functions.

As in TensorFlow, the scalar types are NumPy's own (``tnp.float32 is np.float32``) and the
array type is the tensor class (``tnp.ndarray``); dtype arguments anywhere in the API accept
them, NumPy dtypes and names, and twinflow DTypes.
"""
from __future__ import annotations

import numpy as np

from ..core import dtypes
from ..graph.tensor import Tensor
from .config import as_np_dtype
from .config import result_type as _result_type

bool_ = np.bool_
complex64, complex128, complex_ = np.complex64, np.complex128, np.complex128
float16, float32, float64, float_ = np.float16, np.float32, np.float64, np.float64
int8, int16, int32, int64, int_ = np.int8, np.int16, np.int32, np.int64, np.int64
uint8, uint16, uint32, uint64 = np.uint8, np.uint16, np.uint32, np.uint64
inexact, object_, string_, unicode_ = np.inexact, np.object_, np.bytes_, np.str_
iinfo = np.iinfo

e, pi, inf, newaxis = np.e, np.pi, np.inf, None


def _np_type(t):
    if isinstance(t, type) and issubclass(t, np.generic):
        return t
    return as_np_dtype(t)


def finfo(dtype) -> np.finfo:
    """Machine limits of a floating dtype (NumPy's ``finfo``).

    Args:
        dtype: a floating dtype (or a tensor of one).

    Returns:
        The ``np.finfo``.
    """
    if isinstance(dtype, (Tensor, np.ndarray)):
        dtype = dtype.dtype
    return np.finfo(as_np_dtype(dtype))


def issubdtype(arg1, arg2) -> bool:
    """Whether ``arg1`` is lower than or equal to ``arg2`` in NumPy's type hierarchy.

    Args:
        arg1: a dtype or scalar type.
        arg2: a dtype or an abstract type (``inexact``, ``floating``...).

    Returns:
        A Python bool.
    """
    return bool(np.issubdtype(_np_type(arg1), _np_type(arg2)))


def promote_types(type1, type2) -> np.dtype:
    """The smallest dtype both can be cast to safely (NumPy's ``promote_types``).

    Args:
        type1: a dtype.
        type2: a dtype.

    Returns:
        A NumPy dtype.
    """
    return np.promote_types(as_np_dtype(type1), as_np_dtype(type2))


def result_type(*arrays_and_dtypes) -> dtypes.DType:
    """The dtype NumPy's promotion gives these operands (Python scalars weak).

    Args:
        *arrays_and_dtypes: tensors, arrays, Python scalars and dtypes.

    Returns:
        A twinflow DType.
    """
    return _result_type(*arrays_and_dtypes)
