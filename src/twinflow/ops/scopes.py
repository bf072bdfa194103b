"""Execution-context helpers of the top-level namespace: init_scope, inside_function,
get_current_name_scope, no_op, group, tuple, identity_n, get_static_value, is_symbolic_tensor."""
from __future__ import annotations

import builtins
import contextlib
from collections.abc import Iterator
from typing import TYPE_CHECKING

import numpy as np

from ..core.context import ctx, graph_mode
from ..eager.execute import constant_value
from ..graph import graph as _graph
from ..graph.core_ops import NoOp
from ..graph.graph import Operation, name_scoped
from ..graph.tensor import SymbolicTensor, Tensor, TensorLike
from .array.shape import identity
from .core import convert

if TYPE_CHECKING:  # (logging loads on first use, not at ``import twinflow``)
    import logging


def _outermost_context():
    """The graph ops would go to outside every function being traced (None: eager)."""
    chain = [ctx.graph] + list(reversed(ctx.graph_stack))
    for g in chain:
        if g is None or not getattr(g, "building_function", False):
            return g
    return None


@contextlib.contextmanager
def init_scope() -> Iterator[None]:
    """Lifts the block out of every function being traced (``tw.init_scope``).

    Inside a ``tw.function`` trace, ops created in the block run eagerly (or go to the
    outermost TF1 graph), without control dependencies and unseen by tapes of the traced
    function: the place to create variables and other state once.

    Returns:
        A context manager.
    """
    target = _outermost_context()
    if target is ctx.graph and target is None:
        yield
        return
    with graph_mode(target):
        if target is None:
            yield
        else:
            with target.control_dependencies(None):
                yield


def inside_function() -> bool:
    """True while a ``tw.function`` is being traced (``tw.inside_function``).

    Returns:
        Whether the graph being built is a function's graph.
    """
    return bool(getattr(ctx.graph, "building_function", False))


def get_current_name_scope() -> str:
    """The current name scope, without a trailing slash (``tw.get_current_name_scope``).

    Returns:
        The scope ("" at the root), eager or in a graph.
    """
    g = ctx.graph
    if g is None:
        scopes = _graph._eager_scopes()
        return scopes[-1] if scopes else ""
    return g.get_name_scope()


def no_op(name: str | None = None) -> Operation | None:
    """An op that does nothing (``tw.no_op``): a target for control dependencies.

    Args:
        name: op name.

    Returns:
        The Operation in graph mode; None eagerly (there is nothing to run).
    """
    g = ctx.graph
    if g is None:
        return None
    return g.create_op(NoOp, [], {}, [], name=name or "NoOp")


def _ops_of(inputs) -> list:
    out = []
    for x in inputs:
        if isinstance(x, (list, builtins.tuple)):  # tw.tuple shadows the builtin here
            out.extend(_ops_of(x))
        elif isinstance(x, SymbolicTensor):
            out.append(x.op)
        elif x is not None and hasattr(x, "outputs") and hasattr(x, "type"):
            out.append(x)  # an Operation
    return out


def group(*inputs, **kwargs) -> Operation | None:
    """An op that runs after all of ``inputs`` (``tw.group``).

    Args:
        *inputs: tensors or operations (nested lists allowed).
        **kwargs: ``name`` only.

    Returns:
        A NoOp in graph mode; None eagerly (everything has already run).
    """
    name = kwargs.pop("name", None)
    if kwargs:
        raise TypeError(f"group: unknown keyword arguments {sorted(kwargs)}")
    g = ctx.graph
    if g is None:
        return None
    with g.control_dependencies(_ops_of(inputs)):
        return g.create_op(NoOp, [], {}, [], name=name or "group_deps")


@name_scoped
def tuple(tensors, control_inputs=None, name: str | None = None) -> list:
    """``tensors``, each available only after all of them (``tw.tuple``).

    Args:
        tensors: a list of tensors (or None).
        control_inputs: more ops or tensors to wait for.

    Returns:
        A list of tensors with the same values (None entries stay None).
    """
    g = ctx.graph
    if g is None:
        return [None if t is None else convert(t) for t in tensors]
    deps = _ops_of(list(tensors) + list(control_inputs or []))
    with g.control_dependencies(deps):
        return [None if t is None else identity(t) for t in tensors]


def guarantee_const(input: TensorLike, name: str | None = None) -> Tensor:
    """Promises that ``input`` is constant during the graph's run (TensorFlow's deprecated hint).

    twinflow's constant folding finds constants itself, so this is the identity.

    Args:
        input: a tensor.
        name: the op name.

    Returns:
        ``input``'s value.
    """
    return identity(convert(input), name=name)


@name_scoped
def identity_n(input, name: str | None = None) -> list:
    """The identity of each tensor of a list (``tw.identity_n``).

    Args:
        input: a list of tensors.

    Returns:
        A list of tensors with the same values.
    """
    return [identity(t) for t in input]


def get_static_value(tensor: TensorLike, partial: bool = False) -> np.ndarray | None:
    """The value of ``tensor`` if known without running a graph (``tw.get_static_value``).

    Args:
        tensor: a tensor or a NumPy-convertible value.
        partial: must be False (partially known values are not supported).

    Returns:
        A NumPy array, or None when the value is only known when the graph runs.
    """
    if partial:
        raise NotImplementedError("get_static_value: partial=True is not supported")
    if isinstance(tensor, Tensor):
        v = constant_value(tensor)
        return None if v is None else np.asarray(v)
    return np.asarray(tensor)


def get_logger() -> logging.Logger:
    """twinflow's logger (``tw.get_logger``; TensorFlow's is named "tensorflow").

    Returns:
        The ``logging.Logger`` named "twinflow".
    """
    import logging  # noqa: PLC0415  (on use: ``import twinflow`` does not load logging)
    return logging.getLogger("twinflow")


def is_symbolic_tensor(tensor) -> bool:
    """True for a tensor of a graph being built (``tw.is_symbolic_tensor``).

    Args:
        tensor: any object.

    Returns:
        Whether it is a symbolic (graph) tensor.
    """
    return isinstance(tensor, SymbolicTensor)


__all__ = ["guarantee_const",
           "init_scope", "inside_function", "get_current_name_scope", "no_op", "group",
           "tuple", "identity_n", "get_static_value", "is_symbolic_tensor", "get_logger"]
