"""``tw.custom_gradient``: a function that supplies its own gradient.

The decorated ``f`` runs with every tape paused (a variable watcher takes their place, so the
variables ``f`` reads are known). Its results then pass through one ``CustomGradient`` op whose
inputs are those results, ``f``'s tensor arguments and the handles of the variables it read; the
op's gradient rule calls the user's ``grad_fn``. Tapes therefore see ``y = CustomGradient(x)``
instead of ``f``'s internals, eagerly and in graphs alike. ``grad_fn`` is written with twinflow
ops, so tapes that record while it runs get its ops, which gives higher-order gradients.
"""
from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

from ..core import nest
from ..core.context import ctx
from ..eager.execute import bind, convert_to_tensor
from ..graph.registry import register_op
from ..graph.tensor import Tensor
from ..ops.core import ZerosLike
from ..ops.variables import Variable

__all__ = ["custom_gradient", "CustomGradient"]


@register_op("CustomGradient", multi_output=True)
class CustomGradient:
    """Passes its first ``n_out`` inputs through; differentiated by the user's ``grad_fn``.

    Inputs: ``f``'s results, then ``f``'s tensor arguments, then handles of variables it read.
    """

    def infer(*inputs, n_out, grad_fn):
        return [(t.dtype, t.shape) for t in inputs[:n_out]]

    def kernel(*args, n_out, grad_fn):
        return tuple(args[:n_out])

    def grad(op, *dys):
        return op.attrs["grad_fn"](op, dys)


class _VariableWatcher:
    """Stands in for the tapes while ``f`` runs: notes which trainable variables it reads."""

    def __init__(self, graph) -> None:
        self.graph = graph
        self.variables: list = []

    def record(self, op) -> None:
        accessed = op.opdef.accessed_variable
        var = accessed(op) if accessed is not None else None
        if isinstance(var, Variable) and var.trainable \
                and all(var is not v for v in self.variables):
            self.variables.append(var)


def custom_gradient(f: Callable | None = None) -> Callable[..., Any]:
    """Decorator: ``f(*args)`` returns ``(y, grad_fn)``; tapes use ``grad_fn`` for ``y``.

    ``grad_fn(*dys)`` returns one gradient per argument of ``f`` (None where there is none). If
    ``f`` reads variables that are not its arguments, ``grad_fn`` must accept ``variables=`` and
    return ``(input_grads, variable_grads)``.

    Args:
        f: the function to decorate.

    Returns:
        The decorated function, which returns ``y``.
    """
    if f is None:
        return custom_gradient

    @functools.wraps(f)
    def decorated(*args, **kwargs):
        return _call(f, args, kwargs)

    return decorated


def _call(f: Callable, args: tuple, kwargs: dict):
    if ctx.graph is None and not ctx.tapes:
        # Nothing can differentiate this call: skip the bookkeeping.
        result, _ = f(*args, **kwargs)
        return result
    watcher = _VariableWatcher(ctx.graph)
    saved = ctx.tapes
    ctx.tapes = [watcher]
    ctx.refresh()
    try:
        result, grad_fn = f(*args, **kwargs)
    finally:
        ctx.tapes = saved
        ctx.refresh()
    flat_args = nest.flatten(args) + nest.flatten(kwargs)
    variables = [v for v in watcher.variables if all(v is not a for a in flat_args)]
    if variables and not _accepts_variables(grad_fn):
        raise TypeError("@tw.custom_gradient grad_fn must accept keyword argument 'variables', "
                        f"since function uses variables: {[v.name for v in variables]}")
    inputs, positions = [], []
    for i, a in enumerate(flat_args):
        if isinstance(a, Variable):
            inputs.append(a.read_value())  # recorded by tapes that watch accessed variables
        elif isinstance(a, Tensor):
            inputs.append(a)
        else:
            continue
        positions.append(i)
    flat_result = [r if isinstance(r, Tensor) else convert_to_tensor(r)
                   for r in nest.flatten(result)]
    n_out = len(flat_result)
    n_args = len(flat_args)
    trace_graph = ctx.graph

    def actual_grad_fn(op, dys):
        if trace_graph is None or op.graph is trace_graph:
            return _grads(op, dys)
        # A tw.function's gradient is traced on a copy of its graph: tensors of the traced
        # graph that ``grad_fn`` closes over stand for their copies there (same op names).
        g = op.graph
        g.foreign_alias = functools.partial(_copy_of, trace_graph, g)
        try:
            return _grads(op, dys)
        finally:
            g.foreign_alias = None

    def _grads(op, dys):
        dys = [dy if dy is not None else bind(ZerosLike, [op.outputs[i]])
               for i, dy in enumerate(dys)]
        if variables:
            input_grads, variable_grads = grad_fn(*dys, variables=variables)
            variable_grads = list(variable_grads)
            if len(variable_grads) != len(variables):
                raise ValueError("Must return gradient for each variable from "
                                 "@tw.custom_gradient grad_fn.")
        else:
            input_grads = grad_fn(*dys)
            variable_grads = []
        flat = [input_grads] if input_grads is None else nest.flatten(input_grads)
        if len(flat) == n_args:
            picked = [flat[i] for i in positions]
        elif len(flat) == len(inputs):
            picked = flat
        else:
            raise ValueError(f"custom_gradient function expected to return {n_args} gradients, "
                             f"but returned {len(flat)} instead.")
        grads = [None if g is None else _as_grad(g, t) for g, t in zip(picked, inputs)]
        return [None] * n_out + grads + [None if g is None else convert_to_tensor(g)
                                         for g in variable_grads]

    outs = bind(CustomGradient, flat_result + inputs + [v.handle for v in variables],
                {"n_out": n_out, "grad_fn": actual_grad_fn})
    return nest.pack_sequence_as(result, list(outs))


def _copy_of(trace_graph, graph, t):
    """The tensor of ``graph`` copied from ``t`` of ``trace_graph`` (None if none)."""
    if t.graph is not trace_graph:
        return None
    try:
        op = graph.get_operation_by_name(t.op.name)
    except KeyError:
        return None
    if op.type != t.op.type and t.op.type != "Placeholder" or t.value_index >= len(op.outputs):
        return None
    out = op.outputs[t.value_index]
    return out if out.dtype == t.dtype else None


def _as_grad(g, like: Tensor) -> Tensor:
    if isinstance(g, Tensor):
        return g
    return convert_to_tensor(g, dtype=like.dtype)


def _accepts_variables(fn: Callable) -> bool:
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return True
    return any(p.name == "variables" or p.kind is inspect.Parameter.VAR_KEYWORD for p in params)
