"""``tw.py_function`` and ``tw.numpy_function``: Python code as an op.

The function is kept in a table under a token (the op's attr, as TensorFlow's ``EagerPyFunc``
and ``PyFunc``); the kernel calls it with EagerTensors (py_function) or NumPy arrays
(numpy_function) and checks what it returns against ``Tout``. Output shapes are unknown, as in
TensorFlow. py_function is differentiable: its gradient is another py_function that reruns the
function under a GradientTape (the tape class is installed by ``twinflow/__init__``, because
the tape lives in a layer above the ops).
"""
from __future__ import annotations

import itertools
import threading
from collections.abc import Callable
from typing import Any

import numpy as np

from ..core import dtypes, errors
from ..core.shapes import TensorShape
from ..eager.execute import bind, convert_to_tensor
from ..eager.tensor import EagerTensor
from ..graph.registry import register_op
from ..graph.tensor import Tensor
from .array_ops import zeros_like

_FUNCS: dict = {}
_LOCK = threading.Lock()
_COUNTER = itertools.count()
_TAPE: list = []  # [GradientTape class], set by twinflow/__init__


def register_tape_class(tape_class: type) -> None:
    """Installs the GradientTape class used by py_function's gradient.

    Args:
        tape_class: ``tw.GradientTape``.
    """
    _TAPE[:] = [tape_class]


def _register(func: Callable) -> str:
    with _LOCK:
        token = f"pyfunc_{next(_COUNTER)}"
        _FUNCS[token] = func
    return token


def _check_output(value, dtype, token: str, kind: str, i: int) -> np.ndarray:
    name = getattr(_FUNCS.get(token), "__name__", "function")
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
    func = _FUNCS[token]
    args = [EagerTensor(a) if as_tensors else a for a in inputs]
    out = func(*args)
    outs = list(out) if isinstance(out, (list, tuple)) else ([] if out is None else [out])
    if len(outs) != len(tout):
        raise errors.InvalidArgumentError(
            None, None, f"{kind}: {getattr(func, '__name__', 'function')} returned "
            f"{len(outs)} values where Tout lists {len(tout)}")
    return tuple(_check_output(v, t, token, kind, i) for i, (v, t) in enumerate(zip(outs, tout)))


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
        func = _FUNCS[op.attrs["token"]]
        n = len(xs)

        def vjp(*args):
            inputs, grads = list(args[:n]), list(args[n:])
            with _TAPE[0]() as tape:
                for x in inputs:
                    tape.watch(x)
                out = func(*inputs)
            outs = list(out) if isinstance(out, (list, tuple)) else [out]
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
    if single:  # one output: whatever func returns (a list too) is that one tensor
        one = func

        def func(*args):
            return [one(*args)]
        func.__name__ = getattr(one, "__name__", "function")
    outs = bind(opdef, inputs, {"token": _register(func), "Tout": tout}, name=name)
    outs = list(outs)
    if single:
        return outs[0]
    return outs


def py_function(func: Callable, inp, Tout, name=None) -> Any:  # noqa: N803
    """Runs ``func`` (Python, eager code) as an op, with EagerTensors in and out.

    Works eagerly, inside ``tw.function`` and in ``Dataset.map``; differentiable.

    Args:
        func: the Python function.
        inp: the input tensors (a list).
        Tout: the output dtype, or a list of dtypes (one per output).
        name: the op name.

    Returns:
        A tensor (Tout a dtype) or a list of tensors (Tout a list).
    """
    return _call(EagerPyFunc, func, inp, Tout, name)


def numpy_function(func: Callable, inp, Tout, stateful: bool = True,
                   name=None) -> Any:  # noqa: N803
    """Runs ``func`` as an op with NumPy arrays in and out (not differentiable).

    Args:
        func: the Python function.
        inp: the input tensors (a list).
        Tout: the output dtype, or a list of dtypes.
        stateful: accepted (the op is always kept and run in order).
        name: the op name.

    Returns:
        A tensor (Tout a dtype) or a list of tensors (Tout a list).
    """
    return _call(PyFunc, func, inp, Tout, name)


__all__ = ["numpy_function", "py_function"]
