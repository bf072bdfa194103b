"""Assertions: ``tw.debugging.Assert`` and the assert_* family (eager checks, graph ops)."""
from __future__ import annotations

import numpy as np

from ...core import dtypes
from ...core.context import ctx
from ...core.errors import InvalidArgumentError
from ...core.shapes import TensorShape
from ...eager.execute import bind, constant_value, convert_to_tensor
from ...eager.tensor import EagerTensor
from ...graph.graph import Operation, name_scoped
from ...graph.registry import register_op
from ...graph.tensor import Tensor, TensorLike
from ..dispatch import NOT_FOUND, user_dispatch
from ..math import comparison
from ..math.binary import add, multiply, subtract
from ..math.comparison import less_equal
from ..math.reduce import reduce_all
from ..variables import Variable
from .numerics import _last_op
from .printing import format_tensor


@register_op("Assert", stateful=True, multi_output=True,
             schema="condition:bool, data:T -> | T:list(type); summarize:int")
class AssertOp:
    """Raises InvalidArgumentError unless ``condition`` is true; the message shows ``data``.

    ``template`` (twinflow's attr, not exported) holds one entry per data item: a string, or
    None where a data tensor goes; left out, every item is a data tensor (TensorFlow's op).
    """

    def infer(condition, *data, template=None, summarize=3):
        if not condition.dtype.is_bool:
            raise InvalidArgumentError(None, None, f"Assert needs a bool condition, got "
                                                   f"{condition.dtype.name}")
        return []

    def kernel(condition, *data, template=None, summarize=3):
        if np.all(condition):
            return ()
        items = iter(data)
        parts = [f"[{format_tensor(next(items), summarize) if t is None else t}]"
                 for t in (template or (None,) * len(data))]
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


_ASSERT_APIS = {"==": "assert_equal", "!=": "assert_none_equal", "<": "assert_less",
                "<=": "assert_less_equal", ">": "assert_greater", ">=": "assert_greater_equal"}


def _binary_assert(sym: str, x, y, message, summarize, name):
    try:
        x, y = _pair(x, y)
    except (TypeError, ValueError):  # a user type with a registered assert handler?
        api = globals()[_ASSERT_APIS[sym]]
        out = user_dispatch(api, (x, y), {"message": message, "summarize": summarize,
                                          "name": name}, "assert")
        if out is NOT_FOUND:
            raise
        return out
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
    cond = reduce_all(getattr(comparison, op_name)(x, y))
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


def _assert_doc(summary: str, args: str) -> str:
    """The docstring of an assert_* function: ``args`` documents what comes before ``message``."""
    return f"""{summary}

    Args:
        {args}
        message: text prepended to the error.
        summarize: elements to show in the error.
        name: op name in graph mode.

    Returns:
        None eagerly (raises InvalidArgumentError if false); the Assert op in a graph.
    """


def _comparison_assert(fn_name: str, sym: str):
    """``tw.debugging.<fn_name>(x, y, ...)``: asserts ``x <sym> y`` element-wise."""
    def fn(x: TensorLike, y: TensorLike, message: str | None = None,
           summarize: int | None = None, name: str | None = None) -> Operation | None:
        return _binary_assert(sym, x, y, message, summarize, name)
    fn.__name__ = fn.__qualname__ = fn_name
    fn.__doc__ = _assert_doc(f"Asserts ``x {sym} y`` element-wise (``tw.debugging.{fn_name}``).",
                             "x: a tensor (or value convertible to one).\n        y: a tensor of "
                             "the same dtype, broadcastable with ``x``.")
    return fn


def assert_none_equal(x: TensorLike, y: TensorLike, summarize: int | None = None,
                      message: str | None = None, name: str | None = None) -> Operation | None:
    """Asserts ``x != y`` element-wise (``tw.debugging.assert_none_equal``; TensorFlow puts
    ``summarize`` before ``message`` here only).

    Args:
        x: a tensor (or value convertible to one).
        y: a tensor of the same dtype, broadcastable with ``x``.
        summarize: elements to show in the error.
        message: text prepended to the error.
        name: op name in graph mode.

    Returns:
        None eagerly (raises InvalidArgumentError if false); the Assert op in a graph.
    """
    return _binary_assert("!=", x, y, message, summarize, name)


assert_equal = _comparison_assert("assert_equal", "==")
assert_less = _comparison_assert("assert_less", "<")
assert_less_equal = _comparison_assert("assert_less_equal", "<=")
assert_greater = _comparison_assert("assert_greater", ">")
assert_greater_equal = _comparison_assert("assert_greater_equal", ">=")


def _sign_assert(x, sym: str, what: str, message, summarize, name):
    x = _to_tensor(x)
    zero = convert_to_tensor(np.zeros((), x.dtype.np))
    msg = message if message is not None else f"x must be {what}"
    if sym in ("<", "<="):
        return _binary_assert(">" if sym == "<" else ">=", zero, x, msg, summarize, name)
    return _binary_assert("<" if sym == ">" else "<=", zero, x, msg, summarize, name)


def _sign_assert_function(fn_name: str, sym: str, what: str):
    """``tw.debugging.<fn_name>(x, ...)``: asserts ``x <sym> 0`` element-wise."""
    def fn(x: TensorLike, message: str | None = None, summarize: int | None = None,
           name: str | None = None) -> Operation | None:
        return _sign_assert(x, sym, what, message, summarize, name)
    fn.__name__ = fn.__qualname__ = fn_name
    fn.__doc__ = _assert_doc(f"Asserts ``x {sym} 0`` element-wise (``tw.debugging.{fn_name}``).",
                             "x: a numeric tensor (or value convertible to one).")
    return fn


assert_positive = _sign_assert_function("assert_positive", ">", "positive")
assert_negative = _sign_assert_function("assert_negative", "<", "negative")
assert_non_negative = _sign_assert_function("assert_non_negative", ">=", "non-negative")
assert_non_positive = _sign_assert_function("assert_non_positive", "<=", "non-positive")


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
    diff = abs(subtract(x, y))
    tol = add(convert_to_tensor(np.asarray(atol, x.dtype.np)),
                       multiply(convert_to_tensor(np.asarray(rtol, x.dtype.np)),
                                         abs(y)))
    cond = reduce_all(less_equal(diff, tol))
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


@name_scoped
def assert_rank(x: TensorLike, rank, message: str | None = None, name: str | None = None) -> None:
    """Asserts that ``x`` has rank ``rank`` (checked on the static shape).

    Args:
        x: a tensor.
        rank: the expected rank (int or scalar int tensor with a known value).
        message: text prepended to the error.

    Returns:
        None.
    """
    x = _to_tensor(x)
    r = int(np.asarray(_static(_to_tensor(rank)) if isinstance(rank, Tensor) else rank))
    _static_rank_check(x, lambda k: k == r, f"rank {r}", message)
    return None


@name_scoped
def assert_rank_at_least(x: TensorLike, rank, message: str | None = None,
                         name: str | None = None) -> None:
    """Asserts that ``x`` has rank at least ``rank`` (checked on the static shape).

    Args:
        x: a tensor.
        rank: the minimum rank (an int).
        message: text prepended to the error.

    Returns:
        None.
    """
    x = _to_tensor(x)
    r = int(np.asarray(rank))
    _static_rank_check(x, lambda k: k >= r, f"rank at least {r}", message)
    return None


@name_scoped
def assert_scalar(tensor: TensorLike, message: str | None = None,
                  name: str | None = None) -> Tensor:
    """Asserts that ``tensor`` is a scalar; returns it.

    Args:
        tensor: a tensor.
        message: text prepended to the error.

    Returns:
        The tensor.
    """
    t = _to_tensor(tensor)
    _static_rank_check(t, lambda k: k == 0, "rank 0", message)
    return t


@name_scoped
def assert_type(tensor: TensorLike, tf_type, message: str | None = None,
                name: str | None = None) -> None:
    """Asserts that ``tensor`` has dtype ``tf_type`` (raises TypeError otherwise).

    Args:
        tensor: a tensor or variable.
        tf_type: the expected dtype.
        message: text prepended to the error.

    Returns:
        None.
    """
    dt = dtypes.as_dtype(tf_type)
    actual = tensor.dtype if isinstance(tensor, (Tensor, Variable)) else _to_tensor(tensor).dtype
    if actual is not dt:
        raise TypeError(f"{message + ' ' if message else ''}{_describe(tensor)} must be of type "
                        f"{dt!r}; got {actual!r}")
    return None


@name_scoped
def assert_integer(x: TensorLike, message: str | None = None, name: str | None = None) -> None:
    """Asserts that ``x`` has an integer dtype (raises TypeError otherwise).

    Args:
        x: a tensor or variable.
        message: text prepended to the error.

    Returns:
        None.
    """
    dt = x.dtype if isinstance(x, (Tensor, Variable)) else _to_tensor(x).dtype
    if not dt.is_integer:
        raise TypeError(f"{message + ' ' if message else ''}Expected {_describe(x)} to be "
                        f"integer, got {dt.name}")
    return None


@name_scoped
def assert_shapes(shapes, data: TensorLike | None = None, summarize: int | None = None,
                  message: str | None = None, name: str | None = None) -> None:
    """Asserts tensor shapes and consistent symbolic dimensions across tensors.

    Each entry pairs a tensor with a shape: ints, symbol strings (``'N'``) that must stand for
    one size everywhere, ``None`` or ``'.'`` for any size, and a leading ``'...'`` (or
    ``Ellipsis``) for any number of leading dimensions.

    Args:
        shapes: a dict or list of ``(tensor, shape)`` pairs.
        data: a hint that changes nothing: TensorFlow prints these tensors in its error
            message (twinflow's names the tensors and shapes).
        summarize: a hint that changes nothing: how many entries of ``data`` TensorFlow
            prints.
        message: text prepended to the error.

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


def assert_proper_iterable(values: TensorLike) -> None:
    """Raises TypeError if ``values`` is a tensor, array or string instead of an iterable.

    Args:
        values: the object to check.
    """
    if isinstance(values, (Tensor, Variable, np.ndarray, str, bytes)) or \
            not hasattr(values, "__iter__"):
        raise TypeError(f"Expected argument 'values' to be a 'proper' iterable. Found: "
                        f"{type(values)}")


