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

from ..core import context, dtypes, nest
from ..core.context import ctx
from ..core.errors import InvalidArgumentError
from ..eager.execute import bind
from ..graph.tensor import Tensor
from ..ops import math_ops
from ..ops.core import OnesLike, ZerosLike, convert
from ..ops.variables import Variable

_RESOURCE = dtypes.resource


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
        """Makes the tape track ``tensor`` (a tensor, variable, or nested structure of them)."""
        for t in nest.flatten(tensor):
            if isinstance(t, Variable):
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
        """Called by ``bind`` for every op run while this tape records."""
        watched = self._watched
        hit = False
        for t in op.inputs:
            if id(t) in watched:
                hit = True
                break
        if not hit:
            if op.type != "ReadVariableOp" or not self._watch_accessed_variables:
                return
            handle = op.inputs[0]
            var = _variable_of(handle)
            if var is None or not var.trainable:
                return
            self._watch_key(id(handle), handle, var)
        self._ops.append(op)
        for t in op.outputs:
            watched[id(t)] = t

    @contextlib.contextmanager
    def stop_recording(self) -> Iterator[None]:
        """Temporarily stops recording (``with tape.stop_recording():``)."""
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
        self._used = False

    def watched_variables(self) -> tuple:
        return tuple(s for s in self._sources if isinstance(s, Variable))

    # ----- differentiation -----
    def gradient(self, target, sources, output_gradients=None,
                 unconnected_gradients=UnconnectedGradients.NONE):
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
        if self._used and not self._persistent:
            raise RuntimeError("A non-persistent GradientTape can only be used to compute one "
                               "set of gradients (or jacobians)")
        self._used = True
        unconnected = UnconnectedGradients(
            unconnected_gradients.value if isinstance(unconnected_gradients, enum.Enum)
            else unconnected_gradients)
        flat_targets = nest.flatten(target)
        flat_sources = nest.flatten(sources)
        if output_gradients is not None:
            flat_out = nest.flatten(output_gradients)
            if len(flat_out) != len(flat_targets):
                raise ValueError(f"output_gradients has {len(flat_out)} tensors for "
                                 f"{len(flat_targets)} targets")
        else:
            flat_out = [None] * len(flat_targets)
        with self._paused():
            grads = backprop(self._ops, flat_targets, flat_sources, flat_out, unconnected)
        if not self._persistent:
            self._ops = []
        return nest.pack_sequence_as(sources, grads)

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


def _variable_of(handle):
    v = getattr(handle, "_value", None)
    return v if isinstance(v, Variable) else None


def _source_tensor(s):
    return s.handle if isinstance(s, Variable) else s


def backprop(ops: list, targets: list, sources: list, output_grads: list,
             unconnected: UnconnectedGradients = UnconnectedGradients.NONE) -> list:
    """Runs the gradient rules of ``ops`` (in reverse) from ``targets`` down to ``sources``.

    Args:
        ops: recorded ops (EagerOp or Operation) in execution order.
        targets: tensors to differentiate.
        sources: tensors or variables to differentiate with respect to.
        output_grads: one initial gradient per target, or None for ones.
        unconnected: what to return for sources that get no gradient.

    Returns:
        One gradient (or None) per source.
    """
    partials: dict = {}
    for t, g in zip(targets, output_grads):
        if t is None:
            continue
        if isinstance(t, Variable):
            t = t.read_value()
        if not isinstance(t, Tensor):
            raise ValueError(f"gradient target must be a tensor, got {t!r}")
        if not t.dtype.is_differentiable:
            continue
        seed = bind(OnesLike, [t]) if g is None else convert(g, dtype=t.dtype)
        partials.setdefault(id(t), []).append(seed)
    # Only ops on a path from a source to a target matter: walk forward from the sources.
    source_ids = {id(_source_tensor(s)) for s in sources if s is not None}
    reachable = set(source_ids)
    relevant = []
    for op in ops:
        if any(id(t) in reachable for t in op.inputs):
            relevant.append(op)
            for t in op.outputs:
                reachable.add(id(t))
    for op in reversed(relevant):
        outs = op.outputs
        if not any(id(t) in partials for t in outs):
            continue
        dys = [_sum(partials.get(id(t))) for t in outs]
        grad_fn = op.opdef.grad
        if grad_fn is None:
            raise LookupError(f"No gradient defined for operation {op.type!r} "
                              f"({op._error_context()})")
        if len(outs) > 1 or op.opdef.multi_output:
            result = grad_fn(op, *dys)
        else:
            if dys[0] is None:
                continue
            result = grad_fn(op, dys[0])
        in_grads = result if isinstance(result, (list, tuple)) else [result]
        if len(in_grads) != len(op.inputs):
            raise InvalidArgumentError(
                None, None, f"Gradient of {op.type} returned {len(in_grads)} values for "
                f"{len(op.inputs)} inputs")
        for t, g in zip(op.inputs, in_grads):
            if g is None or id(t) not in reachable:
                continue
            if not (t.dtype.is_differentiable or t.dtype is _RESOURCE):
                continue
            partials.setdefault(id(t), []).append(g)
    out = []
    for s in sources:
        st = _source_tensor(s)
        if st is None:
            out.append(None)
            continue
        dt = s.dtype
        if not dt.is_differentiable:
            out.append(None)
            continue
        g = _sum(partials.get(id(st)))
        if g is None and unconnected is UnconnectedGradients.ZERO:
            g = bind(ZerosLike, [s.read_value() if isinstance(s, Variable) else s])
        out.append(g)
    return out


def _sum(gs):
    if not gs:
        return None
    if len(gs) == 1:
        return gs[0]
    return math_ops.add_n(gs)
