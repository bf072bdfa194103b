"""The Strategy base: ``Strategy``/``StrategyExtended``, ``ReplicaContext``, the default strategy.

A strategy's behaviour lives in its ``extended`` object (a StrategyExtended subclass). What a
subclass decides:

* ``worker_devices``: the local replicas' devices (one replica per device);
* ``_num_workers``/``_worker_index``: the processes taking part (1 and 0 in one process),
  hence ``_num_replicas_in_sync`` = workers x local replicas and each replica's global id;
* ``_cross_device_ops``: the ``CrossDeviceOps`` object every reduction goes through;
* ``_create_variable(next_creator, **kwargs)``: what ``tw.Variable`` makes under the scope;
* ``_call_for_each_replica(fn, args, kwargs)``: how ``run`` runs the local replicas;
* ``_shard_dataset``/``_split_global_batch``: how input is split.
"""
from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from typing import Any

from ..core import nest
from ..core.props import readonly
from ..function.function import function
from ..ops import array_ops, math_ops, reduction_ops
from ..ops.core import convert
from ..ops.nn.losses import register_num_replicas
from ..ops.variables import variable_creator_scope
from . import context
from .cross_device_ops import CrossDeviceOps, ReduceOp, as_reduce_op, current_device, on_device
from .input import DistributedDataset, DistributedDatasetsFromFunction, ValueContext, split_batch
from .replica_context import ReplicaContext
from .values import DistributedValues, Mirrored, PerReplica, local_values, regroup, select_replica


class StrategyExtended:
    """The strategy's implementation (``tf.distribute.StrategyExtended``).

    Args:
        container_strategy: the Strategy this object belongs to.
    """

    _num_workers = 1
    _worker_index = 0

    def __init__(self, container_strategy) -> None:
        self._container_strategy_ref = container_strategy
        self._cross_device_ops: CrossDeviceOps = CrossDeviceOps()
        self._communication_options = None

    # ----- what subclasses decide -----
    @property
    def worker_devices(self) -> tuple:
        """The devices of this process's replicas."""
        return (current_device(),)

    parameter_devices = readonly("worker_devices", "The devices variables are placed on.")
    # Replicas are numbered worker by worker: this process holds ids [offset, offset + count).
    _local_replica_count = property(lambda self: len(self.worker_devices))
    _num_replicas_in_sync = property(lambda self: self._num_workers * self._local_replica_count)
    _replica_id_offset = property(lambda self: self._worker_index * self._local_replica_count)

    def _create_variable(self, next_creator: Callable, **kwargs):
        return next_creator(**kwargs)

    def _call_for_each_replica(self, fn: Callable, args: tuple, kwargs: dict):
        strategy = self._container_strategy_ref
        with ReplicaContext(strategy, self._replica_id_offset):
            with on_device(self.worker_devices[0]):
                return fn(*args, **kwargs)

    def _shard_dataset(self, dataset):
        """The part of ``dataset`` this process reads (all of it in one process)."""
        return dataset

    def _split_global_batch(self, element) -> list:
        """This process's replicas' slices of a global batch: the batch is split over all
        ``_num_replicas_in_sync`` replicas and this process keeps its own (one per local
        replica). Distributed datasets and Keras ``fit`` split batches with it."""
        parts = split_batch(element, self._num_replicas_in_sync)
        offset = self._replica_id_offset
        return parts[offset:offset + self._local_replica_count]

    def _options(self, options):
        base = self._communication_options
        return options if base is None else base.merge(options)

    # ----- reductions -----
    def _all_reduce_leaves(self, reduce_op, leaves, options=None) -> list:
        """All-reduces per-replica leaves (in the cross-replica context): one Mirrored each."""
        n = self._local_replica_count
        lists = [list(local_values(v, n)) for v in leaves]
        reduced = self._cross_device_ops.batch_all_reduce(as_reduce_op(reduce_op), lists,
                                                          self._options(options))
        return [Mirrored(r) for r in reduced]

    def reduce_to(self, reduce_op, value, destinations, options=None) -> Any:
        """Reduces a per-replica ``value`` onto ``destinations`` (cross-replica context).

        Args:
            reduce_op: SUM or MEAN.
            value: a DistributedValues, or a value the same on every replica.
            destinations: a device string, list of them, or a variable/distributed value.
            options: CommunicationOptions.

        Returns:
            The reduced value (a Mirrored when there are several destinations).
        """
        return self.batch_reduce_to(reduce_op, [(value, destinations)], options)[0]

    def batch_reduce_to(self, reduce_op, value_destination_pairs, options=None) -> list:
        """``reduce_to`` for several values at once.

        Args:
            reduce_op, options: as for ``reduce_to``.
            value_destination_pairs: ``(value, destinations)`` pairs.

        Returns:
            One reduced value per pair.
        """
        _require_cross_replica(self._container_strategy_ref, "batch_reduce_to")
        reduce_op = as_reduce_op(reduce_op)
        pairs = []
        for value, dest in value_destination_pairs:
            if not isinstance(value, DistributedValues):
                value = _non_distributed(reduce_op, value, self._num_replicas_in_sync,
                                         self._local_replica_count)
            pairs.append((value, dest))
        out = self._cross_device_ops.batch_reduce(reduce_op, pairs, self._options(options))
        return [m.values[0] if len(m.values) == 1 else m for m in out]

    def broadcast_to(self, tensor, destinations) -> Any:
        """Copies ``tensor`` to ``destinations``.

        Args:
            tensor: a tensor.
            destinations: where to.

        Returns:
            The copies (a Mirrored for several destinations).
        """
        m = self._cross_device_ops.broadcast(tensor, destinations)
        return m.values[0] if len(m.values) == 1 else m

    def _gather_to(self, value, destinations, axis: int, options=None):
        if not isinstance(value, DistributedValues):
            value = PerReplica(local_values(value, self._local_replica_count))
        m = self._cross_device_ops._gather(value, destinations, axis, self._options(options))
        return m.values[0] if len(m.values) == 1 else m

    # ----- variables -----
    def variable_created_in_scope(self, v) -> bool:
        """Whether ``v`` was created under this strategy's scope.

        Args:
            v: a variable.

        Returns:
            True if this strategy made it.
        """
        return getattr(v, "_distribute_strategy", None) is self._container_strategy_ref

    @contextlib.contextmanager
    def colocate_vars_with(self, colocate_with_variable) -> Iterator[None]:
        """Variables made in the block are placed as ``colocate_with_variable``.

        Args:
            colocate_with_variable: a variable created under this strategy.

        Returns:
            A context manager.
        """
        devices = getattr(colocate_with_variable, "_tw_devices", None)
        with on_device(devices[0] if devices else ""):
            yield

    def update(self, var, fn: Callable, args=(), kwargs=None, group: bool = True) -> Any:
        """Runs ``fn(copy, *args, **kwargs)`` on each copy of ``var`` (cross-replica context).

        Args:
            var: a variable (a distributed variable: each of its copies).
            fn: the update function.
            args: positional arguments (distributed values give each copy its own value).
            kwargs: keyword arguments.
            group: return one value (the first copy's) instead of one per copy.

        Returns:
            The update's results.
        """
        kwargs = kwargs or {}
        copies = getattr(var, "_values", None) if getattr(var, "_tw_distributed", False) \
            else None
        if copies is None:
            return fn(var, *args, **kwargs)
        results = []
        for i, (copy, dev) in enumerate(zip(copies, var._tw_devices)):
            with on_device(dev):
                results.append(fn(copy, *select_replica(i, args), **select_replica(i, kwargs)))
        return results[0] if group else regroup(results, Mirrored)

    def value_container(self, value) -> Any:
        """The distributed variable a component belongs to (``value`` itself otherwise).

        Args:
            value: a value or variable.

        Returns:
            The container.
        """
        container = getattr(value, "_tw_container", None)
        return value if container is None else container

    # ----- flags -----
    @property
    def experimental_require_static_shapes(self) -> bool:
        """Whether input shapes must be static (only for TPUs)."""
        return False

    @property
    def experimental_between_graph(self) -> bool:
        """Whether each worker runs its own copy of the program."""
        return self._num_workers > 1

    @property
    def should_checkpoint(self) -> bool:
        """Whether this worker writes checkpoints (the chief)."""
        return self._worker_index == 0

    @property
    def should_save_summary(self) -> bool:
        """Whether this worker writes summaries (the chief)."""
        return self._worker_index == 0

    @property
    def should_init(self) -> bool:
        """Whether this worker initializes variables."""
        return True

    experimental_should_init = should_init

    def _in_multi_worker_mode(self) -> bool:
        return self._num_workers > 1


def _require_cross_replica(strategy, method: str) -> None:
    """``method`` combines the replicas' values: a replica of ``strategy`` cannot call it."""
    entry = context.current()
    if entry.replica_context is not None and not context.is_default(entry.strategy):
        raise RuntimeError(f"{method} must be called in a cross-replica context (outside "
                           "strategy.run); inside a replica use get_replica_context()."
                           "all_reduce(...) or merge_call(...)")


def _non_distributed(reduce_op, value, num_replicas: int, local: int) -> PerReplica:
    """A value the same on every replica, reduced: its MEAN is itself; its SUM is ambiguous
    (TensorFlow refuses it too) unless there is one replica."""
    if reduce_op is ReduceOp.SUM and num_replicas != 1:
        raise ValueError(f"A non-DistributedValues value {value!r} cannot be reduced with "
                         f"the given reduce op {reduce_op}.")
    return PerReplica(local_values(convert(value), local))


class Strategy:
    """Distributes computation over replicas (``tf.distribute.Strategy``).

    Args:
        extended: the StrategyExtended implementing it.
    """

    def __init__(self, extended: StrategyExtended) -> None:
        self._extended = extended

    extended = readonly("_extended", "The implementation object (a StrategyExtended).")
    num_replicas_in_sync = readonly("_extended._num_replicas_in_sync",
                                    "How many replicas run each step (in all processes).")

    @property
    def cluster_resolver(self):
        """The cluster resolver (None in one process)."""
        return None

    @contextlib.contextmanager
    def scope(self) -> Iterator[Strategy]:
        """Makes this the current strategy: variables created in the block are distributed.

        Returns:
            A context manager.
        """
        cur = context.current().strategy
        if cur is not self and not context.is_default(cur) and context._state.stack:
            raise ValueError("Mixing different tf.distribute.Strategy objects: "
                             f"{cur!r} is already current; leave its scope first.")
        context.push(self, None)
        try:
            with variable_creator_scope(_strategy_creator):
                yield self
        finally:
            context.pop()

    def run(self, fn: Callable, args=(), kwargs=None, options=None) -> Any:
        """Runs ``fn`` once per replica, with each replica's values of the arguments.

        Args:
            fn: the function; a ``tw.function`` is run as one traced function calling the
                replicas.
            args: positional arguments (a PerReplica gives each replica its own value).
            kwargs: keyword arguments.
            options: a RunOptions.

        Returns:
            The results, PerReplica where replicas differ.
        """
        if options is not None and not isinstance(options, RunOptions):
            raise TypeError(f"options must be a tf.distribute.RunOptions, got {options!r}")
        kwargs = kwargs or {}
        inner = getattr(fn, "python_function", None)
        if inner is not None and callable(getattr(fn, "get_concrete_function", None)):
            return _run_function(self, fn, inner)(*args, **kwargs)
        with self.scope():
            return self._extended._call_for_each_replica(fn, tuple(args), kwargs)

    def reduce(self, reduce_op, value, axis: int | None = None) -> Any:
        """Reduces a per-replica value (``strategy.run``'s result) to one tensor.

        Args:
            reduce_op: SUM or MEAN (or its name).
            value: a PerReplica (or a value the same on every replica), or a structure of them.
            axis: also reduce each replica's value along this axis (None: do not).

        Returns:
            The reduced tensor(s), on the current device.
        """
        reduce_op = as_reduce_op(reduce_op)
        _require_cross_replica(self, "Strategy.reduce")
        if nest.is_nested(value):
            return nest.map_structure(lambda v: self.reduce(reduce_op, v, axis), value)
        ext = self._extended
        if axis is None:
            with self.scope():
                return ext.reduce_to(reduce_op, value, current_device())
        values = local_values(value, ext._local_replica_count) \
            if isinstance(value, DistributedValues) else (convert(value),) * \
            ext._local_replica_count
        sums = PerReplica([reduction_ops.reduce_sum(v, axis=axis) for v in values])
        with self.scope():
            total = ext.reduce_to(ReduceOp.SUM, sums, current_device())
            if reduce_op is ReduceOp.SUM:
                return total
            counts = PerReplica([_axis_length(v, axis) for v in values])
            count = ext.reduce_to(ReduceOp.SUM, counts, current_device())
        return total / math_ops.cast(count, total.dtype)

    def gather(self, value, axis: int) -> Any:
        """Concatenates the replicas' values along ``axis`` (cross-replica context).

        Args:
            value: a PerReplica (or structure of them).
            axis: the axis.

        Returns:
            The concatenated tensor(s), on the current device.
        """
        _require_cross_replica(self, "Strategy.gather")
        if nest.is_nested(value):
            return nest.map_structure(lambda v: self.gather(v, axis), value)
        with self.scope():
            return self._extended._gather_to(value, current_device(), axis)

    def experimental_local_results(self, value) -> tuple:
        """The values of this process's replicas.

        Args:
            value: a distributed value (or anything else: returned as a 1-tuple).

        Returns:
            A tuple, one value per local replica.
        """
        if nest.is_nested(value):
            n = self._extended._local_replica_count
            return tuple(select_replica(i, value) for i in range(n))
        if isinstance(value, DistributedValues):
            return tuple(value.values)
        return (value,)

    def experimental_distribute_values_from_function(self, value_fn: Callable) -> Any:
        """A distributed value made by calling ``value_fn(ValueContext)`` for each replica.

        Args:
            value_fn: returns the value of the replica its ValueContext describes.

        Returns:
            A PerReplica (the value itself for one replica).
        """
        ext = self._extended
        out = []
        for i, dev in enumerate(ext.worker_devices):
            with on_device(dev):
                out.append(value_fn(ValueContext(ext._replica_id_offset + i,
                                                 ext._num_replicas_in_sync)))
        return regroup(out)

    def experimental_distribute_dataset(self, dataset, options=None) -> Any:
        """Splits each global batch of ``dataset`` over the replicas.

        Args:
            dataset: a ``tw.data.Dataset`` of batches (of the global batch size).
            options: an InputOptions.

        Returns:
            A DistributedDataset whose elements hold PerReplica batches.
        """
        return DistributedDataset(self, dataset, options)

    def distribute_datasets_from_function(self, dataset_fn: Callable, options=None) -> Any:
        """A distributed dataset from ``dataset_fn(InputContext)``, called once per input
        pipeline (process); its batches are per replica and go to the replicas in turn.

        Args:
            dataset_fn: returns the dataset of the pipeline its InputContext describes.
            options: an InputOptions.

        Returns:
            A DistributedDataset.
        """
        return DistributedDatasetsFromFunction(self, dataset_fn, options)

    def __deepcopy__(self, memo) -> Strategy:
        return self  # as TensorFlow: a strategy is shared, never copied

    def __repr__(self) -> str:
        return f"<tw.distribute.{type(self).__name__} with {self.num_replicas_in_sync} " \
               "replica(s)>"


def _axis_length(v, axis: int):
    return math_ops.cast(array_ops.shape(v)[axis], "int64")


_RUN_CACHE: dict = {}
_RUN_LOCK = threading.Lock()


def _run_function(strategy: Strategy, fn, inner: Callable):
    """``strategy.run(tw_function)``: one tw.function calling the replicas, as TensorFlow
    does (a replica waiting in merge_call must not hold the inner function's trace lock)."""
    key = (id(strategy), id(fn))
    with _RUN_LOCK:
        wrapped = _RUN_CACHE.get(key)
        if wrapped is None or wrapped[0] is not fn or wrapped[1] is not strategy:
            def run_replicas(*args, **kwargs):
                with strategy.scope():
                    return strategy.extended._call_for_each_replica(inner, args, kwargs)
            wrapped = (fn, strategy, function(
                run_replicas, input_signature=getattr(fn, "_input_signature", None),
                autograph=getattr(fn, "_autograph", True),
                reduce_retracing=getattr(fn, "_reduce_retracing", False)))
            _RUN_CACHE[key] = wrapped
    return wrapped[2]


def _strategy_creator(next_creator: Callable, **kwargs):
    entry = context.current()
    return entry.strategy.extended._create_variable(next_creator, **kwargs)


class RunOptions:
    """Options for ``strategy.run`` (``tf.distribute.RunOptions``); they concern TPUs.

    Args:
        experimental_enable_dynamic_batch_size: allow batches of varying size (always).
        experimental_bucketizing_dynamic_shape: TPU padding (only False is supported).
        experimental_xla_options: TPU XLA options (only None is supported).
    """

    def __init__(self, experimental_enable_dynamic_batch_size: bool = True,
                 experimental_bucketizing_dynamic_shape: bool = False,
                 experimental_xla_options=None) -> None:
        if experimental_bucketizing_dynamic_shape or experimental_xla_options is not None:
            raise NotImplementedError("RunOptions' bucketizing and XLA options are for TPUs, "
                                      "which twinflow does not support")
        self.experimental_enable_dynamic_batch_size = experimental_enable_dynamic_batch_size
        self.experimental_bucketizing_dynamic_shape = False
        self.experimental_xla_options = None


class _DefaultExtended(StrategyExtended):
    """The default strategy: one replica on the current device, variables unchanged."""


class _DefaultStrategy(Strategy):
    def __init__(self) -> None:
        super().__init__(_DefaultExtended(self))


_DEFAULT = _DefaultStrategy()
context.register_default(_DEFAULT, ReplicaContext(_DEFAULT, 0))
register_num_replicas(lambda: context.current().strategy.num_replicas_in_sync)


def get_strategy() -> Strategy:
    """The current strategy (the default strategy outside any scope).

    Returns:
        The Strategy.
    """
    return context.current().strategy


def has_strategy() -> bool:
    """Whether a strategy other than the default is current.

    Returns:
        True inside a non-default strategy's scope or replica.
    """
    return not context.is_default(context.current().strategy)


def in_cross_replica_context() -> bool:
    """Whether this code runs in a cross-replica context (inside ``strategy.scope()``, not
    inside ``strategy.run``).

    Returns:
        The flag.
    """
    return context.current().replica_context is None


def get_replica_context() -> ReplicaContext | None:
    """The current ReplicaContext, or None in a cross-replica context.

    Returns:
        The ReplicaContext (the default strategy's outside any scope) or None.
    """
    return context.current().replica_context


def get_cross_replica_context() -> Strategy | None:
    """The current strategy in a cross-replica context, or None in a replica context.

    Returns:
        The Strategy or None.
    """
    entry = context.current()
    return entry.strategy if entry.replica_context is None else None


def experimental_set_strategy(strategy: Strategy | None) -> None:
    """Makes ``strategy`` current in this thread outside any scope (None: the default).

    Args:
        strategy: a Strategy or None.
    """
    context.set_strategy(strategy)
