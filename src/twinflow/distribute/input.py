"""Distributed input: datasets whose elements hold one batch per replica.

``experimental_distribute_dataset`` splits each global batch into one slice per replica (sizes
differ by at most one, the first replicas taking the extra elements, so a global batch of 5
over 2 replicas is 3 + 2); ``distribute_datasets_from_function`` calls the function once per
input pipeline (process) and hands its per-replica batches to the local replicas in turn.
"""
from __future__ import annotations

import enum
from collections.abc import Callable
from typing import Any

from ..core import nest
from ..core.props import readonly
from ..data.dataset import Dataset
from ..data.iterator_ops import Iterator
from ..ops import array_ops, math_ops
from ..ops.core import convert
from .cross_device_ops import on_device
from .values import PerReplicaSpec, regroup


class InputReplicationMode(enum.Enum):
    """Whether ``distribute_datasets_from_function`` builds one pipeline per worker (process) or
    one per replica."""

    PER_WORKER = "PER_WORKER"
    PER_REPLICA = "PER_REPLICA"


class InputOptions:
    """Options for distributed datasets (``tf.distribute.InputOptions``).

    Args:
        experimental_fetch_to_device: copy batches to the replicas' devices (True, the default
            None, or False: leave them on the host device).
        experimental_replication_mode: an InputReplicationMode (PER_REPLICA only with
            ``distribute_datasets_from_function``).
        experimental_place_dataset_on_device: run the pipeline on the replica's device (only
            with PER_REPLICA; not with ``experimental_fetch_to_device``).
        experimental_per_replica_buffer_size: batches prefetched per replica (>= 1).
    """

    def __init__(self, experimental_fetch_to_device: bool | None = None,
                 experimental_replication_mode=InputReplicationMode.PER_WORKER,
                 experimental_place_dataset_on_device: bool = False,
                 experimental_per_replica_buffer_size: int = 1) -> None:
        if not isinstance(experimental_replication_mode, InputReplicationMode):
            raise ValueError(f"experimental_replication_mode must be an InputReplicationMode, "
                             f"got {experimental_replication_mode!r}")
        if experimental_place_dataset_on_device and experimental_fetch_to_device:
            raise ValueError("`experimental_place_dataset_on_device` can not be set to True "
                             "when experimental_fetch_to_device is True and replication mode "
                             "is set to `PER_REPLICA`")
        if experimental_place_dataset_on_device and \
                experimental_replication_mode is not InputReplicationMode.PER_REPLICA:
            raise ValueError("`experimental_place_dataset_on_device` can be True only with "
                             "InputReplicationMode.PER_REPLICA")
        if int(experimental_per_replica_buffer_size) < 1:
            raise ValueError("experimental_per_replica_buffer_size must be at least 1")
        self.experimental_fetch_to_device = experimental_fetch_to_device
        self.experimental_replication_mode = experimental_replication_mode
        self.experimental_place_dataset_on_device = experimental_place_dataset_on_device
        self.experimental_per_replica_buffer_size = int(experimental_per_replica_buffer_size)


class InputContext:
    """What one input pipeline needs to know to build its part of the input
    (``tf.distribute.InputContext``).

    Args:
        num_input_pipelines: how many pipelines there are (processes, or replicas).
        input_pipeline_id: this pipeline's id.
        num_replicas_in_sync: how many replicas take part.
    """

    def __init__(self, num_input_pipelines: int = 1, input_pipeline_id: int = 0,
                 num_replicas_in_sync: int = 1) -> None:
        if not 0 <= input_pipeline_id < num_input_pipelines:
            raise ValueError(f"input_pipeline_id {input_pipeline_id} is not in "
                             f"[0, {num_input_pipelines})")
        self._num_input_pipelines = int(num_input_pipelines)
        self._input_pipeline_id = int(input_pipeline_id)
        self._num_replicas_in_sync = int(num_replicas_in_sync)

    num_input_pipelines = readonly("_num_input_pipelines", "How many input pipelines there are.")
    input_pipeline_id = readonly("_input_pipeline_id", "This pipeline's id.")
    num_replicas_in_sync = readonly("_num_replicas_in_sync", "How many replicas take part.")

    def get_per_replica_batch_size(self, global_batch_size: int) -> int:
        """The per-replica batch size of ``global_batch_size``.

        Args:
            global_batch_size: the global batch size.

        Returns:
            global_batch_size / num_replicas_in_sync.

        Raises:
            ValueError: the global batch does not divide evenly.
        """
        if global_batch_size % self._num_replicas_in_sync:
            raise ValueError(f"The `global_batch_size` {global_batch_size} is not divisible by "
                             f"`num_replicas_in_sync` {self._num_replicas_in_sync}")
        return global_batch_size // self._num_replicas_in_sync

    def __repr__(self) -> str:
        return (f"tf.distribute.InputContext(input pipeline id {self._input_pipeline_id}, "
                f"total: {self._num_input_pipelines})")


class ValueContext:
    """Which replica ``experimental_distribute_values_from_function`` asks a value for.

    Args:
        replica_id_in_sync_group: the replica's global id.
        num_replicas_in_sync: how many replicas take part.
    """

    def __init__(self, replica_id_in_sync_group: int = 0, num_replicas_in_sync: int = 1) -> None:
        self._replica_id = int(replica_id_in_sync_group)
        self._num_replicas = int(num_replicas_in_sync)

    replica_id_in_sync_group = readonly("_replica_id", "The replica's global id.")
    num_replicas_in_sync = readonly("_num_replicas", "How many replicas take part.")

    def __repr__(self) -> str:
        return (f"tf.distribute.ValueContext(replica id {self._replica_id}, total replicas in "
                f"sync: {self._num_replicas})")


def split_batch(element, parts: int) -> list:
    """Splits every tensor of ``element`` along its first axis into ``parts`` slices.

    Sizes differ by at most one, the first slices taking the extra rows; with fewer rows than
    parts the last slices are empty.

    Args:
        element: a tensor or nested structure of tensors sharing their first dimension.
        parts: how many slices.

    Returns:
        A list of ``parts`` structures like ``element``.
    """
    flat = [convert(t) for t in nest.flatten(element)]
    if parts == 1:
        return [element]
    out: list = [[] for _ in range(parts)]
    for leaf in flat:
        if leaf.shape.rank == 0:
            raise ValueError(f"Cannot split a scalar ({leaf!r}) over {parts} replicas: "
                             "distributed input must be batched (dataset.batch(global_batch)).")
        n = leaf.shape[0] if leaf.shape.rank is not None else None
        if n is None:
            n = array_ops.shape(leaf, out_type="int64")[0]
            q, r = math_ops.floordiv(n, parts), math_ops.floormod(n, parts)
        else:
            q, r = divmod(n, parts)
        for i in range(parts):
            if isinstance(q, int):
                begin, size = i * q + min(i, r), q + (1 if i < r else 0)
            else:
                begin = q * i + math_ops.minimum(r, i)
                size = q + math_ops.cast(math_ops.less(i, r), "int64")
            out[i].append(leaf[begin:begin + size])
    return [nest.pack_sequence_as(element, o) for o in out]


def _place(devices: tuple, per_replica: tuple) -> Any:
    placed = []
    for dev, value in zip(devices, per_replica):
        with on_device(dev):
            placed.append(nest.map_structure(array_ops.identity, value))
    return regroup(placed)


class DistributedIterator:
    """Iterates a distributed dataset: each element holds PerReplica batches
    (``tf.distribute.DistributedIterator``).

    Args:
        dataset: the distributed dataset.
    """

    def __init__(self, dataset) -> None:
        self._distributed = dataset
        self._it = iter(dataset._dataset)

    def __iter__(self) -> DistributedIterator:
        return self

    def __next__(self) -> Any:
        return self._distributed._to_per_replica(next(self._it))

    # Built on next() and element_spec, as tw.data's iterator: OutOfRangeError / an empty
    # Optional at the end of the data.
    get_next = Iterator.get_next
    get_next_as_optional = Iterator.get_next_as_optional

    @property
    def element_spec(self) -> Any:
        """The spec of the elements (PerReplicaSpec leaves)."""
        return self._distributed.element_spec


class DistributedDataset:
    """A dataset whose elements are distributed over a strategy's replicas
    (``tf.distribute.DistributedDataset``).

    Args:
        strategy: the strategy.
        dataset: a ``tw.data.Dataset`` of global batches.
        options: an InputOptions.
    """

    def __init__(self, strategy, dataset, options: InputOptions | None = None) -> None:
        if not isinstance(dataset, Dataset):
            raise TypeError(f"experimental_distribute_dataset needs a tw.data.Dataset, got "
                            f"{type(dataset).__name__}")
        options = options or InputOptions()
        if options.experimental_replication_mode is InputReplicationMode.PER_REPLICA:
            raise NotImplementedError("InputReplicationMode.PER_REPLICA is only supported with "
                                      "distribute_datasets_from_function")
        self._strategy = strategy
        self._options = options
        ext = strategy.extended
        self._devices = tuple(ext.worker_devices)
        sharded = ext._shard_dataset(dataset)
        # A process that auto-sharded (multi-worker) has its own batches already: they are
        # split over its local replicas only; otherwise each global batch over all replicas.
        local = sharded is not dataset
        dataset = sharded
        self._parts = len(self._devices)
        self._tupled = ext._num_replicas_in_sync > 1
        if self._tupled:
            tuple_element = isinstance(dataset.element_spec, tuple)

            def split(*xs):
                element = xs if tuple_element else xs[0]
                if local:
                    return tuple(split_batch(element, self._parts))
                return tuple(ext._split_global_batch(element))
            dataset = dataset.map(split)
        self._dataset = dataset

    def _to_per_replica(self, element) -> Any:
        per_replica = tuple(element) if self._tupled else (element,)
        if self._options.experimental_fetch_to_device is False:
            return regroup(list(per_replica))
        return _place(self._devices, per_replica)

    def __iter__(self) -> DistributedIterator:
        return DistributedIterator(self)

    def __ag_for_stmt__(self, extra_test, body, vals, names):
        def per_replica_body(element, *loop_vals):
            return body(self._to_per_replica(element), *loop_vals)
        return type(self._dataset).__ag_for_stmt__(self._dataset, extra_test, per_replica_body,
                                                   vals, names)

    @property
    def element_spec(self) -> Any:
        """The spec of the elements: PerReplicaSpec where replicas get different batches."""
        spec = self._dataset.element_spec
        if not self._tupled:
            return spec
        if self._parts == 1:
            return spec[0]
        flats = [nest.flatten(s) for s in spec]
        leaves = [PerReplicaSpec(*column) for column in zip(*flats)]
        return nest.pack_sequence_as(spec[0], leaves)

    def reduce(self, initial_state, reduce_func: Callable) -> Any:
        """Folds ``reduce_func(state, element)`` over the elements.

        Args:
            initial_state: the first state.
            reduce_func: ``(state, element) -> state``.

        Returns:
            The last state.
        """
        state = initial_state
        for element in self:
            state = reduce_func(state, element)
        return state


class DistributedDatasetsFromFunction(DistributedDataset):
    """The distributed dataset of ``distribute_datasets_from_function``.

    Args:
        strategy: the strategy.
        dataset_fn: ``fn(InputContext) -> tw.data.Dataset`` of per-replica batches.
        options: an InputOptions.
    """

    def __init__(self, strategy, dataset_fn: Callable, options: InputOptions | None = None) \
            -> None:
        options = options or InputOptions()
        ext = strategy.extended
        self._strategy = strategy
        self._options = options
        self._devices = tuple(ext.worker_devices)
        self._parts = len(self._devices)
        self._tupled = self._parts > 1
        if options.experimental_replication_mode is InputReplicationMode.PER_REPLICA:
            datasets = []
            for i, dev in enumerate(self._devices):
                with on_device(dev):
                    datasets.append(_check(dataset_fn(InputContext(
                        ext._num_replicas_in_sync, ext._replica_id_offset + i,
                        ext._num_replicas_in_sync))))
            self._dataset = datasets[0] if self._parts == 1 else Dataset.zip(tuple(datasets))
        else:
            ds = _check(dataset_fn(InputContext(ext._num_workers, ext._worker_index,
                                                ext._num_replicas_in_sync)))
            # The pipeline's batches go to the local replicas in turn: batch i to replica
            # i mod n (a partial last round ends the data).
            self._dataset = ds if self._parts == 1 else Dataset.zip(
                tuple(ds.shard(self._parts, i) for i in range(self._parts)))


def _check(dataset) -> Dataset:
    if not isinstance(dataset, Dataset):
        raise TypeError(f"dataset_fn must return a tw.data.Dataset, got "
                        f"{type(dataset).__name__}")
    return dataset
