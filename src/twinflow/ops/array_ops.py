"""Array ops: shapes, reshaping, joining, slicing, gathering."""
from __future__ import annotations

import numpy as np

from .core import (
    InvalidArgumentError,
    OnesLike,
    Pack,
    TensorShape,
    Unpack,
    ZerosLike,
    bind,
    constant_value,
    convert,
    convert_n,
    dtypes,
    known_shape,
    register_op,
    shape_from_tensor,
    unary_infer,
)


@register_op("Identity")
class Identity:
    """Returns its input unchanged."""

    infer = unary_infer

    def kernel(x):
        return x

    def grad(op, dy):
        return dy


def identity(input, name=None):
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


def shape(input, out_type=dtypes.int32, name=None):
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


def reshape(tensor, shape, name=None):
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
        return np.broadcast_to(x, tuple(shape))

    def grad(op, dy):
        return sum_to_shape(dy, shape(op.inputs[0])), None


def broadcast_to(input, shape, name=None):
    """Broadcasts ``input`` to ``shape`` (``tw.broadcast_to``)."""
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
        shape = tuple(int(d) for d in shape)
        if x.shape == shape:
            return x
        lead = x.ndim - len(shape)
        axes = tuple(range(lead)) + tuple(
            i + lead for i, d in enumerate(shape) if d == 1 and x.shape[i + lead] != 1)
        out = np.sum(x, axis=axes, keepdims=True) if axes else x
        return np.reshape(out, shape).astype(x.dtype, copy=False)

    def grad(op, dy):
        return bind(BroadcastTo, [dy, shape(op.inputs[0])]), None


def sum_to_shape(dy, like_shape):
    """Reduces gradient ``dy`` to ``like_shape`` (undoing broadcasting); free if equal."""
    return bind(SumToShape, [dy, like_shape])


def sum_to(dy, x):
    """Reduces ``dy`` to the shape of ``x``; with static shapes, skips the op when not needed."""
    xs, ds = known_shape(x), known_shape(dy)
    if xs is not None and xs == ds:
        return dy
    return bind(SumToShape, [dy, shape(x)])


def stack(values, axis=0, name="stack"):
    """Stacks tensors of one shape along a new axis (``tw.stack``).

    Args:
        values: a list of tensors of one shape and dtype.
        axis: where the new axis goes.
        name: op name.

    Returns:
        The stacked tensor.
    """
    xs = convert_n(values)
    if not xs:
        raise ValueError("tw.stack needs at least one tensor")
    return bind(Pack, xs, {"axis": int(axis)}, name=name)


def unstack(value, num=None, axis=0, name="unstack"):
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


def zeros_like(input, dtype=None, name=None):
    """A tensor of zeros shaped like ``input`` (``tw.zeros_like``)."""
    x = convert(input)
    out = bind(ZerosLike, [x], name=name)
    if dtype is not None and dtypes.as_dtype(dtype) is not x.dtype:
        from .math_ops import cast  # noqa: PLC0415  (math_ops imports array_ops)
        out = cast(out, dtype)
    return out


def ones_like(input, dtype=None, name=None):
    """A tensor of ones shaped like ``input`` (``tw.ones_like``)."""
    x = convert(input)
    out = bind(OnesLike, [x], name=name)
    if dtype is not None and dtypes.as_dtype(dtype) is not x.dtype:
        from .math_ops import cast  # noqa: PLC0415  (math_ops imports array_ops)
        out = cast(out, dtype)
    return out


def slice_helper(tensor, key):
    """``tensor[key]``: basic indexing via strided slices (filled in with StridedSlice)."""
    raise NotImplementedError("indexing lands with the StridedSlice op")


__all__ = ["identity", "shape", "reshape", "broadcast_to", "stack", "unstack", "zeros_like",
           "ones_like"]
