"""Elementwise fusion: a tree of elementwise ops with one result becomes one ``FusedElementwise``
op, which codegen runs as a blocked loop (``fused_codegen``).

A group is grown backwards from its *root* (the op producing the group's result): a producer
joins when it is elementwise (``STEP_KINDS``), has the root's exact output shape, and every
consumer of its result is already in the group (so no intermediate is needed outside it).
Inputs from outside the group may broadcast (scalars, a bias along the last axis). 0-d
constants are folded into the steps as literals.

Every step applies the same NumPy function to the same values as the unfused op's kernel, in
the same order, so fused results are bit-for-bit equal to unfused ones; only where the values
live changes (cache-sized blocks instead of whole arrays).

``FusedElementwise``'s ``kernel`` evaluates the steps on whole arrays (the reference
interpreter and GraphDef users run it); its ``lower`` hook returns the generated, blocked
function.
"""
from __future__ import annotations

import dataclasses
import os

import numpy as np

from ..core.errors import InvalidArgumentError
from ..core.shapes import TensorShape
from ..graph.registry import register_op
from .fused_codegen import build_fused_function
from .program import Program, Rewriter, const_value


@dataclasses.dataclass(frozen=True)
class FusionOptions:
    """How aggressively the fusion pass and its blocked code work.

    Attributes:
        min_elements: groups with smaller results are left unfused (a call costs ~2 µs).
        block_bytes: target bytes of one block of the widest intermediate (L2-sized).
        parallel_min: results with at least this many elements run their blocks on the
            thread pool (``tw.config.threading.set_intra_op_parallelism_threads``).
        compiled_loops: runs of plain float arithmetic in flat loops become one numba loop
            each when numba is installed (``fused_numba``); NumPy calls otherwise.
    """

    min_elements: int = 1 << 14
    # 1 MiB: on the 2-core test machine (2 MiB L2, 32 MiB L3) GELU over 1M float32 took 0.77x
    # NumPy's time in 512 KiB blocks, 0.67x in 1 MiB and 2 MiB blocks (two threads; /tmp/
    # ab_gelu2.py): each block costs one NumPy call per op, and smaller blocks gained nothing
    # from the cache here
    block_bytes: int = 1 << 20
    parallel_min: int = 1 << 19
    compiled_loops: bool = False


DEFAULT = FusionOptions()
AGGRESSIVE = FusionOptions(min_elements=1 << 12, block_bytes=1 << 20, parallel_min=1 << 18,
                           compiled_loops=True)


def _ufunc_of(op):
    """The NumPy ufunc an op's kernel applies, or None."""
    k = op.opdef.kernel
    if op.attrs and op.type not in ("Cast",):
        return None
    if isinstance(k, np.ufunc):
        return k
    w = getattr(k, "__wrapped__", None)
    return w if isinstance(w, np.ufunc) else None


def step_kind(op) -> str | None:
    """The fused step kind of ``op`` (``"ufunc"``, ``"relu"``...), or None if not fusible."""
    if op.stateful or len(op.outputs) != 1 or op.opdef.multi_output:
        return None
    if not all(t.dtype.np.kind in "biuf" for t in (*op.inputs, *op.outputs)):
        return None
    t = op.type
    if t in _REDUCTIONS:
        return _reduction_kind(op)
    if t == "Cast":
        return "cast"
    if t == "Relu":
        return "relu"
    if t == "ReluGrad":
        return "relu_grad"
    if t == "Sigmoid":
        return "sigmoid"
    if t == "SelectV2":
        return "select"
    if t == "BiasAdd":
        return "ufunc" if op.attrs.get("data_format", "NHWC") in ("NHWC", "NWC", "NDHWC") \
            else None
    u = _ufunc_of(op)
    if u is not None and u.nout == 1 and u.nin == len(op.inputs):
        return "ufunc"
    return None


_REDUCTIONS = {"Sum": "reduce_sum", "Mean": "reduce_mean"}


def _reduction_kind(op) -> str | None:
    """A trailing reduction over the last axis of a float tensor of rank >= 2 (blocks of rows
    reduce their rows completely, exactly as the whole array would)."""
    x = op.inputs[0]
    if x.dtype.np.kind != "f" or not x.shape.is_fully_defined() or x.shape.rank < 2:
        return None
    axis = op.attrs.get("axis")
    if axis is None or tuple(axis) not in ((x.shape.rank - 1,), (-1,)):
        return None
    return _REDUCTIONS[op.type]


def step_fn(op):
    """The NumPy function of a ``"ufunc"`` step."""
    return np.add if op.type == "BiasAdd" else _ufunc_of(op)


def _full(t, shape) -> bool:
    return t.shape.is_fully_defined() and tuple(t.shape.as_list()) == shape


def _broadcasts_to(t, shape) -> bool:
    if not t.shape.is_fully_defined():
        return False
    s = tuple(t.shape.as_list())
    if len(s) > len(shape):
        return False
    return all(a in (1, b) for a, b in zip(s[::-1], shape[::-1]))


def _groups(prog: Program, opts: FusionOptions) -> dict:
    """{id(root op): [member ops in graph order]} for groups of two or more ops."""
    ops = prog.graph.get_operations()
    consumers: dict = {}
    for op in ops:
        for t in op.inputs:
            consumers.setdefault(id(t), []).append(op)
    controlled = {id(c) for op in ops for c in op.control_inputs}
    outputs = {id(t) for t in prog.outputs}
    order = {id(op): i for i, op in enumerate(ops)}
    kinds = {id(op): step_kind(op) for op in ops}
    taken: set = set()
    groups: dict = {}
    for root in reversed(ops):
        if id(root) in taken or kinds[id(root)] is None or root.control_inputs \
                or id(root) in controlled:
            continue
        # a trailing reduction's group works on the shape of what it reduces
        res = root.inputs[0] if kinds[id(root)].startswith("reduce") else root.outputs[0]
        if not res.shape.is_fully_defined():
            continue
        shape = tuple(res.shape.as_list())
        if int(np.prod(shape)) < opts.min_elements:
            continue
        members = {id(root): root}
        frontier = [root]
        while frontier:
            op = frontier.pop()
            for t in op.inputs:
                p = t.op
                if id(p) in members or id(p) in taken or kinds[id(p)] is None \
                        or kinds[id(p)].startswith("reduce") \
                        or p.control_inputs or id(p) in controlled or id(t) in outputs \
                        or not _full(t, shape):
                    continue
                if all(id(c) in members for c in consumers.get(id(t), ())):
                    members[id(p)] = p
                    frontier.append(p)
        # every outside input must broadcast to the result (else the blocked loop cannot
        # slice it)
        ok = all(_broadcasts_to(t, shape) or const_value(t) is not None and np.ndim(
            const_value(t)) == 0 for m in members.values() for t in m.inputs
            if id(t.op) not in members)
        if len(members) < 2 or not ok:
            continue
        taken.update(members)
        groups[id(root)] = sorted(members.values(), key=lambda o: order[id(o)])
    return groups


def _source_text(op) -> str | None:
    src = op.source
    if src is None:
        return None
    where = f"{os.path.basename(src.filename)}:{src.lineno} in {src.function}"
    return f"{where}: {src.line}" if src.line else where


def fuse_elementwise(prog: Program, opts: FusionOptions = DEFAULT) -> tuple:
    """Replaces each elementwise group by one FusedElementwise op.

    Args:
        prog: the Program.
        opts: thresholds (``DEFAULT`` or ``AGGRESSIVE``).

    Returns:
        (new Program, number of ops fused into groups).
    """
    groups = _groups(prog, opts)
    if not groups:
        return prog, 0
    in_group = {id(m) for g in groups.values() for m in g}
    rw = Rewriter(prog)
    fused = 0
    for op in prog.graph.get_operations():
        if id(op) in groups:
            members = groups[id(op)]
            _emit_group(rw, members, opts)
            fused += len(members)
        elif id(op) not in in_group:
            rw.copy(op)
    return rw.finish(), fused


def _emit_group(rw: Rewriter, members: list, opts: FusionOptions) -> None:
    index = {id(m): j for j, m in enumerate(members)}
    inputs: list = []
    in_ids: dict = {}
    steps = []
    for m in members:
        args = []
        for t in m.inputs:
            if id(t.op) in index:
                args.append(("t", index[id(t.op)]))
                continue
            v = const_value(t)
            if v is not None and np.ndim(v) == 0 and getattr(v, "dtype", None) is not None:
                args.append(("c", np.asarray(v)[()]))
                continue
            if id(t) not in in_ids:
                in_ids[id(t)] = len(inputs)
                inputs.append(t)
            args.append(("x", in_ids[id(t)]))
        out = m.outputs[0]
        kind = step_kind(m)
        extra = ()
        if kind.startswith("reduce"):
            extra = (bool(m.attrs.get("keepdims", False)), np.intp(m.inputs[0].shape[-1]))
        steps.append(Step(kind, step_fn(m) if kind == "ufunc" else None, tuple(args),
                          out.dtype.np, m.type, m.name, _source_text(m), extra))
    root = members[-1]
    res = root.outputs[0]
    attrs = {"steps": tuple(steps), "shape": tuple(res.shape.as_list()),
             "body_shape": tuple(members[-2 if steps[-1].kind.startswith("reduce") else -1]
                                 .outputs[0].shape.as_list()),
             "in_shapes": tuple(tuple(t.shape.as_list()) for t in inputs),
             "dtype": res.dtype, "options": opts}
    new = rw.new_op(FusedElementwise, [rw.get(t) for t in inputs], attrs,
                    [(res.dtype, TensorShape(list(attrs["shape"])))], root, name=root.name)
    rw.alias(res, new.outputs[0])


@dataclasses.dataclass(frozen=True)
class Step:
    """One op of a fused group.

    Attributes:
        kind: ``"ufunc"``, ``"cast"``, ``"relu"``, ``"relu_grad"``, ``"sigmoid"``, ``"select"``,
            or a trailing ``"reduce_sum"``/``"reduce_mean"`` over the last axis.
        fn: the ufunc of a ``"ufunc"`` step.
        args: ``("x", i)`` group input i, ``("t", j)`` step j's result, ``("c", v)`` a scalar.
        dtype: the result's NumPy dtype.
        op_type, op_name: the op it came from.
        source: the user's source line of that op (or None).
        extra: a reduction's (keepdims, count of the reduced axis).
    """

    kind: str
    fn: object
    args: tuple
    dtype: np.dtype
    op_type: str
    op_name: str
    source: str | None
    extra: tuple = ()


def apply_step(step: Step, vals: list, out=None):
    """Runs one step on arrays ``vals`` (writing into ``out`` if given), as the op's kernel.

    Args:
        step: the Step.
        vals: its argument values.
        out: the result array, or None for a fresh one.

    Returns:
        The result.
    """
    k = step.kind
    if k == "ufunc":
        return step.fn(*vals, out=out) if out is not None else step.fn(*vals)
    if k.startswith("reduce"):   # the Sum / Mean kernels' own steps (_float_mean)
        keepdims, count = step.extra
        total = np.add.reduce(vals[0], axis=-1, dtype=step.dtype, keepdims=keepdims, out=out)
        if k == "reduce_mean":
            total = np.true_divide(total, count, out=total, casting="unsafe")
        return total
    if out is None:
        out = np.empty(np.broadcast_shapes(*(np.shape(v) for v in vals)), step.dtype)
    if k == "cast":
        np.copyto(out, vals[0], casting="unsafe")
    elif k == "relu":
        np.maximum(vals[0], step.dtype.type(0), out=out)
    elif k == "relu_grad":   # np.where(y > 0, dy, 0): copies, so the bits are dy's
        np.copyto(out, step.dtype.type(0))
        np.copyto(out, vals[0], where=vals[1] > 0)
    elif k == "sigmoid":     # the Sigmoid kernel: 1 / (exp(-x) + 1)
        np.negative(vals[0], out=out)
        np.exp(out, out=out)
        np.add(out, step.dtype.type(1), out=out)
        np.reciprocal(out, out=out)
    elif k == "select":      # np.where(c, x, y)
        np.copyto(out, vals[2])
        np.copyto(out, vals[1], where=vals[0])
    else:  # pragma: no cover - step_kind never makes another kind
        raise AssertionError(k)
    return out


@register_op("FusedElementwise")
class FusedElementwise:
    """Several elementwise ops run as one blocked loop (made by ``compiler.fusion``)."""

    def infer(*inputs, **attrs):
        return attrs["dtype"], TensorShape(list(attrs["shape"]))

    def kernel(*arrays, **attrs):
        vals: list = []
        with np.errstate(all="ignore"):
            for s in attrs["steps"]:
                args = [arrays[i] if t == "x" else vals[i] if t == "t" else i
                        for t, i in s.args]
                vals.append(apply_step(s, args))
        res = vals[-1]
        if res.shape != attrs["shape"]:
            res = np.broadcast_to(res, attrs["shape"]).copy()
        return res

    def grad(op, dy):
        raise InvalidArgumentError(None, op, "FusedElementwise is made by the compiler after "
                                             "gradients are built and has no gradient rule")

    def lower(op):
        return build_fused_function(op)  # the blocked, generated function
