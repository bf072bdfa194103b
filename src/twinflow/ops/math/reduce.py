"""Reductions: sum, mean, prod, max, min, any, all (and the shape rules they share)."""
from __future__ import annotations

import numpy as np

from ...core import dtypes
from ...core.context import ctx
from ...core.errors import InvalidArgumentError
from ...core.shapes import TensorShape
from ...eager.execute import bind, constant, constant_value
from ...eager.tensor import EagerTensor
from ...graph.checks import normalize_axis as _normalize_axis
from ...graph.registry import register_op
from ...graph.tensor import Tensor, TensorLike
from ..array.shape import BroadcastTo, Reshape, broadcast_to, reshape, shape, shape_constant
from ..core import convert, known_shape, normalize_axis, quietly
from ..dispatch import NOT_FOUND, CompositeArgument, dispatch, user_dispatch
from .binary import Mul, divide, multiply, subtract
from .fast_reduce import add_reduce

# ----- shape rules and helpers ------------------------------------------------------------------


def _check_axes(x, axis) -> None:
    """Raises for axes outside the rank of ``x`` (the kernels would, less helpfully)."""
    if axis is not None:
        _normalize_axis(tuple(axis), x.shape.rank, None)


def _reduce_infer(x, *, axis, keepdims=False):
    rank = x.shape.rank
    _check_axes(x, axis)
    if rank is None:  # (reducing over all axes gives a scalar whatever the rank)
        return x.dtype, TensorShape([] if axis is None and not keepdims else None)
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
    try:
        x = convert(input_tensor)
    except CompositeArgument as e:  # a RaggedTensor...: its registered reduction
        return dispatch(fn_name, e, (input_tensor,), {"axis": axis, "keepdims": keepdims})
    except (TypeError, ValueError):  # a user type with a registered dispatch target?
        out = user_dispatch(fn_name, (input_tensor,), {"axis": axis, "keepdims": keepdims,
                                                       "name": name})
        if out is NOT_FOUND:
            raise
        return out
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
        # np.sum's own step (BLAS for leading axes), quietly: TensorFlow overflows to inf
        # (inf - inf: nan) silently.
        return quietly(add_reduce, x, axis, x.dtype, keepdims)

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
            return _broadcast_back(op, bind(Mul, [dy, _reciprocal(n, dy.dtype)]), xs)
        scale = bind(ReciprocalReducedSize, [shape(x)],
                     {"axis": op.attrs["axis"], "dtype": dy.dtype})
        return broadcast_to(multiply(_kept(op, dy), scale), shape(x))


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
    """``np.mean(x, axis, dtype=dtype)`` for float and complex ``x``: its own steps (sum, then
    divide by the count as an intp) without its Python-level argument handling; bit for bit,
    except that a sum over leading axes is a BLAS product (``fast_reduce``)."""
    total = add_reduce(x, axis, dtype, keepdims)
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
        return multiply(_kept(op, dy), others)


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
        g = multiply(dy, out)
        total = bind(Sum, [g], {"axis": axis, "keepdims": True})
        return divide(subtract(total, g), x)


def _reduction(fn_name: str, opdef, summary: str, returns: str, tensor: str = "the tensor.",
               axis: str = "an int, list of ints, or None for all axes."):
    """The public function ``fn(input_tensor, axis=None, keepdims=False, name=None)`` of a
    reduction op."""
    def fn(input_tensor: TensorLike, axis: TensorLike | None = None, keepdims: bool = False,
           name: str | None = None) -> Tensor:
        return _reduce(opdef, fn_name, input_tensor, axis, keepdims, name)
    fn.__name__ = fn.__qualname__ = fn_name
    fn.__doc__ = f"""{summary}

    Args:
        input_tensor: {tensor}
        axis: {axis}
        keepdims: keep reduced dimensions with length 1.
        name: op name.

    Returns:
        {returns}
    """
    return fn


reduce_sum = _reduction(
    "reduce_sum", Sum, "Sums ``input_tensor`` over ``axis`` (``tw.reduce_sum``).",
    "The reduced tensor, of the input's dtype.",
    axis="an int, list of ints, or None for all axes; negative values count from the end.")


reduce_mean = _reduction(
    "reduce_mean", Mean,
    "Mean of ``input_tensor`` over ``axis`` (``tw.reduce_mean``); integer inputs truncate.",
    "The reduced tensor, of the input's dtype.")


reduce_prod = _reduction(
    "reduce_prod", Prod, "Product of ``input_tensor`` over ``axis`` (``tw.reduce_prod``).",
    "The reduced tensor, of the input's dtype.")


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
    return multiply(_kept(op, dy), w)


def _reduction_op(name: str, doc: str, infer, reduce, grad):
    """Declares a reduction op whose kernel is ``reduce(x, axis, keepdims)``."""
    def kernel(x, *, axis, keepdims=False):
        return reduce(x, axis, keepdims)
    ns = {"__doc__": doc, "infer": infer, "kernel": kernel, "grad": grad}
    return register_op(name)(type(name, (), ns))


Max = _reduction_op("Max", "Maximum over ``axis``.", _real_infer,
                    lambda x, axis, keepdims: _extremum_kernel(np.max, x, axis, keepdims),
                    _extremum_grad)
Min = _reduction_op("Min", "Minimum over ``axis``.", _real_infer,
                    lambda x, axis, keepdims: _extremum_kernel(np.min, x, axis, keepdims),
                    _extremum_grad)


reduce_max = _reduction(
    "reduce_max", Max, "Maximum of ``input_tensor`` over ``axis`` (``tw.reduce_max``).",
    "The reduced tensor; the gradient goes to the maximal elements (ties share it).",
    tensor="a real tensor.")


reduce_min = _reduction(
    "reduce_min", Min, "Minimum of ``input_tensor`` over ``axis`` (``tw.reduce_min``).",
    "The reduced tensor; the gradient goes to the minimal elements (ties share it).",
    tensor="a real tensor.")


# ----- any, all ---------------------------------------------------------------------------------


Any = _reduction_op("Any", "Logical or over ``axis`` (bool tensors).", _bool_infer,
                    lambda x, axis, keepdims: np.any(x, axis=axis, keepdims=keepdims),
                    lambda op, dy: None)
All = _reduction_op("All", "Logical and over ``axis`` (bool tensors).", _bool_infer,
                    lambda x, axis, keepdims: np.all(x, axis=axis, keepdims=keepdims),
                    lambda op, dy: None)


reduce_any = _reduction(
    "reduce_any", Any, "Logical or of a bool tensor over ``axis`` (``tw.reduce_any``).",
    "The reduced bool tensor.", tensor="a bool tensor.")


reduce_all = _reduction(
    "reduce_all", All, "Logical and of a bool tensor over ``axis`` (``tw.reduce_all``).",
    "The reduced bool tensor.", tensor="a bool tensor.")
