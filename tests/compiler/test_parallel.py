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
