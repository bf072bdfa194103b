"""``tw.py_function`` and ``tw.numpy_function``: Python code as an op.

The function is kept in a table under a token (the op's attr, as TensorFlow's ``EagerPyFunc``
and ``PyFunc``); the kernel calls it with EagerTensors (py_function) or NumPy arrays
(numpy_function) and checks what it returns against ``Tout``. Output shapes are unknown, as in
TensorFlow. py_function is differentiable: its gradient is another py_function that reruns the
function under a GradientTape (the tape class is installed by ``twinflow/__init__``, because
the tape lives in a layer above the ops).
"""
from __future__ import annotations

import functools
import itertools
import threading
import weakref
from collections.abc import Callable
from typing import Any

import numpy as np

from ..core import dtypes, errors
from ..core.context import ctx
from ..core.shapes import TensorShape
from ..eager.execute import bind, convert_to_tensor
from ..eager.tensor import EagerTensor
from ..graph.registry import register_op
from ..graph.tensor import Tensor
from .array_ops import zeros_like

# The function table, as TensorFlow's py_func registry: token -> (weak reference to the
# function, single). An entry lives as long as its function: while something holds the
# function, its token is reused; when it dies, the entry goes. Who holds it: the caller during
# an eager call; a graph being built (``Graph._py_funcs``, as TensorFlow's graph keeps its
# py_funcs); and the op's ``token`` attr itself (a ``_Token``), so an eager op a GradientTape
# recorded keeps its function while the tape may need it for the gradient.
_FUNCS: dict = {}
_TOKENS: dict = {}  # (id(function), single) -> token, while the function lives
_LOCK = threading.Lock()
_COUNTER = itertools.count()
_TAPE: list = []  # [GradientTape class], set by twinflow/__init__


class _Token(str):
    """An op's ``token`` attr: the table's key, holding its function (``target``) strongly."""

    target: Any


class _Holder:
    """A function that cannot be weakly referenced (``np.sin``), held for one op: its entry
    lives as long as the op's token (or the graph) holds this holder."""

    __slots__ = ("func", "__weakref__")

    def __init__(self, func: Callable) -> None:
        self.func = func


def register_tape_class(tape_class: type) -> None:
    """Installs the GradientTape class used by py_function's gradient.

    Args:
        tape_class: ``tw.GradientTape``.
    """
    _TAPE[:] = [tape_class]


def _forget(token: str, key) -> Callable:
    def drop(_ref) -> None:  # runs when the function dies; dict.pop is atomic, no lock
        _FUNCS.pop(token, None)
        if key is not None and _TOKENS.get(key) == token:
            _TOKENS.pop(key, None)
    return drop


def _register(func: Callable, single: bool) -> _Token:
    """The token of ``func`` (a new one unless ``func`` is registered already), holding it."""
    try:
        target, key = func, (id(func), single)
        weakref.ref(func)
    except TypeError:
        target, key = _Holder(func), None
    with _LOCK:
        token = _TOKENS.get(key) if key is not None else None
        if token is None:
            token = f"pyfunc_{next(_COUNTER)}"
            _FUNCS[token] = (weakref.ref(target, _forget(token, key)), single)
            if key is not None:
                _TOKENS[key] = token
    out = _Token(token)
    out.target = target
    graph = ctx.graph
    if graph is not None:
        graph._py_funcs[token] = target
    return out


def lookup_function(token: str) -> tuple:
    """The Python function registered under ``token`` and whether its one output is ``Tout``.

    Args:
        token: the ``token`` attr of an ``EagerPyFunc`` or ``PyFunc`` op.

    Returns:
        ``(function, single)``.

    Raises:
        InvalidArgumentError: no live function has this token (its graph was deleted).
    """
    entry = _FUNCS.get(token)
    target = entry[0]() if entry is not None else None
    if target is None:
        raise errors.InvalidArgumentError(
            None, None, f"py_function: the Python function of token {str(token)!r} no longer "
            "exists (the graph or function that held it was deleted)")
    return (target.func if isinstance(target, _Holder) else target), entry[1]


def _check_output(value, dtype, name: str, kind: str, i: int) -> np.ndarray:
    if isinstance(value, EagerTensor):
        a = np.asarray(value._value)
    elif isinstance(value, Tensor):
        raise errors.InvalidArgumentError(None, None, f"{kind}: {name} returned a symbolic "
                                          "tensor")
    elif isinstance(value, (np.ndarray, np.generic)):
        a = np.asarray(value)
    else:  # Python values take Tout's dtype, as TensorFlow converts them
        try:
            return np.asarray(convert_to_tensor(value, dtype)._value)
        except (TypeError, ValueError) as e:
            raise errors.InvalidArgumentError(
                None, None, f"{kind}: output {i} of {name} ({value!r}) cannot be converted to "
                f"{dtype.name}: {e}") from None
    got = dtypes.from_numpy(a.dtype)
    if got is not dtype:
        raise errors.InvalidArgumentError(
            None, None, f"{kind}: {name} returned {got.name} for output {i} where Tout says "
            f"{dtype.name}")
    return a


def _run(token: str, inputs: tuple, tout: tuple, kind: str, as_tensors: bool) -> tuple:
    func, single = lookup_function(token)
    name = getattr(func, "__name__", "function")
    args = [EagerTensor(a) if as_tensors else a for a in inputs]
    out = func(*args)
    if single:  # one output: whatever func returns (a list too) is that one tensor
        outs = [out]
    else:
        outs = list(out) if isinstance(out, (list, tuple)) else ([] if out is None else [out])
    if len(outs) != len(tout):
        raise errors.InvalidArgumentError(
            None, None, f"{kind}: {name} returned {len(outs)} values where Tout lists "
            f"{len(tout)}")
    return tuple(_check_output(v, t, name, kind, i) for i, (v, t) in enumerate(zip(outs, tout)))


@register_op("EagerPyFunc", stateful=True, multi_output=True)
class EagerPyFunc:
    """Calls the Python function registered under ``token`` with EagerTensors."""

    def infer(*inputs, token, Tout):  # noqa: N803  (TensorFlow's attr name)
        return [(t, TensorShape(None)) for t in Tout]

    def kernel(*inputs, token, Tout):  # noqa: N803
        return _run(token, inputs, Tout, "py_function", True)

    def grad(op, *dys):
        xs = list(op.inputs)
        floating = [x.dtype.is_floating or x.dtype.is_complex for x in xs]
        if not any(floating) or not _TAPE:
            return [None] * len(xs)
        func, single = lookup_function(op.attrs["token"])
        n = len(xs)

        def vjp(*args):
            inputs, grads = list(args[:n]), list(args[n:])
            with _TAPE[0]() as tape:
                for x in inputs:
                    tape.watch(x)
                out = func(*inputs)
            outs = [out] if single or not isinstance(out, (list, tuple)) else list(out)
            gs = tape.gradient(outs, inputs, output_gradients=grads[:len(outs)])
            return [g if g is not None else EagerTensor(np.zeros_like(x._value))
                    for g, x in zip(gs, inputs)]
        dys = [dy if dy is not None else zeros_like(y) for dy, y in zip(dys, op.outputs)]
        gs = py_function(vjp, xs + list(dys), [x.dtype for x in xs])
        return [g if f else None for g, f in zip(gs, floating)]


@register_op("PyFunc", stateful=True, multi_output=True)
class PyFunc:
    """Calls the Python function registered under ``token`` with NumPy arrays."""

    def infer(*inputs, token, Tout):  # noqa: N803
        return [(t, TensorShape(None)) for t in Tout]

    def kernel(*inputs, token, Tout):  # noqa: N803
        return _run(token, inputs, Tout, "numpy_function", False)


def _call(opdef, func: Callable, inp, Tout, name) -> object:  # noqa: N803
    if not callable(func):
        raise TypeError(f"expected a callable, got {func!r}")
    single = not isinstance(Tout, (list, tuple))
    tout = tuple(dtypes.as_dtype(t) for t in ([Tout] if single else Tout))
    inputs = [convert_to_tensor(x) for x in (inp or [])]
    outs = bind(opdef, inputs, {"token": _register(func, single), "Tout": tout}, name=name)
    outs = list(outs)
    if single:
        return outs[0]
    return outs


def _decorator_or_call(opdef, what: str, func, inp, Tout, name) -> Any:  # noqa: N803
    """``func`` given: runs it as ``opdef``. ``func`` None: a decorator whose function runs
    as ``opdef`` on its positional arguments (TensorFlow's ``@tf.py_function(Tout=...)``)."""
    if Tout is None:
        raise TypeError(f"Missing required argument: 'Tout' (as a decorator: "
                        f"@tw.{what}(Tout=...))")
    if func is not None:
        if inp is None:
            raise TypeError(f"tw.{what}: missing argument `inp` (the list of the function's "
                            "arguments), needed unless it is used as a decorator")
        return _call(opdef, func, inp, Tout, name)
    if inp is not None:
        raise TypeError(f"tw.{what}: don't set `inp` when using it as a decorator "
                        "(func=None)")

    def decorator(fun: Callable) -> Callable:
        @functools.wraps(fun)
        def wrapper(*args):
            return _call(opdef, fun, args, Tout, name)
        return wrapper
    return decorator


def py_function(func: Callable | None = None, inp=None, Tout=None,  # noqa: N803
                name: str | None = None) -> Any:
    """Runs ``func`` (Python, eager code) as an op, with EagerTensors in and out.

    Works eagerly, inside ``tw.function`` and in ``Dataset.map``; differentiable. With
    ``func`` None it is a decorator: ``@tw.py_function(Tout=tw.float32)``.

    Args:
        func: the Python function; None: return a decorator.
        inp: the input tensors (a list); not set for a decorator.
        Tout: the output dtype, or a list of dtypes (one per output).
        name: the op name.

    Returns:
        A tensor (Tout a dtype) or a list of tensors (Tout a list); a decorator if ``func``
        is None.
    """
    return _decorator_or_call(EagerPyFunc, "py_function", func, inp, Tout, name)


def numpy_function(func: Callable | None = None, inp=None, Tout=None,  # noqa: N803
                   stateful: bool = True, name: str | None = None) -> Any:
    """Runs ``func`` as an op with NumPy arrays in and out (not differentiable).

    With ``func`` None it is a decorator: ``@tw.numpy_function(Tout=tw.float32)``.

    Args:
        func: the Python function; None: return a decorator.
        inp: the input tensors (a list); not set for a decorator.
        Tout: the output dtype, or a list of dtypes.
        stateful: accepted (the op is always kept and run in order, the stateful
            behaviour; a stateless function gives the same results run that way).
        name: the op name.

    Returns:
        A tensor (Tout a dtype) or a list of tensors (Tout a list); a decorator if ``func``
        is None.
    """
    return _decorator_or_call(PyFunc, "numpy_function", func, inp, Tout, name)


__all__ = ["numpy_function", "py_function"]
