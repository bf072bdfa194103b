"""Reductions: sum, mean, max, min, prod, any, all, logsumexp, std, variance, argmax, norm...

Every reduction takes ``axis`` (an int, a list of ints, negative values counting from the end, or
None for all axes) and ``keepdims``. The public functions normalize ``axis`` to a sorted tuple of
non-negative axes (when the rank is known) before binding, so graphs carry canonical attrs.
"""
from __future__ import annotations

import numpy as np

from ..graph.tensor import DTypeLike, TensorLike
from . import math_ops
from .array_ops import BroadcastTo, Reshape, broadcast_to, reshape, shape, shape_constant
from .core import (
    EagerTensor,
    InvalidArgumentError,
    Tensor,
    TensorShape,
    bind,
    constant,
    constant_value,
    convert,
    ctx,
    dtypes,
    known_shape,
    normalize_axis,
    quietly,
    register_op,
)

# ----- shape rules and helpers ------------------------------------------------------------------


def _check_axes(x, axis) -> None:
    """Raises for axes outside the rank of ``x`` (the kernels would, less helpfully)."""
    rank = x.shape.rank
    if axis is None or rank is None:
        return
    for a in axis:
        if not -rank <= a < rank:
            raise InvalidArgumentError(
                None, None, f"Invalid reduction dimension {a} for input with {rank} dimensions "
                f"(axis must be in [{-rank}, {rank}))")


def _reduce_infer(x, *, axis, keepdims=False):
    rank = x.shape.rank
    _check_axes(x, axis)
    if rank is None:
        return x.dtype, TensorShape(None)
    axes = range(rank) if axis is None else {a % rank for a in axis}
    dims = x.shape.as_list()
    if keepdims:
        out = [1 if i in axes else d for i, d in enumerate(dims)]
    else:
        out = [d for i, d in enumerate(dims) if i not in axes]
    return x.dtype, TensorShape(out)


def _dtype_rule(allowed, what: str):
    """An infer function accepting dtypes for which ``allowed(dtype)`` holds."""

    def infer(x, *, axis, keepdims=False):
        d = x.dtype
        if not allowed(d):
            raise InvalidArgumentError(
                None, None, f"Value for attr 'T' of {d.name} is not in the list of allowed "
                f"values: {what}")
        return _reduce_infer(x, axis=axis, keepdims=keepdims)

    infer.allowed = allowed
    return infer


_numeric_infer = _dtype_rule(lambda d: d.is_floating or d.is_integer or d.is_complex,
                             "a numeric (float, integer or complex) tensor is needed")
_real_infer = _dtype_rule(lambda d: d.is_floating or d.is_integer,
                          "a real (float or integer) tensor is needed")
_bool_infer = _dtype_rule(lambda d: d.is_bool, "bool (reduce_any/reduce_all need a bool tensor)")
_float_infer = _dtype_rule(lambda d: d.is_floating or d.is_complex,
                           "half, float, double, complex64, complex128")


def _keepdims_shape(x, axis):
    """The shape of a reduction of ``x`` over ``axis`` with keepdims, as a tensor."""
    return bind(ReducedShape, [shape(x)], {"axis": axis})


def _broadcast_back(op, dy, xs: tuple):
    """A Sum or Mean gradient ``dy`` broadcast back to the input's static shape ``xs``, with
    constant shapes instead of Shape/ReducedShape ops (free of graph ops for the shapes)."""
    ds = _static_shape(dy)
    if ds != ():  # (a scalar, the gradient of a full reduction, broadcasts as it is)
        axis = op.attrs["axis"]
        rank = len(xs)
        axes = range(rank) if axis is None else sorted({a % rank for a in axis})
        # Dropped leading axes broadcast back by NumPy's rules: only other axes need 1s back.
        if not op.attrs.get("keepdims", False) and list(axes) != list(range(len(axes))):
            kept = tuple(1 if i in axes else d for i, d in enumerate(xs))
            dy = bind(Reshape, [dy, shape_constant(kept)])
            ds = _static_shape(dy)
    if ds == xs:
        return dy
    return bind(BroadcastTo, [dy, shape_constant(xs)])


def _static_shape(x) -> tuple | None:
    """``known_shape(x)``, read straight off the array for an eager tensor (the hot path)."""
    return x._value.shape if type(x) is EagerTensor else known_shape(x)


def _kept(op, t):
    """``t`` (an output or output gradient of reduction ``op``) with the reduced dims as 1s."""
    if op.attrs.get("keepdims", False):
        return t
    return reshape(t, _keepdims_shape(op.inputs[0], op.attrs["axis"]))


def _axes(x, axis, opdef, fn_name: str):
    """Normalizes ``axis`` for ``x``; a bad axis raises naming the op, the axis and the rank."""
    # The common cases (all axes, one int axis) skip normalize_axis's array round trip.
    rank = x._value.ndim if type(x) is EagerTensor else x.shape.rank
    if rank is not None:
        if axis is None:
            return _ALL_AXES[rank] if rank < len(_ALL_AXES) else tuple(range(rank))
        if type(axis) is int and -rank <= axis < rank:
            return (axis % rank,)
    try:
        return normalize_axis(axis, x.shape.rank, fn_name)
    except InvalidArgumentError as e:
        raise InvalidArgumentError(None, None, f"{fn_name}: {e} [Op:{opdef.name}]") from None


def _check_dtype(x, opdef, fn_name: str) -> None:
    """Eager binds never run ``infer``, so the dtype rule is checked here for both modes."""
    if not opdef.infer.allowed(x.dtype):
        try:
            opdef.infer(x, axis=None)
        except InvalidArgumentError as e:
            raise InvalidArgumentError(None, None, f"{fn_name}: {e} [Op:{opdef.name}]") from None


_ALL_AXES = [tuple(range(r)) for r in range(9)]


def _reduce(opdef, fn_name: str, input_tensor, axis, keepdims, name):
    x = convert(input_tensor)
    _check_dtype(x, opdef, fn_name)
    axes = _axes(x, axis, opdef, fn_name)
    return bind(opdef, [x], {"axis": axes, "keepdims": bool(keepdims)}, name=name)


@register_op("ReducedShape")
class ReducedShape:
    """The shape ``input_shape`` has after a keepdims reduction over ``axis`` (grad helper)."""

    def infer(s, *, axis):
        return s.dtype, s.shape

    def kernel(s, *, axis):
        out = np.array(s)
        out[list(range(len(s))) if axis is None else list(axis)] = 1
        return out

    def grad(op, dy):
        return None

    def constant_value(op):
        s = constant_value(op.inputs[0])
        return None if s is None else ReducedShape.kernel(s, axis=op.attrs["axis"])


@register_op("ReciprocalReducedSize")
class ReciprocalReducedSize:
    """1 / (number of elements a reduction over ``axis`` combines), as a ``dtype`` scalar.

    The mean's gradient helper: works on shapes known only at run time.
    """

    def infer(s, *, axis, dtype):
        return dtype, TensorShape([])

    def kernel(s, *, axis, dtype):
        s = np.asarray(s)
        n = int(np.prod(s if axis is None else s[list(axis)]))
        return np.asarray(1.0 / max(n, 1)).astype(dtype.np)

    def grad(op, dy):
        return None

    def constant_value(op):
        s = constant_value(op.inputs[0])
        return None if s is None else ReciprocalReducedSize.kernel(s, **op.attrs)


# ----- sum, mean, prod --------------------------------------------------------------------------


@register_op("Sum")
class Sum:
    """Sum of elements over ``axis`` (None: all), optionally keeping reduced dims."""

    infer = _numeric_infer

    def kernel(x, *, axis, keepdims=False):
        # np.sum's own step, quietly: TensorFlow overflows to inf (inf - inf: nan) silently.
        return quietly(np.add.reduce, x, axis, x.dtype, None, keepdims)

    def grad(op, dy):
        x = op.inputs[0]
        xs = _static_shape(x)
        if xs is not None:
            return _broadcast_back(op, dy, xs)
        return broadcast_to(_kept(op, dy), shape(x))


@register_op("Mean")
class Mean:
    """Mean over ``axis``; integer means truncate toward zero as TensorFlow's do."""

    infer = _numeric_infer

    def kernel(x, *, axis, keepdims=False):
        if x.dtype.kind in "iu":
            # Summed in 64 bits as TensorFlow does (the mean of uint8 [200, 200] is 200).
            wide = np.uint64 if x.dtype.kind == "u" else np.int64
            s = np.sum(x, axis=axis, keepdims=keepdims, dtype=wide)
            n = x.size // max(np.size(s), 1) if x.size else 1
            if wide is np.uint64:
                return (s // n).astype(x.dtype)
            # C-style division: the quotient of the magnitudes, with the sign put back.
            q = np.abs(s) // n
            return np.where(s < 0, -q, q).astype(x.dtype)
        if x.size == 0:
            with np.errstate(all="ignore"):  # NaN, silently, as TensorFlow
                return np.full(np.sum(x, axis=axis, keepdims=keepdims).shape, np.nan, x.dtype)
        if x.dtype.kind in "fc":
            n = x.size
            if axis is not None:
                n = 1
                for a in axis:
                    n *= x.shape[a]
            return _float_mean(x, axis, keepdims, x.dtype, np.intp(n))
        return np.mean(x, axis=axis, keepdims=keepdims, dtype=x.dtype)

    def lower(op):
        """Codegen hint for float means of static shape: np.mean's own steps (sum, then divide
        by the count as an intp), with the count worked out once instead of per call."""
        xs = known_shape(op.inputs[0])
        dt = op.inputs[0].dtype.np
        if xs is None or dt is None or dt.kind not in "fc":
            return None
        axis = op.attrs["axis"]
        n = int(np.prod([xs[a] for a in (range(len(xs)) if axis is None else axis)]))
        return _mean_lowered(axis, op.attrs.get("keepdims", False), dt, np.intp(n)) if n else None

    def grad(op, dy):
        x = op.inputs[0]
        xs = _static_shape(x)
        if xs is not None:
            axis = op.attrs["axis"]
            n = 1
            for a in range(len(xs)) if axis is None else axis:
                n *= xs[a]
            return _broadcast_back(op, bind(math_ops.Mul, [dy, _reciprocal(n, dy.dtype)]), xs)
        scale = bind(ReciprocalReducedSize, [shape(x)],
                     {"axis": op.attrs["axis"], "dtype": dy.dtype})
        return broadcast_to(math_ops.multiply(_kept(op, dy), scale), shape(x))


_RECIPROCALS: dict = {}


def _reciprocal(n: int, dtype):
    """ReciprocalReducedSize's value as a tensor: 1/n in float64, then cast to ``dtype``.
    Eagerly one shared tensor per (n, dtype): the mean's gradient scale costs no conversion."""
    if ctx.graph is not None:
        return constant(np.asarray(1.0 / max(n, 1)).astype(dtype.np))
    t = _RECIPROCALS.get((n, dtype))
    if t is None:
        arr = np.asarray(1.0 / max(n, 1)).astype(dtype.np)
        arr.flags.writeable = False
        if len(_RECIPROCALS) >= 1024:
            _RECIPROCALS.clear()
        t = _RECIPROCALS[n, dtype] = EagerTensor(arr)
    return t


def _float_mean(x, axis, keepdims: bool, dtype, count):
    """``np.mean(x, axis, dtype=dtype)`` for float and complex ``x``, bit for bit: its own steps
    (sum, then divide by the count as an intp) without its Python-level argument handling."""
    total = np.add.reduce(x, axis=axis, dtype=dtype, keepdims=keepdims)
    if type(total) is np.ndarray:
        return np.true_divide(total, count, out=total, casting="unsafe")
    return total.dtype.type(total / count)


def _mean_lowered(axis, keepdims: bool, dtype, count):
    def mean(x):
        return _float_mean(x, axis, keepdims, dtype, count)
    return mean


@register_op("Prod")
class Prod:
    """Product of elements over ``axis``."""

    infer = _numeric_infer

    def kernel(x, *, axis, keepdims=False):
        return quietly(np.multiply.reduce, x, axis, x.dtype, None, keepdims)  # np.prod's step

    def grad(op, dy):
        x = op.inputs[0]
        others = bind(ProdOthers, [x], {"axis": op.attrs["axis"]})
        return math_ops.multiply(_kept(op, dy), others)


def _prod_others(x, axis):
    """For each element, the product of the other elements of its reduction group (exact with
    zeros: exclusive cumulative products from both ends, no division)."""
    nd = x.ndim
    red = list(range(nd)) if axis is None else [a % nd for a in axis]
    keep = [i for i in range(nd) if i not in red]
    perm = keep + red
    xt = np.transpose(x, perm)
    lead = xt.shape[:len(keep)]
    flat = xt.reshape(lead + (-1,))
    ones = np.ones(lead + (1,), dtype=x.dtype)
    left = np.cumprod(np.concatenate([ones, flat[..., :-1]], axis=-1), axis=-1, dtype=x.dtype)
    right = np.cumprod(np.concatenate([ones, flat[..., :0:-1]], axis=-1), axis=-1,
                       dtype=x.dtype)[..., ::-1]
    out = (left * right).reshape(xt.shape)
    return np.transpose(out, np.argsort(perm)).astype(x.dtype, copy=False)


@register_op("ProdOthers")
class ProdOthers:
    """Each element replaced by the product of the others in its reduction group (prod grad)."""

    def infer(x, *, axis):
        return x.dtype, x.shape

    def kernel(x, *, axis):
        return _prod_others(x, axis)

    def grad(op, dy):
        # d others_i / d x_k = others_i / x_k for k != i (exact where x has no zeros).
        x, out = op.inputs[0], op.outputs[0]
        axis = op.attrs["axis"]
        g = math_ops.multiply(dy, out)
        total = bind(Sum, [g], {"axis": axis, "keepdims": True})
        return math_ops.divide(math_ops.subtract(total, g), x)


def reduce_sum(input_tensor: TensorLike, axis: TensorLike | None = None, keepdims: bool = False,
               name: str | None = None) -> Tensor:
    """Sums ``input_tensor`` over ``axis`` (``tw.reduce_sum``).

    Args:
        input_tensor: the tensor.
        axis: an int, list of ints, or None for all axes; negative values count from the end.
        keepdims: keep reduced dimensions with length 1.
        name: op name.

    Returns:
        The reduced tensor, of the input's dtype.
    """
    return _reduce(Sum, "reduce_sum", input_tensor, axis, keepdims, name)


def reduce_mean(input_tensor: TensorLike, axis: TensorLike | None = None, keepdims: bool = False,
                name: str | None = None) -> Tensor:
    """Mean of ``input_tensor`` over ``axis`` (``tw.reduce_mean``); integer inputs truncate.

    Args:
        input_tensor: the tensor.
        axis: an int, list of ints, or None for all axes.
        keepdims: keep reduced dimensions with length 1.
        name: op name.

    Returns:
        The reduced tensor, of the input's dtype.
    """
    return _reduce(Mean, "reduce_mean", input_tensor, axis, keepdims, name)


def reduce_prod(input_tensor: TensorLike, axis: TensorLike | None = None, keepdims: bool = False,
                name: str | None = None) -> Tensor:
    """Product of ``input_tensor`` over ``axis`` (``tw.reduce_prod``).

    Args:
        input_tensor: the tensor.
        axis: an int, list of ints, or None for all axes.
        keepdims: keep reduced dimensions with length 1.
        name: op name.

    Returns:
        The reduced tensor, of the input's dtype.
    """
    return _reduce(Prod, "reduce_prod", input_tensor, axis, keepdims, name)


# ----- max, min ---------------------------------------------------------------------------------


def _extremum_kernel(fn, x, axis, keepdims):
    if x.size == 0:
        # TensorFlow returns the identity of the reduction (lowest/highest value) for empties.
        init = dtypes.from_numpy(x.dtype).min if fn is np.max else dtypes.from_numpy(x.dtype).max
        if x.dtype.kind == "f":
            init = -np.inf if fn is np.max else np.inf
        return fn(x, axis=axis, keepdims=keepdims, initial=init)
    return fn(x, axis=axis, keepdims=keepdims)


@register_op("ExtremumWeights")
class ExtremumWeights:
    """Where ``x`` equals its reduction ``y`` (kept dims): 1/count of such places, else 0.

    The max/min gradient helper: ties share the gradient equally, as in TensorFlow.
    """

    def infer(x, y, *, axis):
        return x.dtype, x.shape

    def kernel(x, y, *, axis):
        ind = (x == y).astype(x.dtype)
        count = np.sum(ind, axis=axis, keepdims=True, dtype=x.dtype)
        return ind / np.maximum(count, 1)

    def grad(op, dy):
        return None, None


def _extremum_grad(op, dy):
    x = op.inputs[0]
    y = _kept(op, op.outputs[0])
    w = bind(ExtremumWeights, [x, y], {"axis": op.attrs["axis"]})
    return math_ops.multiply(_kept(op, dy), w)


@register_op("Max")
class Max:
    """Maximum over ``axis``."""

    infer = _real_infer

    def kernel(x, *, axis, keepdims=False):
        return _extremum_kernel(np.max, x, axis, keepdims)

    grad = _extremum_grad


@register_op("Min")
class Min:
    """Minimum over ``axis``."""

    infer = _real_infer

    def kernel(x, *, axis, keepdims=False):
        return _extremum_kernel(np.min, x, axis, keepdims)

    grad = _extremum_grad


def reduce_max(input_tensor: TensorLike, axis: TensorLike | None = None, keepdims: bool = False,
               name: str | None = None) -> Tensor:
    """Maximum of ``input_tensor`` over ``axis`` (``tw.reduce_max``).

    Args:
        input_tensor: a real tensor.
        axis: an int, list of ints, or None for all axes.
        keepdims: keep reduced dimensions with length 1.
        name: op name.

    Returns:
        The reduced tensor; the gradient goes to the maximal elements (ties share it).
    """
    return _reduce(Max, "reduce_max", input_tensor, axis, keepdims, name)


def reduce_min(input_tensor: TensorLike, axis: TensorLike | None = None, keepdims: bool = False,
               name: str | None = None) -> Tensor:
    """Minimum of ``input_tensor`` over ``axis`` (``tw.reduce_min``).

    Args:
        input_tensor: a real tensor.
        axis: an int, list of ints, or None for all axes.
        keepdims: keep reduced dimensions with length 1.
        name: op name.

    Returns:
        The reduced tensor; the gradient goes to the minimal elements (ties share it).
    """
    return _reduce(Min, "reduce_min", input_tensor, axis, keepdims, name)


# ----- any, all ---------------------------------------------------------------------------------


@register_op("Any")
class Any:
    """Logical or over ``axis`` (bool tensors)."""

    infer = _bool_infer

    def kernel(x, *, axis, keepdims=False):
        return np.any(x, axis=axis, keepdims=keepdims)

    def grad(op, dy):
        return None


@register_op("All")
class All:
    """Logical and over ``axis`` (bool tensors)."""

    infer = _bool_infer

    def kernel(x, *, axis, keepdims=False):
        return np.all(x, axis=axis, keepdims=keepdims)

    def grad(op, dy):
        return None


def reduce_any(input_tensor: TensorLike, axis: TensorLike | None = None, keepdims: bool = False,
               name: str | None = None) -> Tensor:
    """Logical or of a bool tensor over ``axis`` (``tw.reduce_any``).

    Args:
        input_tensor: a bool tensor.
        axis: an int, list of ints, or None for all axes.
        keepdims: keep reduced dimensions with length 1.
        name: op name.

    Returns:
        The reduced bool tensor.
    """
    return _reduce(Any, "reduce_any", input_tensor, axis, keepdims, name)


def reduce_all(input_tensor: TensorLike, axis: TensorLike | None = None, keepdims: bool = False,
               name: str | None = None) -> Tensor:
    """Logical and of a bool tensor over ``axis`` (``tw.reduce_all``).

    Args:
        input_tensor: a bool tensor.
        axis: an int, list of ints, or None for all axes.
        keepdims: keep reduced dimensions with length 1.
        name: op name.

    Returns:
        The reduced bool tensor.
    """
    return _reduce(All, "reduce_all", input_tensor, axis, keepdims, name)


# ----- logsumexp, variance, std -----------------------------------------------------------------


@register_op("ReduceLogSumExp")
class ReduceLogSumExp:
    """log(sum(exp(x))) over ``axis``, computed stably (shifted by the maximum)."""

    infer = _float_infer

    def kernel(x, *, axis, keepdims=False):
        if x.size == 0:
            return np.log(np.sum(np.exp(x), axis=axis, keepdims=keepdims, dtype=x.dtype))
        m = np.max(x.real if x.dtype.kind == "c" else x, axis=axis, keepdims=True)
        # All -inf (or inf) groups would give nan from inf - inf; shift those by 0 instead.
        m = np.where(np.isfinite(m), m, 0).astype(x.dtype)
        s = np.sum(np.exp(x - m), axis=axis, keepdims=True, dtype=x.dtype)
        with np.errstate(divide="ignore"):
            out = np.log(s) + m
        if not keepdims:
            out = np.squeeze(out, axis=axis)
        return np.asarray(out, dtype=x.dtype)[()]

    def grad(op, dy):
        x = op.inputs[0]
        softmax = math_ops.exp(math_ops.subtract(x, _kept(op, op.outputs[0])))
        return math_ops.multiply(_kept(op, dy), softmax)


def reduce_logsumexp(input_tensor: TensorLike, axis: TensorLike | None = None,
                     keepdims: bool = False, name: str | None = None) -> Tensor:
    """``log(reduce_sum(exp(x)))`` without overflow (``tw.reduce_logsumexp``).

    Args:
        input_tensor: a float tensor.
        axis: an int, list of ints, or None for all axes.
        keepdims: keep reduced dimensions with length 1.
        name: op name.

    Returns:
        The reduced tensor.
    """
    return _reduce(ReduceLogSumExp, "reduce_logsumexp", input_tensor, axis, keepdims, name)


def reduce_variance(input_tensor: TensorLike, axis: TensorLike | None = None,
                    keepdims: bool = False, name: str | None = None) -> Tensor:
    """Population variance over ``axis`` (``tw.math.reduce_variance``).

    Args:
        input_tensor: a float or complex tensor (complex gives a real variance).
        axis: an int, list of ints, or None for all axes.
        keepdims: keep reduced dimensions with length 1.
        name: op name.

    Returns:
        The variance, ``mean(|x - mean(x)|**2)``.
    """
    x = convert(input_tensor)
    if not (x.dtype.is_floating or x.dtype.is_complex):
        raise TypeError(f"reduce_variance: input must be a float or complex tensor, got "
                        f"{x.dtype.name} (use tw.cast)")
    axes = _axes(x, axis, Mean, "reduce_variance")
    mean = bind(Mean, [x], {"axis": axes, "keepdims": True})
    d = math_ops.subtract(x, mean)
    if x.dtype.is_complex:
        sq = math_ops.square(math_ops.abs(d))
    else:
        sq = math_ops.multiply(d, d)
    return bind(Mean, [sq], {"axis": axes, "keepdims": bool(keepdims)}, name=name)


def reduce_std(input_tensor: TensorLike, axis: TensorLike | None = None, keepdims: bool = False,
               name: str | None = None) -> Tensor:
    """Population standard deviation over ``axis`` (``tw.math.reduce_std``).

    Args:
        input_tensor: a float or complex tensor.
        axis: an int, list of ints, or None for all axes.
        keepdims: keep reduced dimensions with length 1.
        name: op name.

    Returns:
        ``sqrt(reduce_variance(x))``.
    """
    return math_ops.sqrt(reduce_variance(input_tensor, axis, keepdims), name=name)


def reduce_euclidean_norm(input_tensor: TensorLike, axis: TensorLike | None = None,
                          keepdims: bool = False, name: str | None = None) -> Tensor:
    """``sqrt(reduce_sum(|x|**2))`` over ``axis`` (``tw.math.reduce_euclidean_norm``).

    Args:
        input_tensor: a float or complex tensor.
        axis: an int, list of ints, or None for all axes.
        keepdims: keep reduced dimensions with length 1.
        name: op name.

    Returns:
        The reduced tensor.
    """
    return norm(input_tensor, "euclidean", _axis_list(axis), keepdims, name=name)


def _axis_list(axis):
    """An ``axis`` of a reduction in the form tw.norm accepts for a vector norm."""
    if axis is None or isinstance(axis, int):
        return axis
    v = constant_value(axis)
    axes = np.asarray(axis if v is None else v).reshape(-1).tolist()
    return axes[0] if len(axes) == 1 else axes


# ----- argmax, argmin ---------------------------------------------------------------------------


def _arg_infer(x, *, axis, output_type):
    d = x.dtype
    if not (d.is_floating or d.is_integer or d.is_bool):
        raise InvalidArgumentError(
            None, None, f"Value for attr 'T' of {d.name} is not in the list of allowed values: "
            "a real tensor is needed")
    rank = x.shape.rank
    if rank is None:
        return output_type, TensorShape(None)
    if not -rank <= axis < rank or rank == 0:
        raise InvalidArgumentError(
            None, None, f"Expected dimension in the range [{-rank}, {rank}), but got {axis} "
            f"(input rank {rank})")
    dims = x.shape.as_list()
    del dims[axis % rank]
    return output_type, TensorShape(dims)


def _arg_kernel(fn, x, axis, output_type):
    if x.shape[axis] == 0:
        raise InvalidArgumentError(None, None, f"Reduction axis {axis} is empty in shape "
                                               f"{list(x.shape)}")
    return np.asarray(fn(x, axis=axis)).astype(output_type.np)


@register_op("ArgMax")
class ArgMax:
    """Index of the largest value along ``axis`` (the first one on ties)."""

    infer = _arg_infer

    def kernel(x, *, axis, output_type):
        return _arg_kernel(np.argmax, x, axis, output_type)

    def grad(op, dy):
        return None


@register_op("ArgMin")
class ArgMin:
    """Index of the smallest value along ``axis`` (the first one on ties)."""

    infer = _arg_infer

    def kernel(x, *, axis, output_type):
        return _arg_kernel(np.argmin, x, axis, output_type)

    def grad(op, dy):
        return None


def _arg(opdef, fn_name, input, axis, output_type, name):
    x = convert(input)
    if axis is None:
        axis = 0
    v = constant_value(axis)
    if v is None:
        raise InvalidArgumentError(None, None, f"{fn_name}: axis must be known when the graph "
                                               f"is built [Op:{opdef.name}]")
    axis = int(np.asarray(v).reshape(-1)[0]) if np.size(v) == 1 else v
    if not isinstance(axis, int):
        raise InvalidArgumentError(None, None, f"{fn_name}: axis must be a scalar, got {axis} "
                                               f"[Op:{opdef.name}]")
    output_type = dtypes.as_dtype(output_type)
    if output_type not in (dtypes.int32, dtypes.int64, dtypes.int16, dtypes.uint16):
        raise TypeError(f"{fn_name}: output_type must be int32 or int64, got {output_type.name}")
    rank = x.shape.rank
    if rank is not None:
        try:
            _arg_infer(x, axis=axis, output_type=output_type)
        except InvalidArgumentError as e:
            raise InvalidArgumentError(None, None, f"{fn_name}: {e} [Op:{opdef.name}]") from None
        axis %= rank
    return bind(opdef, [x], {"axis": axis, "output_type": output_type}, name=name)


def argmax(input: TensorLike, axis: TensorLike | None = None, output_type: DTypeLike = dtypes.int64,
           name: str | None = None) -> Tensor:
    """Index of the largest value along ``axis`` (``tw.argmax``, ``tw.math.argmax``).

    Args:
        input: a real tensor.
        axis: the axis (an int or scalar tensor); None means 0, as in TensorFlow.
        output_type: int64 (default) or int32.
        name: op name.

    Returns:
        An integer tensor with ``axis`` removed.
    """
    return _arg(ArgMax, "argmax", input, axis, output_type, name)


def argmin(input: TensorLike, axis: TensorLike | None = None, output_type: DTypeLike = dtypes.int64,
           name: str | None = None) -> Tensor:
    """Index of the smallest value along ``axis`` (``tw.argmin``, ``tw.math.argmin``).

    Args:
        input: a real tensor.
        axis: the axis (an int or scalar tensor); None means 0, as in TensorFlow.
        output_type: int64 (default) or int32.
        name: op name.

    Returns:
        An integer tensor with ``axis`` removed.
    """
    return _arg(ArgMin, "argmin", input, axis, output_type, name)


# ----- norm, count_nonzero ----------------------------------------------------------------------


def _norm_axis(x, axis):
    """``axis`` of tw.norm as a list of one (vector norm) or two (matrix norm) axes, or None."""
    if axis is None:
        return None
    v = constant_value(axis)
    axes = np.asarray(axis if v is None else v).reshape(-1).tolist()
    rank = x.shape.rank
    if len(axes) not in (1, 2) or len(set(axes)) != len(axes) or (
            rank is not None and len({a % rank for a in axes}) != len(axes)):
        raise ValueError(f"'axis' must be None, an integer, or a tuple of 2 unique integers, "
                         f"got {axis}")
    for a in axes:
        if rank is not None and not -rank <= a < rank:
            raise InvalidArgumentError(
                None, None, f"norm: Invalid reduction dimension {a} for input with {rank} "
                f"dimensions (axis must be in [{-rank}, {rank})) [Op:Sum]")
    return axes


def _abs(x):
    return x if x.dtype.is_bool else math_ops.abs(x)


def norm(tensor: TensorLike, ord="euclidean", axis: TensorLike | None = None, keepdims=None,
         name: str | None = None) -> Tensor:
    """Vector and matrix norms (``tw.norm``, ``tw.linalg.norm``).

    Args:
        tensor: a float or complex tensor.
        ord: 'euclidean' or 'fro' (the 2-norm of the flattened axes), 1, 2, ``np.inf``, or any
            p > 0 for vector norms; for matrix norms (two axes) 'fro', 'euclidean', 1 (largest
            column sum of absolute values) or ``np.inf`` (largest row sum).
        axis: None (all elements, as one vector), an int, or a pair of ints (matrix norm).
        keepdims: keep the reduced dimensions with length 1.
        name: op name.

    Returns:
        The norm, real-valued.
    """
    x = convert(tensor)
    if not (x.dtype.is_floating or x.dtype.is_complex):
        raise InvalidArgumentError(None, None, f"norm needs a float or complex tensor, got "
                                               f"{x.dtype.name} [Op:Norm]")
    axes = _norm_axis(x, axis)
    is_matrix = axes is not None and len(axes) == 2
    keepdims = bool(keepdims)
    supported_vec = ord == "euclidean" or (
        not isinstance(ord, str) and np.isreal(ord) and ord > 0)
    if is_matrix and ord not in ("euclidean", "fro", 1, np.inf):
        raise ValueError(f"'ord' must be a supported matrix norm in ['euclidean', 'fro', 1, "
                         f"inf], got {ord}")
    if not is_matrix and not supported_vec:
        raise ValueError(f"'ord' must be a supported vector norm, got {ord}")
    if ord in ("euclidean", "fro") or ord == 2:
        if x.dtype.is_complex:
            sq = math_ops.square(math_ops.abs(x))
        else:
            sq = math_ops.multiply(x, x)
        return math_ops.sqrt(reduce_sum(sq, axes, keepdims=keepdims), name=name)
    a = _abs(x)
    if is_matrix:
        inner, outer = (axes[0], axes[1]) if ord == 1 else (axes[1], axes[0])
        # Sum over one axis keeping it, then max over both: max over a length-1 axis is free.
        s = reduce_sum(a, inner, keepdims=True)
        return reduce_max(s, axes, keepdims=keepdims, name=name)
    if ord == np.inf:
        return reduce_max(a, axes, keepdims=keepdims, name=name)
    if ord == 1:
        return reduce_sum(a, axes, keepdims=keepdims, name=name)
    p = float(ord)
    powered = math_ops.pow(a, math_ops.cast(p, a.dtype))
    return math_ops.pow(reduce_sum(powered, axes, keepdims=keepdims),
                        math_ops.cast(1.0 / p, a.dtype), name=name)


def count_nonzero(input: TensorLike, axis: TensorLike | None = None, keepdims=None,
                  dtype: DTypeLike = dtypes.int64, name: str | None = None) -> Tensor:
    """Number of non-zero elements over ``axis`` (``tw.math.count_nonzero``).

    Args:
        input: a numeric or bool tensor.
        axis: an int, list of ints, or None for all axes.
        keepdims: keep reduced dimensions with length 1.
        dtype: the output dtype (int64 by default).
        name: op name.

    Returns:
        The count.
    """
    x = convert(input)
    nz = x if x.dtype.is_bool else math_ops.not_equal(x, math_ops.cast(0, x.dtype))
    return reduce_sum(math_ops.cast(nz, dtype), axis, keepdims=bool(keepdims), name=name)


__all__ = ["reduce_sum", "reduce_mean", "reduce_prod", "reduce_max", "reduce_min", "reduce_any",
           "reduce_all", "reduce_logsumexp", "reduce_variance", "reduce_std", "argmax", "argmin",
           "norm", "count_nonzero", "reduce_euclidean_norm"]
