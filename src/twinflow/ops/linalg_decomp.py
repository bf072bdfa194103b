"""Matrix decompositions and the functions built on them: eigh, svd, qr, slogdet, triangular
solves, expm (``tw.linalg``). Compositions of these (logdet, lstsq, matrix_rank, ...) are
in ``linalg_compose.py``.

Gradients follow TensorFlow's: eigh's and triangular_solve's gradient land in the triangle the
kernel reads; svd differentiates through its singular values only (see ``Svd.grad``).
"""
from __future__ import annotations

from collections import namedtuple

import numpy as np

from ..core.errors import InvalidArgumentError
from ..core.shapes import TensorShape, broadcast_shapes
from ..eager.execute import bind
from ..graph.registry import register_op
from ..graph.tensor import Tensor, TensorLike
from . import math_ops
from .array_ops import concat, expand_dims, sum_to, zeros_like
from .core import convert, via_float32
from .linalg_ops import CholeskyGradMiddle, MatrixBandPart, _square_infer, adjoint, inv, matmul

_FLOAT_C = "half,float,double,complex64,complex128"


def _err(msg: str) -> InvalidArgumentError:
    return InvalidArgumentError(None, None, msg)


def _dims(x, name: str):
    """The static dims of a rank >= 2 input, or None for unknown rank."""
    s = x.shape
    if s.rank is None:
        return None
    if s.rank < 2:
        raise _err(f"{name}: input must have rank >= 2, got shape {s.as_list()}")
    return s.as_list()


# ----- eigh -------------------------------------------------------------------------------------

def _eigh_infer(x):
    dtype, s = _square_infer("eigh")(x)
    real = dtype.real_dtype if dtype.is_complex else dtype
    if s.rank is None:
        return [(real, TensorShape(None)), (dtype, TensorShape(None))]
    return [(real, TensorShape(s.as_list()[:-1])), (dtype, s)]


@register_op("SelfAdjointEigV2", multi_output=True,
             schema=f"x@input:T -> e:any, v:T | T:type in [{_FLOAT_C}]")
class SelfAdjointEigV2:
    """Eigen-decomposition of each innermost Hermitian matrix (reads its lower triangle):
    ascending eigenvalues and the eigenvectors as columns."""

    infer = _eigh_infer

    def kernel(x):
        e, v = np.linalg.eigh(x, UPLO="L")
        real = np.finfo(x.dtype).dtype if x.dtype.kind == "c" else x.dtype
        return e.astype(real, copy=False), v.astype(x.dtype, copy=False)

    def grad(op, de, dv):
        # dA = V (diag(de) + F o (V^H dV)) V^H with F_ij = 1 / (e_j - e_i) off the diagonal
        # (div_no_nan gives the diagonal's 0), then folded onto the lower triangle the kernel
        # reads, as TensorFlow's gradient does.
        e, v = op.outputs
        g = None
        if dv is not None:
            diff = math_ops.subtract(expand_dims(e, -2), expand_dims(e, -1))
            f = math_ops.div_no_nan(math_ops.cast(1, diff.dtype), diff)
            inner = matmul(v, dv, adjoint_a=True) * math_ops.cast(f, v.dtype)
            g = matmul(matmul(v, inner), v, adjoint_b=True)
        if de is not None:
            ge = matmul(v * expand_dims(math_ops.cast(de, v.dtype), -2), v, adjoint_b=True)
            g = ge if g is None else g + ge
        if g is None:
            return None
        return bind(CholeskyGradMiddle, [g + adjoint(g)])


_Eigh = namedtuple("Eigh", ["e", "v"])


def eigh(tensor: TensorLike, name: str | None = None) -> tuple:
    """Eigenvalues and eigenvectors of Hermitian matrices (``tw.linalg.eigh``).

    Args:
        tensor: ``[..., N, N]`` float or complex; only the lower triangle is read.
        name: op name.

    Returns:
        ``(e, v)``: ascending eigenvalues ``[..., N]`` (real) and eigenvectors ``[..., N, N]``
        as columns.
    """
    e, v = bind(SelfAdjointEigV2, [convert(tensor)], name=name)
    return e, v


def eigvalsh(tensor: TensorLike, name: str | None = None) -> Tensor:
    """Eigenvalues of Hermitian matrices (``tw.linalg.eigvalsh``).

    Args:
        tensor: ``[..., N, N]`` float or complex; only the lower triangle is read.
        name: op name.

    Returns:
        The ascending eigenvalues, ``[..., N]``.
    """
    return eigh(tensor, name=name)[0]


# ----- svd --------------------------------------------------------------------------------------

def _svd_infer(x, *, full_matrices=False):
    if not (x.dtype.is_floating or x.dtype.is_complex):
        raise _err(f"svd needs a float or complex tensor, got {x.dtype.name}")
    real = x.dtype.real_dtype if x.dtype.is_complex else x.dtype
    d = _dims(x, "svd")
    if d is None:
        return [(real, TensorShape(None)), (x.dtype, TensorShape(None)),
                (x.dtype, TensorShape(None))]
    m, n = d[-2], d[-1]
    k = None if m is None or n is None else min(m, n)
    b = d[:-2]
    u = b + [m, m if full_matrices else k]
    v = b + [n, n if full_matrices else k]
    return [(real, TensorShape(b + [k])), (x.dtype, TensorShape(u)), (x.dtype, TensorShape(v))]


@register_op("Svd", multi_output=True,
             schema=f"x@input:T -> s:any, u:T, v:T | T:type in [{_FLOAT_C}]; "
                    "full_matrices:bool")
class Svd:
    """Singular values (descending), left and right singular vectors (as columns) of each
    innermost matrix."""

    infer = _svd_infer

    def kernel(x, *, full_matrices=False):
        u, s, vh = np.linalg.svd(x, full_matrices=full_matrices)
        real = np.finfo(x.dtype).dtype if x.dtype.kind == "c" else x.dtype
        v = np.conj(np.swapaxes(vh, -1, -2))
        return s.astype(real, copy=False), u.astype(x.dtype), v.astype(x.dtype)

    def grad(op, ds, du, dv):
        # Through the singular values only: dA = U diag(ds) V^H. The vectors' gradient (which
        # TensorFlow has for real matrices) is not implemented: say so instead of dropping it.
        if du is not None or dv is not None:
            raise NotImplementedError(
                "tw.linalg.svd: the gradient through the singular vectors u and v is not "
                "supported yet; only the singular values s are differentiable")
        if ds is None:
            return None
        s, u, v = op.outputs
        if op.attrs["full_matrices"]:
            raise NotImplementedError("tw.linalg.svd: the gradient with full_matrices=True is "
                                      "not supported; use full_matrices=False")
        return matmul(u * expand_dims(math_ops.cast(ds, u.dtype), -2), v, adjoint_b=True)


def svd(tensor: TensorLike, full_matrices: bool = False, compute_uv: bool = True,
        name: str | None = None) -> Tensor | tuple:
    """Singular value decomposition (``tw.linalg.svd``).

    Args:
        tensor: ``[..., M, N]`` float or complex.
        full_matrices: return square ``u`` ``[..., M, M]`` and ``v`` ``[..., N, N]`` instead of
            the reduced ``[..., M, K]`` and ``[..., N, K]`` (``K = min(M, N)``).
        compute_uv: also return ``u`` and ``v``.
        name: op name.

    Returns:
        ``s`` (descending, ``[..., K]``) when ``compute_uv`` is False, else ``(s, u, v)`` with
        ``tensor = u @ diag(s) @ adjoint(v)``.
    """
    s, u, v = bind(Svd, [convert(tensor)], {"full_matrices": bool(full_matrices)}, name=name)
    return (s, u, v) if compute_uv else s


# ----- qr ---------------------------------------------------------------------------------------

def _qr_infer(x, *, full_matrices=False):
    if not (x.dtype.is_floating or x.dtype.is_complex):
        raise _err(f"qr needs a float or complex tensor, got {x.dtype.name}")
    d = _dims(x, "qr")
    if d is None:
        return [(x.dtype, TensorShape(None)), (x.dtype, TensorShape(None))]
    m, n = d[-2], d[-1]
    k = m if full_matrices else (None if m is None or n is None else min(m, n))
    return [(x.dtype, TensorShape(d[:-2] + [m, k])), (x.dtype, TensorShape(d[:-2] + [k, n]))]


def _tri_solve_right(x, r):
    """x @ inv(r)^H for upper-triangular r (TensorFlow's QR gradient helper)."""
    return adjoint(triangular_solve(r, adjoint(x), lower=False, adjoint=False))


@register_op("Qr", multi_output=True,
             schema=f"x@input:T -> q:T, r:T | T:type in [{_FLOAT_C}]; full_matrices:bool")
class Qr:
    """QR factorization of each innermost matrix: orthonormal ``q``, upper-triangular ``r``."""

    infer = _qr_infer

    def kernel(x, *, full_matrices=False):
        q, r = np.linalg.qr(x, mode="complete" if full_matrices else "reduced")
        return q.astype(x.dtype, copy=False), r.astype(x.dtype, copy=False)

    def grad(op, dq, dr):
        a = op.inputs[0]
        q, r = op.outputs
        m, n = a.shape[-2], a.shape[-1]
        if m is None or n is None or (m < n and op.attrs["full_matrices"]) or m < n:
            raise NotImplementedError(
                "tw.linalg.qr: the gradient needs static matrix dims with M >= N (as "
                f"TensorFlow's, plus full_matrices=False when M > N); got shape "
                f"{a.shape.as_list()}")
        if m > n and op.attrs["full_matrices"]:
            raise NotImplementedError("tw.linalg.qr: the gradient with full_matrices=True "
                                      "needs square matrices")
        dq = zeros_like(q) if dq is None else dq
        dr = zeros_like(r) if dr is None else dr
        qdq = matmul(q, dq, adjoint_a=True)
        rdr = matmul(r, dr, adjoint_b=True)
        tril = bind(MatrixBandPart, [(qdq - adjoint(qdq)) + (rdr - adjoint(rdr))],
                    {"num_lower": -1, "num_upper": 0})
        grad_a = matmul(q, dr + _tri_solve_right(tril, r))
        grad_b = _tri_solve_right(dq - matmul(q, qdq), r)
        return grad_a + grad_b


_Qr = namedtuple("Qr", ["q", "r"])


def qr(input: TensorLike, full_matrices: bool = False, name: str | None = None) -> tuple:
    """QR factorization (``tw.linalg.qr``).

    Args:
        input: ``[..., M, N]`` float or complex.
        full_matrices: return the full ``q`` ``[..., M, M]`` and ``r`` ``[..., M, N]`` instead
            of the reduced ``[..., M, K]``, ``[..., K, N]`` (``K = min(M, N)``).
        name: op name.

    Returns:
        A named tuple ``(q, r)`` with ``input = q @ r``.
    """
    q, r = bind(Qr, [convert(input)], {"full_matrices": bool(full_matrices)}, name=name)
    return _Qr(q, r)


# ----- slogdet ----------------------------------------------------------------------------------

def _slogdet_infer(x):
    dtype, s = _square_infer("slogdet")(x)
    out = TensorShape(None) if s.rank is None else TensorShape(s.as_list()[:-2])
    return [(dtype, out), (dtype, out)]


@register_op("LogMatrixDeterminant", multi_output=True,
             schema=f"x@input:T -> sign:T, log_abs_determinant:T | T:type in [{_FLOAT_C}]")
class LogMatrixDeterminant:
    """Sign (a unit complex number for complex input) and log |det| of each square matrix."""

    infer = _slogdet_infer

    def kernel(x):
        sign, logabs = np.linalg.slogdet(x)
        return np.asarray(sign, x.dtype)[()], np.asarray(logabs, x.dtype)[()]

    def grad(op, dsign, dlog):
        if dlog is None:
            return None
        # d log|det A| / dA = A^-H
        a = op.inputs[0]
        return expand_dims(expand_dims(dlog, -1), -1) * inv(a, adjoint=True)


_Slogdet = namedtuple("LogMatrixDeterminant", ["sign", "log_abs_determinant"])


def slogdet(input: TensorLike, name: str | None = None) -> tuple:
    """Sign and log of the absolute determinant (``tw.linalg.slogdet``).

    Args:
        input: ``[..., M, M]`` float or complex.
        name: op name.

    Returns:
        A named tuple ``(sign, log_abs_determinant)``, each ``[...]``.
    """
    sign, logabs = bind(LogMatrixDeterminant, [convert(input)], name=name)
    return _Slogdet(sign, logabs)


# ----- triangular solve -------------------------------------------------------------------------

def _tri_solve_infer(a, b, *, lower=True, adjoint=False):
    _square_infer("triangular_solve")(a)
    if a.shape.rank is None or b.shape.rank is None:
        return a.dtype, TensorShape(None)
    if b.shape.rank < 2:
        raise _err(f"triangular_solve: rhs must have rank >= 2, got shape {b.shape.as_list()}")
    m, mb = a.shape[-1], b.shape[-2]
    if m is not None and mb is not None and m != mb:
        raise _err(f"triangular_solve: matrix and rhs sizes differ: {a.shape.as_list()} vs "
                   f"{b.shape.as_list()}")
    batch = broadcast_shapes(TensorShape(a.shape.as_list()[:-2]),
                             TensorShape(b.shape.as_list()[:-2]))
    if batch is None:
        raise _err(f"triangular_solve: incompatible batch dims: {a.shape.as_list()} vs "
                   f"{b.shape.as_list()}")
    return a.dtype, TensorShape(batch.as_list() + [b.shape[-2], b.shape[-1]])


@register_op("MatrixTriangularSolve", same_dtype=True,
             schema=f"a@matrix:T, b@rhs:T -> output:T | T:type in [bfloat16,{_FLOAT_C}]; "
                    "lower:bool; adjoint:bool")
class MatrixTriangularSolve:
    """Solves ``A X = B`` (``adjoint``: ``A^H X = B``) reading only A's lower (or upper)
    triangle."""

    infer = _tri_solve_infer

    @via_float32  # bfloat16 (TensorFlow's op takes it) solves in float32
    def kernel(a, b, *, lower=True, adjoint=False):
        t = np.tril(a) if lower else np.triu(a)
        if adjoint:
            t = np.conj(np.swapaxes(t, -1, -2))
        shape = np.broadcast_shapes(t.shape[:-2], b.shape[:-2])
        t = np.broadcast_to(t, shape + t.shape[-2:])
        b2 = np.broadcast_to(b, shape + b.shape[-2:])
        # np.linalg.solve on the triangle: a singular one (zero on the diagonal) raises, as
        # TensorFlow's kernel does.
        return np.linalg.solve(t, b2).astype(b.dtype, copy=False)

    def grad(op, dy):
        a, b = op.inputs
        x = op.outputs[0]
        lower, adj = op.attrs["lower"], op.attrs["adjoint"]
        db = triangular_solve(a, dy, lower=lower, adjoint=not adj)
        da = -(matmul(x, db, adjoint_b=True) if adj else matmul(db, x, adjoint_b=True))
        da = bind(MatrixBandPart, [da], {"num_lower": -1 if lower else 0,
                                         "num_upper": 0 if lower else -1})
        return sum_to(da, a), sum_to(db, b)


def triangular_solve(matrix: TensorLike, rhs: TensorLike, lower: bool = True,
                     adjoint: bool = False, name: str | None = None) -> Tensor:
    """Solves ``matrix @ X = rhs`` for triangular ``matrix`` (``tw.linalg.triangular_solve``).

    Args:
        matrix: ``[..., M, M]``; only the lower (``lower``) or upper triangle is read.
        rhs: ``[..., M, K]`` of the same dtype.
        lower: whether ``matrix`` is lower triangular.
        adjoint: solve with the conjugate transpose of ``matrix``.
        name: op name.

    Returns:
        ``X`` ``[..., M, K]`` (batch dims broadcast).
    """
    a = convert(matrix)
    b = convert(rhs)
    return bind(MatrixTriangularSolve, [a, b], {"lower": bool(lower), "adjoint": bool(adjoint)},
                name=name)



# ----- expm -------------------------------------------------------------------------------------

# Pade(13) coefficients and the 1-norm bound below which no scaling is needed (Higham 2005).
_PADE13 = (64764752532480000., 32382376266240000., 7771770303897600., 1187353796428800.,
           129060195264000., 10559470521600., 670442572800., 33522128640., 1323241920.,
           40840800., 960960., 16380., 182., 1.)
_THETA13 = 5.371920351148152


def _expm_one(a: np.ndarray) -> np.ndarray:
    """exp of one square matrix: scaling and squaring with a Pade(13) approximant."""
    n = a.shape[-1]
    norm = np.abs(a).sum(axis=0).max() if n else 0.0
    s = max(0, int(np.ceil(np.log2(norm / _THETA13)))) if norm > _THETA13 else 0
    a = a / (2.0 ** s)
    b = _PADE13
    ident = np.eye(n, dtype=a.dtype)
    a2 = a @ a
    a4 = a2 @ a2
    a6 = a4 @ a2
    u = a @ (a6 @ (b[13] * a6 + b[11] * a4 + b[9] * a2) + b[7] * a6 + b[5] * a4 + b[3] * a2
             + b[1] * ident)
    v = a6 @ (b[12] * a6 + b[10] * a4 + b[8] * a2) + b[6] * a6 + b[4] * a4 + b[2] * a2 \
        + b[0] * ident
    r = np.linalg.solve(v - u, v + u)
    for _ in range(s):
        r = r @ r
    return r


def static_matrix_size(t: Tensor, what: str) -> int:
    """The static size of ``t``'s innermost square matrices, which a gradient needs.

    Args:
        t: a ``[..., M, M]`` tensor.
        what: the function, for the error.

    Returns:
        M.
    """
    n = t.shape[-1]
    if n is None:
        raise NotImplementedError(f"tw.linalg.{what}: the gradient needs a static matrix size")
    return n


@register_op("MatrixExponential",
             schema=f"x@input:T -> output:T | T:type in [{_FLOAT_C}]")
class MatrixExponential:
    """exp of each innermost square matrix (scaling and squaring, Pade(13))."""

    infer = _square_infer("expm")

    def kernel(x):
        work = x.astype(np.promote_types(x.dtype, np.float64))
        flat = work.reshape((-1,) + x.shape[-2:])
        out = np.stack([_expm_one(m) for m in flat]) if flat.shape[0] else flat
        return out.reshape(x.shape).astype(x.dtype, copy=False)

    def grad(op, dy):
        # The Frechet derivative's adjoint: exp([[A^H, G], [0, A^H]]) holds it in its upper
        # right block (Higham, "Functions of Matrices", 3.2).
        a = op.inputs[0]
        n = static_matrix_size(a, "expm")
        ah = adjoint(a)
        big = concat([concat([ah, dy], -1), concat([zeros_like(a), ah], -1)], -2)
        return bind(MatrixExponential, [big])[..., :n, n:]


def expm(input: TensorLike, name: str | None = None) -> Tensor:
    """Matrix exponential (``tw.linalg.expm``).

    Args:
        input: ``[..., M, M]`` float or complex.
        name: op name.

    Returns:
        ``exp(input)`` for each innermost matrix.
    """
    return bind(MatrixExponential, [convert(input)], name=name)
