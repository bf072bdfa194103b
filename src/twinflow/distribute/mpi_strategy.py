"""``MultiWorkerMirroredStrategy``: MirroredStrategy's replicas in every process of an MPI job
(``mpiexec -n N python train.py``), their collectives over MPI.

Each worker process runs the same program. Its replicas are MirroredStrategy's (one per local
device: the first CPU unless more are configured); ``num_replicas_in_sync`` counts every
worker's. What differs from MirroredStrategy:

* reductions (``strategy.reduce``, ``ReplicaContext.all_reduce``, Keras gradients) sum the local
  replicas, then all-reduce the sums across the workers with one fused ``MpiAllReduce`` op, so
  they work eagerly and inside ``tw.function``; MEAN divides by the replicas of all workers;
* variables created in ``scope()`` start with worker 0's initial values (broadcast at creation),
  so the workers' copies agree although each initializes its own;
* ``experimental_distribute_dataset`` gives each worker its part of the global batches, as the
  dataset's ``AutoShardPolicy`` says (``data/autoshard.py``);
* worker 0 is the chief: ``extended.should_checkpoint`` is true there only.

A collective that waits longer than ``CommunicationOptions.timeout_seconds`` (else
``TWINFLOW_MPI_TIMEOUT``, else 300 s) raises ``DeadlineExceededError`` and the job is aborted
(``mpi.py``).
"""
from __future__ import annotations

import numpy as np

from ..data.autoshard import auto_shard
from ..data.dataset import Dataset
from ..data.experimental import AutoShardPolicy
from ..ops.core import convert
from .cross_device_ops import (
    CollectiveCommunication,
    CommunicationImplementation,
    CommunicationOptions,
    CrossDeviceOps,
    ReduceOp,
    _mean,
    as_reduce_op,
)
from .mirrored import MirroredExtended
from .mpi import Communicator, world
from .mpi_cluster import MPIClusterResolver, TFConfigClusterResolver
from .mpi_ops import all_gather as mpi_all_gather
from .mpi_ops import all_reduce as mpi_all_reduce
from .strategy import Strategy
from .values import DistributedValues, PerReplica

__all__ = ["MPICrossDeviceOps", "MultiWorkerMirroredStrategy",
           "ExperimentalMultiWorkerMirroredStrategy"]


def _check_options(options) -> CommunicationOptions:
    if options is None:
        return CommunicationOptions()
    if not isinstance(options, CommunicationOptions):
        raise ValueError(f"communication_options must be a "
                         f"tf.distribute.experimental.CommunicationOptions, got {options!r}")
    if options.implementation is not CommunicationImplementation.AUTO:
        raise NotImplementedError(
            f"CommunicationImplementation.{options.implementation.name} is not supported: "
            "twinflow's workers run their collectives over MPI (use AUTO)")
    return options


class MPICrossDeviceOps(CrossDeviceOps):
    """Combines the local replicas' values, then the workers' results over MPI.

    Args:
        communicator: the workers' Communicator.
    """

    def __init__(self, communicator: Communicator) -> None:
        self._comm = communicator

    def _collective_args(self, options) -> dict:
        options = _check_options(options)
        return {"communicator": self._comm, "timeout": options.timeout_seconds}

    def batch_all_reduce(self, reduce_op, per_replica_values: list, options=None) -> list:
        """All-reduces several values over every replica of every worker (one fused MPI
        collective).

        Args:
            reduce_op: SUM or MEAN.
            per_replica_values: per value, a list with one tensor per local replica.
            options: CommunicationOptions (``timeout_seconds``, ``bytes_per_pack``).

        Returns:
            Per value, a list with the reduced tensor for each local replica.
        """
        reduce_op = as_reduce_op(reduce_op)
        if not per_replica_values:
            return []
        # this worker's sums (the base class adds the local replicas), then the workers'
        local = [r[0] for r in super().batch_all_reduce(ReduceOp.SUM, per_replica_values)]
        packs = options.bytes_per_pack if options is not None else 0
        total = mpi_all_reduce(local, "sum", bytes_per_pack=packs,
                               **self._collective_args(options))
        counts = [len(values) * self._comm.size for values in per_replica_values]
        if reduce_op is ReduceOp.MEAN:
            total = [_mean(t, n) for t, n in zip(total, counts)]
        return [[t] * len(values) for t, values in zip(total, per_replica_values)]

    def all_gather(self, values: list, axis: int, options=None) -> list:
        """Concatenates every replica's value along ``axis``, workers in rank order.

        Args:
            values: one tensor per local replica.
            axis: the axis to concatenate along.
            options: CommunicationOptions (``timeout_seconds``).

        Returns:
            One tensor per local replica.
        """
        local = super().all_gather(values, axis, options)[0]
        joined = mpi_all_gather(local, axis, **self._collective_args(options))
        return [joined] * len(values)


class MultiWorkerMirroredExtended(MirroredExtended):
    """MultiWorkerMirroredStrategy's implementation.

    Args:
        container_strategy: the strategy.
        cluster_resolver: a ClusterResolver (MPIClusterResolver by default); a
            TFConfigClusterResolver must agree with the MPI job.
        communication_options: CommunicationOptions.
    """

    def __init__(self, container_strategy, cluster_resolver=None,
                 communication_options=None) -> None:
        options = _check_options(communication_options)
        comm = world(timeout=options.timeout_seconds)
        super().__init__(container_strategy, None, MPICrossDeviceOps(comm))
        self._comm = comm
        self._num_workers = comm.size
        self._worker_index = comm.rank
        self._communication_options = options
        self._cluster_resolver = _check_resolver(cluster_resolver, comm)

    def _create_variable(self, next_creator, **kwargs):
        var = super()._create_variable(next_creator, **kwargs)
        if self._num_workers > 1:
            # every worker initialized its own copy: make them all worker 0's
            copies = getattr(var, "_values", None) or (var,)
            value = self._comm.broadcast([copies[0].numpy()], root=0)[0]
            for c in copies:
                c.assign(value)
        return var

    def batch_reduce_to(self, reduce_op, value_destination_pairs, options=None) -> list:
        """Reduces values over every replica of every worker, each onto its destinations.

        As in TensorFlow, with one local replica a plain value (what ``run`` returns then) is
        that replica's value, combined with the other workers'.

        Args:
            reduce_op: SUM or MEAN.
            value_destination_pairs: ``(value, destinations)`` pairs.
            options: CommunicationOptions.

        Returns:
            The reduced values.
        """
        pairs = list(value_destination_pairs)
        if self._local_replica_count == 1:
            pairs = [(v if isinstance(v, DistributedValues) else PerReplica((convert(v),)), d)
                     for v, d in pairs]
        return super().batch_reduce_to(reduce_op, pairs, options)

    def _prepare_fit_input(self, x, shuffle: bool) -> None:
        """Keras ``fit`` reads the whole input on every worker and splits each global batch
        over all replicas (DATA sharding): a dataset that asks for another policy is refused
        rather than silently sharded otherwise; arrays shuffled with NumPy's global generator
        get the same permutations everywhere (its seed is worker 0's)."""
        if self._num_workers == 1:
            return
        if not isinstance(x, Dataset):
            if shuffle:
                seed = np.array(np.random.randint(2**31 - 1), np.int64)
                np.random.seed(int(self._comm.broadcast([seed], root=0)[0]))
            return
        policy = x.options().experimental_distribute.auto_shard_policy
        if policy is not None and \
                AutoShardPolicy(policy) not in (AutoShardPolicy.AUTO, AutoShardPolicy.DATA):
            raise NotImplementedError(
                f"Keras fit under MultiWorkerMirroredStrategy shards its input by DATA (each "
                f"worker keeps its slice of every global batch); the dataset asks for "
                f"AutoShardPolicy.{AutoShardPolicy(policy).name}. Use AUTO or DATA, or a "
                "custom training loop over strategy.experimental_distribute_dataset")

    def _shard_dataset(self, dataset):
        return auto_shard(dataset, self._num_workers, self._worker_index)


def _check_resolver(resolver, comm: Communicator):
    if resolver is None:
        return MPIClusterResolver()
    if isinstance(resolver, TFConfigClusterResolver) and resolver.cluster_spec():
        spec = resolver.cluster_spec()
        workers = sum(spec.num_tasks(j) for j in spec.jobs if j in ("chief", "worker"))
        index = resolver.task_id + (1 if resolver.task_type == "worker" and
                                    "chief" in spec.jobs else 0)
        if workers != comm.size or index != comm.rank:
            raise ValueError(
                f"TF_CONFIG describes {workers} worker(s) with this one at index {index}, but "
                f"the MPI job has {comm.size} worker(s) and this is rank {comm.rank}: start "
                f"the job with `mpiexec -n {workers}` (or unset TF_CONFIG)")
    return resolver


class MultiWorkerMirroredStrategy(Strategy):
    """Synchronous data parallelism over the processes of an MPI job
    (``tf.distribute.MultiWorkerMirroredStrategy``): start the workers with
    ``mpiexec -n N python train.py``.

    Args:
        cluster_resolver: a ClusterResolver (default: ``MPIClusterResolver``, from the MPI
            job); a ``TFConfigClusterResolver`` must describe the same workers.
        communication_options: ``tf.distribute.experimental.CommunicationOptions``:
            ``timeout_seconds`` bounds every collective, ``bytes_per_pack`` splits the fused
            gradient buffer; ``implementation`` must be AUTO (MPI).
    """

    def __init__(self, cluster_resolver=None, communication_options=None) -> None:
        super().__init__(MultiWorkerMirroredExtended(self, cluster_resolver,
                                                     communication_options))

    @property
    def cluster_resolver(self):
        """The cluster resolver describing the workers."""
        return self.extended._cluster_resolver


class ExperimentalMultiWorkerMirroredStrategy(MultiWorkerMirroredStrategy):
    """``tf.distribute.experimental.MultiWorkerMirroredStrategy``: the older signature.

    Args:
        communication: a CommunicationImplementation (AUTO).
        cluster_resolver: see MultiWorkerMirroredStrategy.
    """

    def __init__(self, communication=CollectiveCommunication.AUTO,
                 cluster_resolver=None) -> None:
        super().__init__(cluster_resolver, CommunicationOptions(implementation=communication))
