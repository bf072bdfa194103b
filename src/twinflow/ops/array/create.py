"""Creation: one_hot, range, fill, zeros, ones, *_like, eye, linspace."""
from __future__ import annotations

import numpy as np

from ...core import dtypes
from ...core.shapes import TensorShape, broadcast_shapes
from ...eager.execute import bind, constant, constant_value
from ...graph.registry import register_op
from ...graph.tensor import DTypeLike, ShapeLike, Tensor, TensorLike
from ..core import (
    OnesLike,
    ZerosLike,
    _fmt,
    checked_shape,
    convert,
    convert_pair,
    shape_from_tensor,
    static_int,
)
from ..core import invalid_argument as _err
from .shape import SumToShape, _int_input, _norm_axis, _static_ints, shape


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
    ax = -1 if axis is None else static_int(axis, "one_hot: axis")
    return bind(OneHot, [ind, d, on, off], {"axis": ax}, name=name)


def _range_len(start, limit, delta) -> int:
    if delta == 0:
        raise _err(f"Requires delta != 0: {delta}")
    if delta > 0 and start > limit:
        raise _err(f"Requires start <= limit when delta > 0: {start}/{limit}")
    if delta < 0 and start < limit:
        raise _err(f"Requires start >= limit when delta < 0: {start}/{limit}")
    return int(np.ceil(abs((limit - start) / delta)))


def _expect_rank(t: Tensor, rank: int, what: str) -> None:
    """Raises ``what`` (with ``t``'s shape) unless ``t`` has rank ``rank`` or an unknown one."""
    if t.shape.rank not in (None, rank):
        raise _err(f"{what}, got shape {_fmt(t.shape)}")


@register_op("Range")
class Range:
    """``start, start + delta, ...`` up to (excluding) ``limit``."""

    def infer(start, limit, delta, *, Tidx):
        for t in (start, limit, delta):
            _expect_rank(t, 0, "range: start, limit and delta must be scalars")
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
            elif isinstance(a, float):
                found.append(dtypes.float32)
            else:  # a Python int: int64 when it does not fit in 32 bits, as TensorFlow
                found.append(dtypes.int32 if -2**31 <= a < 2**31 else dtypes.int64)
        dtype = max(found, key=lambda d: _RANGE_ORDER.index(d) if d in _RANGE_ORDER else 0)
    dtype = dtypes.as_dtype(dtype)
    ts = [a if isinstance(a, Tensor) else constant(a, dtype) for a in args]
    return bind(Range, ts, {"Tidx": dtype}, name=name)


@register_op("Fill")
class Fill:
    """A tensor of shape ``dims`` filled with the scalar ``value``."""

    def infer(dims, value):
        _expect_rank(value, 0, "value must be a scalar")
        _expect_rank(dims, 1, "dims must be a vector")
        d = constant_value(dims)
        if d is not None and (np.asarray(d) < 0).any():
            raise _err(f"dims must be non-negative, got {np.asarray(d).tolist()}")
        return value.dtype, shape_from_tensor(dims)

    def kernel(dims, value):
        if np.ndim(value) or np.ndim(dims) != 1:  # (infer explains)
            raise ValueError("Fill: dims must be a vector and value a scalar")
        return np.full(checked_shape(dims, value.dtype), value, dtype=value.dtype)

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


def _filled_functions(value: int, like_opdef) -> tuple:
    """``(zeros, zeros_like)`` for ``value`` 0, ``(ones, ones_like)`` for 1."""
    word = "zeros" if value == 0 else "ones"

    def filled(shape: ShapeLike, dtype: DTypeLike = dtypes.float32,
               name: str | None = None) -> Tensor:
        return _filled(shape, value, dtype, name)

    def filled_like(input: TensorLike, dtype: DTypeLike | None = None,
                    name: str | None = None) -> Tensor:
        x = convert(input)
        if dtype is not None and dtypes.as_dtype(dtype) is not x.dtype:
            return _filled(shape(x), value, dtype, name)
        return bind(like_opdef, [x], name=name)

    filled.__name__ = filled.__qualname__ = word
    filled.__doc__ = f"""A tensor of {word} (``tw.{word}``).

    Args:
        shape: a list of ints (or scalar int tensors), a TensorShape, or a 1-D int tensor.
        dtype: the dtype (default float32).
        name: op name.

    Returns:
        The tensor.
    """
    filled_like.__name__ = filled_like.__qualname__ = word + "_like"
    filled_like.__doc__ = f"""A tensor of {word} shaped like ``input`` (``tw.{word}_like``).

    Args:
        input: a tensor.
        dtype: the output dtype (default: ``input``'s).
        name: op name.

    Returns:
        The tensor.
    """
    return filled, filled_like


zeros, zeros_like = _filled_functions(0, ZerosLike)
ones, ones_like = _filled_functions(1, OnesLike)


@register_op("Eye")
class Eye:
    """Identity matrices ``[*batch_shape, num_rows, num_columns]``."""

    def infer(num_rows, num_columns, *, batch_shape=(), dtype=dtypes.float32):
        r, c = constant_value(num_rows), constant_value(num_columns)
        return dtype, TensorShape(list(batch_shape) + [None if r is None else int(r),
                                                       None if c is None else int(c)])

    def kernel(num_rows, num_columns, *, batch_shape=(), dtype=dtypes.float32):
        checked_shape(list(batch_shape) + [num_rows, num_columns], dtype.np)
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
    ax = static_int(axis, "linspace: axis")
    return bind(LinSpace, [s, e, _int_input(num, "num")], {"axis": ax}, name=name)


lin_space = linspace
