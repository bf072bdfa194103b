"""``tw.linalg`` functions composed of other ops (their gradients come from those ops): logdet,
cholesky_solve, lstsq, matrix_rank, cross, normalize, diag/set_diag, tensor_diag(_part); and
pinv, an op of its own with the pseudo-inverse's closed-form gradient."""
from __future__ import annotations

import numpy as np

from ..core import dtypes
from ..core.errors import InvalidArgumentError
from ..core.shapes import TensorShape
from ..eager.execute import bind
from ..graph.graph import name_scoped
from ..graph.registry import register_op
from ..graph.tensor import Tensor, TensorLike
from . import math_ops
from .array_ops import expand_dims, eye, reshape, shape, stack, unstack
from .core import convert
from .linalg_decomp import svd, triangular_solve
from .linalg_ops import adjoint, cholesky, diag_part, einsum, matmul
from .reduction_ops import norm, reduce_max, reduce_sum


def _err(msg: str) -> InvalidArgumentError:
    return InvalidArgumentError(None, None, msg)


@name_scoped
def logdet(matrix: TensorLike, name: str | None = None) -> Tensor:
    """log(det(matrix)) of Hermitian positive-definite matrices, via Cholesky
    (``tw.linalg.logdet``).

    Args:
        matrix: ``[..., M, M]`` Hermitian positive-definite.

    Returns:
        ``2 * sum(log(diag(cholesky(matrix))))``, ``[...]`` (real).
    """
    chol = cholesky(matrix)
    d = diag_part(chol)
    if d.dtype.is_complex:
        d = math_ops.real(d)
    return math_ops.multiply(reduce_sum(math_ops.log(d), axis=-1), math_ops.cast(2, d.dtype))


@name_scoped
def cholesky_solve(chol: TensorLike, rhs: TensorLike, name: str | None = None) -> Tensor:
    """Solves ``A X = rhs`` given ``chol``, the Cholesky factor of ``A``
    (``tw.linalg.cholesky_solve``).

    Args:
        chol: ``[..., M, M]`` lower-triangular factors (``A = chol @ adjoint(chol)``).
        rhs: ``[..., M, K]``.

    Returns:
        ``X`` ``[..., M, K]``.
    """
    y = triangular_solve(chol, rhs, lower=True, adjoint=False)
    return triangular_solve(chol, y, lower=True, adjoint=True)


@name_scoped
def lstsq(matrix: TensorLike, rhs: TensorLike, l2_regularizer=0.0, fast: bool = True,
          name: str | None = None) -> Tensor:
    """Regularized least squares via the normal equations (``tw.linalg.lstsq``, fast path).

    Args:
        matrix: ``[..., M, N]`` of full rank.
        rhs: ``[..., M, K]``.
        l2_regularizer: the ridge term ``lambda`` (a Python float).
        fast: must be True: the slower complete-orthogonal-decomposition path is not
            implemented (a clear error says so).

    Returns:
        ``X`` ``[..., N, K]`` minimizing ``|matrix X - rhs|^2 + lambda |X|^2`` (for M < N the
        minimum-norm solution).
    """
    if not fast:
        raise NotImplementedError("tw.linalg.lstsq: fast=False (the complete orthogonal "
                                  "decomposition path) is not supported; use fast=True")
    a = convert(matrix)
    b = convert(rhs, dtype=a.dtype)
    m, n = a.shape[-2], a.shape[-1]
    lam = float(l2_regularizer)
    if m is None or n is None:
        raise _err(f"lstsq needs static matrix dims, got shape {a.shape.as_list()}")
    if m >= n:
        gram = matmul(a, a, adjoint_a=True)
        if lam:
            gram = gram + eye(n, dtype=a.dtype) * math_ops.cast(lam, a.dtype)
        return cholesky_solve(cholesky(gram), matmul(a, b, adjoint_a=True))
    gram = matmul(a, a, adjoint_b=True)
    if lam:
        gram = gram + eye(m, dtype=a.dtype) * math_ops.cast(lam, a.dtype)
    return matmul(a, cholesky_solve(cholesky(gram), b), adjoint_a=True)


@name_scoped
def matrix_rank(a: TensorLike, tol=None, validate_args: bool = False,
                name: str | None = None) -> Tensor:
    """The number of singular values above ``tol`` (``tw.linalg.matrix_rank``).

    Args:
        a: ``[..., M, N]`` float or complex.
        tol: the threshold; default ``eps * max(M, N) * max(s)``.
        validate_args: accepted as TensorFlow's (no extra checks are needed here).

    Returns:
        int32 ranks ``[...]``.
    """
    x = convert(a)
    s = svd(x, compute_uv=False)
    if tol is None:
        d = shape(x)
        eps = float(np.finfo(s.dtype.np).eps)
        size = math_ops.cast(math_ops.maximum(d[-2], d[-1]), s.dtype)
        tol = reduce_max(s, axis=-1, keepdims=True) * size * math_ops.cast(eps, s.dtype)
    else:
        tol = math_ops.cast(tol, s.dtype)
    return reduce_sum(math_ops.cast(math_ops.greater(s, tol), dtypes.int32), axis=-1)


def _pinv_infer(x, *, rcond):
    if not (x.dtype.is_floating or x.dtype.is_complex):
        raise _err(f"pinv needs a float or complex tensor, got {x.dtype.name}")
    s = x.shape
    if s.rank is not None and s.rank < 2:
        raise _err(f"pinv: input must have rank >= 2, got shape {s.as_list()}")
    if s.rank is None:
        return x.dtype, s
    d = s.as_list()
    return x.dtype, TensorShape(d[:-2] + [d[-1], d[-2]])


@register_op("MatrixPinv",
             schema="x@a:T -> output:T | T:type in [half,float,double,complex64,complex128]; "
                    "rcond:float")
class MatrixPinv:
    """Moore-Penrose pseudo-inverse (singular values below ``rcond * max(s)`` dropped)."""

    infer = _pinv_infer

    def kernel(x, *, rcond):
        if rcond < 0:
            rcond = 10.0 * max(x.shape[-2:]) * float(np.finfo(x.dtype).eps)
        return np.linalg.pinv(x, rcond=rcond).astype(x.dtype, copy=False)

    def grad(op, g):
        # Golub & Pereyra: dP = -P dA P + P P^H dA^H (I - A P) + (I - P A) dA^H P^H P; its
        # adjoint, written without identity matrices.
        a, p = op.inputs[0], op.outputs[0]
        ph = adjoint(p)
        t1 = -matmul(matmul(ph, g), ph)
        gh_ppt = matmul(adjoint(g), matmul(p, ph))
        t2 = gh_ppt - matmul(matmul(a, p), gh_ppt)
        ptp_gh = matmul(matmul(ph, p), adjoint(g))
        t3 = ptp_gh - matmul(ptp_gh, matmul(p, a))
        return t1 + t2 + t3


def pinv(a: TensorLike, rcond=None, validate_args: bool = False,
         name: str | None = None) -> Tensor:
    """Moore-Penrose pseudo-inverse (``tw.linalg.pinv``).

    Args:
        a: ``[..., M, N]`` float or complex.
        rcond: singular values below ``rcond * max(s)`` count as zero; default
            ``10 * max(M, N) * eps``.
        validate_args: accepted as TensorFlow's (no extra checks are needed here).
        name: op name.

    Returns:
        ``[..., N, M]``.
    """
    x = convert(a)
    # -1: the default, 10 * max(M, N) * eps, which the kernel works out from the real shape
    rcond = -1.0 if rcond is None else float(rcond)
    return bind(MatrixPinv, [x], {"rcond": rcond}, name=name)


@name_scoped
def cross(a: TensorLike, b: TensorLike, name: str | None = None) -> Tensor:
    """Cross product of 3-vectors along the last axis (``tw.linalg.cross``).

    Args:
        a: ``[..., 3]`` real tensor.
        b: ``[..., 3]``, same dtype and shape.

    Returns:
        ``a x b``, ``[..., 3]``.
    """
    x, y = convert(a), convert(b)
    for t in (x, y):
        if t.shape.rank == 0 or (t.shape.rank is not None and t.shape[-1] not in (3, None)):
            raise _err(f"cross: inputs must be vectors of size 3 along the last axis, got shapes "
                       f"{x.shape.as_list()} and {y.shape.as_list()} [Op:Cross]")
    if x.shape.rank is not None and y.shape.rank is not None and \
            x.shape.as_list() != y.shape.as_list() and None not in x.shape.as_list() + \
            y.shape.as_list():
        raise _err(f"cross: a and b must have the same shape, got {x.shape.as_list()} and "
                   f"{y.shape.as_list()} [Op:Cross]")
    a1, a2, a3 = unstack(x, num=3, axis=-1)
    b1, b2, b3 = unstack(y, num=3, axis=-1)
    return stack([a2 * b3 - a3 * b2, a3 * b1 - a1 * b3, a1 * b2 - a2 * b1], axis=-1)


@name_scoped
def normalize(tensor: TensorLike, ord="euclidean", axis=None, name: str | None = None) -> tuple:
    """Divides ``tensor`` by its norm (``tw.linalg.normalize``).

    Args:
        tensor: a float or complex tensor.
        ord: the norm's order (as ``tw.linalg.norm``).
        axis: the axis or axes the norm runs over (as ``tw.linalg.norm``).

    Returns:
        ``(normalized, norm)``; ``norm`` keeps the reduced dims.
    """
    x = convert(tensor)
    n = norm(x, ord=ord, axis=axis, keepdims=True)
    return math_ops.divide(x, math_ops.cast(n, x.dtype)), n


def _eye_like(d, dtype):
    """The identity ``[n, n]`` for a diagonal ``d`` of shape ``[..., n]`` (dynamic n is fine)."""
    return eye(shape(d)[-1], dtype=dtype)


@name_scoped
def diag(diagonal: TensorLike, name: str = "diag", k=0, num_rows=-1, num_cols=-1,
         padding_value=0, align="RIGHT_LEFT") -> Tensor:
    """Square matrices with ``diagonal`` on the main diagonal (``tw.linalg.diag``; k=0 only).

    Args:
        diagonal: ``[..., N]``.
        k: the diagonal offset; only 0 is supported.
        num_rows: only -1 (or N) is supported.
        num_cols: only -1 (or N) is supported.
        padding_value: only 0 is supported.
        align: irrelevant for k=0.

    Returns:
        ``[..., N, N]``, zero off the diagonal.
    """
    d = convert(diagonal)
    n = d.shape[-1] if d.shape.rank else None
    if k != 0 or padding_value != 0 or num_rows not in (-1, n) or num_cols not in (-1, n):
        raise NotImplementedError("tw.linalg.diag supports only k=0, padding_value=0 and "
                                  "square results (num_rows = num_cols = len(diagonal))")
    if d.shape.rank == 0:
        raise _err("diag: diagonal must be at least 1-dim, got a scalar [Op:MatrixDiagV3]")
    return expand_dims(d, -1) * _eye_like(d, d.dtype)


@name_scoped
def set_diag(input: TensorLike, diagonal: TensorLike, name: str = "set_diag", k=0,
             align="RIGHT_LEFT") -> Tensor:
    """Replaces the main diagonal of square matrices (``tw.linalg.set_diag``; k=0 only).

    Args:
        input: ``[..., N, N]``.
        diagonal: ``[..., N]``.
        k: the diagonal offset; only 0 is supported.
        align: irrelevant for k=0.

    Returns:
        ``input`` with its diagonal replaced.
    """
    if k != 0:
        raise NotImplementedError("tw.linalg.set_diag supports only k=0")
    x = convert(input)
    d = convert(diagonal, dtype=x.dtype)
    eye_ = _eye_like(d, x.dtype)
    return x - x * eye_ + expand_dims(d, -1) * eye_


@name_scoped
def tensor_diag(diagonal: TensorLike, name: str | None = None) -> Tensor:
    """A rank-2k tensor with ``diagonal`` (rank k) on its diagonal (``tw.linalg.tensor_diag``).

    Args:
        diagonal: a tensor of static shape ``[D1, ..., Dk]``, k >= 1.

    Returns:
        ``[D1, ..., Dk, D1, ..., Dk]``, ``out[i..., i...] = diagonal[i...]``.
    """
    d = convert(diagonal)
    dims = d.shape.as_list() if d.shape.rank is not None else None
    if not dims or None in dims:
        raise _err(f"tensor_diag needs a static shape of rank >= 1, got {d.shape} [Op:Diag]")
    size = int(np.prod(dims))
    flat = diag(reshape(d, [size]))
    return reshape(flat, dims + dims)


@name_scoped
def tensor_diag_part(input: TensorLike, name: str | None = None) -> Tensor:
    """The diagonal of a rank-2k tensor (``tw.linalg.tensor_diag_part``).

    Args:
        input: a tensor of static shape ``[D1, ..., Dk, D1, ..., Dk]``.

    Returns:
        ``[D1, ..., Dk]``.
    """
    x = convert(input)
    dims = x.shape.as_list() if x.shape.rank is not None else None
    if not dims or None in dims or len(dims) % 2 or dims[:len(dims) // 2] != dims[len(dims) // 2:]:
        raise _err(f"tensor_diag_part: input must have static shape [D1..Dk, D1..Dk], got "
                   f"{x.shape} [Op:DiagPart]")
    half = dims[:len(dims) // 2]
    size = int(np.prod(half))
    return reshape(einsum("ii->i", reshape(x, [size, size])), half)

