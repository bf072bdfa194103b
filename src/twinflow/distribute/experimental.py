"""``tw.distribute.experimental``: communication options, contexts, and the unsupported
parameter-server / TPU / preemption names (which raise when used)."""
from __future__ import annotations

import types

from .cross_device_ops import (
                               CollectiveCommunication,
                               CollectiveHints,
                               CommunicationImplementation,
                               CommunicationOptions,
)
from .input import ValueContext
from .mpi_strategy import ExperimentalMultiWorkerMirroredStrategy as MultiWorkerMirroredStrategy
from .unsupported import (
                               CentralStorageStrategy,
                               ClusterCoordinator,
                               FixedShardsPartitioner,
                               MaxSizePartitioner,
                               MinSizePartitioner,
                               Partitioner,
                               PerWorkerValues,
                               PreemptionCheckpointHandler,
                               PreemptionWatcher,
                               RemoteValue,
                               RpcClient,
                               RpcServer,
                               TerminationConfig,
)
from .unsupported import ExperimentalParameterServerStrategy as ParameterServerStrategy
from .unsupported import ExperimentalTPUStrategy as TPUStrategy

coordinator = types.SimpleNamespace(ClusterCoordinator=ClusterCoordinator,
                                    PerWorkerValues=PerWorkerValues, RemoteValue=RemoteValue)
partitioners = types.SimpleNamespace(
    Partitioner=Partitioner, FixedShardsPartitioner=FixedShardsPartitioner,
    MaxSizePartitioner=MaxSizePartitioner, MinSizePartitioner=MinSizePartitioner)
rpc = types.SimpleNamespace(Client=RpcClient, Server=RpcServer)

__all__ = ["CentralStorageStrategy", "CollectiveCommunication", "CollectiveHints",
           "CommunicationImplementation", "CommunicationOptions", "MultiWorkerMirroredStrategy",
           "ParameterServerStrategy",
           "PreemptionCheckpointHandler", "PreemptionWatcher", "TPUStrategy",
           "TerminationConfig", "ValueContext", "coordinator", "partitioners", "rpc"]
