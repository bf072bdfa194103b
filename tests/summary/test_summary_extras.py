"""tw.summary.audio / write / experimental.write_raw_pb / summary_scope, eager and in a function:
events read back with the project's own record reader."""
import glob
import struct

import numpy as np
import pytest

import twinflow as tw
from twinflow.summary import proto
from twinflow.summary.record import read_records


def _values(logdir):
    (path,) = glob.glob(f"{logdir}/events.out.tfevents*")
    out = []
    for rec in read_records(path):
        ev = proto.decode(rec)
        if 5 in ev:
            summary = proto.decode(ev[5][0])
            for v in summary.get(1, []):
                val = proto.decode(v)
                out.append((proto.decode(rec)[2][0], val[1][0].decode(), val))
    return out


def test_audio_write_and_raw(tmp_path):
    w = tw.summary.create_file_writer(str(tmp_path))
    raw = proto.msg(proto.f_bytes(1, proto.msg(proto.f_bytes(1, "raw_tag"),
                                               proto.f_float(2, 1.5))))
    with w.as_default(step=3):
        with tw.name_scope("eval"):
            assert tw.summary.audio("clip", tw.zeros([2, 100, 1]) + 0.5, 8000)
        assert tw.summary.write("t", tw.constant([1.0, 2.0]))
        assert tw.summary.experimental.write_raw_pb(raw)
        with tw.summary.experimental.summary_scope("loss") as (tag, scope):
            assert tag == "loss" and scope.startswith("loss")

        @tw.function
        def f(x):
            tw.summary.write("x", x, step=5)
        f(tw.constant(2.0))
    w.close()
    vals = _values(tmp_path)
    assert [(s, t) for s, t, _ in vals] == [(3, "eval/clip"), (3, "t"), (3, "raw_tag"),
                                            (5, "x")]
    audio = vals[0][2]
    meta = proto.decode(audio[9][0])
    plugin = proto.decode(meta[1][0])
    assert plugin[1][0] == b"audio" and plugin[2][0] == b"\x10\x0b"  # AudioPluginData: WAV
    tensor = proto.decode(audio[8][0])
    wav = tensor[8][0]
    assert wav[:4] == b"RIFF" and wav[8:12] == b"WAVE"
    assert struct.unpack("<I", wav[24:28])[0] == 8000
    pcm = np.frombuffer(wav[44:], "<i2")
    assert pcm.size == 100 and pcm[0] == round(0.5 * 32767)
    assert proto.as_float(vals[2][2][2][0]) == 1.5


def test_flush_millis_bounds_the_time_between_flushes(tmp_path):
    import os
    sizes = {}
    for millis in (0, 10**9):
        w = tw.summary.create_file_writer(str(tmp_path / str(millis)), max_queue=1000,
                                          flush_millis=millis)
        with w.as_default(step=0):
            tw.summary.scalar("x", 1.0)
            sizes[millis] = os.path.getsize(w.path)
        w.close()
    assert sizes[0] > sizes[10**9]  # the scalar reached the file at once only with 0


def test_trackable_writers_are_refused(tmp_path):
    with pytest.raises(NotImplementedError, match="experimental_trackable"):
        tw.summary.create_file_writer(str(tmp_path), experimental_trackable=True)


def test_profiler_traces_are_refused():
    with pytest.raises(NotImplementedError, match="profiler"):
        tw.summary.trace_on(graph=True, profiler=True)
