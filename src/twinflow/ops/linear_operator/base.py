"""``tw.linalg.LinearOperator``: a matrix (or batch of matrices) known by how it acts.

A subclass says what it is in one of two ways: it builds its dense matrix (``_to_dense``) or it
multiplies (``_matmul``); the base class derives everything else from those (solve through
``tw.linalg.solve``, determinants through ``slogdet``...), and subclasses override what their
structure makes cheaper or exact (a diagonal's determinant is a product). Every method is
written with twinflow ops, so it runs eagerly, traces into graphs and differentiates.

The hints (``is_non_singular``, ``is_self_adjoint``, ``is_positive_definite``, ``is_square``)
are True, False or None (unknown); contradictory hints raise ``ValueError`` as in TensorFlow,
and a method the hints rule out (``solve`` of a singular operator) raises
``NotImplementedError``.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ...core import dtypes
from ...core.props import readonly
from ...core.shapes import TensorShape
from ...graph.tensor import Tensor, TensorLike
from ..array_ops import concat, expand_dims, eye, shape, squeeze
from ..core import convert
from ..debugging.asserts import assert_equal, assert_less, assert_positive
from ..linalg_compose import cholesky_solve
from ..linalg_decomp import eigvalsh, slogdet, svd
from ..linalg_lu import eigvals
from ..linalg_ops import adjoint as _adjoint
from ..linalg_ops import cholesky, det, diag_part, matmul, solve
from ..math_ops import add, cast, divide, multiply, real
from ..reduction_ops import reduce_max, reduce_min, reduce_sum

_KINDS: dict = {}


def register_operator_kinds(**kinds) -> None:
    """Declares the operator classes the base class builds (``adjoint``, ``inversion``,
    ``composition``, ``lower_triangular``), defined in modules that import this one.

    Args:
        **kinds: class by role.
    """
    _KINDS.update(kinds)


def _hint_error(msg: str) -> ValueError:
    return ValueError(msg)


def static_dim(t: Tensor, axis: int):
    """The static size of axis ``axis`` of ``t`` (None when unknown)."""
    s = t.shape
    return None if s.rank is None else s[axis]


def _shape_part(method: str, summary: str, part, returns: str) -> Callable[..., Tensor]:
    """A ``LinearOperator.<method>(name=...)`` that returns ``shape_tensor()[part]``."""
    def shape_part(self, name: str = method) -> Tensor:
        return self.shape_tensor()[part]
    shape_part.__name__, shape_part.__qualname__ = method, f"LinearOperator.{method}"
    shape_part.__doc__ = (f"{summary}\n\nArgs:\n    name: unused label.\n\n"
                          f"Returns:\n    {returns}\n")
    return shape_part


def _public(method: str, label: str, summary: str, returns: str,
            square: str | None = None) -> Callable[..., Tensor]:
    """``LinearOperator.<method>(name=label)``: ``self._<method>()``, which subclasses override;
    when ``square`` names the computation, a non-square operator is refused first."""
    private = "_" + method

    def public(self, name: str = label) -> Tensor:
        if square is not None:
            self._need_square(square)
        return getattr(self, private)()
    public.__name__, public.__qualname__ = method, f"LinearOperator.{method}"
    public.__doc__ = f"{summary}\n\nArgs:\n    name: unused label.\n\nReturns:\n    {returns}\n"
    return public


class LinearOperator:
    """Base class of linear operators (a batch of ``[M, N]`` matrices).

    Args:
        dtype: the dtype of the matrix.
        graph_parents: tensors this operator depends on (kept for inspection only).
        is_non_singular: hint: the operator is invertible.
        is_self_adjoint: hint: the operator equals its conjugate transpose.
        is_positive_definite: hint: ``Re(x^H A x) > 0`` for every non-zero ``x``.
        is_square: hint: ``M == N``.
        name: a name for the operator.
        parameters: the constructor's arguments (``operator.parameters``).
    """

    def __init__(self, dtype, graph_parents=None, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name=None, parameters=None) -> None:
        if is_positive_definite:
            if is_non_singular is False:
                raise _hint_error("A positive definite matrix is always non-singular.")
            is_non_singular = True
        if is_non_singular:
            if is_square is False:
                raise _hint_error("A non-singular matrix is always square.")
            is_square = True
        if is_self_adjoint:
            if is_square is False:
                raise _hint_error("A self-adjoint matrix is always square.")
            is_square = True
        self._dtype = dtypes.as_dtype(dtype) if dtype is not None else None
        self._graph_parents = list(graph_parents or [])
        self._is_non_singular = is_non_singular
        self._is_self_adjoint = is_self_adjoint
        self._is_positive_definite = is_positive_definite
        self._is_square_hint = is_square
        self._name = name or type(self).__name__
        self._parameters = dict(parameters or {})

    # ----- what subclasses provide -----
    def _shape(self) -> TensorShape:
        raise NotImplementedError(f"{type(self).__name__} must define _shape")

    def _to_dense(self) -> Tensor:
        return self.matmul(self._identity())

    def _matmul(self, x: Tensor, adjoint: bool = False, adjoint_arg: bool = False) -> Tensor:
        if type(self)._to_dense is LinearOperator._to_dense:
            raise NotImplementedError(f"{type(self).__name__} must define _to_dense or _matmul")
        return matmul(self.to_dense(), x, adjoint_a=adjoint, adjoint_b=adjoint_arg)

    # The operators ``adjoint``, ``inverse`` and ``cholesky`` return; a structure overrides them
    # to keep itself (a diagonal's inverse is a diagonal).
    def _adjoint_op(self) -> LinearOperator:
        return _KINDS["adjoint"](self)

    def _inverse_op(self) -> LinearOperator:
        return _KINDS["inversion"](self)

    def _cholesky_op(self) -> LinearOperator:
        return _KINDS["lower_triangular"](cholesky(self.to_dense()), is_non_singular=True)

    # ----- properties -----
    dtype = readonly("_dtype", "The dtype of the matrix.")
    name = readonly("_name", "The operator's name.")
    parameters = readonly("_parameters", "The constructor arguments.", copy=dict)
    graph_parents = readonly("_graph_parents", "Tensors given as graph parents.", copy=list)
    is_non_singular = readonly("_is_non_singular", "Hint: invertible (True/False/None).")
    is_self_adjoint = readonly("_is_self_adjoint",
                               "Hint: equal to its adjoint (True/False/None).")
    is_positive_definite = readonly("_is_positive_definite",
                                    "Hint: positive definite (True/False/None).")

    @property
    def is_square(self):
        """Whether ``M == N`` (from the static shape when known, else the hint)."""
        s = self.shape
        if s.rank is not None and s[-1] is not None and s[-2] is not None:
            return s[-1] == s[-2]
        return self._is_square_hint

    @property
    def shape(self) -> TensorShape:
        """The static shape ``batch_shape + [M, N]``."""
        return self._shape()

    def shape_tensor(self, name: str = "shape_tensor") -> Tensor:
        """The dynamic shape.

        Args:
            name: unused label.

        Returns:
            int32 ``[rank]``.
        """
        if self.shape.is_fully_defined():
            return convert(np.array(self.shape.as_list(), np.int32))
        return self._shape_tensor()

    def _shape_tensor(self) -> Tensor:
        return shape(self.to_dense())

    @property
    def batch_shape(self) -> TensorShape:
        """The static batch shape (all but the last two dims)."""
        s = self.shape
        return TensorShape(None) if s.rank is None else TensorShape(s.as_list()[:-2])

    batch_shape_tensor = _shape_part("batch_shape_tensor", "The dynamic batch shape.",
                                     slice(None, -2), "int32 vector.")

    @property
    def tensor_rank(self):
        """The rank of the matrix tensor (batch rank + 2), or None."""
        return self.shape.rank

    def tensor_rank_tensor(self, name: str = "tensor_rank_tensor") -> Tensor:
        """The rank as a tensor.

        Args:
            name: unused label.

        Returns:
            int32 scalar.
        """
        return shape(self.shape_tensor())[0]

    @property
    def domain_dimension(self):
        """``N``, the number of columns (None when unknown)."""
        return None if self.shape.rank is None else self.shape[-1]

    domain_dimension_tensor = _shape_part("domain_dimension_tensor", "``N`` as a tensor.", -1,
                                          "int32 scalar.")

    @property
    def range_dimension(self):
        """``M``, the number of rows (None when unknown)."""
        return None if self.shape.rank is None else self.shape[-2]

    range_dimension_tensor = _shape_part("range_dimension_tensor", "``M`` as a tensor.", -2,
                                         "int32 scalar.")

    @property
    def H(self) -> LinearOperator:  # noqa: N802  (TensorFlow's name)
        """The adjoint operator."""
        return self.adjoint()

    # ----- checks -----
    def _need_square(self, what: str) -> None:
        if self.is_square is False:
            raise NotImplementedError(f"{what} not implemented for an operator that is "
                                      "expected to not be square.")

    def _need_non_singular(self, what: str) -> None:
        if self.is_non_singular is False:
            raise NotImplementedError(f"{what} not implemented for an operator that is "
                                      "expected to be singular.")
        self._need_square(what)

    def _identity(self, n=None) -> Tensor:
        n = self.domain_dimension if n is None else n
        if n is None or not self.batch_shape.is_fully_defined():
            raise ValueError(f"{type(self).__name__}: to_dense needs a static shape, got "
                             f"{self.shape}")
        return eye(n, batch_shape=self.batch_shape.as_list(), dtype=self.dtype)

    # ----- the API -----
    to_dense = _public("to_dense", "to_dense", "The dense matrix.", "``batch_shape + [M, N]``.")

    def matmul(self, x, adjoint: bool = False, adjoint_arg: bool = False,
               name: str = "matmul") -> Tensor | LinearOperator:
        """``A @ x`` (``A^H`` when ``adjoint``; ``x^H`` when ``adjoint_arg``).

        Args:
            x: ``[..., N, R]`` tensor or a LinearOperator.
            adjoint: use the adjoint of this operator.
            adjoint_arg: use the adjoint of ``x``.
            name: unused label.

        Returns:
            ``[..., M, R]`` (a LinearOperatorComposition when ``x`` is an operator).
        """
        if isinstance(x, LinearOperator):
            left = self.adjoint() if adjoint else self
            right = x.adjoint() if adjoint_arg else x
            return _KINDS["composition"]([left, right])
        x = convert(x, dtype=self.dtype)
        return self._matmul(x, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def __matmul__(self, other):
        return self.matmul(other)

    def matvec(self, x: TensorLike, adjoint: bool = False, name: str = "matvec") -> Tensor:
        """``A @ x`` for vectors ``x`` of shape ``[..., N]``.

        Args:
            x: ``[..., N]``.
            adjoint: use the adjoint.
            name: unused label.

        Returns:
            ``[..., M]``.
        """
        x = convert(x, dtype=self.dtype)
        return squeeze(self.matmul(expand_dims(x, -1), adjoint=adjoint), -1)

    def _solve(self, rhs: Tensor, adjoint: bool = False, adjoint_arg: bool = False) -> Tensor:
        if adjoint_arg:
            rhs = _adjoint(rhs)
        dense = self.to_dense()
        if self.is_self_adjoint and self.is_positive_definite:
            return cholesky_solve(cholesky(dense), rhs)
        return solve(dense, rhs, adjoint=adjoint)

    def solve(self, rhs, adjoint: bool = False, adjoint_arg: bool = False,
              name: str = "solve") -> Tensor | LinearOperator:
        """Solves ``A X = rhs`` (``A^H X = rhs`` when ``adjoint``).

        Args:
            rhs: ``[..., M, R]`` tensor or a LinearOperator.
            adjoint: solve with the adjoint.
            adjoint_arg: use the adjoint of ``rhs``.
            name: unused label.

        Returns:
            ``[..., N, R]`` (an operator when ``rhs`` is one).
        """
        self._need_non_singular("Exact solve")
        if isinstance(rhs, LinearOperator):
            left = self.adjoint() if adjoint else self
            right = rhs.adjoint() if adjoint_arg else rhs
            return left.inverse().matmul(right)
        return self._solve(convert(rhs, dtype=self.dtype), adjoint=adjoint,
                           adjoint_arg=adjoint_arg)

    def solvevec(self, rhs: TensorLike, adjoint: bool = False, name: str = "solve") -> Tensor:
        """Solves ``A x = rhs`` for vectors.

        Args:
            rhs: ``[..., M]``.
            adjoint: solve with the adjoint.
            name: unused label.

        Returns:
            ``[..., N]``.
        """
        rhs = convert(rhs, dtype=self.dtype)
        return squeeze(self.solve(expand_dims(rhs, -1), adjoint=adjoint), -1)

    def _determinant(self) -> Tensor:
        return det(self.to_dense())

    determinant = _public("determinant", "det", "The determinant of each matrix.",
                          "``batch_shape``.", square="Determinant")

    def _log_abs_determinant(self) -> Tensor:
        return slogdet(self.to_dense())[1]

    log_abs_determinant = _public("log_abs_determinant", "log_abs_det", "``log(|det(A)|)``.",
                                  "``batch_shape`` (real).", square="Determinant")

    def _diag_part(self) -> Tensor:
        return diag_part(self.to_dense())

    diag_part = _public("diag_part", "diag_part", "The main diagonal.",
                        "``batch_shape + [min(M, N)]``.")

    def _trace(self) -> Tensor:
        return reduce_sum(self.diag_part(), axis=-1)

    trace = _public("trace", "trace", "The sum of the diagonal.", "``batch_shape``.")

    def add_to_tensor(self, x: TensorLike, name: str = "add_to_tensor") -> Tensor:
        """``A + x`` as a dense tensor.

        Args:
            x: ``[..., M, N]``.
            name: unused label.

        Returns:
            The dense sum.
        """
        return add(self.to_dense(), convert(x, dtype=self.dtype))

    def _eigvals(self) -> Tensor:
        dense = self.to_dense()
        return eigvalsh(dense) if self.is_self_adjoint else eigvals(dense)

    eigvals = _public("eigvals", "eigvals",
                      "The eigenvalues (real and ascending when self-adjoint).",
                      "``batch_shape + [N]``.", square="Eigenvalues")

    def cond(self, name: str = "cond") -> Tensor:
        """The 2-norm condition number (largest over smallest singular value).

        Args:
            name: unused label.

        Returns:
            ``batch_shape``.
        """
        s = svd(self.to_dense(), compute_uv=False)
        return divide(reduce_max(s, axis=-1), reduce_min(s, axis=-1))

    def adjoint(self, name: str = "adjoint") -> LinearOperator:
        """The conjugate transpose as an operator (this one when self-adjoint).

        Args:
            name: unused label.

        Returns:
            ``self`` when self-adjoint, else the structure's own adjoint (a diagonal's is a
            diagonal) or a LinearOperatorAdjoint.
        """
        return self if self.is_self_adjoint else self._adjoint_op()

    def inverse(self, name: str = "inverse") -> LinearOperator:
        """The inverse as an operator.

        Args:
            name: unused label.

        Returns:
            The structure's own inverse (a diagonal's is a diagonal), else a
            LinearOperatorInversion.

        Raises:
            ValueError: the operator is hinted non-square or singular.
        """
        if self.is_square is False:
            raise ValueError("Cannot take the Inverse: This operator represents a non square "
                             "matrix.")
        if self.is_non_singular is False:
            raise ValueError("Cannot take the Inverse: This operator represents a singular "
                             "matrix.")
        return self._inverse_op()

    def assert_non_singular(self, name: str = "assert_non_singular") -> object:
        """Checks the condition number is below ``100 * max(M, N) / eps``.

        Args:
            name: unused label.

        Returns:
            The assertion (None eagerly, after raising InvalidArgumentError on failure).
        """
        eps = np.finfo(real(convert(np.zeros(0, self.dtype.np))).dtype.np).eps
        limit = 100.0 * max(self.shape[-2] or 1, self.shape[-1] or 1) / eps
        return assert_less(self.cond(), cast(limit, self.cond().dtype),
                           message="Singular matrix up to precision epsilon.")

    def assert_positive_definite(self, name: str = "assert_positive_definite") -> object:
        """Checks the Hermitian part has positive eigenvalues.

        Args:
            name: unused label.

        Returns:
            The assertion, as ``assert_non_singular``'s.
        """
        dense = self.to_dense()
        herm = multiply(cast(0.5, dense.dtype), add(dense, _adjoint(dense)))
        return assert_positive(eigvalsh(herm), message="Matrix was not positive definite.")

    def assert_self_adjoint(self, name: str = "assert_self_adjoint") -> object:
        """Checks ``A == A^H``.

        Args:
            name: unused label.

        Returns:
            The assertion.
        """
        dense = self.to_dense()
        return assert_equal(dense, _adjoint(dense), message="Matrix was not equal to its "
                                                            "adjoint.")

    def cholesky(self, name: str = "cholesky") -> LinearOperator:
        """The lower Cholesky factor as an operator (self-adjoint positive definite only).

        Args:
            name: unused label.

        Returns:
            A lower-triangular LinearOperator.

        Raises:
            ValueError: the operator is not hinted self-adjoint and positive definite.
        """
        if not (self.is_self_adjoint and self.is_positive_definite):
            raise ValueError("Cholesky decomposition is only defined for operators marked "
                             "is_self_adjoint=True and is_positive_definite=True.")
        return self._cholesky_op()

    def __repr__(self) -> str:
        return (f"<tw.linalg.{type(self).__name__} '{self.name}' shape={self.shape} "
                f"dtype={self.dtype.name if self.dtype else None}>")


def batch_concat(parts: list, axis: int) -> Tensor:
    """``concat`` that accepts a single part."""
    return parts[0] if len(parts) == 1 else concat(parts, axis)
