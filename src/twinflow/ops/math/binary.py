"""Elementwise binary arithmetic: +, -, *, /, //, %, pow, max/min and friends."""
from __future__ import annotations

import operator

import numpy as np

from ...eager.execute import bind_binary
from ...eager.tensor import EagerTensor as _ET
from ...graph.tensor import ShapeLike, TensorLike
from ..array.create import ones_like, zeros_like
from ..array.shape import sum_to
from ..core import (
    InvalidArgumentError,
    Tensor,
    binary_infer,
    bind,
    convert,
    convert_n,
    convert_pair,
    dtypes,
    quietly,
    register_op,
)
from .cast import Cast, cast
from .comparison import greater, greater_equal, less_equal, not_equal, where
from .elementwise import (
    _FLOAT,
    _INEXACT,
    _INT,
    _NUMERIC,
    _REAL,
    _binary,
    _check_int_divisor,
    _lower_to,
    _no_grad,
)
from .unary import _c, log, negative, square


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


