"""Elementwise unary math: negation, powers, exponentials, logs, trigonometry, rounding."""
from __future__ import annotations

import math as _pymath

import numpy as np

from ...graph.tensor import TensorLike
from ..array.create import zeros_like
from ..core import (
    Tensor,
    bind,
    convert,
    register_op,
)
from .elementwise import _FLOAT, _INEXACT, _NUMERIC, _REAL, _no_grad, _unary, _unary_rule


def _c(x):
    """conj(x) for complex tensors, x itself otherwise (TensorFlow's complex gradient rule)."""
    return conj(x) if x.dtype.is_complex else x


@register_op("Neg")
class Neg:
    """-x."""

    infer = _unary_rule("Neg", _NUMERIC)
    kernel = np.negative

    def grad(op, dy):
        return negative(dy)


@register_op("Abs")
class Abs:
    """|x| for real tensors (complex tensors use ComplexAbs)."""

    infer, kernel = _unary("Abs", np.abs, _REAL)

    def grad(op, dy):
        return dy * sign(op.inputs[0])


@register_op("Sign")
class Sign:
    """-1, 0 or 1 by the sign of x (x / |x| for complex)."""

    infer, kernel = _unary("Sign", np.sign, _NUMERIC)

    def grad(op, dy):  # zeros, not None, as TensorFlow
        return zeros_like(op.inputs[0])


@register_op("Square")
class Square:
    """x * x."""

    infer, kernel = _unary("Square", np.square, _NUMERIC)

    def grad(op, dy):
        return dy * _c(op.inputs[0] * 2)


@register_op("Reciprocal")
class Reciprocal:
    """1 / x."""

    infer, kernel = _unary("Reciprocal", np.reciprocal, _INEXACT, quiet=True)

    def grad(op, dy):
        y = op.outputs[0]
        return -dy * _c(square(y))


@register_op("Sqrt")
class Sqrt:
    """Square root (nan for negative reals)."""

    infer, kernel = _unary("Sqrt", np.sqrt, _INEXACT, quiet=True)

    def grad(op, dy):
        return dy * 0.5 / _c(op.outputs[0])


def _rsqrt_kernel(x):
    return np.reciprocal(np.sqrt(x))


@register_op("Rsqrt")
class Rsqrt:
    """1 / sqrt(x)."""

    infer, kernel = _unary("Rsqrt", _rsqrt_kernel, _INEXACT, quiet=True)

    def grad(op, dy):
        y = op.outputs[0]
        return dy * -0.5 * _c(square(y) * y)


# ----- exponentials and logarithms --------------------------------------------------------------

@register_op("Exp")
class Exp:
    """e ** x."""

    infer, kernel = _unary("Exp", np.exp, _INEXACT, quiet=True)

    def grad(op, dy):
        return dy * _c(op.outputs[0])


@register_op("Expm1")
class Expm1:
    """e ** x - 1, accurate near 0."""

    infer, kernel = _unary("Expm1", np.expm1, _INEXACT, quiet=True)

    def grad(op, dy):
        return dy * _c(exp(op.inputs[0]))


@register_op("Log")
class Log:
    """Natural logarithm (-inf at 0, nan below)."""

    infer, kernel = _unary("Log", np.log, _INEXACT, quiet=True)

    def grad(op, dy):
        return dy / _c(op.inputs[0])


@register_op("Log1p")
class Log1p:
    """log(1 + x), accurate near 0."""

    infer, kernel = _unary("Log1p", np.log1p, _INEXACT, quiet=True)

    def grad(op, dy):
        return dy / _c(op.inputs[0] + 1)


def _sigmoid_kernel(x):
    # exp(-x) overflows to inf for very negative x, giving exactly 0 (warning silenced)
    return np.reciprocal(np.exp(np.negative(x)) + 1)


@register_op("Sigmoid")
class Sigmoid:
    """1 / (1 + e ** -x), computed without overflow."""

    infer, kernel = _unary("Sigmoid", _sigmoid_kernel, _INEXACT, quiet=True)

    def grad(op, dy):
        y = op.outputs[0]
        return dy * _c(y * (1 - y))


def _log_sigmoid_kernel(x):
    return np.negative(np.logaddexp(x.dtype.type(0), np.negative(x)))


@register_op("LogSigmoid")
class LogSigmoid:
    """log(sigmoid(x)) = -softplus(-x), computed without overflow."""

    infer, kernel = _unary("LogSigmoid", _log_sigmoid_kernel, _FLOAT, quiet=True)

    def grad(op, dy):
        return dy * sigmoid(-op.inputs[0])


_TWO_OVER_SQRT_PI = 2.0 / _pymath.sqrt(_pymath.pi)
_ERF_IMPL: tuple = ()


def _erf_impl() -> tuple:
    """(erf, erfc) as NumPy-callables, chosen on first use.

    SciPy's are about 8x faster on large arrays, but SciPy is optional and slow to import, so it
    is only tried here; without it, math.erf/math.erfc (exact to the last bit) are vectorized with
    np.frompyfunc.
    """
    global _ERF_IMPL
    if not _ERF_IMPL:
        try:
            from scipy import special  # noqa: PLC0415  (optional dependency, imported on use)
            _ERF_IMPL = (special.erf, special.erfc)
        except ImportError:
            _ERF_IMPL = (np.frompyfunc(_pymath.erf, 1, 1), np.frompyfunc(_pymath.erfc, 1, 1))
    return _ERF_IMPL


def _erf_kernel(x):
    return np.asarray(_erf_impl()[0](x), dtype=x.dtype)


def _erfc_kernel(x):
    return np.asarray(_erf_impl()[1](x), dtype=x.dtype)


@register_op("Erf")
class Erf:
    """The error function 2/sqrt(pi) * integral_0^x e^(-t^2) dt."""

    infer, kernel = _unary("Erf", _erf_kernel, _FLOAT)

    def grad(op, dy):
        x = op.inputs[0]
        return dy * (exp(-square(x)) * _TWO_OVER_SQRT_PI)


@register_op("Erfc")
class Erfc:
    """1 - erf(x), accurate for large x."""

    infer, kernel = _unary("Erfc", _erfc_kernel, _FLOAT)

    def grad(op, dy):
        x = op.inputs[0]
        return dy * (exp(-square(x)) * -_TWO_OVER_SQRT_PI)


# ----- trigonometric and hyperbolic -------------------------------------------------------------

@register_op("Sin")
class Sin:
    """sin(x)."""

    infer, kernel = _unary("Sin", np.sin, _INEXACT)

    def grad(op, dy):
        return dy * _c(cos(op.inputs[0]))


@register_op("Cos")
class Cos:
    """cos(x)."""

    infer, kernel = _unary("Cos", np.cos, _INEXACT)

    def grad(op, dy):
        return -dy * _c(sin(op.inputs[0]))


@register_op("Tan")
class Tan:
    """tan(x)."""

    infer, kernel = _unary("Tan", np.tan, _INEXACT, quiet=True)

    def grad(op, dy):
        y = op.outputs[0]
        return dy * _c(square(y) + 1)


@register_op("Asin")
class Asin:
    """arcsin(x) (nan outside [-1, 1])."""

    infer, kernel = _unary("Asin", np.arcsin, _INEXACT, quiet=True)

    def grad(op, dy):
        x = op.inputs[0]
        return dy * _c(rsqrt(1 - square(x)))


@register_op("Acos")
class Acos:
    """arccos(x) (nan outside [-1, 1])."""

    infer, kernel = _unary("Acos", np.arccos, _INEXACT, quiet=True)

    def grad(op, dy):
        x = op.inputs[0]
        return -dy * _c(rsqrt(1 - square(x)))


@register_op("Atan")
class Atan:
    """arctan(x)."""

    infer, kernel = _unary("Atan", np.arctan, _INEXACT)

    def grad(op, dy):
        x = op.inputs[0]
        return dy / _c(square(x) + 1)


@register_op("Sinh")
class Sinh:
    """sinh(x)."""

    infer, kernel = _unary("Sinh", np.sinh, _INEXACT, quiet=True)

    def grad(op, dy):
        return dy * _c(cosh(op.inputs[0]))


@register_op("Cosh")
class Cosh:
    """cosh(x)."""

    infer, kernel = _unary("Cosh", np.cosh, _INEXACT, quiet=True)

    def grad(op, dy):
        return dy * _c(sinh(op.inputs[0]))


@register_op("Tanh")
class Tanh:
    """tanh(x)."""

    infer, kernel = _unary("Tanh", np.tanh, _INEXACT)

    def grad(op, dy):
        y = op.outputs[0]
        return dy * _c(1 - square(y))


@register_op("Asinh")
class Asinh:
    """arcsinh(x)."""

    infer, kernel = _unary("Asinh", np.arcsinh, _INEXACT)

    def grad(op, dy):
        return dy / _c(cosh(op.outputs[0]))


@register_op("Acosh")
class Acosh:
    """arccosh(x) (nan below 1)."""

    infer, kernel = _unary("Acosh", np.arccosh, _INEXACT, quiet=True)

    def grad(op, dy):
        return dy / _c(sinh(op.outputs[0]))


@register_op("Atanh")
class Atanh:
    """arctanh(x) (nan outside [-1, 1])."""

    infer, kernel = _unary("Atanh", np.arctanh, _INEXACT, quiet=True)

    def grad(op, dy):
        x = op.inputs[0]
        return dy / _c(1 - square(x))


# ----- rounding ---------------------------------------------------------------------------------

@register_op("Floor")
class Floor:
    """The largest integer <= x (as a float)."""

    infer, kernel = _unary("Floor", np.floor, _FLOAT)
    grad = _no_grad


@register_op("Ceil")
class Ceil:
    """The smallest integer >= x (as a float)."""

    infer, kernel = _unary("Ceil", np.ceil, _FLOAT)
    grad = _no_grad


@register_op("Round")
class Round:
    """Rounds half to even (banker's rounding), as TensorFlow does."""

    infer, kernel = _unary("Round", np.round, _REAL)
    grad = _no_grad


@register_op("Rint")
class Rint:
    """The closest integer, halves to even (as a float)."""

    infer, kernel = _unary("Rint", np.rint, _FLOAT)
    grad = _no_grad


# ----- complex parts ----------------------------------------------------------------------------

@register_op("Conj")
class Conj:
    """The complex conjugate."""

    infer, kernel = _unary("Conj", np.conj, "c")

    def grad(op, dy):
        return conj(dy)


def negative(x: TensorLike, name: str | None = None) -> Tensor:
    """Returns -x elementwise (``tw.negative``, the unary ``-`` operator).

    Args:
        x: a numeric tensor or value.
        name: op name in graph mode.

    Returns:
        The negation.
    """
    return bind(Neg, (convert(x),), name=name)

def sign(x: TensorLike, name: str | None = None) -> Tensor:
    """-1, 0 or 1 by the sign of x; x / |x| for complex (``tw.sign``).

    Args:
        x: a numeric tensor.
        name: op name in graph mode.

    Returns:
        A tensor like ``x``.
    """
    return bind(Sign, (convert(x),), name=name)

def square(x: TensorLike, name: str | None = None) -> Tensor:
    """x * x elementwise (``tw.square``).

    Args:
        x: a numeric tensor.
        name: op name in graph mode.

    Returns:
        The square.
    """
    return bind(Square, (convert(x),), name=name)

def reciprocal(x: TensorLike, name: str | None = None) -> Tensor:
    """1 / x elementwise (``tw.math.reciprocal``).

    Args:
        x: a floating-point or complex tensor.
        name: op name in graph mode.

    Returns:
        The reciprocal.
    """
    return bind(Reciprocal, (convert(x),), name=name)

def sqrt(x: TensorLike, name: str | None = None) -> Tensor:
    """Square root elementwise (``tw.sqrt``).

    Args:
        x: a floating-point or complex tensor.
        name: op name in graph mode.

    Returns:
        The square root (nan for negative reals).
    """
    return bind(Sqrt, (convert(x),), name=name)

def rsqrt(x: TensorLike, name: str | None = None) -> Tensor:
    """1 / sqrt(x) elementwise (``tw.math.rsqrt``).

    Args:
        x: a floating-point or complex tensor.
        name: op name in graph mode.

    Returns:
        The reciprocal square root.
    """
    return bind(Rsqrt, (convert(x),), name=name)

def exp(x: TensorLike, name: str | None = None) -> Tensor:
    """e ** x elementwise (``tw.exp``).

    Args:
        x: a floating-point or complex tensor.
        name: op name in graph mode.

    Returns:
        The exponential.
    """
    return bind(Exp, (convert(x),), name=name)

def expm1(x: TensorLike, name: str | None = None) -> Tensor:
    """e ** x - 1 elementwise, accurate near 0 (``tw.math.expm1``).

    Args:
        x: a floating-point or complex tensor.
        name: op name in graph mode.

    Returns:
        exp(x) - 1.
    """
    return bind(Expm1, (convert(x),), name=name)

def log(x: TensorLike, name: str | None = None) -> Tensor:
    """Natural logarithm elementwise (``tw.math.log``).

    Args:
        x: a floating-point or complex tensor.
        name: op name in graph mode.

    Returns:
        log(x) (-inf at 0, nan below).
    """
    return bind(Log, (convert(x),), name=name)

def log1p(x: TensorLike, name: str | None = None) -> Tensor:
    """log(1 + x) elementwise, accurate near 0 (``tw.math.log1p``).

    Args:
        x: a floating-point or complex tensor.
        name: op name in graph mode.

    Returns:
        log(1 + x).
    """
    return bind(Log1p, (convert(x),), name=name)

def sigmoid(x: TensorLike, name: str | None = None) -> Tensor:
    """1 / (1 + exp(-x)) elementwise (``tw.sigmoid``, ``tw.math.sigmoid``).

    Args:
        x: a floating-point or complex tensor.
        name: op name in graph mode.

    Returns:
        The logistic function of x.
    """
    return bind(Sigmoid, (convert(x),), name=name)

def log_sigmoid(x: TensorLike, name: str | None = None) -> Tensor:
    """log(sigmoid(x)) without overflow (``tw.math.log_sigmoid``).

    Args:
        x: a floating-point tensor.
        name: op name in graph mode.

    Returns:
        -softplus(-x).
    """
    return bind(LogSigmoid, (convert(x),), name=name)

def erf(x: TensorLike, name: str | None = None) -> Tensor:
    """The Gauss error function elementwise (``tw.math.erf``).

    Args:
        x: a floating-point tensor.
        name: op name in graph mode.

    Returns:
        erf(x).
    """
    return bind(Erf, (convert(x),), name=name)

def erfc(x: TensorLike, name: str | None = None) -> Tensor:
    """The complementary error function 1 - erf(x) (``tw.math.erfc``).

    Args:
        x: a floating-point tensor.
        name: op name in graph mode.

    Returns:
        erfc(x).
    """
    return bind(Erfc, (convert(x),), name=name)

def sin(x: TensorLike, name: str | None = None) -> Tensor:
    """Sine elementwise (``tw.sin``).

    Args:
        x: a floating-point or complex tensor.
        name: op name in graph mode.

    Returns:
        sin(x).
    """
    return bind(Sin, (convert(x),), name=name)

def cos(x: TensorLike, name: str | None = None) -> Tensor:
    """Cosine elementwise (``tw.cos``).

    Args:
        x: a floating-point or complex tensor.
        name: op name in graph mode.

    Returns:
        cos(x).
    """
    return bind(Cos, (convert(x),), name=name)

def tan(x: TensorLike, name: str | None = None) -> Tensor:
    """Tangent elementwise (``tw.tan``).

    Args:
        x: a floating-point or complex tensor.
        name: op name in graph mode.

    Returns:
        tan(x).
    """
    return bind(Tan, (convert(x),), name=name)

def asin(x: TensorLike, name: str | None = None) -> Tensor:
    """Inverse sine elementwise (``tw.asin``).

    Args:
        x: a floating-point or complex tensor.
        name: op name in graph mode.

    Returns:
        arcsin(x).
    """
    return bind(Asin, (convert(x),), name=name)

def acos(x: TensorLike, name: str | None = None) -> Tensor:
    """Inverse cosine elementwise (``tw.acos``).

    Args:
        x: a floating-point or complex tensor.
        name: op name in graph mode.

    Returns:
        arccos(x).
    """
    return bind(Acos, (convert(x),), name=name)

def atan(x: TensorLike, name: str | None = None) -> Tensor:
    """Inverse tangent elementwise (``tw.atan``).

    Args:
        x: a floating-point or complex tensor.
        name: op name in graph mode.

    Returns:
        arctan(x).
    """
    return bind(Atan, (convert(x),), name=name)

def sinh(x: TensorLike, name: str | None = None) -> Tensor:
    """Hyperbolic sine elementwise (``tw.sinh``).

    Args:
        x: a floating-point or complex tensor.
        name: op name in graph mode.

    Returns:
        sinh(x).
    """
    return bind(Sinh, (convert(x),), name=name)

def cosh(x: TensorLike, name: str | None = None) -> Tensor:
    """Hyperbolic cosine elementwise (``tw.cosh``).

    Args:
        x: a floating-point or complex tensor.
        name: op name in graph mode.

    Returns:
        cosh(x).
    """
    return bind(Cosh, (convert(x),), name=name)

def tanh(x: TensorLike, name: str | None = None) -> Tensor:
    """Hyperbolic tangent elementwise (``tw.tanh``).

    Args:
        x: a floating-point or complex tensor.
        name: op name in graph mode.

    Returns:
        tanh(x).
    """
    return bind(Tanh, (convert(x),), name=name)

def asinh(x: TensorLike, name: str | None = None) -> Tensor:
    """Inverse hyperbolic sine elementwise (``tw.asinh``).

    Args:
        x: a floating-point or complex tensor.
        name: op name in graph mode.

    Returns:
        arcsinh(x).
    """
    return bind(Asinh, (convert(x),), name=name)

def acosh(x: TensorLike, name: str | None = None) -> Tensor:
    """Inverse hyperbolic cosine elementwise (``tw.acosh``).

    Args:
        x: a floating-point or complex tensor.
        name: op name in graph mode.

    Returns:
        arccosh(x).
    """
    return bind(Acosh, (convert(x),), name=name)

def atanh(x: TensorLike, name: str | None = None) -> Tensor:
    """Inverse hyperbolic tangent elementwise (``tw.atanh``).

    Args:
        x: a floating-point or complex tensor.
        name: op name in graph mode.

    Returns:
        arctanh(x).
    """
    return bind(Atanh, (convert(x),), name=name)

def floor(x: TensorLike, name: str | None = None) -> Tensor:
    """The largest integer not above x, elementwise (``tw.math.floor``).

    Args:
        x: a floating-point tensor.
        name: op name in graph mode.

    Returns:
        floor(x), of x's dtype.
    """
    return bind(Floor, (convert(x),), name=name)

def ceil(x: TensorLike, name: str | None = None) -> Tensor:
    """The smallest integer not below x, elementwise (``tw.math.ceil``).

    Args:
        x: a floating-point tensor.
        name: op name in graph mode.

    Returns:
        ceil(x), of x's dtype.
    """
    return bind(Ceil, (convert(x),), name=name)

def rint(x: TensorLike, name: str | None = None) -> Tensor:
    """The closest integer, halves to even (``tw.math.rint``).

    Args:
        x: a floating-point tensor.
        name: op name in graph mode.

    Returns:
        rint(x), of x's dtype.
    """
    return bind(Rint, (convert(x),), name=name)

def round(x: TensorLike, name: str | None = None) -> Tensor:
    """Rounds half to even, elementwise (``tw.math.round``); integer tensors come back as is.

    Args:
        x: a real tensor or value.
        name: op name in graph mode.

    Returns:
        The rounded tensor, of x's dtype.
    """
    x = convert(x)
    if x.dtype.is_integer:
        return x
    return bind(Round, (x,), name=name)


def conj(x: TensorLike, name: str | None = None) -> Tensor:
    """The complex conjugate (``tw.math.conj``); real tensors come back as is.

    Args:
        x: a tensor.
        name: op name in graph mode.

    Returns:
        conj(x).
    """
    x = convert(x)
    if not x.dtype.is_complex:
        return x
    return bind(Conj, (x,), name=name)


