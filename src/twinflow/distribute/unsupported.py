"""The parts of ``tf.distribute`` twinflow leaves out, each raising a clear error when used.

TPUs do not exist here; parameter-server training, its coordinator and partitioners, gRPC
servers and RPC, and cloud cluster resolvers need TensorFlow's distributed runtime (gRPC
servers in every task). twinflow's multi-worker training is ``MultiWorkerMirroredStrategy``
over MPI instead (processes started with ``mpiexec``).
"""
from __future__ import annotations

_TPU = "there are no TPUs in twinflow (it runs on the CPU)"
_PS = ("parameter-server training needs TensorFlow's gRPC runtime; use "
       "MultiWorkerMirroredStrategy (MPI) for multi-process training")
_GRPC = ("it needs TensorFlow's gRPC distributed runtime; twinflow's processes talk over MPI "
         "(MultiWorkerMirroredStrategy, started with mpiexec)")


class Unsupported:
    """Base of the classes twinflow does not support: constructing one raises.

    Args:
        *args: ignored (the constructor raises).
        **kwargs: ignored (the constructor raises).
    """

    _tw_api = ""
    _tw_reason = ""

    def __init__(self, *args, **kwargs) -> None:
        raise NotImplementedError(f"{self._tw_api} is not supported by twinflow: "
                                  f"{self._tw_reason}.")


def _unsupported(api: str, reason: str) -> type:
    name = api.rsplit(".", 1)[-1]
    doc = f"``{api}``: not supported ({reason}); constructing it raises NotImplementedError."
    return type(name, (Unsupported,), {"_tw_api": api, "_tw_reason": reason, "__doc__": doc,
                                       "__module__": __name__})


TPUStrategy = _unsupported("tf.distribute.TPUStrategy", _TPU)
ExperimentalTPUStrategy = _unsupported("tf.distribute.experimental.TPUStrategy", _TPU)
ParameterServerStrategy = _unsupported("tf.distribute.ParameterServerStrategy", _PS)
ExperimentalParameterServerStrategy = _unsupported(
    "tf.distribute.experimental.ParameterServerStrategy", _PS)
CentralStorageStrategy = _unsupported(
    "tf.distribute.experimental.CentralStorageStrategy",
    "variables kept on one device while replicas compute is not implemented; use "
    "MirroredStrategy, whose results are the same")
Server = _unsupported("tf.distribute.Server", _GRPC)
ClusterCoordinator = _unsupported("tf.distribute.coordinator.ClusterCoordinator", _PS)
PerWorkerValue = _unsupported("tf.distribute.coordinator.PerWorkerValue", _PS)
PerWorkerValues = _unsupported("tf.distribute.experimental.coordinator.PerWorkerValues", _PS)
RemoteValue = _unsupported("tf.distribute.coordinator.RemoteValue", _PS)
Partitioner = _unsupported("tf.distribute.experimental.partitioners.Partitioner", _PS)
FixedShardsPartitioner = _unsupported(
    "tf.distribute.experimental.partitioners.FixedShardsPartitioner", _PS)
MaxSizePartitioner = _unsupported("tf.distribute.experimental.partitioners.MaxSizePartitioner",
                                  _PS)
MinSizePartitioner = _unsupported("tf.distribute.experimental.partitioners.MinSizePartitioner",
                                  _PS)
RpcClient = _unsupported("tf.distribute.experimental.rpc.Client", _GRPC)
RpcServer = _unsupported("tf.distribute.experimental.rpc.Server", _GRPC)
PreemptionCheckpointHandler = _unsupported(
    "tf.distribute.experimental.PreemptionCheckpointHandler",
    "preemption signals come from cloud schedulers; use "
    "tw.keras.callbacks.BackupAndRestore to resume an interrupted run")
PreemptionWatcher = _unsupported("tf.distribute.experimental.PreemptionWatcher",
                                 "preemption notices come from Google Cloud's metadata server")
TerminationConfig = _unsupported("tf.distribute.experimental.TerminationConfig",
                                 "it configures PreemptionCheckpointHandler, not supported")
GCEClusterResolver = _unsupported("tf.distribute.cluster_resolver.GCEClusterResolver", _GRPC)
KubernetesClusterResolver = _unsupported(
    "tf.distribute.cluster_resolver.KubernetesClusterResolver", _GRPC)
SlurmClusterResolver = _unsupported("tf.distribute.cluster_resolver.SlurmClusterResolver",
                                    _GRPC)
TPUClusterResolver = _unsupported("tf.distribute.cluster_resolver.TPUClusterResolver", _TPU)
UnionResolver = _unsupported("tf.distribute.cluster_resolver.UnionResolver", _GRPC)


def experimental_get_current_worker_index() -> int:
    """``tf.distribute.coordinator.experimental_get_current_worker_index`` (parameter servers).

    Returns:
        Never: it raises NotImplementedError.
    """
    raise NotImplementedError("tf.distribute.coordinator.experimental_get_current_worker_index "
                              f"is not supported by twinflow: {_PS}.")
