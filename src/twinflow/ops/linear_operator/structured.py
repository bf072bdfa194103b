"""Operators defined by a tensor: full, diagonal, identity, scaled identity, zeros, lower
triangular, permutation, Householder reflection, Toeplitz and tridiagonal."""
from __future__ import annotations

import numpy as np

from ...core import dtypes
from ...core.props import readonly
from ...core.shapes import TensorShape
from ...graph.tensor import Tensor, TensorLike
from ..array_ops import (
    broadcast_to,
    concat,
    expand_dims,
    eye,
    gather,
    one_hot,
    ones,
    reverse,
    stack,
    zeros,
)
from ..core import convert, static_int
from ..linalg_compose import diag as _diag
from ..linalg_decomp import triangular_solve
from ..linalg_ops import adjoint as _adjoint
from ..linalg_ops import band_part, diag_part, matmul
from ..linalg_tridiag import tridiagonal_solve
from ..math_ops import (
    abs,
    cast,
    conj,
    divide,
    log,
    multiply,
    pow,
    reciprocal,
    sqrt,
    subtract,
)
from ..reduction_ops import reduce_prod, reduce_sum
from .base import LinearOperator, register_operator_kinds


def _hints(kw: dict) -> dict:
    return {k: kw[k] for k in ("is_non_singular", "is_self_adjoint", "is_positive_definite",
                               "is_square")}


def _adj_arg(x: Tensor, adjoint_arg: bool) -> Tensor:
    return _adjoint(x) if adjoint_arg else x


class LinearOperatorFullMatrix(LinearOperator):
    """An operator holding its dense ``[..., M, N]`` matrix.

    Args:
        matrix: ``[..., M, N]`` float or complex tensor.
        is_non_singular, is_self_adjoint, is_positive_definite, is_square: hints.
        name: a name.
    """

    def __init__(self, matrix: TensorLike, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None,
                 name: str = "LinearOperatorFullMatrix") -> None:
        self._matrix = convert(matrix)
        if self._matrix.shape.rank is not None and self._matrix.shape.rank < 2:
            raise ValueError(f"matrix must have rank >= 2, got shape {self._matrix.shape}")
        super().__init__(self._matrix.dtype, [self._matrix], is_non_singular, is_self_adjoint,
                         is_positive_definite, is_square, name, {"matrix": matrix})

    def _shape(self) -> TensorShape:
        return self._matrix.shape

    def _to_dense(self) -> Tensor:
        return self._matrix


class LinearOperatorDiag(LinearOperator):
    """A (batch of) square diagonal matrices ``diag(d)``.

    Args:
        diag: ``[..., N]`` the diagonal.
        is_non_singular, is_positive_definite: hints.
        is_self_adjoint: hint (a real diagonal is always self-adjoint: False is an error).
        is_square: hint (always square: False is an error).
        name: a name.
    """

    def __init__(self, diag: TensorLike, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None,
                 name: str = "LinearOperatorDiag") -> None:
        self._diag = convert(diag)
        if self._diag.shape.rank == 0:
            raise ValueError("diag must have rank >= 1, got a scalar")
        if not self._diag.dtype.is_complex:
            if is_self_adjoint is False:
                raise ValueError("A real diagonal operator is always self adjoint.")
            is_self_adjoint = True
        if is_square is False:
            raise ValueError("Only square diagonal operators currently supported.")
        super().__init__(self._diag.dtype, [self._diag], is_non_singular, is_self_adjoint,
                         is_positive_definite, True, name, {"diag": diag})

    diag = readonly("_diag", "The diagonal.")

    def _shape(self) -> TensorShape:
        s = self._diag.shape
        return TensorShape(None) if s.rank is None else TensorShape(s.as_list() + [s[-1]])

    def _d(self, adjoint: bool) -> Tensor:
        return conj(self._diag) if adjoint and self.dtype.is_complex else self._diag

    def _to_dense(self) -> Tensor:
        return _diag(self._diag)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return multiply(expand_dims(self._d(adjoint), -1), _adj_arg(x, adjoint_arg))

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return divide(_adj_arg(rhs, adjoint_arg), expand_dims(self._d(adjoint), -1))

    def _determinant(self):
        return reduce_prod(self._diag, axis=-1)

    def _log_abs_determinant(self):
        return reduce_sum(log(abs(self._diag)), axis=-1)

    def _diag_part(self):
        return self._diag

    def _eigvals(self):
        return self._diag

    def _inverse_op(self):
        return LinearOperatorDiag(reciprocal(self._diag), is_non_singular=self.is_non_singular,
                                  is_self_adjoint=self.is_self_adjoint,
                                  is_positive_definite=self.is_positive_definite)

    def _cholesky_op(self):
        return LinearOperatorDiag(sqrt(self._diag), is_non_singular=True,
                                  is_self_adjoint=True, is_positive_definite=True)


def _batch_list(batch_shape) -> list:
    if batch_shape is None:
        return []
    return [static_int(d, "batch_shape") for d in np.asarray(
        batch_shape.numpy() if hasattr(batch_shape, "numpy") else batch_shape).reshape(-1)]


def _must_be(name: str, value, expected: bool, what: str):
    if value is not expected:
        raise ValueError(f"{what} operator is always {name}." if expected else
                         f"{what} operator is never {name}.")


class LinearOperatorIdentity(LinearOperator):
    """The ``[N, N]`` identity (optionally with a batch shape).

    Args:
        num_rows: ``N``.
        batch_shape: leading batch dims (None for none).
        dtype: the dtype (default float32).
        is_non_singular, is_self_adjoint, is_positive_definite, is_square: must be True.
        assert_proper_shapes: check the arguments' shapes (they are static here: always done).
        name: a name.
    """

    def __init__(self, num_rows, batch_shape=None, dtype=None, is_non_singular=True,
                 is_self_adjoint=True, is_positive_definite=True, is_square=True,
                 assert_proper_shapes=False, name: str = "LinearOperatorIdentity") -> None:
        for hint, v in [("non-singular", is_non_singular), ("self-adjoint", is_self_adjoint),
                        ("positive-definite", is_positive_definite), ("square", is_square)]:
            _must_be(hint, v, True, "An identity")
        self._n = static_int(num_rows, "num_rows")
        if self._n < 0:
            raise ValueError(f"num_rows must be non-negative, got {self._n}")
        self._batch = _batch_list(batch_shape)
        super().__init__(dtype or dtypes.float32, None, True, True, True, True, name,
                         {"num_rows": num_rows, "batch_shape": batch_shape, "dtype": dtype})

    def _shape(self):
        return TensorShape(self._batch + [self._n, self._n])

    def _to_dense(self):
        return eye(self._n, batch_shape=self._batch, dtype=self.dtype)

    def _broadcast(self, x):
        if not self._batch:
            return x
        return multiply(x, ones(self._batch + [1, 1], self.dtype))

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return self._broadcast(_adj_arg(x, adjoint_arg))

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self._broadcast(_adj_arg(rhs, adjoint_arg))

    def _determinant(self):
        return ones(self._batch, self.dtype)

    def _log_abs_determinant(self):
        return zeros(self._batch, self.dtype.real_dtype)

    def _diag_part(self):
        return ones(self._batch + [self._n], self.dtype)

    def _trace(self):
        return multiply(ones(self._batch, self.dtype), cast(self._n, self.dtype))

    def _eigvals(self):
        return self._diag_part()

    def _inverse_op(self):
        return self

    def _cholesky_op(self):
        return self


class LinearOperatorScaledIdentity(LinearOperator):
    """``multiplier * I`` of size ``[N, N]``; the batch shape is the multiplier's.

    Args:
        num_rows: ``N``.
        multiplier: scalar or batch-shaped tensor.
        is_non_singular, is_self_adjoint, is_positive_definite, is_square: hints.
        assert_proper_shapes: shapes are static here (always checked).
        name: a name.
    """

    def __init__(self, num_rows, multiplier, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=True, assert_proper_shapes=False,
                 name: str = "LinearOperatorScaledIdentity") -> None:
        self._n = static_int(num_rows, "num_rows")
        self._m = convert(multiplier)
        if is_square is False:
            raise ValueError("A ScaledIdentity operator is always square.")
        if not self._m.dtype.is_complex and is_self_adjoint is None:
            is_self_adjoint = True
        super().__init__(self._m.dtype, [self._m], is_non_singular, is_self_adjoint,
                         is_positive_definite, True, name,
                         {"num_rows": num_rows, "multiplier": multiplier})

    multiplier = readonly("_m", "The scale.")

    def _shape(self):
        s = self._m.shape
        return TensorShape(None) if s.rank is None else TensorShape(s.as_list() +
                                                                    [self._n, self._n])

    def _mm(self, adjoint):
        m = conj(self._m) if adjoint and self.dtype.is_complex else self._m
        return expand_dims(expand_dims(m, -1), -1)

    def _to_dense(self):
        return multiply(self._mm(False), eye(self._n, dtype=self.dtype))

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return multiply(self._mm(adjoint), _adj_arg(x, adjoint_arg))

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return divide(_adj_arg(rhs, adjoint_arg), self._mm(adjoint))

    def _determinant(self):
        return pow(self._m, cast(self._n, self.dtype))

    def _log_abs_determinant(self):
        return multiply(cast(self._n, self.dtype.real_dtype), log(abs(self._m)))

    def _diag_part(self):
        return multiply(expand_dims(self._m, -1), ones([self._n], self.dtype))

    def _eigvals(self):
        return self._diag_part()

    def _trace(self):
        return multiply(self._m, cast(self._n, self.dtype))

    def _inverse_op(self):
        return LinearOperatorScaledIdentity(self._n, reciprocal(self._m),
                                            is_non_singular=self.is_non_singular,
                                            is_self_adjoint=self.is_self_adjoint,
                                            is_positive_definite=self.is_positive_definite)

    def _cholesky_op(self):
        return LinearOperatorScaledIdentity(self._n, sqrt(self._m), is_non_singular=True,
                                            is_self_adjoint=True, is_positive_definite=True)


class LinearOperatorZeros(LinearOperator):
    """The ``[M, N]`` zero matrix (optionally batched).

    Args:
        num_rows: ``M``.
        num_columns: ``N`` (default ``M``).
        batch_shape: leading batch dims.
        dtype: the dtype (default float32).
        is_non_singular: must be False.
        is_self_adjoint: must be True when square.
        is_positive_definite: must be False.
        is_square: must agree with the sizes.
        assert_proper_shapes: shapes are static here (always checked).
        name: a name.
    """

    def __init__(self, num_rows, num_columns=None, batch_shape=None, dtype=None,
                 is_non_singular=False, is_self_adjoint=True, is_positive_definite=False,
                 is_square=True, assert_proper_shapes=False,
                 name: str = "LinearOperatorZeros") -> None:
        self._m = static_int(num_rows, "num_rows")
        self._n = self._m if num_columns is None else static_int(num_columns, "num_columns")
        _must_be("non-singular", is_non_singular, False, "A zeros")
        _must_be("positive-definite", is_positive_definite, False, "A zeros")
        if (self._m == self._n) != bool(is_square):
            raise ValueError(f"is_square={is_square} contradicts the shape "
                             f"[{self._m}, {self._n}]")
        if is_square:
            _must_be("self-adjoint", is_self_adjoint, True, "A square zeros")
        self._batch = _batch_list(batch_shape)
        super().__init__(dtype or dtypes.float32, None, False, is_self_adjoint, False,
                         is_square, name, {"num_rows": num_rows, "num_columns": num_columns,
                                           "batch_shape": batch_shape, "dtype": dtype})

    def _shape(self):
        return TensorShape(self._batch + [self._m, self._n])

    def _to_dense(self):
        return zeros(self._batch + [self._m, self._n], self.dtype)

    def _determinant(self):
        return zeros(self._batch, self.dtype)

    def _log_abs_determinant(self):
        return log(zeros(self._batch, self.dtype.real_dtype))

    def _diag_part(self):
        return zeros(self._batch + [min(self._m, self._n)], self.dtype)

    def _eigvals(self):
        return self._diag_part()


class LinearOperatorLowerTriangular(LinearOperator):
    """A lower-triangular matrix (the strict upper triangle of ``tril`` is ignored).

    Args:
        tril: ``[..., N, N]``.
        is_non_singular, is_self_adjoint, is_positive_definite, is_square: hints.
        name: a name.
    """

    def __init__(self, tril: TensorLike, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None,
                 name: str = "LinearOperatorLowerTriangular") -> None:
        t = convert(tril)
        if is_square is False:
            raise ValueError("Only square lower triangular operators supported at this time.")
        self._tril = band_part(t, -1, 0)
        super().__init__(t.dtype, [t], is_non_singular, is_self_adjoint, is_positive_definite,
                         True, name, {"tril": tril})

    def _shape(self):
        return self._tril.shape

    def _to_dense(self):
        return self._tril

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return triangular_solve(self._tril, _adj_arg(rhs, adjoint_arg), lower=True,
                                adjoint=adjoint)

    def _diag_part(self):
        return diag_part(self._tril)

    def _determinant(self):
        return reduce_prod(self._diag_part(), axis=-1)

    def _log_abs_determinant(self):
        return reduce_sum(log(abs(self._diag_part())), axis=-1)

    def _eigvals(self):
        return self._diag_part()


class LinearOperatorPermutation(LinearOperator):
    """The permutation matrix ``P`` with ``(P x)[i] = x[perm[i]]``.

    Args:
        perm: ``[..., N]`` int permutation(s) of ``0..N-1``.
        dtype: the matrix dtype (default float32).
        is_non_singular, is_self_adjoint, is_positive_definite, is_square: hints.
        name: a name.
    """

    def __init__(self, perm: TensorLike, dtype=dtypes.float32, is_non_singular=None,
                 is_self_adjoint=None, is_positive_definite=None, is_square=None,
                 name: str = "LinearOperatorPermutation") -> None:
        self._perm = convert(perm)
        if not self._perm.dtype.is_integer:
            raise TypeError(f"perm must be integer, got {self._perm.dtype.name}")
        if is_non_singular is False:
            raise ValueError("A Permutation operator is always non-singular.")
        if is_square is False:
            raise ValueError("A Permutation operator is always square.")
        super().__init__(dtype, [self._perm], True, is_self_adjoint, is_positive_definite,
                         True, name, {"perm": perm, "dtype": dtype})

    perm = readonly("_perm", "The permutation.")

    def _shape(self):
        s = self._perm.shape
        return TensorShape(None) if s.rank is None else TensorShape(s.as_list() + [s[-1]])

    def _to_dense(self):
        return one_hot(self._perm, self.shape[-1], dtype=self.dtype)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return matmul(self.to_dense(), _adj_arg(rhs, adjoint_arg), adjoint_a=not adjoint)

    def _inverse_op(self):
        return self.adjoint()


class LinearOperatorHouseholder(LinearOperator):
    """The reflection ``I - 2 v v^H / (v^H v)`` across the hyperplane normal to ``v``.

    Args:
        reflection_axis: ``[..., N]`` the vector ``v``.
        is_non_singular, is_self_adjoint, is_positive_definite, is_square: hints.
        name: a name.
    """

    def __init__(self, reflection_axis: TensorLike, is_non_singular=None,
                 is_self_adjoint=None, is_positive_definite=None, is_square=None,
                 name: str = "LinearOperatorHouseholder") -> None:
        self._v = convert(reflection_axis)
        if is_self_adjoint is False:
            raise ValueError("A Householder operator is always self adjoint.")
        if is_non_singular is False:
            raise ValueError("A Householder operator is always non-singular.")
        if is_square is False:
            raise ValueError("A Householder operator is always square.")
        if is_positive_definite is True:
            raise ValueError("A Householder operator is never positive definite.")
        super().__init__(self._v.dtype, [self._v], True, True, False, True, name,
                         {"reflection_axis": reflection_axis})

    reflection_axis = readonly("_v", "The vector ``v``.")

    def _shape(self):
        s = self._v.shape
        return TensorShape(None) if s.rank is None else TensorShape(s.as_list() + [s[-1]])

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        x = _adj_arg(x, adjoint_arg)
        v = expand_dims(self._v, -1)                                  # [..., N, 1]
        vhx = matmul(v, x, adjoint_a=True)                            # [..., 1, R]
        norm2 = matmul(v, v, adjoint_a=True)                          # [..., 1, 1]
        return subtract(x, multiply(cast(2, self.dtype), matmul(v, divide(vhx, norm2))))

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self._matmul(rhs, adjoint, adjoint_arg)

    def _determinant(self):
        return -ones(self.batch_shape.as_list(), self.dtype)

    def _log_abs_determinant(self):
        return zeros(self.batch_shape.as_list(), self.dtype.real_dtype)

    def _trace(self):
        return cast(self.shape[-1] - 2, self.dtype) + zeros(self.batch_shape.as_list(),
                                                             self.dtype)

    def _inverse_op(self):
        return self


class LinearOperatorToeplitz(LinearOperator):
    """The Toeplitz matrix with first column ``col`` and first row ``row`` (``row[0]`` is
    ignored: ``col[0]`` is the diagonal).

    Args:
        col: ``[..., N]``.
        row: ``[..., N]``.
        is_non_singular, is_self_adjoint, is_positive_definite, is_square: hints.
        name: a name.
    """

    def __init__(self, col: TensorLike, row: TensorLike, is_non_singular=None,
                 is_self_adjoint=None, is_positive_definite=None, is_square=None,
                 name: str = "LinearOperatorToeplitz") -> None:
        self._col = convert(col)
        self._row = convert(row, dtype=self._col.dtype)
        if is_square is False:
            raise ValueError("Only square Toeplitz operators currently supported.")
        super().__init__(self._col.dtype, [self._col, self._row], is_non_singular,
                         is_self_adjoint, is_positive_definite, True, name,
                         {"col": col, "row": row})

    col = readonly("_col", "The first column.")
    row = readonly("_row", "The first row.")

    def _shape(self):
        s = self._col.shape.merge_with(self._row.shape) \
            if self._col.shape.rank == self._row.shape.rank else self._col.shape
        return TensorShape(None) if s.rank is None else TensorShape(s.as_list() + [s[-1]])

    def _to_dense(self):
        n = self.shape[-1]
        if n is None:
            raise ValueError("LinearOperatorToeplitz needs a static size")
        row = broadcast_to(self._row, self.shape.as_list()[:-1]) if n else self._row
        col = broadcast_to(self._col, self.shape.as_list()[:-1]) if n else self._col
        both = concat([reverse(row[..., 1:], [-1]), col], -1)        # index n-1+i-j
        idx = (n - 1 + np.arange(n)[:, None] - np.arange(n)[None, :]).astype(np.int32)
        return gather(both, idx, axis=-1, batch_dims=0)


class LinearOperatorTridiag(LinearOperator):
    """A tridiagonal matrix given by its three diagonals.

    Args:
        diagonals: ``compact``: ``[..., 3, N]`` (superdiagonal, diagonal, subdiagonal; the
            superdiagonal's last and the subdiagonal's first entries are ignored);
            ``sequence``: a list of those three ``[..., N]`` tensors; ``matrix``: the
            ``[..., N, N]`` matrix (entries off the three diagonals ignored).
        diagonals_format: ``compact``, ``sequence`` or ``matrix``.
        is_non_singular, is_self_adjoint, is_positive_definite, is_square: hints.
        name: a name.
    """

    def __init__(self, diagonals, diagonals_format: str = "compact", is_non_singular=None,
                 is_self_adjoint=None, is_positive_definite=None, is_square=None,
                 name: str = "LinearOperatorTridiag") -> None:
        if diagonals_format not in ("compact", "sequence", "matrix"):
            raise ValueError(f"Unrecognized diagonals_format: {diagonals_format!r}")
        if diagonals_format == "sequence":
            parts = [convert(d) for d in diagonals]
            if len(parts) != 3:
                raise ValueError("diagonals_format='sequence' needs 3 diagonals")
            self._diags = stack(parts, -2)
        elif diagonals_format == "matrix":
            m = convert(diagonals)
            n = m.shape[-1]
            up = concat([diag_part(m[..., :-1, 1:]), zeros(m.shape.as_list()[:-2] + [1],
                                                           m.dtype)], -1)
            lo = concat([zeros(m.shape.as_list()[:-2] + [1], m.dtype),
                         diag_part(m[..., 1:, :-1])], -1)
            self._diags = stack([up, diag_part(m), lo], -2) if n else m
        else:
            self._diags = convert(diagonals)
        if is_square is False:
            raise ValueError("Only square tridiagonal operators currently supported.")
        self._format = diagonals_format
        super().__init__(self._diags.dtype, [self._diags], is_non_singular, is_self_adjoint,
                         is_positive_definite, True, name,
                         {"diagonals": diagonals, "diagonals_format": diagonals_format})

    diagonals = readonly("_diags", "The diagonals in compact form ``[..., 3, N]``.")
    diagonals_format = readonly("_format", "The format the diagonals were given in.")

    def _shape(self):
        s = self._diags.shape
        if s.rank is None:
            return s
        return TensorShape(s.as_list()[:-2] + [s[-1], s[-1]])

    def _to_dense(self):
        n = self.shape[-1]
        if n is None:
            raise ValueError("LinearOperatorTridiag needs a static size")
        up, mid, lo = (self._diags[..., k, :] for k in range(3))
        shift_up = convert(np.eye(n, k=1), dtype=self.dtype)          # row i: up[i] at i+1
        shift_lo = convert(np.eye(n, k=-1), dtype=self.dtype)         # row i: lo[i] at i-1
        return (_diag(mid) + multiply(expand_dims(up, -1), shift_up) +
                multiply(expand_dims(lo, -1), shift_lo))

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return tridiagonal_solve(self._diags, _adj_arg(rhs, adjoint_arg),
                                 transpose_rhs=False, conjugate_rhs=False) if not adjoint \
            else super()._solve(rhs, adjoint, adjoint_arg)

    def _diag_part(self):
        return self._diags[..., 1, :]


register_operator_kinds(lower_triangular=LinearOperatorLowerTriangular)
