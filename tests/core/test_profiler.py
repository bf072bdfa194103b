"""tw.profiler.experimental: one trace event per executed op (eager and compiled graphs), Trace
spans, the file TensorFlow's layout puts where Perfetto opens it."""
import gzip
import json
import os
import threading

import pytest

import twinflow as tw
from twinflow.core.context import process

prof = tw.profiler.experimental


def _events(path):
    with gzip.open(path) as f:
        data = json.load(f)
    return [e for e in data["traceEvents"] if e["ph"] == "X"]


def test_eager_and_function_ops_are_recorded(tmp_path):
    @tw.function
    def f(x):
        for _ in tw.range(2):
            x = x * 2.0
        return tw.reduce_sum(x)
    x = tw.constant([1.0, 2.0])
    f(x)  # traced before profiling: the compiled program switches to its timed twin
    prof.start(str(tmp_path))
    y = x + x
    with prof.Trace("train", step_num=3):
        f(y)
    path = prof.stop()
    assert os.path.dirname(os.path.dirname(path)) == str(tmp_path / "plugins" / "profile")
    assert path.endswith(".trace.json.gz")
    ev = _events(path)
    names = [e["name"] for e in ev]
    assert "AddV2" in names                         # eager op
    assert names.count("Mul") + names.count("Mul_1") >= 2  # graph op, once per iteration
    assert "Sum" in names
    (span,) = [e for e in ev if e["name"] == "train"]
    assert span["args"]["step_num"] == 3
    inner = [e for e in ev if e["name"] == "Sum"][0]
    assert span["ts"] <= inner["ts"] and inner["ts"] + inner["dur"] <= span["ts"] + span["dur"]
    assert all(e["dur"] >= 0 for e in ev)


def test_nothing_is_recorded_when_off_and_fast_path_returns(tmp_path):
    with prof.Profile(str(tmp_path)):
        assert process.profiling and not process.quiet
    assert not process.profiling
    tw.constant(1.0) + 1.0
    with prof.Trace("ignored"):
        pass
    assert process.quiet  # no thread busy: eager ops take the fast path again


def test_start_stop_errors(tmp_path):
    with pytest.raises(tw.errors.UnavailableError, match="No profiler"):
        prof.stop()
    prof.start(str(tmp_path))
    try:
        with pytest.raises(tw.errors.UnavailableError, match="Another profiler"):
            prof.start(str(tmp_path))
    finally:
        assert prof.stop(save=False) is None
    with pytest.raises(TypeError, match="ProfilerOptions"):
        prof.start(str(tmp_path), options={"host_tracer_level": 1})


def test_options_levels_and_threads(tmp_path):
    prof.start(str(tmp_path), prof.ProfilerOptions(host_tracer_level=1))
    tw.constant(1.0) * 2.0
    with prof.Trace("only_me"):
        pass
    names = [e["name"] for e in _events(prof.stop())]
    assert names == ["only_me"]

    def work():
        tw.constant([1.0]) - 1.0
    prof.start(str(tmp_path / "b"), prof.ProfilerOptions(python_tracer_level=1))
    t = threading.Thread(target=work, name="worker")
    t.start()
    t.join()
    path = prof.stop()
    with gzip.open(path) as fh:
        data = json.load(fh)
    subs = [e for e in data["traceEvents"] if e["name"] == "Sub"]
    assert subs
    threads = {e["tid"]: e["args"]["name"] for e in data["traceEvents"]
               if e["name"] == "thread_name"}
    assert threads[subs[0]["tid"]] == "worker"
    assert any(e.get("cat") == "python" for e in data["traceEvents"])


def test_remote_profiling_says_what_is_supported():
    with pytest.raises(tw.errors.UnimplementedError, match="start\\(logdir\\)"):
        prof.server.start(6009)
    with pytest.raises(tw.errors.UnimplementedError, match="no profiler server"):
        prof.client.trace("grpc://localhost:6009", "/tmp/x", 100)
    with pytest.raises(tw.errors.UnimplementedError):
        prof.client.monitor("grpc://localhost:6009", 100)
