"""Complex numbers: building them from parts, real/imaginary parts, magnitude."""
from __future__ import annotations

import numpy as np

from ...graph.tensor import TensorLike
from ..array.create import zeros_like
from ..array.shape import sum_to
from ..core import (
    InvalidArgumentError,
    Tensor,
    binary_infer,
    bind,
    convert,
    convert_pair,
    dtypes,
    register_op,
)
from .binary import div_no_nan, multiply
from .elementwise import _FLOAT, _check_kind, _unary
from .unary import Abs


@register_op("Complex", same_dtype=True)
class Complex:
    """real + 1j * imag: float32 -> complex64, float64 -> complex128."""

    def infer(real, imag):
        _check_kind("Complex", real, _FLOAT)
        if real.dtype not in _COMPLEX_OF:
            raise InvalidArgumentError(
                None, None, f"Value for attr 'T' of {real.dtype.name} is not in the list of "
                "allowed values: float, double; Complex needs float32 or float64 parts")
        _, shape = binary_infer(real, imag)
        return _COMPLEX_OF[real.dtype], shape

    def kernel(real, imag):
        if real.dtype.kind != "f" or real.dtype == np.float16:
            raise TypeError(f"unsupported dtype {real.dtype}")
        out = np.empty(np.broadcast_shapes(np.shape(real), np.shape(imag)),
                       _COMPLEX_OF_NP[real.dtype])
        out.real = real
        out.imag = imag
        return out

    def grad(op, dy):
        x, y = op.inputs
        return sum_to(real(dy), x), sum_to(imag(dy), y)


_COMPLEX_OF = {dtypes.float32: dtypes.complex64, dtypes.float64: dtypes.complex128}
_COMPLEX_OF_NP = {np.dtype(np.float32): np.complex64, np.dtype(np.float64): np.complex128}


# ----- unary arithmetic -------------------------------------------------------------------------

@register_op("ComplexAbs")
class ComplexAbs:
    """|z| of a complex tensor, as its real dtype."""

    infer, kernel = _unary("ComplexAbs", np.abs, "c", out="real")

    def grad(op, dy):
        z, r = op.inputs[0], op.outputs[0]
        return div_no_nan(multiply(complex(dy, zeros_like(dy)), z),
                          complex(r, zeros_like(r)))


@register_op("Real")
class Real:
    """The real part of a complex tensor."""

    infer, kernel = _unary("Real", np.real, "c", out="real")

    def grad(op, dy):
        return complex(dy, zeros_like(dy))


@register_op("Imag")
class Imag:
    """The imaginary part of a complex tensor."""

    infer, kernel = _unary("Imag", np.imag, "c", out="real")

    def grad(op, dy):
        return complex(zeros_like(dy), dy)


# ----- comparisons (bool results, no gradient) --------------------------------------------------

def complex(real: TensorLike, imag: TensorLike, name: str | None = None) -> Tensor:
    """real + 1j * imag (``tw.complex``): float32 gives complex64, float64 complex128.

    Args:
        real: a float32 or float64 tensor.
        imag: a tensor of the same dtype.
        name: op name in graph mode.

    Returns:
        The complex tensor.
    """
    real, imag = convert_pair(real, imag)
    return bind(Complex, (real, imag), name=name)



# ----- public functions: unary ------------------------------------------------------------------

def abs(x: TensorLike, name: str | None = None) -> Tensor:
    """|x| elementwise (``tw.abs``); complex tensors give their real-dtype magnitude.

    Args:
        x: a numeric tensor or value.
        name: op name in graph mode.

    Returns:
        The absolute value (float32/float64 for complex64/complex128).
    """
    x = convert(x)
    if x.dtype.is_complex:
        return bind(ComplexAbs, (x,), name=name)
    return bind(Abs, (x,), name=name)


def real(input: TensorLike, name: str | None = None) -> Tensor:
    """The real part (``tw.math.real``); real tensors come back as is.

    Args:
        input: a tensor.
        name: op name in graph mode.

    Returns:
        A tensor of the real dtype.
    """
    x = convert(input)
    if not x.dtype.is_complex:
        return x
    return bind(Real, (x,), name=name)


def imag(input: TensorLike, name: str | None = None) -> Tensor:
    """The imaginary part (``tw.math.imag``); zeros for real tensors.

    Args:
        input: a tensor.
        name: op name in graph mode.

    Returns:
        A tensor of the real dtype.
    """
    x = convert(input)
    if not x.dtype.is_complex:
        return zeros_like(x)
    return bind(Imag, (x,), name=name)


