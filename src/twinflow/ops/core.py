"""Helpers shared by op declarations: input conversion, shape rules, gradient reduction."""
from __future__ import annotations

import os

import numpy as np

from ..core import dtypes
from ..core.context import ctx
from ..core.errors import InvalidArgumentError, ResourceExhaustedError
from ..core.shapes import TensorShape, broadcast_shapes
from ..eager.execute import bind, constant, constant_value, convert_to_tensor
from ..eager.tensor import EagerTensor
from ..graph.checks import normalize_axis as _normalize_axis
from ..graph.registry import register_op
from ..graph.tensor import SymbolicTensor, Tensor

__all__ = ["convert", "convert_pair", "convert_n", "binary_infer", "unary_infer",
           "known_shape", "shape_from_tensor", "normalize_axis", "static_value", "static_int",
           "checked_shape", "shape_tensor",
           "static_ints", "check_float",
           "np_dtype_of", "quietly",
           "EagerTensor", "SymbolicTensor", "Tensor", "TensorShape", "constant", "constant_value",
           "convert_to_tensor", "dtypes", "ctx", "InvalidArgumentError", "bind", "register_op",
           "Pack", "Unpack", "ZerosLike", "OnesLike"]


try:
    # NumPy 2 keeps the floating-point error state in a context variable: setting it directly
    # costs ~0.15 us where ``with np.errstate(...)`` costs ~1.5 us, too much for exp or x / y.
    from numpy._core._ufunc_config import _extobj_contextvar as _ERR_STATE
    from numpy._core._ufunc_config import _make_extobj
    _IGNORE_ALL = _make_extobj(all="ignore")
except (ImportError, AttributeError, TypeError):  # NumPy 1.x
    _ERR_STATE = None


def invalid_argument(msg: str) -> InvalidArgumentError:
    """An InvalidArgumentError for a rule's message (``bind`` appends ``[Op:Name]``)."""
    return InvalidArgumentError(None, None, msg)


def via_float32(kernel):
    """Wraps a kernel written for NumPy's float types so that bfloat16 inputs (ml_dtypes
    arrays, NumPy kind ``V``) are computed in float32 and the float32 results rounded back to
    bfloat16, as TensorFlow's CPU kernels do for bfloat16. Other inputs pass straight through.

    Args:
        kernel: a function of arrays (and other arguments).

    Returns:
        The wrapped function.
    """
    def wrapped(*args, **kwargs):
        dt = next((a.dtype for a in args if type(a) is np.ndarray and a.dtype.kind == "V"),
                  None)
        if dt is None:
            return kernel(*args, **kwargs)
        out = kernel(*(a.astype(np.float32) if type(a) is np.ndarray and a.dtype == dt else a
                       for a in args), **kwargs)
        if isinstance(out, tuple):
            return tuple(o.astype(dt) if o.dtype == np.float32 else o for o in out)
        return out.astype(dt) if out.dtype == np.float32 else out
    wrapped.__wrapped__ = kernel
    wrapped.__doc__ = kernel.__doc__
    return wrapped


def quietly(fn, *args):
    """Calls ``fn(*args)`` with NumPy's floating-point warnings off: TensorFlow returns inf and
    nan (log(0), exp(1000), 0/0, inf - inf) without a word. For kernels that can make inf or nan
    from finite-looking inputs; costs ~0.15 us on NumPy 2."""
    if _ERR_STATE is None:
        with np.errstate(all="ignore"):
            return fn(*args)
    token = _ERR_STATE.set(_IGNORE_ALL)
    try:
        return fn(*args)
    finally:
        _ERR_STATE.reset(token)


def convert(x, dtype=None, name: str = "x", dtype_hint=None) -> Tensor:
    """Converts an op argument to a tensor, auto-packing lists that contain tensors."""
    if isinstance(x, Tensor):
        if dtype is not None and x.dtype is not dtypes.as_dtype(dtype):
            raise InvalidArgumentError(
                None, None, f"Argument `{name}` must be a {dtypes.as_dtype(dtype).name} tensor, "
                f"got {x.dtype.name}")
        return x
    if isinstance(x, (list, tuple)) and _contains_tensor(x):
        return _autopack(x, dtype)
    return convert_to_tensor(x, dtype=dtype, dtype_hint=dtype_hint)


def convert_to_tensor_packed(value, dtype=None, dtype_hint=None, name=None) -> Tensor:
    """``tw.convert_to_tensor``: converts tensors, variables, NumPy arrays and Python values.

    A (nested) list that holds tensors is packed into one tensor, as TensorFlow does; in a
    graph that is a ``Pack`` op, so ``tw.convert_to_tensor([tw.shape(x)[0], 2])`` works while
    tracing.

    Args:
        value: the value.
        dtype: the required dtype; a tensor of another dtype raises.
        name: the op's name in graph mode.
        dtype_hint: the dtype to use for Python values when ``dtype`` is not given.

    Returns:
        An EagerTensor, or a symbolic tensor in graph mode.
    """
    if isinstance(value, (list, tuple)) and _contains_tensor(value):
        return _autopack(value, None if dtype is None else dtypes.as_dtype(dtype))
    return convert_to_tensor(value, dtype=dtype, name=name, dtype_hint=dtype_hint)


def _contains_tensor(x) -> bool:
    for v in x:
        if isinstance(v, Tensor) or isinstance(v, (list, tuple)) and _contains_tensor(v):
            return True
    return False


def _autopack(x, dtype):
    items = [convert(v, dtype) if isinstance(v, (list, tuple)) else v for v in x]
    dt = dtype
    if dt is None:
        dt = next(v.dtype for v in items if isinstance(v, Tensor))
    for v in items:
        if isinstance(v, Tensor) and v.dtype is not dt:
            raise TypeError(f"Cannot convert a list containing a tensor of dtype {v.dtype.name} "
                            f"to {dt.name} (Tensor is: {v!r})")
    return bind(Pack, [convert(v, dt) for v in items], {"axis": 0})


def convert_pair(x, y):
    """Converts two operands; a Python scalar or list takes the dtype of the tensor operand."""
    if isinstance(x, Tensor):
        if not isinstance(y, Tensor):
            y = _convert_like(y, x)
    elif isinstance(y, Tensor):
        x = _convert_like(x, y)
    else:
        x = convert(x)
        y = _convert_like(y, x)
    return x, y


# Eager tensors of the Python numbers mixed into arithmetic (``x * 2``, ``0.01 * g``), by
# (type, value, dtype): building one costs more than the small op it feeds. 0.0 and NaN stay
# out (-0.0 would share 0.0's key; each NaN object would be a new key).
_SCALARS: dict = {}


def _convert_like(v, like: Tensor) -> Tensor:
    t = type(v)
    if (t is float or t is int) and ctx.graph is None and v == v and (v or t is int):
        key = (t, v, like.dtype)
        hit = _SCALARS.get(key)
        if hit is None:
            hit = _convert_scalar_like(v, like)
            if type(hit) is EagerTensor and type(hit._value) is np.ndarray:
                hit._value.flags.writeable = False  # shared from now on
                if len(_SCALARS) >= 1024:
                    _SCALARS.clear()
                _SCALARS[key] = hit
        return hit
    return _convert_scalar_like(v, like)


def _convert_scalar_like(v, like: Tensor) -> Tensor:
    conv = getattr(v, "_as_tensor", None)
    if conv is not None:
        return conv(None)
    if isinstance(v, (list, tuple)) and _contains_tensor(v):
        return convert(v, like.dtype)
    if type(v) is int and like.dtype.is_bool:
        v = bool(v)  # TensorFlow: tf.constant([True]) * 1 is [True]
    try:
        # A NumPy operand is cast to the tensor's dtype, as TensorFlow does
        # (tf.constant([1., 2.]) + np.array([1, 2]) is float32).
        return constant(v, like.dtype)
    except (TypeError, ValueError):
        # e.g. int tensor + 1.5: TensorFlow refuses too
        return convert(v)


def convert_n(values, dtype=None) -> list:
    """Converts a list of values to tensors of one dtype (the first tensor's, if any)."""
    values = list(values)
    if dtype is None:
        for v in values:
            if isinstance(v, Tensor):
                dtype = v.dtype
                break
            conv = getattr(v, "_as_tensor", None)
            if conv is not None:
                dtype = v.dtype
                break
    return [convert(v, dtype) for v in values]  # (a list holding tensors is packed)


def np_dtype_of(x):
    return x.dtype.np


def unary_infer(x):
    return x.dtype, x.shape


def binary_infer(x, y):
    shape = broadcast_shapes(x.shape, y.shape)
    if shape is None:
        raise InvalidArgumentError(None, None, f"Incompatible shapes: {_fmt(x.shape)} vs. "
                                               f"{_fmt(y.shape)}")
    return x.dtype, shape


def _fmt(shape: TensorShape) -> str:
    if shape.rank is None:
        return "<unknown>"
    return "[" + ",".join("?" if d is None else str(d) for d in shape.as_list()) + "]"


def check_float(op_name: str, x, allow_complex: bool = True) -> None:
    d = x.dtype
    if not (d.is_floating or allow_complex and d.is_complex):
        raise InvalidArgumentError(
            None, None, f"Value for attr 'T' of {d.name} is not in the list of allowed values: "
            f"half, float, double{', complex64, complex128' if allow_complex else ''}; "
            f"{op_name} needs a floating-point tensor (use tw.cast)")


def known_shape(x) -> tuple | None:
    """The fully known static shape of ``x`` as a tuple, or None."""
    dims = x.shape.as_tuple()
    if dims is None or None in dims:
        return None
    return dims


def shape_from_tensor(t) -> TensorShape:
    """The static shape that a 1-D shape tensor describes, as far as it is known."""
    v = constant_value(t)
    if v is not None:
        return TensorShape([int(d) if d >= 0 else None for d in np.asarray(v).reshape(-1)])
    if isinstance(t, SymbolicTensor):
        op = t.op
        if op.type == "Shape":
            return op.inputs[0].shape
        if op.type == "Pack" and op.attrs.get("axis", 0) == 0:
            dims = []
            for i in op.inputs:
                c = constant_value(i)
                dims.append(None if c is None or int(c) < 0 else int(c))
            return TensorShape(dims)
        n = t.shape[0] if t.shape.rank == 1 else None
        return TensorShape(None if n is None else [None] * n)
    return TensorShape(None)


def static_value(v, what: str):
    """``v``, or the constant value of ``v`` if it is a tensor: an argument (an axis, a
    permutation) that must be known when the op is built; ``what`` names it in the error."""
    if not isinstance(v, Tensor):
        return v
    c = constant_value(v)
    if c is None:
        raise InvalidArgumentError(None, None, f"{what} must be known when the graph is built, "
                                               f"got the symbolic tensor {v.name}")
    return c


def _integral(v, what: str):
    """``v`` (a static value) checked to be integral: floats, bools and strings are refused
    with TypeError as TensorFlow refuses them (never truncated)."""
    if isinstance(v, np.ndarray):
        if v.dtype.kind not in "iu":
            raise TypeError(f"{what} must be an int or a list of ints, got {v.tolist()!r}")
        return v
    vals = v if isinstance(v, (list, tuple)) else [v]
    for a in vals:
        if not isinstance(a, (int, np.integer)) or isinstance(a, (bool, np.bool_)):
            raise TypeError(f"{what} must be an int or a list of ints, got {v!r}")
    return v


def _memory_bytes() -> int:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 2**46


_MEMORY_BYTES = _memory_bytes()


def checked_shape(dims, np_dtype) -> tuple:
    """The shape ``dims`` (ints, or a 1-D int array) of an array about to be allocated, checked
    as TensorFlow does: sizes are int64 (never wrapped), negative ones and more than 2**63 - 1
    elements are InvalidArgumentError, and more bytes than this machine has is
    ResourceExhaustedError naming the size (NumPy could otherwise overcommit and fail later).

    Args:
        dims: the dims.
        np_dtype: the element type.

    Returns:
        The shape as a tuple of Python ints.
    """
    if type(dims) is np.ndarray:
        shp = tuple(dims.reshape(-1).tolist())
    else:
        shp = tuple(int(d) for d in dims)
    n = 1
    for d in shp:
        if d < 0:
            raise InvalidArgumentError(None, None, f"Dimension {d} must be >= 0")
        n *= d
    if n > 2**63 - 1:
        raise InvalidArgumentError(None, None, f"Shape {list(shp)} would have more than "
                                               "2**63 - 1 elements")
    if n * 16 > _MEMORY_BYTES and n * np.dtype(np_dtype).itemsize > _MEMORY_BYTES:
        nbytes = n * np.dtype(np_dtype).itemsize
        raise ResourceExhaustedError(
            None, None, f"OOM when allocating tensor with shape {list(shp)} and type "
            f"{dtypes.from_numpy(np_dtype).name}: {nbytes} bytes, more than this machine's "
            f"{_MEMORY_BYTES} bytes of memory")
    return shp


def shape_tensor(x, what: str = "shape") -> Tensor:
    """A shape-like argument (dims, sizes) as an integer tensor: int32, or int64 when a value
    needs it (as TensorFlow: never wrapped at 32 bits); floats are a TypeError.

    Args:
        x: a tensor, or a (possibly nested) list of Python or NumPy ints.
        what: its name in errors.

    Returns:
        The integer tensor.
    """
    if isinstance(x, Tensor):
        t = x
    elif type(x) is int or type(x) in (list, tuple) and all(type(v) is int for v in x):
        vals = (x,) if type(x) is int else x  # the common case, without NumPy's inference
        big = any(v >= 2**31 or v < -2**31 for v in vals)
        t = convert(x, dtype=dtypes.int64 if big else dtypes.int32)
    elif isinstance(x, (list, tuple)) and _contains_tensor(x):
        t = convert(x, dtype_hint=dtypes.int32)
    elif np.size(x) == 0:
        t = convert(x, dtype=dtypes.int32)
    else:
        t = convert(x)
    if not t.dtype.is_integer:  # as TensorFlow: tw.zeros([2.5]) is no shape
        raise TypeError(f"Cannot convert {x!r} to EagerTensor of dtype int32 ({what} must be "
                        f"integers)")
    return t


def static_int(v, what: str) -> int:
    """An int argument that must be known when the op is built (an int or constant tensor).

    Args:
        v: the value.
        what: its name in errors (``"concat: axis"``).

    Returns:
        The int; a float, bool or string raises TypeError.
    """
    c = _integral(static_value(v, what), what)
    return int(np.asarray(c).reshape(-1)[0]) if isinstance(c, np.ndarray) else int(c)


def static_ints(v, what: str) -> tuple:
    """A list of ints that must be known when the op is built (see ``static_int``).

    Args:
        v: the value (an int, a list of ints or a constant tensor).
        what: its name in errors.

    Returns:
        A tuple of ints.
    """
    c = _integral(static_value(v, what), what)
    return tuple(int(a) for a in np.asarray(c).reshape(-1))


def normalize_axis(axis, rank, op_name: str) -> tuple | None:
    """An axis argument (int, list, tensor, None) as a sorted tuple of non-negative axes (all
    of them for None), through the one axis normaliser (``graph/schema.normalize_axis``).

    Args:
        axis: the axis argument.
        rank: the rank of the tensor, or None when unknown.
        op_name: the op or function named in errors.

    Returns:
        A sorted tuple of distinct non-negative axes (None for None on unknown rank).
    """
    if axis is None:
        return None if rank is None else tuple(range(rank))
    v = static_value(axis, f"{op_name}: axis")
    if isinstance(v, np.ndarray) and v.dtype.kind in "iu":
        v = tuple(v.reshape(-1).tolist())
    out = _normalize_axis(v if isinstance(v, (list, tuple)) else (v,), rank, op_name)
    if rank is None:
        return out
    out = list(out)
    if len(set(out)) != len(out):  # as TensorFlow: axis=[0, 0] or [0, -2] on a matrix
        dup = next(a for a in out if out.count(a) > 1)
        raise InvalidArgumentError(
            None, None, f"Invalid reduction arguments: Axes contains duplicate dimension: {dup}")
    return tuple(sorted(out))


# Pack and Unpack live here, not in array_ops, because converting a list that holds tensors
# (``tw.zeros([batch, 3])``) packs it, and every op's argument conversion needs that.

@register_op("Pack", same_dtype=True)
class Pack:
    """Stacks N tensors of one shape along a new axis (``tw.stack``)."""

    def infer(*values, axis=0):
        shape = values[0].shape
        for v in values[1:]:
            if not shape.is_compatible_with(v.shape):
                raise InvalidArgumentError(
                    None, None, f"Shapes of all inputs must match: values[0].shape = "
                    f"{_fmt(values[0].shape)} != values[i].shape = {_fmt(v.shape)}")
            shape = shape.merge_with(v.shape)
        if shape.rank is None:
            return values[0].dtype, TensorShape(None)
        dims = list(shape.as_list())
        dims.insert(_normalize_axis(axis, len(dims), None, extra=1), len(values))
        return values[0].dtype, TensorShape(dims)

    def kernel(*values, axis=0):
        return np.stack(values, axis=axis)

    def grad(op, dy):
        return bind(Unpack, [dy], {"num": len(op.inputs), "axis": op.attrs["axis"]})

    def constant_value(op):
        vals = [constant_value(t) for t in op.inputs]
        if any(v is None for v in vals):
            return None
        return np.stack(vals, axis=op.attrs["axis"])


@register_op("Unpack", multi_output=True)
class Unpack:
    """Splits a tensor into ``num`` tensors along ``axis`` (``tw.unstack``)."""

    def infer(value, *, num, axis=0):
        if value.shape.rank is None:
            return [(value.dtype, TensorShape(None))] * num
        dims = list(value.shape.as_list())
        axis = _normalize_axis(axis, len(dims), None)
        if dims[axis] is not None and dims[axis] != num:
            raise InvalidArgumentError(
                None, None, f"Cannot unpack dimension {axis} of size {dims[axis]} into {num} "
                "tensors")
        del dims[axis]
        return [(value.dtype, TensorShape(dims))] * num

    def kernel(value, *, num, axis=0):
        if value.shape[axis] != num:  # (infer explains)
            raise ValueError("Unpack: num differs from the dimension")
        return tuple(np.moveaxis(value, axis, 0))

    def grad(op, *dys):
        dys = [dy if dy is not None else bind(ZerosLike, [out]) for dy, out in
               zip(dys, op.outputs)]
        return bind(Pack, dys, {"axis": op.attrs["axis"]})


@register_op("ZerosLike")
class ZerosLike:
    """A tensor of zeros with the shape and dtype of ``x``."""

    infer = unary_infer

    def kernel(x):
        if x.dtype.kind == "O":  # strings: b'', as TensorFlow
            return np.full(np.shape(x), b"", dtype=object)
        return np.zeros_like(x)

    def grad(op, dy):
        return None


@register_op("OnesLike")
class OnesLike:
    """A tensor of ones with the shape and dtype of ``x``."""

    infer = unary_infer

    def kernel(x):
        return np.ones_like(x)

    def grad(op, dy):
        return None


def reexport(namespace: dict, *modules) -> None:
    """Copies every top-level name of ``modules`` into ``namespace``: how the former one-file
    op modules (``math_ops``, ``array_ops``...) keep serving the names now spread over family
    modules, private helpers and OpDefs included."""
    for m in modules:
        namespace.update({k: v for k, v in vars(m).items() if not k.startswith("__")})
