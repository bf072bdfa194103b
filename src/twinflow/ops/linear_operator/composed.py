"""Operators built from operators: adjoint, inversion, composition (product), block diagonal,
block lower triangular, Kronecker product and low-rank update."""
from __future__ import annotations

import functools

from ...core.props import readonly
from ...core.shapes import TensorShape
from ...graph.tensor import Tensor, TensorLike
from ..array_ops import expand_dims, reshape, split, zeros
from ..core import convert
from ..linalg_ops import adjoint as _adjoint
from ..linalg_ops import einsum, matmul
from ..math_ops import add, cast, conj, multiply, negative, pow, reciprocal, subtract
from ..reduction_ops import reduce_sum
from .base import LinearOperator, batch_concat, register_operator_kinds


def _and(*hints):
    """True when every hint is True, else None (unknown)."""
    return True if all(h is True for h in hints) else None


def _or_inner(given, inner):
    """A hint given to a derived operator, else the inner operator's."""
    return inner if given is None else given


def _product(values: list) -> Tensor:
    """``values[0] * values[1] * ...``: the determinant of a product or block-triangular matrix."""
    return functools.reduce(multiply, values)


def _total(values: list) -> Tensor:
    """``values[0] + values[1] + ...``: its log-absolute-determinant."""
    return functools.reduce(add, values)


def _operator_list(operators) -> tuple:
    """``(operators as a list, their dtype)``: at least one operator, all of one dtype."""
    ops = list(operators)
    if not ops:
        raise ValueError("Expected a non-empty list of operators")
    return ops, _dtype_of(ops)


def _dtype_of(operators: list):
    dts = {op.dtype for op in operators}
    if len(dts) != 1:
        raise TypeError(f"Expected all operators to have the same dtype, got "
                        f"{sorted(d.name for d in dts)}")
    return dts.pop()


def _broadcast_batch(shapes: list) -> list:
    out: list = []
    for s in shapes:
        b = s.as_list()[:-2]
        if len(b) > len(out):
            out = [1] * (len(b) - len(out)) + out
        b = [1] * (len(out) - len(b)) + b
        out = [x if y == 1 else y for x, y in zip(out, b)]
    return out


class LinearOperatorAdjoint(LinearOperator):
    """The adjoint (conjugate transpose) of an operator.

    Args:
        operator: the operator.
        is_non_singular, is_self_adjoint, is_positive_definite, is_square: hints; each must
            agree with the operator's, which is the default.
        name: a name (default: the operator's, with ``_adjoint``).
    """

    def __init__(self, operator: LinearOperator, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name=None) -> None:
        self._op = operator
        hints = []
        for hint, given in [("is_non_singular", is_non_singular),
                            ("is_self_adjoint", is_self_adjoint),
                            ("is_positive_definite", is_positive_definite),
                            ("is_square", is_square)]:
            inner = getattr(operator, hint)
            if given is not None and inner is not None and given != inner:
                raise ValueError(f"An operator's adjoint has the same {hint[3:]} hint: got "
                                 f"{given}, the operator has {inner}")
            hints.append(_or_inner(given, inner))
        super().__init__(operator.dtype, None, *hints, name or operator.name + "_adjoint",
                         {"operator": operator})

    operator = readonly("_op", "The wrapped operator.")

    def _shape(self):
        s = self._op.shape
        return s if s.rank is None else TensorShape(s.as_list()[:-2] + [s[-1], s[-2]])

    def _to_dense(self):
        return _adjoint(self._op.to_dense())

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return self._op.matmul(x, adjoint=not adjoint, adjoint_arg=adjoint_arg)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self._op.solve(rhs, adjoint=not adjoint, adjoint_arg=adjoint_arg)

    def _determinant(self):
        d = self._op.determinant()
        return conj(d) if self.dtype.is_complex else d

    def _log_abs_determinant(self):
        return self._op.log_abs_determinant()

    def _diag_part(self):
        d = self._op.diag_part()
        return conj(d) if self.dtype.is_complex else d

    def _eigvals(self):
        e = self._op.eigvals()
        return conj(e) if e.dtype.is_complex else e

    def _adjoint_op(self):
        return self._op


class LinearOperatorInversion(LinearOperator):
    """The inverse of a (non-singular, square) operator.

    Args:
        operator: the operator (not hinted singular or non-square).
        is_non_singular, is_square: hints; the inverse is always both (False is an error).
        is_self_adjoint, is_positive_definite: hints (default: the operator's).
        name: a name (default: the operator's, with ``_inv``).
    """

    def __init__(self, operator: LinearOperator, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name=None) -> None:
        if operator.is_non_singular is False or is_non_singular is False:
            raise ValueError("operator and the inversion must be non-singular")
        if operator.is_square is False or is_square is False:
            raise ValueError("operator and the inversion must be square")
        self._op = operator
        super().__init__(operator.dtype, None, True,
                         _or_inner(is_self_adjoint, operator.is_self_adjoint),
                         _or_inner(is_positive_definite, operator.is_positive_definite), True,
                         name or operator.name + "_inv", {"operator": operator})

    operator = readonly("_op", "The wrapped operator.")

    def _shape(self):
        return self._op.shape

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return self._op.solve(x, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self._op.matmul(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def _determinant(self):
        return reciprocal(self._op.determinant())

    def _log_abs_determinant(self):
        return negative(self._op.log_abs_determinant())

    def _eigvals(self):
        return reciprocal(self._op.eigvals())

    def _inverse_op(self):
        return self._op


class LinearOperatorComposition(LinearOperator):
    """The product ``A1 @ A2 @ ... @ An`` of operators (applied right to left).

    Args:
        operators: the factors (at least one), sharing a dtype.
        is_non_singular: hint (True, and False an error, when every factor is non-singular).
        is_self_adjoint, is_positive_definite, is_square: hints.
        name: a name (default: the factors' names joined by ``_o_``).
    """

    def __init__(self, operators, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name=None) -> None:
        self._ops, dtype = _operator_list(operators)
        for a, b in zip(self._ops, self._ops[1:]):
            if a.domain_dimension is not None and b.range_dimension is not None and \
                    a.domain_dimension != b.range_dimension:
                raise ValueError(f"Operators are incompatible: {a.name} has domain dimension "
                                 f"{a.domain_dimension}, {b.name} range dimension "
                                 f"{b.range_dimension}")
        if all(op.is_non_singular for op in self._ops):
            if is_non_singular is False:
                raise ValueError("The composition of non-singular operators is always "
                                 "non-singular.")
            is_non_singular = True
        super().__init__(dtype, None, is_non_singular, is_self_adjoint, is_positive_definite,
                         is_square, name or "_o_".join(op.name for op in self._ops),
                         {"operators": self._ops})

    operators = readonly("_ops", "The factors.", copy=list)

    def _shape(self):
        batch = _broadcast_batch([op.shape for op in self._ops])
        return TensorShape(batch + [self._ops[0].range_dimension,
                                    self._ops[-1].domain_dimension])

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        ops = self._ops if not adjoint else self._ops[::-1]
        y = ops[-1].matmul(x, adjoint=adjoint, adjoint_arg=adjoint_arg)
        for op in reversed(ops[:-1]):
            y = op.matmul(y, adjoint=adjoint)
        return y

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        ops = self._ops if not adjoint else self._ops[::-1]
        y = ops[0].solve(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg)
        for op in ops[1:]:
            y = op.solve(y, adjoint=adjoint)
        return y

    def _determinant(self):
        if all(op.is_square for op in self._ops):
            return _product([op.determinant() for op in self._ops])
        return super()._determinant()

    def _log_abs_determinant(self):
        if all(op.is_square for op in self._ops):
            return _total([op.log_abs_determinant() for op in self._ops])
        return super()._log_abs_determinant()


def _blocks_dense(rows: list, dtype) -> Tensor:
    """A dense matrix from rows of dense blocks (None: a zero block)."""
    sizes_r = [next(b for b in row if b is not None).shape[-2] for row in rows]
    sizes_c = [None] * max(len(r) for r in rows)
    for row in rows:
        for j, b in enumerate(row):
            if b is not None:
                sizes_c[j] = b.shape[-1]
    batch = _broadcast_batch([b.shape for row in rows for b in row if b is not None])
    out_rows = []
    for i, row in enumerate(rows):
        parts = []
        for j, n in enumerate(sizes_c):
            b = row[j] if j < len(row) else None
            if b is None:
                b = zeros(batch + [sizes_r[i], n], dtype)
            elif b.shape.as_list()[:-2] != batch:
                b = b + zeros(batch + [sizes_r[i], n], dtype)
            parts.append(b)
        out_rows.append(batch_concat(parts, -1))
    return batch_concat(out_rows, -2)


class LinearOperatorBlockDiag(LinearOperator):
    """A block-diagonal operator of square operators.

    Args:
        operators: the diagonal blocks (square, one dtype).
        is_non_singular, is_self_adjoint, is_positive_definite: hints.
        is_square: must be True.
        name: a name.
    """

    def __init__(self, operators, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=True, name=None) -> None:
        self._ops = list(operators)
        if not self._ops:
            raise ValueError("Expected a non-empty list of operators")
        if is_square is False or any(op.is_square is False for op in self._ops):
            raise ValueError("LinearOperatorBlockDiag needs square blocks")
        dtype = _dtype_of(self._ops)
        is_non_singular = is_non_singular or _and(*(o.is_non_singular for o in self._ops))
        is_self_adjoint = is_self_adjoint or _and(*(o.is_self_adjoint for o in self._ops))
        is_positive_definite = is_positive_definite or _and(
            *(o.is_positive_definite for o in self._ops))
        super().__init__(dtype, None, is_non_singular, is_self_adjoint, is_positive_definite,
                         True, name or "_ds_".join(op.name for op in self._ops),
                         {"operators": self._ops})

    operators = readonly("_ops", "The blocks.", copy=list)

    def _sizes(self) -> list:
        return [op.domain_dimension for op in self._ops]

    def _shape(self):
        n = sum(self._sizes())
        return TensorShape(_broadcast_batch([op.shape for op in self._ops]) + [n, n])

    def _to_dense(self):
        k = len(self._ops)
        return _blocks_dense([[op.to_dense() if j == i else None for j in range(k)]
                              for i, op in enumerate(self._ops)], self.dtype)

    def _apply(self, x, adjoint, adjoint_arg, fn: str):
        x = _adjoint(x) if adjoint_arg else x
        parts = split(x, self._sizes(), axis=-2)
        return batch_concat([getattr(op, fn)(p, adjoint=adjoint)
                             for op, p in zip(self._ops, parts)], -2)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return self._apply(x, adjoint, adjoint_arg, "matmul")

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self._apply(rhs, adjoint, adjoint_arg, "solve")

    def _determinant(self):
        return _product([op.determinant() for op in self._ops])

    def _log_abs_determinant(self):
        return _total([op.log_abs_determinant() for op in self._ops])

    def _diag_part(self):
        return batch_concat([op.diag_part() for op in self._ops], -1)


class LinearOperatorBlockLowerTriangular(LinearOperator):
    """A block lower-triangular operator: row ``i`` of ``operators`` holds its ``i + 1``
    blocks, the last one on the diagonal (square).

    Args:
        operators: a list of lists of operators.
        is_non_singular, is_self_adjoint, is_positive_definite, is_square: hints.
        name: a name.
    """

    def __init__(self, operators, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None,
                 name: str = "LinearOperatorBlockLowerTriangular") -> None:
        self._rows = [list(r) for r in operators]
        if not self._rows:
            raise ValueError("Expected a non-empty list of operator rows")
        for i, row in enumerate(self._rows):
            if len(row) != i + 1:
                raise ValueError(f"Row {i} of operators must hold {i + 1} operators, got "
                                 f"{len(row)}")
            if row[-1].is_square is False:
                raise ValueError(f"Diagonal block {i} must be square")
        dtype = _dtype_of([op for row in self._rows for op in row])
        diag = [row[-1] for row in self._rows]
        if all(op.is_non_singular for op in diag):
            is_non_singular = True if is_non_singular is None else is_non_singular
        super().__init__(dtype, None, is_non_singular, is_self_adjoint, is_positive_definite,
                         True if is_square is None else is_square, name,
                         {"operators": self._rows})

    @property
    def operators(self) -> list:
        """The rows of blocks."""
        return [list(r) for r in self._rows]

    def _sizes(self) -> list:
        return [row[-1].domain_dimension for row in self._rows]

    def _shape(self):
        n = sum(self._sizes())
        return TensorShape(_broadcast_batch([op.shape for r in self._rows for op in r]) +
                           [n, n])

    def _to_dense(self):
        return _blocks_dense([[op.to_dense() for op in row] for row in self._rows],
                             self.dtype)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        if adjoint:
            return super()._matmul(x, adjoint, adjoint_arg)
        x = _adjoint(x) if adjoint_arg else x
        parts = split(x, self._sizes(), axis=-2)
        out = []
        for row in self._rows:
            y = row[0].matmul(parts[0])
            for op, p in zip(row[1:], parts[1:]):
                y = add(y, op.matmul(p))
            out.append(y)
        return batch_concat(out, -2)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        if adjoint:
            return super()._solve(rhs, adjoint, adjoint_arg)
        rhs = _adjoint(rhs) if adjoint_arg else rhs
        parts = split(rhs, self._sizes(), axis=-2)
        xs: list = []
        for row, b in zip(self._rows, parts):          # forward substitution
            for op, x in zip(row[:-1], xs):
                b = subtract(b, op.matmul(x))
            xs.append(row[-1].solve(b))
        return batch_concat(xs, -2)

    def _determinant(self):
        return _product([row[-1].determinant() for row in self._rows])

    def _log_abs_determinant(self):
        return _total([row[-1].log_abs_determinant() for row in self._rows])

    def _diag_part(self):
        return batch_concat([row[-1].diag_part() for row in self._rows], -1)


class LinearOperatorKronecker(LinearOperator):
    """The Kronecker product ``A1 ⊗ A2 ⊗ ... ⊗ An``.

    Args:
        operators: the factors, sharing a dtype.
        is_non_singular, is_self_adjoint: hints (default: True when every factor's is True).
        is_positive_definite, is_square: hints.
        name: a name (default: the factors' names joined by ``_x_``).
    """

    def __init__(self, operators, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name=None) -> None:
        self._ops, dtype = _operator_list(operators)
        if all(op.is_non_singular for op in self._ops):
            is_non_singular = True if is_non_singular is None else is_non_singular
        if all(op.is_self_adjoint for op in self._ops):
            is_self_adjoint = True if is_self_adjoint is None else is_self_adjoint
        super().__init__(dtype, None, is_non_singular, is_self_adjoint, is_positive_definite,
                         is_square, name or "_x_".join(op.name for op in self._ops),
                         {"operators": self._ops})

    operators = readonly("_ops", "The factors.", copy=list)

    def _shape(self):
        m = n = 1
        for op in self._ops:
            m, n = m * op.range_dimension, n * op.domain_dimension
        return TensorShape(_broadcast_batch([op.shape for op in self._ops]) + [m, n])

    def _to_dense(self):
        out = self._ops[0].to_dense()
        for op in self._ops[1:]:
            b = op.to_dense()
            k = einsum("...ij,...kl->...ikjl", out, b)
            s = k.shape.as_list()
            out = k if None in s else \
                reshape(k, s[:-4] + [s[-4] * s[-3], s[-2] * s[-1]])
        return out

    def _determinant(self):
        if not all(op.is_square for op in self._ops):
            return super()._determinant()
        n = self.shape[-1]
        return _product([pow(op.determinant(), cast(n // op.domain_dimension, self.dtype))
                         for op in self._ops])

    def _log_abs_determinant(self):
        if not all(op.is_square for op in self._ops):
            return super()._log_abs_determinant()
        n = self.shape[-1]
        return _total([multiply(op.log_abs_determinant(),
                                cast(n // op.domain_dimension, self.dtype.real_dtype))
                       for op in self._ops])


class LinearOperatorLowRankUpdate(LinearOperator):
    """``A = L + U D V^H``: a base operator plus a rank-``K`` update.

    Args:
        base_operator: ``L`` (``[..., M, N]``).
        u: ``[..., M, K]``.
        diag_update: ``[..., K]`` (default: ones).
        v: ``[..., N, K]`` (default: ``u``).
        is_diag_update_positive: hint: ``diag_update > 0``.
        is_non_singular, is_self_adjoint, is_positive_definite, is_square: hints.
        name: a name.
    """

    def __init__(self, base_operator: LinearOperator, u: TensorLike, diag_update=None,
                 v=None, is_diag_update_positive=None, is_non_singular=None,
                 is_self_adjoint=None, is_positive_definite=None, is_square=None,
                 name: str = "LinearOperatorLowRankUpdate") -> None:
        self._base = base_operator
        self._u = convert(u, dtype=base_operator.dtype)
        self._v = self._u if v is None else convert(v, dtype=base_operator.dtype)
        self._d = None if diag_update is None else convert(diag_update,
                                                           dtype=base_operator.dtype)
        self._is_diag_update_positive = is_diag_update_positive
        if v is None and base_operator.is_self_adjoint and is_self_adjoint is None:
            is_self_adjoint = True
        if v is None and base_operator.is_positive_definite and is_diag_update_positive \
                and is_positive_definite is None:
            is_positive_definite = True
        super().__init__(base_operator.dtype, None, is_non_singular, is_self_adjoint,
                         is_positive_definite, is_square, name,
                         {"base_operator": base_operator, "u": u, "diag_update": diag_update,
                          "v": v, "is_diag_update_positive": is_diag_update_positive})

    base_operator = readonly("_base", "``L``.")
    u = readonly("_u", "``U``.")
    v = readonly("_v", "``V``.")
    diag_update = readonly("_d", "``D``'s diagonal (None: ones).")
    is_diag_update_positive = readonly("_is_diag_update_positive", "Hint: ``D > 0``.")

    def _shape(self):
        return TensorShape(_broadcast_batch([self._base.shape, self._u.shape]) +
                           self._base.shape.as_list()[-2:])

    def _update(self) -> Tensor:
        u = self._u if self._d is None else multiply(self._u, expand_dims(self._d, -2))
        return matmul(u, self._v, adjoint_b=True)

    def _to_dense(self):
        return add(self._base.to_dense(), self._update())

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        x = _adjoint(x) if adjoint_arg else x
        left, right = (self._v, self._u) if adjoint else (self._u, self._v)
        d = self._d
        if d is not None and adjoint and self.dtype.is_complex:
            d = conj(d)
        t = matmul(right, x, adjoint_a=True)                         # [..., K, R]
        if d is not None:
            t = multiply(expand_dims(d, -1), t)
        return add(self._base.matmul(x, adjoint=adjoint), matmul(left, t))

    def _diag_part(self):
        u = self._u if self._d is None else multiply(self._u, expand_dims(self._d, -2))
        return add(self._base.diag_part(), reduce_sum(multiply(u, conj(self._v)), axis=-1))


register_operator_kinds(adjoint=LinearOperatorAdjoint, inversion=LinearOperatorInversion,
                        composition=LinearOperatorComposition)
