"""``bind``: the one entry point through which every op runs, eagerly or into a graph.

* Eager (no graph being built): run the kernel now and wrap the result. When a tape or
  check_numerics is active (``ctx.slow_path``), also record the op / check its outputs.
* Graph (a graph is being built): infer output dtypes and shapes, add an Operation.
"""
from __future__ import annotations

import threading
import warnings
from time import perf_counter_ns

import numpy as np

from ..core import dtypes
from ..core.context import ctx, process
from ..core.devices import placed_device, runtime
from ..core.errors import InvalidArgumentError, OpError
from ..core.profiler import record_op
from ..core.props import readonly
from ..core.shapes import TensorShape
from ..graph.checks import (
    KERNEL_ERRORS,
    check_dtypes_match,
    kernel_error,
    shape_error,
    with_message,
)
from ..graph.core_ops import Const
from ..graph.graph import user_source_location
from ..graph.registry import REGISTRY, OpDef
from ..graph.tensor import SymbolicTensor, Tensor
from .tensor import EagerTensor, _as_bytes_array, _numpy_str

_EMPTY: dict = {}
# The dtype of most tensors: an identity test passes it before a (slower) set lookup on the
# hot paths; every op ``bind_binary`` serves accepts it (``tests/eager`` checks).
F32 = np.dtype(np.float32)

# TensorFlow's kernels overflow to inf / NaN silently; NumPy's floating-point RuntimeWarnings
# raised by twinflow's own kernel calls (not the user's NumPy code) are silenced the same way.
warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"twinflow(\.|$)")


class EagerOp:
    """What a tape remembers of an op run eagerly; reads like a graph Operation.

    ``needs_grad`` is set by ``backprop`` just before it calls the op's gradient rule (as on an
    Operation): per input, False when no source reaches it.
    """

    __slots__ = ("opdef", "inputs", "outputs", "attrs", "needs_grad")

    def __init__(self, opdef: OpDef, inputs, outputs, attrs: dict) -> None:
        self.opdef, self.inputs, self.outputs, self.attrs = opdef, inputs, outputs, attrs

    type = readonly("opdef.name", "The op type (as ``Operation.type``).")
    name = readonly("opdef.name", "The op type: an eager op has no name of its own.")

    def get_attr(self, name: str):
        return self.attrs[name]

    def _error_context(self) -> str:
        return f"op {self.opdef.name}"


def bind(opdef: OpDef, inputs, attrs: dict = _EMPTY, name=None):
    """Runs ``opdef`` on ``inputs`` (tensors) with ``attrs``; returns its output(s).

    Args:
        opdef: the registered op.
        inputs: a list or tuple of Tensors (eager, or symbolic of the graph being built).
        attrs: the op's attributes (Python values).
        name: the op name in graph mode.

    Returns:
        One tensor, or a list of tensors for a multi-output op.
    """
    quiet = process.quiet  # no thread builds a graph or records: skip the per-thread ctx
    if quiet or ctx.graph is None:
        dev = None
        if not quiet and (ctx.slow_path or process.eager_hook):
            dev = _place(opdef)  # a device scope, a tape, numeric checks, logging, profiling
            start = perf_counter_ns() if process.profiling else None
        check = opdef.validate_eager
        if check is not None:  # the op's schema (and infer, if it says so): as in a graph
            check(inputs, attrs)
        try:
            out = opdef.kernel(*[t._value for t in inputs], **attrs)
        except KERNEL_ERRORS as e:
            raise kernel_error(opdef, inputs, attrs, e) from e
        if opdef.multi_output:
            result = [EagerTensor(o if type(o) is not bytes else _string_scalar(o)) for o in out]
        else:
            if type(out) is bytes:  # an element of a string (object) array: keep an array
                out = _string_scalar(out)
            result = EagerTensor(out)
        if dev is not None:  # the slow path: its hooks, then the profiler's record
            outs = result if opdef.multi_output else [result]
            _after_eager(opdef, inputs, attrs, outs, dev)
            if start is not None:
                record_op(opdef.name, opdef.name, start, [t._value for t in outs])
        return result
    return _bind_graph(ctx.graph, opdef, inputs, attrs, name)


def _place(opdef: OpDef):
    """The device an eager op runs on (raising for a missing one under hard placement),
    logged when placement is logged."""
    dev = placed_device(opdef.name)
    if runtime.log_placement:
        runtime.log(f"Executing op {opdef.name} in device {dev.name}")
    return dev


def _string_scalar(b: bytes) -> np.ndarray:
    """A 0-d object array holding ``b`` (NumPy gives bare ``bytes`` for an element of an object
    array, which has no dtype or shape)."""
    return np.asarray(b, dtype=object)


def bind_binary(opdef: OpDef, x, y):
    """``bind(opdef, (x, y))`` for a ``same_dtype`` op without attrs and with one output.

    The eager path of ``x + y``: the same checks, errors, tape recording and numeric checks as
    ``bind``, without building an argument list or a kwargs dict.

    Args:
        opdef: a registered op with ``same_dtype=True``, no attrs and a single output.
        x: the first input tensor.
        y: the second input tensor.

    Returns:
        The output tensor.
    """
    if process.quiet or (ctx.graph is None and not (ctx.slow_path or process.eager_hook)):
        xv = x._value
        yv = y._value
        dt = xv.dtype
        if dt is not yv.dtype and dt != yv.dtype:
            check_dtypes_match(opdef.name, (x, y))
        if dt is not F32 and dt not in opdef.np_dtypes:  # (no attrs to check)
            opdef.validate((x, y), _EMPTY)
        try:
            out = opdef.kernel(xv, yv)
        except KERNEL_ERRORS as e:
            raise kernel_error(opdef, (x, y), _EMPTY, e) from e
        return EagerTensor(out)
    if ctx.graph is None:
        return bind(opdef, (x, y))
    return _bind_graph(ctx.graph, opdef, (x, y), _EMPTY, None)


def _after_eager(opdef: OpDef, inputs, attrs: dict, outputs: list, dev) -> None:
    """Marks the outputs with their device; records them on the tapes, checks numerics."""
    if dev is not runtime.default:
        for t in outputs:
            t._device = dev.name
    if not ctx.slow_path:
        return
    if ctx.check_numerics:
        for t in outputs:
            _check_numerics(opdef.name, t._value, "")
    if ctx.tapes:
        record = EagerOp(opdef, tuple(inputs), outputs, attrs)
        for tape in ctx.tapes:
            tape.record(record)


def _check_numerics(op_name: str, value, where: str) -> None:
    if getattr(value, "dtype", None) is None or value.dtype.kind not in "fc":
        return
    if np.isnan(value).any():
        kind = "NaN"
    elif np.isinf(value).any():
        kind = "Inf"
    else:
        return
    raise InvalidArgumentError(
        None, None, f"tw.debugging.check_numerics: op {op_name} produced {kind} values"
        f"{where}. Tensor had {kind} values [Op:{op_name}]")


def _bind_graph(g, opdef: OpDef, inputs, attrs: dict, name):
    sym = []
    for t in inputs:
        if isinstance(t, SymbolicTensor):
            if t.graph is not g:
                t = g.capture(t)
        else:
            t = g.capture(t)
        sym.append(t)
    check = opdef.validate
    if check is not None:
        try:
            check(sym, attrs)
        except (ValueError, TypeError) as e:  # the schema's errors keep their class
            raise _graph_error(g, opdef, name, e, type(e)) from e
    try:
        spec = opdef.infer(*sym, **attrs)
    except (ValueError, TypeError) as e:  # InvalidArgumentError is a ValueError
        raise _graph_error(g, opdef, name, shape_error(opdef.name, e)) from e
    specs = spec if opdef.multi_output else [spec]
    op = g.create_op(opdef, sym, attrs, specs, name)
    outs = op.outputs
    if ctx.tapes:
        for tape in ctx.tapes:
            tape.record(op)
    if ctx.check_numerics and opdef.name != "CheckNumerics":
        outs = _graph_check_numerics(op, outs)
    return outs if opdef.multi_output else outs[0]


def _graph_check_numerics(op, outs: list) -> list:
    """tw.debugging.enable_check_numerics while building a graph: each float output goes
    through a CheckNumerics op naming this node, so the check runs each time the graph runs."""
    check = REGISTRY.get("CheckNumerics")
    if check is None:
        return outs
    return [bind(check, [t], {"message": f"tw.debugging.check_numerics: op {op.type} (node "
                                         f"{op.name}) produced NaN or Inf values"})
            if t.dtype.is_floating or t.dtype.is_complex else t for t in outs]


def _graph_error(g, opdef: OpDef, name, e: Exception, cls=None) -> Exception:
    """``e`` (its message ending in ``[Op:Name]``) with the node and the user's source line."""
    loc = user_source_location()
    where = f"\n  created at {loc}" if loc else ""
    msg = (f"{e} (while building node {g.unique_name(name or opdef.name, False)} in a graph)"
           f"{where}")
    if cls is None or issubclass(cls, OpError):
        return with_message(e, msg)
    return cls(msg)


# ---------------------------------------------------------------------------------------------
# Conversion of Python values to tensors.

# The range a Python number may have to become a NumPy scalar of a dtype without overflow.
_SAFE_RANGE = {np.dtype(t): (float(np.iinfo(t).min), float(np.iinfo(t).max))
               for t in (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
                         np.uint64)}
_SAFE_RANGE.update({np.dtype(t): (-float(np.finfo(t).max), float(np.finfo(t).max))
                    for t in (np.float16, np.float32, np.float64)})
# Kinds of Python values (as NumPy infers them) TensorFlow refuses to convert to a dtype kind:
# a float never becomes an integer or a bool, an int never a bool, a number never a string.
_REFUSED_KINDS = {"i": "fcUSO", "u": "fcUSO", "b": "iufcUSO", "f": "cUSO", "c": "USO",
                  "O": "biufc"}


def _python_to_array(value, dtype):
    """TensorFlow's inference: Python float -> float32, int -> int32, NumPy keeps its dtype."""
    if dtype is not None:
        t = type(value)
        if t is int or t is float:  # the hot path of ``x + 1``
            k = dtype.np.kind
            if k in "iub" and t is float or k in "bO":
                raise TypeError(f"Cannot convert {value!r} to EagerTensor of dtype {dtype.name}")
            lo, hi = _SAFE_RANGE.get(dtype.np, (-np.inf, np.inf))
            if lo <= value <= hi:
                return np.asarray(value, dtype=dtype.np)
        return _cast_python(value, dtype)
    if isinstance(value, (np.ndarray, np.generic)):
        if value.dtype.kind in "SU":
            return _as_bytes_array(np.asarray(value))
        return np.array(value)
    arr = _python_array(value)
    k = arr.dtype.kind
    if k == "f" and arr.dtype != np.float32:
        return arr.astype(np.float32)
    if k in "iu":
        if arr.size and (arr.max() >= 2**31 or arr.min() < -2**31):
            return arr.astype(np.int64)
        return arr.astype(np.int32)
    if k == "c":
        return arr.astype(np.complex128)
    if k in "US":  # strings are bytes, as in TensorFlow
        return _as_bytes_array(np.array(value, dtype=object))
    return arr


def _python_array(value) -> np.ndarray:
    """NumPy's array of a Python value, refusing what TensorFlow refuses: None and other
    objects, bools or strings mixed with numbers, integers beyond 64 bits, ragged lists."""
    try:
        arr = np.array(value)
    except UnicodeDecodeError:  # str mixed with non-ASCII bytes: no NumPy 'S' array holds both
        return _mixed_strings(value)
    except ValueError as e:  # NumPy's "inhomogeneous shape": TensorFlow's message instead
        if "inhomogeneous" not in str(e):
            raise
        raise ValueError("Can't convert non-rectangular Python sequence to Tensor.") from None
    k = arr.dtype.kind
    if k == "O":
        kinds = _leaf_kinds(value)
        if "?" in kinds or not kinds:
            raise ValueError(f"Attempt to convert a value ({value!r}) with an unsupported type "
                             f"({type(value)}) to a Tensor.")
        if kinds == {"n"}:
            raise ValueError("Can't convert Python sequence with out-of-range integer to Tensor.")
        raise ValueError("Can't convert Python sequence with mixed types to Tensor.")
    if k in "iufcUS" and isinstance(value, (list, tuple)) and \
            len(_leaf_kinds(value) - {"?"}) > 1:  # (objects with __array__ are fine)
        raise ValueError("Can't convert Python sequence with mixed types to Tensor.")
    return arr


def _mixed_strings(value) -> np.ndarray:
    """A bytes array from a nested list of str and bytes (str encoded as UTF-8, as TF does)."""
    kinds = _leaf_kinds(value)
    if kinds != {"s"}:
        raise ValueError("Can't convert non-rectangular Python sequence to Tensor." if "?" in kinds
                         else "Can't convert Python sequence with mixed types to Tensor.")
    return _as_bytes_array(np.array(value, dtype=object))


def _leaf_kinds(value) -> set:
    """The kinds of the leaves of a nested list: b(ool), n(umber), s(tring), ?(other)."""
    try:
        leaves = np.array(value, dtype=object).ravel()  # the types are listed at C speed
    except ValueError:
        return {"?"}
    return {_type_kind(t) for t in set(map(type, leaves))}


def _type_kind(t) -> str:
    if issubclass(t, (bool, np.bool_)):
        return "b"
    if issubclass(t, (int, float, complex, np.number)):
        return "n"
    if issubclass(t, (str, bytes, np.str_, np.bytes_)):
        return "s"
    return "?"


def _cast_python(value, dtype) -> np.ndarray:
    """``value`` as an array of ``dtype``, by TensorFlow's rules: NumPy values are cast, Python
    values must be of a compatible kind, integers out of range wrap around, float overflow
    gives inf (silently, as TensorFlow)."""
    if isinstance(value, (np.ndarray, np.generic)):
        src = np.asarray(value)
        if (src.dtype.kind in "SUO") != dtype.is_string:
            raise TypeError(f"Cannot convert {value!r} to EagerTensor of dtype {dtype.name}")
    else:
        src = _python_array(value)
        if src.size and src.dtype.kind in _REFUSED_KINDS.get(dtype.np.kind, ""):
            raise TypeError(f"Cannot convert {value!r} to EagerTensor of dtype {dtype.name}")
    if dtype.is_string:
        if not isinstance(value, (np.ndarray, np.generic)):
            # NumPy's 'S' arrays drop trailing NUL bytes: build from the Python objects
            src = np.array(value, dtype=object)
        return _as_bytes_array(src.astype(object))
    with np.errstate(all="ignore"):
        return src.astype(dtype.np)


def constant_array(value, dtype=None) -> np.ndarray:
    dtype = None if dtype is None else dtypes.as_dtype(dtype)
    if isinstance(value, EagerTensor):
        arr = value._value
        return arr if dtype is None else np.asarray(arr, dtype=dtype.np)
    if isinstance(value, (list, tuple)) and any(isinstance(v, Tensor) for v in value):
        value = [constant_array(v, dtype) for v in value]
    return _python_to_array(value, dtype)


# (priority, base_type, conversion_func) from tw.register_tensor_conversion_function, sorted.
_CONVERSIONS: list = []
_CONVERSIONS_LOCK = threading.Lock()


def register_tensor_conversion_function(base_type, conversion_func, priority=100) -> None:
    """Declares how ``tw.convert_to_tensor`` converts objects of a user type.

    Args:
        base_type: a class (or tuple of classes); Python and NumPy value types are refused.
        conversion_func: ``f(value, dtype=None, name=None, as_ref=False)`` returning a tensor
            (or ``NotImplemented`` to let the next function try).
        priority: lower runs first among functions matching one value.

    Returns:
        None.
    """
    types = base_type if isinstance(base_type, tuple) else (base_type,)
    for t in types:
        if not isinstance(t, type):
            raise TypeError("Argument `base_type` must be a type or a tuple of types. "
                            f"Obtained: {t!r}")
        if issubclass(t, (int, float, complex, str, bytes, bool, list, tuple, np.ndarray,
                          np.generic, Tensor)):
            raise TypeError(f"Cannot register conversions for Python numeric types, NumPy "
                            f"scalars, NumPy arrays or tensors: {t.__name__}")
    if not callable(conversion_func):
        raise TypeError("Argument `conversion_func` must be callable. "
                        f"Received {conversion_func!r}.")
    with _CONVERSIONS_LOCK:
        _CONVERSIONS.append((priority, types, conversion_func))
        _CONVERSIONS.sort(key=lambda e: e[0])


def _registered_conversion(value, dtype, name):
    for _, types, fn in list(_CONVERSIONS):
        if isinstance(value, types):
            out = fn(value, dtype=dtype, name=name, as_ref=False)
            if out is NotImplemented:
                continue
            if not isinstance(out, Tensor):
                raise RuntimeError(f"Conversion function {fn!r} for type {type(value)} "
                                   f"returned non-Tensor: {out!r}")
            if dtype is not None and out.dtype is not dtypes.as_dtype(dtype):
                raise RuntimeError(f"Conversion function {fn!r} for type {type(value)} "
                                   f"returned incompatible dtype: requested = "
                                   f"{dtypes.as_dtype(dtype).name}, actual = {out.dtype.name}")
            return out
    return None


def convert_to_tensor(value, dtype=None, name=None, dtype_hint=None) -> Tensor:
    """Converts tensors, variables, NumPy arrays and Python values to a Tensor.

    Args:
        value: the value.
        dtype: the required dtype; a tensor of another dtype raises.
        name: the Const op's name in graph mode.
        dtype_hint: the dtype to use for Python values when ``dtype`` is not given.

    Returns:
        An EagerTensor, or a symbolic tensor in graph mode.
    """
    if isinstance(value, Tensor):
        if dtype is not None:
            dtype = dtypes.as_dtype(dtype)
            if value.dtype is not dtype:
                raise ValueError(f"Tensor conversion requested dtype {dtype.name} for Tensor "
                                 f"with dtype {value.dtype.name}: {value!r}")
        return value
    conv = getattr(value, "_as_tensor", None)
    if conv is not None:
        return conv(dtype)
    if _CONVERSIONS:
        converted = _registered_conversion(value, dtype, name)
        if converted is not None:
            return converted
    if dtype is None and dtype_hint is not None and not isinstance(value, np.ndarray):
        try:
            return constant(value, dtype_hint, name=name)
        except (TypeError, ValueError):
            pass
    # As TensorFlow, a NumPy value is cast to a requested dtype (a Tensor is not, above).
    return constant(value, dtype, name=name)


def constant(value, dtype=None, shape=None, name=None) -> Tensor:
    """``tw.constant``: a tensor from a Python or NumPy value (copied).

    Args:
        value: a Python scalar, nested list, NumPy array or tensor.
        dtype: the dtype; by default inferred as TensorFlow does (float -> float32).
        shape: if given, the value is reshaped (or a scalar broadcast) to it.
        name: the op name in graph mode.

    Returns:
        The tensor.
    """
    if isinstance(value, SymbolicTensor):
        raise TypeError(f"tw.constant needs a concrete value, got symbolic tensor {value.name}; "
                        "use tw.identity or tw.cast inside a tw.function")
    if type(value) is EagerTensor and dtype is not None and \
            value.dtype is not dtypes.as_dtype(dtype):  # as TensorFlow: no silent cast
        raise TypeError(f"Expected tensor {_numpy_str(value._value)} with dtype "
                        f"{dtypes.as_dtype(dtype)!r}, but got dtype {value.dtype!r}.")
    arr = constant_array(value, dtype)
    if shape is not None:
        shape = tuple(TensorShape(shape).as_list())
        if arr.size == 1:
            arr = np.broadcast_to(arr.reshape(()), shape).copy()
        elif arr.size == int(np.prod(shape)):
            arr = arr.reshape(shape)
        else:
            raise TypeError(f"Eager execution of tw.constant with unsupported shape. Tried to "
                            f"reshape a value of {arr.size} elements to shape {list(shape)}")
    elif arr is getattr(value, "_value", None):
        pass  # an EagerTensor's value is immutable: no copy needed
    elif isinstance(value, np.ndarray) and arr is value:
        arr = arr.copy()
    g = ctx.graph
    if g is None:
        t = EagerTensor(arr)
        if not process.quiet and (ctx.device_stack[-1] or process.eager_hook):
            dev = placed_device("Const")
            if dev is not runtime.default:
                t._device = dev.name
        return t
    dt = dtypes.from_numpy(arr.dtype)
    op = g.create_op(Const, [], {"value": arr, "dtype": dt},
                     [(dt, TensorShape._from_tuple(arr.shape))], name or "Const")
    return op.outputs[0]


def constant_value(t):
    """The value of ``t`` if it is known without running a graph (eager, or a Const), else None.
    """
    if isinstance(t, EagerTensor):
        return t._value
    if isinstance(t, SymbolicTensor):
        op = t.op
        if op.type == "Const":
            return op.attrs["value"]
        folder = getattr(op.opdef, "constant_value", None)
        if folder is not None:
            return folder(op)
        return None
    if isinstance(t, (np.ndarray, np.generic, int, float, bool, list, tuple)):
        try:
            return np.asarray(t)
        except ValueError:
            return None
    return None


def is_tensor(x: object) -> bool:
    """``tw.is_tensor``: True for eager and symbolic tensors and (as TensorFlow) variables.

    Args:
        x: any Python object.

    Returns:
        Whether ``x`` is a tensor or tensor-like (a variable).
    """
    return isinstance(x, Tensor) or getattr(type(x), "_tw_tensor_like", False)
