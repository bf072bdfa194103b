"""``twinflow bench --mpi``: data-parallel MLP training on 2 MPI workers against 1."""
from __future__ import annotations

import os
import shutil

import pytest

from twinflow import bench
from twinflow.bench import mpi_workload


def _have_mpi() -> bool:
    try:
        import mpi4py  # noqa: F401
    except ImportError:
        return False
    return shutil.which("mpiexec") is not None


@pytest.mark.mpi
@pytest.mark.skipif(not _have_mpi(), reason="needs mpi4py and mpiexec")
def test_two_workers_against_one(monkeypatch, capsys):
    src = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__)))), "src")
    monkeypatch.setenv("PYTHONPATH", src + os.pathsep + os.environ.get("PYTHONPATH", ""))
    one, two = mpi_workload.run_mpi_bench(workers=2, global_batch=16, steps=2, repeat=1)
    assert (one["workers"], two["workers"]) == (1, 2)
    assert one["global_batch"] == two["global_batch"] == 16
    assert one["step_s"] > 0 and two["allreduce_s"] > 0 and two["pure_allreduce_s"] > 0
    assert two["compute_cpu_s"] > 0
    assert one["allreduce_bytes"] == 4 * (784 * 256 + 256 + 256 * 128 + 128 + 128 * 10 + 10)
    # the same global batches: the same weights after training
    assert abs(one["checksum"] - two["checksum"]) < 1e-3 * one["checksum"]
    report = mpi_workload.format_mpi_report([one, two])
    assert "speed-up" in report and "0.94 MB" in report


def test_report_and_cli_flag(monkeypatch, capsys):
    fake = [{"workers": n, "global_batch": 256, "step_s": 0.02 / n, "allreduce_s": 0.001,
             "pure_allreduce_s": 0.0005, "compute_cpu_s": 0.01 / n, "allreduce_bytes": 940584,
             "checksum": 1.0}
            for n in (1, 2)]
    monkeypatch.setattr(bench, "run_mpi_bench", lambda **kw: fake)
    assert bench.main(["--mpi"]) == 0
    out = capsys.readouterr().out
    assert "2.00x" in out and "10.00ms" in out and "checksum difference 0" in out
    assert "1.91x" in out  # ideal: (10 + 0.5) / (5 + 0.5) ms
