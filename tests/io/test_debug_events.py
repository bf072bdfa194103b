"""tfdbg2 dumps (tw.debugging.experimental.enable_dump_debug_info), parsed back with twinflow's
own copy of TensorFlow's debug_event.proto (TensorFlow's DebugDataReader reads the same files)."""
from __future__ import annotations

import glob
import os

import numpy as np
import pytest

import twinflow as tw
from twinflow.io.debug_events import message
from twinflow.io.tfrecord import read_records

dbg = tw.debugging.experimental


def _events(root: str, suffix: str) -> list:
    (path,) = glob.glob(os.path.join(root, f"*.{suffix}"))
    cls = message("DebugEvent")
    return [cls.FromString(r) for r in read_records(path)]


def _run(root, **kw):
    dbg.enable_dump_debug_info(str(root), **kw)
    try:
        x = tw.constant([1.0, -2.0, 0.0])
        tw.math.log(x) * 2.0

        @tw.function
        def f(a):
            return tw.reduce_sum(a * a + 1.0)
        f(x)
        tw.range(3)
    finally:
        dbg.disable_dump_debug_info()


def test_files_and_no_tensor(tmp_path):
    _run(tmp_path)
    for s in ("metadata", "source_files", "stack_frames", "graphs", "execution",
              "graph_execution_traces"):
        assert len(glob.glob(str(tmp_path / f"*.{s}"))) == 1
    (meta,) = _events(tmp_path, "metadata")
    assert meta.debug_metadata.file_version == "debug.Event:3"
    ex = [e.execution for e in _events(tmp_path, "execution")]
    assert [e.op_type for e in ex][:2] == ["Log", "Mul"]
    assert all(e.tensor_debug_mode == 1 and not e.tensor_protos for e in ex)
    graphs = _events(tmp_path, "graphs")
    ops = {e.graph_op_creation.op_type for e in graphs if e.HasField("graph_op_creation")}
    assert {"Mul", "AddV2", "Sum"} <= ops
    assert _events(tmp_path, "graph_execution_traces") == []  # NO_TENSOR: no traces


def _values(tp) -> list:
    return list(tp.double_val)


def test_health_modes(tmp_path):
    _run(tmp_path / "c", tensor_debug_mode="CONCISE_HEALTH")
    log = _events(tmp_path / "c", "execution")[0].execution
    assert _values(log.tensor_protos[0])[1:] == [3, 1, 0, 1]  # size, -inf, +inf, nan
    _run(tmp_path / "f", tensor_debug_mode="FULL_HEALTH")
    log = _events(tmp_path / "f", "execution")[0].execution
    assert _values(log.tensor_protos[0])[1:] == [-1, 1, 1, 3, 1, 0, 1, 0, 1, 0]
    traces = [e.graph_execution_trace for e in _events(tmp_path / "f", "graph_execution_traces")]
    assert {t.op_name for t in traces} >= {"Sum"}
    _run(tmp_path / "h", tensor_debug_mode="CURT_HEALTH")
    ex = [e.execution for e in _events(tmp_path / "h", "execution")]
    assert _values(ex[0].tensor_protos[0])[1] == 1.0
    assert not ex[-1].tensor_protos  # Range's int32 output: health is for floats only


def test_shape_and_full_tensor(tmp_path):
    _run(tmp_path / "s", tensor_debug_mode="SHAPE")
    ex = [e.execution for e in _events(tmp_path / "s", "execution")]
    assert _values(ex[-1].tensor_protos[0])[1:5] == [3, 1, 3, 3]  # int32, rank 1, 3 elements
    _run(tmp_path / "t", tensor_debug_mode="FULL_TENSOR")
    traces = [e.graph_execution_trace for e in _events(tmp_path / "t", "graph_execution_traces")]
    total = [t for t in traces if t.op_name == "Sum"][0].tensor_proto
    assert np.frombuffer(total.tensor_content, np.float32).tolist() == [8.0]


def test_filters_and_circular_buffer(tmp_path):
    _run(tmp_path / "r", tensor_debug_mode="SHAPE", op_regex="Mul|Log")
    assert [e.execution.op_type for e in _events(tmp_path / "r", "execution")] == ["Log", "Mul"]
    _run(tmp_path / "d", tensor_debug_mode="SHAPE", tensor_dtypes=[tw.int32])
    ex = [e.execution for e in _events(tmp_path / "d", "execution")]
    assert [len(e.tensor_protos) for e in ex] == [0, 0, 1]
    _run(tmp_path / "b", circular_buffer_size=1)
    assert [e.execution.op_type for e in _events(tmp_path / "b", "execution")] == ["Range"]


def test_errors_and_off(tmp_path):
    with pytest.raises(ValueError, match="tensor_debug_mode"):
        dbg.enable_dump_debug_info(str(tmp_path), tensor_debug_mode="FULL_NUMERICS")
    dbg.disable_dump_debug_info()  # nothing enabled: nothing happens
    from twinflow.core.context import process
    assert not process.profiling
