"""LU factorization (``tw.linalg.lu``) and what uses it: ``lu_solve``, ``lu_reconstruct``,
``lu_matrix_inverse``; and the general eigen-decomposition (``eig``, ``eigvals``).

``lu_solve``/``lu_reconstruct``/``lu_matrix_inverse`` are compositions (gather, triangular
solves, matmul), so they are differentiable in ``lower_upper`` and ``rhs``; the ``Lu`` and
``Eig`` ops themselves have no gradient yet (a clear error says so).
"""
from __future__ import annotations

from collections import namedtuple

import numpy as np

from ..core import dtypes
from ..core.errors import InvalidArgumentError
from ..core.shapes import TensorShape
from ..eager.execute import bind
from ..graph.graph import name_scoped
from ..graph.registry import register_op
from ..graph.tensor import DTypeLike, Tensor, TensorLike
from .array_ops import gather, ones_like
from .core import convert
from .linalg_compose import set_diag
from .linalg_decomp import triangular_solve
from .linalg_ops import _square_infer, band_part, diag_part, matmul
from .math.sequence import invert_permutation

_FLOAT_C = "half,float,double,complex64,complex128"


def _lu_one(a: np.ndarray) -> tuple:
    """Partial-pivoting LU of one square matrix: (packed L\\U, p) with a[p] = L @ U."""
    lu = a.copy()
    n = lu.shape[0]
    p = np.arange(n)
    for k in range(n):
        piv = k + int(np.argmax(np.abs(lu[k:, k])))
        if lu[piv, k] == 0:
            raise InvalidArgumentError(None, None, "lu: the input matrix is not invertible "
                                                   "[Op:Lu]")
        if piv != k:
            lu[[k, piv]] = lu[[piv, k]]
            p[[k, piv]] = p[[piv, k]]
        lu[k + 1:, k] /= lu[k, k]
        lu[k + 1:, k + 1:] -= np.outer(lu[k + 1:, k], lu[k, k + 1:])
    return lu, p


def _lu_infer(x, *, output_idx_type):
    dtype, s = _square_infer("lu")(x)
    p = TensorShape(None) if s.rank is None else TensorShape(s.as_list()[:-1])
    return [(dtype, s), (output_idx_type, p)]


def _no_grad_error(what: str):
    def grad(op, *dys):
        raise NotImplementedError(f"tw.linalg.{what}: no gradient yet")
    return grad


@register_op("Lu", multi_output=True,
             schema=f"x@input:T -> lu:T, p:output_idx_type | T:type in [{_FLOAT_C}]; "
                    "output_idx_type:type in [int32,int64]")
class Lu:
    """LU factorization with partial pivoting of each innermost square matrix."""

    infer = _lu_infer

    def kernel(x, *, output_idx_type):
        flat = x.reshape((-1,) + x.shape[-2:])
        lus, ps = [], []
        for m in flat:
            lu, p = _lu_one(m.astype(np.promote_types(m.dtype, np.float64)))
            lus.append(lu)
            ps.append(p)
        n = x.shape[-1]
        lu = np.stack(lus).reshape(x.shape) if lus else np.zeros(x.shape)
        p = np.stack(ps).reshape(x.shape[:-1]) if ps else np.zeros(x.shape[:-2] + (n,))
        return lu.astype(x.dtype), p.astype(output_idx_type.np)

    grad = _no_grad_error("lu")


_Lu = namedtuple("Lu", ["lu", "p"])


def lu(input: TensorLike, output_idx_type: DTypeLike = dtypes.int32,
       name: str | None = None) -> tuple:
    """LU factorization with partial pivoting (``tw.linalg.lu``).

    Args:
        input: ``[..., M, M]`` float or complex.
        output_idx_type: int32 or int64, the dtype of ``p``.
        name: op name.

    Returns:
        A named tuple ``(lu, p)``: ``L`` (unit diagonal, not stored) and ``U`` packed in one
        matrix, and the row permutation with ``input[..., p, :] = L @ U``.
    """
    out, p = bind(Lu, [convert(input)], {"output_idx_type": dtypes.as_dtype(output_idx_type)},
                  name=name)
    return _Lu(out, p)


def _split_lu(lower_upper):
    x = convert(lower_upper)
    lower = set_diag(band_part(x, -1, 0), ones_like(diag_part(x)))
    return lower, band_part(x, 0, -1)


def _batch_dims(t) -> int:
    if t.shape.rank is None:
        raise InvalidArgumentError(None, None, "lu_solve/lu_reconstruct need inputs of known "
                                               "rank")
    return t.shape.rank - 1


@name_scoped
def lu_reconstruct(lower_upper: TensorLike, perm: TensorLike, validate_args: bool = False,
                   name: str | None = None) -> Tensor:
    """The matrix an LU factorization came from (``tw.linalg.lu_reconstruct``).

    Args:
        lower_upper: ``[..., M, M]`` from ``tw.linalg.lu``.
        perm: ``[..., M]`` from ``tw.linalg.lu``.
        validate_args: accepted as TensorFlow's (the gathers check the indices anyway).

    Returns:
        ``[..., M, M]``.
    """
    lower, upper = _split_lu(lower_upper)
    p = convert(perm)
    inv = invert_permutation(p) if p.shape.rank == 1 else _batch_invert(p)
    return gather(matmul(lower, upper), inv, axis=-2, batch_dims=_batch_dims(p))


def _batch_invert(p):
    return bind(BatchInvertPermutation, [p])


@register_op("BatchInvertPermutation",
             schema="x:T -> y:T | T:type in [int32,int64]")
class BatchInvertPermutation:
    """invert_permutation of each innermost vector."""

    def infer(x):
        return x.dtype, x.shape

    def kernel(x):
        y = np.empty_like(x)
        np.put_along_axis(y, x.astype(np.int64), np.broadcast_to(
            np.arange(x.shape[-1], dtype=x.dtype), x.shape), axis=-1)
        return y

    def grad(op, dy):
        return None


@name_scoped
def lu_solve(lower_upper: TensorLike, perm: TensorLike, rhs: TensorLike,
             validate_args: bool = False, name: str | None = None) -> Tensor:
    """Solves ``A X = rhs`` from A's LU factorization (``tw.linalg.lu_solve``).

    Args:
        lower_upper: ``[..., M, M]`` from ``tw.linalg.lu``.
        perm: ``[..., M]`` from ``tw.linalg.lu``.
        rhs: ``[..., M, K]``.
        validate_args: accepted as TensorFlow's (the gathers check the indices anyway).

    Returns:
        ``X`` ``[..., M, K]``.
    """
    lower, upper = _split_lu(lower_upper)
    p = convert(perm)
    b = gather(convert(rhs), p, axis=-2, batch_dims=_batch_dims(p))
    y = triangular_solve(lower, b, lower=True)
    return triangular_solve(upper, y, lower=False)


@name_scoped
def lu_matrix_inverse(lower_upper: TensorLike, perm: TensorLike, validate_args: bool = False,
                      name: str | None = None) -> Tensor:
    """The inverse of A from its LU factorization (``tw.linalg.lu_matrix_inverse``).

    Args:
        lower_upper, perm, validate_args: as for ``lu_reconstruct``.

    Returns:
        ``[..., M, M]``.
    """
    x = convert(lower_upper)
    eye_ = set_diag(x * 0, ones_like(diag_part(x)))
    return lu_solve(x, perm, eye_)


# ----- general eigen-decomposition --------------------------------------------------------------

def _eig_infer(x, *, compute_v):
    dtype, s = _square_infer("eig")(x)
    out = {dtypes.float32: dtypes.complex64, dtypes.float64: dtypes.complex128}.get(dtype, dtype)
    if dtype == dtypes.float16:
        raise InvalidArgumentError(None, None, "eig does not support half")
    e = TensorShape(None) if s.rank is None else TensorShape(s.as_list()[:-1])
    return [(out, e), (out, s if compute_v else TensorShape([0]))]


@register_op("Eig", multi_output=True,
             schema="x@input:T -> e:any, v:any | T:type in [float,double,complex64,complex128];"
                    " compute_v:bool")
class Eig:
    """Eigenvalues and (right) eigenvectors of general square matrices (complex results)."""

    infer = _eig_infer

    def kernel(x, *, compute_v):
        out = np.complex64 if x.dtype in (np.float32, np.complex64) else np.complex128
        e, v = np.linalg.eig(x)
        return e.astype(out), (v.astype(out) if compute_v else np.zeros((0,), out))

    grad = _no_grad_error("eig")


def eig(tensor: TensorLike, name: str | None = None) -> tuple:
    """Eigen-decomposition of general square matrices (``tw.linalg.eig``).

    Args:
        tensor: ``[..., N, N]`` float or complex.
        name: op name.

    Returns:
        ``(e, v)``: complex eigenvalues ``[..., N]`` and unit eigenvectors as columns (in
        LAPACK's order, which may differ from TensorFlow's).
    """
    e, v = bind(Eig, [convert(tensor)], {"compute_v": True}, name=name)
    return e, v


def eigvals(tensor: TensorLike, name: str | None = None) -> Tensor:
    """Eigenvalues of general square matrices (``tw.linalg.eigvals``).

    Args:
        tensor: ``[..., N, N]`` float or complex.
        name: op name.

    Returns:
        Complex eigenvalues ``[..., N]``.
    """
    return bind(Eig, [convert(tensor)], {"compute_v": False}, name=name)[0]
