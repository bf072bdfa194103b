"""How a NumPy-like API turns arguments into tensors and picks result dtypes.

``keras.ops`` and ``tf.experimental.numpy`` share the function tables of this package
(``elementwise.py``, ``arrays.py``) but not their dtype rules: Keras promotes as JAX does with
``floatx()`` as its default float, TensorFlow's NumPy API as NumPy does with float64 and int64
defaults. A ``Policy`` is those rules; each table is built once per policy.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Policy:
    """The dtype rules of one NumPy-like API.

    Attributes:
        name: the API's name, for error messages (``"keras.ops"``).
        tensor: ``tensor(x, dtype=None) -> Tensor``: converts a value (Python floats get the
            API's default float), cast to ``dtype`` when given.
        promote: ``promote(*xs) -> list``: the operands converted to one common dtype.
        as_float: ``as_float(x) -> Tensor``: ``x`` as a floating tensor (integers and bools in
            the default float).
        floatx: ``floatx() -> DType``: the default float dtype (read on each call: it may be a
            setting).
        index_dtype: ``index_dtype() -> DType``: the dtype of indices and counts (``argmax``,
            ``nonzero``, ``count_nonzero``) and the default integer of ``arange``.
        accumulate: ``accumulate(x) -> Tensor``: ``x`` widened as ``sum``/``prod``/``cumsum``
            accumulate it (NumPy: small integers to the platform integer).
    """

    name: str
    tensor: Callable
    promote: Callable
    as_float: Callable
    floatx: Callable
    index_dtype: Callable
    accumulate: Callable

