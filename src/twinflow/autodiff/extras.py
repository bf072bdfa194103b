"""Gradient utilities of TensorFlow's top level: ``tw.RegisterGradient``, ``tw.no_gradient``,
``tw.AggregationMethod``, ``tw.hessians``, ``tw.grad_pass_through``, ``tw.recompute_grad``."""
from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Any

from ..core import nest
from ..graph.registry import get_op
from ..graph.tensor import Tensor
from ..ops import array_ops
from .custom_gradient import custom_gradient
from .gradients import gradients
from .tape import GradientTape

__all__ = ["AggregationMethod", "RegisterGradient", "no_gradient", "hessians",
           "grad_pass_through", "recompute_grad"]

_LOCK = threading.Lock()


class AggregationMethod:
    """How gradients reaching one tensor from several consumers are summed.

    twinflow always sums them with one ``AddN`` (TensorFlow's ``ADD_N``); the other names are
    accepted by ``tw.gradients`` as TensorFlow's are, and give the same values.
    """

    ADD_N = 0
    DEFAULT = ADD_N
    EXPERIMENTAL_TREE = 1
    EXPERIMENTAL_ACCUMULATE_N = 2


def _set_gradient(op_type: str, fn: Callable) -> None:
    try:
        opdef = get_op(op_type)
    except (KeyError, LookupError):
        raise KeyError(f"Cannot register a gradient for {op_type!r}: twinflow has no op of "
                       "that type") from None
    with _LOCK:
        if opdef.grad is not None:
            raise KeyError(f"Registering two gradient with name '{op_type}'! "
                           f"(Previous registration was in twinflow's declaration of {op_type})")
        opdef.grad = fn


class RegisterGradient:
    """Decorator that declares the gradient of an op type that has none.

    ``@tw.RegisterGradient("OpType")`` on ``grad(op, *dys)`` (one gradient per input) makes
    tapes and ``tw.gradients`` use it for that op type. As in TensorFlow, registering an op type
    that already has a gradient raises ``KeyError``.
    """

    def __init__(self, op_type: str) -> None:
        """Starts a registration.

        Args:
            op_type: the op type's name.
        """
        if not isinstance(op_type, str):
            raise TypeError("op_type must be a string")
        self._op_type = op_type

    def __call__(self, f: Callable) -> Callable:
        """Registers ``f`` as the gradient.

        Args:
            f: ``f(op, *output_grads)`` returning one gradient (or None) per input of ``op``.

        Returns:
            ``f`` itself.
        """
        _set_gradient(self._op_type, f)
        return f


def no_gradient(op_type: str) -> None:
    """Declares that an op type is not differentiable: its inputs get no gradient (None).

    Args:
        op_type: the op type's name (``"Size"``...).

    Returns:
        None.
    """
    if not isinstance(op_type, str):
        raise TypeError("op_type must be a string")
    _set_gradient(op_type, lambda op, *dys: [None] * len(op.inputs))


def hessians(ys, xs, gate_gradients=False, aggregation_method=None, name="hessians") -> list:
    """The Hessian of ``sum(ys)`` with respect to each of ``xs`` (graph mode, as TensorFlow's).

    Args:
        ys: a tensor or list of tensors of the graph being built.
        xs: a tensor or list of tensors, each of fully known shape.
        gate_gradients: as for ``tw.gradients``.
        aggregation_method: as for ``tw.gradients``.
        name: the name scope.

    Returns:
        One tensor per ``xs``, of shape ``x.shape + x.shape`` (None where ``ys`` do not depend
        on it).
    """
    xs = nest.flatten(xs)
    firsts = gradients(ys, xs, name=name, gate_gradients=gate_gradients,
                       aggregation_method=aggregation_method)
    out = []
    for x, g in zip(xs, firsts):
        if g is None:
            out.append(None)
            continue
        shape = x.shape
        if not shape.is_fully_defined():
            raise ValueError(f"tw.hessians needs fully defined shapes; {x.name} has shape "
                             f"{shape}")
        n = shape.num_elements()
        flat = array_ops.reshape(g, [n])
        rows = []
        for i in range(n):
            row = gradients(flat[i], x, name=name)[0]
            rows.append(array_ops.zeros_like(x) if row is None else row)
        out.append(array_ops.reshape(array_ops.stack(rows), shape.as_list() * 2))
    return out


def grad_pass_through(f: Callable) -> Callable:
    """Wraps ``f`` so that its gradient is the identity: ``dy`` flows to its inputs unchanged.

    Args:
        f: a function of tensors returning tensors shaped like its inputs.

    Returns:
        The wrapped function.
    """
    @custom_gradient
    def passed(*args, **kwargs):
        def grad(*dys, variables=None):
            if variables is not None:
                return list(dys), [None] * len(variables)
            return dys if len(dys) > 1 else dys[0]
        return f(*args, **kwargs), grad

    return functools.wraps(f)(passed)


def recompute_grad(f: Callable) -> Callable:
    """Wraps ``f`` so that its intermediate values are recomputed for the gradient, not kept.

    Args:
        f: a function of tensors (it may read variables).

    Returns:
        The wrapped function, with the same value and gradients as ``f``.
    """
    @custom_gradient
    def inner(*args, **kwargs):
        result = f(*args, **kwargs)

        def grad(*dys, variables=None):
            watched = [array_ops.identity(a) if isinstance(a, Tensor) else a for a in args]
            tensors = [a for a in watched if isinstance(a, Tensor)]
            with GradientTape() as tape:
                tape.watch(tensors)
                if variables:
                    tape.watch(variables)
                again = f(*watched, **kwargs)
            sources = tensors + list(variables or [])
            grads = tape.gradient(again, sources, output_gradients=list(dys))
            arg_grads: list[Any] = []
            k = 0
            for a in watched:
                if isinstance(a, Tensor):
                    arg_grads.append(grads[k])
                    k += 1
                else:
                    arg_grads.append(None)
            if variables is not None:
                return arg_grads, grads[len(tensors):]
            return arg_grads if len(arg_grads) > 1 else arg_grads[0]
        return result, grad

    return functools.wraps(f)(inner)
