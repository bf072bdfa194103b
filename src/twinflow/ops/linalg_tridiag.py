"""Tridiagonal products and solves (``tw.linalg.tridiagonal_matmul``, ``tridiagonal_solve``):
the matrix is assembled densely from its three diagonals and handed to ``matmul``/``solve``, so
both are differentiable in the diagonals and the right-hand side. O(M^2) memory instead of
TensorFlow's O(M): fine for the moderate sizes twinflow targets."""
from __future__ import annotations

import numpy as np

from ..core.errors import InvalidArgumentError
from ..graph.graph import name_scoped
from ..graph.tensor import Tensor, TensorLike
from .array_ops import expand_dims, unstack
from .core import convert
from .linalg_ops import matmul, matrix_transpose, solve
from .math_ops import conj


def _dense(diagonals, diagonals_format: str, fn: str) -> Tensor:
    if diagonals_format == "matrix":
        return convert(diagonals)
    if diagonals_format == "sequence":
        sup, main, sub = (convert(d) for d in diagonals)
    elif diagonals_format == "compact":
        d = convert(diagonals)
        if d.shape.rank is not None and (d.shape.rank < 2 or d.shape[-2] not in (3, None)):
            raise InvalidArgumentError(None, None, f"{fn}: compact diagonals must have shape "
                                                   f"[..., 3, M], got {d.shape}")
        sup, main, sub = unstack(d, num=3, axis=-2)
    else:
        raise ValueError(f"{fn}: diagonals_format must be 'compact', 'sequence' or 'matrix', "
                         f"got {diagonals_format!r}")
    m = main.shape[-1] if main.shape.rank else None
    if m is None:
        raise InvalidArgumentError(None, None, f"{fn} needs a static matrix size")
    dt = main.dtype.np
    # row i: super[i] at column i + 1, main[i] at i, sub[i] at i - 1 (TensorFlow's layout)
    return (expand_dims(sup, -1) * np.eye(m, k=1, dtype=dt) + expand_dims(main, -1) *
            np.eye(m, dtype=dt) + expand_dims(sub, -1) * np.eye(m, k=-1, dtype=dt))


@name_scoped
def tridiagonal_matmul(diagonals: TensorLike, rhs: TensorLike, diagonals_format: str = "compact",
                       name: str | None = None) -> Tensor:
    """Multiplies a tridiagonal matrix by ``rhs`` (``tw.linalg.tridiagonal_matmul``).

    Args:
        diagonals: ``[..., 3, M]`` (compact: super-, main and sub-diagonal; the super's last and
            the sub's first entries are ignored), a tuple of three ``[..., M]`` (sequence) or
            ``[..., M, M]`` (matrix).
        rhs: ``[..., M, N]``.
        diagonals_format: ``"compact"``, ``"sequence"`` or ``"matrix"``.

    Returns:
        ``[..., M, N]``.
    """
    return matmul(_dense(diagonals, diagonals_format, "tridiagonal_matmul"), convert(rhs))


@name_scoped
def tridiagonal_solve(diagonals: TensorLike, rhs: TensorLike, diagonals_format: str = "compact",
                      transpose_rhs: bool = False, conjugate_rhs: bool = False,
                      name: str | None = None, partial_pivoting: bool = True,
                      perturb_singular: bool = False) -> Tensor:
    """Solves a tridiagonal system (``tw.linalg.tridiagonal_solve``).

    Args:
        diagonals: as ``tridiagonal_matmul``'s.
        rhs: ``[..., M, K]`` (or ``[..., M]``, solved as one column).
        diagonals_format: ``"compact"``, ``"sequence"`` or ``"matrix"``.
        transpose_rhs: ``rhs`` is given as ``[..., K, M]``.
        conjugate_rhs: conjugate ``rhs`` first.
        partial_pivoting: must be True (the dense solve pivots).
        perturb_singular: must be False: a singular system raises.

    Returns:
        ``X`` with ``A X = rhs``: ``[..., M, K]`` (``[..., M]`` for a vector ``rhs``).
    """
    if not partial_pivoting or perturb_singular:
        raise NotImplementedError("tw.linalg.tridiagonal_solve supports only "
                                  "partial_pivoting=True, perturb_singular=False")
    a = _dense(diagonals, diagonals_format, "tridiagonal_solve")
    b = convert(rhs, dtype=a.dtype)
    vector = b.shape.rank == a.shape.rank - 1
    if vector:
        b = expand_dims(b, -1)
    if conjugate_rhs and b.dtype.is_complex:
        b = conj(b)
    if transpose_rhs:
        b = matrix_transpose(b)
    x = solve(a, b)
    return x[..., 0] if vector else x
