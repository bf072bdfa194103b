"""Remapping: an op pattern becomes one op that does the same work with fewer passes over memory.

TensorFlow's Grappler has the same pass (its "remapper"). Three rules, their ops declared in
``ops/nn/conv.py``; the arithmetic is the same, so the bits are too:

* ``Relu(BiasAdd(Conv2D(x, w), b))`` becomes ``_FusedConv2D(x, w, b)`` (TensorFlow's rule),
  which applies the bias and the relu in place to each piece of the convolution's result as it
  is made, instead of a fused block reading that result and writing a new array (the seed 004
  convnet: two such layers per step). Taken only when nothing else reads the convolution's or
  the bias add's result (a gradient reads the relu's output, which the fused op produces), no
  op waits on them by a control edge, the three ops share a device, the layout is
  channels-last and the dtype is a float NumPy computes natively.
* ``Conv2DBackpropInput(Shape(x), w, dy)`` and ``Conv2DBackpropFilter(x, Shape(w), dy)``,
  the two gradients of one convolution, become one ``_FusedConv2DBackprop(x, w, dy)``: its
  kernel makes the wide copy of dy and hands the batch pieces to the threads once for both.
  Taken when both read the same dy with the same attributes and device, no control edge
  touches them, and the sizes are ``x``'s and ``w``'s shapes (constants equal to the static
  shapes, or ``Shape`` ops of them). A ``ReluGrad(dx, y)`` that alone reads the input
  gradient (the layer below ends in a relu) joins: the op applies it to each batch piece of
  dx as it is made, while it is in cache.
* A convolution with few input channels (an image model's first layer) and its filter
  gradient build the same column matrix from the same input: ``_Conv2DColumns`` makes it once
  for both (``_Conv2DFromColumns``, ``_Conv2DBackpropFilterFromColumns``). Taken for static
  shapes whose matrix is one block of one piece (``conv_kernels.shares_columns``): then the
  products are the ones the two ops would make.
"""
from __future__ import annotations

import collections

import numpy as np

from ..graph.registry import REGISTRY
from .program import Program, Rewriter, const_value

_FLOATS = (np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64))


def _uses(prog: Program) -> collections.Counter:
    uses: collections.Counter = collections.Counter(id(t) for t in prog.outputs)
    for op in prog.graph.get_operations():
        uses.update(id(t) for t in op.inputs)
        uses.update(id(c) for c in op.control_inputs)
    return uses


def _data_format(op) -> str:
    """An op's ``data_format`` attr as text (``"NHWC"`` when it has none)."""
    fmt = op.attrs.get("data_format") or "NHWC"
    return fmt.decode() if isinstance(fmt, bytes) else fmt


def _match(relu, uses) -> tuple | None:
    """(conv, bias_add) when ``relu`` ends a Conv2D -> BiasAdd -> Relu chain it may replace.

    (Conv2D is channels-last: ``data_format="NCHW"`` convolutions are traced as transposes
    around it; a channels-first bias add is refused here.)"""
    bias_add = relu.inputs[0].op
    if bias_add.type != "BiasAdd":
        return None
    if _data_format(bias_add).startswith("NC"):
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


_CONV_ATTRS = ("strides", "padding", "explicit_paddings", "dilations", "data_format")


def _shape_of(sizes, t) -> bool:
    """Whether the tensor ``sizes`` always holds ``t``'s shape."""
    if sizes.op.type == "Shape":
        return sizes.op.inputs[0] is t
    value = const_value(sizes)
    return value is not None and t.shape.is_fully_defined() and \
        [int(v) for v in np.ravel(value)] == t.shape.as_list()


def _relu_grad_of(a, uses, readers) -> object | None:
    """The ``ReluGrad(dx, y)`` that alone reads the input gradient ``a`` makes, if any."""
    dx = a.outputs[0]
    ops = readers.get(id(dx), ())
    if uses[id(dx)] != 1 or len(ops) != 1:
        return None
    r = ops[0]
    if r.type != "ReluGrad" or r.inputs[0] is not dx or uses[id(r)] or r.control_inputs \
            or r.device != a.device or r.inputs[1].dtype != dx.dtype:
        return None
    return r


def _backprop_pairs(prog: Program, uses) -> dict:
    """{id(input-gradient op): (filter-gradient op, the ReluGrad taken along or None)} for the
    pairs ``remap_conv_backprops`` replaces."""
    by_dy: dict = {}
    readers: dict = {}
    for op in prog.graph.get_operations():
        for t in op.inputs:
            readers.setdefault(id(t), []).append(op)
        if op.type in ("Conv2DBackpropInput", "Conv2DBackpropFilter") and not uses[id(op)] \
                and not op.control_inputs and op.outputs[0].dtype.np in _FLOATS:
            by_dy.setdefault(id(op.inputs[2]), []).append(op)
    pairs = {}
    for ops in by_dy.values():
        inputs = [op for op in ops if op.type == "Conv2DBackpropInput"]
        filters = [op for op in ops if op.type == "Conv2DBackpropFilter"]
        if len(inputs) != 1 or len(filters) != 1:
            continue
        a, b = inputs[0], filters[0]
        x, w = b.inputs[0], a.inputs[1]
        if any(a.attrs.get(k) != b.attrs.get(k) for k in _CONV_ATTRS) or a.device != b.device \
                or _data_format(a) != "NHWC" \
                or x.dtype != w.dtype or not _shape_of(a.inputs[0], x) \
                or not _shape_of(b.inputs[1], w):
            continue
        pairs[id(a)] = (b, _relu_grad_of(a, uses, readers))
    return pairs


def remap_conv_backprops(prog: Program) -> tuple:
    """Replaces each pair of gradients of one convolution by one ``_FusedConv2DBackprop``.

    Args:
        prog: the Program.

    Returns:
        (new Program, number of pairs replaced).
    """
    pairs = _backprop_pairs(prog, _uses(prog))
    if not pairs:
        return prog, 0
    ops = prog.graph.get_operations()
    by_id = {id(op): op for op in ops}
    partner = {}
    for a_id, (b, relu_grad) in pairs.items():
        partner[a_id] = partner[id(b)] = (by_id[a_id], b, relu_grad)
    fused = REGISTRY["_FusedConv2DBackprop"]
    rw = Rewriter(prog)
    done, count = set(), 0
    for op in ops:
        if id(op) in done:
            continue
        found = partner.get(id(op))
        if found is None:
            rw.copy(op)
            continue
        a, b, relu_grad = found
        x, w, dy = b.inputs[0], a.inputs[1], a.inputs[2]
        inputs = [x, w, dy] + ([relu_grad.inputs[1]] if relu_grad is not None else [])
        if not all(rw.has(t) for t in inputs):   # (an input made between the two ops)
            rw.copy(op)
            partner.pop(id(b if op is a else a))
            continue
        attrs = dict(a.attrs)
        if relu_grad is not None:
            attrs["fused_ops"] = ("ReluGrad",)
        new = rw.new_op(fused, [rw.get(t) for t in inputs], attrs, [
            (a.outputs[0].dtype, a.outputs[0].shape),
            (b.outputs[0].dtype, b.outputs[0].shape)], like=a)
        rw.alias((relu_grad or a).outputs[0], new.outputs[0])
        rw.alias(b.outputs[0], new.outputs[1])
        done.update((id(a), id(b)) + ((id(relu_grad),) if relu_grad is not None else ()))
        count += 1
    return rw.finish(), count


_FORWARD = ("Conv2D", "_FusedConv2D")


def _column_key(op, uses) -> tuple | None:
    """What the column matrix of a convolution or filter gradient depends on (its input and
    geometry), when ``conv_kernels.shares_columns`` holds for it; else None."""
    if op.type not in _FORWARD + ("Conv2DBackpropFilter",) or op.control_inputs \
            or uses[id(op)] or op.outputs[0].dtype.np not in _FLOATS:
        return None
    if op.type == "_FusedConv2D" and tuple(op.attrs.get("fused_ops", ())) != ("BiasAdd", "Relu"):
        return None
    x = op.inputs[0]
    if op.type == "Conv2DBackpropFilter":
        sizes = const_value(op.inputs[1])
        w_shape = None if sizes is None else tuple(int(v) for v in np.ravel(sizes))
    else:
        w = op.inputs[1]
        w_shape = tuple(w.shape.as_list()) if w.shape.is_fully_defined() else None
        if w.dtype != x.dtype:
            return None
    if w_shape is None or len(w_shape) != 4 or not x.shape.is_fully_defined() \
            or _data_format(op) != "NHWC":
        return None
    attrs = {k: op.attrs.get(k) for k in _CONV_ATTRS}
    if not REGISTRY["_Conv2DColumns"].shares(tuple(x.shape.as_list()), w_shape, attrs,
                                             x.dtype.np.itemsize):
        return None
    return (id(x), w_shape[:3], tuple(attrs["strides"]), attrs["padding"],
            repr(attrs["explicit_paddings"]), tuple(attrs["dilations"] or (1, 1)), op.device)


def remap_shared_columns(prog: Program) -> tuple:
    """Gives a convolution with few input channels and its filter gradient one column matrix
    (``_Conv2DColumns``, then ``_Conv2DFromColumns`` and ``_Conv2DBackpropFilterFromColumns``)
    instead of one each.

    Args:
        prog: the Program.

    Returns:
        (new Program, number of matrices shared).
    """
    uses = _uses(prog)
    groups: dict = {}
    for op in prog.graph.get_operations():
        key = _column_key(op, uses)
        if key is not None:
            groups.setdefault(key, []).append(op)
    groups = {k: g for k, g in groups.items() if any(op.type in _FORWARD for op in g)
              and any(op.type == "Conv2DBackpropFilter" for op in g)}
    if not groups:
        return prog, 0
    member = {id(op): k for k, g in groups.items() for op in g}
    made: dict = {}
    rw = Rewriter(prog)
    for op in prog.graph.get_operations():
        key = member.get(id(op))
        if key is None:
            rw.copy(op)
            continue
        x = op.inputs[0]
        if key not in made:
            first, ksize = groups[key][0], key[1][:2]     # (key: x, (kh, kw, C), ...)
            attrs = {k: first.attrs.get(k) for k in _CONV_ATTRS if k != "data_format"}
            spec = REGISTRY["_Conv2DColumns"].infer(x, ksize=ksize, **attrs)
            made[key] = rw.new_op(REGISTRY["_Conv2DColumns"], [rw.get(x)],
                                  {"ksize": ksize, **attrs}, [spec], like=first).outputs[0]
        cols = made[key]
        if op.type in _FORWARD:
            rw.copy(op, [cols] + [rw.get(t) for t in op.inputs[1:]],
                    {"out_shape": tuple(op.outputs[0].shape.as_list()),
                     "fused_ops": tuple(op.attrs.get("fused_ops", ()))},
                    opdef=REGISTRY["_Conv2DFromColumns"])
        else:
            rw.copy(op, [cols, rw.get(op.inputs[2])],
                    {"filter_sizes": tuple(op.outputs[0].shape.as_list())},
                    opdef=REGISTRY["_Conv2DBackpropFilterFromColumns"])
    return rw.finish(), len(groups)


def remap(prog: Program) -> tuple:
    """The rules in turn: ``remap_conv_bias_relu``, ``remap_conv_backprops``,
    ``remap_shared_columns``.

    Args:
        prog: the Program.

    Returns:
        (new Program, number of patterns replaced).
    """
    count = 0
    for rule in (remap_conv_bias_relu, remap_conv_backprops, remap_shared_columns):
        prog, n = rule(prog)
        count += n
    return prog, count
