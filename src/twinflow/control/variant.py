"""Variant values: Python objects carried by ``variant`` tensors inside graphs.

Loop histories (``compiler.loops.History``) and tensor lists (``TensorList``, behind
``tw.TensorArray`` in graphs) are immutable Python objects. Their gradients are objects of the
same kind where ``None`` stands for zeros, so that ``+`` (AddN) and ``zeros_like`` are all
backprop needs.
"""
from __future__ import annotations

import numpy as np

from ..core import dtypes
from ..core.context import ctx
from ..eager.execute import bind, constant
from ..graph.registry import register_op
from ..ops.core import ZerosLike
from ..ops.variables import ReadVariableOp, variable_of


@register_op("VariantZerosLike")
class VariantZerosLike:
    """The zero gradient of a variant value (a History or TensorList of Nones)."""

    def infer(x):
        return x.dtype, x.shape

    def kernel(x):
        return x.zeros_like()

    def grad(op, dy):
        return None


def zeros_for(t, spec=None):
    """Zeros shaped like the gradient of tensor ``t`` (variant tensors included).

    Args:
        t: the tensor.
        spec: (dtype, TensorShape) of the gradient when it is not ``t``'s own (a variable's
            resource handle: the variable's dtype and shape).

    Returns:
        The zeros tensor.
    """
    if spec is not None:
        dt, shape = spec
        if not shape.is_fully_defined():
            raise ValueError(f"the gradient of a variable of unknown shape {shape} read inside "
                             "control flow is not supported")
        return constant(np.zeros(shape.as_list(), dt.np))
    if t.dtype is dtypes.variant:
        return bind(VariantZerosLike, [t])
    return bind(ZerosLike, [t])


def carries_gradient(dt) -> bool:
    """True for dtypes whose tensors get gradients through control flow (floats, complex and
    the variant TensorLists holding them)."""
    return dt.is_differentiable or dt is dtypes.variant


def grad_spec(t, inner: list = ()):
    """(dtype, TensorShape) of the gradient of op input ``t``, or None when not differentiable.

    A variable's resource handle has the variable's gradient (reads inside a branch or loop
    body are differentiated through the handle).

    Args:
        t: the op input.
        inner: the sub-graph placeholders ``t`` is fed to (to find the variable's reads when
            ``t`` no longer leads back to the Variable, e.g. in a copied program).
    """
    dt = t.dtype
    if carries_gradient(dt):
        return dt, t.shape
    if dt is dtypes.resource:
        var = variable_of(t)
        if var is not None:
            return (var.dtype, var._shape_static) if var.dtype.is_differentiable else None
        spec = _read_spec(list(inner))
        if spec is not None and spec[0].is_differentiable:
            return spec
    return None


def _read_spec(phs: list, depth: int = 0):
    """The (dtype, shape) a ReadVariableOp of one of the handle placeholders ``phs`` reads,
    looking into nested control flow."""
    if depth > 16:
        return None
    for ph in phs:
        for op in ph.graph.get_operations():
            ks = [k for k, x in enumerate(op.inputs) if x is ph]
            if not ks:
                continue
            if op.type == "ReadVariableOp":
                return op.attrs["dtype"], op.outputs[0].shape
            for k in ks:
                found = _read_spec(_inner_inputs(op, k), depth + 1)
                if found is not None:
                    return found
    return None


def _inner_inputs(op, k: int) -> list:
    """The sub-graph placeholders that input ``k`` of control-flow ``op`` is fed to."""
    a = op.attrs
    if op.type in ("If", "StatelessIf") and k >= 1:
        return [a["then_branch"].inputs[k - 1], a["else_branch"].inputs[k - 1]]
    if op.type in ("Case", "StatelessCase") and k >= 1:
        return [g.inputs[k - 1] for g in a["branches"]]
    if op.type in ("While", "StatelessWhile"):
        n, has = a["n_vars"], int(a["has_max"])
        if k >= n + has:
            j = k - has
            return [a["cond"].inputs[j], a["body"].inputs[j]]
    return []


def watch_variables(inputs: list) -> None:
    """Reads (in the graph being built) the trainable variables behind resource ``inputs``,
    so that active tapes watch their handles and record the op taking them."""
    if not ctx.tapes:
        return
    for t in inputs:
        if t.dtype is dtypes.resource:
            var = variable_of(t)
            if var is not None and var.trainable:
                bind(ReadVariableOp, [t], {"dtype": var.dtype, "shape": var._shape_static})
