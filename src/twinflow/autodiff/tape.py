"""GradientTape: records ops on watched tensors, then runs their gradient rules backwards.

The same tape serves eager execution (records EagerOps) and graph building (records graph
Operations, so ``tape.gradient`` adds the backward ops to the graph). Gradient rules are written
with twinflow ops, so a tape that is active while another computes gradients records the
backward pass: that is how higher-order gradients work.
"""
from __future__ import annotations

import contextlib
import enum
from collections.abc import Iterator
from typing import Any

import numpy as np

from ..core import context, dtypes, nest
from ..core.context import ctx
from ..core.errors import InvalidArgumentError
from ..eager.execute import EagerOp, bind, constant
from ..eager.tensor import EagerTensor
from ..graph.tensor import SymbolicTensor, Tensor
from ..ops import array_ops, math_ops
from ..ops.core import OnesLike, Pack, ZerosLike, convert
from ..ops.indexed_slices import IndexedSlices
from ..ops.variables import Variable, variable_of

_RESOURCE = dtypes.resource
# Control flow's Histories and TensorLists: their gradients are variants too (None = zeros).
_VARIANT = dtypes.variant
# Ops whose gradient rule passes the output gradient on unchanged: an IndexedSlices gradient
# (gather's) stays sparse through them; every other rule gets it densified.
_PASSES_SLICES = frozenset({"ReadVariableOp", "Identity"})


class UnconnectedGradients(enum.Enum):
    """What ``gradient`` returns for a source the target does not depend on."""

    NONE = "none"
    ZERO = "zero"


def _key(x):
    """The id a tape tracks ``x`` by (a variable is tracked through its handle)."""
    return id(x.handle) if isinstance(x, Variable) else id(x)


class GradientTape:
    """Records operations for automatic differentiation (``tw.GradientTape``).

    Args:
        persistent: allow several ``gradient``/``jacobian`` calls on one recording.
        watch_accessed_variables: watch every trainable variable read while recording.
    """

    def __init__(self, persistent: bool = False, watch_accessed_variables: bool = True) -> None:
        self._persistent = persistent
        self._watch_accessed_variables = watch_accessed_variables
        self._ops: list = []
        self._watched: dict = {}       # id -> tensor (kept alive so ids stay unique)
        self._sources: list = []       # watched tensors/variables, in watch order
        self._watched_vars: set = set()  # ids of watched Variables (their handles vary by graph)
        self._recording = False
        self._used = False
        self.graph = None

    # ----- recording -----
    def __enter__(self) -> GradientTape:
        self.graph = ctx.graph
        self._recording = True
        context.push_tape(self)
        return self

    def __exit__(self, *exc) -> None:
        if self._recording:
            context.pop_tape(self)
            self._recording = False

    def watch(self, tensor) -> None:
        """Makes the tape track ``tensor``; integer and other non-float tensors are ignored.

        Args:
            tensor: a tensor, variable, or nested structure of them.
        """
        for t in nest.flatten(tensor):
            if isinstance(t, Variable):
                if t._tw_distributed:
                    t = t._local_copy()
                self._watched_vars.add(id(t))
                self._watch_key(id(t.handle), t.handle, t)
            elif isinstance(t, Tensor):
                if t.dtype.is_differentiable:
                    self._watch_key(id(t), t, t)
            else:
                raise ValueError(f"Passed in object {t!r} of type {type(t).__name__!r}, not "
                                 "tw.Tensor or tw.Variable, to GradientTape.watch")

    def _watch_key(self, key: int, tensor, source) -> None:
        if key not in self._watched:
            self._watched[key] = tensor
            self._sources.append(source)

    def record(self, op) -> None:
        """Called by ``bind`` for every op run while this tape records.

        Keeps ``op`` if one of its inputs is watched, or if it reads a trainable variable and
        the tape watches accessed variables; its outputs then count as watched.

        Args:
            op: an EagerOp or a graph Operation.
        """
        watched = self._watched
        hit = False
        for t in op.inputs:
            if id(t) in watched:
                hit = True
                break
        if not hit:
            # An op that reads a variable declares ``accessed_variable(op)`` (registry.py).
            accessed = op.opdef.accessed_variable
            var = accessed(op) if accessed is not None else None
            if var is None:
                return
            if id(var) not in self._watched_vars:
                if not self._watch_accessed_variables or not var.trainable:
                    return
                self._watched_vars.add(id(var))
                self._watch_key(id(var.handle), var.handle, var)
            # In a graph the handle is a captured copy: its inputs stand for the variable.
            for t in op.inputs:
                watched[id(t)] = t
        self._ops.append(op)
        for t in op.outputs:
            watched[id(t)] = t

    @contextlib.contextmanager
    def stop_recording(self) -> Iterator[None]:
        """Temporarily stops recording (``with tape.stop_recording():``).

        Returns:
            A context manager; ops run inside it are not recorded.
        """
        if not self._recording:
            raise ValueError("Tape.stop_recording() called on a tape that is not recording.")
        context.pop_tape(self)
        self._recording = False
        try:
            yield
        finally:
            context.push_tape(self)
            self._recording = True

    def reset(self) -> None:
        """Forgets everything recorded so far (the tape keeps recording if it was)."""
        self._ops = []
        self._watched = {}
        self._sources = []
        self._watched_vars = set()
        self._used = False

    def watched_variables(self) -> tuple:
        """The variables this tape watches, in the order they were first watched.

        Returns:
            A tuple of ``tw.Variable``.
        """
        return tuple(s for s in self._sources if isinstance(s, Variable))

    # ----- differentiation -----
    def gradient(self, target, sources, output_gradients=None,
                 unconnected_gradients=UnconnectedGradients.NONE) -> Any:
        """d(target)/d(sources), summed over target elements (weighted by output_gradients).

        Args:
            target: a tensor or nested structure of tensors to differentiate.
            sources: a tensor/variable or nested structure of them.
            output_gradients: optional gradients of ``target``, one per target tensor.
            unconnected_gradients: ``'none'`` (default) or ``'zero'`` for sources the target
                does not depend on.

        Returns:
            Gradients in the structure of ``sources`` (None for integer or unconnected ones).
        """
        self._check_usable()
        if target is None:
            raise TypeError("Argument `target` should be a list or nested structure of Tensors, "
                            "Variables or CompositeTensors to be differentiated, but received "
                            "None.")
        unconnected = _unconnected(unconnected_gradients)
        flat_targets = nest.flatten(target)
        flat_sources = nest.flatten(sources)
        if any(getattr(s, "_tw_distributed", False) for s in flat_sources):
            flat_sources = [s._local_copy() if getattr(s, "_tw_distributed", False) else s
                            for s in flat_sources]
        if output_gradients is not None:
            flat_out = nest.flatten(output_gradients)
            if len(flat_out) != len(flat_targets):
                raise ValueError(f"output_gradients has {len(flat_out)} tensors for "
                                 f"{len(flat_targets)} targets")
        else:
            flat_out = [None] * len(flat_targets)
        if not self._recording:  # the usual call, after the with block: nothing to pause
            grads = backprop(self._ops, flat_targets, flat_sources, flat_out, unconnected)
        else:
            with self._paused():
                grads = backprop(self._ops, flat_targets, flat_sources, flat_out, unconnected)
        if not self._persistent:
            self._ops = []
        if type(sources) is list and len(flat_sources) == len(sources) and all(
                f is s for f, s in zip(flat_sources, sources)):
            return grads  # a flat list of sources (the common case): no structure to rebuild
        return nest.pack_sequence_as(sources, grads)

    def _check_usable(self) -> None:
        if self._used and not self._persistent:
            raise RuntimeError("A non-persistent GradientTape can only be used to compute one "
                               "set of gradients (or jacobians)")
        self._used = True

    def jacobian(self, target, sources, unconnected_gradients=UnconnectedGradients.NONE,
                 parallel_iterations=None, experimental_use_pfor: bool = True) -> Any:
        """The full Jacobian of ``target`` with respect to each source.

        One backward pass per element of ``target``, each seeded with a one-hot output gradient.
        Works eagerly and while building a graph when ``target``'s shape is static.

        Args:
            target: a tensor (or variable) to differentiate.
            sources: a tensor/variable or nested structure of them.
            unconnected_gradients: ``'none'`` (default) or ``'zero'``.
            parallel_iterations: a hint that changes nothing: TensorFlow's cap on the
                backward passes run at once; twinflow runs them one after another (the
                values are the same).
            experimental_use_pfor: a hint that changes nothing: TensorFlow's choice between
                vectorizing the passes and a while loop, which give the same values;
                twinflow runs one pass per element either way.

        Returns:
            Per source, a tensor of shape ``target.shape + source.shape`` (or None).
        """
        target, tshape, unconnected = self._jacobian_target(target, unconnected_gradients,
                                                            "jacobian")
        flat_sources = nest.flatten(sources)
        n = int(np.prod(tshape, dtype=np.int64))
        with self._paused():
            per_element = [backprop(self._ops, [target], flat_sources,
                                    [_one_hot_seed(target, tshape, i, None)], unconnected)
                           for i in range(n)]
            out = [_assemble(target, s, [row[k] for row in per_element], tshape, (), unconnected)
                   for k, s in enumerate(flat_sources)]
        return nest.pack_sequence_as(sources, out)

    def _jacobian_target(self, target, unconnected_gradients, what: str) -> tuple:
        """(target as a tensor, its static shape, the unconnected-gradients mode)."""
        self._check_usable()
        unconnected = _unconnected(unconnected_gradients)
        if isinstance(target, Variable):
            target = target.read_value()
        target = convert(target)
        return target, _static_shape(target, f"{what} target"), unconnected

    def batch_jacobian(self, target, source, unconnected_gradients=UnconnectedGradients.NONE,
                       parallel_iterations=None,
                       experimental_use_pfor: bool = True) -> Tensor | None:
        """Per-example Jacobians: ``target[i]`` with respect to ``source[i]`` for each row ``i``.

        Assumes, as TensorFlow does, that row ``i`` of ``target`` depends only on row ``i`` of
        ``source``.

        Args:
            target: a tensor of shape ``[b, ...]``.
            source: a tensor of shape ``[b, ...]``.
            unconnected_gradients: ``'none'`` (default) or ``'zero'``.
            parallel_iterations: a hint that changes nothing (as ``jacobian``'s).
            experimental_use_pfor: a hint that changes nothing (as ``jacobian``'s).

        Returns:
            A tensor of shape ``[b] + target.shape[1:] + source.shape[1:]`` (or None).
        """
        target, tshape, unconnected = self._jacobian_target(target, unconnected_gradients,
                                                            "batch_jacobian")
        if not tshape:
            raise ValueError("batch_jacobian needs a target of rank >= 1 (the batch axis)")
        sshape = _static_shape(source, "batch_jacobian source")
        if not sshape or sshape[0] != tshape[0]:
            raise ValueError(f"batch_jacobian: target shape {list(tshape)} and source shape "
                             f"{list(sshape)} need the same first (batch) dimension")
        n = int(np.prod(tshape[1:], dtype=np.int64))
        with self._paused():
            grads = [backprop(self._ops, [target], [source],
                              [_one_hot_seed(target, tshape, j, tshape[0])], unconnected)[0]
                     for j in range(n)]
            return _assemble(target, source, grads, tshape[1:], (tshape[0],), unconnected)

    @contextlib.contextmanager
    def _paused(self) -> Iterator[None]:
        was = self._recording
        if was:
            context.pop_tape(self)
            self._recording = False
        try:
            yield
        finally:
            if was:
                context.push_tape(self)
                self._recording = True


def _unconnected(value) -> UnconnectedGradients:
    if isinstance(value, UnconnectedGradients):
        return value
    if isinstance(value, enum.Enum):
        value = value.value
    try:
        return UnconnectedGradients(str(value).lower())
    except ValueError:
        raise ValueError(f"Unknown value for unconnected_gradients: {value!r} (expected "
                         "'none' or 'zero')") from None


def _static_shape(t, what: str) -> tuple:
    shape = t.shape
    if not shape.is_fully_defined():
        raise ValueError(f"{what} needs a statically known shape, got {shape}")
    return tuple(shape.as_list())


def _one_hot_seed(target, tshape: tuple, index: int, batch):
    """An output gradient selecting element ``index`` of target (of every row when batched)."""
    if batch is None:
        seed = np.zeros(int(np.prod(tshape, dtype=np.int64)), dtype=target.dtype.np)
        seed[index] = 1
    else:
        seed = np.zeros((batch, int(np.prod(tshape[1:], dtype=np.int64))),
                        dtype=target.dtype.np)
        seed[:, index] = 1
    return constant(seed.reshape(tshape))


def _assemble(target, source, grads: list, tshape: tuple, batch: tuple,
              unconnected: UnconnectedGradients):
    """Stacks per-element gradients into ``batch + tshape + source.shape[len(batch):]``."""
    src = source.read_value() if isinstance(source, Variable) else source
    if src is None or not src.dtype.is_differentiable:
        return None
    sshape = tuple(src.shape.as_list()) if src.shape.is_fully_defined() else None
    if not grads and sshape is not None:  # an empty target
        return constant(np.zeros(batch + tshape + sshape[len(batch):], src.dtype.np))
    if all(g is None for g in grads):
        if unconnected is UnconnectedGradients.NONE or sshape is None:
            return None
        return constant(np.zeros(batch + tshape + sshape[len(batch):], src.dtype.np))
    filled = [_dense(g) if g is not None else bind(ZerosLike, [src]) for g in grads]
    stacked = bind(Pack, filled, {"axis": len(batch)})
    if sshape is None:
        raise ValueError(f"jacobian needs a source of statically known shape, got {src.shape}")
    return array_ops.reshape(stacked, list(batch + tshape + sshape[len(batch):]))


def _source_tensor(s):
    return s.handle if isinstance(s, Variable) else s


def _source_ids(sources: list, ops: list) -> list:
    """Per source, the ids of the tensors that stand for it (a variable may have several
    handles: its eager one and one per graph that captured it)."""
    ids = [set() if s is None else {id(_source_tensor(s))} for s in sources]
    var_index = {id(s): i for i, s in enumerate(sources) if isinstance(s, Variable)}
    if var_index:
        for op in ops:
            if type(op) is EagerOp:
                continue  # eager inputs are never symbolic
            for h in op.inputs:
                if isinstance(h, SymbolicTensor) and h.dtype is _RESOURCE:
                    i = var_index.get(id(variable_of(h)))
                    if i is not None:
                        ids[i].add(id(h))
    return ids


def backprop(ops: list, targets: list, sources: list, output_grads: list,
             unconnected: UnconnectedGradients = UnconnectedGradients.NONE,
             stop_ops: frozenset = frozenset()) -> list:
    """Runs the gradient rules of ``ops`` (in reverse) from ``targets`` down to ``sources``.

    Args:
        ops: recorded ops (EagerOp or Operation) in execution order.
        targets: tensors to differentiate.
        sources: tensors or variables to differentiate with respect to.
        output_grads: one initial gradient per target, or None for ones.
        unconnected: what to return for sources that get no gradient.
        stop_ops: ids of ops no gradient passes through (``tw.gradients``'
            ``stop_gradients``: their outputs count as constants).

    Returns:
        One gradient (or None) per source.
    """
    partials: dict = {}
    for t, g in zip(targets, output_grads):
        if t is None:
            continue
        key = None
        if isinstance(t, Variable):
            # The gradient flows into the variable itself (its handle): d v / d v is 1, as in
            # TensorFlow, even when nothing read it on the tape.
            key = id(_source_tensor(t))
            t = t.read_value()
        if not isinstance(t, Tensor):
            raise ValueError(f"gradient target must be a tensor, got {t!r}")
        if not (t.dtype.is_differentiable or t.dtype is _VARIANT and g is not None):
            continue
        if g is not None:
            seed = convert(g, dtype=t.dtype)
        elif type(t) is EagerTensor:
            # Eagerly the seed is a plain constant (OnesLike has no gradient to record).
            v = t._value
            seed = EagerTensor(np.ones(v.shape, v.dtype) if v.shape else np.array(1, v.dtype))
        else:
            seed = bind(OnesLike, [t])
        partials.setdefault(id(t) if key is None else key, []).append(seed)
    # Only ops on a path from a source to a target matter: walk forward from the sources.
    per_source = _source_ids(sources, ops)
    reachable = set().union(*per_source) if per_source else set()
    relevant = []
    for op in ops:
        if stop_ops and id(op) in stop_ops:
            continue
        for t in op.inputs:
            if id(t) in reachable:
                relevant.append(op)
                for o in op.outputs:
                    reachable.add(id(o))
                break
    for op in reversed(relevant):
        outs = op.outputs
        opdef = op.opdef
        if len(outs) == 1 and not opdef.multi_output:
            dy = partials.get(id(outs[0]))
            if dy is None:
                continue
            dys = None
        else:
            for t in outs:
                if id(t) in partials:
                    break
            else:
                continue
            dys = [_dense(_sum(partials.get(id(t)))) for t in outs]
        grad_fn = opdef.grad
        if grad_fn is None:
            raise LookupError(f"No gradient defined for operation {op.type!r} "
                              f"({op._error_context()})")
        inputs = op.inputs
        # Gradients of inputs off every path from a source are thrown away below: rules may
        # skip them (TensorFlow's skip_input_indices), e.g. MatMul's dx for the input batch.
        needs = tuple([id(t) in reachable for t in inputs])
        op.needs_grad = needs
        if dys is None:
            g = _sum(dy)
            if type(g) is IndexedSlices and op.type not in _PASSES_SLICES:
                g = g._as_tensor()
            result = grad_fn(op, g)
        else:
            result = grad_fn(op, *dys)
        in_grads = result if isinstance(result, (list, tuple)) else [result]
        if len(in_grads) != len(inputs):
            raise InvalidArgumentError(
                None, None, f"Gradient of {op.type} returned {len(in_grads)} values for "
                f"{len(inputs)} inputs")
        for t, g, need in zip(inputs, in_grads, needs):
            if need and g is not None and _has_gradient(t):
                partials.setdefault(id(t), []).append(g)
    out = []
    for s, ids in zip(sources, per_source):
        if s is None or not (s.dtype.is_differentiable or s.dtype in (_VARIANT, _RESOURCE)):
            out.append(None)
            continue
        g = _sum([g for i in ids for g in partials.get(i, ())])
        if g is None and unconnected is UnconnectedGradients.ZERO:
            g = bind(ZerosLike, [s.read_value() if isinstance(s, Variable) else s])
        out.append(g)
    return out


def _has_gradient(t) -> bool:
    """Whether a tensor of ``t``'s dtype carries a gradient (resource: a variable's handle)."""
    if type(t) is EagerTensor:
        k = t._value.dtype.kind  # is_differentiable, without the DType lookup (but bfloat16)
        return k in "fc" or k == "V" and t.dtype.is_differentiable
    d = t.dtype
    return d.is_differentiable or d is _RESOURCE or d is _VARIANT


def _sum(gs):
    """The sum of the gradients reaching one tensor: IndexedSlices alone stay sparse (rows and
    indices concatenated, as TensorFlow's aggregation), mixed with dense ones they densify."""
    if not gs:
        return None
    if len(gs) == 1:
        return gs[0]
    slices = [g for g in gs if type(g) is IndexedSlices]
    if not slices:
        return math_ops.add_n(gs)
    if len(slices) == len(gs):
        return IndexedSlices(array_ops.concat([g.values for g in gs], 0),
                             array_ops.concat([math_ops.cast(g.indices, gs[0].indices.dtype)
                                               for g in gs], 0), gs[0].dense_shape)
    return math_ops.add_n([_dense(g) for g in gs])


def _dense(g):
    return g._as_tensor() if type(g) is IndexedSlices else g
