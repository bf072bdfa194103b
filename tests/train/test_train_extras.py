"""tw.train leftovers: Coordinator, ExponentialMovingAverage, CheckpointOptions, views,
get_checkpoint_state, PythonState, and the cluster messages (TensorFlow's bytes)."""
import os
import threading
import time

import numpy as np
import pytest

import twinflow as tw


def test_coordinator_stops_threads_and_reraises():
    coord = tw.train.Coordinator()
    ticks = []

    def worker(i):
        with coord.stop_on_exception():
            while not coord.should_stop():
                ticks.append(i)
                if len(ticks) > 20:
                    raise ValueError("boom")
                time.sleep(0.001)
    threads = [threading.Thread(target=worker, args=(i,)) for i in range(3)]
    for t in threads:
        t.start()
    with pytest.raises(ValueError, match="boom"):
        coord.join(threads, stop_grace_period_secs=5)
    assert coord.joined and coord.should_stop()
    coord.clear_stop()
    assert not coord.should_stop()


def test_coordinator_clean_stop_and_stragglers():
    coord = tw.train.Coordinator()
    coord.request_stop(tw.errors.OutOfRangeError(None, None, "end of input"))
    coord.join([])  # a clean stop: nothing raised
    coord = tw.train.Coordinator()
    hold = threading.Event()
    t = threading.Thread(target=hold.wait, name="stuck")
    t.start()
    coord.request_stop()
    with pytest.raises(RuntimeError, match="stuck"):
        coord.join([t], stop_grace_period_secs=0.05)
    hold.set()
    t.join()
    coord = tw.train.Coordinator()
    calls = []
    coord.loop(0.001, lambda: calls.append(1))
    time.sleep(0.05)
    coord.request_stop()
    coord.join(stop_grace_period_secs=5)
    assert calls


def test_exponential_moving_average_matches_tensorflow():
    v = tw.Variable([1.0, 2.0], name="w")
    ema = tw.train.ExponentialMovingAverage(0.9)
    assert ema.apply([v]) is None
    v.assign([3.0, 4.0])
    ema.apply([v])
    np.testing.assert_allclose(ema.average(v).numpy(), [1.2, 2.2], rtol=1e-6)  # TensorFlow's
    assert ema.average_name(v) == "w/ExponentialMovingAverage"
    assert ema.variables_to_restore() == {"w/ExponentialMovingAverage": v}
    ema2 = tw.train.ExponentialMovingAverage(0.9, num_updates=tw.Variable(5, dtype=tw.int64))
    ema2.apply([v])
    v.assign([0.0, 0.0])
    ema2.apply([v])  # decay min(0.9, 6/15)
    np.testing.assert_allclose(ema2.average(v).numpy(), [1.2, 1.6], rtol=1e-6)

    @tw.function
    def step():
        v.assign_add([1.0, 1.0])
        ema.apply([v])
    step()
    np.testing.assert_allclose(ema.average(v).numpy(), [1.18, 2.08], rtol=1e-6)
    with pytest.raises(TypeError, match="non-Variable"):
        ema.apply([tw.constant(1.0)])
    with pytest.raises(TypeError, match="half, float, or double"):
        ema.apply([tw.Variable(1)])


def test_moving_averages_are_checkpointed(tmp_path):
    v = tw.Variable(2.0, name="x")
    ema = tw.train.ExponentialMovingAverage(0.5)
    ema.apply([v])
    v.assign(4.0)
    ema.apply([v])
    path = tw.train.Checkpoint(ema=ema).save(str(tmp_path / "ck"))
    ema.average(v).assign(0.0)
    tw.train.Checkpoint(ema=ema).restore(path).assert_consumed()
    assert float(ema.average(v).numpy()) == 3.0


class Counter(tw.train.experimental.PythonState):
    def __init__(self):
        self.n = 0

    def serialize(self):
        return str(self.n)

    def deserialize(self, string_value):
        self.n = int(string_value)


def test_python_state_options_state_file_and_views(tmp_path):
    c, v = Counter(), tw.Variable(1.0)
    c.n = 5
    ck = tw.train.Checkpoint(counter=c, v=v)
    written = []
    opts = tw.train.CheckpointOptions(experimental_write_callbacks=[written.append])
    path = ck.save(str(tmp_path / "ck"), options=opts)
    assert written == [path]
    c.n = 0
    ck.restore(path)
    assert c.n == 5
    state = tw.train.get_checkpoint_state(str(tmp_path))
    assert state.model_checkpoint_path == path
    assert state.all_model_checkpoint_paths == [path]
    assert tw.train.get_checkpoint_state(str(tmp_path / "none")) is None
    view = tw.train.CheckpointView(path)
    assert view.descendants() == ["counter", "save_counter", "v"]
    assert set(view.match(ck)) == {"v", "save_counter"}
    assert v in tw.train.TrackableView(ck).descendants()
    with pytest.raises(tw.errors.UnimplementedError, match="asynchronous"):
        ck.write(str(tmp_path / "a"), options=tw.train.CheckpointOptions(enable_async=True))
    with pytest.raises(tw.errors.UnimplementedError, match="twinflow's checkpoint format"):
        ck.write(str(tmp_path / "b"), format="tensorflow")
    with pytest.raises(TypeError, match="CheckpointOptions"):
        ck.write(str(tmp_path / "c"), options={"enable_async": False})


def test_tensorflow_state_file_is_read(tmp_path):
    (tmp_path / "checkpoint").write_text('model_checkpoint_path: "ckpt-2"\n'
                                         'all_model_checkpoint_paths: "ckpt-1"\n'
                                         'all_model_checkpoint_paths: "ckpt-2"\n')
    state = tw.train.get_checkpoint_state(str(tmp_path))
    assert state.model_checkpoint_path == os.path.join(str(tmp_path), "ckpt-2")
    assert len(state.all_model_checkpoint_paths) == 2


def test_server_def_bytes_are_tensorflows():
    m = tw.train.ServerDef(
        cluster=tw.train.ClusterDef(job=[tw.train.JobDef(
            name="worker", tasks={0: "localhost:2222", 1: "h:1"})]),
        job_name="worker", task_index=1, protocol="grpc", port=7, replica=2)
    m.default_session_config.intra_op_parallelism_threads = 3
    m.default_session_config.device_count["CPU"] = 2
    # TensorFlow 2.21's tf.train.ServerDef(...same fields...).SerializeToString(deterministic)
    expected = ("0a270a250a06776f726b6572120708011203683a3112120800120e6c6f63616c686f73743a32"
                "3232321206776f726b65721801220b0a070a03435055100210032a046772706330074002")
    assert m.SerializeToString(deterministic=True).hex() == expected
