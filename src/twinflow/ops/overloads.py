"""Python operators on tensors (``x + y``, ``a @ b``, ``t[1:, ::2]``...), declared to Tensor.

``x + y`` on two eager tensors is the hottest path in the library: it goes straight to ``bind``
without argument conversion.
"""
from __future__ import annotations

from ..core.shapes import broadcast_shapes
from ..eager.execute import bind, bind_binary, constant
from ..eager.tensor import EagerTensor
from ..graph.tensor import register_operators
from . import array_ops, linalg_ops, math_ops
from .core import convert_pair

_AddV2, _Sub, _Mul = math_ops.AddV2, math_ops.Sub, math_ops.Mul
_ET = EagerTensor


def _arithmetic(opdef) -> tuple:
    """``(x op y, y op x)`` for ``+``, ``-`` and ``*``: two eager tensors go straight to
    ``bind_binary``; anything else is converted first."""
    def forward(x, y):
        if type(y) is _ET and type(x) is _ET:
            return bind_binary(opdef, x, y)
        return bind(opdef, convert_pair(x, y))

    def reflected(y, x):
        return bind(opdef, convert_pair(x, y))
    return forward, reflected


_add, _radd = _arithmetic(_AddV2)
_sub, _rsub = _arithmetic(_Sub)
_mul, _rmul = _arithmetic(_Mul)


def _compare(opdef, x, y, unequal: bool):
    """``x == y`` / ``x != y`` as TensorFlow: elementwise, but shapes that cannot broadcast
    give a scalar False (True for !=) instead of an error, and mixed tensor dtypes raise."""
    try:
        x, y = convert_pair(x, y)
    except (TypeError, ValueError):
        return unequal
    if broadcast_shapes(x.shape, y.shape) is None:
        return constant(unequal)
    return bind(opdef, (x, y))


def _eq(x, y):
    if y is None:
        return False
    return _compare(math_ops.Equal, x, y, False)


def _ne(x, y):
    if y is None:
        return True
    return _compare(math_ops.NotEqual, x, y, True)


def _flip(fn):
    def reflected(y, x):
        return fn(x, y)
    return reflected


def _and(x, y):
    x, y = convert_pair(x, y)
    return math_ops.logical_and(x, y) if x.dtype.is_bool else math_ops.bitwise_and(x, y)


def _or(x, y):
    x, y = convert_pair(x, y)
    return math_ops.logical_or(x, y) if x.dtype.is_bool else math_ops.bitwise_or(x, y)


def _xor(x, y):
    x, y = convert_pair(x, y)
    return math_ops.logical_xor(x, y) if x.dtype.is_bool else math_ops.bitwise_xor(x, y)


def _invert(x):
    return math_ops.logical_not(x) if x.dtype.is_bool else math_ops.invert(x)


def _install() -> None:
    table = {
        "__add__": _add, "__radd__": _radd,
        "__sub__": _sub, "__rsub__": _rsub,
        "__mul__": _mul, "__rmul__": _rmul,
        "__truediv__": lambda x, y: math_ops.truediv(x, y),
        "__rtruediv__": lambda y, x: math_ops.truediv(x, y),
        "__floordiv__": lambda x, y: math_ops.floordiv(x, y),
        "__rfloordiv__": lambda y, x: math_ops.floordiv(x, y),
        "__mod__": lambda x, y: math_ops.floormod(x, y),
        "__rmod__": lambda y, x: math_ops.floormod(x, y),
        "__pow__": lambda x, y: math_ops.pow(x, y),
        "__rpow__": lambda y, x: math_ops.pow(x, y),
        "__matmul__": linalg_ops.matmul,
        "__rmatmul__": lambda y, x: linalg_ops.matmul(x, y),
        "__neg__": lambda x: math_ops.negative(x),
        "__pos__": lambda x: x,
        "__abs__": lambda x: math_ops.abs(x),
        "__invert__": _invert,
        "__and__": _and, "__rand__": _flip(_and),
        "__or__": _or, "__ror__": _flip(_or),
        "__xor__": _xor, "__rxor__": _flip(_xor),
        "__lt__": lambda x, y: math_ops.less(x, y),
        "__le__": lambda x, y: math_ops.less_equal(x, y),
        "__gt__": lambda x, y: math_ops.greater(x, y),
        "__ge__": lambda x, y: math_ops.greater_equal(x, y),
        "__eq__": _eq,
        "__ne__": _ne,
        "__getitem__": lambda x, key: array_ops.slice_helper(x, key),
    }
    # (Setting __eq__ after the class is made leaves Tensor.__hash__ in place: tensors stay
    # unhashable with TensorFlow's message; graph/tensor.py lets TF1 graph tensors hash.)
    register_operators(table)


_install()
