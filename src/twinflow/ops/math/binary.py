"""Elementwise binary arithmetic: +, -, *, /, //, %, pow, max/min and friends.

One ``Binary`` row per op (``elementwise.py`` explains the table); ``AddN`` (N inputs) is a
class. ``add``/``subtract``/``multiply`` are ``fast`` rows: like ``x + y``, they skip argument
conversion for two eager tensors (``bind_binary``), which gradient rules use a lot.
"""
from __future__ import annotations

import operator

import numpy as np

from ...core import dtypes
from ...core.errors import InvalidArgumentError
from ...eager.execute import bind
from ...graph.graph import name_scoped
from ...graph.registry import register_op
from ...graph.tensor import ShapeLike, Tensor, TensorLike
from .. import fast_elementwise as fe
from ..array.create import ones_like, zeros_like
from ..array.shape import sum_to
from ..core import convert, convert_n, convert_pair, quietly
from .cast import Cast, cast
from .comparison import greater, greater_equal, less_equal, not_equal, where
from .elementwise import (
    FLOAT,
    INEXACT,
    INT,
    NUMERIC,
    REAL,
    Binary,
    binary_kernel,
    check_int_divisor,
    declare,
    public_functions,
)
from .unary import _c, log, negative, square


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


# ----- kernels and gradient rules the table uses -------------------------------------------

def _zero_where_zero(fn, of_x: bool):
    """A kernel: ``fn(x, y)`` without NumPy's warnings, but 0 where x (``of_x``) or y is 0."""
    def kernel(x, y):
        out = quietly(fn, x, y)
        return np.where((x if of_x else y) == 0, out.dtype.type(0), out)
    return kernel


_div_no_nan_kernel = _zero_where_zero(np.true_divide, of_x=False)


def _floordiv_kernel(x, y):
    check_int_divisor("FloorDiv", y)
    return np.floor_divide(x, y)


def _floormod_kernel(x, y):
    check_int_divisor("FloorMod", y)
    return np.mod(x, y)


def _truncatediv_kernel(x, y):
    if x.dtype.kind in INT:
        check_int_divisor("TruncateDiv", y)
        q = np.floor_divide(x, y)
        # floor and truncation differ when the signs differ and the division is inexact
        fix = (np.mod(x, y) != 0) & ((x < 0) != (y < 0))
        return (q + fix.astype(q.dtype)).astype(q.dtype, copy=False)
    return np.trunc(np.true_divide(x, y))


def _truncatemod_kernel(x, y):
    check_int_divisor("TruncateMod", y)
    return np.fmod(x, y)


def _squared_difference_kernel(x, y):
    d = np.subtract(x, y)
    return d * np.conj(d) if d.dtype.kind == "c" else d * d


_xlogy_kernel = _zero_where_zero(lambda a, b: np.multiply(a, np.log(b)), of_x=True)
_xdivy_kernel = _zero_where_zero(np.true_divide, of_x=True)
_mul_no_nan_kernel = _zero_where_zero(np.multiply, of_x=False)


def _add_v2_grad(op, dy):
    x, y = op.inputs
    need_x, need_y = op.needs_grad
    return sum_to(dy, x) if need_x else None, sum_to(dy, y) if need_y else None


def _sub_grad(op, dy):
    x, y = op.inputs
    need_x, need_y = op.needs_grad
    return (sum_to(dy, x) if need_x else None,
            sum_to(negative(dy), y) if need_y else None)


def _mul_grad(op, dy):
    x, y = op.inputs
    need_x, need_y = op.needs_grad
    return (sum_to(multiply(dy, _c(y)), x) if need_x else None,
            sum_to(multiply(_c(x), dy), y) if need_y else None)


def _real_div_grad(op, dy):
    x, y = op.inputs
    need_x, need_y = op.needs_grad
    gx = sum_to(realdiv(dy, _c(y)), x) if need_x else None
    gy = sum_to(multiply(dy, _c(realdiv(realdiv(negative(x), y), y))), y) if need_y else None
    return gx, gy


def _div_no_nan_grad(op, dy):
    x, y = op.inputs
    gx = div_no_nan(dy, _c(y))
    gy = multiply(dy, _c(div_no_nan(div_no_nan(negative(x), y), y)))
    return sum_to(gx, x), sum_to(gy, y)


def _floor_mod_grad(op, dy):
    x, y = op.inputs
    return sum_to(dy, x), sum_to(multiply(dy, negative(floordiv(x, y))), y)


def _truncate_mod_grad(op, dy):
    x, y = op.inputs
    return sum_to(dy, x), sum_to(multiply(dy, negative(truncatediv(x, y))), y)


def _pow_grad(op, dy):
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


def _extremum_grad(takes_x):
    """The gradient of Maximum (``takes_x`` greater_equal) or Minimum (less_equal): dy goes to
    x where ``takes_x(x, y)`` (ties to x, as TensorFlow does), else to y."""
    def grad(op, dy):
        x, y = op.inputs
        need_x, need_y = op.needs_grad
        mask = takes_x(x, y)
        zeros = zeros_like(dy)
        return (sum_to(where(mask, dy, zeros), x) if need_x else None,
                sum_to(where(mask, zeros, dy), y) if need_y else None)
    return grad


_maximum_grad, _minimum_grad = _extremum_grad(greater_equal), _extremum_grad(less_equal)


def _against_zeros(ufunc):
    """The kernel of Maximum/Minimum: ``ufunc(x, y)``, but a large array against a 0-d +0
    (``tw.maximum(x, 0.0)``) is compared with cached zeros, as ``Relu`` is: NumPy vectorises
    the array-array loop only (fast_elementwise), and gives the same bits. ``__wrapped__``
    names the ufunc for the compiler (fusion, scalar constants)."""
    plain = binary_kernel(ufunc, REAL)

    def kernel(x, y):
        # (cheapest tests first: small arrays pay ~0.1 µs; all bytes 0 is +0, not -0.0)
        if y.ndim == 0:
            if x.size >= fe.RELU_MIN_ELEMENTS and x.dtype == y.dtype \
                    and x.dtype in fe.RELU_DTYPES and not any(y.tobytes()):
                return ufunc(x, fe.zeros_for(x))
        elif x.ndim == 0 and y.size >= fe.RELU_MIN_ELEMENTS and x.dtype == y.dtype \
                and x.dtype in fe.RELU_DTYPES and not any(x.tobytes()):
            return ufunc(fe.zeros_for(y), y)
        return plain(x, y)
    kernel.__wrapped__ = ufunc
    return kernel


def _squared_difference_grad(op, dy):
    x, y = op.inputs
    need_x, need_y = op.needs_grad
    g = multiply(multiply(dy, 2), subtract(x, y))
    return sum_to(g, x) if need_x else None, sum_to(negative(g), y) if need_y else None


def _atan2_grad(op, dz):
    y, x = op.inputs
    scale = realdiv(dz, add(square(x), square(y)))
    return sum_to(multiply(scale, x), y), sum_to(multiply(negative(scale), y), x)


def _xlogy_grad(op, dy):
    x, y = op.inputs
    nonzero_x = cast(not_equal(x, 0), x.dtype)
    gx = multiply(dy, _c(xlogy(nonzero_x, y)))
    gy = multiply(dy, _c(xdivy(x, y)))
    return sum_to(gx, x), sum_to(gy, y)


def _xdivy_grad(op, dy):
    x, y = op.inputs
    nonzero_x = cast(not_equal(x, 0), x.dtype)
    gx = multiply(dy, _c(xdivy(nonzero_x, y)))
    gy = multiply(dy, _c(xdivy(negative(x), square(y))))
    return sum_to(gx, x), sum_to(gy, y)


def _mul_no_nan_grad(op, dy):
    x, y = op.inputs
    return sum_to(mul_no_nan(dy, y), x), sum_to(mul_no_nan(x, dy), y)


# ----- the table ------------------------------------------------------------------------------

BINARY = [
    Binary("AddV2", "add", np.add, None, raw=True, infix=operator.add, fast=True,
          doc="x + y, with broadcasting.",
          api=("Returns x + y elementwise, broadcasting (``tw.add``, ``tw.math.add``).",
               "a tensor or value.",
               "a tensor or value of the same dtype (Python scalars adopt x's dtype).", "The sum."),
          grad=_add_v2_grad),
    Binary("Sub", "subtract", np.subtract, None, raw=True, infix=operator.sub, fast=True,
          doc="x - y, with broadcasting.",
          api=("Returns x - y elementwise, broadcasting (``tw.subtract``).",
               "a tensor or value.", "a tensor or value of the same dtype.",
               "The difference."),
          grad=_sub_grad),
    Binary("Mul", "multiply", np.multiply, None, raw=True, infix=operator.mul, fast=True,
          doc="x * y, with broadcasting.",
          api=("Returns x * y elementwise, broadcasting (``tw.multiply``).",
               "a tensor or value.", "a tensor or value of the same dtype.",
               "The product."),
          grad=_mul_grad),
    Binary("RealDiv", "realdiv", np.true_divide, INEXACT, quiet=True,
          doc="x / y for floating-point and complex tensors, with broadcasting.",
          api=("x / y for floating-point or complex tensors of one dtype (``tw.realdiv``).",
               "a tensor or value.", "a tensor or value of the same dtype.", "The quotient."),
          grad=_real_div_grad),
    Binary("DivNoNan", "div_no_nan", _div_no_nan_kernel, INEXACT,
          doc="x / y, but 0 where y is 0.",
          api=("x / y, returning 0 where y is 0 (``tw.math.divide_no_nan``).",
               "a floating-point or complex tensor.", "a tensor of the same dtype.",
               "The safe quotient."),
          grad=_div_no_nan_grad),
    Binary("FloorDiv", "floordiv", _floordiv_kernel, REAL, quiet=True,
          doc="floor(x / y), with broadcasting; integer division by zero raises.",
          api=("floor(x / y) elementwise (``tw.math.floordiv``, the ``//`` operator).",
               "a real tensor or value.", "a tensor or value of the same dtype.",
               "The floored quotient, of the inputs' dtype.")),
    Binary("FloorMod", "floormod", _floormod_kernel, REAL, quiet=True,
          doc="x - floor(x / y) * y: the remainder with the sign of the divisor (Python's ``%``).",
          api=("x mod y with the sign of y (``tw.math.floormod``, ``tw.math.mod``, the ``%`` "
               "operator).", "a real tensor or value.", "a tensor or value of the same dtype.",
               "The remainder."),
          grad=_floor_mod_grad),
    Binary("TruncateDiv", "truncatediv", _truncatediv_kernel, REAL, quiet=True,
          doc="x / y rounded toward zero (C's integer division).",
          api=("x / y rounded toward zero (``tw.truncatediv``).", "a real tensor or value.",
               "a tensor or value of the same dtype.", "The truncated quotient.")),
    Binary("TruncateMod", "truncatemod", _truncatemod_kernel, REAL, quiet=True,
          doc="The remainder of truncating division: it has the sign of the dividend (C's ``%``).",
          api=("The remainder of truncating division, with the sign of x (``tw.truncatemod``).",
               "a real tensor or value.", "a tensor or value of the same dtype.", "The remainder."),
          grad=_truncate_mod_grad),
    Binary("Pow", "pow", np.power, NUMERIC, quiet=True,
          doc="x ** y, with broadcasting (integers to negative powers raise).",
          api=("x ** y elementwise (``tw.pow``, the ``**`` operator).", "a tensor or value.",
               "a tensor or value of the same dtype.", "The power."),
          grad=_pow_grad),
    Binary("Maximum", "maximum", _against_zeros(np.maximum), REAL, raw=True,
          doc="The larger of x and y, elementwise, with broadcasting.",
          api=("The elementwise maximum of x and y, broadcasting (``tw.maximum``).",
               "a real tensor or value.", "a tensor or value of the same dtype.", "max(x, y)."),
          grad=_maximum_grad),
    Binary("Minimum", "minimum", _against_zeros(np.minimum), REAL, raw=True,
          doc="The smaller of x and y, elementwise, with broadcasting.",
          api=("The elementwise minimum of x and y, broadcasting (``tw.minimum``).",
               "a real tensor or value.", "a tensor or value of the same dtype.", "min(x, y)."),
          grad=_minimum_grad),
    Binary("SquaredDifference", "squared_difference", _squared_difference_kernel, NUMERIC,
          doc="(x - y) * conj(x - y), with broadcasting.",
          api=("(x - y) ** 2 elementwise (``tw.math.squared_difference``).", "a tensor or value.",
               "a tensor or value of the same dtype.", "The squared difference."),
          grad=_squared_difference_grad),
    Binary("Atan2", None, np.arctan2, FLOAT,
          doc="atan(y / x) in the right quadrant, elementwise (inputs are y, x).",
          grad=_atan2_grad),
    Binary("Xlogy", "xlogy", _xlogy_kernel, INEXACT,
          doc="x * log(y), but 0 where x is 0 (even where y is 0).",
          api=("x * log(y), returning 0 where x is 0 (``tw.math.xlogy``).",
               "a floating-point or complex tensor.", "a tensor of the same dtype.",
               "The product."),
          grad=_xlogy_grad),
    Binary("Xdivy", "xdivy", _xdivy_kernel, INEXACT,
          doc="x / y, but 0 where x is 0 (even where y is 0).",
          api=("x / y, returning 0 where x is 0 (``tw.math.xdivy``).",
               "a floating-point or complex tensor.", "a tensor of the same dtype.",
               "The quotient."),
          grad=_xdivy_grad),
    Binary("MulNoNan", "mul_no_nan", _mul_no_nan_kernel, INEXACT,
          doc="x * y, but 0 where y is 0 (even where x is inf or nan).",
          api=("x * y, returning 0 where y is 0 even if x is inf or nan "
               "(``tw.math.multiply_no_nan``).",
               "a floating-point or complex tensor.", "a tensor of the same dtype.",
               "The product."),
          grad=_mul_no_nan_grad),
]
_OPS = declare(BINARY)
(AddV2, Sub, Mul, RealDiv, DivNoNan, FloorDiv, FloorMod, TruncateDiv, TruncateMod, Pow, Maximum,
 Minimum, SquaredDifference, Atan2, Xlogy, Xdivy, MulNoNan) = _OPS
(add, subtract, multiply, realdiv, div_no_nan, floordiv, floormod, truncatediv, truncatemod, pow,
 maximum, minimum, squared_difference, xlogy, xdivy,
 mul_no_nan) = public_functions(BINARY, _OPS, __name__)
# TensorFlow's other names for them
divide_no_nan, floor_div, mod, multiply_no_nan = div_no_nan, floordiv, floormod, mul_no_nan


# ----- public functions that do more than bind -------------------------------------------------

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


@name_scoped
def polyval(coeffs, x: TensorLike, name: str | None = None) -> Tensor:
    """Evaluates the polynomial coeffs[0] * x**(n-1) + ... + coeffs[n-1] (``tw.math.polyval``).

    Args:
        coeffs: a list of tensors or numbers, highest degree first.
        x: a tensor.

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


