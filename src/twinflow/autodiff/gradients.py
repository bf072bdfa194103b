"""``tw.gradients``: symbolic gradients of tensors of the graph being built.

Inside a ``tw.function`` (or a TF1 graph) every op is already in the graph, so no tape is needed:
``backprop`` walks the graph's operations in creation order.
"""
from __future__ import annotations

from ..core import nest
from ..core.context import ctx
from ..graph.graph import name_scoped
from ..graph.tensor import Tensor
from .tape import UnconnectedGradients, _unconnected, backprop

__all__ = ["gradients"]


@name_scoped
def gradients(ys, xs, grad_ys=None, name="gradients", gate_gradients=False, aggregation_method=None,
              stop_gradients=None,
              unconnected_gradients=UnconnectedGradients.NONE) -> list[Tensor | None]:
    """The symbolic derivatives of ``sum(ys)`` with respect to each of ``xs``.

    Args:
        ys: a tensor or list of tensors of the graph being built.
        xs: a tensor/variable or list of them.
        grad_ys: optional initial gradients, one per ``ys``.
        gate_gradients: a hint that changes nothing: TensorFlow's ordering of the gradient
            computations (twinflow's run in one order; the values are the same).
        aggregation_method: a hint that changes nothing: how TensorFlow sums the gradients
            reaching a tensor (twinflow adds them; the values are the same up to rounding).
        stop_gradients: tensors held constant: no gradient passes through the ops that
            produce them (as TensorFlow, op by op).
        unconnected_gradients: ``'none'`` (default) or ``'zero'``.

    Returns:
        A list with one gradient (or None) per ``xs``.
    """
    g = ctx.graph
    if g is None:
        raise RuntimeError("tw.gradients is not supported when eager execution is enabled. "
                           "Use tw.GradientTape instead.")
    flat_ys = nest.flatten(ys)
    flat_xs = nest.flatten(xs)
    seeds = [None] * len(flat_ys) if grad_ys is None else nest.flatten(grad_ys)
    if len(seeds) != len(flat_ys):
        raise ValueError(f"Passed {len(seeds)} grad_ys for {len(flat_ys)} ys")
    stops = frozenset(id(t.op) for t in nest.flatten(stop_gradients or [])
                      if getattr(t, "op", None) is not None)
    return backprop(g.get_operations(), flat_ys, flat_xs, seeds,
                    _unconnected(unconnected_gradients), stops)
