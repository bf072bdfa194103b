"""``tw.distribute``: data-parallel training over replicas (TensorFlow's ``tf.distribute``).

``MirroredStrategy(['/cpu:0', '/cpu:1'])`` runs one replica per device of this process:
variables created under ``strategy.scope()`` are mirrored (a copy per device),
``strategy.run(fn, args)`` runs ``fn`` once per replica (PerReplica arguments give each its
own value), ``strategy.reduce``/``gather`` and ``ReplicaContext.all_reduce``/``merge_call``
combine what the replicas computed; distributed datasets split each global batch. Every
method works eagerly and inside ``tw.function``. Keras ``fit`` under ``strategy.scope()``
splits each batch over the replicas and all-reduces the gradients.

Extension point (multi-worker strategies, e.g. ``mpi*.py``): subclass ``StrategyExtended``
(see strategy.py's docstring) and set

* ``_num_workers``/``_worker_index``: the processes (so ``num_replicas_in_sync`` and each
  replica's ``replica_id_in_sync_group`` count every process's replicas);
* ``_cross_device_ops``: a ``CrossDeviceOps`` whose ``batch_all_reduce``, ``all_gather`` and
  ``broadcast`` also combine across processes. Every reduction goes through them with the
  local replicas' values: ``strategy.reduce``/``gather``, ``extended.reduce_to``,
  ``ReplicaContext.all_reduce``/``all_gather``, sync-on-read variable reads, and the gradients
  of Keras ``fit``. MEAN divides by the number of values *all processes* contributed;
* ``_communication_options``: CommunicationOptions merged into every collective's options;
* ``_shard_dataset(dataset)``: the part of a dataset this process reads (auto-sharding by
  file); ``_split_global_batch(element)``: the local replicas' slices of a global batch (by
  default each batch is split over all replicas of all processes and this process keeps its
  own: sharding by data, which also makes Keras ``fit`` on the same arrays in every process
  equal to one process training on the whole batch);
* ``should_checkpoint``/``should_save_summary`` follow ``_worker_index == 0``.

The simplest base is ``mirrored.MirroredExtended`` (one local replica per device): its
``_create_variable`` makes ``MirroredVariable``/``SyncOnReadVariable`` copies, which Keras
``fit`` requires of a model trained under a strategy (with several processes, also broadcast
the chief's initial values). Then ``class MultiWorkerMirroredStrategy(Strategy)`` constructs
that extended object, and its names are exported here.
"""
from __future__ import annotations

import types

from . import cluster_resolver, experimental
from .cross_device_ops import (
                               CrossDeviceOps,
                               HierarchicalCopyAllReduce,
                               NcclAllReduce,
                               ReduceOp,
                               ReductionToOneDevice,
)
from .input import (
                               DistributedDataset,
                               DistributedIterator,
                               InputContext,
                               InputOptions,
                               InputReplicationMode,
)
from .mirrored import MirroredStrategy, OneDeviceStrategy
from .mpi_strategy import MultiWorkerMirroredStrategy
from .strategy import (
                               ReplicaContext,
                               RunOptions,
                               Strategy,
                               StrategyExtended,
                               experimental_set_strategy,
                               get_cross_replica_context,
                               get_replica_context,
                               get_strategy,
                               has_strategy,
                               in_cross_replica_context,
)
from .unsupported import (
                               ClusterCoordinator,
                               ParameterServerStrategy,
                               PerWorkerValue,
                               RemoteValue,
                               Server,
                               TPUStrategy,
)
from .unsupported import experimental_get_current_worker_index as _worker_index
from .values import DistributedValues, Mirrored, PerReplica
from .variables import DistributedVariable, MirroredVariable, SyncOnReadVariable

coordinator = types.SimpleNamespace(
    ClusterCoordinator=ClusterCoordinator, PerWorkerValue=PerWorkerValue, RemoteValue=RemoteValue,
    experimental_get_current_worker_index=_worker_index)

__all__ = [
    "CrossDeviceOps", "DistributedDataset", "DistributedIterator", "DistributedValues",
    "HierarchicalCopyAllReduce", "InputContext", "InputOptions", "InputReplicationMode",
    "MirroredStrategy", "MultiWorkerMirroredStrategy", "NcclAllReduce", "OneDeviceStrategy",
    "ParameterServerStrategy",
    "ReduceOp", "ReductionToOneDevice", "ReplicaContext", "RunOptions", "Server", "Strategy",
    "StrategyExtended", "TPUStrategy", "experimental", "experimental_set_strategy",
    "get_replica_context", "get_strategy", "has_strategy", "in_cross_replica_context",
    "get_cross_replica_context", "Mirrored", "PerReplica", "DistributedVariable",
    "MirroredVariable", "SyncOnReadVariable", "cluster_resolver", "coordinator",
]
