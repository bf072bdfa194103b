"""The intra-op thread pool and the thread settings that control it (and BLAS)."""
from __future__ import annotations

import threading

import numpy as np
import pytest

import twinflow as tw
from twinflow.core import blas, parallel


@pytest.fixture
def restore_threads():
    old = tw.config.threading.get_intra_op_parallelism_threads()
    yield
    tw.config.threading.set_intra_op_parallelism_threads(old)


def _threads_used(parallel_ok: bool) -> set:
    seen = set()
    out = np.zeros(64)

    def block(s, e, buf):
        seen.add(threading.get_ident())
        buf[0][: e - s] = np.arange(s, e)
        out[s:e] = buf[0][: e - s]

    parallel.run_blocks(block, 64, 8, (((), np.dtype(np.float64)),), parallel_ok)
    np.testing.assert_array_equal(out, np.arange(64))
    return seen


def test_intra_op_setting_sizes_the_pool(restore_threads):
    tw.config.threading.set_intra_op_parallelism_threads(1)
    assert len(_threads_used(True)) == 1
    tw.config.threading.set_intra_op_parallelism_threads(3)
    assert parallel.intra_threads() == 3
    assert len(_threads_used(True)) > 1          # blocks ran on pool threads too
    assert len(_threads_used(False)) == 1        # small work stays on the caller


def test_intra_op_setting_reaches_blas(restore_threads):
    if not blas.available():
        pytest.skip("NumPy's BLAS is not a bundled OpenBLAS")
    tw.config.threading.set_intra_op_parallelism_threads(1)
    assert blas.get_threads() == 1
    tw.config.threading.set_intra_op_parallelism_threads(2)
    assert blas.get_threads() == 2


def test_run_parallel_keeps_order(restore_threads):
    tw.config.threading.set_intra_op_parallelism_threads(2)
    assert parallel.run_parallel(lambda v: v * v, list(range(7))) == [v * v for v in range(7)]


@pytest.mark.parametrize("bad", [-1, 1.5, "2", True])
def test_bad_thread_counts_are_refused(bad):
    with pytest.raises(ValueError, match="non-negative int"):
        tw.config.threading.set_intra_op_parallelism_threads(bad)
    with pytest.raises(ValueError, match="non-negative int"):
        tw.config.threading.set_inter_op_parallelism_threads(bad)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_blas_gemm_accumulates_into_blocks_of_rows(dtype):
    if not blas.available():
        pytest.skip("NumPy's BLAS is not a bundled OpenBLAS")
    rng = np.random.default_rng(0)
    big = rng.normal(size=(40, 7)).astype(dtype)
    b = rng.normal(size=(7, 5)).astype(dtype)
    c = rng.normal(size=(50, 5)).astype(dtype)
    want = c.copy()
    want[10:40] += big[3:33] @ b
    assert blas.gemm(big[3:33], b, c[10:40], 1)
    np.testing.assert_allclose(c, want, rtol=1e-5)
    assert blas.gemm(big[3:10], b, c[:7], 0)                      # beta 0 overwrites
    np.testing.assert_allclose(c[:7], big[3:10] @ b, rtol=1e-5)
    out = np.empty((7, 5), dtype)
    assert blas.gemm(big[:4], rng.normal(size=(4, 5)).astype(dtype), out, 0, trans_a=True)
    # what it cannot do it leaves to NumPy, untouched
    before = c.copy()
    assert not blas.gemm(big[:, :5].T, b[:5], c[:7], 1)           # columns not contiguous
    assert not blas.gemm(big[3:10], b.astype(np.float16), c[:7], 1)
    assert not blas.gemm(big[3:10].astype(np.int64), b.astype(np.int64),
                         c[:7].astype(np.int64), 1)
    assert not blas.gemm(big[3:10], b, c[:6], 1)                  # shapes disagree
    np.testing.assert_array_equal(c, before)


def test_allocator_tuning_is_on_unless_the_environment_says_no():
    import pathlib
    import subprocess
    import sys
    code = "import twinflow.core.allocator as a; print(a.tune())"
    env = {"PYTHONPATH": str(pathlib.Path(tw.__file__).parents[1]), "PATH": "",
           "PYTHONDONTWRITEBYTECODE": "1"}
    on = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    off = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={**env, "TWINFLOW_KEEP_FREED_MEMORY": "0"})
    assert off.stdout.strip() == "False"
    assert on.stdout.strip() == ("True" if sys.platform.startswith("linux")
                                 and "glibc" in " ".join(__import__("platform").libc_ver())
                                 else "False")
