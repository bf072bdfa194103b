"""Linear algebra: matmul (with transposes and batch dims), tensordot, einsum, matvec, trace,
inverse, determinant, solve, cholesky."""
from __future__ import annotations

import numpy as np

from ..core.context import ctx, process
from ..core.errors import InvalidArgumentError
from ..core.shapes import TensorShape, broadcast_shapes
from ..eager.execute import bind
from ..eager.tensor import EagerTensor
from ..graph.checks import check_dtypes_match, normalize_axis
from ..graph.registry import register_op
from ..graph.tensor import DTypeLike, Tensor, TensorLike
from . import einsum_path as _einsum_path
from . import math_ops
from .array_ops import sum_to
from .core import OnesLike, convert, static_int
from .einsum_path import _LETTERS, _split_equation, normalize_einsum_equation
from .matmul_split import split_kernel

_ET = EagerTensor
_np_matmul = np.matmul
_F32 = np.dtype(np.float32)   # (identity test before MatMul's dtype set, on the hot path)

# ----- matmul -----------------------------------------------------------------------------------


def _matmul_infer(a, b, *, transpose_a=False, transpose_b=False):
    if a.shape.rank is None or b.shape.rank is None:
        return a.dtype, TensorShape(None)
    if a.shape.rank < 2 or b.shape.rank < 2:
        raise InvalidArgumentError(
            None, None, f"In[0] and In[1] must have rank >= 2, got shapes "
            f"{a.shape.as_list()} and {b.shape.as_list()}")
    ad, bd = a.shape.as_list(), b.shape.as_list()
    m, ka = (ad[-1], ad[-2]) if transpose_a else (ad[-2], ad[-1])
    kb, n = (bd[-1], bd[-2]) if transpose_b else (bd[-2], bd[-1])
    if ka is not None and kb is not None and ka != kb:
        raise InvalidArgumentError(
            None, None, f"Matrix size-incompatible: In[0]: {ad}, In[1]: {bd} (contracting "
            f"dimension {ka} != {kb}; transpose_a={transpose_a}, transpose_b={transpose_b})")
    batch = broadcast_shapes(TensorShape(ad[:-2]), TensorShape(bd[:-2]))
    if batch is None:
        raise InvalidArgumentError(None, None, f"Incompatible batch dimensions: In[0]: {ad}, "
                                               f"In[1]: {bd}")
    return a.dtype, TensorShape(batch.as_list() + [m, n])


def _t(x, flag):
    return np.swapaxes(x, -1, -2) if flag else x


def _conj(x):
    if not x.dtype.is_complex:
        return x
    return math_ops.conj(x)


def _matmul_ta(a, b):
    return np.matmul(np.swapaxes(a, -1, -2), b)


def _matmul_tb(a, b):
    return np.matmul(a, np.swapaxes(b, -1, -2))


def _matmul_tab(a, b):
    return np.matmul(np.swapaxes(a, -1, -2), np.swapaxes(b, -1, -2))


# Like the np.matmul ufunc, these return a new array: codegen may overwrite it in place.
_matmul_ta.fresh_result = _matmul_tb.fresh_result = _matmul_tab.fresh_result = True
_MATMUL_LOWERED = {(False, False): np.matmul, (True, False): _matmul_ta,
                   (False, True): _matmul_tb, (True, True): _matmul_tab}


@register_op("MatMul", same_dtype=True)
class MatMul:
    """Matrix product of the last two dims, optionally transposing either (batch dims broadcast).
    """

    infer = _matmul_infer

    def kernel(a, b, *, transpose_a=False, transpose_b=False):
        if a.ndim < 2 or b.ndim < 2:
            raise ValueError("MatMul needs inputs of rank >= 2")  # infer explains it
        out = np.matmul(_t(a, transpose_a), _t(b, transpose_b))
        # bfloat16 (ml_dtypes) accumulates in float32: round the result, as TensorFlow does.
        return out if out.dtype == a.dtype else out.astype(a.dtype)

    def lower(op):
        """Codegen hint: plain np.matmul (on transposed views) once ranks are known >= 2."""
        a, b = op.inputs
        if (a.shape.rank or 0) < 2 or (b.shape.rank or 0) < 2 or a.dtype.np.kind == "V":
            return None
        base = _MATMUL_LOWERED[bool(op.attrs.get("transpose_a")),
                               bool(op.attrs.get("transpose_b"))]
        return split_kernel(base, op)   # (itself unless large: then split over threads)

    def grad(op, dy):
        a, b = op.inputs
        ta, tb = op.attrs["transpose_a"], op.attrs["transpose_b"]
        need_a, need_b = op.needs_grad
        # For complex inputs the gradient pairs dy with the conjugates (dy @ b^H...).
        da = db = None
        if need_a:
            cb = _conj(b)
            da = sum_to(matmul(cb, dy, transpose_a=tb, transpose_b=True) if ta else
                        matmul(dy, cb, transpose_b=not tb), a)
        if need_b:
            ca = _conj(a)
            db = sum_to(matmul(dy, ca, transpose_a=True, transpose_b=ta) if tb else
                        matmul(ca, dy, transpose_a=not ta), b)
        return da, db


def matmul(a: TensorLike, b: TensorLike, transpose_a: bool = False, transpose_b: bool = False,
           adjoint_a: bool = False, adjoint_b: bool = False, a_is_sparse: bool = False,
           b_is_sparse: bool = False, output_type: DTypeLike | None = None,
           name: str | None = None) -> Tensor:
    """Matrix product ``a @ b`` (``tw.matmul``, ``tw.linalg.matmul``).

    Args:
        a: a tensor of rank >= 2.
        b: a tensor of rank >= 2 and the same dtype.
        transpose_a: transpose the last two dims of ``a`` first.
        transpose_b: transpose the last two dims of ``b`` first.
        adjoint_a: conjugate-transpose ``a`` first.
        adjoint_b: conjugate-transpose ``b`` first.
        a_is_sparse: a hint that changes nothing: TensorFlow may then pick a kernel that skips
            zeros of a dense ``a`` (same product); twinflow's BLAS product needs no hint.
        b_is_sparse: the same hint for ``b``.
        output_type: accepted for compatibility; must be None or the input dtype.
        name: op name.

    Returns:
        The product; batch dims broadcast.
    """
    if (type(a) is _ET and type(b) is _ET
            and (process.quiet or (ctx.graph is None and not ctx.slow_path
                                  and not process.eager_hook))
            and not (transpose_a or transpose_b or adjoint_a or adjoint_b)):
        # The eager hot path (``power(x, 100)``): no conversion, no attrs, no bind. Anything
        # unusual (mixed dtypes, bad shapes, object arrays) goes the long way for its error.
        av, bv = a._value, b._value
        dt = av.dtype
        if dt is bv.dtype and av.ndim >= 2 and bv.ndim >= 2 and \
                (dt is _F32 or dt in MatMul.np_dtypes):  # (int8 or bool go to bind)
            try:
                return _ET(_np_matmul(av, bv))
            except (ValueError, TypeError):
                pass
    a = convert(a)
    b = convert(b, dtype=a.dtype) if not hasattr(b, "dtype") else convert(b)
    if adjoint_a:
        a = _conj(a)
    if adjoint_b:
        b = _conj(b)
    if output_type is not None and output_type != a.dtype:
        raise TypeError(f"matmul: output_type {output_type} differs from the input dtype "
                        f"{a.dtype.name}; twinflow does not convert (use tw.cast)")
    attrs = {"transpose_a": bool(transpose_a or adjoint_a),
             "transpose_b": bool(transpose_b or adjoint_b)}
    return bind(MatMul, (a, b), attrs, name=name)


# ----- einsum -----------------------------------------------------------------------------------

def _einsum_infer(*inputs, equation):
    ins, out = _split_equation(equation, len(inputs))
    dtype = inputs[0].dtype
    if "..." in equation or out is None:
        return dtype, TensorShape(None)
    dims_of: dict = {}
    for k, (s, x) in enumerate(zip(ins, inputs)):
        if x.shape.rank is None:
            for c in s:
                dims_of.setdefault(c, []).append(None)
            continue
        dims = x.shape.as_list()
        if len(dims) != len(s):
            raise InvalidArgumentError(
                None, None, f"Input {k} of einsum '{equation}' has shape {dims}, which does not "
                f"match subscript '{s}'")
        for c, d in zip(s, dims):
            dims_of.setdefault(c, []).append(d)
    out_dims = []
    for c in out:
        dims = dims_of[c]
        big = {d for d in dims if d is not None and d != 1}
        if len(big) > 1:
            raise InvalidArgumentError(
                None, None, f"Expected dimension {min(big)} for label '{c}' of einsum "
                f"'{equation}', but found {max(big)} (input shapes "
                f"{[x.shape.as_list() if x.shape.rank is not None else None for x in inputs]})")
        out_dims.append(big.pop() if big else None if None in dims else 1)
    for c, dims in dims_of.items():
        if len({d for d in dims if d is not None and d != 1}) > 1:
            raise InvalidArgumentError(
                None, None, f"Dimensions of label '{c}' of einsum '{equation}' differ: "
                f"{dims}")
    return dtype, TensorShape(out_dims)


@register_op("DiagonalMask")
class DiagonalMask:
    """Ones where the dims that ``subscript`` labels alike have equal indices, zeros elsewhere,
    in the shape and dtype of ``x`` (the gradient of einsum's repeated labels, e.g. traces)."""

    def infer(x, *, subscript):
        return x.dtype, x.shape

    def kernel(x, *, subscript):
        idx = np.indices(x.shape, sparse=True)
        mask = np.ones((1,) * x.ndim, dtype=bool)
        for c in set(subscript):
            pos = [i for i, s in enumerate(subscript) if s == c]
            for p in pos[1:]:
                mask = mask & (idx[pos[0]] == idx[p])
        return np.broadcast_to(mask, x.shape).astype(x.dtype)

    def grad(op, dy):
        return None


@register_op("Einsum", same_dtype=True)
class Einsum:
    """Einstein summation over the explicit ``equation`` (see ``normalize_einsum_equation``)."""

    infer = _einsum_infer

    def kernel(*xs, equation):
        if xs and xs[0].dtype.kind == "V":  # bfloat16: in float32, then rounded
            return np.einsum(equation, *(x.astype(np.float32) for x in xs),
                             optimize=len(xs) > 2).astype(xs[0].dtype)
        return np.einsum(equation, *xs, optimize=len(xs) > 2)

    def grad(op, dy):
        eq = op.attrs["equation"]
        xs = op.inputs
        if "..." in eq:
            eq = normalize_einsum_equation(eq, [x.shape.rank for x in xs])
            if "..." in eq:
                raise InvalidArgumentError(None, None, f"The gradient of einsum '{eq}' needs "
                                                       "the ranks of its inputs [Op:Einsum]")
        ins, out = eq.split("->")
        ins = ins.split(",")
        grads = []
        for i, (s, x) in enumerate(zip(ins, xs)):
            if not (op.needs_grad[i] and (x.dtype.is_floating or x.dtype.is_complex)):
                grads.append(None)
                continue
            others = [(ins[j], _conj(xs[j])) for j in range(len(xs)) if j != i]
            present = set(out).union(*(set(t) for t, _ in others))
            used = set(eq)
            fresh = (c for c in _LETTERS if c not in used)
            seen: set = set()
            target = ""
            for c in s:
                target += next(fresh) if c in seen else c
                seen.add(c)
            subs = [out] + [t for t, _ in others]
            operands = [dy] + [t for _, t in others]
            if target != s:
                # A repeated label (a diagonal): the gradient lives on that diagonal only; the
                # mask's dims carry ``target``'s labels, the fresh ones appear nowhere else.
                subs.append(target)
                operands.append(bind(DiagonalMask, [x], {"subscript": s}))
            elif not set(s) <= present:
                # Labels summed away in this input alone: the gradient is broadcast along them.
                subs.append(s)
                operands.append(bind(OnesLike, [x]))
            g = bind(Einsum, operands, {"equation": ",".join(subs) + "->" + target})
            grads.append(sum_to(g, x))
        return grads


def einsum(equation, *inputs, **kwargs) -> Tensor:
    """Einstein summation (``tw.einsum``, ``tw.linalg.einsum``).

    Args:
        equation: e.g. ``'ij,jk->ik'``, ``'bij,bjk->bik'``, ``'...ij,...jk->...ik'``,
            ``'ii->'`` (trace), or implicit ``'ij,jk'``.
        *inputs: the tensors, one per comma-separated subscript, of one dtype.
        **kwargs: ``name`` (op name); ``optimize``: the contraction order of three or more
            inputs (``'greedy'``, the default, ``'optimal'``, opt_einsum's other names, True,
            False or a path; see ``ops/einsum_path.py``): one two-input op per step.

    Returns:
        The result.
    """
    name = kwargs.pop("name", None)
    optimize = kwargs.pop("optimize", "greedy")
    if kwargs:
        raise TypeError(f"einsum got unexpected keyword arguments {sorted(kwargs)}")
    _einsum_path.check_optimize(optimize)
    if len(inputs) == 1 and isinstance(inputs[0], (list, tuple)):
        inputs = tuple(inputs[0])
    xs = [convert(x) for x in inputs]
    check_dtypes_match("Einsum", xs)
    try:
        eq = normalize_einsum_equation(equation, [x.shape.rank for x in xs])
    except InvalidArgumentError as e:
        raise InvalidArgumentError(None, None, f"{e} [Op:Einsum]") from None
    if len(xs) > 2 and "..." not in eq:  # else: one op (its kernel's greedy order)
        path = _einsum_path.contraction_path(eq, [x.shape.as_list() for x in xs], optimize)
        return _einsum_path.contract(eq, xs, path, lambda e, ops: bind(
            Einsum, ops, {"equation": e}, name=name))
    return bind(Einsum, xs, {"equation": eq}, name=name)


# ----- tensordot, matvec, trace, diag_part ------------------------------------------------------


def _tensordot_axes(axes, ra: int, rb: int):
    if isinstance(axes, (int, np.integer)) or np.ndim(axes) == 0:
        n = int(axes)
        if n < 0 or n > min(ra, rb):
            raise InvalidArgumentError(
                None, None, f"tensordot: 'axes' must be in [0, {min(ra, rb)}] for inputs of "
                f"rank {ra} and {rb}, got {n}")
        return list(range(ra - n, ra)), list(range(n))
    axes = list(axes)
    if len(axes) != 2:
        raise InvalidArgumentError(None, None, f"tensordot: 'axes' must be an int or a pair of "
                                               f"lists, got {axes}")
    xa, xb = (np.asarray(a).reshape(-1).tolist() for a in axes)
    if len(xa) != len(xb):
        raise InvalidArgumentError(None, None, f"tensordot: 'axes' lists differ in length: "
                                               f"{xa} vs {xb}")
    return list(normalize_axis(xa, ra, "tensordot")), list(normalize_axis(xb, rb, "tensordot"))


def tensordot(a: TensorLike, b: TensorLike, axes: TensorLike, name: str | None = None) -> Tensor:
    """Tensor contraction of ``a`` and ``b`` over ``axes`` (``tw.tensordot``).

    Args:
        a: a tensor.
        b: a tensor of the same dtype.
        axes: an int N (the last N axes of ``a`` against the first N of ``b``), or a pair of
            lists of axes ``[[a axes], [b axes]]``.
        name: op name.

    Returns:
        The contraction: ``a``'s free axes followed by ``b``'s.
    """
    a = convert(a)
    b = convert(b, dtype=a.dtype) if not hasattr(b, "dtype") else convert(b)
    ra, rb = a.shape.rank, b.shape.rank
    if ra is None or rb is None:
        raise InvalidArgumentError(None, None, "tensordot needs inputs of known rank")
    if ra + rb > len(_LETTERS):
        raise InvalidArgumentError(None, None, "tensordot: inputs of too high rank")
    xa, xb = _tensordot_axes(axes, ra, rb)
    la = list(_LETTERS[:ra])
    lb = list(_LETTERS[ra:ra + rb])
    for i, j in zip(xa, xb):
        da, db = a.shape[i], b.shape[j]
        if da is not None and db is not None and da != db:
            raise InvalidArgumentError(
                None, None, f"tensordot: dimension {i} of a (shape {a.shape.as_list()}) and "
                f"dimension {j} of b (shape {b.shape.as_list()}) differ: {da} vs {db} "
                "[Op:Einsum]")
        lb[j] = la[i]
    out = [c for k, c in enumerate(la) if k not in xa] + [c for k, c in enumerate(lb)
                                                          if k not in xb]
    eq = "".join(la) + "," + "".join(lb) + "->" + "".join(out)
    return einsum(eq, a, b, name=name)


def matvec(a: TensorLike, b: TensorLike, transpose_a: bool = False, adjoint_a: bool = False,
           a_is_sparse: bool = False, b_is_sparse: bool = False, name: str | None = None) -> Tensor:
    """Matrix-vector product (``tw.linalg.matvec``): ``a @ b[..., None]`` squeezed.

    Args:
        a: a tensor of rank >= 2.
        b: a tensor of rank >= 1 (batch dims broadcast against ``a``'s).
        transpose_a: transpose ``a``'s last two dims first.
        adjoint_a: conjugate-transpose ``a`` first.
        a_is_sparse: a hint that changes nothing (as ``tw.matmul``'s).
        b_is_sparse: the same hint for ``b``.
        name: op name.

    Returns:
        The product, of shape ``batch + [M]``.
    """
    a = convert(a)
    b = convert(b, dtype=a.dtype) if not hasattr(b, "dtype") else convert(b)
    if adjoint_a:
        a = _conj(a)
    eq = "...ji,...j->...i" if (transpose_a or adjoint_a) else "...ij,...j->...i"
    return einsum(eq, a, b, name=name)


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
        padding_value: changes nothing with k=0 (one full diagonal: nothing to pad).
        align: ``'RIGHT_LEFT'``, ``'LEFT_RIGHT'``, ``'LEFT_LEFT'`` or ``'RIGHT_RIGHT'``;
            changes nothing with k=0 (one diagonal: nothing to align).

    Returns:
        A tensor of shape ``input.shape[:-2] + [min(M, N)]``.
    """
    if k != 0:
        raise NotImplementedError("tw.linalg.diag_part supports only k=0")
    if align not in ("RIGHT_LEFT", "LEFT_RIGHT", "LEFT_LEFT", "RIGHT_RIGHT"):
        raise InvalidArgumentError(None, None, f"diag_part: align must be one of RIGHT_LEFT, "
                                               f"LEFT_RIGHT, LEFT_LEFT, RIGHT_RIGHT, got {align!r}")
    x = convert(input)
    shape = x.shape
    if shape.rank is not None and shape.rank < 2:  # as TensorFlow
        raise InvalidArgumentError(None, None, f"input must be at least 2-dim, received shape: "
                                               f"{shape.as_list()} [Op:MatrixDiagPartV3]")
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
    return bind(MatrixBandPart, [x], {"num_lower": static_int(num_lower, "band_part: num_lower"),
                                      "num_upper": static_int(num_upper, "band_part: num_upper")},
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
            return math_ops.negative(matmul(matmul(ainv, dy, adjoint_b=True), ainv))
        return math_ops.negative(matmul(matmul(ainv, dy, adjoint_a=True), ainv,
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
        scale = _conj(math_ops.multiply(dy, det)) if a.dtype.is_complex else \
            math_ops.multiply(dy, det)
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
            da = math_ops.negative(matmul(x, db, adjoint_b=True))
        else:
            da = math_ops.negative(matmul(db, x, adjoint_b=True))
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
        g = math_ops.add(g, _conj(_swap_last(g)))
        return math_ops.multiply(g, math_ops.cast(0.5, g.dtype))


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


__all__ = ["matmul", "einsum", "tensordot"]

# ``tw.linalg`` exports these too (TensorFlow keeps them out of the top level).
LINALG_ONLY = ["matvec", "trace", "diag_part", "band_part", "inv", "det", "solve", "cholesky",
               "matrix_transpose", "adjoint"]
