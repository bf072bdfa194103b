"""``ReplicaContext``: what a replica's function sees while ``strategy.run`` runs it
(its id, ``merge_call``, ``all_reduce``, ``all_gather``)."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..core import nest
from ..core.props import readonly
from ..ops.core import convert
from . import context
from .cross_device_ops import as_reduce_op
from .values import Mirrored, local_values, select_replica


class ReplicaContext:
    """The context of one replica while ``strategy.run`` runs its function
    (``tf.distribute.ReplicaContext``).

    Args:
        strategy: the strategy.
        replica_id_in_sync_group: the replica's global id.
    """

    def __init__(self, strategy, replica_id_in_sync_group: int) -> None:
        self._strategy = strategy
        self._replica_id = int(replica_id_in_sync_group)
        self._local_id = self._replica_id - strategy.extended._replica_id_offset
        self._runner = None  # the replica threads' coordinator, while running several

    strategy = readonly("_strategy", "The strategy running this replica.")
    num_replicas_in_sync = readonly("_strategy.num_replicas_in_sync",
                                    "How many replicas take part (in all processes).")

    @property
    def replica_id_in_sync_group(self):
        """This replica's global id, as an int32 tensor."""
        return convert(self._replica_id, dtype="int32")

    @property
    def devices(self) -> tuple:
        """The devices of this replica."""
        return (self._strategy.extended.worker_devices[self._local_id],)

    def merge_call(self, merge_fn: Callable, args=(), kwargs=None) -> Any:
        """Runs ``merge_fn`` once, in the cross-replica context, on the values of all replicas.

        Every replica must call ``merge_call`` (the same number of times); each waits until
        all have. ``merge_fn(strategy, *args, **kwargs)`` gets, for each argument, a
        PerReplica of the replicas' values (the value itself where all passed the same
        object); each replica gets its own value of what it returns.

        Args:
            merge_fn: the function to run in the cross-replica context.
            args: positional arguments.
            kwargs: keyword arguments.

        Returns:
            This replica's value of ``merge_fn``'s result.
        """
        kwargs = kwargs or {}
        if self._runner is not None:
            return self._runner.merge_call(self._local_id, merge_fn, args, kwargs)
        context.push(self._strategy, None)
        try:
            result = merge_fn(self._strategy, *args, **kwargs)
        finally:
            context.pop()
        # the only local replica gets its own value, as the replica threads of several do
        return select_replica(self._local_id, result)

    def all_reduce(self, reduce_op, value, options=None) -> Any:
        """Reduces ``value`` across all replicas; every replica gets the result.

        Args:
            reduce_op: ``tw.distribute.ReduceOp.SUM`` or ``.MEAN`` (or its name).
            value: a tensor or nested structure of tensors.
            options: CommunicationOptions.

        Returns:
            The reduced value, in ``value``'s structure.
        """
        reduce_op = as_reduce_op(reduce_op)
        flat = nest.flatten(value)

        def merge_fn(strategy, *leaves):
            return strategy.extended._all_reduce_leaves(reduce_op, leaves, options)
        reduced = self.merge_call(merge_fn, args=tuple(flat))
        return nest.pack_sequence_as(value, list(reduced))

    def all_gather(self, value, axis: int, options=None) -> Any:
        """Concatenates ``value`` of every replica along ``axis``; every replica gets it.

        Args:
            value: a tensor or nested structure of tensors.
            axis: the axis to concatenate along.
            options: CommunicationOptions.

        Returns:
            The gathered value, in ``value``'s structure.
        """
        flat = nest.flatten(value)

        def merge_fn(strategy, *leaves):
            ext = strategy.extended
            return [Mirrored(ext._cross_device_ops.all_gather(
                list(local_values(v, ext._local_replica_count)), axis, ext._options(options)))
                for v in leaves]
        return nest.pack_sequence_as(value, list(self.merge_call(merge_fn, args=tuple(flat))))

    def __enter__(self) -> ReplicaContext:
        context.push(self._strategy, self)
        return self

    def __exit__(self, *exc) -> None:
        context.pop()

    def __repr__(self) -> str:
        return f"<tw.distribute.ReplicaContext replica {self._replica_id} of " \
               f"{self.num_replicas_in_sync}>"
