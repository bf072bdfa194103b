"""Matrix functions: trace, diag_part, band_part, inverse, determinant, solve, cholesky,
transposes."""
from __future__ import annotations

import numpy as np

from ...core.errors import InvalidArgumentError
from ...core.shapes import TensorShape, broadcast_shapes
from ...eager.execute import bind
from ...graph.registry import register_op
from ...graph.tensor import Tensor, TensorLike
from ..array.shape import sum_to
from ..core import convert
from ..math.binary import add, multiply
from ..math.cast import cast
from ..math.unary import negative
from .products import _conj, _t, einsum, matmul


def trace(x: TensorLike, name: str | None = None) -> Tensor:
    """Sum of the main diagonal of the innermost matrices (``tw.linalg.trace``).

    Args:
        x: a tensor of rank >= 2.
        name: op name.

    Returns:
        A tensor of shape ``x.shape[:-2]``.
    """
    return einsum("...ii->...", x, name=name)


def diag_part(input: TensorLike, name: str = "diag_part", k=0, padding_value=0,
              align="RIGHT_LEFT") -> Tensor:
    """The main diagonal of the innermost matrices (``tw.linalg.diag_part``; k=0 only).

    Args:
        input: a tensor of rank >= 2.
        name: op name.
        k: the diagonal offset; only 0 is supported.
        padding_value: ignored for k=0.
        align: ignored for k=0.

    Returns:
        A tensor of shape ``input.shape[:-2] + [min(M, N)]``.
    """
    if k != 0:
        raise NotImplementedError("tw.linalg.diag_part supports only k=0")
    x = convert(input)
    shape = x.shape
    if shape.rank is not None and shape[-1] is not None and shape[-2] is not None and \
            shape[-1] != shape[-2]:
        n = min(shape[-1], shape[-2])
        raise InvalidArgumentError(None, None, f"diag_part of non-square matrices (shape "
                                               f"{shape.as_list()}, diagonal {n}) is not "
                                               "supported [Op:MatrixDiagPartV3]")
    return einsum("...ii->...i", x, name=None if name == "diag_part" else name)


# ----- band_part --------------------------------------------------------------------------------


def _band_mask(shape, lower: int, upper: int):
    m, n = shape[-2], shape[-1]
    i = np.arange(m)[:, None]
    j = np.arange(n)[None, :]
    return ((lower < 0) | (i - j <= lower)) & ((upper < 0) | (j - i <= upper))


@register_op("MatrixBandPart")
class MatrixBandPart:
    """Keeps the band of ``num_lower`` sub- and ``num_upper`` super-diagonals (-1: all)."""

    def infer(x, *, num_lower, num_upper):
        if x.shape.rank is not None and x.shape.rank < 2:
            raise InvalidArgumentError(None, None, f"band_part needs rank >= 2, got shape "
                                                   f"{x.shape.as_list()}")
        return x.dtype, x.shape

    def kernel(x, *, num_lower, num_upper):
        return np.where(_band_mask(x.shape, num_lower, num_upper), x,
                        np.zeros((), x.dtype)).astype(x.dtype, copy=False)

    def grad(op, dy):
        return bind(MatrixBandPart, [dy], op.attrs)


def band_part(input: TensorLike, num_lower, num_upper, name: str | None = None) -> Tensor:
    """Zeroes everything outside a band of each innermost matrix (``tw.linalg.band_part``).

    Args:
        input: a tensor of rank >= 2.
        num_lower: the number of sub-diagonals to keep (negative: all).
        num_upper: the number of super-diagonals to keep (negative: all).
        name: op name.

    Returns:
        The banded tensor.
    """
    x = convert(input)
    return bind(MatrixBandPart, [x], {"num_lower": int(num_lower), "num_upper": int(num_upper)},
                name=name)


# ----- inverse, determinant, solve, cholesky ----------------------------------------------------


def _square_infer(name: str):
    def infer(x, **attrs):
        if not (x.dtype.is_floating or x.dtype.is_complex):
            raise InvalidArgumentError(None, None, f"{name} needs a float or complex tensor, "
                                                   f"got {x.dtype.name}")
        s = x.shape
        if s.rank is not None:
            if s.rank < 2:
                raise InvalidArgumentError(None, None, f"{name}: input must have rank >= 2, "
                                                       f"got shape {s.as_list()}")
            if s[-1] is not None and s[-2] is not None and s[-1] != s[-2]:
                raise InvalidArgumentError(None, None, f"{name}: input must be square "
                                                       f"matrices, got shape {s.as_list()}")
        return x.dtype, s
    return infer


@register_op("MatrixInverse")
class MatrixInverse:
    """Inverse of each innermost square matrix (``adjoint``: of its conjugate transpose)."""

    infer = _square_infer("matrix inverse")

    def kernel(x, *, adjoint=False):
        inv = np.linalg.inv(x)
        return np.conj(_t(inv, True)) if adjoint else inv

    def grad(op, dy):
        ainv = op.outputs[0]
        if op.attrs["adjoint"]:
            # d(A^-H) = -A^-H dA^H A^-H
            return negative(matmul(matmul(ainv, dy, adjoint_b=True), ainv))
        return negative(matmul(matmul(ainv, dy, adjoint_a=True), ainv,
                                        adjoint_b=True))


def inv(input: TensorLike, adjoint: bool = False, name: str | None = None) -> Tensor:
    """Inverse of each innermost square matrix (``tw.linalg.inv``).

    Args:
        input: a float or complex tensor of shape ``[..., M, M]``.
        adjoint: invert the conjugate transpose instead.
        name: op name.

    Returns:
        The inverses; a singular matrix raises InvalidArgumentError.
    """
    return bind(MatrixInverse, [convert(input)], {"adjoint": bool(adjoint)}, name=name)


def _det_infer(x):
    dtype, s = _square_infer("det")(x)
    return dtype, TensorShape(None) if s.rank is None else TensorShape(s.as_list()[:-2])


@register_op("MatrixDeterminant")
class MatrixDeterminant:
    """Determinant of each innermost square matrix."""

    infer = _det_infer

    def kernel(x):
        return np.asarray(np.linalg.det(x), dtype=x.dtype)[()]

    def grad(op, dy):
        a, det = op.inputs[0], op.outputs[0]
        # d det / dA = det * A^-T, scaled per matrix by dy.
        scale = _conj(multiply(dy, det)) if a.dtype.is_complex else \
            multiply(dy, det)
        return einsum("...,...ji->...ij", scale, inv(a))


def det(input: TensorLike, name: str | None = None) -> Tensor:
    """Determinant of each innermost square matrix (``tw.linalg.det``).

    Args:
        input: a float or complex tensor of shape ``[..., M, M]``.
        name: op name.

    Returns:
        A tensor of shape ``[...]``.
    """
    return bind(MatrixDeterminant, [convert(input)], name=name)


def _solve_infer(a, b, *, adjoint=False):
    _square_infer("solve")(a)
    if a.shape.rank is not None and b.shape.rank is not None:
        if b.shape.rank < 2 or b.shape.rank != a.shape.rank:
            raise InvalidArgumentError(None, None, f"solve: rhs must have the rank of matrix "
                                                   f"(>= 2), got shapes {a.shape.as_list()} and "
                                                   f"{b.shape.as_list()}")
        m, mb = a.shape[-1], b.shape[-2]
        if m is not None and mb is not None and m != mb:
            raise InvalidArgumentError(None, None, f"solve: matrix and rhs sizes differ: "
                                                   f"{a.shape.as_list()} vs {b.shape.as_list()}")
        batch = broadcast_shapes(TensorShape(a.shape.as_list()[:-2]),
                                 TensorShape(b.shape.as_list()[:-2]))
        if batch is None:
            raise InvalidArgumentError(None, None, f"solve: incompatible batch dims: "
                                                   f"{a.shape.as_list()} vs {b.shape.as_list()}")
        return a.dtype, TensorShape(batch.as_list() + [a.shape[-1], b.shape[-1]])
    return a.dtype, TensorShape(None)


@register_op("MatrixSolve", same_dtype=True)
class MatrixSolve:
    """Solves ``A X = B`` (``adjoint``: ``A^H X = B``) for each innermost matrix."""

    infer = _solve_infer

    def kernel(a, b, *, adjoint=False):
        if adjoint:
            a = np.conj(_t(a, True))
        return np.linalg.solve(a, b).astype(b.dtype, copy=False)

    def grad(op, dy):
        a, b = op.inputs
        x = op.outputs[0]
        adj = op.attrs["adjoint"]
        db = bind(MatrixSolve, [a, dy], {"adjoint": not adj})
        if adj:
            da = negative(matmul(x, db, adjoint_b=True))
        else:
            da = negative(matmul(db, x, adjoint_b=True))
        return sum_to(da, a), sum_to(db, b)


def solve(matrix: TensorLike, rhs: TensorLike, adjoint: bool = False,
          name: str | None = None) -> Tensor:
    """Solves linear systems (``tw.linalg.solve``).

    Args:
        matrix: ``[..., M, M]``.
        rhs: ``[..., M, K]`` of the same dtype.
        adjoint: solve with the conjugate transpose of ``matrix``.
        name: op name.

    Returns:
        ``X`` of shape ``[..., M, K]`` with ``matrix @ X = rhs``.
    """
    a = convert(matrix)
    b = convert(rhs, dtype=a.dtype) if not hasattr(rhs, "dtype") else convert(rhs)
    return bind(MatrixSolve, [a, b], {"adjoint": bool(adjoint)}, name=name)


@register_op("CholeskyGradMiddle")
class CholeskyGradMiddle:
    """The lower triangle of ``x`` with its diagonal halved (a linear, self-adjoint mask used
    by the Cholesky gradient)."""

    def infer(x):
        return x.dtype, x.shape

    def kernel(x):
        m = np.tril(np.ones(x.shape[-2:], dtype=x.dtype))
        np.fill_diagonal(m, 0.5)
        return (x * m).astype(x.dtype, copy=False)

    def grad(op, dy):
        return bind(CholeskyGradMiddle, [dy])


@register_op("Cholesky")
class Cholesky:
    """Lower Cholesky factor of each innermost Hermitian positive-definite matrix (reads the
    lower triangle)."""

    infer = _square_infer("cholesky")

    def kernel(x):
        return np.linalg.cholesky(x).astype(x.dtype, copy=False)

    def grad(op, dy):
        l_ = op.outputs[0]
        l_inv = inv(l_)
        middle = bind(CholeskyGradMiddle, [matmul(l_, dy, adjoint_a=True)])
        g = matmul(matmul(l_inv, middle, adjoint_a=True), l_inv)
        g = add(g, _conj(_swap_last(g)))
        return multiply(g, cast(0.5, g.dtype))


def _swap_last(x) -> Tensor:
    return einsum("...ij->...ji", x)


def matrix_transpose(a: TensorLike, name: str = "matrix_transpose",
                     conjugate: bool = False) -> Tensor:
    """Swaps the last two dims (``tw.linalg.matrix_transpose``).

    Args:
        a: a tensor of rank >= 2.
        name: op name.
        conjugate: also conjugate (complex inputs).

    Returns:
        The transposed tensor.
    """
    x = convert(a)
    if conjugate:
        x = _conj(x)
    return einsum("...ij->...ji", x, name=None if name == "matrix_transpose" else name)


def adjoint(matrix: TensorLike, name: str | None = None) -> Tensor:
    """Conjugate transpose of the innermost matrices (``tw.linalg.adjoint``).

    Args:
        matrix: a tensor of rank >= 2.
        name: op name.

    Returns:
        The adjoint.
    """
    return matrix_transpose(matrix, name=name or "matrix_transpose", conjugate=True)


def cholesky(input: TensorLike, name: str | None = None) -> Tensor:
    """Cholesky factorization (``tw.linalg.cholesky``).

    Args:
        input: ``[..., M, M]`` Hermitian positive-definite matrices (only the lower triangle is
            read).
        name: op name.

    Returns:
        The lower-triangular factors ``L`` with ``L @ L^H = input``.
    """
    return bind(Cholesky, [convert(input)], name=name)


