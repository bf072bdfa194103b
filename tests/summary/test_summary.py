"""TensorBoard event files: record framing, CRC32C, Event protos, read back by our reader."""
from __future__ import annotations

import gc
import glob
import os
import struct

import numpy as np
import pytest

import twinflow as tw
from twinflow.core.errors import DataLossError
from twinflow.eager.func_graph import FuncGraph
from twinflow.summary import proto
from twinflow.summary import writer as summary_writer
from twinflow.summary.record import crc32c, masked_crc32c, read_records


def _events(logdir: str) -> list:
    files = glob.glob(os.path.join(logdir, "events.out.tfevents.*"))
    assert len(files) == 1, files
    return [proto.decode(r) for r in read_records(files[0])]


def _values(events: list) -> list:
    out = []
    for e in events:
        step = e.get(2, [0])[0]
        for summary in e.get(5, []):
            for value in proto.decode(summary).get(1, []):
                out.append((step, proto.decode(value)))
    return out


def test_crc32c_known_values():
    assert crc32c(b"123456789") == 0xE3069283
    assert crc32c(b"") == 0
    assert crc32c(b"\x00" * 32) == 0x8A9136AA
    crc = 0xE3069283
    assert masked_crc32c(b"123456789") == (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def test_proto_varints():
    assert proto.varint(1) == b"\x01"
    assert proto.varint(300) == b"\xac\x02"
    assert proto.decode(proto.f_int64(2, 150)) == {2: [150]}
    assert proto.decode(proto.f_int64(2, -1))[2][0] == 2 ** 64 - 1


def test_seed_scalars(tmp_path):
    logdir = str(tmp_path / "tb")
    writer = tw.summary.create_file_writer(logdir)
    with writer.as_default():
        for i in range(1000):
            step = i + 1
            loss = 1 - 0.001 * step
            if step % 100 == 0:
                assert tw.summary.scalar("loss", loss, step=step)
    events = _events(logdir)
    assert events[0][3] == [b"brain.Event:2"]
    values = _values(events)
    assert [s for s, _ in values] == list(range(100, 1001, 100))
    step, v = values[2]
    assert v[1] == [b"loss"]
    assert proto.as_float(v[2][0]) == pytest.approx(0.7, rel=1e-6)
    assert os.path.basename(glob.glob(os.path.join(logdir, "*"))[0]).startswith(
        "events.out.tfevents.")


def test_histogram_text_image_and_default_step(tmp_path):
    writer = tw.summary.create_file_writer(str(tmp_path))
    data = np.random.RandomState(0).normal(size=1000)
    with writer.as_default(step=7):
        tw.summary.histogram("w", data)
        tw.summary.text("note", "hello")
        tw.summary.image("img", np.random.rand(2, 4, 5, 3), max_outputs=1)
        tw.summary.scalar("v", tw.constant(3.5))
    writer.close()
    values = {v[1][0]: (s, v) for s, v in _values(_events(str(tmp_path)))}
    s, h = values[b"w"]
    histo = proto.decode(h[5][0])
    assert s == 7
    assert proto.as_double(histo[3][0]) == 1000
    counts = struct.unpack(f"<{len(histo[7][0]) // 8}d", histo[7][0])
    assert sum(counts) == 1000
    _, t = values[b"note"]
    tensor = proto.decode(t[8][0])
    assert tensor[8] == [b"hello"]
    plugin = proto.decode(proto.decode(t[9][0])[1][0])
    assert plugin[1] == [b"text"]
    _, im = [v for k, v in values.items() if k.startswith(b"img")][0]
    image = proto.decode(im[4][0])
    assert image[1] == [4] and image[2] == [5] and image[4][0].startswith(b"\x89PNG")
    assert proto.as_float(values[b"v"][1][2][0]) == 3.5


def test_no_writer_and_no_step(tmp_path):
    assert tw.summary.scalar("x", 1.0, step=1) is False
    with pytest.raises(ValueError, match="step"):
        with tw.summary.create_file_writer(str(tmp_path)).as_default():
            tw.summary.scalar("x", 1.0)


def test_summary_inside_function_writes_each_call(tmp_path):
    writer = tw.summary.create_file_writer(str(tmp_path))

    @tw.function
    def f(x, step):
        with writer.as_default():
            tw.summary.scalar("x", x, step=step)
        return x + 1

    for i in range(3):
        f(tw.constant(float(i)), tw.constant(i, tw.int64))
    writer.flush()
    values = _values(_events(str(tmp_path)))
    assert [s for s, _ in values] == [0, 1, 2]


def test_corrupt_record_detected(tmp_path):
    writer = tw.summary.create_file_writer(str(tmp_path))
    with writer.as_default():
        tw.summary.scalar("a", 1.0, step=1)
    writer.close()
    path = glob.glob(os.path.join(str(tmp_path), "events*"))[0]
    raw = bytearray(open(path, "rb").read())
    raw[-6] ^= 0xFF
    open(path, "wb").write(bytes(raw))
    with pytest.raises(DataLossError):
        list(read_records(path))


def test_graph_export(tmp_path):
    @tw.function
    def f(x):
        return tw.matmul(x, x) + 1.0

    cf = f.get_concrete_function(tw.TensorSpec([2, 2], tw.float32))
    writer = tw.summary.create_file_writer(str(tmp_path))
    with writer.as_default():
        assert tw.summary.graph(cf.graph)
    writer.close()
    events = _events(str(tmp_path))
    graph_def = proto.decode([e for e in events if 4 in e][0][4][0])
    ops = [proto.decode(n)[2][0] for n in graph_def[1]]
    assert b"MatMul" in ops


def test_tensorboard_reader_if_installed(tmp_path):
    ea = pytest.importorskip("tensorboard.backend.event_processing.event_accumulator")
    writer = tw.summary.create_file_writer(str(tmp_path))
    with writer.as_default():
        for step in range(3):
            tw.summary.scalar("loss", 1.0 / (step + 1), step=step)
    writer.close()
    acc = ea.EventAccumulator(str(tmp_path))
    acc.Reload()
    assert [round(e.value, 4) for e in acc.Scalars("loss")] == [1.0, 0.5, 0.3333]


def test_trace_on_tells_new_graphs_from_old_ones_collected_since():
    # A graph collected after trace_on may leave its id to one made later: that one is new.
    olds = [FuncGraph(f"old{i}") for i in range(500)]
    tw.summary.trace_on(graph=True)
    del olds
    gc.collect()
    news = [FuncGraph(f"new{i}") for i in range(500)]
    try:
        found = {id(g) for g in summary_writer._graphs_since_trace_on()}
        assert all(id(g) in found for g in news)
    finally:
        tw.summary.trace_off()


def test_trace_on_trace_export(tmp_path):
    @tw.function
    def my_func(x, y):
        return tw.nn.relu(tw.matmul(x, y))

    writer = tw.summary.create_file_writer(str(tmp_path))
    tw.summary.trace_on(graph=True, profiler=False)
    my_func(tw.ones((2, 2)), tw.ones((2, 2)))
    with writer.as_default():
        assert tw.summary.trace_export(name="my_func_trace", step=0)
    writer.close()
    graph_def = proto.decode([e for e in _events(str(tmp_path)) if 4 in e][0][4][0])
    assert b"Relu" in [proto.decode(n)[2][0] for n in graph_def[1]]
