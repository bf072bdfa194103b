"""Array ops: shapes, reshaping, joining, slicing, gathering."""
from __future__ import annotations

import builtins as _py
from collections import namedtuple

import numpy as np

from ..core.shapes import broadcast_shapes
from ..graph.tensor import DTypeLike, ShapeLike, TensorLike
from .core import (
    EagerTensor,
    InvalidArgumentError,
    OnesLike,
    Pack,
    SymbolicTensor,
    Tensor,
    TensorShape,
    Unpack,
    ZerosLike,
    _fmt,
    bind,
    constant,
    constant_value,
    convert,
    convert_n,
    convert_pair,
    ctx,
    dtypes,
    known_shape,
    register_op,
    shape_from_tensor,
    static_value,
    unary_infer,
)
from .core import invalid_argument as _err

# This module defines tw.range and tw.slice, so builtins are spelled _py.range / _py.slice.


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
        known = int(np.prod([d for d in v if d >= 0]))
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
        return np.reshape(x, shape)

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
    return bind(Reshape, [convert(tensor), convert(shape, dtype_hint=dtypes.int32)], name=name)


@register_op("BroadcastTo")
class BroadcastTo:
    """Broadcasts ``input`` to ``shape`` by NumPy rules."""

    def infer(x, shape):
        return x.dtype, shape_from_tensor(shape)

    def kernel(x, shape):
        dims = tuple(shape.tolist()) if type(shape) is np.ndarray else tuple(shape)
        if isinstance(x, (np.ndarray, np.generic)) and x.ndim == 0 and \
                x.dtype.kind in "biufc" and _py.min(dims, default=0) >= 0:
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
            return np.add.reduce(x, axis=axes, keepdims=True).reshape(shape)
        out = np.sum(x, axis=axes, keepdims=True) if axes else x
        return np.reshape(out, shape).astype(x.dtype, copy=False)

    def lower(op):
        """Codegen hint: with both shapes static the axes are worked out once, at compile time,
        and NumPy's add.reduce is called directly."""
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
    axes = tuple(_py.range(lead)) + tuple(
        i + lead for i, d in enumerate(target) if d == 1 and xs[i + lead] != 1)
    if len(_SUM_TO_AXES) >= 1024:
        _SUM_TO_AXES.clear()
    _SUM_TO_AXES[xs, target] = axes
    return axes


def _sum_to_lowered(xs: tuple, target: tuple):
    lead = len(xs) - len(target)
    if lead < 0 or xs == target or any(d not in (1, xs[i + lead]) for i, d in enumerate(target)):
        return None
    axes = tuple(_py.range(lead)) + tuple(
        i + lead for i, d in enumerate(target) if d == 1 and xs[i + lead] != 1)
    if tuple(d for i, d in enumerate(xs) if i not in axes) == target:
        def sum_to(x, shape):
            return np.add.reduce(x, axis=axes)
    else:
        def sum_to(x, shape):
            return np.add.reduce(x, axis=axes, keepdims=True).reshape(target)
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


def stack(values: TensorLike, axis: int = 0, name: str = "stack") -> Tensor:
    """Stacks tensors of one shape along a new axis (``tw.stack``).

    Args:
        values: a list of tensors of one shape and dtype.
        axis: where the new axis goes.
        name: op name.

    Returns:
        The stacked tensor.
    """
    dtype = None
    if values and not any(isinstance(v, Tensor) or hasattr(v, "_as_tensor") for v in values):
        try:  # Python values only: one dtype for all, as TensorFlow (tw.stack([1, 2.5]))
            dtype = convert(list(values)).dtype
        except (TypeError, ValueError):
            pass
    xs = convert_n(values, dtype)
    if not xs:
        raise ValueError("tw.stack needs at least one tensor")
    return bind(Pack, xs, {"axis": int(axis)}, name=name)


def unstack(value: TensorLike, num=None, axis: int = 0, name: str = "unstack") -> list:
    """Splits ``value`` along ``axis`` into a list of tensors (``tw.unstack``).

    Args:
        value: a tensor of rank >= 1.
        num: the length of that axis, needed only when it is not statically known.
        axis: the axis to unstack.
        name: op name.

    Returns:
        A list of tensors.
    """
    x = convert(value)
    if num is None:
        rank = x.shape.rank
        if rank is None or x.shape[axis % rank if rank else 0] is None:
            raise ValueError(f"Cannot infer argument `num` from shape {x.shape}")
        num = x.shape[axis % rank]
    return bind(Unpack, [x], {"num": int(num), "axis": int(axis)}, name=name)


# ----- helpers ----------------------------------------------------------------------------------

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
    """An attr that must be known when the op is built (an int, or a constant int tensor)."""
    return int(static_value(v, what))


def _static_ints(v, what: str) -> tuple:
    return tuple(int(a) for a in np.asarray(static_value(v, what)).reshape(-1))


def _norm_axis(axis: int, rank: int | None, what: str, extra: int = 0) -> int:
    """``axis`` made non-negative for a tensor of ``rank`` (+ ``extra`` insertable positions)."""
    if rank is None:
        return axis
    n = rank + extra
    if not -n <= axis < n:
        raise _err(f"{what}: axis {axis} is out of range for a tensor of rank {rank} "
                   f"(expected [{-n}, {n}))")
    return axis % n


def _int_input(x, name: str, dtype=None) -> Tensor:
    """An integer shape-like argument as a tensor (int32 unless it is already an int tensor)."""
    if isinstance(x, Tensor):
        return x
    t = convert(x, dtype=dtype, dtype_hint=dtypes.int32)
    if not t.dtype.is_integer:  # as TensorFlow: tw.zeros([2.5]) is no shape
        raise TypeError(f"Cannot convert {x!r} to EagerTensor of dtype int32 ({name} must be "
                        f"integers)")
    return t


# ----- layout: transpose, expand_dims, squeeze, reverse ---------------------------------------

def _check_perm(perm, rank: int) -> tuple:
    if len(perm) != rank or sorted(p % rank if rank else p for p in perm) != list(
            _py.range(rank)) or any(not -rank <= p < rank for p in perm):
        raise _err(f"transpose expects a permutation of [0, {rank}) for a tensor of rank "
                   f"{rank}, got perm {list(perm)}")
    return tuple(p % rank for p in perm)


@register_op("Transpose")
class Transpose:
    """Permutes the dimensions of ``x`` by ``perm`` (None: reverse them)."""

    def infer(x, *, perm=None, conjugate=False):
        if x.shape.rank is None:
            return x.dtype, TensorShape(None if perm is None else [None] * len(perm))
        dims = x.shape.as_list()
        if perm is None:
            return x.dtype, TensorShape(dims[::-1])
        perm = _check_perm(perm, len(dims))
        return x.dtype, TensorShape([dims[p] for p in perm])

    def kernel(x, *, perm=None, conjugate=False):
        out = np.transpose(x, perm)
        return np.conj(out) if conjugate and out.dtype.kind == "c" else out

    def grad(op, dy):
        perm = op.attrs.get("perm")
        inv = None if perm is None else tuple(
            int(i) for i in np.argsort([p % len(perm) for p in perm]))
        return bind(Transpose, [dy], {"perm": inv, "conjugate": op.attrs.get("conjugate", False)})


def transpose(a: TensorLike, perm=None, conjugate: bool = False, name: str = "transpose") -> Tensor:
    """Permutes the dimensions of ``a`` (``tw.transpose``).

    Args:
        a: a tensor.
        perm: a permutation of the dimensions (list or constant tensor); None reverses them.
        conjugate: also take the complex conjugate.
        name: op name.

    Returns:
        The transposed tensor.
    """
    x = convert(a)
    if perm is not None:
        perm = _static_ints(perm, "transpose: perm")
        if x.shape.rank is not None:
            perm = _check_perm(perm, x.shape.rank)
    return bind(Transpose, [x], {"perm": perm, "conjugate": bool(conjugate)}, name=name)


@register_op("ExpandDims")
class ExpandDims:
    """Inserts a dimension of length 1 at ``axis``."""

    def infer(x, *, axis):
        if x.shape.rank is None:
            return x.dtype, TensorShape(None)
        dims = x.shape.as_list()
        if not -len(dims) - 1 <= axis <= len(dims):
            raise _err(f"Tried to expand dim index {axis} for tensor with {len(dims)} "
                       "dimensions.")
        dims.insert(axis % (len(dims) + 1), 1)
        return x.dtype, TensorShape(dims)

    def kernel(x, *, axis):
        return np.expand_dims(x, axis)

    def grad(op, dy):
        return reshape(dy, shape(op.inputs[0]))


def expand_dims(input: TensorLike, axis: TensorLike, name: str | None = None) -> Tensor:
    """Inserts a length-1 dimension at ``axis`` (``tw.expand_dims``).

    Args:
        input: a tensor.
        axis: where the new dimension goes, in ``[-rank-1, rank]``.
        name: op name.

    Returns:
        The tensor with one more dimension.
    """
    return bind(ExpandDims, [convert(input)], {"axis": _static_int(axis, "expand_dims: axis")},
                name=name)


@register_op("Squeeze")
class Squeeze:
    """Removes dimensions of length 1 (those in ``squeeze_dims``, or all)."""

    def infer(x, *, squeeze_dims=()):
        if x.shape.rank is None:
            return x.dtype, TensorShape(None)
        dims = x.shape.as_list()
        if not squeeze_dims:
            if None in dims:
                return x.dtype, TensorShape(None)
            return x.dtype, TensorShape([d for d in dims if d != 1])
        axes = {_norm_axis(a, len(dims), "squeeze") for a in squeeze_dims}
        for a in sorted(axes):
            if dims[a] is not None and dims[a] != 1:
                raise _err(f"Can not squeeze dim[{a}], expected a dimension of 1, got {dims[a]} "
                           f"(input shape {_fmt(x.shape)})")
        return x.dtype, TensorShape([d for i, d in enumerate(dims) if i not in axes])

    def kernel(x, *, squeeze_dims=()):
        for a in squeeze_dims:
            if x.shape[a] != 1:
                raise _err(f"Can not squeeze dim[{a % x.ndim}], expected a dimension of 1, got "
                           f"{x.shape[a]} (input shape {list(x.shape)})")
        return np.squeeze(x, axis=tuple(squeeze_dims) if squeeze_dims else None)

    def grad(op, dy):
        return reshape(dy, shape(op.inputs[0]))


def squeeze(input: TensorLike, axis: TensorLike | None = None, name: str | None = None) -> Tensor:
    """Removes length-1 dimensions (``tw.squeeze``).

    Args:
        input: a tensor.
        axis: an int or list of ints: the dimensions to remove (each must have length 1);
            None removes all length-1 dimensions.
        name: op name.

    Returns:
        The squeezed tensor.
    """
    dims = () if axis is None else _static_ints(axis, "squeeze: axis")
    return bind(Squeeze, [convert(input)], {"squeeze_dims": dims}, name=name)


@register_op("ReverseV2")
class ReverseV2:
    """Reverses ``x`` along the dimensions in ``axis``."""

    def infer(x, *, axis):
        for a in axis:
            _norm_axis(a, x.shape.rank, "reverse")
        return x.dtype, x.shape

    def kernel(x, *, axis):
        return np.flip(x, axis) if axis else x

    def grad(op, dy):
        return bind(ReverseV2, [dy], op.attrs)


def reverse(tensor: TensorLike, axis: TensorLike, name: str | None = None) -> Tensor:
    """Reverses ``tensor`` along the dimensions in ``axis`` (``tw.reverse``).

    Args:
        tensor: a tensor.
        axis: a list of dimensions to reverse.
        name: op name.

    Returns:
        The reversed tensor.
    """
    x = convert(tensor)
    axes = _static_ints(axis, "reverse: axis")
    if len(set(axes)) != len(axes):
        raise _err(f"reverse: axis {list(axes)} names a dimension twice")
    return bind(ReverseV2, [x], {"axis": axes}, name=name)


@register_op("StopGradient")
class StopGradient:
    """Identity that blocks gradients."""

    infer = unary_infer

    def kernel(x):
        return x

    def grad(op, dy):
        return None


def stop_gradient(input: TensorLike, name: str | None = None) -> Tensor:
    """Returns ``input``; gradients do not flow through it (``tw.stop_gradient``).

    Args:
        input: a tensor.
        name: op name.

    Returns:
        The same value, treated as a constant by GradientTape.
    """
    return bind(StopGradient, [convert(input)], name=name)


# ----- size, rank -----------------------------------------------------------------------------

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
        input: a tensor.
        out_type: int32 (default) or int64.
        name: op name.

    Returns:
        A scalar integer tensor.
    """
    return bind(Size, [convert(input)], {"out_type": dtypes.as_dtype(out_type)}, name=name)


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
    return bind(Rank, [convert(input)], name=name)


# ----- joining and splitting ------------------------------------------------------------------

@register_op("ConcatV2", same_dtype=True)
class ConcatV2:
    """Joins tensors along an existing ``axis``."""

    def infer(*values, axis):
        ranks = [v.shape.rank for v in values if v.shape.rank is not None]
        if not ranks:
            return values[0].dtype, TensorShape(None)
        r = ranks[0]
        if not -r <= axis < r:
            raise _err(f"ConcatOp : Expected concatenating dimensions in the range [{-r}, {r}), "
                       f"but got {axis}")
        ax = axis % r
        first = next(v for v in values if v.shape.rank is not None)
        out = list(first.shape.as_list())
        out[ax] = 0
        for i, v in enumerate(values):
            if v.shape.rank is None:
                out[ax] = None
                continue
            if v.shape.rank != r:
                raise _err(f"ConcatOp : Ranks of all input tensors should match: shape[0] = "
                           f"{_fmt(values[0].shape)} vs. shape[{i}] = {_fmt(v.shape)}")
            for j, d in enumerate(v.shape.as_list()):
                if j == ax:
                    out[ax] = None if out[ax] is None or d is None else out[ax] + d
                elif d is not None:
                    if out[j] is not None and out[j] != d:
                        raise _err(f"ConcatOp : Dimension {j} in both shapes must be equal: "
                                   f"shape[0] = {_fmt(first.shape)} vs. shape[{i}] = "
                                   f"{_fmt(v.shape)}")
                    out[j] = d
        return values[0].dtype, TensorShape(out)

    def kernel(*values, axis):
        return np.concatenate(values, axis=axis)

    def constant_value(op):
        vals = [constant_value(t) for t in op.inputs]
        if any(v is None for v in vals):
            return None
        return np.concatenate(vals, axis=op.attrs["axis"])

    def grad(op, dy):
        xs = op.inputs
        axis = op.attrs["axis"]
        shapes = [shape(x) for x in xs]
        offsets = bind(ConcatOffset, shapes, {"axis": axis})
        return [bind(Slice, [dy, off, s]) for off, s in zip(offsets, shapes)]


@register_op("ConcatOffset", multi_output=True)
class ConcatOffset:
    """Where each of the shapes begins in their concatenation along ``axis`` (concat grad)."""

    def infer(*shapes, axis):
        return [(s.dtype, s.shape) for s in shapes]

    def kernel(*shapes, axis):
        out, pos = [], 0
        for s in shapes:
            off = np.zeros_like(s)
            if len(s):
                ax = axis % len(s)
                off[ax] = pos
                pos += s[ax]
            out.append(off)
        return tuple(out)

    def grad(op, *dys):
        return [None] * len(op.inputs)


def concat(values: TensorLike, axis: TensorLike, name: str = "concat") -> Tensor:
    """Concatenates tensors along ``axis`` (``tw.concat``).

    Args:
        values: a list of tensors of one dtype and rank, equal in all other dimensions.
        axis: the dimension to join along (negative counts from the end).
        name: op name.

    Returns:
        The joined tensor.
    """
    xs = convert_n(values if isinstance(values, (list, tuple)) else [values])
    if not xs:
        raise ValueError("tw.concat needs at least one tensor")
    axis = _static_int(axis, "concat: axis")
    if len(xs) == 1:
        rank_ = xs[0].shape.rank
        _norm_axis(axis, rank_, "concat")
        return identity(xs[0], name=name)
    return bind(ConcatV2, xs, {"axis": axis}, name=name)


def _zeros_for_missing(dys, outputs) -> list:
    return [dy if dy is not None else bind(ZerosLike, [o]) for dy, o in zip(dys, outputs)]


@register_op("Split", multi_output=True)
class Split:
    """Splits ``value`` into ``num_split`` equal pieces along ``axis``."""

    def infer(value, *, num_split, axis):
        if value.shape.rank is None:
            return [(value.dtype, TensorShape(None))] * num_split
        dims = value.shape.as_list()
        ax = _norm_axis(axis, len(dims), "split")
        d = dims[ax]
        if d is not None:
            if num_split <= 0 or d % num_split:
                raise _err(f"Number of ways to split should evenly divide the split dimension, "
                           f"but got split_dim {ax} (size = {d}) and num_split {num_split}")
            dims[ax] = d // num_split
        return [(value.dtype, TensorShape(dims))] * num_split

    def kernel(value, *, num_split, axis):
        return tuple(np.split(value, num_split, axis=axis))

    def grad(op, *dys):
        dys = _zeros_for_missing(dys, op.outputs)
        return dys[0] if len(dys) == 1 else bind(ConcatV2, dys, {"axis": op.attrs["axis"]})


def _resolve_sizes(sizes: list, d: int | None) -> list:
    if d is not None and sizes.count(-1) == 1 and None not in sizes:
        rest = sum(s for s in sizes if s != -1)
        return [d - rest if s == -1 else s for s in sizes]
    return sizes


@register_op("SplitV", multi_output=True)
class SplitV:
    """Splits ``value`` along ``axis`` into pieces of ``size_splits`` (one may be -1)."""

    def infer(value, size_splits, *, num_split, axis):
        sizes = _elems(size_splits, num_split) or [None] * num_split
        if value.shape.rank is None:
            return [(value.dtype, TensorShape(None))] * num_split
        dims = value.shape.as_list()
        ax = _norm_axis(axis, len(dims), "split")
        d = dims[ax]
        if sizes.count(-1) > 1:
            raise _err(f"There can only be one -1 in the input size_splits, got {sizes}")
        known = [s for s in sizes if s is not None and s != -1]
        if d is not None and None not in sizes:
            total = sum(known)
            if (-1 in sizes and total > d) or (-1 not in sizes and total != d):
                raise _err(f"Determined shape must either match input shape along split_dim "
                           f"exactly if fully specified, or be less than the size of the input "
                           f"along split_dim if not fully specified. Got: {total} (size_splits "
                           f"{sizes}, dimension {ax} of {_fmt(value.shape)})")
        sizes = _resolve_sizes(sizes, d)
        out = []
        for s in sizes:
            dd = list(dims)
            dd[ax] = None if s is None or s == -1 else s
            out.append((value.dtype, TensorShape(dd)))
        return out

    def kernel(value, size_splits, *, num_split, axis):
        sizes = _resolve_sizes([int(s) for s in size_splits], value.shape[axis])
        if sum(sizes) != value.shape[axis] or min(sizes) < 0:
            raise _err(f"size_splits {list(size_splits)} do not split dimension {axis} of "
                       f"size {value.shape[axis]}")
        return tuple(np.split(value, np.cumsum(sizes)[:-1], axis=axis))

    def grad(op, *dys):
        dys = _zeros_for_missing(dys, op.outputs)
        g = dys[0] if len(dys) == 1 else bind(ConcatV2, dys, {"axis": op.attrs["axis"]})
        return g, None


def split(value: TensorLike, num_or_size_splits, axis: int = 0, num=None,
          name: str = "split") -> list:
    """Splits ``value`` along ``axis`` (``tw.split``).

    Args:
        value: a tensor.
        num_or_size_splits: an int (that many equal pieces) or a list of sizes (one may be -1).
        axis: the dimension to split.
        num: the number of pieces, needed only when it cannot be inferred.
        name: op name.

    Returns:
        A list of tensors.
    """
    x = convert(value)
    axis = _static_int(axis, "split: axis")
    if isinstance(num_or_size_splits, (int, np.integer)):
        n = int(num_or_size_splits)
        return bind(Split, [x], {"num_split": n, "axis": axis}, name=name)
    sizes = _int_input(num_or_size_splits, "num_or_size_splits")
    if sizes.shape.rank == 0:
        n = _static_int(sizes, "split: num_or_size_splits")
        return bind(Split, [x], {"num_split": n, "axis": axis}, name=name)
    if num is None:
        num = sizes.shape[0] if sizes.shape.rank == 1 else None
        if num is None:
            raise ValueError(f"Cannot infer argument `num` from shape {sizes.shape}")
    return bind(SplitV, [x, sizes], {"num_split": int(num), "axis": axis}, name=name)


# ----- tile, pad ------------------------------------------------------------------------------

@register_op("Tile")
class Tile:
    """Repeats ``x`` ``multiples[i]`` times along each dimension i."""

    def infer(x, multiples):
        m = _elems(multiples)
        if x.shape.rank is None:
            return x.dtype, TensorShape(None if m is None else [None] * len(m))
        dims = x.shape.as_list()
        if m is not None and len(m) != len(dims):
            raise _err(f"Expected multiples argument to be a vector of length {len(dims)} but "
                       f"got length {len(m)} (input shape {_fmt(x.shape)})")
        if m is None:
            return x.dtype, TensorShape([None] * len(dims))
        for k in m:
            if k is not None and k < 0:
                raise _err(f"Expected multiples to be non-negative, got {m}")
        return x.dtype, TensorShape([None if d is None or k is None else d * k
                                     for d, k in zip(dims, m)])

    def kernel(x, multiples):
        if len(multiples) != np.ndim(x):
            raise _err(f"Expected multiples argument to be a vector of length {np.ndim(x)} but "
                       f"got length {len(multiples)}")
        return np.tile(x, tuple(int(k) for k in multiples)) if np.ndim(x) else np.array(x)

    def grad(op, dy):
        x, m = op.inputs
        xs = shape(x, out_type=m.dtype)
        # dy viewed as [m0, n0, m1, n1, ...], summed over the m axes.
        split_shape = reshape(bind(Pack, [m, xs], {"axis": 1}), [-1])
        target = reshape(bind(Pack, [bind(OnesLike, [m]), xs], {"axis": 1}), [-1])
        g = bind(SumToShape, [reshape(dy, split_shape), target])
        return reshape(g, xs), None


def tile(input: TensorLike, multiples: TensorLike, name: str | None = None) -> Tensor:
    """Tiles ``input`` ``multiples[i]`` times along dimension i (``tw.tile``).

    Args:
        input: a tensor.
        multiples: a 1-D int list or tensor, one entry per dimension.
        name: op name.

    Returns:
        The tiled tensor.
    """
    return bind(Tile, [convert(input), _int_input(multiples, "multiples")], name=name)


def _pad_infer_dims(x, paddings, limit=None):
    """Output dims of padding ``x``; ``limit(d)`` bounds each pad for mirror modes."""
    p = constant_value(paddings)
    r = x.shape.rank
    if paddings.shape.rank is not None and paddings.shape.rank != 2 or (
            paddings.shape.rank == 2 and paddings.shape[1] not in (None, 2)):
        raise _err(f"paddings must be a matrix with 2 columns, got shape {_fmt(paddings.shape)}")
    if r is None:
        n = paddings.shape[0] if paddings.shape.rank == 2 else None
        return None if n is None else [None] * n
    if paddings.shape.rank == 2 and paddings.shape[0] not in (None, r):
        raise _err(f"The first dimension of paddings must be the rank of inputs"
                   f"{_fmt(paddings.shape)}, {_fmt(x.shape)}")
    dims = x.shape.as_list()
    if p is None:
        return [None] * r
    p = np.asarray(p).reshape(r, 2)
    if (p < 0).any():
        raise _err(f"The paddings must be non-negative, got {p.tolist()}")
    out = []
    for d, (a, b) in zip(dims, p.tolist()):
        if limit is not None and d is not None and (a > limit(d) or b > limit(d)):
            raise _err(f"paddings must be no greater than the dimension size ({limit(d)} for "
                       f"size {d}), got {a}, {b} (input shape {_fmt(x.shape)})")
        out.append(None if d is None else d + a + b)
    return out


@register_op("PadV2")
class PadV2:
    """Pads ``x`` with ``constant_values`` by ``paddings`` (``[rank, 2]``: before, after)."""

    def infer(x, paddings, constant_values):
        dims = _pad_infer_dims(x, paddings)
        if constant_values.dtype is not x.dtype:
            raise _err(f"pad: constant_values has dtype {constant_values.dtype.name}, the input "
                       f"{x.dtype.name}")
        return x.dtype, TensorShape(dims)

    def kernel(x, paddings, constant_values):
        if (np.asarray(paddings) < 0).any():
            raise _err(f"The paddings must be non-negative, got {np.asarray(paddings).tolist()}")
        return np.pad(x, np.asarray(paddings).reshape(-1, 2), constant_values=constant_values)

    def grad(op, dy):
        x, paddings, _ = op.inputs
        begin = bind(Unpack, [paddings], {"num": 2, "axis": 1})[0]
        return bind(Slice, [dy, begin, shape(x, out_type=paddings.dtype)]), None, None


def _mirror_index(n: int, a: int, b: int, offset: int) -> np.ndarray:
    q = np.arange(-a, n + b)
    return np.where(q < 0, -q - 1 + offset, np.where(q >= n, 2 * n - 1 - offset - q, q))


@register_op("MirrorPad")
class MirrorPad:
    """Pads ``x`` by reflecting it at its edges (mode REFLECT or SYMMETRIC)."""

    def infer(x, paddings, *, mode):
        off = 1 if mode == "REFLECT" else 0
        return x.dtype, TensorShape(_pad_infer_dims(x, paddings, lambda d: d - off))

    def kernel(x, paddings, *, mode):
        off = 1 if mode == "REFLECT" else 0
        out = x
        for ax, (a, b) in enumerate(np.asarray(paddings).reshape(-1, 2).tolist()):
            n = x.shape[ax]
            if a < 0 or b < 0 or a > n - off or b > n - off:
                raise _err(f"paddings must be no greater than the dimension size ({n - off} "
                           f"for size {n} in mode {mode}), got {a}, {b}")
            if a or b:
                out = np.take(out, _mirror_index(n, a, b, off), axis=ax)
        return out

    def grad(op, dy):
        return bind(MirrorPadGrad, [dy, op.inputs[1]], op.attrs), None


@register_op("MirrorPadGrad")
class MirrorPadGrad:
    """Folds a mirror-padded gradient back onto the unpadded shape."""

    def infer(dy, paddings, *, mode):
        p = constant_value(paddings)
        if dy.shape.rank is None:
            return dy.dtype, TensorShape(None)
        if p is None:
            return dy.dtype, TensorShape([None] * dy.shape.rank)
        p = np.asarray(p).reshape(-1, 2)
        return dy.dtype, TensorShape([None if d is None else d - int(a) - int(b)
                                      for d, (a, b) in zip(dy.shape.as_list(), p)])

    def kernel(dy, paddings, *, mode):
        off = 1 if mode == "REFLECT" else 0
        out = dy
        for ax, (a, b) in enumerate(np.asarray(paddings).reshape(-1, 2).tolist()):
            if not (a or b):
                continue
            n = out.shape[ax] - a - b
            folded = np.zeros(out.shape[:ax] + (n,) + out.shape[ax + 1:], dtype=dy.dtype)
            np.add.at(np.moveaxis(folded, ax, 0), _mirror_index(n, a, b, off),
                      np.moveaxis(out, ax, 0))
            out = folded
        return out

    def grad(op, dy):
        return bind(MirrorPad, [dy, op.inputs[1]], op.attrs), None


def pad(tensor: TensorLike, paddings: TensorLike, mode="CONSTANT", constant_values=0,
        name: str | None = None) -> Tensor:
    """Pads ``tensor`` (``tw.pad``).

    Args:
        tensor: a tensor.
        paddings: an int ``[rank, 2]`` list or tensor: how much to add before and after each
            dimension.
        mode: "CONSTANT", "REFLECT" or "SYMMETRIC" (case-insensitive).
        constant_values: the fill value in CONSTANT mode.
        name: op name.

    Returns:
        The padded tensor.
    """
    x = convert(tensor)
    p = _int_input(paddings, "paddings")
    mode = str(mode).upper()
    if mode == "CONSTANT":
        c = constant_values
        if not isinstance(c, Tensor):
            if np.ndim(c) == 0 and not isinstance(c, (str, bytes)) and c == 0:
                c = np.zeros((), x.dtype.np)  # the dtype's zero: False, b'', 0
                if x.dtype.is_string:
                    c = np.array(b"", dtype=object)
            c = constant(c, x.dtype)
        return bind(PadV2, [x, p, c], name=name)
    if mode not in ("REFLECT", "SYMMETRIC"):
        raise ValueError(f'pad: mode must be "CONSTANT", "REFLECT" or "SYMMETRIC", got {mode!r}')
    return bind(MirrorPad, [x, p], {"mode": mode}, name=name)


# ----- slicing --------------------------------------------------------------------------------

@register_op("Slice")
class Slice:
    """``size`` elements of ``x`` from ``begin`` in each dimension (size -1: to the end)."""

    def infer(x, begin, size):
        r = x.shape.rank
        bs, ss = _elems(begin, r), _elems(size, r)
        n = r if r is not None else (len(bs) if bs is not None else None)
        if n is None:
            return x.dtype, TensorShape(None)
        bs = bs or [None] * n
        ss = ss or [None] * n
        if len(bs) != n or len(ss) != n:
            raise _err(f"Expected begin and size arguments to be 1-D tensors of size {n}, but "
                       f"got shapes {_fmt(begin.shape)} and {_fmt(size.shape)} instead.")
        dims = x.shape.as_list() if r is not None else [None] * n
        out = []
        for i, (d, b, s) in enumerate(zip(dims, bs, ss)):
            if b is not None and (b < 0 or d is not None and b > d):
                raise _err(f"Expected begin[{i}] in [0, {d}], but got {b}")
            if s is not None and s >= 0:
                if b is not None and d is not None and b + s > d:
                    raise _err(f"Expected size[{i}] in [0, {d - b}], but got {s}")
                out.append(s)
            elif s == -1 and b is not None and d is not None:
                out.append(d - b)
            else:
                out.append(None)
        return x.dtype, TensorShape(out)

    def kernel(x, begin, size):
        idx = []
        for i, (d, b, s) in enumerate(zip(np.shape(x), begin, size)):
            b, s = int(b), int(s)
            e = d if s == -1 else b + s
            if not 0 <= b <= d or not b <= e <= d:
                raise _err(f"Expected begin[{i}] in [0, {d}] and size[{i}] in [0, {d - b}] "
                           f"(or -1), but got begin {b} and size {s}")
            idx.append(_py.slice(b, e))
        return x[tuple(idx)]

    def grad(op, dy):
        x, begin, _ = op.inputs
        return bind(SliceGrad, [shape(x, out_type=begin.dtype), begin, dy]), None, None


@register_op("SliceGrad")
class SliceGrad:
    """Zeros of ``shape`` with ``dy`` placed at ``begin`` (gradient of Slice)."""

    def infer(shape_, begin, dy):
        return dy.dtype, shape_from_tensor(shape_)

    def kernel(shape_, begin, dy):
        out = np.zeros(tuple(int(d) for d in shape_), dtype=dy.dtype)
        out[tuple(_py.slice(int(b), int(b) + n) for b, n in zip(begin, np.shape(dy)))] = dy
        return out

    def grad(op, ddx):
        _, begin, dy = op.inputs
        return None, None, bind(Slice, [ddx, begin, shape(dy, out_type=begin.dtype)])


def slice(input_: TensorLike, begin, size, name: str | None = None) -> Tensor:
    """Extracts a block of ``input_`` (``tw.slice``).

    Args:
        input_: a tensor.
        begin: the start index in each dimension.
        size: the block size in each dimension; -1 takes everything from ``begin`` on.
        name: op name.

    Returns:
        The block.
    """
    b = _int_input(begin, "begin")
    s = _int_input(size, "size", dtype=b.dtype if not isinstance(size, Tensor) else None)
    return bind(Slice, [convert(input_), b, s], name=name)


_MASKS = ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask")


def _ss_plan(rank: int | None, n: int, begin_mask=0, end_mask=0, ellipsis_mask=0,
             new_axis_mask=0, shrink_axis_mask=0):
    """What each of the ``n`` slice-spec entries does to a tensor of ``rank``.

    Returns:
        (entries, trailing): entries are ("ellipsis", first_dim, count), ("new",),
        ("shrink", dim, i) or ("slice", dim, i); ``trailing`` is the first input dimension the
        spec leaves untouched (None when the rank is unknown and an ellipsis is present).
    """
    ells = [i for i in _py.range(n) if ellipsis_mask >> i & 1]
    if len(ells) > 1:
        raise _err("Multiple ellipses in slice spec not allowed")
    consumed = sum(1 for i in _py.range(n)
                   if not (ellipsis_mask >> i & 1) and not (new_axis_mask >> i & 1))
    if rank is not None and consumed > rank:
        raise _err(f"Index out of range using input dim {rank}; input has only {rank} dims "
                   f"(got {consumed} indices)")
    entries, d = [], 0
    for i in _py.range(n):
        if ellipsis_mask >> i & 1:
            k = None if rank is None else rank - consumed
            entries.append(("ellipsis", d, k))
            d = None if k is None else d + k
        elif new_axis_mask >> i & 1:
            entries.append(("new",))
        elif shrink_axis_mask >> i & 1:
            entries.append(("shrink", d, i))
            d = None if d is None else d + 1
        else:
            entries.append(("slice", d, i))
            d = None if d is None else d + 1
    return entries, d


def _index_tuple(x_shape, begin, end, strides, masks) -> tuple:
    """The NumPy index equivalent to a StridedSlice spec on an array of ``x_shape``."""
    entries, _ = _ss_plan(len(x_shape), len(begin), **masks)
    bm, em = masks.get("begin_mask", 0), masks.get("end_mask", 0)
    idx = []
    for e in entries:
        kind = e[0]
        if kind == "ellipsis":
            idx.append(Ellipsis)
        elif kind == "new":
            idx.append(None)
        elif kind == "shrink":
            _, d, i = e
            b, n = int(begin[i]), x_shape[d]
            if not -n <= b < n:
                raise _err(f"slice index {b} of dimension {d} out of bounds.")
            idx.append(b)
        else:
            _, d, i = e
            s = int(strides[i])
            if s == 0:
                raise _err(f"strides[{i}] must be non-zero")
            idx.append(_py.slice(None if bm >> i & 1 else int(begin[i]),
                                 None if em >> i & 1 else int(end[i]), s))
    return tuple(idx)


def _slice_len(d, b, e, s, bmask: bool, emask: bool):
    if s is None or d is None or (b is None and not bmask) or (e is None and not emask):
        return None
    return len(_py.range(*_py.slice(None if bmask else b, None if emask else e, s).indices(d)))


@register_op("StridedSlice")
class StridedSlice:
    """Python-style basic indexing: ``x[begin:end:strides]`` per dimension, with masks.

    Bit i of ``begin_mask``/``end_mask`` ignores begin[i]/end[i]; of ``ellipsis_mask`` makes
    entry i an ellipsis; of ``new_axis_mask`` a new length-1 axis; of ``shrink_axis_mask`` an
    integer index (end[i] is then ignored).
    """

    def infer(x, begin, end, strides, **masks):
        n = begin.shape[0] if begin.shape.rank == 1 else None
        if n is None:
            return x.dtype, TensorShape(None)
        rank = x.shape.rank
        entries, trailing = _ss_plan(rank, n, **masks)
        if rank is None:
            return x.dtype, TensorShape(None)
        bv, ev, sv = _elems(begin, n), _elems(end, n), _elems(strides, n)
        bm, em = masks.get("begin_mask", 0), masks.get("end_mask", 0)
        dims = x.shape.as_list()
        out = []
        for e in entries:
            kind = e[0]
            if kind == "ellipsis":
                out.extend(dims[e[1]:e[1] + e[2]])
            elif kind == "new":
                out.append(1)
            elif kind == "shrink":
                _, d, i = e
                b, size_ = bv[i], dims[d]
                if b is not None and size_ is not None and not -size_ <= b < size_:
                    raise _err(f"slice index {b} of dimension {d} out of bounds.")
            else:
                _, d, i = e
                if sv[i] == 0:
                    raise _err(f"strides[{i}] must be non-zero")
                out.append(_slice_len(dims[d], bv[i], ev[i], sv[i], bool(bm >> i & 1),
                                      bool(em >> i & 1)))
        out.extend(dims[trailing:])
        return x.dtype, TensorShape(out)

    def kernel(x, begin, end, strides, **masks):
        return x[_index_tuple(np.shape(x), begin, end, strides, masks)]

    def constant_value(op):
        vals = [constant_value(t) for t in op.inputs]
        if any(v is None for v in vals):
            return None
        return StridedSlice.kernel(*vals, **op.attrs)

    def grad(op, dy):
        x, begin, end, strides = op.inputs
        g = bind(StridedSliceGrad, [shape(x, out_type=begin.dtype), begin, end, strides, dy],
                 op.attrs)
        return g, None, None, None


@register_op("StridedSliceGrad")
class StridedSliceGrad:
    """Zeros of ``shape`` with ``dy`` placed where StridedSlice took its values."""

    def infer(shape_, begin, end, strides, dy, **masks):
        return dy.dtype, shape_from_tensor(shape_)

    def kernel(shape_, begin, end, strides, dy, **masks):
        out = np.zeros(tuple(int(d) for d in shape_), dtype=dy.dtype)
        idx = _index_tuple(out.shape, begin, end, strides, masks)
        out[idx] = np.reshape(dy, np.shape(out[idx]))
        return out

    def grad(op, ddx):
        _, begin, end, strides, _ = op.inputs
        return None, None, None, None, bind(StridedSlice, [ddx, begin, end, strides], op.attrs)


def strided_slice(input_: TensorLike, begin, end, strides=None, begin_mask=0, end_mask=0,
                  ellipsis_mask=0, new_axis_mask=0, shrink_axis_mask=0,
                  name: str | None = None) -> Tensor:
    """Extracts a strided slice of ``input_`` (``tw.strided_slice``); ``x[...]`` uses this.

    Args:
        input_: a tensor.
        begin: 1-D int start indices, one per slice-spec entry.
        end: 1-D int end indices (exclusive).
        strides: 1-D int steps (default all 1).
        begin_mask: bit i set ignores begin[i] (start from the first/last element).
        end_mask: bit i set ignores end[i].
        ellipsis_mask: bit i set makes entry i an ellipsis.
        new_axis_mask: bit i set makes entry i a new length-1 dimension.
        shrink_axis_mask: bit i set makes entry i an integer index (removing the dimension).
        name: op name.

    Returns:
        The slice.
    """
    b = _int_input(begin, "begin")
    e = _int_input(end, "end", dtype=None if isinstance(end, Tensor) else b.dtype)
    if strides is None:
        n = b.shape[0] if b.shape.rank == 1 else None
        if n is None:
            raise ValueError("strided_slice: strides are needed when begin has unknown length")
        strides = [1] * n
    s = _int_input(strides, "strides", dtype=None if isinstance(strides, Tensor) else b.dtype)
    attrs = dict(zip(_MASKS, (int(begin_mask), int(end_mask), int(ellipsis_mask),
                              int(new_axis_mask), int(shrink_axis_mask))))
    return bind(StridedSlice, [convert(input_), b, e, s], attrs, name=name)


def _index_value(v, key):
    """A slice bound or integer index: a Python int, or a scalar int symbolic tensor."""
    if isinstance(v, (bool, np.bool_)):
        raise TypeError(_BAD_INDEX.format(key=key))
    if isinstance(v, (int, np.integer)):
        return int(v)
    if isinstance(v, Tensor) and v.dtype.is_integer and v.shape.rank == 0:
        c = constant_value(v)
        return v if c is None else int(c)
    idx = getattr(v, "__index__", None)
    if idx is not None and not isinstance(v, Tensor):
        return int(idx())
    raise TypeError(_BAD_INDEX.format(key=key))


_BAD_INDEX = ("Only integers, slices (`:`), ellipsis (`...`), tw.newaxis (`None`) and scalar "
              "tw.int32/tw.int64 tensors are valid indices, got {key!r}")


def _spec_tensor(values: list, dtype) -> Tensor:
    if any(isinstance(v, Tensor) for v in values):
        return convert(values, dtype)
    return constant(np.asarray(values, dtype=dtype.np))


def _plain(key: tuple) -> bool:
    """Whether every entry of ``key`` is a Python int, None, ``...`` or a slice of ints."""
    for k in key:
        t = type(k)
        if t is int or k is None or k is Ellipsis:
            continue
        if t is _py.slice and all(type(v) is int or v is None
                                   for v in (k.start, k.stop, k.step)):
            continue
        return False
    return True


def _put(begin: list, end: list, strides: list, b, e, s) -> None:
    begin.append(b)
    end.append(e)
    strides.append(s)


def slice_helper(tensor, key) -> Tensor:
    """``tensor[key]``: basic indexing as one StridedSlice op, as TensorFlow does.

    Args:
        tensor: the tensor being indexed.
        key: an int, slice, ``...``, ``tw.newaxis`` (None), scalar int tensor, or a tuple of
            these.

    Returns:
        The indexed tensor.
    """
    if not isinstance(key, tuple):
        key = (key,)
    if type(tensor) is EagerTensor and ctx.graph is None and not ctx.slow_path and _plain(key):
        # Nothing records this op, so NumPy's identical basic indexing can do it directly.
        try:
            v = tensor._value[key]
        except (IndexError, ValueError, TypeError):
            pass  # StridedSlice below raises TensorFlow's error for this key
        else:
            if type(v) is bytes:  # an element of a string tensor: keep it an array
                v = np.asarray(v, dtype=object)
            return EagerTensor(v)
    spec, attrs = slice_spec(key)
    return bind(StridedSlice, [convert(tensor)] + spec, attrs)


def slice_spec(key: tuple) -> tuple:
    """The StridedSlice inputs and attrs for an indexing key (``x[key]``, ``v[key].assign``).

    Args:
        key: a tuple of ints, slices, ``...``, None and scalar int tensors.

    Returns:
        ([begin, end, strides] as int tensors, the mask attrs).
    """
    begin, end, strides = [], [], []
    bm = em = ell = new = shrink = 0
    for i, k in enumerate(key):
        bit = 1 << i
        if k is Ellipsis:
            ell |= bit
            _put(begin, end, strides, 0, 0, 1)
        elif k is None:
            new |= bit
            _put(begin, end, strides, 0, 0, 1)
        elif isinstance(k, _py.slice):
            if k.start is None:
                bm |= bit
                begin.append(0)
            else:
                begin.append(_index_value(k.start, k))
            if k.stop is None:
                em |= bit
                end.append(0)
            else:
                end.append(_index_value(k.stop, k))
            step = 1 if k.step is None else _index_value(k.step, k)
            if isinstance(step, int) and step == 0:
                raise _err("slice step cannot be zero (strides must be non-zero)")
            strides.append(step)
        else:
            v = _index_value(k, k)
            shrink |= bit
            # StridedSlice ignores end for a shrunk axis, so a tensor index needs no v + 1.
            _put(begin, end, strides, v, v + 1 if isinstance(v, int) else v, 1)
    dts = {v.dtype for v in begin + end + strides if isinstance(v, Tensor)}
    dt = dtypes.int64 if dtypes.int64 in dts else dtypes.int32
    attrs = {"begin_mask": bm, "end_mask": em, "ellipsis_mask": ell, "new_axis_mask": new,
             "shrink_axis_mask": shrink}
    return [_spec_tensor(begin, dt), _spec_tensor(end, dt), _spec_tensor(strides, dt)], attrs


# ----- gather and scatter ---------------------------------------------------------------------

def _check_indices(indices, n: int) -> None:
    if indices.size and (indices.min() < 0 or indices.max() >= n):
        flat = indices.reshape(-1)
        j = int(np.argmax((flat < 0) | (flat >= n)))
        pos = np.unravel_index(j, indices.shape)
        where = ",".join(str(int(p)) for p in pos)
        raise _err(f"indices[{where}] = {int(flat[j])} is not in [0, {n})")


def _gather_layout(params_shape: tuple, indices_shape: tuple, axis: int, batch_dims: int):
    """Normalized (axis, batch_dims, B, number of index dims, dims between batch and axis)."""
    axis %= len(params_shape)
    b = batch_dims + len(indices_shape) if batch_dims < 0 else batch_dims
    big_b = int(np.prod(params_shape[:b], dtype=np.int64))
    return axis, b, big_b, len(indices_shape) - b, axis - b


def _gather_kernel(params, indices, axis, batch_dims):
    axis, b, big_b, ni, n1 = _gather_layout(params.shape, indices.shape, axis, batch_dims)
    _check_indices(indices, params.shape[axis])
    if b == 0:
        return np.take(params, indices, axis=axis)
    p = np.moveaxis(params.reshape((big_b,) + params.shape[b:]), axis - b + 1, 1)
    ind = indices.reshape((big_b,) + indices.shape[b:])
    bidx = np.arange(big_b).reshape((big_b,) + (1,) * ni)
    out = p[bidx, ind]  # [B, I..., P1..., P2...]
    perm = ([0] + list(_py.range(1 + ni, 1 + ni + n1)) + list(_py.range(1, 1 + ni))
            + list(_py.range(1 + ni + n1, out.ndim)))
    out = out.transpose(perm)
    return out.reshape(params.shape[:b] + out.shape[1:])


def _gather_infer(params, indices, *, axis, batch_dims):
    pr, ir = params.shape.rank, indices.shape.rank
    if pr is None or ir is None:
        return params.dtype, TensorShape(None)
    b = batch_dims + ir if batch_dims < 0 else batch_dims
    if not 0 <= b <= ir:
        raise _err(f"Expected batch_dims in the range [{-ir}, {ir}], but got {batch_dims}")
    if not -pr <= axis < pr:
        raise _err(f"Expected axis in the range [{-pr}, {pr}), but got {axis}")
    ax = axis % pr
    if b > ax:
        raise _err(f"batch_dims ({b}) must be less than or equal to axis ({ax})")
    pd, idd = params.shape.as_list(), indices.shape.as_list()
    for j in _py.range(b):
        if pd[j] is not None and idd[j] is not None and pd[j] != idd[j]:
            raise _err(f"params.shape[{j}]: {pd[j]} should be equal to indices.shape[{j}]: "
                       f"{idd[j]} (batch_dims = {b})")
    return params.dtype, TensorShape(pd[:ax] + idd[b:] + pd[ax + 1:])


@register_op("GatherV2")
class GatherV2:
    """Slices of ``params`` along ``axis`` at ``indices`` (with ``batch_dims`` leading batch
    dimensions shared by params and indices)."""

    infer = _gather_infer
    kernel = _gather_kernel

    def grad(op, dy):
        params, indices = op.inputs
        return bind(GatherGrad, [shape(params), indices, dy], op.attrs), None


@register_op("GatherGrad")
class GatherGrad:
    """Scatter-adds ``dy`` into zeros of ``params_shape`` (gradient of GatherV2)."""

    def infer(params_shape, indices, dy, *, axis, batch_dims):
        return dy.dtype, shape_from_tensor(params_shape)

    def kernel(params_shape, indices, dy, *, axis, batch_dims):
        pshape = tuple(int(d) for d in params_shape)
        axis, b, big_b, ni, n1 = _gather_layout(pshape, indices.shape, axis, batch_dims)
        out = np.zeros((big_b,) + pshape[b:], dtype=dy.dtype)
        om = np.moveaxis(out, axis - b + 1, 1)
        d = np.reshape(dy, (big_b,) + np.shape(dy)[b:])  # [B, P1..., I..., P2...]
        perm = ([0] + list(_py.range(1 + n1, 1 + n1 + ni)) + list(_py.range(1, 1 + n1))
                + list(_py.range(1 + n1 + ni, d.ndim)))
        ind = indices.reshape((big_b,) + indices.shape[b:])
        bidx = np.arange(big_b).reshape((big_b,) + (1,) * ni)
        np.add.at(om, (bidx, ind), d.transpose(perm))
        return out.reshape(pshape)

    def grad(op, ddx):
        _, indices, _ = op.inputs
        return None, None, bind(GatherV2, [ddx, indices], op.attrs)


def gather(params: TensorLike, indices: TensorLike, validate_indices=None,
           axis: TensorLike | None = None, batch_dims=0, name: str | None = None) -> Tensor:
    """Gathers slices of ``params`` along ``axis`` (``tw.gather``).

    Args:
        params: a tensor.
        indices: an int tensor of indices into ``params``'s dimension ``axis``; out-of-range
            indices raise InvalidArgumentError.
        validate_indices: ignored (TensorFlow compatibility).
        axis: the dimension to gather from (default ``batch_dims``).
        batch_dims: the number of leading dimensions shared by params and indices.
        name: op name.

    Returns:
        ``params.shape[:axis] + indices.shape[batch_dims:] + params.shape[axis + 1:]``.
    """
    p = convert(params)
    ind = _int_input(indices, "indices")
    batch_dims = _static_int(batch_dims, "gather: batch_dims")
    axis = batch_dims if axis is None else _static_int(axis, "gather: axis")
    if axis < 0 and p.shape.rank is not None:
        axis %= max(p.shape.rank, 1)
    if batch_dims < 0 and ind.shape.rank is not None:
        batch_dims += ind.shape.rank
    return bind(GatherV2, [p, ind], {"axis": axis, "batch_dims": batch_dims}, name=name)


def _nd_index(shape_: tuple, indices, batch_dims: int):
    """(flattened view shape, index tuple) addressing ``indices`` into an array of ``shape_``."""
    b = batch_dims
    big_b = int(np.prod(shape_[:b], dtype=np.int64))
    m = indices.shape[-1]
    ind = indices.reshape((big_b, int(np.prod(indices.shape[b:-1], dtype=np.int64)), m))
    for k in _py.range(m):
        n = shape_[b + k]
        col = ind[..., k]
        if col.size and (col.min() < 0 or col.max() >= n):
            j = int(np.argmax(((col < 0) | (col >= n)).reshape(-1)))
            bad = ind.reshape(-1, m)[j].tolist()
            raise _err(f"indices{list(np.unravel_index(j, indices.shape[:-1]))} = {bad} does "
                       f"not index into param shape {list(shape_)}")
    bidx = np.arange(big_b).reshape(big_b, 1)
    view = (big_b,) + tuple(shape_[b:])
    return view, (bidx,) + tuple(ind[..., k] for k in _py.range(m))


def _gather_nd_shape(params, indices, batch_dims):
    pr, ir = params.shape.rank, indices.shape.rank
    if pr is None or ir is None or indices.shape[-1] is None:
        return TensorShape(None)
    m = indices.shape[-1]
    if m + batch_dims > pr:
        raise _err(f"index innermost dimension length must be <= params rank; saw: {m} vs. "
                   f"{pr - batch_dims} (params shape {_fmt(params.shape)}, indices shape "
                   f"{_fmt(indices.shape)})")
    return TensorShape(indices.shape.as_list()[:-1] + params.shape.as_list()[batch_dims + m:])


@register_op("GatherNd")
class GatherNd:
    """``params[indices[..., :]]``: the last axis of ``indices`` indexes params' leading dims."""

    def infer(params, indices, *, batch_dims=0):
        return params.dtype, _gather_nd_shape(params, indices, batch_dims)

    def kernel(params, indices, *, batch_dims=0):
        view, idx = _nd_index(params.shape, indices, batch_dims)
        out = params.reshape(view)[idx]
        return out.reshape(indices.shape[:-1] + params.shape[batch_dims + indices.shape[-1]:])

    def grad(op, dy):
        params, indices = op.inputs
        return bind(ScatterNd, [indices, dy, shape(params, out_type=indices.dtype)],
                    op.attrs), None


@register_op("ScatterNd")
class ScatterNd:
    """Zeros of ``shape`` with ``updates`` added at ``indices`` (duplicates sum)."""

    def infer(indices, updates, shape_, *, batch_dims=0):
        return updates.dtype, shape_from_tensor(shape_)

    def kernel(indices, updates, shape_, *, batch_dims=0):
        shp = tuple(int(d) for d in shape_)
        view, idx = _nd_index(shp, indices, batch_dims)
        out = np.zeros(view, dtype=updates.dtype)
        n = int(np.prod(indices.shape[batch_dims:-1], dtype=np.int64))
        np.add.at(out, idx, np.reshape(updates, (view[0], n) + view[1 + indices.shape[-1]:]))
        return out.reshape(shp)

    def grad(op, dy):
        indices = op.inputs[0]
        return None, bind(GatherNd, [dy, indices], op.attrs), None


def gather_nd(params: TensorLike, indices: TensorLike, batch_dims=0,
              name: str | None = None) -> Tensor:
    """Gathers slices of ``params`` addressed by the last axis of ``indices`` (``tw.gather_nd``).

    Args:
        params: a tensor.
        indices: an int tensor whose last dimension indexes ``params``'s leading dimensions.
        batch_dims: the number of leading batch dimensions shared by params and indices.
        name: op name.

    Returns:
        ``indices.shape[:-1] + params.shape[batch_dims + indices.shape[-1]:]``.
    """
    return bind(GatherNd, [convert(params), _int_input(indices, "indices")],
                {"batch_dims": _static_int(batch_dims, "gather_nd: batch_dims")}, name=name)


def scatter_nd(indices: TensorLike, updates: TensorLike, shape: ShapeLike,
               name: str | None = None) -> Tensor:
    """Scatters ``updates`` into zeros of ``shape`` at ``indices``, summing duplicates.

    Args:
        indices: an int tensor ``[..., M]`` of indices into the first M dimensions.
        updates: values, ``indices.shape[:-1] + shape[M:]``.
        shape: the output shape.
        name: op name.

    Returns:
        The scattered tensor.
    """
    ind = _int_input(indices, "indices")
    return bind(ScatterNd, [ind, convert(updates), _int_input(shape, "shape", dtype=None
                            if isinstance(shape, Tensor) else ind.dtype)], name=name)


def scatter_infer(tensor, indices, updates):
    """Shape rule shared by the TensorScatter* ops: a copy of ``tensor``."""
    if updates.dtype is not tensor.dtype:
        raise _err(f"tensor_scatter: updates have dtype {updates.dtype.name}, the tensor "
                   f"{tensor.dtype.name}")
    if not indices.dtype.is_integer:
        raise _err(f"tensor_scatter: indices must be int32 or int64, got {indices.dtype.name}")
    return tensor.dtype, tensor.shape


def scatter_kernel(ufunc):
    """Kernel of a TensorScatter* op combining old and new values with ``ufunc.at``."""
    def kernel(tensor, indices, updates):
        view, idx = _nd_index(tensor.shape, indices, 0)
        out = np.array(tensor).reshape(view)
        ufunc.at(out, idx, np.reshape(updates, out[idx].shape))
        return out.reshape(tensor.shape)
    return kernel


def tensor_scatter(opdef, tensor, indices, updates, name):
    """Binds a TensorScatter* op, converting ``updates`` to the tensor's dtype."""
    x = convert(tensor)
    return bind(opdef, [x, _int_input(indices, "indices"), convert(updates, x.dtype)], name=name)


@register_op("TensorScatterUpdate")
class TensorScatterUpdate:
    """A copy of ``tensor`` with the slices at ``indices`` replaced by ``updates``."""

    infer = scatter_infer

    def kernel(tensor, indices, updates):
        view, idx = _nd_index(tensor.shape, indices, 0)
        out = np.array(tensor).reshape(view)
        out[idx] = np.reshape(updates, out[idx].shape)
        return out.reshape(tensor.shape)

    def grad(op, dy):
        _, indices, updates = op.inputs
        return (bind(TensorScatterUpdate, [dy, indices, bind(ZerosLike, [updates])]), None,
                bind(GatherNd, [dy, indices], {"batch_dims": 0}))


@register_op("TensorScatterAdd")
class TensorScatterAdd:
    """A copy of ``tensor`` with ``updates`` added at ``indices``."""

    infer = scatter_infer
    kernel = scatter_kernel(np.add)

    def grad(op, dy):
        return dy, None, bind(GatherNd, [dy, op.inputs[1]], {"batch_dims": 0})


def tensor_scatter_nd_update(tensor: TensorLike, indices: TensorLike, updates: TensorLike,
                             name: str | None = None) -> Tensor:
    """Replaces the slices of ``tensor`` at ``indices`` with ``updates``.

    Args:
        tensor: a tensor.
        indices: an int tensor ``[..., M]``.
        updates: ``indices.shape[:-1] + tensor.shape[M:]`` values.
        name: op name.

    Returns:
        The updated copy.
    """
    return tensor_scatter(TensorScatterUpdate, tensor, indices, updates, name)


def tensor_scatter_nd_add(tensor: TensorLike, indices: TensorLike, updates: TensorLike,
                          name: str | None = None) -> Tensor:
    """Adds ``updates`` to the slices of ``tensor`` at ``indices`` (duplicates sum).

    Args:
        tensor: a tensor.
        indices: an int tensor ``[..., M]``.
        updates: ``indices.shape[:-1] + tensor.shape[M:]`` values.
        name: op name.

    Returns:
        The updated copy.
    """
    return tensor_scatter(TensorScatterAdd, tensor, indices, updates, name)


def _mask_infer_shape(tensor, mask, axis):
    r, k = tensor.shape.rank, mask.shape.rank
    if r is None or k is None:
        return TensorShape(None)
    if k == 0:
        raise _err("mask cannot be scalar.")
    if not 0 <= axis <= r - k:
        raise _err(f"boolean_mask: axis {axis} with a mask of rank {k} does not fit a tensor of "
                   f"rank {r}")
    dims = tensor.shape.as_list()
    part = TensorShape(dims[axis:axis + k])
    if not part.is_compatible_with(mask.shape):
        raise _err(f"Shapes {_fmt(part)} and {_fmt(mask.shape)} are incompatible (tensor shape "
                   f"{_fmt(tensor.shape)}, mask at axis {axis})")
    m = constant_value(mask)
    n = None if m is None else int(np.count_nonzero(m))
    return TensorShape(dims[:axis] + [n] + dims[axis + k:])


@register_op("BooleanMask")
class BooleanMask:
    """The slices of ``tensor`` (from ``axis``) where ``mask`` is True, flattened into one dim."""

    def infer(tensor, mask, *, axis):
        return tensor.dtype, _mask_infer_shape(tensor, mask, axis)

    def kernel(tensor, mask, *, axis):
        k = mask.ndim
        if tensor.shape[axis:axis + k] != mask.shape:
            raise _err(f"Shapes {list(tensor.shape[axis:axis + k])} and {list(mask.shape)} are "
                       "incompatible")
        flat = tensor.reshape(tensor.shape[:axis] + (-1,) + tensor.shape[axis + k:])
        return np.compress(mask.reshape(-1), flat, axis=axis)

    def grad(op, dy):
        tensor, mask = op.inputs
        return bind(BooleanMaskGrad, [dy, mask, shape(tensor)], op.attrs), None


@register_op("BooleanMaskGrad")
class BooleanMaskGrad:
    """Zeros of ``shape`` with ``dy`` placed where ``mask`` is True (BooleanMask gradient)."""

    def infer(dy, mask, shape_, *, axis):
        return dy.dtype, shape_from_tensor(shape_)

    def kernel(dy, mask, shape_, *, axis):
        shp = tuple(int(d) for d in shape_)
        k = mask.ndim
        out = np.zeros(shp[:axis] + (int(np.prod(shp[axis:axis + k])),) + shp[axis + k:],
                       dtype=dy.dtype)
        idx = (_py.slice(None),) * axis + (mask.reshape(-1),)
        out[idx] = dy
        return out.reshape(shp)

    def grad(op, ddx):
        return bind(BooleanMask, [ddx, op.inputs[1]], op.attrs), None, None


def boolean_mask(tensor: TensorLike, mask: TensorLike, axis: TensorLike | None = None,
                 name: str = "boolean_mask") -> Tensor:
    """Keeps the entries of ``tensor`` where ``mask`` is True (``tw.boolean_mask``).

    Args:
        tensor: a tensor.
        mask: a bool tensor matching ``tensor.shape[axis:axis + mask.rank]``.
        axis: the first dimension the mask applies to (default 0).
        name: op name.

    Returns:
        ``tensor.shape[:axis] + [number of True] + tensor.shape[axis + mask.rank:]``.
    """
    x = convert(tensor)
    m = convert(mask, dtype=dtypes.bool_ if not isinstance(mask, Tensor) else None)
    if not m.dtype.is_bool:
        raise _err(f"boolean_mask: mask must be a bool tensor, got {m.dtype.name}")
    axis = 0 if axis is None else _static_int(axis, "boolean_mask: axis")
    if axis < 0:
        if x.shape.rank is None:
            raise _err("boolean_mask: a negative axis needs a tensor of known rank")
        axis += x.shape.rank
    return bind(BooleanMask, [x, m], {"axis": axis}, name=name)


# ----- creation: one_hot, range, fill, zeros, ones, eye, linspace ------------------------------

@register_op("OneHot")
class OneHot:
    """``on_value`` where ``indices`` equals the position along a new ``depth`` axis, else
    ``off_value``."""

    def infer(indices, depth, on_value, off_value, *, axis=-1):
        if on_value.dtype is not off_value.dtype:
            raise _err(f"one_hot: on_value ({on_value.dtype.name}) and off_value "
                       f"({off_value.dtype.name}) must have one dtype")
        d = constant_value(depth)
        d = None if d is None else int(d)
        if d is not None and d < 0:
            raise _err(f"depth must be non-negative, got: {d}")
        r = indices.shape.rank
        if r is None:
            return on_value.dtype, TensorShape(None)
        if not -1 <= axis <= r:
            raise _err(f"Expected axis to be -1 or between [0, {r}].  But received: {axis}")
        dims = indices.shape.as_list()
        dims.insert(r if axis == -1 else axis, d)
        return on_value.dtype, TensorShape(dims)

    def kernel(indices, depth, on_value, off_value, *, axis=-1):
        depth = int(depth)
        if depth < 0:
            raise _err(f"depth must be non-negative, got: {depth}")
        hot = np.asarray(indices)[..., None] == np.arange(depth)
        if axis != -1:
            hot = np.moveaxis(hot, -1, axis)
        return np.where(hot, on_value, off_value).astype(on_value.dtype, copy=False)

    def grad(op, dy):
        return None, None, None, None


def one_hot(indices: TensorLike, depth, on_value=None, off_value=None,
            axis: TensorLike | None = None, dtype: DTypeLike | None = None,
            name: str | None = None) -> Tensor:
    """One-hot encodes ``indices`` (``tw.one_hot``).

    Args:
        indices: an int tensor; out-of-range indices give all ``off_value``.
        depth: the length of the one-hot dimension.
        on_value: the value at the index (default 1).
        off_value: the value elsewhere (default 0).
        axis: where the new dimension goes (default -1: last).
        dtype: the output dtype (default: that of on/off_value, else float32).
        name: op name.

    Returns:
        The one-hot tensor.
    """
    ind = _int_input(indices, "indices")
    if dtype is None:
        for v in (on_value, off_value):
            if v is not None:
                dtype = convert(v).dtype
                break
    dtype = dtypes.float32 if dtype is None else dtypes.as_dtype(dtype)
    on = convert(1 if on_value is None else on_value, dtype=dtype)
    off = convert(0 if off_value is None else off_value, dtype=dtype)
    d = _int_input(depth, "depth")
    return bind(OneHot, [ind, d, on, off], {"axis": -1 if axis is None else int(axis)},
                name=name)


def _range_len(start, limit, delta) -> int:
    if delta == 0:
        raise _err(f"Requires delta != 0: {delta}")
    if delta > 0 and start > limit:
        raise _err(f"Requires start <= limit when delta > 0: {start}/{limit}")
    if delta < 0 and start < limit:
        raise _err(f"Requires start >= limit when delta < 0: {start}/{limit}")
    return int(np.ceil(abs((limit - start) / delta)))


@register_op("Range")
class Range:
    """``start, start + delta, ...`` up to (excluding) ``limit``."""

    def infer(start, limit, delta, *, Tidx):
        for t in (start, limit, delta):
            if t.shape.rank not in (None, 0):
                raise _err(f"range: start, limit and delta must be scalars, got shape "
                           f"{_fmt(t.shape)}")
        vals = [constant_value(t) for t in (start, limit, delta)]
        if any(v is None for v in vals):
            return Tidx, TensorShape([None])
        return Tidx, TensorShape([_range_len(*(v.item() for v in map(np.asarray, vals)))])

    def kernel(start, limit, delta, *, Tidx):
        s, lim, d = (np.asarray(v).item() for v in (start, limit, delta))
        n = _range_len(s, lim, d)
        if Tidx.is_integer:
            return np.arange(n, dtype=Tidx.np) * Tidx.np.type(d) + Tidx.np.type(s)
        return (s + np.arange(n, dtype=np.float64) * d).astype(Tidx.np)

    def grad(op, dy):
        return None, None, None

    def constant_value(op):
        vals = [constant_value(t) for t in op.inputs]
        if any(v is None for v in vals):
            return None
        return Range.kernel(*vals, Tidx=op.attrs["Tidx"])


_RANGE_ORDER = (dtypes.int32, dtypes.int64, dtypes.float32, dtypes.float64)


def range(start, limit=None, delta=1, dtype: DTypeLike | None = None,
          name: str = "range") -> Tensor:
    """A 1-D tensor of evenly spaced values (``tw.range``).

    Args:
        start: the first value (or, when ``limit`` is None, the limit, starting from 0).
        limit: the exclusive upper (or lower, for negative delta) bound.
        delta: the step.
        dtype: the output dtype; by default int32 for Python ints, float32 for floats (the
            widest of the arguments' dtypes).
        name: op name.

    Returns:
        The sequence.
    """
    if limit is None:
        start, limit = 0, start
    args = [start, limit, delta]
    if dtype is None:
        found = []
        for a in args:
            if isinstance(a, Tensor):
                found.append(a.dtype)
            elif isinstance(a, (np.ndarray, np.generic)):
                found.append(dtypes.from_numpy(a.dtype))
            else:
                found.append(dtypes.float32 if isinstance(a, float) else dtypes.int32)
        dtype = max(found, key=lambda d: _RANGE_ORDER.index(d) if d in _RANGE_ORDER else 0)
    dtype = dtypes.as_dtype(dtype)
    ts = [a if isinstance(a, Tensor) else constant(a, dtype) for a in args]
    return bind(Range, ts, {"Tidx": dtype}, name=name)


@register_op("Fill")
class Fill:
    """A tensor of shape ``dims`` filled with the scalar ``value``."""

    def infer(dims, value):
        if value.shape.rank not in (None, 0):
            raise _err(f"value must be a scalar, got shape {_fmt(value.shape)}")
        if dims.shape.rank not in (None, 1):
            raise _err(f"dims must be a vector, got shape {_fmt(dims.shape)}")
        d = constant_value(dims)
        if d is not None and (np.asarray(d) < 0).any():
            raise _err(f"dims must be non-negative, got {np.asarray(d).tolist()}")
        return value.dtype, shape_from_tensor(dims)

    def kernel(dims, value):
        shp = tuple(int(d) for d in dims)
        if min(shp, default=0) < 0:
            raise _err(f"dims must be non-negative, got {list(shp)}")
        return np.full(shp, value, dtype=value.dtype)

    def grad(op, dy):
        return None, bind(SumToShape, [dy, shape(op.inputs[1])])


def fill(dims, value: TensorLike, name: str | None = None) -> Tensor:
    """A tensor of shape ``dims`` filled with ``value`` (``tw.fill``).

    Args:
        dims: the shape: a list (may hold scalar int tensors) or 1-D int tensor.
        value: a scalar.
        name: op name.

    Returns:
        The filled tensor, of ``value``'s dtype.
    """
    return bind(Fill, [_shape_arg(dims), convert(value)], name=name)


def _shape_arg(shape_) -> Tensor:
    if isinstance(shape_, TensorShape):
        if not shape_.is_fully_defined():
            raise ValueError(f"The shape {shape_} must be fully defined")
        shape_ = shape_.as_list()
    elif isinstance(shape_, (int, np.integer)):
        shape_ = [int(shape_)]
    return _int_input(shape_, "shape")


def _filled(shape_, value, dtype, name):
    dtype = dtypes.as_dtype(dtype)
    # A NumPy value, cast: tw.ones(..., tw.bool) is all True, tw.zeros(..., tw.string) all b''.
    v = np.array(b"" if dtype.is_string else value).astype(dtype.np)
    return bind(Fill, [_shape_arg(shape_), constant(v, dtype)], name=name)


def zeros(shape: ShapeLike, dtype: DTypeLike = dtypes.float32, name: str | None = None) -> Tensor:
    """A tensor of zeros (``tw.zeros``).

    Args:
        shape: a list of ints (or scalar int tensors), a TensorShape, or a 1-D int tensor.
        dtype: the dtype (default float32).
        name: op name.

    Returns:
        The tensor.
    """
    return _filled(shape, 0, dtype, name)


def ones(shape: ShapeLike, dtype: DTypeLike = dtypes.float32, name: str | None = None) -> Tensor:
    """A tensor of ones (``tw.ones``).

    Args:
        shape: a list of ints (or scalar int tensors), a TensorShape, or a 1-D int tensor.
        dtype: the dtype (default float32).
        name: op name.

    Returns:
        The tensor.
    """
    return _filled(shape, 1, dtype, name)


def zeros_like(input: TensorLike, dtype: DTypeLike | None = None,
               name: str | None = None) -> Tensor:
    """A tensor of zeros shaped like ``input`` (``tw.zeros_like``).

    Args:
        input: a tensor.
        dtype: the output dtype (default: ``input``'s).
        name: op name.

    Returns:
        The tensor.
    """
    x = convert(input)
    if dtype is not None and dtypes.as_dtype(dtype) is not x.dtype:
        return _filled(shape(x), 0, dtype, name)
    return bind(ZerosLike, [x], name=name)


def ones_like(input: TensorLike, dtype: DTypeLike | None = None, name: str | None = None) -> Tensor:
    """A tensor of ones shaped like ``input`` (``tw.ones_like``).

    Args:
        input: a tensor.
        dtype: the output dtype (default: ``input``'s).
        name: op name.

    Returns:
        The tensor.
    """
    x = convert(input)
    if dtype is not None and dtypes.as_dtype(dtype) is not x.dtype:
        return _filled(shape(x), 1, dtype, name)
    return bind(OnesLike, [x], name=name)


@register_op("Eye")
class Eye:
    """Identity matrices ``[*batch_shape, num_rows, num_columns]``."""

    def infer(num_rows, num_columns, *, batch_shape=(), dtype=dtypes.float32):
        r, c = constant_value(num_rows), constant_value(num_columns)
        return dtype, TensorShape(list(batch_shape) + [None if r is None else int(r),
                                                       None if c is None else int(c)])

    def kernel(num_rows, num_columns, *, batch_shape=(), dtype=dtypes.float32):
        m = np.eye(int(num_rows), int(num_columns), dtype=dtype.np)
        return np.broadcast_to(m, tuple(batch_shape) + m.shape).copy() if batch_shape else m

    def grad(op, dy):
        return None, None


def eye(num_rows, num_columns=None, batch_shape: ShapeLike | None = None,
        dtype: DTypeLike = dtypes.float32, name: str | None = None) -> Tensor:
    """Identity matrices (``tw.eye``).

    Args:
        num_rows: the number of rows.
        num_columns: the number of columns (default ``num_rows``).
        batch_shape: leading batch dimensions (a list of ints).
        dtype: the dtype.
        name: op name.

    Returns:
        ``batch_shape + [num_rows, num_columns]``.
    """
    r = _int_input(num_rows, "num_rows")
    c = r if num_columns is None else _int_input(num_columns, "num_columns")
    batch = () if batch_shape is None else _static_ints(batch_shape, "eye: batch_shape")
    return bind(Eye, [r, c], {"batch_shape": batch, "dtype": dtypes.as_dtype(dtype)}, name=name)


@register_op("LinSpace")
class LinSpace:
    """``num`` evenly spaced values from ``start`` to ``stop`` (inclusive) along ``axis``."""

    def infer(start, stop, num, *, axis=0):
        # As TensorFlow, integer start/stop give float64 values.
        out = dtypes.float64 if start.dtype.is_integer else start.dtype
        if not out.is_floating:
            raise _err(f"linspace needs float start/stop, got {start.dtype.name}")
        n = constant_value(num)
        n = None if n is None else int(n)
        if n is not None and n < 0:
            raise _err(f"Requires num >= 0: {n}")
        from_ = broadcast_shapes(start.shape, stop.shape)
        if from_ is None:
            raise _err(f"linspace: start {_fmt(start.shape)} and stop {_fmt(stop.shape)} do not "
                       "broadcast")
        if from_.rank is None:
            return out, TensorShape(None)
        dims = from_.as_list()
        dims.insert(_norm_axis(axis, len(dims), "linspace", extra=1), n)
        return out, TensorShape(dims)

    def kernel(start, stop, num, *, axis=0):
        n = int(num)
        if n < 0:  # num=0 gives an empty tensor, as TensorFlow
            raise _err(f"Requires num >= 0: {n}")
        out = np.float64 if start.dtype.kind in "iu" else start.dtype
        return np.linspace(start, stop, n, axis=axis).astype(out, copy=False)

    def grad(op, dy):
        return None, None, None


def linspace(start, stop, num, name: str | None = None, axis: int = 0) -> Tensor:
    """``num`` evenly spaced values from ``start`` to ``stop`` inclusive (``tw.linspace``).

    Args:
        start: a float scalar (or tensor: one sequence per element).
        stop: like ``start``.
        num: the number of values (> 0).
        name: op name.
        axis: where the new dimension goes for tensor start/stop.

    Returns:
        The values, of ``start``'s dtype.
    """
    s, e = convert_pair(start, stop)
    return bind(LinSpace, [s, e, _int_input(num, "num")], {"axis": int(axis)}, name=name)


lin_space = linspace


# ----- sorting --------------------------------------------------------------------------------

def _argsort_last(x, descending: bool):
    if not descending:
        return np.argsort(x, axis=-1, kind="stable")
    # Stable descending: sort the reversed array ascending, map back, reverse again.
    n = x.shape[-1]
    i = np.argsort(np.flip(x, -1), axis=-1, kind="stable")
    return np.flip(n - 1 - i, -1)


def _sort_grad(op, dv, di):
    if dv is None:
        return None if len(op.inputs) == 1 else (None, None)
    x = op.inputs[0]
    g = bind(GatherGrad, [shape(x), op.outputs[1], dv], {"axis": -1, "batch_dims": -1})
    return g if len(op.inputs) == 1 else (g, None)


@register_op("Sort", multi_output=True)
class Sort:
    """Sorts along the last axis (stable); outputs the values and their int32 indices."""

    def infer(x, *, descending=False):
        if x.shape.rank == 0:
            raise _err("sort needs a tensor of rank >= 1, got a scalar")
        return [(x.dtype, x.shape), (dtypes.int32, x.shape)]

    def kernel(x, *, descending=False):
        i = _argsort_last(x, descending)
        return np.take_along_axis(x, i, axis=-1), i.astype(np.int32)

    grad = _sort_grad


@register_op("TopKV2", multi_output=True)
class TopKV2:
    """The ``k`` largest entries along the last axis (ties: lower index first) and indices."""

    def infer(x, k, *, sorted=True):
        kv = constant_value(k)
        kv = None if kv is None else int(kv)
        if x.shape.rank is None:
            return [(x.dtype, TensorShape(None)), (dtypes.int32, TensorShape(None))]
        if x.shape.rank == 0:
            raise _err("input must be at least 1-dimensional")
        dims = x.shape.as_list()
        if kv is not None:
            if kv < 0:
                raise _err(f"Need k >= 0, got {kv}")
            if dims[-1] is not None and dims[-1] < kv:
                raise _err(f"input must have at least k columns. Had {dims[-1]}, needed {kv}")
        out = TensorShape(dims[:-1] + [kv])
        return [(x.dtype, out), (dtypes.int32, out)]

    def kernel(x, k, *, sorted=True):
        k = int(k)
        if x.ndim == 0 or k < 0 or x.shape[-1] < k:
            raise _err(f"input must have at least k columns. Had "
                       f"{x.shape[-1] if x.ndim else 0}, needed {k}")
        i = _argsort_last(x, True)[..., :k]
        return np.take_along_axis(x, i, axis=-1), i.astype(np.int32)

    grad = _sort_grad


def _along_last(x, axis: int, fn):
    """Applies ``fn`` (working on the last axis) along ``axis`` by transposing around it."""
    r = x.shape.rank
    if r is None:
        if axis != -1:
            raise _err("sort: an axis other than -1 needs a tensor of known rank")
        return fn(x)
    axis = _norm_axis(axis, r, "sort")
    if axis == r - 1:
        return fn(x)
    perm = list(_py.range(r))
    perm[axis], perm[-1] = perm[-1], perm[axis]
    return transpose(fn(transpose(x, perm)), perm)


def sort(values: TensorLike, axis: int = -1, direction="ASCENDING",
         name: str | None = None) -> Tensor:
    """Sorts ``values`` along ``axis`` (``tw.sort``; stable).

    Args:
        values: a tensor.
        axis: the dimension to sort.
        direction: "ASCENDING" or "DESCENDING".
        name: op name.

    Returns:
        The sorted tensor.
    """
    desc = _direction(direction)
    x = convert(values)
    return _along_last(x, _static_int(axis, "sort: axis"),
                       lambda t: bind(Sort, [t], {"descending": desc}, name=name)[0])


def argsort(values: TensorLike, axis: int = -1, direction="ASCENDING", stable: bool = False,
            name: str | None = None) -> Tensor:
    """The indices that sort ``values`` along ``axis`` (``tw.argsort``; always stable).

    Args:
        values: a tensor.
        axis: the dimension to sort.
        direction: "ASCENDING" or "DESCENDING".
        stable: accepted for compatibility; the sort is always stable.
        name: op name.

    Returns:
        An int32 tensor of indices.
    """
    desc = _direction(direction)
    x = convert(values)
    return _along_last(x, _static_int(axis, "argsort: axis"),
                       lambda t: bind(Sort, [t], {"descending": desc}, name=name)[1])


def _direction(direction: str) -> bool:
    if direction not in ("ASCENDING", "DESCENDING"):
        raise ValueError(f'direction must be "ASCENDING" or "DESCENDING", got {direction!r}')
    return direction == "DESCENDING"


def top_k(input: TensorLike, k=1, sorted: bool = True, name: str | None = None) -> tuple:
    """The ``k`` largest entries along the last axis (``tw.math.top_k``).

    Args:
        input: a tensor of rank >= 1.
        k: how many entries.
        sorted: the entries are always returned in descending order.
        name: op name.

    Returns:
        (values, indices): values of ``input``'s dtype and int32 indices.
    """
    vals, idx = bind(TopKV2, [convert(input), _int_input(k, "k")], {"sorted": bool(sorted)},
                     name=name)
    return _TopKOutput(vals, idx)


# As TensorFlow, top_k and unique return named tuples: tw.math.top_k(x, 2).values
_TopKOutput = namedtuple("TopKV2", ["values", "indices"])
_UniqueOutput = namedtuple("Unique", ["y", "idx"])


# ----- unique, meshgrid -----------------------------------------------------------------------

@register_op("Unique", multi_output=True)
class Unique:
    """The distinct values of a 1-D tensor in order of first appearance, and for each element
    the index of its value among them."""

    def infer(x, *, out_idx=dtypes.int32):
        if x.shape.rank not in (None, 1):
            raise _err(f"unique expects a 1D vector, got shape {_fmt(x.shape)}")
        return [(x.dtype, TensorShape([None])), (out_idx, x.shape.with_rank(1))]

    def kernel(x, *, out_idx=dtypes.int32):
        if x.ndim != 1:
            raise _err(f"unique expects a 1D vector, got shape {list(x.shape)}")
        _, first, inv = np.unique(x, return_index=True, return_inverse=True)
        order = np.argsort(first, kind="stable")
        rank_of = np.empty_like(order)
        rank_of[order] = np.arange(len(order))
        return x[np.sort(first)], rank_of[inv.reshape(-1)].astype(out_idx.np)

    def grad(op, *dys):
        return None


def unique(x: TensorLike, out_idx: DTypeLike = dtypes.int32, name: str | None = None) -> tuple:
    """The distinct values of 1-D ``x`` in order of first appearance (``tw.unique``).

    Args:
        x: a 1-D tensor.
        out_idx: the index dtype (int32 or int64).
        name: op name.

    Returns:
        (y, idx) with ``x == gather(y, idx)``.
    """
    y, idx = bind(Unique, [convert(x)], {"out_idx": dtypes.as_dtype(out_idx)}, name=name)
    return _UniqueOutput(y, idx)


def meshgrid(*args, **kwargs) -> list:
    """N-D coordinate grids from 1-D coordinate vectors (``tw.meshgrid``).

    Args:
        *args: 1-D tensors.
        **kwargs: ``indexing`` ("xy", the default, or "ij") and ``name``.

    Returns:
        A list of N-D tensors, one per input.
    """
    indexing = kwargs.pop("indexing", "xy")
    kwargs.pop("name", None)
    if kwargs:
        raise TypeError(f"meshgrid: unexpected arguments {sorted(kwargs)}")
    if indexing not in ("xy", "ij"):
        raise ValueError(f"meshgrid: indexing must be 'xy' or 'ij', got {indexing!r}")
    xs = [reshape(convert(a), [-1]) for a in args]
    n = len(xs)
    if n == 0:
        return []
    sizes = [size(x) for x in xs]
    if indexing == "xy" and n > 1:
        sizes[0], sizes[1] = sizes[1], sizes[0]
    full = stack(sizes)
    out = []
    for i, x in enumerate(xs):
        pos = i
        if indexing == "xy" and n > 1 and i < 2:
            pos = 1 - i
        dims = [1] * n
        dims[pos] = -1
        out.append(broadcast_to(reshape(x, dims), full))
    return out


@register_op("Repeat")
class Repeat:
    """Repeats each element of ``x`` along ``axis`` ``repeats`` times (flattening if axis is
    None)."""

    def infer(x, repeats, *, axis=None):
        r = constant_value(repeats)
        if x.shape.rank is None:
            return x.dtype, TensorShape(None if axis is not None else [None])
        dims = x.shape.as_list() if axis is not None else [x.shape.num_elements()]
        ax = 0 if axis is None else _norm_axis(axis, len(dims), "repeat")
        d = dims[ax]
        if r is None or d is None:
            dims[ax] = None
        else:
            r = np.asarray(r).reshape(-1)
            if r.size not in (1, d):
                raise _err(f"repeat: repeats of length {r.size} for a dimension of size {d}")
            dims[ax] = int(r.sum() * (d if r.size == 1 else 1))
        return x.dtype, TensorShape(dims)

    def kernel(x, repeats, *, axis=None):
        return np.repeat(x, np.asarray(repeats).reshape(-1) if np.ndim(repeats) else
                         int(repeats), axis=axis)

    def grad(op, dy):
        x, repeats = op.inputs
        return bind(RepeatGrad, [dy, repeats, shape(x)], op.attrs), None


@register_op("RepeatGrad")
class RepeatGrad:
    """Sums each run of repeated elements of ``dy`` (gradient of Repeat)."""

    def infer(dy, repeats, shape_, *, axis=None):
        return dy.dtype, shape_from_tensor(shape_)

    def kernel(dy, repeats, shape_, *, axis=None):
        shp = tuple(int(d) for d in shape_)
        ax = 0 if axis is None else axis % len(shp)
        n = int(np.prod(shp)) if axis is None else shp[ax]
        reps = np.broadcast_to(np.asarray(repeats).reshape(-1), (n,))
        owner = np.repeat(np.arange(n), reps)
        d = np.moveaxis(dy, ax, 0)
        out = np.zeros((n,) + d.shape[1:], dtype=dy.dtype)
        np.add.at(out, owner, d)
        out = np.moveaxis(out, 0, ax)
        return out.reshape(shp)

    def grad(op, ddx):
        return bind(Repeat, [ddx, op.inputs[1]], op.attrs), None, None


def repeat(input: TensorLike, repeats, axis: TensorLike | None = None,
           name: str | None = None) -> Tensor:
    """Repeats elements of ``input`` (``tw.repeat``, like ``np.repeat``).

    Args:
        input: a tensor.
        repeats: an int or 1-D int tensor (one count per element along ``axis``).
        axis: the dimension; None flattens the input first.
        name: op name.

    Returns:
        The repeated tensor.
    """
    x = convert(input)
    ax = None if axis is None else _static_int(axis, "repeat: axis")
    return bind(Repeat, [x, _int_input(repeats, "repeats")], {"axis": ax}, name=name)


__all__ = ["identity", "shape", "reshape", "broadcast_to", "stack", "unstack", "zeros_like",
           "ones_like", "transpose", "expand_dims", "squeeze", "reverse", "stop_gradient",
           "size", "rank", "concat", "split", "tile", "pad", "slice", "strided_slice", "gather",
           "gather_nd", "scatter_nd", "tensor_scatter_nd_update", "tensor_scatter_nd_add",
           "boolean_mask", "one_hot", "range", "fill", "zeros", "ones", "eye", "linspace",
           "lin_space", "sort", "argsort", "top_k", "unique", "meshgrid", "repeat"]
