"""MultiWorkerMirroredStrategy: 2 MPI workers train to the weights one process reaches with the
same global batches; its options and cluster checks in one process."""
from __future__ import annotations

import json
import os

import numpy as np
import pytest

pytest.importorskip("mpi4py")

import twinflow as tw  # noqa: E402
from twinflow.distribute import mpi  # noqa: E402
from twinflow.distribute.mpi_strategy import (  # noqa: E402
    ExperimentalMultiWorkerMirroredStrategy,
    MultiWorkerMirroredStrategy,
)

from . import mpi_worker  # noqa: E402
from .test_mpi import HERE, _OneComm, needs_mpi, run_workers  # noqa: E402


def _reference_custom_loop():
    """What one process computes with global batch 8 (worker 0's initial weights)."""
    x, y = mpi_worker.train_data()
    w, b = mpi_worker.initial_weights(0)
    losses = []
    for _ in range(2):
        for lo in range(0, 32, 8):
            xb, yb = x[lo:lo + 8], y[lo:lo + 8]
            err = xb @ w + b - yb
            losses.append(float((err * err).sum() / 8))
            w = w - np.float32(0.05) * (2 * xb.T @ err / 8)
            b = b - np.float32(0.05) * (2 * err.sum(axis=0) / 8)
    return w, b, losses


@needs_mpi
@pytest.mark.mpi
def test_two_workers_match_one_process(tmp_path):
    proc = run_workers(os.path.join(HERE, "mpi_worker.py"), "custom_loop", str(tmp_path))
    assert proc.returncode == 0, proc.stderr[-3000:]
    w, b, losses = _reference_custom_loop()
    for rank in (0, 1):
        d = np.load(tmp_path / f"rank{rank}.npz")
        assert int(d["replicas"]) == 2 and bool(d["chief"]) == (rank == 0)
        np.testing.assert_allclose(d["w"], w, atol=1e-5)
        np.testing.assert_allclose(d["b"], b, atol=1e-5)
        np.testing.assert_allclose(d["losses"], losses, rtol=1e-5)
    orders = [np.load(tmp_path / f"rank{r}.npz")["order"] for r in (0, 1)]
    np.testing.assert_array_equal(orders[0], orders[1])  # fit's shuffles agree


@needs_mpi
@pytest.mark.mpi
def test_keras_fit_on_two_workers_resumes_after_a_crash(tmp_path):
    script = os.path.join(HERE, "mpi_worker.py")
    crashed = run_workers(script, "keras_fit", str(tmp_path), "crash")
    assert crashed.returncode != 0
    backup = tmp_path / "backup"
    # only the chief wrote: one backup (the second, of epoch 2), nothing else in the folder
    assert sorted(p.name for p in backup.iterdir()) == [
        "backup-2.index.json", "backup-2.npz", "checkpoint"]
    resumed = run_workers(script, "keras_fit", str(tmp_path))
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    one = mpi_worker._model()
    x, y = mpi_worker._data()
    one.fit(x, y, batch_size=8, epochs=3, shuffle=False, verbose=0)
    for rank in (0, 1):
        d = np.load(tmp_path / f"fit{rank}.npz")
        assert d["epochs"].tolist() == [2]  # restored on every worker: only epoch 3 ran
        for i, w in enumerate(one.get_weights()):
            np.testing.assert_allclose(d[f"arr_{i}"], w, atol=1e-5)
        # evaluate reads the metrics across the workers; predict gathers every worker's rows
        np.testing.assert_allclose(d["evaluated"], one.evaluate(x, y, batch_size=8, verbose=0),
                                   rtol=1e-5)
        np.testing.assert_allclose(d["predicted"], one.predict(x, batch_size=8, verbose=0),
                                   atol=1e-5)


@pytest.fixture
def one_worker():
    saved = mpi._world_comm[0]
    mpi._world_comm[0] = mpi.Communicator(_OneComm(), timeout=5)
    yield
    mpi._world_comm[0] = saved


def test_one_worker_strategy(one_worker):
    strategy = MultiWorkerMirroredStrategy()
    assert strategy.num_replicas_in_sync == 1
    assert strategy.cluster_resolver.task_type == "worker"
    assert strategy.extended.should_checkpoint and strategy.extended.should_save_summary
    with strategy.scope():
        v = tw.Variable([1.0, 2.0])
    out = strategy.run(lambda: tw.distribute.get_replica_context().all_reduce("MEAN", v * 2.0))
    np.testing.assert_array_equal(strategy.experimental_local_results(out)[0], [2.0, 4.0])
    ds = tw.data.Dataset.range(4).batch(2)
    assert strategy.extended._shard_dataset(ds) is ds


def test_fit_refuses_a_file_sharded_dataset_on_several_workers(one_worker):
    strategy = MultiWorkerMirroredStrategy()
    options = tw.data.Options()
    options.experimental_distribute.auto_shard_policy = \
        tw.data.experimental.AutoShardPolicy.FILE
    ds = tw.data.Dataset.from_tensor_slices((np.ones((4, 5), np.float32), np.zeros(4))) \
        .batch(2).with_options(options)
    strategy.extended._prepare_fit_input(ds, True)  # one worker: nothing to shard
    strategy.extended._num_workers = 2
    with strategy.scope():
        model = mpi_worker._model()
    with pytest.raises(NotImplementedError, match="shards its input by DATA.*FILE"):
        model.fit(ds, epochs=1, verbose=0)


def test_communication_options(one_worker):
    opts = tw.distribute.experimental.CommunicationOptions(timeout_seconds=7.5)
    strategy = MultiWorkerMirroredStrategy(communication_options=opts)
    assert mpi.world().timeout == 7.5 and strategy.num_replicas_in_sync == 1
    impl = tw.distribute.experimental.CommunicationImplementation
    with pytest.raises(NotImplementedError, match="NCCL is not supported.*over MPI"):
        MultiWorkerMirroredStrategy(communication_options=tw.distribute.experimental.
                                    CommunicationOptions(implementation=impl.NCCL))
    with pytest.raises(NotImplementedError, match="RING is not supported"):
        ExperimentalMultiWorkerMirroredStrategy(communication=impl.RING)
    with pytest.raises(ValueError, match="must be a tf.distribute.experimental.Communication"):
        MultiWorkerMirroredStrategy(communication_options="fast")
    assert ExperimentalMultiWorkerMirroredStrategy().num_replicas_in_sync == 1


def test_tf_config_must_agree_with_the_mpi_job(one_worker, monkeypatch):
    from twinflow.distribute.mpi_cluster import TFConfigClusterResolver

    monkeypatch.setenv("TF_CONFIG", json.dumps({"cluster": {"worker": ["a:1", "b:1"]},
                                                "task": {"type": "worker", "index": 0}}))
    with pytest.raises(ValueError, match="TF_CONFIG describes 2 worker\\(s\\).*mpiexec -n 2"):
        MultiWorkerMirroredStrategy(cluster_resolver=TFConfigClusterResolver())
    monkeypatch.setenv("TF_CONFIG", json.dumps({"cluster": {"worker": ["a:1"]},
                                                "task": {"type": "worker", "index": 0}}))
    resolver = TFConfigClusterResolver()
    assert MultiWorkerMirroredStrategy(cluster_resolver=resolver).cluster_resolver is resolver
