"""Cluster resolvers: TF_CONFIG, the MPI launcher's environment, ClusterSpec."""
from __future__ import annotations

import json

import pytest

from twinflow.distribute import mpi_cluster as mc


def test_cluster_spec_queries():
    spec = mc.ClusterSpec({"worker": ["a:1", "b:2"], "ps": {3: "c:3"}})
    assert spec.jobs == ["worker", "ps"]
    assert spec.num_tasks("worker") == 2 and spec.task_indices("ps") == [3]
    assert spec.task_address("worker", 1) == "b:2"
    assert spec.job_tasks("worker") == ["a:1", "b:2"]
    assert spec.as_dict() == {"worker": ["a:1", "b:2"], "ps": {3: "c:3"}}
    assert mc.ClusterSpec(spec) == spec and bool(spec) and not mc.ClusterSpec({})
    with pytest.raises(ValueError, match="No such job"):
        spec.num_tasks("chief")
    with pytest.raises(ValueError, match="No task with index 5"):
        spec.task_address("worker", 5)
    with pytest.raises(TypeError, match="dict of job name"):
        mc.ClusterSpec(["a"])


def test_tf_config_resolver(monkeypatch):
    monkeypatch.setenv("TF_CONFIG", json.dumps({
        "cluster": {"worker": ["h0:2222", "h1:2222"]}, "task": {"type": "worker", "index": 1},
        "rpc_layer": "grpc"}))
    r = mc.TFConfigClusterResolver()
    assert (r.task_type, r.task_id, r.rpc_layer) == ("worker", 1, "grpc")
    assert r.cluster_spec().num_tasks("worker") == 2
    assert r.master() == "grpc://h1:2222"
    assert r.master("worker", 0, rpc_layer="") == "grpc://h0:2222"
    assert r.num_accelerators() == {}
    monkeypatch.setenv("TF_CONFIG", "{not json")
    with pytest.raises(ValueError, match="TF_CONFIG is not valid JSON"):
        mc.TFConfigClusterResolver()
    monkeypatch.delenv("TF_CONFIG")
    empty = mc.TFConfigClusterResolver()
    assert empty.task_type is None and empty.master() == "" and not empty.cluster_spec()


def test_simple_resolver():
    r = mc.SimpleClusterResolver({"worker": ["x:1"]}, master="x:1", task_type="worker",
                                 task_id=0, num_accelerators={"GPU": 0}, rpc_layer="grpc")
    assert r.master() == "grpc://x:1" and r.num_accelerators() == {"GPU": 0}
    assert r.cluster_spec().job_tasks("worker") == ["x:1"]


def test_mpi_resolver_reads_the_launcher_environment(monkeypatch):
    for var in ("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "PMI_RANK", "PMI_SIZE",
                "PMIX_RANK"):
        monkeypatch.delenv(var, raising=False)
    assert mc.mpi_rank_and_size() == (0, 1)
    monkeypatch.setenv("PMI_RANK", "2")
    monkeypatch.setenv("PMI_SIZE", "4")
    r = mc.MPIClusterResolver()
    assert (r.task_type, r.task_id, r.num_workers) == ("worker", 2, 4)
    assert r.cluster_spec().num_tasks("worker") == 4
    assert r.master().startswith("mpi://") and r.master().endswith("/rank2")
