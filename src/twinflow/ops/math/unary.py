"""Elementwise unary math: negation, powers, exponentials, logs, trigonometry, rounding.

One ``Unary`` row per op (``elementwise.py`` explains the table). The gradient rules write the
binary arithmetic they need as Tensor operators (``dy * y``, ``dy / x``, ``1 - y``): those bind
the same ``Mul``/``RealDiv``/``Sub`` ops as ``multiply``/``realdiv``/``subtract`` would, without
importing ``binary.py`` (which imports this module for its own gradients).
"""
from __future__ import annotations

import math as _pymath

import numpy as np

from ...graph.tensor import Tensor, TensorLike
from ..array.create import zeros_like
from .elementwise import (
    COMPLEX,
    FLOAT,
    INEXACT,
    NUMERIC,
    REAL,
    Unary,
    bind_unless,
    declare,
    public_functions,
)


def _c(x):
    """conj(x) for complex tensors, x itself otherwise (TensorFlow's complex gradient rule)."""
    return conj(x) if x.dtype.is_complex else x


# ----- kernels and gradient rules the table uses -------------------------------------------

def _rsqrt_kernel(x):
    return np.reciprocal(np.sqrt(x))


def _sigmoid_kernel(x):
    # exp(-x) overflows to inf for very negative x, giving exactly 0 (warning silenced)
    return np.reciprocal(np.exp(np.negative(x)) + 1)


def _log_sigmoid_kernel(x):
    return np.negative(np.logaddexp(x.dtype.type(0), np.negative(x)))


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


def _rsqrt_grad(op, dy):
    y = op.outputs[0]
    return dy * -0.5 * _c(square(y) * y)


def _sigmoid_grad(op, dy):
    y = op.outputs[0]
    return dy * _c(y * (1 - y))


# ----- the table ------------------------------------------------------------------------------

UNARY = [
    # arithmetic
    Unary("Neg", "negative", np.negative, NUMERIC, raw=True,
          doc="-x.",
          api=("Returns -x elementwise (``tw.negative``, the unary ``-`` operator).",
               "a numeric tensor or value.", "The negation."),
          grad=lambda op, dy: negative(dy)),
    Unary("Abs", None, np.abs, REAL,
          doc="|x| for real tensors (complex tensors use ComplexAbs).",
          grad=lambda op, dy: dy * sign(op.inputs[0])),
    Unary("Sign", "sign", np.sign, NUMERIC,
          doc="-1, 0 or 1 by the sign of x (x / |x| for complex).",
          api=("-1, 0 or 1 by the sign of x; x / |x| for complex (``tw.sign``).",
               "a numeric tensor.", "A tensor like ``x``."),
          grad=lambda op, dy: zeros_like(op.inputs[0])),
    Unary("Square", "square", np.square, NUMERIC,
          doc="x * x.",
          api=("x * x elementwise (``tw.square``).", "a numeric tensor.", "The square."),
          grad=lambda op, dy: dy * _c(op.inputs[0] * 2)),
    Unary("Reciprocal", "reciprocal", np.reciprocal, INEXACT, quiet=True,
          doc="1 / x.",
          api=("1 / x elementwise (``tw.math.reciprocal``).", "a floating-point or complex tensor.",
               "The reciprocal."),
          grad=lambda op, dy: -dy * _c(square(op.outputs[0]))),
    Unary("Sqrt", "sqrt", np.sqrt, INEXACT, quiet=True,
          doc="Square root (nan for negative reals).",
          api=("Square root elementwise (``tw.sqrt``).", "a floating-point or complex tensor.",
               "The square root (nan for negative reals)."),
          grad=lambda op, dy: dy * 0.5 / _c(op.outputs[0])),
    Unary("Rsqrt", "rsqrt", _rsqrt_kernel, INEXACT, quiet=True,
          doc="1 / sqrt(x).",
          api=("1 / sqrt(x) elementwise (``tw.math.rsqrt``).",
               "a floating-point or complex tensor.", "The reciprocal square root."),
          grad=_rsqrt_grad),
    # exponentials and logarithms
    Unary("Exp", "exp", np.exp, INEXACT, quiet=True,
          doc="e ** x.",
          api=("e ** x elementwise (``tw.exp``).", "a floating-point or complex tensor.",
               "The exponential."),
          grad=lambda op, dy: dy * _c(op.outputs[0])),
    Unary("Expm1", "expm1", np.expm1, INEXACT, quiet=True,
          doc="e ** x - 1, accurate near 0.",
          api=("e ** x - 1 elementwise, accurate near 0 (``tw.math.expm1``).",
               "a floating-point or complex tensor.", "exp(x) - 1."),
          grad=lambda op, dy: dy * _c(exp(op.inputs[0]))),
    Unary("Log", "log", np.log, INEXACT, quiet=True,
          doc="Natural logarithm (-inf at 0, nan below).",
          api=("Natural logarithm elementwise (``tw.math.log``).",
               "a floating-point or complex tensor.", "log(x) (-inf at 0, nan below)."),
          grad=lambda op, dy: dy / _c(op.inputs[0])),
    Unary("Log1p", "log1p", np.log1p, INEXACT, quiet=True,
          doc="log(1 + x), accurate near 0.",
          api=("log(1 + x) elementwise, accurate near 0 (``tw.math.log1p``).",
               "a floating-point or complex tensor.", "log(1 + x)."),
          grad=lambda op, dy: dy / _c(op.inputs[0] + 1)),
    Unary("Sigmoid", "sigmoid", _sigmoid_kernel, INEXACT, quiet=True,
          doc="1 / (1 + e ** -x), computed without overflow.",
          api=("1 / (1 + exp(-x)) elementwise (``tw.sigmoid``, ``tw.math.sigmoid``).",
               "a floating-point or complex tensor.", "The logistic function of x."),
          grad=_sigmoid_grad),
    Unary("LogSigmoid", "log_sigmoid", _log_sigmoid_kernel, FLOAT, quiet=True,
          doc="log(sigmoid(x)) = -softplus(-x), computed without overflow.",
          api=("log(sigmoid(x)) without overflow (``tw.math.log_sigmoid``).",
               "a floating-point tensor.", "-softplus(-x)."),
          grad=lambda op, dy: dy * sigmoid(-op.inputs[0])),
    Unary("Erf", "erf", _erf_kernel, FLOAT,
          doc="The error function 2/sqrt(pi) * integral_0^x e^(-t^2) dt.",
          api=("The Gauss error function elementwise (``tw.math.erf``).",
               "a floating-point tensor.", "erf(x)."),
          grad=lambda op, dy: dy * (exp(-square(op.inputs[0])) * _TWO_OVER_SQRT_PI)),
    Unary("Erfc", "erfc", _erfc_kernel, FLOAT,
          doc="1 - erf(x), accurate for large x.",
          api=("The complementary error function 1 - erf(x) (``tw.math.erfc``).",
               "a floating-point tensor.", "erfc(x)."),
          grad=lambda op, dy: dy * (exp(-square(op.inputs[0])) * -_TWO_OVER_SQRT_PI)),
    # trigonometric and hyperbolic
    Unary("Sin", "sin", np.sin, INEXACT,
          doc="sin(x).",
          api=("Sine elementwise (``tw.sin``).", "a floating-point or complex tensor.", "sin(x)."),
          grad=lambda op, dy: dy * _c(cos(op.inputs[0]))),
    Unary("Cos", "cos", np.cos, INEXACT,
          doc="cos(x).",
          api=("Cosine elementwise (``tw.cos``).", "a floating-point or complex tensor.",
               "cos(x)."),
          grad=lambda op, dy: -dy * _c(sin(op.inputs[0]))),
    Unary("Tan", "tan", np.tan, INEXACT, quiet=True,
          doc="tan(x).",
          api=("Tangent elementwise (``tw.tan``).", "a floating-point or complex tensor.",
               "tan(x)."),
          grad=lambda op, dy: dy * _c(square(op.outputs[0]) + 1)),
    Unary("Asin", "asin", np.arcsin, INEXACT, quiet=True,
          doc="arcsin(x) (nan outside [-1, 1]).",
          api=("Inverse sine elementwise (``tw.asin``).", "a floating-point or complex tensor.",
               "arcsin(x)."),
          grad=lambda op, dy: dy * _c(rsqrt(1 - square(op.inputs[0])))),
    Unary("Acos", "acos", np.arccos, INEXACT, quiet=True,
          doc="arccos(x) (nan outside [-1, 1]).",
          api=("Inverse cosine elementwise (``tw.acos``).", "a floating-point or complex tensor.",
               "arccos(x)."),
          grad=lambda op, dy: -dy * _c(rsqrt(1 - square(op.inputs[0])))),
    Unary("Atan", "atan", np.arctan, INEXACT,
          doc="arctan(x).",
          api=("Inverse tangent elementwise (``tw.atan``).", "a floating-point or complex tensor.",
               "arctan(x)."),
          grad=lambda op, dy: dy / _c(square(op.inputs[0]) + 1)),
    Unary("Sinh", "sinh", np.sinh, INEXACT, quiet=True,
          doc="sinh(x).",
          api=("Hyperbolic sine elementwise (``tw.sinh``).", "a floating-point or complex tensor.",
               "sinh(x)."),
          grad=lambda op, dy: dy * _c(cosh(op.inputs[0]))),
    Unary("Cosh", "cosh", np.cosh, INEXACT, quiet=True,
          doc="cosh(x).",
          api=("Hyperbolic cosine elementwise (``tw.cosh``).",
               "a floating-point or complex tensor.", "cosh(x)."),
          grad=lambda op, dy: dy * _c(sinh(op.inputs[0]))),
    Unary("Tanh", "tanh", np.tanh, INEXACT,
          doc="tanh(x).",
          api=("Hyperbolic tangent elementwise (``tw.tanh``).",
               "a floating-point or complex tensor.", "tanh(x)."),
          grad=lambda op, dy: dy * _c(1 - square(op.outputs[0]))),
    Unary("Asinh", "asinh", np.arcsinh, INEXACT,
          doc="arcsinh(x).",
          api=("Inverse hyperbolic sine elementwise (``tw.asinh``).",
               "a floating-point or complex tensor.", "arcsinh(x)."),
          grad=lambda op, dy: dy / _c(cosh(op.outputs[0]))),
    Unary("Acosh", "acosh", np.arccosh, INEXACT, quiet=True,
          doc="arccosh(x) (nan below 1).",
          api=("Inverse hyperbolic cosine elementwise (``tw.acosh``).",
               "a floating-point or complex tensor.", "arccosh(x)."),
          grad=lambda op, dy: dy / _c(sinh(op.outputs[0]))),
    Unary("Atanh", "atanh", np.arctanh, INEXACT, quiet=True,
          doc="arctanh(x) (nan outside [-1, 1]).",
          api=("Inverse hyperbolic tangent elementwise (``tw.atanh``).",
               "a floating-point or complex tensor.", "arctanh(x)."),
          grad=lambda op, dy: dy / _c(1 - square(op.inputs[0]))),
    # rounding (no gradient)
    Unary("Floor", "floor", np.floor, FLOAT,
          doc="The largest integer <= x (as a float).",
          api=("The largest integer not above x, elementwise (``tw.math.floor``).",
               "a floating-point tensor.", "floor(x), of x's dtype.")),
    Unary("Ceil", "ceil", np.ceil, FLOAT,
          doc="The smallest integer >= x (as a float).",
          api=("The smallest integer not below x, elementwise (``tw.math.ceil``).",
               "a floating-point tensor.", "ceil(x), of x's dtype.")),
    Unary("Round", None, np.round, REAL,
          doc="Rounds half to even (banker's rounding), as TensorFlow does."),
    Unary("Rint", "rint", np.rint, FLOAT,
          doc="The closest integer, halves to even (as a float).",
          api=("The closest integer, halves to even (``tw.math.rint``).",
               "a floating-point tensor.", "rint(x), of x's dtype.")),
    # complex conjugate (``conj`` passes real tensors through)
    Unary("Conj", None, np.conj, COMPLEX,
          doc="The complex conjugate.",
          grad=lambda op, dy: conj(dy)),
]
_OPS = declare(UNARY)
(Neg, Abs, Sign, Square, Reciprocal, Sqrt, Rsqrt, Exp, Expm1, Log, Log1p, Sigmoid, LogSigmoid, Erf,
 Erfc, Sin, Cos, Tan, Asin, Acos, Atan, Sinh, Cosh, Tanh, Asinh, Acosh, Atanh, Floor, Ceil, Round,
 Rint, Conj) = _OPS
(negative, sign, square, reciprocal, sqrt, rsqrt, exp, expm1, log, log1p, sigmoid, log_sigmoid,
 erf, erfc, sin, cos, tan, asin, acos, atan, sinh, cosh, tanh, asinh, acosh, atanh, floor, ceil,
 rint) = public_functions(UNARY, _OPS, __name__)


# ----- public functions that do more than bind -------------------------------------------------

def round(x: TensorLike, name: str | None = None) -> Tensor:
    """Rounds half to even, elementwise (``tw.math.round``); integer tensors come back as is.

    Args:
        x: a real tensor or value.
        name: op name in graph mode.

    Returns:
        The rounded tensor, of x's dtype.
    """
    return bind_unless(Round, x, name, lambda dtype: dtype.is_integer)


def conj(x: TensorLike, name: str | None = None) -> Tensor:
    """The complex conjugate (``tw.math.conj``); real tensors come back as is.

    Args:
        x: a tensor.
        name: op name in graph mode.

    Returns:
        conj(x).
    """
    return bind_unless(Conj, x, name, lambda dtype: not dtype.is_complex)


