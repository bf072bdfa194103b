"""Linear algebra: matmul (with transposes and batch dims), tensordot, einsum."""
from __future__ import annotations

import numpy as np

from ..core.shapes import broadcast_shapes
from . import math_ops
from .array_ops import sum_to
from .core import InvalidArgumentError, TensorShape, bind, convert, register_op


def _matmul_infer(a, b, *, transpose_a=False, transpose_b=False):
    if a.shape.rank is None or b.shape.rank is None:
        return a.dtype, TensorShape(None)
    if a.shape.rank < 2 or b.shape.rank < 2:
        raise InvalidArgumentError(
            None, None, f"In[0] and In[1] must have rank >= 2, got shapes "
            f"{a.shape.as_list()} and {b.shape.as_list()}")
    ad, bd = a.shape.as_list(), b.shape.as_list()
    m, ka = (ad[-1], ad[-2]) if transpose_a else (ad[-2], ad[-1])
    kb, n = (bd[-1], bd[-2]) if transpose_b else (bd[-2], bd[-1])
    if ka is not None and kb is not None and ka != kb:
        raise InvalidArgumentError(
            None, None, f"Matrix size-incompatible: In[0]: {ad}, In[1]: {bd} (contracting "
            f"dimension {ka} != {kb}; transpose_a={transpose_a}, transpose_b={transpose_b})")
    batch = broadcast_shapes(TensorShape(ad[:-2]), TensorShape(bd[:-2]))
    if batch is None:
        raise InvalidArgumentError(None, None, f"Incompatible batch dimensions: In[0]: {ad}, "
                                               f"In[1]: {bd}")
    return a.dtype, TensorShape(batch.as_list() + [m, n])


def _t(x, flag):
    return np.swapaxes(x, -1, -2) if flag else x


@register_op("MatMul", same_dtype=True)
class MatMul:
    """Matrix product of the last two dims, optionally transposing either (batch dims broadcast).
    """

    infer = _matmul_infer

    def kernel(a, b, *, transpose_a=False, transpose_b=False):
        return np.matmul(_t(a, transpose_a), _t(b, transpose_b))

    def grad(op, dy):
        a, b = op.inputs
        ta, tb = op.attrs["transpose_a"], op.attrs["transpose_b"]
        if not ta and not tb:
            da, db = matmul(dy, b, transpose_b=True), matmul(a, dy, transpose_a=True)
        elif not ta and tb:
            da, db = matmul(dy, b), matmul(dy, a, transpose_a=True)
        elif ta and not tb:
            da, db = matmul(b, dy, transpose_b=True), matmul(a, dy)
        else:
            da, db = matmul(b, dy, transpose_a=True, transpose_b=True), matmul(
                dy, a, transpose_a=True, transpose_b=True)
        return sum_to(da, a), sum_to(db, b)


def matmul(a, b, transpose_a=False, transpose_b=False, adjoint_a=False, adjoint_b=False,
           a_is_sparse=False, b_is_sparse=False, output_type=None, name=None):
    """Matrix product ``a @ b`` (``tw.matmul``, ``tw.linalg.matmul``).

    Args:
        a: a tensor of rank >= 2.
        b: a tensor of rank >= 2 and the same dtype.
        transpose_a: transpose the last two dims of ``a`` first.
        transpose_b: transpose the last two dims of ``b`` first.
        adjoint_a: conjugate-transpose ``a`` first.
        adjoint_b: conjugate-transpose ``b`` first.
        a_is_sparse: accepted for compatibility; ignored.
        b_is_sparse: accepted for compatibility; ignored.
        output_type: accepted for compatibility; must be None or the input dtype.
        name: op name.

    Returns:
        The product; batch dims broadcast.
    """
    a = convert(a)
    b = convert(b, dtype=a.dtype) if not hasattr(b, "dtype") else convert(b)
    if adjoint_a:
        a = _conj(a)
    if adjoint_b:
        b = _conj(b)
    attrs = {"transpose_a": bool(transpose_a or adjoint_a),
             "transpose_b": bool(transpose_b or adjoint_b)}
    return bind(MatMul, (a, b), attrs, name=name)


def _conj(x):
    if not x.dtype.is_complex:
        return x
    return math_ops.conj(x)


__all__ = ["matmul"]
