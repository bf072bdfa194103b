"""MPI collectives between real worker processes (``mpiexec -n 2``), their timeouts, and the
communicator's arithmetic in one process."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time

import numpy as np
import pytest

from twinflow import errors
from twinflow.distribute import mpi

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(os.path.dirname(os.path.dirname(HERE)), "src")


def _have_mpi() -> bool:
    try:
        import mpi4py  # noqa: F401
    except ImportError:
        return False
    return shutil.which("mpiexec") is not None


needs_mpi = pytest.mark.skipif(not _have_mpi(), reason="needs mpi4py and mpiexec")


def run_workers(script: str, *args: str, n: int = 2, timeout: float = 60,
                env: dict | None = None) -> subprocess.CompletedProcess:
    """Runs ``python script args`` as ``n`` MPI workers; returns the finished process."""
    full = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
                OMPI_MCA_rmaps_base_oversubscribe="1", OPENBLAS_NUM_THREADS="1",
                PYTHONPATH=SRC + os.pathsep + os.environ.get("PYTHONPATH", ""))
    full.update(env or {})
    cmd = ["mpiexec", "-n", str(n), "--oversubscribe", sys.executable, script, *args]
    return subprocess.run(cmd, env=full, capture_output=True, text=True, timeout=timeout)


@needs_mpi
@pytest.mark.mpi
def test_collectives_between_two_workers(tmp_path):
    proc = run_workers(os.path.join(HERE, "mpi_worker.py"), "collectives", str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    seen = [np.load(tmp_path / f"rank{r}.npz") for r in (0, 1)]
    for d in seen:
        assert int(d["size"]) == 2
        np.testing.assert_array_equal(d["s0"], np.full((2, 3), 3.0, np.float32))
        assert d["s0"].dtype == np.float32
        np.testing.assert_array_equal(d["s1"], np.arange(4.0) * 3)
        np.testing.assert_array_equal(d["s2"], [1, 10])
        assert d["s3"].dtype == np.float16 and float(d["s3"]) == 2.0
        np.testing.assert_array_equal(d["m0"], np.full((2, 3), 1.5))
        np.testing.assert_array_equal(d["m2"], [0, 5])  # integer mean truncates
        np.testing.assert_array_equal(d["lo0"], np.ones((2, 3)))
        np.testing.assert_array_equal(d["hi0"], np.full((2, 3), 2.0))
        assert d["lo1"].dtype == np.bool_ and not d["lo1"] and d["hi1"]
        np.testing.assert_array_equal(d["g"], [[0, 0], [1, 1], [1, 1]])
        np.testing.assert_array_equal(d["gb"], [False, True])
        np.testing.assert_array_equal(d["b0"], [1.0, 1.0, 1.0])  # from the last worker
        np.testing.assert_array_equal(d["b1"], [1])
        assert d["b2"].shape == () and d["b2"] == 1  # a scalar stays a scalar
        x0, x1 = np.arange(4.0).reshape(2, 2), np.arange(4.0).reshape(2, 2) + 1
        np.testing.assert_allclose(d["gt"], x0 * x0 + x1 * x1)
        np.testing.assert_allclose(d["grows"], np.concatenate([x0[:1], x1 * 2]))
    # d loss / d x_r: every worker's sum(total) depends on x_r (2 workers * 2 x_r), and the
    # gathered rows of x_r appear on both workers (2 * 2 * (r+1)^2 * x_r on its rows)
    x0, x1 = np.arange(4.0).reshape(2, 2), np.arange(4.0).reshape(2, 2) + 1
    np.testing.assert_allclose(seen[0]["ggrad"], 4 * x0 + np.array([[4.0], [0.0]]) * x0)
    np.testing.assert_allclose(seen[1]["ggrad"], 4 * x1 + 16 * x1)


@needs_mpi
@pytest.mark.mpi
def test_a_worker_that_stops_answering_fails_the_others_in_time(tmp_path):
    start = time.monotonic()
    proc = run_workers(os.path.join(HERE, "mpi_worker.py"), "hang", str(tmp_path), timeout=40)
    elapsed = time.monotonic() - start
    assert proc.returncode != 0
    text = (tmp_path / "error0.txt").read_text()
    assert text.startswith("DeadlineExceededError: MPI all_reduce(sum)")
    assert "worker 0 of 2 did not complete within 3 s" in text
    assert 2.9 < float(text.split()[-1]) < 6
    assert elapsed < 25  # the whole job was aborted, not left waiting


@needs_mpi
@pytest.mark.mpi
def test_a_worker_that_dies_ends_the_job(tmp_path):
    start = time.monotonic()
    proc = run_workers(os.path.join(HERE, "mpi_worker.py"), "die", str(tmp_path), timeout=40)
    assert proc.returncode != 0
    assert time.monotonic() - start < 15  # far less than the 20 s collective timeout


class FakeRequest:
    """An MPI request that never completes (a collective a worker never joined)."""

    def Test(self) -> bool:
        return False


class FakeComm:
    """Just enough of an mpi4py communicator for one process to act as worker 0 of 2."""

    def __init__(self) -> None:
        self.aborted = None

    def Get_rank(self) -> int:
        return 0

    def Get_size(self) -> int:
        return 2

    def Iallreduce(self, send, recv, op=None):
        return FakeRequest()

    def Ibarrier(self):
        return FakeRequest()

    def Abort(self, code):
        self.aborted = code


def test_timeout_raises_and_breaks_the_communicator(monkeypatch):
    pytest.importorskip("mpi4py")
    monkeypatch.setattr(mpi, "_install_exit_hooks", lambda: None)
    comm = mpi.Communicator(FakeComm(), timeout=0.05, abort_on_error=False)
    start = time.monotonic()
    with pytest.raises(errors.DeadlineExceededError, match="barrier on worker 0 of 2 did not "
                       "complete within 0.05 s"):
        comm.barrier()
    assert time.monotonic() - start < 1
    with pytest.raises(errors.UnavailableError, match="broken by an earlier failure"):
        comm.all_reduce([np.ones(2)])
    assert mpi._broken[-1] is comm
    mpi._abort_if_broken()  # what the process does at exit
    assert comm._comm.aborted == 1
    mpi._broken.clear()


def test_timeout_inside_a_function_keeps_its_error_class(monkeypatch):
    pytest.importorskip("mpi4py")
    import twinflow as tw
    from twinflow.distribute import mpi_ops

    monkeypatch.setattr(mpi, "_install_exit_hooks", lambda: None)
    comm = mpi.Communicator(FakeComm(), timeout=0.05, abort_on_error=False)
    f = tw.function(lambda x: mpi_ops.all_reduce([x * 2.0], "sum", comm)[0])
    with pytest.raises(errors.DeadlineExceededError, match="all_reduce\\(sum\\) of 1 float32"):
        f(tw.constant([1.0]))
    mpi._broken.clear()


def test_one_worker_collectives_and_argument_checks():
    pytest.importorskip("mpi4py")
    comm = mpi.Communicator(_OneComm(), timeout=5)
    a = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    s, m = comm.all_reduce([a, np.int32(7)], "sum"), comm.all_reduce([a], "mean")
    np.testing.assert_array_equal(s[0], a)
    assert s[1].dtype == np.int32 and s[1] == 7
    np.testing.assert_array_equal(m[0], a)
    packs = comm.all_reduce([a, a * 2, a * 3], "sum", bytes_per_pack=30)
    np.testing.assert_array_equal(packs[2], a * 3)
    np.testing.assert_array_equal(comm.all_gather(np.float64(2.0)), [2.0])
    np.testing.assert_array_equal(comm.broadcast([a])[0], a)
    comm.barrier()
    with pytest.raises(ValueError, match="op must be one of"):
        comm.all_reduce([a], "prod")
    with pytest.raises(TypeError, match="cannot sum bool"):
        comm.all_reduce([np.array([True])])
    with pytest.raises(TypeError, match="unsupported dtype"):
        comm.all_reduce([np.array(["x"])], "max")
    with pytest.raises(ValueError, match="root 3 is not a rank"):
        comm.broadcast([a], root=3)
    with pytest.raises(ValueError, match="timeout must be a positive"):
        mpi.Communicator(_OneComm(), timeout=0)


def test_timeout_from_the_environment(monkeypatch):
    monkeypatch.setenv("TWINFLOW_MPI_TIMEOUT", "12.5")
    assert mpi.default_timeout() == 12.5
    monkeypatch.setenv("TWINFLOW_MPI_TIMEOUT", "soon")
    with pytest.raises(ValueError, match="TWINFLOW_MPI_TIMEOUT must be a number"):
        mpi.default_timeout()
    monkeypatch.delenv("TWINFLOW_MPI_TIMEOUT")
    assert mpi.default_timeout() == 300.0


def test_missing_mpi4py_is_a_clear_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "mpi4py", None)
    with pytest.raises(ImportError, match=r"pip install 'twinflow\[distributed\]'"):
        mpi.load_mpi()


class _OneComm(FakeComm):
    def Get_size(self) -> int:
        return 1
