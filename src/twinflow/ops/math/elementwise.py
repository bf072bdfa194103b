"""Elementwise op machinery: dtype-kind rules, kernel wrappers, the scalar lowering hint."""
from __future__ import annotations

import numpy as np

from ..core import (
    InvalidArgumentError,
    binary_infer,
    quietly,
)

_FLOAT = "f"
_INEXACT = "fc"
_REAL = "iuf"
_NUMERIC = "iufc"
_INT = "iu"
_BOOL = "b"
_KIND_NAMES = {
    _FLOAT: "half, float, double",
    _INEXACT: "half, float, double, complex64, complex128",
    _REAL: "integer and floating-point types",
    _NUMERIC: "numeric types",
    _INT: "int8, int16, int32, int64, uint8, uint16, uint32, uint64",
    _BOOL: "bool",
}


# ----- shape/dtype rules and kernel wrappers ----------------------------------------------------

def _check_kind(op_name: str, x, kinds: str) -> None:
    if x.dtype.np.kind not in kinds:
        raise InvalidArgumentError(
            None, None, f"Value for attr 'T' of {x.dtype.name} is not in the list of allowed "
            f"values: {_KIND_NAMES[kinds]}; {op_name} does not accept {x.dtype.name} tensors "
            "(use tw.cast)")


def _unary_rule(op_name: str, kinds: str, out=None):
    """An ``infer`` for an elementwise unary op accepting dtype kinds ``kinds``.

    ``out``: None keeps the input dtype, "real" maps complex to its real dtype, or a DType.
    """
    def infer(x):
        _check_kind(op_name, x, kinds)
        if out is None:
            return x.dtype, x.shape
        if out == "real":
            return x.dtype.real_dtype, x.shape
        return out, x.shape
    return infer


def _binary_rule(op_name: str, kinds: str, out=None):
    """An ``infer`` for a broadcasting binary op (inputs of one dtype, kinds ``kinds``)."""
    def infer(x, y):
        _check_kind(op_name, x, kinds)
        _check_kind(op_name, y, kinds)
        dtype, shape = binary_infer(x, y)
        return (dtype if out is None else out), shape
    return infer


def _unary_kernel(fn, kinds: str, quiet: bool = False):
    """Wraps a NumPy function as a kernel that refuses dtype kinds outside ``kinds``.

    ``quiet``: run it without NumPy's floating-point warnings (see ``quietly``).
    """
    if quiet:
        def kernel(x):
            if x.dtype.kind not in kinds:
                raise TypeError(f"unsupported dtype {x.dtype}")
            return quietly(fn, x)
    else:
        def kernel(x):
            if x.dtype.kind not in kinds:
                raise TypeError(f"unsupported dtype {x.dtype}")
            return fn(x)
    kernel.__wrapped__ = fn
    return kernel


def _binary_kernel(fn, kinds: str, quiet: bool = False):
    """Like ``_unary_kernel`` for two inputs."""
    if quiet:
        def kernel(x, y):
            if x.dtype.kind not in kinds or y.dtype.kind not in kinds:
                raise TypeError(f"unsupported dtypes {x.dtype}, {y.dtype}")
            return quietly(fn, x, y)
    else:
        def kernel(x, y):
            if x.dtype.kind not in kinds or y.dtype.kind not in kinds:
                raise TypeError(f"unsupported dtypes {x.dtype}, {y.dtype}")
            return fn(x, y)
    kernel.__wrapped__ = fn
    return kernel


def _unary(op_name: str, fn, kinds: str, quiet: bool = False, out=None) -> tuple:
    """``(infer, kernel)`` of an elementwise unary op, both held to the dtype kinds ``kinds``
    (``_unary_rule``, ``_unary_kernel``)."""
    return _unary_rule(op_name, kinds, out), _unary_kernel(fn, kinds, quiet)


def _binary(op_name: str, fn, kinds: str, quiet: bool = False, out=None) -> tuple:
    """``(infer, kernel)`` of a broadcasting binary op (``_binary_rule``, ``_binary_kernel``)."""
    return _binary_rule(op_name, kinds, out), _binary_kernel(fn, kinds, quiet)


def _no_grad(op, dy):
    return [None] * len(op.inputs)


def _check_int_divisor(op_name: str, y) -> None:
    if y.dtype.kind in _INT and not np.all(y):
        raise ZeroDivisionError(f"{op_name}: Integer division by zero")


# ----- binary arithmetic ------------------------------------------------------------------------

def _lower_to(fn):
    """Codegen hint for scalar ops: in a compiled graph dtypes are already checked, so the
    Python operator runs the op on NumPy's scalar fast path (several times faster than a ufunc
    call on 0-d arrays). Array ops keep the ufunc, which codegen can give an ``out=`` buffer."""
    def lower(op):
        return fn if op.outputs[0].shape.rank == 0 else None
    return lower


