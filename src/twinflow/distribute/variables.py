"""Variables with one copy per replica: ``MirroredVariable`` and ``SyncOnReadVariable``.

Both are ``tw.Variable``s (``isinstance(v, tw.Variable)``) holding a copy per local replica
device. Reads and writes inside ``strategy.run`` use the running replica's copy; tapes
differentiate with respect to that copy (``_local_copy``).

* Mirrored (``synchronization`` ON_WRITE/AUTO): the copies stay equal. Written in a cross-replica
  context, every copy is written. Written in a replica context, aggregation NONE writes the
  replica's own copy (the update must then be the same on every replica, as an optimizer step
  after all-reduced gradients is); SUM/MEAN/ONLY_FIRST_REPLICA combine the replicas' values
  (merge_call) and write the result to every copy.
* Sync-on-read (``synchronization=ON_READ``, metrics): each replica writes its own copy; a read
  in a cross-replica context combines the copies by the aggregation (SUM, MEAN, first).
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..core.context import ctx, eager_mode
from ..core.props import readonly
from ..graph.graph import control_dependencies
from ..graph.tensor import Tensor
from ..ops import math_ops
from ..ops.core import convert
from ..ops.variables import Variable, VariableAggregation, VariableSynchronization
from . import context
from .cross_device_ops import ReduceOp, current_device, on_device
from .values import DistributedValues, Mirrored, PerReplica, local_values


def _update_method(method: str, what: str) -> Callable:
    """``DistributedVariable.assign_add`` / ``assign_sub``: as ``assign``, by ``method``."""
    def update(self, delta, use_locking=None, name=None, read_value: bool = True
               ) -> Variable | Tensor | None:
        return self._write(method, delta, read_value)
    update.__name__ = method
    update.__qualname__ = f"DistributedVariable.{method}"
    update.__doc__ = f"""{what} the variable (see the module's docstring for the replica rules).

    Args:
        delta: a tensor or value of the variable's dtype and shape.
        use_locking: unused.
        name: unused.
        read_value: in a graph, return the new value (else None).

    Returns:
        The variable eagerly; the new value (or None) in a graph.
    """
    return update


class DistributedVariable(DistributedValues, Variable):
    """A variable with one copy per local replica (base of Mirrored and SyncOnRead).

    Args:
        strategy: the strategy that made it.
        values: the copies, one per device of ``devices``.
        devices: the local replicas' devices.
        aggregation: a VariableAggregation.
    """

    _tw_distributed = True
    # A variable's Python protocol is its value's (not DistributedValues' refusals).
    __bool__ = Variable.__bool__
    __iter__ = Variable.__iter__
    __len__ = Variable.__len__

    def __init__(self, strategy, values, devices, aggregation) -> None:
        DistributedValues.__init__(self, values)
        self._distribute_strategy = strategy
        self._tw_devices = tuple(devices)
        self._aggregation = VariableAggregation(aggregation or VariableAggregation.NONE)
        primary = self._values[0]
        self._unique_id = primary._unique_id
        self._constraint = primary._constraint
        for v in self._values:
            v._tw_container = self

    # ----- which copy -----
    def _replica_index(self) -> int | None:
        """The running replica's local index, or None in a cross-replica context."""
        rc = context.current().replica_context
        if rc is None or rc._strategy is not self._distribute_strategy:
            return None
        return rc._local_id

    def _local_copy(self) -> Variable:
        i = self._replica_index()
        if i is not None:
            return self._values[i]
        dev = current_device()
        for v, d in zip(self._values, self._tw_devices):
            if d == dev:
                return v
        return self._values[0]

    # ----- Variable's properties: the primary copy's (the copies agree on them) -----
    @property
    def handle(self):
        """The resource handle of the copy in use here."""
        return self._local_copy().handle

    aggregation = readonly("_aggregation", "How replicas' writes combine (VariableAggregation).")
    dtype = _dtype = readonly("_primary.dtype", "The dtype.")
    shape = readonly("_primary.shape", "The shape.")
    _shape_static = readonly("_primary._shape_static")
    name = _name = readonly("_primary.name", "The primary copy's name.")
    trainable = _trainable = readonly("_primary.trainable", "Whether tapes watch it.")
    graph = _graph = readonly("_primary.graph", "The primary copy's graph.")
    ndim = readonly("_primary.ndim", "The number of dimensions.")
    distribute_strategy = readonly("_distribute_strategy", "The strategy that made this variable.")

    @property
    def device(self) -> str:
        """The device of the copy in use here."""
        local = self._local_copy()
        return next(d for v, d in zip(self._values, self._tw_devices) if v is local)

    # ----- storage (checkpoints, get_weights) -----
    @property
    def _value(self) -> np.ndarray:
        return self._local_copy()._value

    def _set(self, value) -> None:
        for v in self._values:
            v._set(value)

    # ----- writes -----
    def _write_all(self, method: str, value):
        """Writes every copy (a Mirrored value gives each copy its own)."""
        if isinstance(value, PerReplica):
            raise ValueError(f"Cannot {method} a PerReplica value to {type(self).__name__} "
                             f"{self.name!r} in a cross-replica context; reduce it first.")
        outs = []
        for i, (v, d) in enumerate(zip(self._values, self._tw_devices)):
            x = value.values[i] if isinstance(value, Mirrored) else value
            with on_device(d):
                outs.append(getattr(v, method)(x))
        return self._result(outs)

    def _result(self, outs: list):
        if ctx.graph is None:
            return self
        ops = [o for o in outs if o is not None]
        with control_dependencies(ops):
            return self._local_copy().read_value()

    def _write(self, method: str, value, read_value: bool) -> Variable | Tensor | None:
        out = self._update(method, value)
        return None if ctx.graph is not None and not read_value else out

    def assign(self, value, use_locking=None, name=None, read_value: bool = True
               ) -> Variable | Tensor | None:
        """Assigns ``value`` (see the module's docstring for the replica rules).

        Args:
            value: the new value.
            use_locking: unused.
            name: unused.
            read_value: in a graph, return the new value (else None).

        Returns:
            The variable eagerly; the new value (or None) in a graph.
        """
        return self._write("assign", value, read_value)

    assign_add = _update_method("assign_add", "Adds ``delta`` to")
    assign_sub = _update_method("assign_sub", "Subtracts ``delta`` from")

    def numpy(self) -> np.ndarray | np.generic:
        """The value read here (combined across replicas for sync-on-read, cross-replica).

        Returns:
            A NumPy array or scalar.
        """
        return self.read_value().numpy()

    def __repr__(self) -> str:
        inner = ",\n  ".join(f"{i}: {v!r}" for i, v in enumerate(self._values))
        return f"{type(self).__name__}:{{\n  {inner}\n}}"

    def __deepcopy__(self, memo):
        return self  # strategy-owned state: copies would leave the replicas


class MirroredVariable(DistributedVariable):
    """A variable whose copies are kept equal on every write (``synchronization`` ON_WRITE)."""

    synchronization = VariableSynchronization.ON_WRITE

    def read_value(self) -> Tensor:
        """The value (the copy of the running replica or of the current device).

        Returns:
            A tensor.
        """
        return self._local_copy().read_value()

    value = read_value

    def _update(self, method: str, value):
        i = self._replica_index()
        if i is None:
            return self._write_all(method, value)
        if self._aggregation is VariableAggregation.NONE:
            out = getattr(self._values[i], method)(value)
            return self if ctx.graph is None else out
        agg = self._aggregation

        def merge_fn(strategy, v):
            if agg is VariableAggregation.ONLY_FIRST_REPLICA:
                first = local_values(v, len(self._values))[0]
                return self._write_all(method, first)
            if agg is VariableAggregation.MEAN and not (self.dtype.is_floating or
                                                        self.dtype.is_complex):
                raise ValueError(f"Cannot update non-float variables with "
                                 f"tf.VariableAggregation.MEAN aggregation in replica context. "
                                 f"Either change the variable dtype to float or update it in "
                                 f"cross-replica context ({self.name}).")
            reduced = strategy.extended._all_reduce_leaves(
                ReduceOp.from_variable_aggregation(agg), [v])[0]
            return self._write_all(method, reduced)
        return context.current().replica_context.merge_call(merge_fn, args=(value,))


class SyncOnReadVariable(DistributedVariable):
    """A variable each replica writes alone; reads across replicas combine the copies
    (``synchronization=ON_READ``: metrics)."""

    synchronization = VariableSynchronization.ON_READ

    def read_value(self) -> Tensor:
        """The replica's own copy in a replica context; the copies combined otherwise.

        Returns:
            A tensor.
        """
        i = self._replica_index()
        if i is not None:
            return self._values[i].read_value()
        agg = self._aggregation
        if agg is VariableAggregation.ONLY_FIRST_REPLICA:
            return self._values[0].read_value()
        op = ReduceOp.from_variable_aggregation(agg)
        reads = []
        for v, d in zip(self._values, self._tw_devices):
            with on_device(d):
                reads.append(v.read_value())
        context.push(self._distribute_strategy, None)
        try:
            return self._distribute_strategy.extended.reduce_to(op, PerReplica(reads),
                                                                current_device())
        finally:
            context.pop()

    value = read_value

    @property
    def _value(self) -> np.ndarray:
        if self._replica_index() is not None:
            return self._values[self._replica_index()]._value
        with eager_mode():
            return np.asarray(self.read_value()._value)

    def _set(self, value) -> None:
        arr = np.asarray(value)
        if self._aggregation is VariableAggregation.SUM:
            arr = (arr / len(self._values)).astype(arr.dtype)
        for v in self._values:
            v._set(arr)

    def _update(self, method: str, value):
        i = self._replica_index()
        if i is not None:
            out = getattr(self._values[i], method)(value)
            return self if ctx.graph is None else out
        if self._aggregation is VariableAggregation.SUM:
            if method != "assign":
                raise ValueError(f"SyncOnReadVariable does not support `{method}` in "
                                 "cross-replica context when aggregation is set to "
                                 "`tf.VariableAggregation.SUM`.")
            n = len(self._values)
            value = convert(value, dtype=self.dtype)
            value = value / math_ops.cast(n, self.dtype) if self.dtype.is_floating else \
                math_ops.floordiv(value, math_ops.cast(n, self.dtype))
        return self._write_all(method, value)


def create_distributed_variable(strategy, devices: tuple, next_creator, kwargs: dict):
    """Makes one copy of a variable per device and wraps them (a strategy's creator).

    Args:
        strategy: the strategy.
        devices: the local replicas' devices.
        next_creator: the next variable creator.
        kwargs: ``tw.Variable``'s keyword arguments.

    Returns:
        A MirroredVariable or SyncOnReadVariable.
    """
    sync = _enum(VariableSynchronization, kwargs.get("synchronization"), "AUTO")
    agg = _enum(VariableAggregation, kwargs.get("aggregation"), "NONE")
    name = kwargs.get("name") or "Variable"
    if sync is VariableSynchronization.NONE:
        raise ValueError(f"`NONE` variable synchronization mode is not supported with "
                         f"tf.distribute strategy. Please change the `synchronization` for "
                         f"variable: {name}")
    on_read = sync is VariableSynchronization.ON_READ
    if on_read:
        if kwargs.get("trainable"):
            raise ValueError(f"Synchronization value can be set to "
                             f"VariableSynchronization.ON_READ only for non-trainable "
                             f"variables. You have specified trainable=True and "
                             f"synchronization=VariableSynchronization.ON_READ ({name}).")
        kwargs = dict(kwargs, trainable=False)
    copies = []
    for i, d in enumerate(devices):
        kw = dict(kwargs)
        if i > 0:
            kw["initial_value"] = _copy_of(copies[0])  # the primary's value, not a 2nd draw
            kw["name"] = f"{name.removesuffix(':0')}/replica_{i}"
        with on_device(d):
            copies.append(next_creator(**kw))
    cls = SyncOnReadVariable if on_read else MirroredVariable
    return cls(strategy, copies, devices, agg)


def _enum(cls, value, default: str):
    """A VariableSynchronization/VariableAggregation from the enum, its int or its name
    (Keras passes ``'on_read'``, ``'sum'``)."""
    if value is None:
        return cls[default]
    if isinstance(value, str):
        member = cls.__members__.get(value.upper())
        if member is None:
            raise ValueError(f"Invalid {cls.__name__}: {value!r}; expected one of "
                             f"{[m.name.lower() for m in cls]}")
        return member
    return cls(value)


def _copy_of(primary: Variable):
    return lambda: primary._value.copy()
