"""Special functions (``tw.math.lgamma``, ``digamma``, ``erfinv``, ``ndtri``, the Bessel
functions, ``igamma``, ``zeta``, ... and ``tw.math.special``), one ``Unary``/``Binary`` row each
(``elementwise.py`` explains the table).

The kernels are SciPy's (``scipy.special``), imported on first use: SciPy is an optional
dependency (the ``[special]`` extra); without it these ops raise an ImportError that says so,
except ``lgamma``, which falls back to ``math.lgamma`` (exact, slower). Gradients are
TensorFlow's, written with twinflow ops.
"""
from __future__ import annotations

import math as _pymath

import numpy as np

from ...eager.execute import bind
from ...graph.tensor import Tensor, TensorLike
from ..array.shape import sum_to
from ..core import convert_pair
from .binary import xlogy
from .cast import cast
from .comparison import not_equal
from .elementwise import FLOAT, Binary, Unary, declare, no_grad, public_functions
from .unary import cos, exp, log, sign, sin, square

_SQRT_PI_2 = _pymath.sqrt(_pymath.pi) / 2
_SQRT_2PI = _pymath.sqrt(2 * _pymath.pi)


def _special(name: str):
    """The kernel ``scipy.special.<name>``, its result cast to the first input's dtype."""
    def kernel(*args):
        try:
            from scipy import special  # noqa: PLC0415  (optional, slow to import: on use)
        except ImportError:
            raise ImportError(f"this op needs SciPy for scipy.special.{name}: pip install "
                              "twinflow[special] (or scipy)") from None
        return np.asarray(getattr(special, name)(*args)).astype(args[-1].dtype, copy=False)
    kernel.__name__ = f"_{name}_kernel"
    return kernel


_LGAMMA_PY = np.frompyfunc(_pymath.lgamma, 1, 1)


def _lgamma_kernel(x):
    try:
        return _special("gammaln")(x)
    except ImportError:
        with np.errstate(all="ignore"):
            out = np.where(np.isfinite(x) & ~((x <= 0) & (x == np.floor(x))),
                           1.0, np.inf).astype(np.float64)
            ok = out == 1.0
            out[ok] = _LGAMMA_PY(x[ok].astype(np.float64)).astype(np.float64)
            out[np.isnan(x)] = np.nan
        return out.astype(x.dtype)


def _bessel_x_grad(first: str):
    """d/dx of the order-1 functions J1, Y1, I1: first(x) - f(x) / x, ``first`` naming the
    order-0 function (TensorFlow's form; a name because the functions are made below)."""
    def grad(op, dy):
        x, y = op.inputs[0], op.outputs[0]
        return dy * (globals()[first](x) - y / x)
    return grad


def _xlog1py_kernel(x, y):
    with np.errstate(all="ignore"):
        out = x * np.log1p(y)
    return np.where(x == 0, np.zeros((), x.dtype), out).astype(x.dtype, copy=False)


def _xlog1py_grad(op, dy):
    x, y = op.inputs
    nonzero_x = cast(not_equal(x, 0), x.dtype)
    gx = dy * xlog1py(nonzero_x, y)
    gy = dy * (x / (y + 1))
    return sum_to(gx, x), sum_to(gy, y)


def _igamma_grad(op, dy):
    a, x = op.inputs
    if op.needs_grad[0]:
        raise NotImplementedError("tw.math.igamma/igammac: the gradient with respect to a is "
                                  "not supported (only with respect to x)")
    # d/dx P(a, x) = exp(-x + (a - 1) log x - lgamma(a))
    g = exp(-x + xlogy(a - 1, x) - lgamma(a))
    if op.type == "Igammac":
        g = -g
    return None, sum_to(dy * g, x)


def _polygamma_grad(op, dy):
    a, x = op.inputs
    if op.needs_grad[0]:
        raise NotImplementedError("tw.math.polygamma: no gradient with respect to the order a")
    return None, sum_to(dy * polygamma(a + 1, x), x)


def _zeta_grad(op, dy):
    x, q = op.inputs
    if op.needs_grad[0]:
        raise NotImplementedError("tw.math.zeta: no gradient with respect to x (as TensorFlow)")
    return None, sum_to(dy * -x * zeta(x + 1, q), q)


def _row(op, fn, kernel, doc, api_doc, grad=no_grad):
    return Unary(op, fn, kernel, FLOAT, quiet=True, doc=doc,
                 api=(f"{api_doc} (``tw.math.{fn}``).", "a floating-point tensor.",
                      "A tensor like ``x``."),
                 grad=grad)


SPECIAL = [
    _row("Lgamma", "lgamma", _lgamma_kernel, "log |Gamma(x)|.", "log |Gamma(x)| elementwise",
         lambda op, dy: dy * digamma(op.inputs[0])),
    _row("Digamma", "digamma", _special("digamma"), "psi(x) = d/dx lgamma(x).",
         "The digamma function psi(x) elementwise",
         lambda op, dy: dy * polygamma(cast(1, op.inputs[0].dtype), op.inputs[0])),
    _row("Erfinv", "erfinv", _special("erfinv"), "The inverse of erf on (-1, 1).",
         "The inverse error function elementwise",
         lambda op, dy: dy * (exp(square(op.outputs[0])) * _SQRT_PI_2)),
    _row("Erfcinv", "erfcinv", _special("erfcinv"), "The inverse of erfc on (0, 2).",
         "The inverse complementary error function elementwise",
         lambda op, dy: dy * (exp(square(op.outputs[0])) * -_SQRT_PI_2)),
    _row("Ndtri", "ndtri", _special("ndtri"), "The inverse of the standard normal CDF.",
         "The standard normal quantile function elementwise",
         lambda op, dy: dy * (exp(square(op.outputs[0]) * 0.5) * _SQRT_2PI)),
    _row("BesselI0", "bessel_i0", _special("i0"), "Modified Bessel function I0.",
         "The modified Bessel function of order 0 elementwise",
         lambda op, dy: dy * bessel_i1(op.inputs[0])),
    _row("BesselI0e", "bessel_i0e", _special("i0e"), "exp(-|x|) I0(x).",
         "The exponentially scaled modified Bessel function of order 0",
         lambda op, dy: dy * (bessel_i1e(op.inputs[0]) - sign(op.inputs[0]) * op.outputs[0])),
    _row("BesselI1", "bessel_i1", _special("i1"), "Modified Bessel function I1.",
         "The modified Bessel function of order 1 elementwise",
         _bessel_x_grad("bessel_i0")),
    _row("BesselI1e", "bessel_i1e", _special("i1e"), "exp(-|x|) I1(x).",
         "The exponentially scaled modified Bessel function of order 1",
         lambda op, dy: dy * (bessel_i0e(op.inputs[0]) - op.outputs[0] *
                              (sign(op.inputs[0]) + 1 / op.inputs[0]))),
    _row("BesselJ0", "bessel_j0", _special("j0"), "Bessel function J0.",
         "The Bessel function of the first kind of order 0",
         lambda op, dy: -dy * bessel_j1(op.inputs[0])),
    _row("BesselJ1", "bessel_j1", _special("j1"), "Bessel function J1.",
         "The Bessel function of the first kind of order 1", _bessel_x_grad("bessel_j0")),
    _row("BesselY0", "bessel_y0", _special("y0"), "Bessel function Y0.",
         "The Bessel function of the second kind of order 0",
         lambda op, dy: -dy * bessel_y1(op.inputs[0])),
    _row("BesselY1", "bessel_y1", _special("y1"), "Bessel function Y1.",
         "The Bessel function of the second kind of order 1", _bessel_x_grad("bessel_y0")),
    _row("BesselK0", "bessel_k0", _special("k0"), "Modified Bessel function K0.",
         "The modified Bessel function of the second kind of order 0",
         lambda op, dy: -dy * bessel_k1(op.inputs[0])),
    _row("BesselK0e", "bessel_k0e", _special("k0e"), "exp(x) K0(x).",
         "The exponentially scaled modified Bessel function K0",
         lambda op, dy: dy * (op.outputs[0] - bessel_k1e(op.inputs[0]))),
    _row("BesselK1", "bessel_k1", _special("k1"), "Modified Bessel function K1.",
         "The modified Bessel function of the second kind of order 1",
         lambda op, dy: dy * (-bessel_k0(op.inputs[0]) - op.outputs[0] / op.inputs[0])),
    _row("BesselK1e", "bessel_k1e", _special("k1e"), "exp(x) K1(x).",
         "The exponentially scaled modified Bessel function K1",
         lambda op, dy: dy * (op.outputs[0] * (1 - 1 / op.inputs[0]) - bessel_k0e(op.inputs[0]))),
    _row("Dawsn", "dawsn", _special("dawsn"), "Dawson's integral.",
         "Dawson's integral elementwise",
         lambda op, dy: dy * (1 - 2 * op.inputs[0] * op.outputs[0])),
    _row("Expint", "expint", _special("expi"), "The exponential integral Ei(x).",
         "The exponential integral Ei(x) elementwise",
         lambda op, dy: dy * (exp(op.inputs[0]) / op.inputs[0])),
    _row("FresnelCos", "fresnel_cos", lambda x: _special("fresnel")(x)[1].astype(x.dtype),
         "The Fresnel cosine integral C(x).", "The Fresnel cosine integral elementwise",
         lambda op, dy: dy * cos(square(op.inputs[0]) * (_pymath.pi / 2))),
    _row("FresnelSin", "fresnel_sin", lambda x: _special("fresnel")(x)[0].astype(x.dtype),
         "The Fresnel sine integral S(x).", "The Fresnel sine integral elementwise",
         lambda op, dy: dy * sin(square(op.inputs[0]) * (_pymath.pi / 2))),
    _row("Spence", "spence", _special("spence"), "Spence's function (dilogarithm form).",
         "Spence's function elementwise",
         lambda op, dy: dy * (log(op.inputs[0]) / (1 - op.inputs[0]))),
    Binary("Xlog1py", "xlog1py", _xlog1py_kernel, FLOAT,
           doc="x * log1p(y), but 0 where x is 0.",
           api=("x * log(1 + y), returning 0 where x is 0 (``tw.math.xlog1py``).",
                "a floating-point tensor.", "a tensor of the same dtype.", "The product."),
           grad=_xlog1py_grad),
    Binary("Igamma", None, _special("gammainc"), FLOAT, quiet=True,
           doc="The regularized lower incomplete gamma function P(a, x).",
           api=("The regularized lower incomplete gamma function P(a, x) (``tw.math.igamma``).",
                "a positive floating-point tensor.", "a tensor of the same dtype.", "P(a, x)."),
           grad=_igamma_grad),
    Binary("Igammac", None, _special("gammaincc"), FLOAT, quiet=True,
           doc="The regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x).",
           api=("The regularized upper incomplete gamma function Q(a, x) (``tw.math.igammac``).",
                "a positive floating-point tensor.", "a tensor of the same dtype.", "Q(a, x)."),
           grad=_igamma_grad),
    Binary("Polygamma", None,
           _special("polygamma"), FLOAT, quiet=True,
           doc="The a-th derivative of digamma (a a non-negative integer value).",
           api=("The polygamma function psi^(a)(x) (``tw.math.polygamma``).",
                "the order: a tensor of non-negative integer values.",
                "a tensor of the same dtype.", "psi^(a)(x) (nan for a non-integer a)."),
           grad=_polygamma_grad),
    Binary("Zeta", None, _special("zeta"), FLOAT, quiet=True,
           doc="The Hurwitz zeta function sum_n (n + q) ** -x.",
           api=("The Hurwitz zeta function (``tw.math.zeta``).", "the exponent x (> 1).",
                "q, a tensor of the same dtype.", "zeta(x, q)."),
           grad=_zeta_grad),
    Binary("NextAfter", None, np.nextafter, FLOAT,
           doc="The next representable value after x1 towards x2.",
           api=("The next representable floating-point value after x1 towards x2 "
                "(``tw.math.nextafter``).", "a float32 or float64 tensor.",
                "a tensor of the same dtype.", "A tensor like x1.")),
]
_OPS = declare(SPECIAL)
(lgamma, digamma, erfinv, erfcinv, ndtri, bessel_i0, bessel_i0e, bessel_i1, bessel_i1e, bessel_j0,
 bessel_j1, bessel_y0, bessel_y1, bessel_k0, bessel_k0e, bessel_k1, bessel_k1e, dawsn, expint,
 fresnel_cos, fresnel_sin, spence, xlog1py) = public_functions(SPECIAL, _OPS, __name__)
Igamma, Igammac, Polygamma, Zeta, NextAfter = _OPS[-5:]


# ----- the binary ones whose TensorFlow argument names are not (x, y) ---------------------------

def _bind2(opdef, a, b, name):
    a, b = convert_pair(a, b)
    return bind(opdef, (a, b), name=name)


def igamma(a: TensorLike, x: TensorLike, name: str | None = None) -> Tensor:
    """The regularized lower incomplete gamma function P(a, x) (``tw.math.igamma``).

    Args:
        a: a positive floating-point tensor.
        x: a non-negative tensor of the same dtype (broadcasts with ``a``).
        name: op name.

    Returns:
        P(a, x); differentiable with respect to ``x``.
    """
    return _bind2(Igamma, a, x, name)


def igammac(a: TensorLike, x: TensorLike, name: str | None = None) -> Tensor:
    """The regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x)
    (``tw.math.igammac``).

    Args:
        a, x, name: as for ``igamma``.

    Returns:
        Q(a, x); differentiable with respect to ``x``.
    """
    return _bind2(Igammac, a, x, name)


def polygamma(a: TensorLike, x: TensorLike, name: str | None = None) -> Tensor:
    """The polygamma function, the a-th derivative of digamma (``tw.math.polygamma``).

    Args:
        a: the order: a floating-point tensor of non-negative integer values.
        x: a tensor of the same dtype (broadcasts with ``a``).
        name: op name.

    Returns:
        psi^(a)(x) (nan where ``a`` is not a non-negative integer).
    """
    return _bind2(Polygamma, a, x, name)


def zeta(x: TensorLike, q: TensorLike, name: str | None = None) -> Tensor:
    """The Hurwitz zeta function sum_n (n + q) ** -x (``tw.math.zeta``).

    Args:
        x: the exponent, a floating-point tensor (> 1 for a finite value).
        q: a tensor of the same dtype (broadcasts with ``x``).
        name: op name.

    Returns:
        zeta(x, q); differentiable with respect to ``q``.
    """
    return _bind2(Zeta, x, q, name)


def nextafter(x1: TensorLike, x2: TensorLike, name: str | None = None) -> Tensor:
    """The next representable value after ``x1`` towards ``x2`` (``tw.math.nextafter``).

    Args:
        x1: a float32 or float64 tensor.
        x2: a tensor of the same dtype (broadcasts with ``x1``).
        name: op name.

    Returns:
        A tensor of the broadcast shape.
    """
    return _bind2(NextAfter, x1, x2, name)
