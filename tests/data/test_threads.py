"""Parallel map and prefetch: real threads, order, errors in the consumer, and threads that
stop when an iterator is dropped early."""
from __future__ import annotations

import gc
import threading
import time
import traceback

import numpy as np
import pytest

import twinflow as tw

Dataset = tw.data.Dataset


def _data_threads() -> list:
    return [t for t in threading.enumerate() if t.name.startswith("twinflow-data")]


def _sleepy(x):
    time.sleep(0.05)
    return x


def test_parallel_map_overlaps_work_and_keeps_order():
    ds = Dataset.range(16).map(lambda x: tw.numpy_function(_sleepy, [x], tw.int64),
                               num_parallel_calls=8)
    t0 = time.perf_counter()
    out = [int(v) for v in ds.as_numpy_iterator()]
    wall = time.perf_counter() - t0
    assert out == list(range(16))
    assert wall < 16 * 0.05 * 0.6  # serial would take 0.8 s


def test_prefetch_fills_from_a_background_thread():
    ds = Dataset.range(5).map(lambda x: tw.numpy_function(_sleepy, [x], tw.int64)).prefetch(3)
    it = iter(ds)
    next(it)
    assert _data_threads()
    time.sleep(0.3)  # the producer runs ahead while the consumer waits
    t0 = time.perf_counter()
    rest = [int(next(it)) for _ in range(3)]
    assert rest == [1, 2, 3] and time.perf_counter() - t0 < 0.1  # unbuffered: 0.15 s
    del it


def _fail_on_3(x):
    if int(x) == 3:
        raise ValueError("element three is bad")
    return x


@pytest.mark.parametrize("kind", ["map", "prefetch"])
def test_worker_error_surfaces_in_consumer(kind):
    ds = Dataset.range(6).map(lambda x: tw.numpy_function(_fail_on_3, [x], tw.int64),
                              num_parallel_calls=3 if kind == "map" else None)
    if kind == "prefetch":
        ds = ds.prefetch(2)
    got = []
    with pytest.raises(Exception, match="element three is bad") as info:
        for v in ds:
            got.append(int(v))
    assert got == [0, 1, 2]
    # the original traceback (the worker's frames) is kept
    assert "_fail_on_3" in "".join(traceback.format_exception(info.value))


def test_dropped_iterator_stops_its_threads():
    before = len(_data_threads())
    ds = Dataset.range(1000).map(lambda x: x + 1, num_parallel_calls=4).prefetch(4)
    it = iter(ds)
    assert [int(next(it)) for _ in range(3)] == [1, 2, 3]
    assert len(_data_threads()) > before
    del it
    gc.collect()
    deadline = time.time() + 5
    while len(_data_threads()) > before and time.time() < deadline:
        time.sleep(0.01)
    assert len(_data_threads()) == before


def test_parallel_map_matches_serial_on_arrays():
    x = np.random.default_rng(0).normal(size=(32, 8)).astype(np.float32)
    serial = list(Dataset.from_tensor_slices(x).map(tw.nn.relu).as_numpy_iterator())
    par = list(Dataset.from_tensor_slices(x).map(tw.nn.relu, num_parallel_calls=tw.data.AUTOTUNE)
               .prefetch(tw.data.AUTOTUNE).as_numpy_iterator())
    np.testing.assert_array_equal(np.stack(serial), np.stack(par))


def _sin_sum(x):
    return tw.reduce_sum(tw.sin(x))


@pytest.mark.skipif(not isinstance(__import__("twinflow.core.context", fromlist=["ctx"]).ctx,
                                   threading.local),
                    reason="needs the per-thread execution context (issue 17)")
def test_py_function_workers_while_the_main_thread_traces():
    ds = Dataset.from_tensor_slices(np.ones((64, 8), np.float32)).map(
        lambda x: tw.py_function(_sin_sum, [x], tw.float32), num_parallel_calls=4).prefetch(4)
    for _ in range(3):
        @tw.function
        def step(v):
            for _ in range(20):
                v = tw.sin(v) + 1.0
            return v
        assert len([step(v) for v in ds]) == 64


def test_keras_fit_on_a_parallel_prefetched_pipeline():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(64, 4)).astype(np.float32)
    y = (x @ np.array([1.0, -2.0, 0.5, 3.0], np.float32))[:, None]
    ds = (Dataset.from_tensor_slices((x, y)).shuffle(64, seed=1)
          .map(lambda a, b: (a * 1.0, b), num_parallel_calls=2).batch(16).prefetch(2))
    before = len(_data_threads())
    model = tw.keras.Sequential([tw.keras.layers.Dense(1)])
    model.compile(optimizer=tw.keras.optimizers.SGD(0.1), loss="mse")
    hist = model.fit(ds, epochs=8, verbose=0)
    assert hist.history["loss"][-1] < hist.history["loss"][0] * 0.2
    assert len(_data_threads()) == before


def test_seeded_shuffle_resumes_exactly_from_a_checkpoint(tmp_path):
    ds = Dataset.range(20).shuffle(20, seed=7, reshuffle_each_iteration=False).batch(3)
    it = iter(ds)
    ckpt = tw.train.Checkpoint(it=it)
    manager = tw.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=2)
    first = [next(it).numpy().tolist() for _ in range(2)]
    manager.save()
    expected = [b.numpy().tolist() for b in it]
    it2 = iter(ds)
    tw.train.Checkpoint(it=it2).restore(manager.latest_checkpoint)
    assert [b.numpy().tolist() for b in it2] == expected
    assert len(first) == 2 and sum(len(b) for b in first + expected) == 20


def test_a_loop_in_a_function_closes_its_pass():
    before = len(_data_threads())
    ds = Dataset.range(40).map(lambda x: x + 1, num_parallel_calls=3).prefetch(2)

    @tw.function
    def first_ten_total():
        s = tw.constant(0, tw.int64)
        for x in ds:
            if x > 10:
                break
            s += x
        return s
    assert int(first_ten_total()) == 55
    assert len(_data_threads()) == before  # the broken-off pass stopped its threads
