"""Elementwise math: arithmetic, transcendental functions, comparisons, logic, casts."""
from __future__ import annotations

import numpy as np

from .array_ops import sum_to
from .core import (
    InvalidArgumentError,
    TensorShape,
    binary_infer,
    bind,
    check_float,
    convert,
    convert_n,
    convert_pair,
    dtypes,
    register_op,
    unary_infer,
)

# ----- binary arithmetic ------------------------------------------------------------------------

@register_op("AddV2", same_dtype=True)
class AddV2:
    """x + y, with broadcasting."""

    infer = binary_infer
    kernel = np.add

    def grad(op, dy):
        x, y = op.inputs
        return sum_to(dy, x), sum_to(dy, y)


@register_op("Sub", same_dtype=True)
class Sub:
    """x - y, with broadcasting."""

    infer = binary_infer
    kernel = np.subtract

    def grad(op, dy):
        x, y = op.inputs
        return sum_to(dy, x), sum_to(negative(dy), y)


@register_op("Mul", same_dtype=True)
class Mul:
    """x * y, with broadcasting."""

    infer = binary_infer
    kernel = np.multiply

    def grad(op, dy):
        x, y = op.inputs
        return sum_to(multiply(dy, y), x), sum_to(multiply(dy, x), y)


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


# ----- unary ------------------------------------------------------------------------------------

@register_op("Neg")
class Neg:
    """-x."""

    infer = unary_infer
    kernel = np.negative

    def grad(op, dy):
        return negative(dy)


def _float_unary_infer(x):
    check_float("Exp", x)
    return x.dtype, x.shape


@register_op("Exp")
class Exp:
    """e ** x."""

    infer = _float_unary_infer
    kernel = np.exp

    def grad(op, dy):
        return multiply(dy, op.outputs[0])


@register_op("Cast")
class Cast:
    """Converts ``x`` to ``DstT``; complex -> real keeps the real part, float -> int truncates."""

    def infer(x, *, DstT):
        return DstT, x.shape

    def kernel(x, *, DstT):
        if np.iscomplexobj(x) and DstT.np.kind != "c":
            x = np.real(x)
        return np.asarray(x).astype(DstT.np)

    def grad(op, dy):
        src = op.inputs[0].dtype
        if not (src.is_floating or src.is_complex) or not dy.dtype.is_differentiable:
            return None
        return cast(dy, src)


# ----- public functions -------------------------------------------------------------------------

def add(x, y, name=None):
    """Returns x + y elementwise, broadcasting (``tw.add``, ``tw.math.add``).

    Args:
        x: a tensor or value.
        y: a tensor or value of the same dtype (Python scalars adopt x's dtype).
        name: op name in graph mode.

    Returns:
        The sum.
    """
    x, y = convert_pair(x, y)
    return bind(AddV2, (x, y), name=name)


def subtract(x, y, name=None):
    """Returns x - y elementwise, broadcasting."""
    x, y = convert_pair(x, y)
    return bind(Sub, (x, y), name=name)


def multiply(x, y, name=None):
    """Returns x * y elementwise, broadcasting."""
    x, y = convert_pair(x, y)
    return bind(Mul, (x, y), name=name)


def add_n(inputs, name=None):
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


def negative(x, name=None):
    """Returns -x elementwise."""
    return bind(Neg, (convert(x),), name=name)


def exp(x, name=None):
    """Returns e ** x elementwise (float or complex)."""
    return bind(Exp, (convert(x),), name=name)


def cast(x, dtype, name=None):
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


__all__ = ["add", "add_n", "subtract", "multiply", "negative", "exp", "cast", "TensorShape"]
