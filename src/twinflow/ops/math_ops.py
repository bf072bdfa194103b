"""Elementwise math: arithmetic, transcendental functions, comparisons, logic, casts.

Kernels run without ``infer`` in eager mode, so a kernel that NumPy would silently promote
(``np.exp`` of ints gives float64) checks the dtype kind itself and raises ``TypeError``; ``bind``
then re-runs ``infer``, whose message (naming the op and dtype) is what the user sees.
"""
from __future__ import annotations

import math as _pymath
import operator

import numpy as np

from ..core.errors import UnimplementedError
from ..core.shapes import broadcast_shapes
from ..eager.execute import bind_binary
from ..eager.tensor import EagerTensor as _ET
from ..graph.tensor import DTypeLike, ShapeLike, TensorLike
from . import reduction_ops
from .array_ops import ones_like, sum_to, zeros_like
from .core import (
    InvalidArgumentError,
    Tensor,
    TensorShape,
    binary_infer,
    bind,
    convert,
    convert_n,
    convert_pair,
    dtypes,
    quietly,
    register_op,
    static_value,
)
from .core import _fmt as _fmt_shape

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


def _c(x):
    """conj(x) for complex tensors, x itself otherwise (TensorFlow's complex gradient rule)."""
    return conj(x) if x.dtype.is_complex else x


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


@register_op("AddV2", same_dtype=True)
class AddV2:
    """x + y, with broadcasting."""

    lower = _lower_to(operator.add)
    infer = binary_infer
    kernel = np.add

    def grad(op, dy):
        x, y = op.inputs
        need_x, need_y = op.needs_grad
        return sum_to(dy, x) if need_x else None, sum_to(dy, y) if need_y else None


@register_op("Sub", same_dtype=True)
class Sub:
    """x - y, with broadcasting."""

    lower = _lower_to(operator.sub)
    infer = binary_infer
    kernel = np.subtract

    def grad(op, dy):
        x, y = op.inputs
        need_x, need_y = op.needs_grad
        return (sum_to(dy, x) if need_x else None,
                sum_to(negative(dy), y) if need_y else None)


@register_op("Mul", same_dtype=True)
class Mul:
    """x * y, with broadcasting."""

    lower = _lower_to(operator.mul)
    infer = binary_infer
    kernel = np.multiply

    def grad(op, dy):
        x, y = op.inputs
        need_x, need_y = op.needs_grad
        return (sum_to(multiply(dy, _c(y)), x) if need_x else None,
                sum_to(multiply(_c(x), dy), y) if need_y else None)


@register_op("AddN", same_dtype=True)
class AddN:
    """Sum of N tensors of one shape and dtype."""

    def infer(*xs):
        shape = xs[0].shape
        for x in xs[1:]:
            if not shape.is_compatible_with(x.shape):
                raise InvalidArgumentError(None, None, f"AddN needs inputs of one shape, got "
                                                       f"{[str(t.shape) for t in xs]}")
            shape = shape.merge_with(x.shape)
        return xs[0].dtype, shape

    def kernel(*xs):
        out = xs[0] + xs[1]
        for x in xs[2:]:
            out = out + x
        return out

    def grad(op, dy):
        return [dy] * len(op.inputs)


@register_op("RealDiv", same_dtype=True)
class RealDiv:
    """x / y for floating-point and complex tensors, with broadcasting."""

    infer, kernel = _binary("RealDiv", np.true_divide, _INEXACT, quiet=True)

    def grad(op, dy):
        x, y = op.inputs
        need_x, need_y = op.needs_grad
        gx = sum_to(realdiv(dy, _c(y)), x) if need_x else None
        gy = sum_to(multiply(dy, _c(realdiv(realdiv(negative(x), y), y))), y) if need_y else None
        return gx, gy


def _div_no_nan_kernel(x, y):
    out = quietly(np.true_divide, x, y)
    return np.where(y == 0, out.dtype.type(0), out)


@register_op("DivNoNan", same_dtype=True)
class DivNoNan:
    """x / y, but 0 where y is 0."""

    infer, kernel = _binary("DivNoNan", _div_no_nan_kernel, _INEXACT)

    def grad(op, dy):
        x, y = op.inputs
        gx = div_no_nan(dy, _c(y))
        gy = multiply(dy, _c(div_no_nan(div_no_nan(negative(x), y), y)))
        return sum_to(gx, x), sum_to(gy, y)


def _floordiv_kernel(x, y):
    _check_int_divisor("FloorDiv", y)
    return np.floor_divide(x, y)


@register_op("FloorDiv", same_dtype=True)
class FloorDiv:
    """floor(x / y), with broadcasting; integer division by zero raises."""

    infer, kernel = _binary("FloorDiv", _floordiv_kernel, _REAL, quiet=True)
    grad = _no_grad


def _floormod_kernel(x, y):
    _check_int_divisor("FloorMod", y)
    return np.mod(x, y)


@register_op("FloorMod", same_dtype=True)
class FloorMod:
    """x - floor(x / y) * y: the remainder with the sign of the divisor (Python's ``%``)."""

    infer, kernel = _binary("FloorMod", _floormod_kernel, _REAL, quiet=True)

    def grad(op, dy):
        x, y = op.inputs
        return sum_to(dy, x), sum_to(multiply(dy, negative(floordiv(x, y))), y)


def _truncatediv_kernel(x, y):
    if x.dtype.kind in _INT:
        _check_int_divisor("TruncateDiv", y)
        q = np.floor_divide(x, y)
        # floor and truncation differ when the signs differ and the division is inexact
        fix = (np.mod(x, y) != 0) & ((x < 0) != (y < 0))
        return (q + fix.astype(q.dtype)).astype(q.dtype, copy=False)
    return np.trunc(np.true_divide(x, y))


@register_op("TruncateDiv", same_dtype=True)
class TruncateDiv:
    """x / y rounded toward zero (C's integer division)."""

    infer, kernel = _binary("TruncateDiv", _truncatediv_kernel, _REAL, quiet=True)
    grad = _no_grad


def _truncatemod_kernel(x, y):
    _check_int_divisor("TruncateMod", y)
    return np.fmod(x, y)


@register_op("TruncateMod", same_dtype=True)
class TruncateMod:
    """The remainder of truncating division: it has the sign of the dividend (C's ``%``)."""

    infer, kernel = _binary("TruncateMod", _truncatemod_kernel, _REAL, quiet=True)

    def grad(op, dy):
        x, y = op.inputs
        return sum_to(dy, x), sum_to(multiply(dy, negative(truncatediv(x, y))), y)


@register_op("Pow", same_dtype=True)
class Pow:
    """x ** y, with broadcasting (integers to negative powers raise)."""

    infer, kernel = _binary("Pow", np.power, _NUMERIC, quiet=True)

    def grad(op, dy):
        x, y = op.inputs
        z = op.outputs[0]
        need_x, need_y = op.needs_grad
        gx = gy = None
        if need_x:
            gx = sum_to(multiply(dy, _c(multiply(y, pow(x, subtract(y, 1))))), x)
        if need_y:  # (usually not: x ** 2 has a constant exponent)
            if x.dtype.is_complex:
                log_x = where(not_equal(x, 0), log(x), zeros_like(x))
            else:
                # d/dy x**y = x**y log(x) only exists for x > 0; TensorFlow uses 0 elsewhere
                mask = greater(x, 0)
                log_x = where(mask, log(where(mask, x, ones_like(x))), zeros_like(x))
            gy = sum_to(multiply(dy, _c(multiply(z, log_x))), y)
        return gx, gy


@register_op("Maximum", same_dtype=True)
class Maximum:
    """The larger of x and y, elementwise, with broadcasting."""

    infer, kernel = _binary("Maximum", np.maximum, _REAL)

    def grad(op, dy):
        x, y = op.inputs
        need_x, need_y = op.needs_grad
        mask = greater_equal(x, y)  # ties send the gradient to x, as TensorFlow does
        zeros = zeros_like(dy)
        return (sum_to(where(mask, dy, zeros), x) if need_x else None,
                sum_to(where(mask, zeros, dy), y) if need_y else None)


@register_op("Minimum", same_dtype=True)
class Minimum:
    """The smaller of x and y, elementwise, with broadcasting."""

    infer, kernel = _binary("Minimum", np.minimum, _REAL)

    def grad(op, dy):
        x, y = op.inputs
        need_x, need_y = op.needs_grad
        mask = less_equal(x, y)
        zeros = zeros_like(dy)
        return (sum_to(where(mask, dy, zeros), x) if need_x else None,
                sum_to(where(mask, zeros, dy), y) if need_y else None)


def _squared_difference_kernel(x, y):
    d = np.subtract(x, y)
    return d * np.conj(d) if d.dtype.kind == "c" else d * d


@register_op("SquaredDifference", same_dtype=True)
class SquaredDifference:
    """(x - y) * conj(x - y), with broadcasting."""

    infer, kernel = _binary("SquaredDifference", _squared_difference_kernel, _NUMERIC)

    def grad(op, dy):
        x, y = op.inputs
        need_x, need_y = op.needs_grad
        g = multiply(multiply(dy, 2), subtract(x, y))
        return sum_to(g, x) if need_x else None, sum_to(negative(g), y) if need_y else None


@register_op("Atan2", same_dtype=True)
class Atan2:
    """atan(y / x) in the right quadrant, elementwise (inputs are y, x)."""

    infer, kernel = _binary("Atan2", np.arctan2, _FLOAT)

    def grad(op, dz):
        y, x = op.inputs
        scale = realdiv(dz, add(square(x), square(y)))
        return sum_to(multiply(scale, x), y), sum_to(multiply(negative(scale), y), x)


def _xlogy_kernel(x, y):
    out = quietly(lambda a, b: np.multiply(a, np.log(b)), x, y)
    return np.where(x == 0, out.dtype.type(0), out)


@register_op("Xlogy", same_dtype=True)
class Xlogy:
    """x * log(y), but 0 where x is 0 (even where y is 0)."""

    infer, kernel = _binary("Xlogy", _xlogy_kernel, _INEXACT)

    def grad(op, dy):
        x, y = op.inputs
        nonzero_x = cast(not_equal(x, 0), x.dtype)
        gx = multiply(dy, _c(xlogy(nonzero_x, y)))
        gy = multiply(dy, _c(xdivy(x, y)))
        return sum_to(gx, x), sum_to(gy, y)


def _xdivy_kernel(x, y):
    out = quietly(np.true_divide, x, y)
    return np.where(x == 0, out.dtype.type(0), out)


@register_op("Xdivy", same_dtype=True)
class Xdivy:
    """x / y, but 0 where x is 0 (even where y is 0)."""

    infer, kernel = _binary("Xdivy", _xdivy_kernel, _INEXACT)

    def grad(op, dy):
        x, y = op.inputs
        nonzero_x = cast(not_equal(x, 0), x.dtype)
        gx = multiply(dy, _c(xdivy(nonzero_x, y)))
        gy = multiply(dy, _c(xdivy(negative(x), square(y))))
        return sum_to(gx, x), sum_to(gy, y)


def _mul_no_nan_kernel(x, y):
    out = quietly(np.multiply, x, y)
    return np.where(y == 0, out.dtype.type(0), out)


@register_op("MulNoNan", same_dtype=True)
class MulNoNan:
    """x * y, but 0 where y is 0 (even where x is inf or nan)."""

    infer, kernel = _binary("MulNoNan", _mul_no_nan_kernel, _INEXACT)

    def grad(op, dy):
        x, y = op.inputs
        return sum_to(mul_no_nan(dy, y), x), sum_to(mul_no_nan(x, dy), y)


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
        return multiply(dy, sign(op.inputs[0]))


@register_op("ComplexAbs")
class ComplexAbs:
    """|z| of a complex tensor, as its real dtype."""

    infer, kernel = _unary("ComplexAbs", np.abs, "c", out="real")

    def grad(op, dy):
        z, r = op.inputs[0], op.outputs[0]
        return div_no_nan(multiply(complex(dy, zeros_like(dy)), z),
                          complex(r, zeros_like(r)))


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
        return multiply(dy, _c(multiply(op.inputs[0], 2)))


@register_op("Reciprocal")
class Reciprocal:
    """1 / x."""

    infer, kernel = _unary("Reciprocal", np.reciprocal, _INEXACT, quiet=True)

    def grad(op, dy):
        y = op.outputs[0]
        return multiply(negative(dy), _c(square(y)))


@register_op("Sqrt")
class Sqrt:
    """Square root (nan for negative reals)."""

    infer, kernel = _unary("Sqrt", np.sqrt, _INEXACT, quiet=True)

    def grad(op, dy):
        return realdiv(multiply(dy, 0.5), _c(op.outputs[0]))


def _rsqrt_kernel(x):
    return np.reciprocal(np.sqrt(x))


@register_op("Rsqrt")
class Rsqrt:
    """1 / sqrt(x)."""

    infer, kernel = _unary("Rsqrt", _rsqrt_kernel, _INEXACT, quiet=True)

    def grad(op, dy):
        y = op.outputs[0]
        return multiply(multiply(dy, -0.5), _c(multiply(square(y), y)))


# ----- exponentials and logarithms --------------------------------------------------------------

@register_op("Exp")
class Exp:
    """e ** x."""

    infer, kernel = _unary("Exp", np.exp, _INEXACT, quiet=True)

    def grad(op, dy):
        return multiply(dy, _c(op.outputs[0]))


@register_op("Expm1")
class Expm1:
    """e ** x - 1, accurate near 0."""

    infer, kernel = _unary("Expm1", np.expm1, _INEXACT, quiet=True)

    def grad(op, dy):
        return multiply(dy, _c(exp(op.inputs[0])))


@register_op("Log")
class Log:
    """Natural logarithm (-inf at 0, nan below)."""

    infer, kernel = _unary("Log", np.log, _INEXACT, quiet=True)

    def grad(op, dy):
        return realdiv(dy, _c(op.inputs[0]))


@register_op("Log1p")
class Log1p:
    """log(1 + x), accurate near 0."""

    infer, kernel = _unary("Log1p", np.log1p, _INEXACT, quiet=True)

    def grad(op, dy):
        return realdiv(dy, _c(add(op.inputs[0], 1)))


def _sigmoid_kernel(x):
    # exp(-x) overflows to inf for very negative x, giving exactly 0 (warning silenced)
    return np.reciprocal(np.exp(np.negative(x)) + 1)


@register_op("Sigmoid")
class Sigmoid:
    """1 / (1 + e ** -x), computed without overflow."""

    infer, kernel = _unary("Sigmoid", _sigmoid_kernel, _INEXACT, quiet=True)

    def grad(op, dy):
        y = op.outputs[0]
        return multiply(dy, _c(multiply(y, subtract(1, y))))


def _log_sigmoid_kernel(x):
    return np.negative(np.logaddexp(x.dtype.type(0), np.negative(x)))


@register_op("LogSigmoid")
class LogSigmoid:
    """log(sigmoid(x)) = -softplus(-x), computed without overflow."""

    infer, kernel = _unary("LogSigmoid", _log_sigmoid_kernel, _FLOAT, quiet=True)

    def grad(op, dy):
        return multiply(dy, sigmoid(negative(op.inputs[0])))


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
        return multiply(dy, multiply(exp(negative(square(x))), _TWO_OVER_SQRT_PI))


@register_op("Erfc")
class Erfc:
    """1 - erf(x), accurate for large x."""

    infer, kernel = _unary("Erfc", _erfc_kernel, _FLOAT)

    def grad(op, dy):
        x = op.inputs[0]
        return multiply(dy, multiply(exp(negative(square(x))), -_TWO_OVER_SQRT_PI))


# ----- trigonometric and hyperbolic -------------------------------------------------------------

@register_op("Sin")
class Sin:
    """sin(x)."""

    infer, kernel = _unary("Sin", np.sin, _INEXACT)

    def grad(op, dy):
        return multiply(dy, _c(cos(op.inputs[0])))


@register_op("Cos")
class Cos:
    """cos(x)."""

    infer, kernel = _unary("Cos", np.cos, _INEXACT)

    def grad(op, dy):
        return multiply(negative(dy), _c(sin(op.inputs[0])))


@register_op("Tan")
class Tan:
    """tan(x)."""

    infer, kernel = _unary("Tan", np.tan, _INEXACT, quiet=True)

    def grad(op, dy):
        y = op.outputs[0]
        return multiply(dy, _c(add(square(y), 1)))


@register_op("Asin")
class Asin:
    """arcsin(x) (nan outside [-1, 1])."""

    infer, kernel = _unary("Asin", np.arcsin, _INEXACT, quiet=True)

    def grad(op, dy):
        x = op.inputs[0]
        return multiply(dy, _c(rsqrt(subtract(1, square(x)))))


@register_op("Acos")
class Acos:
    """arccos(x) (nan outside [-1, 1])."""

    infer, kernel = _unary("Acos", np.arccos, _INEXACT, quiet=True)

    def grad(op, dy):
        x = op.inputs[0]
        return multiply(negative(dy), _c(rsqrt(subtract(1, square(x)))))


@register_op("Atan")
class Atan:
    """arctan(x)."""

    infer, kernel = _unary("Atan", np.arctan, _INEXACT)

    def grad(op, dy):
        x = op.inputs[0]
        return realdiv(dy, _c(add(square(x), 1)))


@register_op("Sinh")
class Sinh:
    """sinh(x)."""

    infer, kernel = _unary("Sinh", np.sinh, _INEXACT, quiet=True)

    def grad(op, dy):
        return multiply(dy, _c(cosh(op.inputs[0])))


@register_op("Cosh")
class Cosh:
    """cosh(x)."""

    infer, kernel = _unary("Cosh", np.cosh, _INEXACT, quiet=True)

    def grad(op, dy):
        return multiply(dy, _c(sinh(op.inputs[0])))


@register_op("Tanh")
class Tanh:
    """tanh(x)."""

    infer, kernel = _unary("Tanh", np.tanh, _INEXACT)

    def grad(op, dy):
        y = op.outputs[0]
        return multiply(dy, _c(subtract(1, square(y))))


@register_op("Asinh")
class Asinh:
    """arcsinh(x)."""

    infer, kernel = _unary("Asinh", np.arcsinh, _INEXACT)

    def grad(op, dy):
        return realdiv(dy, _c(cosh(op.outputs[0])))


@register_op("Acosh")
class Acosh:
    """arccosh(x) (nan below 1)."""

    infer, kernel = _unary("Acosh", np.arccosh, _INEXACT, quiet=True)

    def grad(op, dy):
        return realdiv(dy, _c(sinh(op.outputs[0])))


@register_op("Atanh")
class Atanh:
    """arctanh(x) (nan outside [-1, 1])."""

    infer, kernel = _unary("Atanh", np.arctanh, _INEXACT, quiet=True)

    def grad(op, dy):
        x = op.inputs[0]
        return realdiv(dy, _c(subtract(1, square(x))))


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

def _equal_kernel(x, y):
    out = np.equal(x, y)
    return out if out.dtype == np.bool_ else out.astype(np.bool_)


def _not_equal_kernel(x, y):
    out = np.not_equal(x, y)
    return out if out.dtype == np.bool_ else out.astype(np.bool_)


def _equality_infer(x, y):
    return dtypes.bool_, binary_infer(x, y)[1]


@register_op("Equal", same_dtype=True)
class Equal:
    """x == y elementwise (any dtype), with broadcasting."""

    infer = _equality_infer
    kernel = _equal_kernel
    grad = _no_grad


@register_op("NotEqual", same_dtype=True)
class NotEqual:
    """x != y elementwise (any dtype), with broadcasting."""

    infer = _equality_infer
    kernel = _not_equal_kernel
    grad = _no_grad


@register_op("Less", same_dtype=True)
class Less:
    """x < y elementwise, with broadcasting."""

    lower = _lower_to(operator.lt)
    infer, kernel = _binary("Less", np.less, _REAL, out=dtypes.bool_)
    grad = _no_grad


@register_op("LessEqual", same_dtype=True)
class LessEqual:
    """x <= y elementwise, with broadcasting."""

    lower = _lower_to(operator.le)
    infer, kernel = _binary("LessEqual", np.less_equal, _REAL, out=dtypes.bool_)
    grad = _no_grad


@register_op("Greater", same_dtype=True)
class Greater:
    """x > y elementwise, with broadcasting."""

    lower = _lower_to(operator.gt)
    infer, kernel = _binary("Greater", np.greater, _REAL, out=dtypes.bool_)
    grad = _no_grad


@register_op("GreaterEqual", same_dtype=True)
class GreaterEqual:
    """x >= y elementwise, with broadcasting."""

    lower = _lower_to(operator.ge)
    infer, kernel = _binary("GreaterEqual", np.greater_equal, _REAL, out=dtypes.bool_)
    grad = _no_grad


@register_op("IsNan")
class IsNan:
    """True where x is NaN."""

    infer, kernel = _unary("IsNan", np.isnan, _FLOAT, out=dtypes.bool_)
    grad = _no_grad


@register_op("IsInf")
class IsInf:
    """True where x is +inf or -inf."""

    infer, kernel = _unary("IsInf", np.isinf, _FLOAT, out=dtypes.bool_)
    grad = _no_grad


@register_op("IsFinite")
class IsFinite:
    """True where x is neither NaN nor infinite."""

    infer, kernel = _unary("IsFinite", np.isfinite, _FLOAT, out=dtypes.bool_)
    grad = _no_grad


# ----- logical and bitwise ----------------------------------------------------------------------

@register_op("LogicalAnd")
class LogicalAnd:
    """x AND y for bool tensors, with broadcasting."""

    infer, kernel = _binary("LogicalAnd", np.logical_and, _BOOL)
    grad = _no_grad


@register_op("LogicalOr")
class LogicalOr:
    """x OR y for bool tensors, with broadcasting."""

    infer, kernel = _binary("LogicalOr", np.logical_or, _BOOL)
    grad = _no_grad


@register_op("LogicalNot")
class LogicalNot:
    """NOT x for a bool tensor."""

    infer, kernel = _unary("LogicalNot", np.logical_not, _BOOL)
    grad = _no_grad


@register_op("BitwiseAnd", same_dtype=True)
class BitwiseAnd:
    """x & y for integer tensors."""

    infer, kernel = _binary("BitwiseAnd", np.bitwise_and, _INT)
    grad = _no_grad


@register_op("BitwiseOr", same_dtype=True)
class BitwiseOr:
    """x | y for integer tensors."""

    infer, kernel = _binary("BitwiseOr", np.bitwise_or, _INT)
    grad = _no_grad


@register_op("BitwiseXor", same_dtype=True)
class BitwiseXor:
    """x ^ y for integer tensors."""

    infer, kernel = _binary("BitwiseXor", np.bitwise_xor, _INT)
    grad = _no_grad


@register_op("Invert")
class Invert:
    """~x (flips every bit) for integer tensors."""

    infer, kernel = _unary("Invert", np.invert, _INT)
    grad = _no_grad


# ----- selection --------------------------------------------------------------------------------

def _broadcast3(op_name: str, a, b, c) -> TensorShape:
    ab = broadcast_shapes(a.shape, b.shape)
    out = None if ab is None else broadcast_shapes(ab, c.shape)
    if out is None:
        raise InvalidArgumentError(
            None, None, f"{op_name}: incompatible shapes {_fmt_shape(a.shape)}, "
            f"{_fmt_shape(b.shape)} and {_fmt_shape(c.shape)}")
    return out


@register_op("SelectV2")
class SelectV2:
    """x where condition is true, else y; all three broadcast together."""

    def infer(condition, x, y):
        if not condition.dtype.is_bool:
            raise InvalidArgumentError(
                None, None, f"SelectV2: condition must be a bool tensor, got "
                f"{condition.dtype.name}")
        if x.dtype is not y.dtype:
            raise InvalidArgumentError(
                None, None, f"SelectV2: x and y must have one dtype, got {x.dtype.name} and "
                f"{y.dtype.name}; twinflow, like TensorFlow, does not promote dtypes")
        return x.dtype, _broadcast3("SelectV2", condition, x, y)

    def kernel(condition, x, y):
        if condition.dtype != np.bool_ or x.dtype != y.dtype:
            raise TypeError("SelectV2 dtypes")
        return np.where(condition, x, y)

    def grad(op, dy):
        c, x, y = op.inputs
        zeros = zeros_like(dy)
        return None, sum_to(where(c, dy, zeros), x), sum_to(where(c, zeros, dy), y)


@register_op("Where")
class Where:
    """The int64 coordinates [N, rank] of the true (non-zero) elements of ``condition``."""

    def infer(condition):
        rank = condition.shape.rank
        return dtypes.int64, TensorShape(None if rank is None else [None, rank])

    def kernel(condition):
        return np.argwhere(condition).astype(np.int64, copy=False)

    grad = _no_grad


# ----- scans ------------------------------------------------------------------------------------

def _scan_infer(op_name: str):
    def infer(x, *, axis, exclusive=False, reverse=False):
        _check_kind(op_name, x, _NUMERIC)
        rank = x.shape.rank
        if rank is not None and not -rank <= axis < max(rank, 1):
            raise InvalidArgumentError(
                None, None, f"{op_name}: axis {axis} is out of range for a tensor of rank "
                f"{rank} (expected in [{-rank}, {rank}))")
        return x.dtype, x.shape
    return infer


def _scan(fn, identity, x, axis, exclusive, reverse):
    if x.dtype.kind not in _NUMERIC:
        raise TypeError(f"unsupported dtype {x.dtype}")
    if x.ndim == 0:
        raise IndexError("scan over a scalar")
    if reverse:
        x = np.flip(x, axis)
    out = fn(x, axis=axis, dtype=x.dtype)
    if exclusive:
        # shift one step along axis, starting from the identity element
        head = np.full_like(np.take(out, [0], axis=axis), identity)
        out = np.concatenate([head, np.delete(out, -1, axis=axis)], axis=axis)
    if reverse:
        out = np.flip(out, axis)
    return np.ascontiguousarray(out)


@register_op("Cumsum")
class Cumsum:
    """Cumulative sum along ``axis`` (optionally exclusive and/or reversed)."""

    infer = _scan_infer("Cumsum")

    def kernel(x, *, axis, exclusive=False, reverse=False):
        return quietly(_scan, np.cumsum, 0, x, axis, exclusive, reverse)

    def grad(op, dy):
        a = op.attrs
        return cumsum(dy, a["axis"], exclusive=a["exclusive"], reverse=not a["reverse"])


@register_op("Cumprod")
class Cumprod:
    """Cumulative product along ``axis`` (optionally exclusive and/or reversed)."""

    infer = _scan_infer("Cumprod")

    def kernel(x, *, axis, exclusive=False, reverse=False):
        return quietly(_scan, np.cumprod, 1, x, axis, exclusive, reverse)

    def grad(op, dy):
        # As TensorFlow: exact when x has no zeros.
        x, a = op.inputs[0], op.attrs
        prod = op.outputs[0]
        out = cumsum(multiply(prod, dy), a["axis"], exclusive=a["exclusive"],
                     reverse=not a["reverse"])
        return realdiv(out, _c(x))


# ----- clipping ---------------------------------------------------------------------------------

def _clip_kernel(t, lo, hi):
    if t.dtype.kind not in _REAL:
        raise TypeError(f"unsupported dtype {t.dtype}")
    # maximum(minimum(.)) rather than np.clip: the same answer as TensorFlow when lo > hi
    return np.maximum(np.minimum(t, hi), lo)


@register_op("ClipByValue", same_dtype=True)
class ClipByValue:
    """min(max(t, clip_value_min), clip_value_max), with broadcasting of the bounds."""

    def infer(t, lo, hi):
        _check_kind("ClipByValue", t, _REAL)
        shape = _broadcast3("ClipByValue", t, lo, hi)
        if not shape.is_compatible_with(t.shape):
            raise InvalidArgumentError(
                None, None, f"ClipByValue: clip bounds of shapes {_fmt_shape(lo.shape)} and "
                f"{_fmt_shape(hi.shape)} do not broadcast to t's shape {_fmt_shape(t.shape)}")
        return t.dtype, t.shape.merge_with(shape)

    kernel = _clip_kernel

    def grad(op, dy):
        t, lo, hi = op.inputs
        zeros = zeros_like(dy)
        below_hi = less_equal(t, hi)
        m = minimum(t, hi)
        above_lo = greater_equal(m, lo)
        dm = where(above_lo, dy, zeros)
        return (sum_to(where(below_hi, dm, zeros), t), sum_to(where(above_lo, zeros, dy), lo),
                sum_to(where(below_hi, zeros, dm), hi))


# ----- casts ------------------------------------------------------------------------------------

@register_op("Cast")
class Cast:
    """Converts ``x`` to ``DstT``; complex -> real keeps the real part, float -> int truncates."""

    def infer(x, *, DstT):
        _check_cast(x.dtype.is_string, DstT)
        return DstT, x.shape

    def kernel(x, *, DstT):
        k = x.dtype.kind
        if k == "O" or DstT.is_string:
            _check_cast(k == "O", DstT)
        if k == "c" and DstT.np.kind != "c":
            x = np.real(x)
        if k in "fc" and DstT.np.kind in "iu" or DstT.np.itemsize < x.dtype.itemsize:
            with np.errstate(all="ignore"):  # out-of-range values wrap silently, as TensorFlow
                return np.asarray(x).astype(DstT.np)
        return np.asarray(x).astype(DstT.np)

    def grad(op, dy):
        src = op.inputs[0].dtype
        if not (src.is_floating or src.is_complex) or not dy.dtype.is_differentiable:
            return None
        return cast(dy, src)


def _check_cast(from_string: bool, to) -> None:
    """As TensorFlow: Cast never converts between strings and numbers (tw.strings does)."""
    if from_string != to.is_string:
        src = "string" if from_string else "non-string"
        raise UnimplementedError(None, None, f"Cast {src} to {to.name} is not supported")


# ----- public functions: arithmetic -------------------------------------------------------------

def add(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """Returns x + y elementwise, broadcasting (``tw.add``, ``tw.math.add``).

    Args:
        x: a tensor or value.
        y: a tensor or value of the same dtype (Python scalars adopt x's dtype).
        name: op name in graph mode.

    Returns:
        The sum.
    """
    if type(x) is _ET and type(y) is _ET and name is None:
        return bind_binary(AddV2, x, y)  # as ``x + y``: gradient rules add tensors a lot
    x, y = convert_pair(x, y)
    return bind(AddV2, (x, y), name=name)


def subtract(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """Returns x - y elementwise, broadcasting (``tw.subtract``).

    Args:
        x: a tensor or value.
        y: a tensor or value of the same dtype.
        name: op name in graph mode.

    Returns:
        The difference.
    """
    if type(x) is _ET and type(y) is _ET and name is None:
        return bind_binary(Sub, x, y)  # as ``x - y``
    x, y = convert_pair(x, y)
    return bind(Sub, (x, y), name=name)


def multiply(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """Returns x * y elementwise, broadcasting (``tw.multiply``).

    Args:
        x: a tensor or value.
        y: a tensor or value of the same dtype.
        name: op name in graph mode.

    Returns:
        The product.
    """
    if type(x) is _ET and type(y) is _ET and name is None:
        return bind_binary(Mul, x, y)  # as ``x * y``
    x, y = convert_pair(x, y)
    return bind(Mul, (x, y), name=name)


def scalar_mul(scalar, x: TensorLike, name: str | None = None) -> Tensor:
    """Multiplies tensor ``x`` by a scalar (``tw.scalar_mul``).

    Args:
        scalar: a 0-d tensor or Python number.
        x: a tensor.
        name: op name in graph mode.

    Returns:
        scalar * x, of x's dtype.
    """
    x, scalar = convert_pair(x, scalar)
    if scalar.shape.rank not in (None, 0):
        raise ValueError(f"Only scalar multiply works, got shape {scalar.shape}")
    return bind(Mul, (scalar, x), name=name)


def add_n(inputs, name: str | None = None) -> Tensor:
    """Adds a list of tensors of one shape and dtype (``tw.add_n``).

    Args:
        inputs: a non-empty list of tensors.
        name: op name.

    Returns:
        Their elementwise sum.
    """
    xs = convert_n(inputs)
    if not xs:
        raise ValueError("add_n needs at least one input")
    if len(xs) == 1:
        return xs[0]
    return bind(AddN, xs, name=name)


# TensorFlow's truediv: small integers divide in float32, wide ones in float64.
_TRUEDIV_FLOAT = {
    dtypes.int8: dtypes.float32, dtypes.uint8: dtypes.float32,
    dtypes.int16: dtypes.float32, dtypes.uint16: dtypes.float32,
    dtypes.int32: dtypes.float64, dtypes.uint32: dtypes.float64,
    dtypes.int64: dtypes.float64, dtypes.uint64: dtypes.float64,
}


def truediv(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """Divides x by y elementwise, integers as floats (``tw.truediv``, the ``/`` operator).

    int8/int16/uint8/uint16 divide in float32, int32/int64 (and wider unsigned) in float64,
    as in TensorFlow.

    Args:
        x: a tensor or value.
        y: a tensor or value of the same dtype.
        name: op name in graph mode.

    Returns:
        The quotient, a floating-point (or complex) tensor.
    """
    x, y = convert_pair(x, y)
    dx = x.dtype
    if dx is y.dtype and dx.is_integer:
        target = _TRUEDIV_FLOAT[dx]
        x = bind(Cast, (x,), {"DstT": target})
        y = bind(Cast, (y,), {"DstT": target})
    # mixed dtypes: RealDiv's dtype check raises InvalidArgumentError naming both
    return bind(RealDiv, (x, y), name=name)


def divide(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """Computes Python-style division x / y (``tw.divide``, ``tw.math.divide``).

    Args:
        x: a tensor or value.
        y: a tensor or value.
        name: op name in graph mode.

    Returns:
        The quotient (integers divide as floats, see ``truediv``).
    """
    return truediv(x, y, name=name)


def realdiv(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """x / y for floating-point or complex tensors of one dtype (``tw.realdiv``).

    Args:
        x: a tensor or value.
        y: a tensor or value of the same dtype.
        name: op name in graph mode.

    Returns:
        The quotient.
    """
    x, y = convert_pair(x, y)
    return bind(RealDiv, (x, y), name=name)


def div_no_nan(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """x / y, returning 0 where y is 0 (``tw.math.divide_no_nan``).

    Args:
        x: a floating-point or complex tensor.
        y: a tensor of the same dtype.
        name: op name in graph mode.

    Returns:
        The safe quotient.
    """
    x, y = convert_pair(x, y)
    return bind(DivNoNan, (x, y), name=name)


divide_no_nan = div_no_nan


def reciprocal_no_nan(x: TensorLike, name: str | None = None) -> Tensor:
    """1 / x, returning 0 where x is 0 (``tw.math.reciprocal_no_nan``).

    Args:
        x: a floating-point or complex tensor.
        name: op name in graph mode.

    Returns:
        The safe reciprocal.
    """
    x = convert(x)
    return bind(DivNoNan, (ones_like(x), x), name=name)


def floordiv(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """floor(x / y) elementwise (``tw.math.floordiv``, the ``//`` operator).

    Args:
        x: a real tensor or value.
        y: a tensor or value of the same dtype.
        name: op name in graph mode.

    Returns:
        The floored quotient, of the inputs' dtype.
    """
    x, y = convert_pair(x, y)
    return bind(FloorDiv, (x, y), name=name)


floor_div = floordiv


def floormod(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """x mod y with the sign of y (``tw.math.floormod``, ``tw.math.mod``, the ``%`` operator).

    Args:
        x: a real tensor or value.
        y: a tensor or value of the same dtype.
        name: op name in graph mode.

    Returns:
        The remainder.
    """
    x, y = convert_pair(x, y)
    return bind(FloorMod, (x, y), name=name)


mod = floormod


def truncatediv(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """x / y rounded toward zero (``tw.truncatediv``).

    Args:
        x: a real tensor or value.
        y: a tensor or value of the same dtype.
        name: op name in graph mode.

    Returns:
        The truncated quotient.
    """
    x, y = convert_pair(x, y)
    return bind(TruncateDiv, (x, y), name=name)


def truncatemod(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """The remainder of truncating division, with the sign of x (``tw.truncatemod``).

    Args:
        x: a real tensor or value.
        y: a tensor or value of the same dtype.
        name: op name in graph mode.

    Returns:
        The remainder.
    """
    x, y = convert_pair(x, y)
    return bind(TruncateMod, (x, y), name=name)


def pow(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """x ** y elementwise (``tw.pow``, the ``**`` operator).

    Args:
        x: a tensor or value.
        y: a tensor or value of the same dtype.
        name: op name in graph mode.

    Returns:
        The power.
    """
    x, y = convert_pair(x, y)
    return bind(Pow, (x, y), name=name)


def maximum(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """The elementwise maximum of x and y, broadcasting (``tw.maximum``).

    Args:
        x: a real tensor or value.
        y: a tensor or value of the same dtype.
        name: op name in graph mode.

    Returns:
        max(x, y).
    """
    x, y = convert_pair(x, y)
    return bind(Maximum, (x, y), name=name)


def minimum(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """The elementwise minimum of x and y, broadcasting (``tw.minimum``).

    Args:
        x: a real tensor or value.
        y: a tensor or value of the same dtype.
        name: op name in graph mode.

    Returns:
        min(x, y).
    """
    x, y = convert_pair(x, y)
    return bind(Minimum, (x, y), name=name)


def xlogy(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """x * log(y), returning 0 where x is 0 (``tw.math.xlogy``).

    Args:
        x: a floating-point or complex tensor.
        y: a tensor of the same dtype.
        name: op name in graph mode.

    Returns:
        The product.
    """
    x, y = convert_pair(x, y)
    return bind(Xlogy, (x, y), name=name)


def xdivy(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """x / y, returning 0 where x is 0 (``tw.math.xdivy``).

    Args:
        x: a floating-point or complex tensor.
        y: a tensor of the same dtype.
        name: op name in graph mode.

    Returns:
        The quotient.
    """
    x, y = convert_pair(x, y)
    return bind(Xdivy, (x, y), name=name)


def mul_no_nan(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """x * y, returning 0 where y is 0 even if x is inf or nan (``tw.math.multiply_no_nan``).

    Args:
        x: a floating-point or complex tensor.
        y: a tensor of the same dtype.
        name: op name in graph mode.

    Returns:
        The product.
    """
    x, y = convert_pair(x, y)
    return bind(MulNoNan, (x, y), name=name)


multiply_no_nan = mul_no_nan


def accumulate_n(inputs, shape: ShapeLike | None = None, tensor_dtype=None,
                 name: str | None = None) -> Tensor:
    """Sums a list of tensors (``tw.math.accumulate_n``; the same as ``add_n`` here).

    Args:
        inputs: a non-empty list of tensors of one shape and dtype.
        shape: unused (TensorFlow compatibility).
        tensor_dtype: unused (TensorFlow compatibility).
        name: op name.

    Returns:
        Their elementwise sum.
    """
    return add_n(inputs, name=name)


def polyval(coeffs, x: TensorLike, name: str | None = None) -> Tensor:
    """Evaluates the polynomial coeffs[0] * x**(n-1) + ... + coeffs[n-1] (``tw.math.polyval``).

    Args:
        coeffs: a list of tensors or numbers, highest degree first.
        x: a tensor.
        name: unused (TensorFlow compatibility).

    Returns:
        The polynomial's value at x (Horner's rule); zeros like x for no coefficients.
    """
    x = convert(x)
    if not coeffs:
        return zeros_like(x)
    acc = convert_pair(x, coeffs[0])[1]
    for c in coeffs[1:]:
        acc = add(multiply(acc, x), c)
    return acc


def squared_difference(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """(x - y) ** 2 elementwise (``tw.math.squared_difference``).

    Args:
        x: a tensor or value.
        y: a tensor or value of the same dtype.
        name: op name in graph mode.

    Returns:
        The squared difference.
    """
    x, y = convert_pair(x, y)
    return bind(SquaredDifference, (x, y), name=name)


def atan2(y: TensorLike, x: TensorLike, name: str | None = None) -> Tensor:
    """The angle of the point (x, y), elementwise (``tw.math.atan2``).

    Args:
        y: a floating-point tensor.
        x: a tensor of the same dtype.
        name: op name in graph mode.

    Returns:
        atan(y / x) in [-pi, pi].
    """
    y, x = convert_pair(y, x)
    return bind(Atan2, (y, x), name=name)


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

def is_nan(x: TensorLike, name: str | None = None) -> Tensor:
    """True where x is NaN (``tw.math.is_nan``).

    Args:
        x: a floating-point tensor.
        name: op name in graph mode.

    Returns:
        A bool tensor.
    """
    return bind(IsNan, (convert(x),), name=name)

def is_inf(x: TensorLike, name: str | None = None) -> Tensor:
    """True where x is infinite (``tw.math.is_inf``).

    Args:
        x: a floating-point tensor.
        name: op name in graph mode.

    Returns:
        A bool tensor.
    """
    return bind(IsInf, (convert(x),), name=name)

def is_finite(x: TensorLike, name: str | None = None) -> Tensor:
    """True where x is finite (``tw.math.is_finite``).

    Args:
        x: a floating-point tensor.
        name: op name in graph mode.

    Returns:
        A bool tensor.
    """
    return bind(IsFinite, (convert(x),), name=name)

def logical_not(x: TensorLike, name: str | None = None) -> Tensor:
    """Elementwise NOT (``tw.logical_not``, ``~`` on bool tensors).

    Args:
        x: a bool tensor.
        name: op name in graph mode.

    Returns:
        A bool tensor.
    """
    return bind(LogicalNot, (convert(x),), name=name)

def invert(x: TensorLike, name: str | None = None) -> Tensor:
    """Flips every bit (``tw.bitwise.invert``, ``~`` on integer tensors).

    Args:
        x: an integer tensor.
        name: op name in graph mode.

    Returns:
        ~x.
    """
    return bind(Invert, (convert(x),), name=name)


# ----- public functions: comparisons and logic ---------------------------------------------------

def equal(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """x == y elementwise, broadcasting (``tw.equal``).

    Args:
        x: a tensor or value of any dtype.
        y: a tensor or value of the same dtype.
        name: op name in graph mode.

    Returns:
        A bool tensor.
    """
    x, y = convert_pair(x, y)
    return bind(Equal, (x, y), name=name)

def not_equal(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """x != y elementwise, broadcasting (``tw.not_equal``).

    Args:
        x: a tensor or value of any dtype.
        y: a tensor or value of the same dtype.
        name: op name in graph mode.

    Returns:
        A bool tensor.
    """
    x, y = convert_pair(x, y)
    return bind(NotEqual, (x, y), name=name)

def less(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """x < y elementwise, broadcasting (``tw.less``).

    Args:
        x: a real tensor or value.
        y: a tensor or value of the same dtype.
        name: op name in graph mode.

    Returns:
        A bool tensor.
    """
    x, y = convert_pair(x, y)
    return bind(Less, (x, y), name=name)

def less_equal(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """x <= y elementwise, broadcasting (``tw.less_equal``).

    Args:
        x: a real tensor or value.
        y: a tensor or value of the same dtype.
        name: op name in graph mode.

    Returns:
        A bool tensor.
    """
    x, y = convert_pair(x, y)
    return bind(LessEqual, (x, y), name=name)

def greater(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """x > y elementwise, broadcasting (``tw.greater``).

    Args:
        x: a real tensor or value.
        y: a tensor or value of the same dtype.
        name: op name in graph mode.

    Returns:
        A bool tensor.
    """
    x, y = convert_pair(x, y)
    return bind(Greater, (x, y), name=name)

def greater_equal(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """x >= y elementwise, broadcasting (``tw.greater_equal``).

    Args:
        x: a real tensor or value.
        y: a tensor or value of the same dtype.
        name: op name in graph mode.

    Returns:
        A bool tensor.
    """
    x, y = convert_pair(x, y)
    return bind(GreaterEqual, (x, y), name=name)

def logical_and(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """Elementwise AND of bool tensors (``tw.logical_and``, ``&``).

    Args:
        x: a bool tensor or value.
        y: a tensor or value of the same dtype.
        name: op name in graph mode.

    Returns:
        A bool tensor.
    """
    x, y = convert_pair(x, y)
    return bind(LogicalAnd, (x, y), name=name)

def logical_or(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """Elementwise OR of bool tensors (``tw.logical_or``, ``|``).

    Args:
        x: a bool tensor or value.
        y: a tensor or value of the same dtype.
        name: op name in graph mode.

    Returns:
        A bool tensor.
    """
    x, y = convert_pair(x, y)
    return bind(LogicalOr, (x, y), name=name)

def bitwise_and(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """x & y for integer tensors (``tw.bitwise.bitwise_and``).

    Args:
        x: an integer tensor or value.
        y: a tensor or value of the same dtype.
        name: op name in graph mode.

    Returns:
        An integer tensor.
    """
    x, y = convert_pair(x, y)
    return bind(BitwiseAnd, (x, y), name=name)

def bitwise_or(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """x | y for integer tensors (``tw.bitwise.bitwise_or``).

    Args:
        x: an integer tensor or value.
        y: a tensor or value of the same dtype.
        name: op name in graph mode.

    Returns:
        An integer tensor.
    """
    x, y = convert_pair(x, y)
    return bind(BitwiseOr, (x, y), name=name)

def bitwise_xor(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """x ^ y for integer tensors (``tw.bitwise.bitwise_xor``).

    Args:
        x: an integer tensor or value.
        y: a tensor or value of the same dtype.
        name: op name in graph mode.

    Returns:
        An integer tensor.
    """
    x, y = convert_pair(x, y)
    return bind(BitwiseXor, (x, y), name=name)


def logical_xor(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """Elementwise XOR of bool tensors (``tw.math.logical_xor``, ``^`` on bool tensors).

    Args:
        x: a bool tensor or value.
        y: a bool tensor or value.
        name: op name in graph mode.

    Returns:
        A bool tensor.
    """
    x, y = convert_pair(x, y)
    for t in (x, y):
        if not t.dtype.is_bool:
            raise InvalidArgumentError(
                None, None, f"logical_xor needs bool tensors, got {x.dtype.name} and "
                f"{y.dtype.name} [Op:LogicalXor]")
    # on bools, xor is inequality: one op instead of TensorFlow's four
    return bind(NotEqual, (x, y), name=name)


# ----- public functions: special cases ----------------------------------------------------------

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


def where(condition: TensorLike, x: TensorLike | None = None, y: TensorLike | None = None,
          name: str | None = None) -> Tensor:
    """Selects from x or y by ``condition``, or lists the true coordinates (``tw.where``).

    Args:
        condition: a bool tensor.
        x: values where condition is true (broadcasts with condition and y).
        y: values where condition is false, of x's dtype.
        name: op name in graph mode.

    Returns:
        With x and y, the selected values; without, an int64 tensor [num_true, rank] of the
        coordinates of the true elements.
    """
    c = convert(condition)
    if x is None and y is None:
        return bind(Where, (c,), name=name)
    if x is None or y is None:
        raise ValueError("x and y must both be non-None or both be None.")
    x, y = convert_pair(x, y)
    return bind(SelectV2, (c, x, y), name=name)


def _static_axis(axis, op_name: str) -> int:
    return int(np.asarray(static_value(axis, f"{op_name}: axis")).reshape(()))


def cumsum(x: TensorLike, axis: int = 0, exclusive: bool = False, reverse: bool = False,
           name: str | None = None) -> Tensor:
    """Cumulative sum along ``axis`` (``tw.cumsum``, ``tw.math.cumsum``).

    Args:
        x: a numeric tensor.
        axis: the axis to scan (an int; negative counts from the end).
        exclusive: exclude each element itself: [a, b, c] -> [0, a, a + b].
        reverse: scan from the end: [a, b, c] -> [a + b + c, b + c, c].
        name: op name in graph mode.

    Returns:
        A tensor like ``x``.
    """
    attrs = {"axis": _static_axis(axis, "Cumsum"), "exclusive": bool(exclusive),
             "reverse": bool(reverse)}
    return bind(Cumsum, (convert(x),), attrs, name=name)


def cumprod(x: TensorLike, axis: int = 0, exclusive: bool = False, reverse: bool = False,
            name: str | None = None) -> Tensor:
    """Cumulative product along ``axis`` (``tw.math.cumprod``).

    Args:
        x: a numeric tensor.
        axis: the axis to scan (an int; negative counts from the end).
        exclusive: exclude each element itself: [a, b, c] -> [1, a, a * b].
        reverse: scan from the end: [a, b, c] -> [a * b * c, b * c, c].
        name: op name in graph mode.

    Returns:
        A tensor like ``x``.
    """
    attrs = {"axis": _static_axis(axis, "Cumprod"), "exclusive": bool(exclusive),
             "reverse": bool(reverse)}
    return bind(Cumprod, (convert(x),), attrs, name=name)


def clip_by_value(t: TensorLike, clip_value_min, clip_value_max, name: str | None = None) -> Tensor:
    """Clips ``t`` to [clip_value_min, clip_value_max] (``tw.clip_by_value``).

    The gradient reaches ``t`` where it lies inside the range (bounds included) and the bounds
    where they were applied.

    Args:
        t: a real tensor.
        clip_value_min: the lower bound (a scalar or a tensor broadcasting to t's shape).
        clip_value_max: the upper bound (likewise).
        name: op name in graph mode.

    Returns:
        The clipped tensor, of t's shape and dtype.
    """
    t = convert(t)
    lo = convert_pair(t, clip_value_min)[1]
    hi = convert_pair(t, clip_value_max)[1]
    return bind(ClipByValue, (t, lo, hi), name=name)


def clip_by_norm(t: TensorLike, clip_norm, axes=None, name: str | None = None) -> Tensor:
    """Rescales ``t`` so that its L2 norm over ``axes`` is at most ``clip_norm``.

    As ``tf.clip_by_norm``: t * clip_norm / max(l2norm(t), clip_norm), with a zero-norm tensor
    left as is (and a finite gradient there).

    Args:
        t: a floating-point tensor.
        clip_norm: a positive scalar.
        axes: the axes over which the norm is taken (None: all).
        name: op name in graph mode.

    Returns:
        The clipped tensor.
    """
    t = convert(t)
    clip_norm = convert_pair(t, clip_norm)[1]
    l2sum = reduction_ops.reduce_sum(multiply(t, t), axes, keepdims=True)
    pred = greater(l2sum, 0)
    # sqrt is not differentiable at 0: take it only where the sum is positive
    l2sum_safe = where(pred, l2sum, ones_like(l2sum))
    l2norm = where(pred, sqrt(l2sum_safe), l2sum)
    return realdiv(multiply(t, clip_norm), maximum(l2norm, clip_norm), name=name)


def global_norm(t_list, name: str | None = None) -> Tensor:
    """sqrt(sum of the squared L2 norms of the tensors in ``t_list``) (``tw.linalg.global_norm``).

    Args:
        t_list: tensors (None entries are skipped).
        name: op name in graph mode.

    Returns:
        A scalar of the first tensor's dtype.
    """
    ts = [convert(t) for t in t_list if t is not None]
    if not ts:
        raise ValueError("global_norm needs at least one tensor")
    dtype = ts[0].dtype
    sums = [cast(reduction_ops.reduce_sum(multiply(t, t)), dtype) for t in ts]
    return sqrt(add_n(sums), name=name)


def clip_by_global_norm(t_list, clip_norm, use_norm=None,
                        name: str | None = None) -> tuple[list[Tensor], Tensor]:
    """Scales tensors so that their global norm is at most ``clip_norm`` (TensorFlow's rule).

    Args:
        t_list: tensors (None entries stay None).
        clip_norm: a positive scalar.
        use_norm: the global norm to use (computed from t_list if None).
        name: unused; for TensorFlow compatibility.

    Returns:
        (list of clipped tensors, the global norm).
    """
    t_list = list(t_list)
    if use_norm is None:
        use_norm = global_norm(t_list)
    use_norm = convert(use_norm)
    clip_norm = cast(convert_pair(use_norm, clip_norm)[1], use_norm.dtype)
    scale = multiply(clip_norm, minimum(reciprocal(use_norm), reciprocal(clip_norm)))
    out = []
    for t in t_list:
        if t is None:
            out.append(None)
            continue
        t = convert(t)
        out.append(multiply(t, cast(scale, t.dtype)))
    return out, use_norm


def cast(x: TensorLike, dtype: DTypeLike, name: str | None = None) -> Tensor:
    """Casts ``x`` to ``dtype`` (``tw.cast``).

    Args:
        x: a tensor or value.
        dtype: the target dtype.
        name: op name.

    Returns:
        The cast tensor (``x`` itself if it already has that dtype).
    """
    x = convert(x)
    dtype = dtypes.as_dtype(dtype)
    if x.dtype is dtype:
        return x
    return bind(Cast, (x,), {"DstT": dtype}, name=name)


__all__ = [
    # arithmetic
    "add", "subtract", "multiply", "scalar_mul", "add_n", "truediv", "divide", "realdiv",
    "div_no_nan", "divide_no_nan", "reciprocal_no_nan", "floordiv", "floor_div", "floormod",
    "mod", "truncatediv", "truncatemod", "pow", "maximum", "minimum", "squared_difference",
    "negative", "abs", "sign", "square", "reciprocal", "sqrt", "rsqrt", "xlogy", "xdivy",
    "mul_no_nan", "multiply_no_nan", "accumulate_n", "polyval",
    # transcendental
    "exp", "expm1", "log", "log1p", "sigmoid", "log_sigmoid", "erf", "erfc",
    "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh",
    "asinh", "acosh", "atanh",
    # rounding, complex parts, casts
    "floor", "ceil", "round", "rint", "conj", "real", "imag", "complex", "cast",
    # comparisons, logic, bits, selection
    "equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
    "logical_and", "logical_or", "logical_not", "logical_xor",
    "bitwise_and", "bitwise_or", "bitwise_xor", "invert",
    "is_nan", "is_inf", "is_finite", "where",
    # scans and clipping
    "cumsum", "cumprod", "clip_by_value", "clip_by_norm", "clip_by_global_norm", "global_norm",
    "TensorShape",
]
