"""Shapes: identity, shape, size, rank, reshape, broadcast_to, sum_to (undoing broadcasting),
and the argument helpers the array ops share."""
from __future__ import annotations

import math

import numpy as np

from ...core import dtypes
from ...core.context import ctx
from ...core.errors import InvalidArgumentError
from ...core.shapes import TensorShape
from ...eager.execute import bind, constant, constant_value
from ...eager.tensor import EagerTensor
from ...graph.checks import normalize_axis as _normalize_axis
from ...graph.registry import register_op
from ...graph.tensor import DTypeLike, ShapeLike, SymbolicTensor, Tensor, TensorLike
from ..core import (
    convert,
    known_shape,
    shape_from_tensor,
    shape_tensor,
    static_int,
    static_ints,
    unary_infer,
)
from ..dispatch import CompositeArgument, dispatch
from ..math.fast_reduce import add_reduce


@register_op("Identity")
class Identity:
    """Returns its input unchanged."""

    infer = unary_infer

    def kernel(x):
        return x

    def grad(op, dy):
        return dy


def identity(input: TensorLike, name: str | None = None) -> Tensor:
    """Returns a tensor with the same value as ``input``.

    Args:
        input: a tensor (or convertible value).
        name: op name in graph mode.

    Returns:
        The tensor.
    """
    return bind(Identity, [convert(input)], name=name)


@register_op("Shape")
class Shape:
    """The shape of a tensor as a 1-D int32 (or int64) tensor."""

    def infer(x, *, out_type=dtypes.int32):
        return out_type, TensorShape([x.shape.rank])

    def kernel(x, *, out_type=dtypes.int32):
        return np.asarray(np.shape(x), dtype=out_type.np)

    def grad(op, dy):
        return None

    def constant_value(op):
        s = known_shape(op.inputs[0])
        return None if s is None else np.asarray(s, dtype=op.attrs.get("out_type",
                                                                          dtypes.int32).np)


def shape(input: TensorLike, out_type: DTypeLike = dtypes.int32, name: str | None = None) -> Tensor:
    """The dynamic shape of ``input`` as a 1-D tensor (``tw.shape``).

    Args:
        input: a tensor.
        out_type: int32 (default) or int64.
        name: op name.

    Returns:
        A 1-D integer tensor.
    """
    return bind(Shape, [convert(input)], {"out_type": dtypes.as_dtype(out_type)}, name=name)


def _reshape_infer(x, shape):
    if shape.shape.rank not in (None, 1):  # as TensorFlow
        raise InvalidArgumentError(None, None, f"sizes input must be 1-D, not "
                                               f"{shape.shape.as_list()}")
    target = shape_from_tensor(shape)
    if target.rank is None or x.shape.rank is None:
        return x.dtype, target
    dims = target.as_list()
    n_in = x.shape.num_elements()
    v = constant_value(shape)
    if v is not None:
        v = np.asarray(v).reshape(-1)
        if (v < -1).any() or (v == -1).sum() > 1:
            raise InvalidArgumentError(None, None, f"Invalid shape {v.tolist()}: at most one "
                                                   "dimension may be -1, others >= 0")
        known = math.prod(int(d) for d in v if d >= 0)  # Python ints: never wraps
        if n_in is not None:
            if -1 in v:
                if known == 0 or n_in % known:
                    raise InvalidArgumentError(
                        None, None, f"Input to reshape is a tensor with {n_in} values, but the "
                        f"requested shape {v.tolist()} cannot hold them")
                dims = [n_in // known if d == -1 else int(d) for d in v]
            elif known != n_in:
                raise InvalidArgumentError(
                    None, None, f"Input to reshape is a tensor with {n_in} values, but the "
                    f"requested shape has {known} (shape {v.tolist()}, input shape "
                    f"{x.shape.as_list()})")
    return x.dtype, TensorShape(dims)


@register_op("Reshape")
class Reshape:
    """Gives ``tensor`` the shape ``shape`` (one dim may be -1)."""

    infer = _reshape_infer

    def kernel(x, shape):
        dims = shape.tolist() if type(shape) is np.ndarray else list(shape)
        if type(dims) is not list or any(d < -1 for d in dims):  # (infer explains)
            raise ValueError("Reshape: bad shape")
        return np.reshape(x, dims)

    def grad(op, dy):
        return bind(Reshape, [dy, shape(op.inputs[0])]), None


def reshape(tensor: TensorLike, shape: ShapeLike, name: str | None = None) -> Tensor:
    """Reshapes ``tensor`` (``tw.reshape``).

    Args:
        tensor: a tensor.
        shape: a 1-D int tensor or list; one entry may be -1.
        name: op name.

    Returns:
        The reshaped tensor.
    """
    return bind(Reshape, [convert(tensor), shape_tensor(shape)], name=name)


@register_op("BroadcastTo")
class BroadcastTo:
    """Broadcasts ``input`` to ``shape`` by NumPy rules."""

    def infer(x, shape):
        return x.dtype, shape_from_tensor(shape)

    def kernel(x, shape):
        dims = tuple(shape.tolist()) if type(shape) is np.ndarray else tuple(shape)
        if isinstance(x, (np.ndarray, np.generic)) and x.ndim == 0 and \
                x.dtype.kind in "biufc" and min(dims, default=0) >= 0:
            # The view np.broadcast_to makes of a scalar (all strides 0, read-only), without
            # its ~2.5 us of Python: the case of every Sum/Mean-to-scalar gradient.
            out = np.ndarray(dims, x.dtype, x, 0, (0,) * len(dims))
            out.flags.writeable = False
            return out
        return np.broadcast_to(x, dims)

    def grad(op, dy):
        return sum_to_shape(dy, shape(op.inputs[0])), None


def broadcast_to(input: TensorLike, shape: ShapeLike, name: str | None = None) -> Tensor:
    """Broadcasts ``input`` to ``shape`` (``tw.broadcast_to``).

    Args:
        input: a tensor.
        shape: a 1-D int tensor or list: the target shape, broadcast-compatible with ``input``.
        name: op name.

    Returns:
        A tensor of shape ``shape`` and ``input``'s dtype.
    """
    return bind(BroadcastTo, [convert(input), convert(shape, dtype_hint=dtypes.int32)], name=name)


@register_op("SumToShape")
class SumToShape:
    """Sums ``x`` over broadcast dimensions so that it has ``shape`` (gradient helper).

    twinflow's stand-in for TensorFlow's BroadcastGradientArgs + Sum + Reshape: the reduction
    that undoes broadcasting, as one op so that it works on shapes known only at run time.
    """

    def infer(x, shape):
        return x.dtype, shape_from_tensor(shape)

    def kernel(x, shape):
        shape = tuple(shape.tolist()) if type(shape) is np.ndarray else \
            tuple(int(d) for d in shape)
        if x.shape == shape:
            return x
        axes = _SUM_TO_AXES.get((x.shape, shape))
        if axes is None:
            axes = _sum_to_axes(x.shape, shape)
        if axes and x.dtype.kind in "fc":  # the gradient case, without np.sum's wrapper
            return add_reduce(x, axes, None, True).reshape(shape)
        out = np.sum(x, axis=axes, keepdims=True) if axes else x
        return np.reshape(out, shape).astype(x.dtype, copy=False)

    def lower(op):
        """Codegen hint: with both shapes static the axes are worked out once, at compile time,
        and ``add_reduce`` is called directly."""
        x, s = op.inputs
        target, xs = constant_value(s), known_shape(x)
        if target is None or xs is None or x.dtype.np is None or x.dtype.np.kind not in "fc":
            return None
        return _sum_to_lowered(xs, tuple(int(d) for d in np.asarray(target).reshape(-1)))

    def grad(op, dy):
        return bind(BroadcastTo, [dy, shape(op.inputs[0])]), None


_SUM_TO_AXES: dict = {}


def _sum_to_axes(xs: tuple, target: tuple) -> tuple:
    """The axes SumToShape reduces to take shape ``xs`` to ``target``, cached per shape pair
    (working them out costs as much as the reduction of a small gradient)."""
    lead = len(xs) - len(target)
    axes = tuple(range(lead)) + tuple(
        i + lead for i, d in enumerate(target) if d == 1 and xs[i + lead] != 1)
    if len(_SUM_TO_AXES) >= 1024:
        _SUM_TO_AXES.clear()
    _SUM_TO_AXES[xs, target] = axes
    return axes


def _sum_to_lowered(xs: tuple, target: tuple):
    lead = len(xs) - len(target)
    if lead < 0 or xs == target or any(d not in (1, xs[i + lead]) for i, d in enumerate(target)):
        return None
    axes = tuple(range(lead)) + tuple(
        i + lead for i, d in enumerate(target) if d == 1 and xs[i + lead] != 1)
    if tuple(d for i, d in enumerate(xs) if i not in axes) == target:
        def sum_to(x, shape):
            return add_reduce(x, axes)
    else:
        def sum_to(x, shape):
            return add_reduce(x, axes, None, True).reshape(target)
    sum_to.fresh_result = True
    return sum_to


def sum_to_shape(dy, like_shape):
    """Reduces gradient ``dy`` to ``like_shape`` (undoing broadcasting); free if equal."""
    return bind(SumToShape, [dy, like_shape])


def sum_to(dy, x):
    """Reduces ``dy`` to the shape of ``x``; with static shapes, skips the op when not needed."""
    if type(x) is EagerTensor and type(dy) is EagerTensor:
        # The eager gradient path: the arrays' shapes, without building TensorShapes.
        xs = x._value.shape
        if xs == dy._value.shape:
            return dy
        return bind(SumToShape, [dy, shape_constant(xs)])
    xs, ds = known_shape(x), known_shape(dy)
    if xs is not None:
        if xs == ds:
            return dy
        return bind(SumToShape, [dy, shape_constant(xs)])
    return bind(SumToShape, [dy, shape(x)])


_SHAPE_CONSTANTS: dict = {}


def shape_constant(dims: tuple) -> Tensor:
    """``dims`` as an int32 shape tensor (a gradient helper's static shape): eagerly, one
    cached tensor per shape, which saves building a tensor (or a Shape op) per gradient."""
    if ctx.graph is not None:
        return constant(np.array(dims, np.int32))
    t = _SHAPE_CONSTANTS.get(dims)
    if t is None:
        if len(_SHAPE_CONSTANTS) >= 1024:
            _SHAPE_CONSTANTS.clear()
        arr = np.array(dims, np.int32)
        arr.flags.writeable = False
        t = _SHAPE_CONSTANTS[dims] = EagerTensor(arr)
    return t


def _elems(t, n: int | None = None) -> list | None:
    """Per-element static values of a 1-D int tensor (None where unknown); None if the length is.
    """
    v = constant_value(t)
    if v is not None:
        return [int(a) for a in np.asarray(v).reshape(-1)]
    if isinstance(t, SymbolicTensor) and t.op.type == "Pack" and t.op.attrs.get("axis", 0) == 0:
        out = []
        for i in t.op.inputs:
            c = constant_value(i)
            out.append(None if c is None else int(c))
        return out
    if n is None and t.shape.rank == 1:
        n = t.shape[0]
    return None if n is None else [None] * n


def _static_int(v, what: str) -> int:
    """An attr that must be known when the op is built (an int, or a constant int tensor);
    a float or bool is a TypeError, as in TensorFlow (never truncated)."""
    return static_int(v, what)


def _static_ints(v, what: str) -> tuple:
    """A list-of-ints attr known when the op is built (ints, or a constant int tensor)."""
    return static_ints(v, what)


def _norm_axis(axis: int, rank: int | None, what: str, extra: int = 0) -> int:
    """``axis`` made non-negative for a tensor of ``rank`` (+ ``extra`` insertable positions)."""
    op, _, name = what.rpartition(": ")
    return _normalize_axis(axis, rank, op or what, what=name if op else "axis", extra=extra)


def _int_input(x, name: str, dtype=None) -> Tensor:
    """An integer shape-like argument as a tensor (int32 unless it is already an int tensor)."""
    if isinstance(x, Tensor):
        return x
    if dtype is not None:
        return convert(x, dtype=dtype)
    return shape_tensor(x, name)


# ----- size, rank ---------------------------------------------------------------------------------

@register_op("Size")
class Size:
    """The number of elements of ``x``, as a scalar."""

    def infer(x, *, out_type=dtypes.int32):
        return out_type, TensorShape([])

    def kernel(x, *, out_type=dtypes.int32):
        return np.asarray(np.size(x), dtype=out_type.np)

    def grad(op, dy):
        return None

    def constant_value(op):
        n = op.inputs[0].shape.num_elements()
        return None if n is None else np.asarray(n, dtype=op.attrs.get("out_type",
                                                                       dtypes.int32).np)


def size(input: TensorLike, out_type: DTypeLike = dtypes.int32, name: str | None = None) -> Tensor:
    """The number of elements of ``input`` (``tw.size``).

    Args:
        input, out_type, name: as for ``shape``.

    Returns:
        A scalar integer tensor.
    """
    try:
        x = convert(input)
    except CompositeArgument as e:  # a RaggedTensor: its number of values
        return dispatch("size", e, (input, out_type), {})
    return bind(Size, [x], {"out_type": dtypes.as_dtype(out_type)}, name=name)


@register_op("Rank")
class Rank:
    """The number of dimensions of ``x``, as an int32 scalar."""

    def infer(x):
        return dtypes.int32, TensorShape([])

    def kernel(x):
        return np.asarray(np.ndim(x), dtype=np.int32)

    def grad(op, dy):
        return None

    def constant_value(op):
        r = op.inputs[0].shape.rank
        return None if r is None else np.asarray(r, dtype=np.int32)


def rank(input: TensorLike, name: str | None = None) -> Tensor:
    """The rank of ``input`` (``tw.rank``).

    Args:
        input: a tensor.
        name: op name.

    Returns:
        A scalar int32 tensor.
    """
    try:
        x = convert(input)
    except CompositeArgument as e:  # a composite: its static rank
        return dispatch("rank", e, (input,), {})
    return bind(Rank, [x], name=name)
