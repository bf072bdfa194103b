"""Debugging ops: ``tw.print``, ``tw.debugging.assert_*``, ``check_numerics``.

Printing and assertions are stateful ops, so in a graph they run each time the graph runs (and
passes never fold or prune them). Eagerly, assertions are checked with NumPy directly and raise
at once; while a graph is built, an assertion whose inputs are all known constants is checked at
build time too, as TensorFlow does.
"""
from __future__ import annotations

import logging
import pprint
import sys

import numpy as np

from ..core import dtypes, nest
from ..core.context import ctx
from ..core.errors import InvalidArgumentError
from ..core.shapes import TensorShape
from ..eager.execute import bind, constant_value, convert_to_tensor
from ..eager.tensor import EagerTensor
from ..graph.graph import Operation
from ..graph.registry import register_op
from ..graph.tensor import Tensor, TensorLike
from . import math_ops, reduction_ops
from .variables import Variable

__all__ = ["print_v2", "format_tensor", "check_numerics", "enable_check_numerics",
           "disable_check_numerics", "Assert", "assert_equal", "assert_none_equal",
           "assert_less", "assert_less_equal", "assert_greater", "assert_greater_equal",
           "assert_near", "assert_integer", "assert_rank", "assert_rank_at_least",
           "assert_type", "assert_shapes",
           "assert_all_finite", "assert_scalar", "assert_positive", "assert_negative",
           "assert_non_negative", "assert_non_positive", "assert_proper_iterable",
           "is_numeric_tensor", "set_log_device_placement"]

# ---------------------------------------------------------------------------------------------
# Formatting tensors as TensorFlow's SummarizeValue does.


def _format_element(v, kind: str, itemsize: int) -> str:
    if kind == "f":
        f = float(v)
        if f != f:
            return "nan" if not np.signbit(v) else "-nan"
        if itemsize <= 4:
            s = f"{f:.6g}"
            return s if np.float32(s) == np.float32(v) else f"{f:.9g}"
        s = f"{f:.15g}"
        return s if float(s) == f else f"{f:.17g}"
    if kind == "b":
        return "1" if v else "0"
    if kind == "c":
        return f"({_format_element(v.real, 'f', itemsize // 2)},"\
               f"{_format_element(v.imag, 'f', itemsize // 2)})"
    if kind in "SUO":
        b = v.encode() if isinstance(v, str) else bytes(v)
        return '"' + b.decode("utf-8", "backslashreplace").encode("unicode_escape")\
            .decode("ascii").replace('"', '\\"') + '"'
    return str(v)


def format_tensor(value, summarize: int | None = 3) -> str:
    """A tensor's value as ``tf.print`` shows it: ``[[1 2]\\n [3 4]]``, ``...`` when elided.

    Args:
        value: a NumPy array or scalar.
        summarize: elements shown at each end of every dimension (-1 or None for 3: all).

    Returns:
        The text.
    """
    arr = np.asarray(value)
    if summarize is None:
        summarize = 3
    if summarize < 0:
        summarize = max(arr.size, 1)
    kind, itemsize = arr.dtype.kind, arr.dtype.itemsize
    out: list = []
    ndim = arr.ndim

    def spacing(dim: int) -> None:
        if dim == ndim - 1:
            out.append(" ")
        else:
            out.append("\n" * (ndim - dim - 1) + " " * (dim + 1))

    def one_dim(sub, dim: int) -> None:
        if dim == ndim:
            out.append(_format_element(sub, kind, itemsize))
            return
        out.append("[")
        n = sub.shape[0]
        start_of_end = max(summarize, n - summarize)
        for i in range(min(summarize, n)):
            if i > 0:
                spacing(dim)
            one_dim(sub[i], dim + 1)
        if n > 2 * summarize:
            spacing(dim)
            out.append("...")
        for i in range(start_of_end, n):
            spacing(dim)
            one_dim(sub[i], dim + 1)
        out.append("]")

    if ndim == 0:
        return _format_element(arr[()], kind, itemsize)
    one_dim(arr, 0)
    return "".join(out)


# ---------------------------------------------------------------------------------------------
# tw.print

_STDERR, _STDOUT = "stderr", "stdout"
_OBJECT = "object"  # a file-like object, kept in the op's private ``_stream`` attr


def _stream_spec(output_stream) -> str:
    if output_stream is None or output_stream is sys.stderr or output_stream == _STDERR:
        return _STDERR
    if output_stream is sys.stdout or output_stream == _STDOUT:
        return _STDOUT
    if isinstance(output_stream, str):
        if output_stream.startswith("file://"):
            return output_stream
        raise ValueError(f"Unsupported output stream {output_stream!r}: expected sys.stdout, "
                         "sys.stderr, 'file://path', a logging function or a logging level")
    if isinstance(output_stream, int):
        return f"log://{output_stream}"
    level = _LOG_FUNCTIONS.get(getattr(output_stream, "__name__", None))
    if callable(output_stream) and level is not None:
        return f"log://{level}"
    if hasattr(output_stream, "write"):
        return _OBJECT
    raise ValueError(f"Unsupported output stream {output_stream!r}")


_LOG_FUNCTIONS = {"debug": logging.DEBUG, "info": logging.INFO, "warning": logging.WARNING,
                  "warn": logging.WARNING, "error": logging.ERROR, "fatal": logging.CRITICAL,
                  "critical": logging.CRITICAL}


def _write(spec: str, text: str, stream) -> None:
    if spec == _STDERR:
        sys.stderr.write(text)
    elif spec == _STDOUT:
        sys.stdout.write(text)
    elif spec.startswith("file://"):
        with open(spec[len("file://"):], "a", encoding="utf-8") as f:
            f.write(text)
    elif spec.startswith("log://"):
        logging.getLogger("twinflow").log(int(spec[len("log://"):]), text.rstrip("\n"))
    else:
        stream.write(text)


def _render(values, template: str, placeholder: str, summarize: int) -> str:
    if template == placeholder and len(values) == 1:
        v = np.asarray(values[0])
        if v.ndim == 0 and v.dtype.kind in "SUO":
            s = v.item()
            return s.decode("utf-8", "replace") if isinstance(s, bytes) else str(s)
    parts = template.split(placeholder)
    out = [parts[0]]
    for v, rest in zip(values, parts[1:]):
        out.append(format_tensor(v, summarize))
        out.append(rest)
    return "".join(out)


@register_op("PrintV2", stateful=True, multi_output=True)
class PrintV2:
    """Formats its inputs into ``template`` (one ``placeholder`` per input) and writes it."""

    def infer(*inputs, template, placeholder, summarize, output_stream, end, _stream=None):
        return []

    def kernel(*values, template, placeholder, summarize, output_stream, end, _stream=None):
        _write(output_stream, _render(values, template, placeholder, summarize) + end, _stream)
        return ()


def _is_tensor_like(x) -> bool:
    return isinstance(x, (Tensor, Variable))


def print_v2(*inputs, output_stream=None, summarize: int | None = 3, sep: str = " ",
             end: str = "\n", name: str | None = None) -> Operation | None:
    """Prints tensors and Python values as ``tf.print`` does (``tw.print``).

    Args:
        *inputs: tensors, strings, Python values and nested structures of them.
        output_stream: ``sys.stderr`` (default), ``sys.stdout``, ``'file://path'`` (appended
            to), a logging function (``logging.info``) or a logging level, or a file object.
        summarize: elements printed at each end of every dimension; -1 for all.
        sep: text between inputs.
        end: text after the last input.
        name: the op name in graph mode.

    Returns:
        None eagerly; the print Operation while building a graph.
    """
    if summarize is None:
        summarize = 3
    tensors: list = []
    templates: list = []
    no_tensors = nest.map_structure(lambda x: "" if _is_tensor_like(x) else x, list(inputs)) \
        if inputs else []
    placeholder = "{}"
    text = " ".join(pprint.pformat(x) for x in no_tensors) + sep + end
    while placeholder in text:
        placeholder = "{" + placeholder + "}"
    for inp in inputs:
        if isinstance(inp, str):
            templates.append(inp)
            continue
        if _is_tensor_like(inp):
            tensors.append(inp)
            templates.append(placeholder)
            continue
        slots = []
        for x in nest.flatten(inp):
            if _is_tensor_like(x):
                tensors.append(x)
                slots.append(placeholder)
            else:
                slots.append(x)
        templates.append(pprint.pformat(nest.pack_sequence_as(inp, slots)))
    template = sep.join(templates).replace(f"'{placeholder}'", placeholder)
    ts = [x.read_value() if isinstance(x, Variable) else x for x in tensors]
    spec = _stream_spec(output_stream)
    attrs = {"template": template, "placeholder": placeholder, "summarize": int(summarize),
             "output_stream": spec, "end": end}
    if spec == _OBJECT:
        attrs["_stream"] = output_stream
    bind(PrintV2, ts, attrs, name=name)
    return _last_op()


def _last_op():
    g = ctx.graph
    return None if g is None else g.get_operations()[-1]


# ---------------------------------------------------------------------------------------------
# check_numerics


def _numerics_problem(value):
    v = np.asarray(value)
    if v.dtype.kind not in "fc":
        return None
    if np.isnan(v).any():
        return "NaN"
    if np.isinf(v).any():
        return "Inf"
    return None


@register_op("CheckNumerics", stateful=True)
class CheckNumerics:
    """Passes its input through; raises if it holds NaN or Inf (attr ``message``)."""

    def infer(tensor, *, message):
        if not (tensor.dtype.is_floating or tensor.dtype.is_complex):
            raise InvalidArgumentError(
                None, None, f"check_numerics needs a floating-point tensor, got "
                f"{tensor.dtype.name}")
        return tensor.dtype, tensor.shape

    def kernel(tensor, *, message):
        kind = _numerics_problem(tensor)
        if kind is not None:
            raise InvalidArgumentError(None, None, f"{message} : Tensor had {kind} values "
                                                   "[Op:CheckNumerics]")
        return tensor

    def grad(op, dy):
        return bind(CheckNumerics, [dy], {
            "message": "Not a number (NaN) or infinity (Inf) values detected in gradient. "
                       + op.attrs["message"]})


def check_numerics(tensor: TensorLike, message: str, name: str | None = None) -> Tensor:
    """``tensor`` unchanged, after checking it holds no NaN or Inf.

    Args:
        tensor: a floating-point tensor.
        message: the start of the error message.
        name: the op name in graph mode.

    Returns:
        The same values.
    """
    return bind(CheckNumerics, [convert_to_tensor(tensor)], {"message": str(message)},
                name=name)


def enable_check_numerics(stack_height_limit: int = 30, path_length_limit: int = 50) -> None:
    """Makes every op check its floating-point outputs for NaN/Inf and raise naming the op.

    Eager ops are checked as they run; ops added to a graph while this is on get a
    ``CheckNumerics`` op after them, so the check happens each time the graph runs.

    Args:
        stack_height_limit: accepted for compatibility.
        path_length_limit: accepted for compatibility.
    """
    ctx.check_numerics = True
    ctx.refresh()


def disable_check_numerics() -> None:
    """Turns off ``enable_check_numerics``."""
    ctx.check_numerics = False
    ctx.refresh()


# ---------------------------------------------------------------------------------------------
# Assertions


@register_op("Assert", stateful=True, multi_output=True)
class AssertOp:
    """Raises InvalidArgumentError unless ``condition`` is true; the message shows ``data``.

    ``template`` holds one entry per data item: a string, or None where a data tensor goes.
    """

    def infer(condition, *data, template, summarize):
        if not condition.dtype.is_bool:
            raise InvalidArgumentError(None, None, f"Assert needs a bool condition, got "
                                                   f"{condition.dtype.name}")
        return []

    def kernel(condition, *data, template, summarize):
        if np.all(condition):
            return ()
        items = iter(data)
        parts = [f"[{format_tensor(next(items), summarize) if t is None else t}]"
                 for t in template]
        raise InvalidArgumentError(None, None, "assertion failed: " + " ".join(parts))


def _summarize_eager(value, summarize) -> str:
    arr = np.asarray(value)
    if summarize is None:
        summarize = 3
    elif summarize < 0:
        summarize = arr.size
    if arr.ndim:
        flat = arr.reshape(-1)
        lst = [str(x) for x in flat[:summarize]]
        if len(lst) < flat.size:
            lst.append("...")
    else:
        lst = [str(arr)] if summarize else []
    return ", ".join(lst)


def _pretty(item, summarize: int) -> str:
    if isinstance(item, EagerTensor):
        arr = np.asarray(item._value)
        if arr.ndim == 0:
            return str(arr)
        flat = arr.reshape(-1)
        lst = [str(x) for x in flat[:summarize]]
        if len(lst) < flat.size:
            lst.append("...")
        return str(lst)
    return str(item)


def _to_tensor(x, dtype=None):
    if isinstance(x, TensorShape):
        x = x.as_list()
    if isinstance(x, Variable):
        return x.read_value()
    if isinstance(x, Tensor):
        return x
    return convert_to_tensor(x, dtype=dtype)


def _pair(x, y):
    x = _to_tensor(x)
    y = _to_tensor(y, None if isinstance(y, (Tensor, Variable, np.ndarray)) else x.dtype)
    if x.dtype is not y.dtype:
        raise TypeError(f"Cannot compare tensors of dtypes {x.dtype.name} and {y.dtype.name}")
    return x, y


def _static(t):
    v = constant_value(t) if ctx.graph is not None else getattr(t, "_value", None)
    return None if v is None else np.asarray(v)


def Assert(condition: TensorLike, data: TensorLike, summarize: int | None = None,
           name: str | None = None) -> Operation | None:
    """Raises InvalidArgumentError with ``data`` summarized unless ``condition`` holds.

    Args:
        condition: a scalar bool (tensor or Python).
        data: tensors and strings shown when the assertion fails.
        summarize: elements of each tensor to show.
        name: the op name in graph mode.

    Returns:
        None eagerly; the Assert Operation in a graph.
    """
    cond = _to_tensor(condition)
    data = list(data)
    if ctx.graph is None:
        if not np.all(cond._value):
            tensors = [_to_tensor(d) for d in data]
            text = "\n".join(_summarize_eager(t._value, summarize) for t in tensors)
            raise InvalidArgumentError(None, None, f"Expected '{cond}' to be true. "
                                                   f"Summarized data: {text}")
        return None
    template, tensors = [], []
    for d in data:
        if isinstance(d, str):
            template.append(d)
        else:
            template.append(None)
            tensors.append(_to_tensor(d))
    return _assert_op(cond, tensors, template, summarize, name)


def _assert_op(cond, tensors: list, template: list, summarize, name):
    bind(AssertOp, [cond] + tensors, {"template": template,
                                      "summarize": 3 if summarize is None else int(summarize)},
         name=name or "Assert")
    return _last_op()


_COMPARE = {
    "==": ("equal", np.equal), "!=": ("not_equal", np.not_equal), "<": ("less", np.less),
    "<=": ("less_equal", np.less_equal), ">": ("greater", np.greater),
    ">=": ("greater_equal", np.greater_equal),
}


def _binary_assert(sym: str, x, y, message, summarize, name):
    x, y = _pair(x, y)
    op_name, np_fn = _COMPARE[sym]
    xv, yv = _static(x), _static(y)
    if xv is not None and yv is not None:
        try:
            test = np_fn(xv, yv)
        except ValueError as e:
            raise InvalidArgumentError(None, None, f"{message or ''} Incompatible shapes "
                                                   f"{x.shape} and {y.shape}: {e}") from e
        if np.all(test):
            return None
        summarize = 3 if summarize is None else (10 ** 9 if summarize < 0 else summarize)
        data = [] if message is None else [message]
        data += _assert_msg_data(sym, xv, yv, test, summarize)
        raise InvalidArgumentError(None, None, "\n".join(_pretty(d, summarize) for d in data))
    cond = reduction_ops.reduce_all(getattr(math_ops, op_name)(x, y))
    template = [] if message is None else [message]
    template += [f"Condition x {sym} y did not hold element-wise:", f"x (shape={x.shape}) = ",
                 None, f"y (shape={y.shape}) = ", None]
    return _assert_op(cond, [x, y], template, summarize, name)


def _assert_msg_data(sym: str, x: np.ndarray, y: np.ndarray, test: np.ndarray,
                     summarize: int) -> list:
    data: list = [f"Condition x {sym} y did not hold."]
    if summarize > 0:
        if x.shape == y.shape and x.shape:
            mask = np.logical_not(test)
            idx = np.argwhere(mask)
            n = min(summarize, idx.shape[0])
            data += [f"Indices of first {n} different values:", idx[:n],
                     "Corresponding x values:", x[mask].reshape(-1)[:n],
                     "Corresponding y values:", y[mask].reshape(-1)[:n]]
        xf, yf = x.reshape(-1), y.reshape(-1)
        nx, ny = min(xf.size, summarize), min(yf.size, summarize)
        data += [f"First {nx} elements of x:", xf[:nx], f"First {ny} elements of y:", yf[:ny]]
    return data


def assert_equal(x: TensorLike, y: TensorLike, message: str | None = None,
                 summarize: int | None = None, name: str | None = None) -> Operation | None:
    """Asserts ``x == y`` element-wise (``tw.debugging.assert_equal``).

    Args:
        x: a tensor (or value convertible to one).
        y: a tensor of the same dtype, broadcastable with ``x``.
        message: text prepended to the error.
        summarize: elements to show in the error.
        name: op name in graph mode.

    Returns:
        None eagerly (raises InvalidArgumentError if false); the Assert op in a graph.
    """
    return _binary_assert("==", x, y, message, summarize, name)


def assert_none_equal(x: TensorLike, y: TensorLike, message: str | None = None,
                      summarize: int | None = None, name: str | None = None) -> Operation | None:
    """Asserts ``x != y`` element-wise (``tw.debugging.assert_none_equal``).

    Args:
        x: a tensor (or value convertible to one).
        y: a tensor of the same dtype, broadcastable with ``x``.
        message: text prepended to the error.
        summarize: elements to show in the error.
        name: op name in graph mode.

    Returns:
        None eagerly (raises InvalidArgumentError if false); the Assert op in a graph.
    """
    return _binary_assert("!=", x, y, message, summarize, name)


def assert_less(x: TensorLike, y: TensorLike, message: str | None = None,
                summarize: int | None = None, name: str | None = None) -> Operation | None:
    """Asserts ``x < y`` element-wise (``tw.debugging.assert_less``).

    Args:
        x: a tensor (or value convertible to one).
        y: a tensor of the same dtype, broadcastable with ``x``.
        message: text prepended to the error.
        summarize: elements to show in the error.
        name: op name in graph mode.

    Returns:
        None eagerly (raises InvalidArgumentError if false); the Assert op in a graph.
    """
    return _binary_assert("<", x, y, message, summarize, name)


def assert_less_equal(x: TensorLike, y: TensorLike, message: str | None = None,
                      summarize: int | None = None, name: str | None = None) -> Operation | None:
    """Asserts ``x <= y`` element-wise (``tw.debugging.assert_less_equal``).

    Args:
        x: a tensor (or value convertible to one).
        y: a tensor of the same dtype, broadcastable with ``x``.
        message: text prepended to the error.
        summarize: elements to show in the error.
        name: op name in graph mode.

    Returns:
        None eagerly (raises InvalidArgumentError if false); the Assert op in a graph.
    """
    return _binary_assert("<=", x, y, message, summarize, name)


def assert_greater(x: TensorLike, y: TensorLike, message: str | None = None,
                   summarize: int | None = None, name: str | None = None) -> Operation | None:
    """Asserts ``x > y`` element-wise (``tw.debugging.assert_greater``).

    Args:
        x: a tensor (or value convertible to one).
        y: a tensor of the same dtype, broadcastable with ``x``.
        message: text prepended to the error.
        summarize: elements to show in the error.
        name: op name in graph mode.

    Returns:
        None eagerly (raises InvalidArgumentError if false); the Assert op in a graph.
    """
    return _binary_assert(">", x, y, message, summarize, name)


def assert_greater_equal(x: TensorLike, y: TensorLike, message: str | None = None,
                         summarize: int | None = None, name: str | None = None) -> Operation | None:
    """Asserts ``x >= y`` element-wise (``tw.debugging.assert_greater_equal``).

    Args:
        x: a tensor (or value convertible to one).
        y: a tensor of the same dtype, broadcastable with ``x``.
        message: text prepended to the error.
        summarize: elements to show in the error.
        name: op name in graph mode.

    Returns:
        None eagerly (raises InvalidArgumentError if false); the Assert op in a graph.
    """
    return _binary_assert(">=", x, y, message, summarize, name)


def _sign_assert(x, sym: str, what: str, message, summarize, name):
    x = _to_tensor(x)
    zero = convert_to_tensor(np.zeros((), x.dtype.np))
    msg = message if message is not None else f"x must be {what}"
    if sym in ("<", "<="):
        return _binary_assert(">" if sym == "<" else ">=", zero, x, msg, summarize, name)
    return _binary_assert("<" if sym == ">" else "<=", zero, x, msg, summarize, name)


def assert_positive(x: TensorLike, message: str | None = None, summarize: int | None = None,
                    name: str | None = None) -> Operation | None:
    """Asserts ``x > 0`` element-wise (``tw.debugging.assert_positive``).

    Args:
        x: a numeric tensor (or value convertible to one).
        message: text prepended to the error.
        summarize: elements to show in the error.
        name: op name in graph mode.

    Returns:
        None eagerly (raises InvalidArgumentError if false); the Assert op in a graph.
    """
    return _sign_assert(x, ">", "positive", message, summarize, name)


def assert_negative(x: TensorLike, message: str | None = None, summarize: int | None = None,
                    name: str | None = None) -> Operation | None:
    """Asserts ``x < 0`` element-wise (``tw.debugging.assert_negative``).

    Args:
        x: a numeric tensor (or value convertible to one).
        message: text prepended to the error.
        summarize: elements to show in the error.
        name: op name in graph mode.

    Returns:
        None eagerly (raises InvalidArgumentError if false); the Assert op in a graph.
    """
    return _sign_assert(x, "<", "negative", message, summarize, name)


def assert_non_negative(x: TensorLike, message: str | None = None, summarize: int | None = None,
                        name: str | None = None) -> Operation | None:
    """Asserts ``x >= 0`` element-wise (``tw.debugging.assert_non_negative``).

    Args:
        x: a numeric tensor (or value convertible to one).
        message: text prepended to the error.
        summarize: elements to show in the error.
        name: op name in graph mode.

    Returns:
        None eagerly (raises InvalidArgumentError if false); the Assert op in a graph.
    """
    return _sign_assert(x, ">=", "non-negative", message, summarize, name)


def assert_non_positive(x: TensorLike, message: str | None = None, summarize: int | None = None,
                        name: str | None = None) -> Operation | None:
    """Asserts ``x <= 0`` element-wise (``tw.debugging.assert_non_positive``).

    Args:
        x: a numeric tensor (or value convertible to one).
        message: text prepended to the error.
        summarize: elements to show in the error.
        name: op name in graph mode.

    Returns:
        None eagerly (raises InvalidArgumentError if false); the Assert op in a graph.
    """
    return _sign_assert(x, "<=", "non-positive", message, summarize, name)


def assert_near(x: TensorLike, y: TensorLike, rtol=None, atol=None, message: str | None = None,
                summarize: int | None = None, name: str | None = None) -> Operation | None:
    """Asserts ``|x - y| <= atol + rtol * |y|`` element-wise.

    Args:
        x: a floating-point tensor.
        y: a tensor of the same dtype.
        rtol: relative tolerance (default 10 * machine epsilon of the dtype).
        atol: absolute tolerance (default 10 * machine epsilon of the dtype).
        message: text prepended to the error.
        summarize: elements to show.
        name: op name in graph mode.

    Returns:
        None eagerly; the Assert op in a graph.
    """
    x, y = _pair(x, y)
    eps = np.finfo(x.dtype.np).eps if (x.dtype.is_floating or x.dtype.is_complex) else 0
    rtol = 10 * eps if rtol is None else rtol
    atol = 10 * eps if atol is None else atol
    xv, yv = _static(x), _static(y)
    if xv is not None and yv is not None:
        if np.all(np.abs(xv - yv) <= atol + rtol * np.abs(yv)):
            return None
        summarize = 3 if summarize is None else summarize
        data = [] if message is None else [message]
        data += [f"x and y not equal to tolerance rtol = {rtol}, atol = {atol}",
                 f"x (shape={x.shape} dtype={x.dtype.name}) = ", EagerTensor(xv),
                 f"y (shape={y.shape} dtype={y.dtype.name}) = ", EagerTensor(yv)]
        raise InvalidArgumentError(None, None, "\n".join(_pretty(d, summarize) for d in data))
    diff = math_ops.abs(math_ops.subtract(x, y))
    tol = math_ops.add(convert_to_tensor(np.asarray(atol, x.dtype.np)),
                       math_ops.multiply(convert_to_tensor(np.asarray(rtol, x.dtype.np)),
                                         math_ops.abs(y)))
    cond = reduction_ops.reduce_all(math_ops.less_equal(diff, tol))
    template = [] if message is None else [message]
    template += [f"x and y not equal to tolerance rtol = {rtol}, atol = {atol}",
                 "x = ", None, "y = ", None]
    return _assert_op(cond, [x, y], template, summarize, name)


def _static_rank_check(x, ok, expected: str, message):
    rank = x.shape.rank
    if rank is None:
        raise ValueError(f"{message or ''}Tensor {_describe(x)} must have {expected}, but its "
                         "rank is unknown")
    if not ok(rank):
        raise InvalidArgumentError(
            None, None, f"{message + ' ' if message else ''}Tensor {_describe(x)} must have "
            f"{expected}. Received rank {rank}, shape {x.shape}")


def _describe(x) -> str:
    return "x" if isinstance(x, EagerTensor) else getattr(x, "name", "x")


def assert_rank(x: TensorLike, rank, message: str | None = None, name: str | None = None) -> None:
    """Asserts that ``x`` has rank ``rank`` (checked on the static shape).

    Args:
        x: a tensor.
        rank: the expected rank (int or scalar int tensor with a known value).
        message: text prepended to the error.
        name: unused.

    Returns:
        None.
    """
    x = _to_tensor(x)
    r = int(np.asarray(_static(_to_tensor(rank)) if isinstance(rank, Tensor) else rank))
    _static_rank_check(x, lambda k: k == r, f"rank {r}", message)
    return None


def assert_rank_at_least(x: TensorLike, rank, message: str | None = None,
                         name: str | None = None) -> None:
    """Asserts that ``x`` has rank at least ``rank`` (checked on the static shape).

    Args:
        x: a tensor.
        rank: the minimum rank (an int).
        message: text prepended to the error.
        name: unused.

    Returns:
        None.
    """
    x = _to_tensor(x)
    r = int(np.asarray(rank))
    _static_rank_check(x, lambda k: k >= r, f"rank at least {r}", message)
    return None


def assert_scalar(tensor: TensorLike, message: str | None = None,
                  name: str | None = None) -> Tensor:
    """Asserts that ``tensor`` is a scalar; returns it.

    Args:
        tensor: a tensor.
        message: text prepended to the error.
        name: unused.

    Returns:
        The tensor.
    """
    t = _to_tensor(tensor)
    _static_rank_check(t, lambda k: k == 0, "rank 0", message)
    return t


def assert_type(tensor: TensorLike, tf_type, message: str | None = None,
                name: str | None = None) -> None:
    """Asserts that ``tensor`` has dtype ``tf_type`` (raises TypeError otherwise).

    Args:
        tensor: a tensor or variable.
        tf_type: the expected dtype.
        message: text prepended to the error.
        name: unused.

    Returns:
        None.
    """
    dt = dtypes.as_dtype(tf_type)
    actual = tensor.dtype if isinstance(tensor, (Tensor, Variable)) else _to_tensor(tensor).dtype
    if actual is not dt:
        raise TypeError(f"{message + ' ' if message else ''}{_describe(tensor)} must be of type "
                        f"{dt!r}; got {actual!r}")
    return None


def assert_integer(x: TensorLike, message: str | None = None, name: str | None = None) -> None:
    """Asserts that ``x`` has an integer dtype (raises TypeError otherwise).

    Args:
        x: a tensor or variable.
        message: text prepended to the error.
        name: unused.

    Returns:
        None.
    """
    dt = x.dtype if isinstance(x, (Tensor, Variable)) else _to_tensor(x).dtype
    if not dt.is_integer:
        raise TypeError(f"{message + ' ' if message else ''}Expected {_describe(x)} to be "
                        f"integer, got {dt.name}")
    return None


def assert_shapes(shapes, data: TensorLike | None = None, summarize: int | None = None,
                  message: str | None = None, name: str | None = None) -> None:
    """Asserts tensor shapes and consistent symbolic dimensions across tensors.

    Each entry pairs a tensor with a shape: ints, symbol strings (``'N'``) that must stand for
    one size everywhere, ``None`` or ``'.'`` for any size, and a leading ``'...'`` (or
    ``Ellipsis``) for any number of leading dimensions.

    Args:
        shapes: a dict or list of ``(tensor, shape)`` pairs.
        data: accepted for compatibility.
        summarize: accepted for compatibility.
        message: text prepended to the error.
        name: unused.

    Returns:
        None.
    """
    items = list(shapes.items()) if isinstance(shapes, dict) else list(shapes)
    sizes: dict = {}
    prefix = f"{message} " if message else ""
    for i, (tensor, spec) in enumerate(items):
        t = tensor.deref() if hasattr(tensor, "deref") else tensor
        t = _to_tensor(t)
        spec = [spec] if isinstance(spec, (str, int)) and spec not in ("...",) else list(spec)
        actual = t.shape.as_list() if t.shape.rank is not None else None
        if actual is None:
            continue
        ellipsis = bool(spec) and (spec[0] is Ellipsis or spec[0] == "...")
        dims = spec[1:] if ellipsis else spec
        if (len(actual) < len(dims)) if ellipsis else (len(actual) != len(dims)):
            raise InvalidArgumentError(
                None, None, f"{prefix}Specified by tensor {_describe(t)} dimension {i}. Tensor "
                f"{_describe(t)} must have rank {len(dims)}{' or more' if ellipsis else ''}. "
                f"Received rank {len(actual)}, shape {t.shape}")
        got = actual[len(actual) - len(dims):]
        for j, (want, have) in enumerate(zip(dims, got)):
            if want is None or want == "." or have is None:
                continue
            if isinstance(want, str):
                want = sizes.setdefault(want, (have, i))[0] if want not in sizes else \
                    sizes[want][0]
                sym = dims[j]
            else:
                sym = None
            if int(want) != have:
                what = f" ({sym!r} = {want})" if sym else ""
                raise InvalidArgumentError(
                    None, None, f"{prefix}Specified by tensor {_describe(t)} dimension "
                    f"{j}{what}. Tensor {_describe(t)} dimension {j} must have size {want}. "
                    f"Received size {have}, shape {t.shape}")
    return None


def assert_all_finite(x: TensorLike, message, name: str | None = None) -> Tensor:
    """``x`` unchanged, after asserting it holds no NaN or Inf (``tw.debugging``).

    Args:
        x: a floating-point tensor.
        message: the error message.
        name: op name in graph mode.

    Returns:
        The same values.
    """
    return check_numerics(x, message, name=name)


def assert_proper_iterable(values: TensorLike) -> None:
    """Raises TypeError if ``values`` is a tensor, array or string instead of an iterable.

    Args:
        values: the object to check.
    """
    if isinstance(values, (Tensor, Variable, np.ndarray, str, bytes)) or \
            not hasattr(values, "__iter__"):
        raise TypeError(f"Expected argument 'values' to be a 'proper' iterable. Found: "
                        f"{type(values)}")


def set_log_device_placement(enabled: bool) -> None:
    """Accepted for compatibility: every op runs on the CPU.

    Args:
        enabled: ignored.
    """


def is_numeric_tensor(tensor: TensorLike) -> bool:
    """True for a tensor of a numeric (int, float, complex) dtype.

    Args:
        tensor: any object.

    Returns:
        Whether it is a numeric tensor.
    """
    return isinstance(tensor, Tensor) and tensor.dtype.is_numeric and not tensor.dtype.is_bool
