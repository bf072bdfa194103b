"""``tw.experimental.numpy``: TensorFlow's NumPy API over twinflow tensors.

Every function takes tensors, variables, NumPy arrays and Python values and returns twinflow
tensors (``ndarray`` is the tensor class), so it runs eagerly, inside ``tw.function`` and under
a ``GradientTape``. Dtypes follow NumPy's promotion as TensorFlow's ``tnp`` does (see
``config.py`` and docs/experimental_numpy.md); ``experimental_enable_numpy_behavior`` gives
tensors NumPy's methods, operator promotion and indexing.
"""
from __future__ import annotations

from ..graph.tensor import Tensor as ndarray  # noqa: N812  (NumPy's name)
from . import tnp_random as random
from .behavior import experimental_enable_numpy_behavior
from .publish import publish
from .tnp_array import ROWS as _ARRAY_ROWS
from .tnp_math import ROWS as _MATH_ROWS
from .tnp_types import (
    bool_,
    complex64,
    complex128,
    complex_,
    e,
    finfo,
    float16,
    float32,
    float64,
    float_,
    iinfo,
    inexact,
    inf,
    int8,
    int16,
    int32,
    int64,
    int_,
    issubdtype,
    newaxis,
    object_,
    pi,
    promote_types,
    result_type,
    string_,
    uint8,
    uint16,
    uint32,
    uint64,
    unicode_,
)

__all__ = publish(globals(), {**_MATH_ROWS, **_ARRAY_ROWS}) + [
    "ndarray", "random", "experimental_enable_numpy_behavior", "bool_", "complex64",
    "complex128", "complex_", "e", "finfo", "float16", "float32", "float64", "float_", "iinfo",
    "inexact", "inf", "int8", "int16", "int32", "int64", "int_", "issubdtype", "newaxis",
    "object_", "pi", "promote_types", "result_type", "string_", "uint8", "uint16", "uint32",
    "uint64", "unicode_"]
