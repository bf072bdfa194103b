"""Converters of control flow: ``While`` -> ONNX ``Loop``, ``If`` -> ``If``, TensorLists ->
ONNX sequences, and the compiler's ``FusedElementwise`` groups back into their steps.

A TensorFlow loop tests ``cond`` before each iteration; an ONNX Loop takes the first test as
an input and each later one as the body's first output. So ``cond`` is converted twice: on the
initial values (outside) and on the body's results (inside). A Keras RNN over a sequence of
unknown length traces to such a loop reading and writing TensorLists; a list is an ONNX
sequence of tensors (a reserved, unset element is an empty tensor until it is set).
"""
from __future__ import annotations

import numpy as np

from .converter import converts, unsupported
from .math_ops import elementwise


def _sequence(cx, name: str, element_dtype) -> str:
    cx.sequences.add(name)
    cx.dtypes[name] = np.dtype(element_dtype)
    return name


def _info(cx, name: str, t=None):
    """The value info of a sub-graph's input/output ``name`` (tensor or sequence)."""
    if name in cx.sequences:
        return cx.value_info(name, sequence=True)
    shape = None
    if t is not None and t.shape.rank is not None:
        shape = [None] * t.shape.rank
    return cx.value_info(name, shape)


def _graph_outputs(cx, names: list, tensors: list, hint: str, inputs: tuple = ()) -> list:
    """The output infos of a sub-graph returning ``names``: Identity copies (a sub-graph must
    produce its outputs); before opset 14, Identity takes no sequence, so a sequence the
    sub-graph made or received as an input is returned as it is."""
    infos = []
    made = {o for node in cx.nodes for o in node.output} | set(inputs)
    returned: set = set()
    for n, t in zip(names, tensors):
        if n in cx.sequences and cx.opset < 14:
            if n not in made or n in returned:
                raise unsupported(t.op, "a loop or branch returning a TensorList it does not "
                                        "make needs opset 14 or newer")
            returned.add(n)
            infos.append(_info(cx, n, t))
            continue
        out = cx.fresh(f"{hint}_out")
        cx.nodes.append(cx.helper.make_node("Identity", [n], [out], name=cx.fresh(f"{out}/id")))
        cx.dtypes[out] = cx.dtypes.get(n)
        if n in cx.sequences:
            cx.sequences.add(out)
        infos.append(_info(cx, out, t))
    return infos


@converts("While", "StatelessWhile")
def _while(cx, op):
    a = op.attrs
    n, has_max = a["n_vars"], bool(a["has_max"])
    init = [cx.env.get(id(t)) for t in op.inputs[:n]]
    caps = [cx.env.get(id(t)) for t in op.inputs[n + has_max:]]
    if any(v is None for v in init + caps):
        raise unsupported(op, "an input was not converted")
    if not all(isinstance(v, str) for v in init):
        raise unsupported(op, "a variable handle as a loop variable")
    cond_g, body_g = a["cond"], a["body"]
    nodes, (c0,) = cx.subgraph(cond_g, init + caps, f"{op.name}_cond")
    cx.nodes.extend(nodes)
    trip = ""
    if has_max:
        trip = cx.cast(cx.name(op.inputs[n]), np.int64, f"{op.name}/max")
    # the body: (iteration, cond, *loop values) -> (cond, *next loop values)
    it, cin = cx.fresh(f"{op.name}_iter"), cx.fresh(f"{op.name}_cond_in")
    carried = []
    for v in init:
        name = cx.fresh(f"{op.name}_var")
        cx.dtypes[name] = cx.dtypes.get(v)
        if v in cx.sequences:
            cx.sequences.add(name)
        carried.append(name)
    saved = cx.nodes
    cx.nodes = []
    try:
        b_nodes, b_outs = cx.subgraph(body_g, carried + caps, f"{op.name}_body")
        cx.nodes.extend(b_nodes)
        c_nodes, (c1,) = cx.subgraph(cond_g, b_outs + caps, f"{op.name}_cond")
        cx.nodes.extend(c_nodes)
        out_infos = _graph_outputs(cx, [c1] + b_outs, [None] + list(body_g.outputs),
                                   f"{op.name}_body", tuple(carried))
        in_infos = [cx.value_info(it, [], np.int64), cx.value_info(cin, [], np.bool_)] + \
            [_info(cx, name, t) for name, t in zip(carried, op.inputs[:n])]
        body = cx.helper.make_graph(cx.nodes, cx.fresh(f"{op.name}_body"), in_infos,
                                    out_infos)
    finally:
        cx.nodes = saved
    outs = cx.node("Loop", [trip, c0] + init, op.name, n_out=n, body=body)
    outs = [outs] if n == 1 else outs
    for o, v in zip(outs, init):
        cx.dtypes[o] = cx.dtypes.get(v)
        if v in cx.sequences:
            cx.sequences.add(o)
    return outs + [None] * (len(op.outputs) - n)   # the History only serves gradients


def _as_graph(cx, build, tensors: list, hint: str):
    """A GraphProto without inputs (an If branch) of the nodes ``build()`` adds; ``build``
    returns the output names."""
    saved = cx.nodes
    cx.nodes = []
    try:
        outs = build()
        infos = _graph_outputs(cx, outs, tensors, hint)
        return cx.helper.make_graph(cx.nodes, cx.fresh(hint), [], infos)
    finally:
        cx.nodes = saved


def _inline(cx, g, ins: list, hint: str) -> list:
    """Converts sub-graph ``g`` on ``ins`` into the current node list; its output names."""
    nodes, outs = cx.subgraph(g, ins, hint)
    cx.nodes.extend(nodes)
    return outs


def _if_node(cx, op, pred: str, then_g, else_g, hint: str) -> list:
    n = len(op.outputs)
    outs = cx.node("If", [pred], hint, n_out=n, then_branch=then_g, else_branch=else_g)
    outs = [outs] if n == 1 else outs
    for o, t in zip(outs, op.outputs):
        cx.dtypes[o] = np.dtype(t.dtype.np)
    return outs


@converts("If", "StatelessIf")
def _if(cx, op):
    ins = [cx.env.get(id(t)) for t in op.inputs[1:]]
    then_g, else_g = (_as_graph(cx, lambda g=op.attrs[k], k=k: _inline(
        cx, g, ins, f"{op.name}_{k}"), list(op.attrs[k].outputs), f"{op.name}_{k}")
        for k in ("then_branch", "else_branch"))
    return _if_node(cx, op, cx.name(op.inputs[0]), then_g, else_g, op.name)


@converts("Case", "StatelessCase")
def _case(cx, op):
    """A chain of Ifs: ``index == 0``, ``index == 1``... and the last branch otherwise (an
    index out of range runs the last branch, as the Case kernel does)."""
    index = cx.name(op.inputs[0])
    ins = [cx.env.get(id(t)) for t in op.inputs[1:]]
    branches = list(op.attrs["branches"])
    idx_dtype = cx.dtype(index)

    def chain(level: int) -> list:
        g = branches[level]
        if level == len(branches) - 1:
            return _inline(cx, g, ins, f"{op.name}_branch{level}")
        hit = cx.node("Equal", [index, cx.const(np.asarray(level, idx_dtype))],
                      f"{op.name}/is_{level}", dtype=bool)
        then_g = _as_graph(cx, lambda: _inline(cx, g, ins, f"{op.name}_branch{level}"),
                           list(g.outputs), f"{op.name}_branch{level}")
        else_g = _as_graph(cx, lambda: chain(level + 1), list(op.outputs),
                           f"{op.name}_after{level}")
        return _if_node(cx, op, hit, then_g, else_g, f"{op.name}_{level}")
    return chain(0)


# ----- TensorLists as ONNX sequences -----

@converts("TensorListReserve")
def _reserve(cx, op):
    dt = op.attrs["element_dtype"].np
    n = cx.cast(cx.name(op.inputs[0]), np.int64, f"{op.name}/n")
    # an unset element: the element shape with 0 for its unknown dims (so shape inference
    # keeps the rank and the known dims)
    es = op.attrs["element_shape"]
    dims = [0] if es.rank is None else [0 if d is None else int(d) for d in es.as_list()]
    shape = cx.node("Concat", [cx.node("Unsqueeze", [n, cx.ints([0])], f"{op.name}/n1"),
                               cx.ints(dims)], f"{op.name}/shape", axis=0)
    value = cx.onnx.numpy_helper.from_array(np.zeros([1], dt))
    empties = cx.node("ConstantOfShape", [shape], f"{op.name}/unset", dtype=dt, value=value)
    seq = cx.node("SplitToSequence", [empties], op.name, dtype=dt, axis=0, keepdims=0)
    return [_sequence(cx, seq, dt)]


@converts("TensorListFromTensor")
def _from_tensor(cx, op):
    x = cx.name(op.inputs[0])
    seq = cx.node("SplitToSequence", [x], op.name, axis=0, keepdims=0)
    return [_sequence(cx, seq, cx.dtype(x))]


def _no_like(op, n: int) -> None:
    if len(op.inputs) > n:
        raise unsupported(op, "its zeros-for-unset-elements form (used by gradients)")


@converts("TensorListGetItem")
def _get_item(cx, op):
    _no_like(op, 2)
    seq, i = cx.name(op.inputs[0]), cx.name(op.inputs[1])
    return [cx.node("SequenceAt", [seq, i], op.name, dtype=cx.dtype(seq))]


@converts("TensorListSetItem")
def _set_item(cx, op):
    if op.attrs.get("resize"):
        raise unsupported(op, "a TensorList that grows (dynamic_size=True)")
    seq, i, item = (cx.name(t) for t in op.inputs)
    erased = cx.node("SequenceErase", [seq, i], f"{op.name}/erase")
    _sequence(cx, erased, cx.dtype(seq))
    return [_sequence(cx, cx.node("SequenceInsert", [erased, item, i], op.name),
                      cx.dtype(seq))]


@converts("TensorListStack")
def _stack(cx, op):
    _no_like(op, 1)
    seq = cx.name(op.inputs[0])
    return [cx.node("ConcatFromSequence", [seq], op.name, axis=0, new_axis=1)]


@converts("TensorListLength")
def _length(cx, op):
    n = cx.node("SequenceLength", [cx.name(op.inputs[0])], f"{op.name}/i64", dtype=np.int64)
    return [cx.cast(n, np.int32, op.name)]


# ----- the compiler's fused groups, step by step -----

_STEP_TYPES = {"relu": "Relu", "sigmoid": "Sigmoid", "select": "SelectV2"}


@converts("FusedElementwise")
def _fused(cx, op):
    inputs = [cx.name(t) for t in op.inputs]
    vals: list = []
    for s in op.attrs["steps"]:
        args = []
        for kind, i in s.args:
            if kind == "x":
                args.append(inputs[i])
            elif kind == "t":
                args.append(vals[i])
            else:
                args.append(cx.const(np.asarray(i)))
        hint = f"{op.name}/{s.op_name}"
        if s.kind == "cast":
            r = cx.cast(args[0], s.dtype, hint)
        elif s.kind.startswith("reduce"):
            onnx_type = "ReduceSum" if s.kind == "reduce_sum" else "ReduceMean"
            keep = int(bool(s.extra[0]))
            if onnx_type == "ReduceSum" or cx.opset >= 18:
                r = cx.node(onnx_type, [args[0], cx.ints([-1])], hint, keepdims=keep)
            else:
                r = cx.node(onnx_type, [args[0]], hint, keepdims=keep, axes=[-1])
        else:
            tf_type = _STEP_TYPES.get(s.kind, s.op_type)
            r = elementwise(cx, tf_type, args, hint)
            if r is None or s.kind == "relu_grad":
                raise unsupported(op, f"its step {s.op_type} ({s.kind})")
        vals.append(r)
    # the kernel broadcasts the last step's result to the group's shape
    return [cx.node("Expand", [vals[-1], cx.ints(op.attrs["shape"])], op.name)]
