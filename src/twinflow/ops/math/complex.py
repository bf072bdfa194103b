"""Complex numbers: building them from parts, real/imaginary parts, magnitude."""
from __future__ import annotations

import numpy as np

from ...core import dtypes
from ...core.errors import InvalidArgumentError
from ...eager.execute import bind
from ...graph.registry import register_op
from ...graph.tensor import Tensor, TensorLike
from ..array.create import zeros_like
from ..array.shape import sum_to
from ..core import binary_infer, convert, convert_pair
from ..dispatch import CompositeArgument, dispatch
from .binary import div_no_nan, multiply
from .elementwise import COMPLEX, FLOAT, Unary, bind_unless, check_kind, declare
from .unary import Abs


@register_op("Complex", same_dtype=True)
class Complex:
    """real + 1j * imag: float32 -> complex64, float64 -> complex128."""

    def infer(real, imag):
        check_kind("Complex", real, FLOAT)
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


# ----- parts of complex tensors (elementwise rows, see elementwise.py) -------------------------

def _complex_abs_grad(op, dy):
    z, r = op.inputs[0], op.outputs[0]
    return div_no_nan(multiply(complex(dy, zeros_like(dy)), z), complex(r, zeros_like(r)))


COMPLEX_PARTS = [
    Unary("ComplexAbs", None, np.abs, COMPLEX, out="real",
          doc="|z| of a complex tensor, as its real dtype.", grad=_complex_abs_grad),
    Unary("Real", None, np.real, COMPLEX, out="real",
          doc="The real part of a complex tensor.",
          grad=lambda op, dy: complex(dy, zeros_like(dy))),
    Unary("Imag", None, np.imag, COMPLEX, out="real",
          doc="The imaginary part of a complex tensor.",
          grad=lambda op, dy: complex(zeros_like(dy), dy)),
]
ComplexAbs, Real, Imag = declare(COMPLEX_PARTS)


# ----- public functions -------------------------------------------------------------------------

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


def abs(x: TensorLike, name: str | None = None) -> Tensor:
    """|x| elementwise (``tw.abs``); complex tensors give their real-dtype magnitude.

    Args:
        x: a numeric tensor or value.
        name: op name in graph mode.

    Returns:
        The absolute value (float32/float64 for complex64/complex128).
    """
    try:
        x = convert(x)
    except CompositeArgument as e:  # RaggedTensor...: over its values
        return dispatch("abs", e, (x,), {})
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
    return bind_unless(Real, input, name, lambda dtype: not dtype.is_complex)


def imag(input: TensorLike, name: str | None = None) -> Tensor:
    """The imaginary part (``tw.math.imag``); zeros for real tensors.

    Args:
        input, name: as for ``real``.

    Returns:
        A tensor of the real dtype.
    """
    return bind_unless(Imag, input, name, lambda dtype: not dtype.is_complex, zeros_like)


