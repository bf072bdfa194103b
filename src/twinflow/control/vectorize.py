"""``tw.vectorized_map``: runs a per-element function once on the whole batch.

The function is traced once on one element (placeholders of the element shapes), then its
graph is replayed op by op on the batched tensors: an op none of whose inputs depends on the
elements is re-run as is; any other op is rewritten by its batching rule (below), which adds a
leading batch dimension to its output. An op without a rule raises a ValueError naming it:
there is no silent per-element loop.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..core import dtypes, nest
from ..eager.execute import bind, constant, constant_value
from ..eager.func_graph import TensorSpec, trace_func_graph
from ..ops import array_ops
from ..ops.core import convert
from ..ops.math import binary as _binary
from ..ops.math import comparison as _comparison
from ..ops.math import unary as _unary
from ..ops.math.cast import cast

# Ops that broadcast their inputs elementwise (or on their last dims, as MatMul): a batched
# input only needs its batch dimension aligned in front of the other inputs' dims.
_BROADCASTING = frozenset(
    [r.op for r in _unary.UNARY] + [r.op for r in _binary.BINARY] +
    [r.op for r in _comparison.COMPARISON] +
    ["Cast", "Identity", "StopGradient", "SelectV2", "AddN", "MatMul", "BatchMatMulV2",
     "Relu", "Relu6", "LeakyRelu", "Elu", "Selu", "Softplus", "Softsign", "Complex",
     "Real", "Imag", "ComplexAbs", "ClipByValue", "ReluGrad", "Relu6Grad", "LeakyReluGrad",
     "EluGrad", "SeluGrad", "SoftsignGrad"])
_REDUCTIONS = frozenset(["Sum", "Mean", "Max", "Min", "Prod", "Any", "All"])
# Ops working on the trailing dims of their first input (the others are parameters).
_TRAILING = frozenset(["Sort", "TopKV2", "BiasAdd"])


def _rank(t) -> int:
    r = t.shape.rank
    if r is None:
        raise ValueError(f"vectorized_map: the rank of {t.op.type}'s input is unknown; "
                         f"vectorizing needs element ranks")
    return r


def _shift_axis(a: int, rank: int) -> int:
    return a % rank + 1 if rank else 1


def _align(x, el_rank: int, target: int):
    """A batched [B, *s] input with a leading 1 per missing element dim: [B, 1.., *s]."""
    for _ in range(target - el_rank):
        x = array_ops.expand_dims(x, 1)
    return x


def _broadcasting(op, vals, batched):
    ranks = [_rank(t) for t in op.inputs]
    top = max(ranks, default=0)
    ins = [_align(v, r, top) if b else v for v, r, b in zip(vals, ranks, batched)]
    return bind(op.opdef, ins, op.attrs)


def _reduction(op, vals, batched):
    r = _rank(op.inputs[0])
    axis = op.attrs.get("axis")
    attrs = dict(op.attrs)
    if axis is None:
        attrs["axis"] = tuple(range(1, r + 1))
    else:
        axes = (axis,) if isinstance(axis, int) else tuple(axis)
        attrs["axis"] = tuple(_shift_axis(a, r) for a in axes)
    return bind(op.opdef, list(vals), attrs)


def _with_axis(name: str, rank_extra: int = 0):
    def rule(op, vals, batched):
        if any(batched[1:]) and op.type not in ("ConcatV2", "Pack"):
            raise _no_rule(op, "only its first input may depend on the elements")
        r = _rank(op.inputs[0]) + rank_extra
        attrs = dict(op.attrs)
        a = attrs.get(name)
        if isinstance(a, (list, tuple)):
            attrs[name] = tuple(_shift_axis(i, r) for i in a)
        elif a is not None:
            attrs[name] = _shift_axis(a, r)
        return bind(op.opdef, list(vals), attrs)
    return rule


def _join(op, vals, batched, b):
    ins = [v if bt else _tile_batch(v, b) for v, bt in zip(vals, batched)]
    extra = 1 if op.type == "Pack" else 0
    return _with_axis("axis", extra)(op, ins, [True] * len(ins))


def _transpose(op, vals, batched):
    r = _rank(op.inputs[0])
    perm = op.attrs.get("perm")
    perm = list(range(r - 1, -1, -1)) if perm is None else [p % r for p in perm]
    return bind(op.opdef, list(vals), {**op.attrs, "perm": tuple([0] + [p + 1 for p in perm])})


def _squeeze(op, vals, batched):
    dims = op.attrs.get("squeeze_dims") or ()
    r = _rank(op.inputs[0])
    if not dims:
        shape = op.inputs[0].shape.as_list()
        if None in shape:
            raise _no_rule(op, "squeezing every size-1 dim needs known element dims")
        dims = [i for i, d in enumerate(shape) if d == 1]
    return bind(op.opdef, list(vals), {**op.attrs,
                                       "squeeze_dims": tuple(_shift_axis(d, r) for d in dims)})


def _reshape(op, vals, batched):
    x, target = vals
    if batched[1]:
        raise _no_rule(op, "the target shape depends on the elements")
    lead = array_ops.shape(x)[:1]
    return array_ops.reshape(x, array_ops.concat([lead, cast(target, dtypes.int32)], 0))


def _shape(op, vals, batched):
    return array_ops.shape(vals[0], out_type=op.attrs.get("out_type", dtypes.int32))[1:]


def _last_axis(op, vals, batched):
    # Softmax-like ops work on one axis; a negative axis already counts from the end.
    a = op.attrs.get("axis", -1)
    attrs = dict(op.attrs)
    if a is not None and a >= 0:
        attrs["axis"] = a + 1
    return bind(op.opdef, list(vals), attrs)


def _prepend(v0: int, s):
    """[v0, *s] for a 1-D int tensor ``s`` (a constant when ``s`` is known statically)."""
    known = constant_value(s)
    if known is not None:
        return constant(np.concatenate([[v0], np.asarray(known).reshape(-1)]).astype(
            s.dtype.np))
    return array_ops.concat([array_ops.reshape(cast(v0, s.dtype), [1]), s], 0)


def _strided_slice(op, vals, batched):
    x, *spec = vals
    if any(batched[1:]):
        raise _no_rule(op, "the slice bounds depend on the elements")
    # One more leading entry: the whole batch dimension (its begin/end bits set).
    spec = [_prepend(v0, s) for v0, s in zip((0, 0, 1), spec)]
    masks = {k: int(v) << 1 for k, v in op.attrs.items()}
    masks["begin_mask"] |= 1
    masks["end_mask"] |= 1
    return bind(op.opdef, [x] + spec, masks)


_RULES: dict[str, Callable] = {
    "StridedSlice": _strided_slice,
    "Transpose": _transpose, "Squeeze": _squeeze, "Reshape": _reshape, "Shape": _shape,
    "ExpandDims": _with_axis("axis", 1), "ReverseV2": _with_axis("axis"),
    "Softmax": _last_axis, "LogSoftmax": _last_axis,
}


def _no_rule(op, why: str = "") -> ValueError:
    return ValueError(
        f"vectorized_map: op {op.type!r} ({op.name}) has no batching rule"
        f"{': ' + why if why else ''}; twinflow does not fall back to a per-element loop "
        f"(use tw.map_fn for this function)")


def _tile_batch(x, b):
    """An unbatched tensor repeated along a new leading batch dimension of size ``b``."""
    full = array_ops.concat([array_ops.reshape(b, [1]), array_ops.shape(x)], 0)
    return array_ops.broadcast_to(array_ops.expand_dims(x, 0), full)


def _replay(fg, inputs: dict, b) -> dict:
    """Runs fg's ops on the batched tensors; returns {id(graph tensor): (value, batched)}."""
    env = dict(inputs)
    for op in fg.get_operations():
        if op.type == "Placeholder":
            if id(op.outputs[0]) not in env:
                raise ValueError(f"vectorized_map: unexpected placeholder {op.name}")
            continue
        if op.type == "Const":
            env[id(op.outputs[0])] = (constant(op.attrs["value"]), False)
            continue
        vals = [env[id(t)][0] for t in op.inputs]
        batched = [env[id(t)][1] for t in op.inputs]
        if op.control_inputs or op.opdef.stateful:
            raise _no_rule(op, "stateful ops and control dependencies cannot be batched")
        if not any(batched):
            out = bind(op.opdef, vals, op.attrs)
        elif op.type in _BROADCASTING:
            out = _broadcasting(op, vals, batched)
        elif op.type in _TRAILING:
            if any(batched[1:]):
                raise _no_rule(op, "only its first input may depend on the elements")
            out = bind(op.opdef, vals, op.attrs)
        elif op.type in _REDUCTIONS:
            out = _reduction(op, vals, batched)
        elif op.type in ("ConcatV2", "Pack"):
            out = _join(op, vals, batched, b)
        elif op.type in _RULES:
            out = _RULES[op.type](op, vals, batched)
        else:
            raise _no_rule(op)
        outs = out if isinstance(out, (list, tuple)) else [out]
        for t, v in zip(op.outputs, outs):
            env[id(t)] = (v, any(batched))
    return env


def vectorized_map(fn: Callable, elems: Any, fallback_to_while_loop: bool = True,
                   warn: bool = True) -> Any:
    """Applies ``fn`` to every element of ``elems`` at once (``tw.vectorized_map``).

    ``fn`` is traced on one element; its ops are then run once on the whole batch (each with
    its batching rule). Elementwise math, matmul, reductions, reshapes, transposes, concat/stack,
    softmax and the like are supported.

    Args:
        fn: a function of one element (a tensor or a nest of tensors, as ``elems``).
        elems: a tensor or nest of tensors, all with the same leading (batch) dimension.
        fallback_to_while_loop: TensorFlow falls back to a loop for ops it cannot vectorize;
            twinflow never does (an op without a batching rule raises ValueError either way).
        warn: unused (twinflow never falls back, so there is nothing to warn about).

    Returns:
        ``fn``'s outputs for every element, stacked along a new leading dimension.

    Raises:
        ValueError: ``fn`` uses an op without a batching rule (the error names it), or the
            elements disagree on the batch size.
    """
    flat = [convert(e) for e in nest.flatten(elems)]
    if not flat:
        raise ValueError("vectorized_map: elems is empty")
    for t in flat:
        if t.shape.rank == 0:
            raise ValueError("vectorized_map: elems must have a leading batch dimension, "
                             "got a scalar")
    sizes = {t.shape[0] for t in flat if t.shape.rank is not None and t.shape[0] is not None}
    if len(sizes) > 1:
        raise ValueError(f"vectorized_map: elems have different batch sizes {sorted(sizes)}")
    b = array_ops.shape(flat[0])[0]
    specs = [TensorSpec(t.shape[1:], t.dtype) for t in flat]

    def one(*xs):
        return fn(nest.pack_sequence_as(elems, list(xs)))

    fg = trace_func_graph(one, tuple(specs), name=getattr(fn, "__name__", "fn"))
    n = len(flat)
    inputs = {id(ph): (t, True) for ph, t in zip(fg.inputs[:n], flat)}
    for outer, ph in fg.captures:
        inputs[id(ph)] = (outer, False)
    env = _replay(fg, inputs, b)

    def result(t):
        if t is None or not hasattr(t, "op"):
            return t
        v, batched = env[id(t)]
        return v if batched else _tile_batch(v, b)

    return nest.map_structure(result, fg.structured_outputs)


__all__ = ["vectorized_map"]
