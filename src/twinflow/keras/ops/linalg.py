"""``keras.ops.linalg``: decompositions, solves, norms and ``jvp``, over ``tw.linalg``."""
from __future__ import annotations

from ...autodiff.tape import GradientTape
from ...core import dtypes, nest
from ...ops import array_ops as A
from ...ops import linalg_compose as LC
from ...ops import linalg_decomp as LD
from ...ops import linalg_lu as LU
from ...ops import linalg_ops as L
from ...ops import math_ops as MO
from ...ops import reduction_ops as R
from ._array import _ax
from ._common import as_float, promote, tensor

__all__ = ["cholesky", "cholesky_inverse", "det", "eig", "eigh", "inv", "jvp", "lstsq",
           "lu_factor", "matrix_rank", "norm", "pinv", "qr", "solve", "solve_triangular",
           "svd"]


def cholesky(x, upper: bool = False):
    c = L.cholesky(as_float(x))
    return L.adjoint(c) if upper else c


def cholesky_inverse(x, upper: bool = False):
    c = as_float(x)
    lower = L.adjoint(c) if upper else c
    return L.inv(L.matmul(lower, L.adjoint(lower)))


def det(x):
    return L.det(as_float(x))


def eig(x):
    return LU.eig(as_float(x))


def eigh(x):
    return LD.eigh(as_float(x))


def inv(x):
    return L.inv(as_float(x))


def solve(a, b):
    a, b = promote(as_float(a), as_float(b))
    if b.shape.rank == a.shape.rank - 1:
        return A.squeeze(L.solve(a, A.expand_dims(b, -1)), [-1])
    return L.solve(a, b)


def solve_triangular(a, b, lower: bool = False):
    a, b = promote(as_float(a), as_float(b))
    if b.shape.rank == a.shape.rank - 1:
        return A.squeeze(LD.triangular_solve(a, A.expand_dims(b, -1), lower=lower), [-1])
    return LD.triangular_solve(a, b, lower=lower)


def lstsq(a, b, rcond=None):
    a, b = promote(as_float(a), as_float(b))
    vec = b.shape.rank == 1
    if vec:
        b = A.expand_dims(b, -1)
    out = L.matmul(LC.pinv(a, rcond=rcond), b)
    return A.squeeze(out, [-1]) if vec else out


def lu_factor(x):
    lu, perm = LU.lu(as_float(x))
    return lu, A.argsort(perm, axis=-1, stable=True)


def matrix_rank(x, tol=None):
    return MO.cast(LC.matrix_rank(as_float(x), tol=tol), dtypes.int32)


def pinv(x, rcond=None):
    return LC.pinv(as_float(x), rcond=rcond)


def qr(x, mode: str = "reduced"):
    if mode not in ("reduced", "complete"):
        raise ValueError(f"keras.ops.qr: mode must be 'reduced' or 'complete', got {mode!r}")
    return LD.qr(as_float(x), full_matrices=mode == "complete")


def svd(x, full_matrices: bool = True, compute_uv: bool = True):
    x = as_float(x)
    if not compute_uv:
        return LD.svd(x, full_matrices=full_matrices, compute_uv=False)
    s, u, v = LD.svd(x, full_matrices=full_matrices, compute_uv=True)
    return u, s, L.adjoint(v)


def _vector_norm(x, ord_, axis, keepdims):
    a = MO.abs(x)
    if ord_ is None or ord_ == 2:
        return MO.sqrt(R.reduce_sum(MO.square(a), axis=axis, keepdims=keepdims))
    if ord_ == float("inf"):
        return R.reduce_max(a, axis=axis, keepdims=keepdims)
    if ord_ == float("-inf"):
        return R.reduce_min(a, axis=axis, keepdims=keepdims)
    if ord_ == 0:
        return R.reduce_sum(MO.cast(MO.not_equal(a, 0.0), x.dtype), axis=axis, keepdims=keepdims)
    if ord_ == 1:
        return R.reduce_sum(a, axis=axis, keepdims=keepdims)
    if isinstance(ord_, str):
        raise ValueError(f"keras.ops.norm: ord={ord_!r} is a matrix norm; give two axes")
    p = float(ord_)
    return MO.pow(R.reduce_sum(MO.pow(a, p), axis=axis, keepdims=keepdims), 1.0 / p)


def _matrix_norm(x, ord_, axes, keepdims):
    r0, r1 = axes
    if ord_ in (None, "fro"):
        out = MO.sqrt(R.reduce_sum(MO.square(MO.abs(x)), axis=list(axes), keepdims=True))
    elif ord_ in (1, -1, float("inf"), float("-inf")):
        col_axis, row_axis = (r0, r1) if ord_ in (1, -1) else (r1, r0)
        sums = R.reduce_sum(MO.abs(x), axis=col_axis, keepdims=True)
        red = R.reduce_max if ord_ in (1, float("inf")) else R.reduce_min
        out = red(sums, axis=row_axis, keepdims=True)
    elif ord_ in ("nuc", 2, -2):
        rank = x.shape.rank
        xm = A.transpose(x, [i for i in range(rank) if i not in axes] + [r0, r1])
        s = LD.svd(xm, compute_uv=False)
        red = {"nuc": R.reduce_sum, 2: R.reduce_max, -2: R.reduce_min}[ord_]
        out = red(s, axis=-1)
        for a in sorted(axes):
            out = A.expand_dims(out, a)
    else:
        raise ValueError(f"keras.ops.norm: invalid matrix norm ord={ord_!r}")
    return out if keepdims else A.squeeze(out, list(axes))


def norm(x, ord=None, axis=None, keepdims: bool = False):  # noqa: A002 (NumPy's name)
    x = as_float(x)
    rank = x.shape.rank
    if axis is None:
        if ord is None:
            out = MO.sqrt(R.reduce_sum(MO.square(MO.abs(x))))
            return A.reshape(out, [1] * rank) if keepdims else out
        axis = tuple(range(rank))
    if isinstance(axis, int):
        axis = (axis,)
    axes = tuple(_ax(a, rank) for a in axis)
    if len(axes) == 1:
        return _vector_norm(x, ord, axes[0], keepdims)
    if len(axes) == 2:
        return _matrix_norm(x, ord, axes, keepdims)
    raise ValueError(f"keras.ops.norm: axis must name 1 or 2 axes, got {axis}")


def jvp(fun, primals, tangents, has_aux: bool = False):
    """Forward-mode product J·t, computed as two reverse passes (the transpose trick)."""
    primals = [tensor(p) for p in primals]
    tangents = [tensor(t, p.dtype) for t, p in zip(tangents, primals)]
    with GradientTape(persistent=True) as outer:
        with GradientTape(persistent=True) as inner:
            for p in primals:
                inner.watch(p)
            result = fun(*primals)
            out, aux = result if has_aux else (result, None)
        flat_out = nest.flatten(out)
        dummies = [A.zeros_like(o) for o in flat_out]
        for d in dummies:
            outer.watch(d)
        vjp = inner.gradient(flat_out, primals, output_gradients=dummies)
        vjp = [A.zeros_like(p) if g is None else g for g, p in zip(vjp, primals)]
        inner_product = R.reduce_sum(A.stack([R.reduce_sum(g * t) for g, t in
                                              zip(vjp, tangents)]))
    grads = outer.gradient(inner_product, dummies)
    grads = [A.zeros_like(o) if g is None else g for g, o in zip(grads, flat_out)]
    tangents_out = nest.pack_sequence_as(out, grads)
    return (out, tangents_out, aux) if has_aux else (out, tangents_out)
