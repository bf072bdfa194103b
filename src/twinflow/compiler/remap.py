"""Remapping: an op pattern becomes one op that does the same work with fewer passes over memory.

TensorFlow's Grappler has the same pass (its "remapper"); twinflow's one rule so far is
theirs too: ``Relu(BiasAdd(Conv2D(x, w), b))`` becomes ``_FusedConv2D(x, w, b)`` (declared in
``ops/nn/conv.py``), which applies the bias and the relu in place to the convolution's result
instead of a fused block reading that result and writing a new array (the seed 004 convnet:
two such layers per step). The arithmetic is the same, so the bits are too.

A pattern is taken only when nothing else reads the convolution's or the bias add's result
(a gradient reads the relu's output, which the fused op produces), no op waits on them by a
control edge, the three ops share a device, the layout is channels-last and the dtype is a
float NumPy computes natively.
"""
from __future__ import annotations

import collections

import numpy as np

from ..graph.registry import REGISTRY
from .program import Program, Rewriter

_FLOATS = (np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64))


def _uses(prog: Program) -> collections.Counter:
    uses: collections.Counter = collections.Counter(id(t) for t in prog.outputs)
    for op in prog.graph.get_operations():
        uses.update(id(t) for t in op.inputs)
        uses.update(id(c) for c in op.control_inputs)
    return uses


def _match(relu, uses) -> tuple | None:
    """(conv, bias_add) when ``relu`` ends a Conv2D -> BiasAdd -> Relu chain it may replace.

    (Conv2D is channels-last: ``data_format="NCHW"`` convolutions are traced as transposes
    around it; a channels-first bias add is refused here.)"""
    bias_add = relu.inputs[0].op
    if bias_add.type != "BiasAdd":
        return None
    fmt = bias_add.attrs.get("data_format") or ""
    if (fmt.decode() if isinstance(fmt, bytes) else fmt).startswith("NC"):
        return None
    conv = bias_add.inputs[0].op
    if conv.type != "Conv2D" or relu.outputs[0].dtype.np not in _FLOATS:
        return None
    for op in (conv, bias_add):
        if uses[id(op.outputs[0])] != 1 or uses[id(op)] or op.control_inputs:
            return None
    if not conv.device == bias_add.device == relu.device:
        return None
    return conv, bias_add


def remap_conv_bias_relu(prog: Program) -> tuple:
    """Replaces each Conv2D -> BiasAdd -> Relu chain by one ``_FusedConv2D``.

    Args:
        prog: the Program.

    Returns:
        (new Program, number of chains replaced).
    """
    uses = _uses(prog)
    matches = {}
    for op in prog.graph.get_operations():
        if op.type == "Relu":
            found = _match(op, uses)
            if found is not None:
                matches[id(op)] = found
    if not matches:
        return prog, 0
    absorbed = {id(op) for pair in matches.values() for op in pair}
    fused = REGISTRY["_FusedConv2D"]
    rw = Rewriter(prog)
    for op in prog.graph.get_operations():
        if id(op) in absorbed:
            continue
        if id(op) not in matches:
            rw.copy(op)
            continue
        conv, bias_add = matches[id(op)]
        x, w = conv.inputs
        # (the relu's name, source line, device and control inputs; its output)
        rw.copy(op, [rw.get(x), rw.get(w), rw.get(bias_add.inputs[1])],
                {**conv.attrs, "fused_ops": ("BiasAdd", "Relu")}, opdef=fused)
    return rw.finish(), len(matches)
