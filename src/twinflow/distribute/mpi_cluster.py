"""Who the workers are: ``tf.distribute.cluster_resolver`` and ``tf.train.ClusterSpec``.

twinflow's workers are the processes of one MPI job: MPI, not a list of gRPC addresses, connects
them. ``MPIClusterResolver`` reads the rank and size MPI gave this process (from the launcher's
environment, without starting MPI); ``TFConfigClusterResolver`` reads TensorFlow's ``TF_CONFIG``
so programs written for TensorFlow's launcher run unchanged when their ``worker`` list and task
index agree with the MPI job.
"""
from __future__ import annotations

import json
import os
import socket

__all__ = ["ClusterResolver", "ClusterSpec", "MPIClusterResolver", "SimpleClusterResolver",
           "TFConfigClusterResolver", "mpi_rank_and_size"]

# (rank, size) variables that MPI launchers set: Open MPI, MPICH/Intel MPI (PMI), Slurm's srun.
_LAUNCHER_ENV = (("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"), ("PMI_RANK", "PMI_SIZE"),
                 ("PMIX_RANK", "OMPI_COMM_WORLD_SIZE"))


def mpi_rank_and_size() -> tuple:
    """This process's rank and the job's size as the MPI launcher set them (``(0, 1)`` for a
    process not started by ``mpiexec``); MPI itself is not initialized.

    Returns:
        ``(rank, size)``.
    """
    for rank_var, size_var in _LAUNCHER_ENV:
        if rank_var in os.environ and size_var in os.environ:
            return int(os.environ[rank_var]), int(os.environ[size_var])
    return 0, 1


class ClusterSpec:
    """A cluster: job names mapped to their tasks' addresses.

    Args:
        cluster: ``{job: [address, ...]}`` or ``{job: {index: address}}``, or a ClusterSpec.
    """

    def __init__(self, cluster) -> None:
        if isinstance(cluster, ClusterSpec):
            cluster = cluster.as_dict()
        if not isinstance(cluster, dict):
            raise TypeError(f"ClusterSpec expects a dict of job name -> tasks, got "
                            f"{type(cluster).__name__}")
        self._jobs: dict = {}
        for job, tasks in cluster.items():
            if isinstance(tasks, dict):
                self._jobs[str(job)] = {int(i): str(a) for i, a in tasks.items()}
            elif isinstance(tasks, (list, tuple)):
                self._jobs[str(job)] = {i: str(a) for i, a in enumerate(tasks)}
            else:
                raise TypeError(f"ClusterSpec: the tasks of job {job!r} must be a list or dict")

    @property
    def jobs(self) -> list:
        """The job names."""
        return list(self._jobs)

    def num_tasks(self, job_name: str) -> int:
        """The number of tasks of a job.

        Args:
            job_name: the job.

        Returns:
            How many tasks it has.
        """
        return len(self._tasks(job_name))

    def task_indices(self, job_name: str) -> list:
        """The task indices of a job, sorted.

        Args:
            job_name: the job.

        Returns:
            The indices.
        """
        return sorted(self._tasks(job_name))

    def task_address(self, job_name: str, task_index: int) -> str:
        """The address of one task.

        Args:
            job_name: the job.
            task_index: the task.

        Returns:
            Its address.
        """
        tasks = self._tasks(job_name)
        if task_index not in tasks:
            raise ValueError(f"No task with index {task_index} in job {job_name!r}")
        return tasks[task_index]

    def job_tasks(self, job_name: str) -> list:
        """The addresses of a job's tasks, in index order.

        Args:
            job_name: the job.

        Returns:
            The addresses.
        """
        tasks = self._tasks(job_name)
        return [tasks[i] for i in sorted(tasks)]

    def as_dict(self) -> dict:
        """The cluster as ``{job: [addresses]}`` (or ``{job: {index: address}}`` when sparse).

        Returns:
            The dict.
        """
        out = {}
        for job, tasks in self._jobs.items():
            dense = sorted(tasks) == list(range(len(tasks)))
            out[job] = [tasks[i] for i in sorted(tasks)] if dense else dict(tasks)
        return out

    def _tasks(self, job_name: str) -> dict:
        if job_name not in self._jobs:
            raise ValueError(f"No such job in cluster: {job_name!r}")
        return self._jobs[job_name]

    def __bool__(self) -> bool:
        return bool(self._jobs)

    def __eq__(self, other) -> bool:
        return isinstance(other, ClusterSpec) and self.as_dict() == other.as_dict()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"ClusterSpec({self.as_dict()!r})"


class ClusterResolver:
    """The base of the resolvers: where the cluster is and which task this process is."""

    task_type: str | None = None
    task_id: int | None = None
    rpc_layer: str | None = None
    environment: str = ""
    _master: str = ""  # this task's address when given (SimpleClusterResolver)

    def cluster_spec(self) -> ClusterSpec:
        """The cluster.

        Returns:
            A ClusterSpec.
        """
        raise NotImplementedError(f"{type(self).__name__} does not describe a cluster")

    def master(self, task_type: str | None = None, task_id: int | None = None,
               rpc_layer: str | None = None) -> str:
        """The address of a task (this one by default), with the rpc layer as a prefix.

        Args:
            task_type: the job name.
            task_id: the task index.
            rpc_layer: e.g. ``'grpc'``.

        Returns:
            The address, or ``''`` when there is no cluster.
        """
        layer = rpc_layer or self.rpc_layer
        if task_type is None and task_id is None and self._master:
            return f"{layer}://{self._master}" if layer else self._master
        task_type = self.task_type if task_type is None else task_type
        task_id = self.task_id if task_id is None else task_id
        spec = self.cluster_spec()
        if not spec or task_type is None or task_id is None:
            return ""
        address = spec.task_address(task_type, task_id)
        return f"{layer}://{address}" if layer else address

    def num_accelerators(self, task_type: str | None = None, task_id: int | None = None,
                         config_proto=None) -> dict:
        """Accelerators per type on a task: twinflow runs on CPUs, so none.

        Args:
            task_type: the job name.
            task_id: the task index.
            config_proto: unused by TensorFlow's CPU path too.

        Returns:
            ``{}``.
        """
        return {}


class SimpleClusterResolver(ClusterResolver):
    """A resolver that returns what it was given.

    Args:
        cluster_spec: a ClusterSpec (or its dict).
        master: this task's address.
        task_type: this task's job.
        task_id: this task's index.
        environment: e.g. ``'google'``; recorded.
        num_accelerators: ``{type: count}``.
        rpc_layer: e.g. ``'grpc'``.
    """

    def __init__(self, cluster_spec, master: str = "", task_type: str | None = None,
                 task_id: int | None = None, environment: str = "", num_accelerators=None,
                 rpc_layer: str | None = None) -> None:
        self._spec = ClusterSpec(cluster_spec)
        self._master = master
        self.task_type, self.task_id = task_type, task_id
        self.environment, self.rpc_layer = environment, rpc_layer
        self._accelerators = dict(num_accelerators or {})

    def cluster_spec(self) -> ClusterSpec:
        """The cluster given.

        Returns:
            A ClusterSpec.
        """
        return self._spec

    def num_accelerators(self, task_type: str | None = None, task_id: int | None = None,
                         config_proto=None) -> dict:
        """The accelerators given.

        Args:
            task_type: the job name.
            task_id: the task index.
            config_proto: unused.

        Returns:
            ``{type: count}``.
        """
        return dict(self._accelerators)


class TFConfigClusterResolver(ClusterResolver):
    """Reads the cluster and this task from the ``TF_CONFIG`` environment variable (JSON with
    ``cluster`` and ``task`` keys), as TensorFlow's launcher sets it.

    Args:
        task_type: overrides ``task.type``.
        task_id: overrides ``task.index``.
        rpc_layer: overrides ``rpc_layer``.
        environment: overrides ``environment``.
    """

    def __init__(self, task_type: str | None = None, task_id: int | None = None,
                 rpc_layer: str | None = None, environment: str | None = None) -> None:
        config = _tf_config()
        task = config.get("task", {})
        self.task_type = task_type if task_type is not None else task.get("type")
        self.task_id = int(task_id if task_id is not None else task.get("index", 0)) \
            if self.task_type is not None else task_id
        self.rpc_layer = rpc_layer if rpc_layer is not None else config.get("rpc_layer")
        self.environment = environment if environment is not None else \
            config.get("environment", "")
        self._spec = ClusterSpec(config.get("cluster", {}))

    def cluster_spec(self) -> ClusterSpec:
        """The cluster of ``TF_CONFIG`` (read when the resolver was made).

        Returns:
            A ClusterSpec.
        """
        return self._spec


def _tf_config() -> dict:
    raw = os.environ.get("TF_CONFIG", "")
    if not raw:
        return {}
    try:
        config = json.loads(raw)
    except json.JSONDecodeError as e:
        raise ValueError(f"TF_CONFIG is not valid JSON: {e}") from None
    if not isinstance(config, dict):
        raise ValueError("TF_CONFIG must be a JSON object with 'cluster' and 'task' keys")
    return config


class MPIClusterResolver(ClusterResolver):
    """The cluster of the MPI job this process belongs to: one ``worker`` task per rank
    (``task_id`` is the MPI rank, worker 0 is the chief). Without ``mpiexec`` it is a
    one-worker cluster.

    MPI connects the processes itself, so the tasks' "addresses" are ``host/rank<r>``
    labels, not endpoints a server listens on.
    """

    task_type = "worker"

    def __init__(self) -> None:
        self.task_id, self.num_workers = mpi_rank_and_size()
        self.rpc_layer = "mpi"

    def cluster_spec(self) -> ClusterSpec:
        """``{'worker': [one label per rank]}``.

        Returns:
            A ClusterSpec.
        """
        host = socket.gethostname()
        return ClusterSpec({"worker": [f"{host}/rank{r}" for r in range(self.num_workers)]})
