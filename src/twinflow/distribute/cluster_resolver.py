"""``tw.distribute.cluster_resolver``: who the workers are (MPI's ranks, or ``TF_CONFIG``).

The resolvers that need TensorFlow's gRPC runtime or cloud APIs (GCE, Kubernetes, Slurm, TPU,
Union) raise NotImplementedError when constructed.
"""
from __future__ import annotations

import enum

from .mpi_cluster import (
    ClusterResolver,
    MPIClusterResolver,
    SimpleClusterResolver,
    TFConfigClusterResolver,
)
from .unsupported import (
    GCEClusterResolver,
    KubernetesClusterResolver,
    SlurmClusterResolver,
    TPUClusterResolver,
    UnionResolver,
)


class KubernetesExecutableLocation(enum.Enum):
    """Where a Kubernetes job's program runs (for KubernetesClusterResolver, unsupported)."""

    WITHIN_CLUSTER = 0
    OFF_CLUSTER = 1


__all__ = ["ClusterResolver", "GCEClusterResolver", "KubernetesClusterResolver",
           "KubernetesExecutableLocation", "MPIClusterResolver", "SimpleClusterResolver",
           "SlurmClusterResolver", "TFConfigClusterResolver", "TPUClusterResolver",
           "UnionResolver"]
