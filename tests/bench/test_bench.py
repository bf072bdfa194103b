"""The bench runs and reports in its documented format (timings are never asserted)."""
from __future__ import annotations

import re

import numpy as np
import pytest

from twinflow import bench
from twinflow.bench.workloads import WORKLOADS, Workload

ROW = re.compile(r"^(?P<label>\S+ \[(eager|function)\])\s+(?P<numpy>[\d.]+ (ns|µs|ms|s))\s+"
                 r"(?P<tw>[\d.]+ (ns|µs|ms|s))\s+(?P<ratio>[\d.]+x)")


def test_quick_run_output_format(capsys):
    assert bench.main(["--quick", "--repeat", "1", "--min-time", "0", "--no-others",
                       "--mode", "eager", "--only", "power100,add2,linreg_step"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("twinflow ") and "ratio = time / NumPy time" in out[0]
    assert out[1].split()[:4] == ["workload", "numpy", "twinflow", "ratio"]
    rows = [ROW.match(line) for line in out[2:]]
    assert all(rows), out
    assert [m["label"] for m in rows] == ["power100 [eager]", "add2 [eager]",
                                          "linreg_step [eager]"]
    assert "< 1 µs" in out[3] and "<= 1.8x" in out[2]


def test_cpu_timer_is_named_in_the_header_and_reset_after(capsys):
    assert bench.main(["--quick", "--repeat", "1", "--min-time", "0", "--no-others",
                       "--mode", "eager", "--only", "add2", "--timer", "cpu"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert "; cpu time; ratio" in out[0] and ROW.match(out[2])
    assert bench._timer[0] == "wall"


def test_every_workload_computes_what_numpy_does():
    for w in WORKLOADS:
        if w.name == "while1000" or w.numpy is None:
            continue  # checked by its own test below, or timed only (no NumPy counterpart)
        inputs = w.setup()
        want = np.asarray(w.numpy(inputs)(), dtype=np.float64)
        got = np.asarray(w.twinflow(inputs, w.mode)(), dtype=np.float64)
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-6, err_msg=w.label)


def test_broken_workload_is_reported_not_fatal():
    def broken(inputs, mode):
        raise RuntimeError("no such op")

    w = Workload("broken", "raises", lambda: {}, lambda i: (lambda: None), broken)
    results = bench.run([w], repeat=1, min_time=0, others=False)
    assert results[0].error.startswith("RuntimeError: no such op")
    assert "error" in bench.format_report(results, 1)


def test_unknown_workload_name_errors():
    with pytest.raises(SystemExit):
        bench.main(["--only", "nope"])


def test_time_step_and_format_time():
    assert bench.time_step(lambda: None, repeat=2, min_time=0.001) > 0
    assert bench.format_time(1.5e-6) == "1.5 µs"
    assert bench.format_time(2e-3) == "2 ms"
    assert bench.format_time(None) == "-"


def test_absolute_workload_row_shows_its_time_against_the_target():
    w = next(w for w in WORKLOADS if w.name == "trace1000")
    assert w.numpy is None and w.target_us is not None
    report = bench.format_report([bench.Result(w, twinflow_s=0.1)], 1).splitlines()
    cells = report[2].split()
    assert cells[:6] == ["trace1000", "[function]", "-", "100", "ms", "-"]
    assert "< 500 ms" in report[2] and report[2].endswith("ok")
    fake = Workload("t", "absolute", lambda: {}, None, lambda i, m: (lambda: None),
                    target_us=1e6)
    (r,) = bench.run([fake], repeat=1, min_time=0, others=False)
    assert r.numpy_s is None and r.twinflow_s is not None and r.ratio is None and r.met


def test_while_loop_workload_matches_numpy():
    w = next(w for w in WORKLOADS if w.name == "while1000")
    inputs = w.setup()
    assert float(w.twinflow(inputs, w.mode)()) == pytest.approx(float(w.numpy(inputs)()),
                                                                rel=1e-4)
