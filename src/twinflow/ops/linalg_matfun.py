"""Matrix functions and special solvers: ``sqrtm`` (``MatrixSquareRoot``), ``logm``
(``MatrixLogarithm``), ``banded_triangular_solve``, ``eigh_tridiagonal`` and
``experimental.conjugate_gradient``.

The square root and logarithm kernels diagonalize (``A = V diag(w) V^-1``) and apply the
scalar function to the eigenvalues; the square root's gradient solves TensorFlow's Sylvester
equation ``R^H H + H R^H = G`` through the Kronecker sum, written with twinflow ops.
Conjugate gradients unroll at most ``max_iter`` steps; once the residual is small the state
stops changing (exactly what TensorFlow's while loop returns).
"""
from __future__ import annotations

import collections

import numpy as np

from ..core import dtypes
from ..core.errors import InvalidArgumentError
from ..core.shapes import TensorShape
from ..eager.execute import bind
from ..graph.graph import name_scoped
from ..graph.registry import register_op
from ..graph.tensor import Tensor, TensorLike
from .array_ops import (
    boolean_mask,
    broadcast_to,
    concat,
    expand_dims,
    eye,
    gather,
    reshape,
    shape,
    zeros,
)
from .core import convert, quietly
from .linalg_decomp import eigh, static_matrix_size
from .linalg_ops import adjoint, einsum, matmul, solve
from .math_ops import add, cast, conj, greater, less_equal, logical_and, multiply, negative, where
from .math_ops import divide as _div
from .reduction_ops import norm, reduce_any, reduce_sum

_SQUARE_FLOATS = "T:type in [double,float,half,complex64,complex128]"


def _err(msg: str) -> InvalidArgumentError:
    return InvalidArgumentError(None, None, msg)


def _square_infer(x):
    s = x.shape
    if s.rank is not None:
        if s.rank < 2:
            raise _err(f"input must have rank >= 2, got shape {s}")
        if s[-1] is not None and s[-2] is not None and s[-1] != s[-2]:
            raise _err(f"input must be a batch of square matrices, got shape {s}")
    return x.dtype, s


def _eig_apply(x: np.ndarray, fn) -> np.ndarray:
    """fn applied to the eigenvalues of each matrix of ``x`` (complex result)."""
    w, v = np.linalg.eig(x)
    return quietly(lambda: (v * fn(w)[..., None, :]) @ np.linalg.inv(v))


@register_op("MatrixSquareRoot", schema=f"input:T -> output:T | {_SQUARE_FLOATS}")
class MatrixSquareRoot:
    """The principal square root of each square matrix."""

    infer = _square_infer

    def kernel(input):
        if input.shape[-1] == 0:
            return input.copy()
        x = input.astype(np.complex128)
        r = _eig_apply(x, np.sqrt)
        if input.dtype.kind == "c":
            return r.astype(input.dtype)
        w = np.linalg.eigvals(input.astype(np.float64))
        bad = ((w.imag == 0) & (w.real < 0)).any(-1)    # no real square root: NaN, as TF
        out = r.real.astype(input.dtype)
        out[bad] = np.nan
        return out

    def grad(op, dy):
        r = op.outputs[0]
        n = static_matrix_size(r, "sqrtm")
        rh = adjoint(r)
        i = eye(n, dtype=r.dtype)
        # row-major vec: vec(A X B) = (A kron B^T) vec(X)
        ksum = add(_kron(rh, i), _kron(i, conj(r) if r.dtype.is_complex else r))
        g = reshape(dy, concat([shape(dy)[:-2], [n * n, 1]], 0))
        h = solve(ksum, g)
        return reshape(h, shape(dy))


def _kron(a: Tensor, b: Tensor) -> Tensor:
    n = a.shape[-1]
    k = einsum("...ij,...kl->...ikjl", a, b)
    return reshape(k, concat([shape(k)[:-4], [n * n, n * n]], 0))


@register_op("MatrixLogarithm", schema="input:T -> output:T | T:type in [complex64,complex128]")
class MatrixLogarithm:
    """The principal logarithm of each square complex matrix."""

    infer = _square_infer

    def kernel(input):
        if input.shape[-1] == 0:
            return input.copy()
        return _eig_apply(input.astype(np.complex128), np.log).astype(input.dtype)


def sqrtm(input: TensorLike, name: str | None = None) -> Tensor:
    """The principal matrix square root (``tw.linalg.sqrtm``, ``tw.linalg.matrix_square_root``).

    Args:
        input: ``[..., N, N]`` float or complex matrices.
        name: op name.

    Returns:
        ``[..., N, N]`` with ``output @ output == input`` (NaN for real matrices with a negative
        real eigenvalue, which have no real square root).
    """
    return bind(MatrixSquareRoot, [convert(input)], name=name)


def logm(input: TensorLike, name: str | None = None) -> Tensor:
    """The principal matrix logarithm (``tw.linalg.logm``).

    Args:
        input: ``[..., N, N]`` complex64/complex128 matrices.
        name: op name.

    Returns:
        ``[..., N, N]`` with ``expm(output) == input``.
    """
    return bind(MatrixLogarithm, [convert(input)], name=name)


def _bands_to_dense(bands: np.ndarray, lower: bool) -> np.ndarray:
    k, n = bands.shape[-2:]
    out = np.zeros(bands.shape[:-2] + (n, n), bands.dtype)
    j = np.arange(n)
    for b in range(k):
        if lower:          # row b: sub-diagonal b, right-aligned: bands[b, j] = A[j, j - b]
            cols = j[b:]
            out[..., cols, cols - b] = bands[..., b, cols]
        else:              # row k-1-b: super-diagonal b, left-aligned: bands[.., i] = A[i, i+b]
            rows = j[:n - b]
            out[..., rows, rows + b] = bands[..., k - 1 - b, rows]
    return out


def _band_index(k: int, n: int, lower: bool) -> np.ndarray:
    """Indices into a flattened ``[N * N + 1]`` matrix (the last entry a zero) of its bands."""
    idx = np.full((k, n), n * n, np.int64)
    j = np.arange(n)
    for b in range(k):
        if lower:
            idx[b, b:] = j[b:] * n + j[b:] - b
        else:
            idx[k - 1 - b, :n - b] = j[:n - b] * n + j[:n - b] + b
    return idx


def _banded_infer(matrix, rhs, *, lower=True, adjoint=False):
    m, r = matrix.shape, rhs.shape
    if m.rank is not None and m.rank < 2:
        raise _err(f"matrix must have rank >= 2, got shape {m}")
    if r.rank is not None and r.rank < 2:
        raise _err(f"rhs must have rank >= 2, got shape {r}")
    if m.rank is None or r.rank is None:
        return matrix.dtype, TensorShape(None)
    if m[-1] is not None and r[-2] is not None and m[-1] != r[-2]:
        raise _err(f"matrix has {m[-1]} columns but rhs has {r[-2]} rows")
    if m[-2] is not None and m[-1] is not None and m[-2] > m[-1]:
        raise _err(f"matrix has more bands ({m[-2]}) than columns ({m[-1]})")
    batch = np.broadcast_shapes(tuple(d or 1 for d in m.as_list()[:-2]),
                                tuple(d or 1 for d in r.as_list()[:-2]))
    return matrix.dtype, TensorShape(list(batch) + r.as_list()[-2:])


@register_op("BandedTriangularSolve", check_shapes=True, schema=(
    f"matrix:T, rhs:T -> output:T | lower:bool=True; adjoint:bool=False; {_SQUARE_FLOATS}"))
class BandedTriangularSolve:
    """Solves triangular systems whose matrix is given by its bands."""

    infer = _banded_infer

    def kernel(matrix, rhs, *, lower=True, adjoint=False):
        a = _bands_to_dense(matrix, lower)
        if adjoint:
            a = np.conj(np.swapaxes(a, -1, -2))
        batch = np.broadcast_shapes(a.shape[:-2], rhs.shape[:-2])
        a = np.broadcast_to(a, batch + a.shape[-2:])
        b = np.broadcast_to(rhs, batch + rhs.shape[-2:])
        if (np.diagonal(a, axis1=-2, axis2=-1) == 0).any():
            raise _err("Input matrix is not invertible (a zero on the diagonal)")
        return np.linalg.solve(a, b).astype(matrix.dtype)

    def grad(op, dy):
        a, b = op.inputs
        lower, adj = op.attrs["lower"], op.attrs["adjoint"]
        c = op.outputs[0]
        k, n = a.shape[-2], a.shape[-1]
        if k is None or n is None:
            raise ValueError("the gradient of banded_triangular_solve needs static band sizes")
        grad_b = bind(BandedTriangularSolve, [a, dy], {"lower": lower, "adjoint": not adj})
        grad_a = negative(matmul(c, grad_b, adjoint_b=True) if adj
                          else matmul(grad_b, c, adjoint_b=True))
        flat = reshape(grad_a, concat([shape(grad_a)[:-2], [n * n]], 0))
        flat = concat([flat, zeros(concat([shape(flat)[:-1], [1]], 0), a.dtype)], -1)
        grad_a = gather(flat, _band_index(k, n, lower), axis=-1)
        return _sum_to_batch(grad_a, a), _sum_to_batch(grad_b, b)


def _sum_to_batch(g: Tensor, x: Tensor) -> Tensor:
    """Sums ``g`` over the batch dims broadcasting added to ``x``."""
    gr, xr = g.shape.rank, x.shape.rank
    if gr is None or xr is None or g.shape.as_list()[:-2] == x.shape.as_list()[:-2]:
        return g
    lead = gr - xr
    axes = list(range(lead)) + [lead + i for i, d in enumerate(x.shape.as_list()[:-2])
                                if d == 1 and g.shape[lead + i] != 1]
    return reshape(reduce_sum(g, axis=axes, keepdims=False), shape(x)) if axes else g


def banded_triangular_solve(bands: TensorLike, rhs: TensorLike, lower: bool = True,
                            adjoint: bool = False, name: str | None = None) -> Tensor:
    """Solves ``A X = rhs`` for triangular ``A`` given by its ``K`` bands.

    Args:
        bands: ``[..., K, N]``: lower: row ``k`` is the ``k``-th sub-diagonal (row 0 the
            diagonal), right-aligned; upper: row ``K-1-k`` the ``k``-th super-diagonal (the
            last row the diagonal), left-aligned (TensorFlow's ``LEFT_RIGHT`` layout).
        rhs: ``[..., N, R]``.
        lower: whether ``A`` is lower triangular.
        adjoint: solve ``A^H X = rhs`` instead.
        name: op name.

    Returns:
        ``[..., N, R]``.
    """
    bands = convert(bands)
    return bind(BandedTriangularSolve, [bands, convert(rhs, dtype=bands.dtype)],
                {"lower": bool(lower), "adjoint": bool(adjoint)}, name=name)


@name_scoped
def eigh_tridiagonal(alpha: TensorLike, beta: TensorLike, eigvals_only: bool = True,
                     select: str = "a", select_range=None, tol=None,
                     name: str | None = None) -> Tensor | tuple:
    """Eigenvalues (and eigenvectors) of a Hermitian tridiagonal matrix.

    Args:
        alpha: ``[N]`` the (real) diagonal.
        beta: ``[N-1]`` the off-diagonal (real or complex).
        eigvals_only: return only the eigenvalues.
        select: ``'a'`` all, ``'v'`` those in ``(select_range[0], select_range[1]]``, ``'i'``
            those with index in ``[select_range[0], select_range[1]]``.
        select_range: the value or index range for ``'v'``/``'i'``.
        tol: accepted for compatibility: the eigenvalues come from a dense solver, exact to
            working precision (TensorFlow's bisection stops at ``tol``).
        name: op name.

    Returns:
        Ascending eigenvalues ``[K]``, and with ``eigvals_only=False`` also the eigenvectors
        ``[N, K]`` as columns.
    """
    if select not in ("a", "v", "i"):
        raise ValueError("'select must have a value in {'a', 'i', 'v'}.")
    alpha, beta = convert(alpha), convert(beta)
    if alpha.shape.rank != 1 or beta.shape.rank != 1:
        raise ValueError(f"eigh_tridiagonal: alpha and beta must be vectors, got shapes "
                         f"{alpha.shape} and {beta.shape}")
    n = alpha.shape[0]
    if n is not None and beta.shape[0] is not None and beta.shape[0] != n - 1:
        raise ValueError(f"eigh_tridiagonal: beta must have N-1 = {n - 1} entries, got "
                         f"{beta.shape[0]}")
    if n is None:
        raise ValueError("eigh_tridiagonal needs a static size")
    dt = beta.dtype if beta.dtype.is_complex else alpha.dtype
    a = alpha if alpha.dtype == dt else cast(alpha, dt)
    up = convert(np.eye(n, k=1), dtype=dt)
    lo = convert(np.eye(n, k=-1), dtype=dt)
    pad = zeros([1], dt)
    dense = (multiply(expand_dims(a, -1), convert(np.eye(n), dtype=dt)) +
             multiply(expand_dims(concat([beta, pad], 0), -1), up) +
             multiply(expand_dims(concat([pad, conj(beta) if dt.is_complex else beta], 0),
                                  -1), lo))
    w, v = eigh(dense)
    if select == "i":
        lo_i, hi_i = (int(s) for s in select_range)
        w, v = w[lo_i:hi_i + 1], v[:, lo_i:hi_i + 1]
    elif select == "v":
        lo_v, hi_v = (convert(s, dtype=w.dtype) for s in select_range)
        keep = logical_and(greater(w, lo_v), less_equal(w, hi_v))
        w, v = boolean_mask(w, keep), boolean_mask(v, keep, axis=1)
    return w if eigvals_only else (w, v)


CGState = collections.namedtuple("CGState", ["i", "x", "r", "p", "gamma"])


def _dot(x: Tensor, y: Tensor) -> Tensor:
    return reduce_sum(multiply(conj(x) if x.dtype.is_complex else x, y), axis=-1)


@name_scoped
def conjugate_gradient(operator, rhs: TensorLike, preconditioner=None, x=None, tol=1e-5,
                       max_iter: int = 20, name: str = "conjugate_gradient") -> CGState:
    """Solves ``operator x = rhs`` for a self-adjoint positive definite operator by
    conjugate gradients (``tw.linalg.experimental.conjugate_gradient``).

    Args:
        operator: a LinearOperator (self-adjoint, positive definite).
        rhs: ``[..., N]``.
        preconditioner: an optional LinearOperator approximating the inverse.
        x: an initial guess ``[..., N]`` (default zeros).
        tol: stop once every residual norm is at most ``tol * |rhs|``.
        max_iter: the most steps taken.
        name: op name.

    Returns:
        ``CGState(i, x, r, p, gamma)``: steps taken, solution, residual, search direction and
        the residual's (preconditioned) squared norm.
    """
    if not (operator.is_self_adjoint and operator.is_positive_definite):
        raise ValueError("Expected a self-adjoint, positive definite operator.")
    rhs = convert(rhs, dtype=operator.dtype)
    batch = operator.batch_shape.as_list()
    if preconditioner is not None:
        pb = preconditioner.batch_shape.as_list()
        batch = list(np.broadcast_shapes(tuple(batch), tuple(pb)))
    full = list(np.broadcast_shapes(tuple(rhs.shape.as_list()[:-1]), tuple(batch))) + \
        [rhs.shape[-1]]
    r = broadcast_to(rhs, full)
    tol = multiply(convert(tol, dtype=r.dtype.real_dtype), norm(r, axis=-1))
    if x is None:
        x = zeros(full, r.dtype)
    else:
        x = convert(x, dtype=r.dtype)
        r = rhs - operator.matvec(x)
    p = r if preconditioner is None else preconditioner.matvec(r)
    state = CGState(convert(0, dtype=dtypes.int32), x, r, p, _dot(r, p))
    for _ in range(int(max_iter)):
        go = reduce_any(greater(norm(state.r, axis=-1), tol))
        if getattr(go, "_value", None) is not None and not bool(go._value):
            break                                   # eager: converged, nothing more changes
        state = _cg_step(operator, preconditioner, state, go)
    return state


def _cg_step(operator, preconditioner, s: CGState, go: Tensor) -> CGState:
    z = operator.matvec(s.p)
    alpha = _div(s.gamma, _dot(s.p, z))
    x = add(s.x, multiply(expand_dims(alpha, -1), s.p))
    r = s.r - multiply(expand_dims(alpha, -1), z)
    q = r if preconditioner is None else preconditioner.matvec(r)
    gamma = _dot(r, q)
    p = add(q, multiply(expand_dims(_div(gamma, s.gamma), -1), s.p))
    new = CGState(s.i + 1, x, r, p, gamma)
    return CGState(*(where(go, n, o) for n, o in zip(new, s)))

