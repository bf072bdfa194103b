"""The intra-op thread pool and the thread settings that control it (and BLAS)."""
from __future__ import annotations

import threading

import numpy as np
import pytest

import twinflow as tw
from twinflow.core import blas, parallel, workers


@pytest.fixture
def restore_threads(monkeypatch):
    old = tw.config.threading.get_intra_op_parallelism_threads()
    workers._backoff = workers._Backoff()   # (a busy machine may have made earlier runs back off)
    # (and a loaded machine, e.g. CI, would run every split in order: these tests check splits)
    monkeypatch.setattr(workers, "machine_busy", lambda: False)
    yield
    tw.config.threading.set_intra_op_parallelism_threads(old)


def _threads_used(parallel_ok: bool, wait_for_helper: bool = False) -> set:
    seen = set()
    out = np.zeros(64)
    caller = threading.get_ident()
    helped = threading.Event()

    def block(s, e, buf):
        seen.add(threading.get_ident())
        if threading.get_ident() != caller:
            helped.set()
        elif wait_for_helper:   # (pieces go to whichever thread asks first)
            helped.wait(10)
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
    helpers = _threads_used(True, wait_for_helper=True) - {threading.get_ident()}
    assert helpers                               # pool threads took pieces
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
def test_shifted_gemms_accumulate_into_blocks_of_rows(dtype):
    if not blas.available():
        pytest.skip("NumPy's BLAS is not a bundled OpenBLAS")
    rng = np.random.default_rng(0)
    a = rng.normal(size=(40, 7)).astype(dtype)[:, :6]            # rows with a stride
    w = rng.normal(size=(3, 6, 5)).astype(dtype)
    c = rng.normal(size=(50, 5)).astype(dtype)
    for beta0 in (0, 1):
        got = c.copy()
        want = c.copy()
        if beta0 == 0:
            want[10:38] = 0                                     # the first block
        for k, (oa, oc) in enumerate([(3, 10), (0, 10), (9, 12)]):
            want[oc:oc + 28] += a[oa:oa + 28] @ w[k]
        assert blas.shifted_gemms(a, [3, 0, 9], w, got[:, :], [10, 10, 12], 28, beta0)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    # what it cannot do it leaves to NumPy, untouched
    before = c.copy()
    for args in [(a, [3, 0, 13], w, c, [0, 0, 0], 28, 1),            # a block past the end
                 (a, [0, 0, 0], w, c, [0, 0, 23], 28, 1),            # c block past the end
                 (a, [0, 0], w, c, [0, 0], 28, 1),                   # one offset too few
                 (a.T, [0, 0, 0], w, c, [0, 0, 0], 2, 1),            # columns not contiguous
                 (a, [0, 0, 0], w[:, :, ::-1], c, [0, 0, 0], 28, 1),  # w not contiguous
                 (a, [0, 0, 0], w.astype(np.float16), c, [0, 0, 0], 28, 1),
                 (a.astype(np.int64), [0, 0, 0], w.astype(np.int64), c.astype(np.int64),
                  [0, 0, 0], 28, 1)]:
        assert not blas.shifted_gemms(*args)
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


class _Blocker:
    """Posted to every worker: keeps them all busy until released."""

    def __init__(self) -> None:
        self.release = threading.Event()

    def __enter__(self) -> _Blocker:
        workers._ensure_workers(1)
        for _ in workers._workers:
            workers._posts.put(self)
        return self

    def __exit__(self, *exc) -> None:
        self.release.set()

    def work(self) -> None:
        self.release.wait(30)


def test_run_blocks_share_pieces_and_never_wait_for_a_busy_thread(restore_threads):
    tw.config.threading.set_intra_op_parallelism_threads(2)
    # every worker is busy: the caller takes every piece and returns
    with _Blocker():
        assert _threads_used(True) == {threading.get_ident()}
    # pieces taken by whichever thread asks first: all done once each, in place
    counts = np.zeros(1000, np.int64)

    def block(s, e, buf):
        counts[s:e] += 1
    for _ in range(20):
        parallel.run_blocks(block, 1000, 7, (), True)
    np.testing.assert_array_equal(counts, 20)


@pytest.mark.parametrize("bad_start", [0, 56])   # a piece of the caller's, a late piece
def test_run_blocks_raise_a_pieces_error(restore_threads, bad_start):
    tw.config.threading.set_intra_op_parallelism_threads(2)

    def block(s, e, buf):
        if s == bad_start:
            raise ValueError(f"piece at {s}")
    with pytest.raises(ValueError, match=f"piece at {bad_start}"):
        parallel.run_blocks(block, 64, 8, (), True)
    assert len(_threads_used(True)) >= 1      # the pool still works afterwards


def test_run_parallel_shares_items_in_order(restore_threads):
    tw.config.threading.set_intra_op_parallelism_threads(2)
    seen = set()

    def fn(i):
        seen.add(threading.get_ident())
        return np.full(1000, i).sum()   # (releases the GIL briefly)

    assert parallel.run_parallel(fn, list(range(20))) == [1000 * i for i in range(20)]
    assert parallel.run_parallel(fn, [3]) == [3000]
    assert parallel.run_parallel(fn, []) == []


def test_run_parallel_caller_takes_what_a_late_worker_did_not_start(restore_threads):
    # the one worker is blocked: the calling thread must run every item itself and not wait
    tw.config.threading.set_intra_op_parallelism_threads(2)
    with _Blocker():
        me = threading.get_ident()
        ran = []
        out = parallel.run_parallel(lambda i: ran.append(threading.get_ident()) or i * 2,
                                    list(range(5)))
        assert out == [0, 2, 4, 6, 8] and set(ran) == {me}


def test_run_parallel_raises_the_items_error(restore_threads):
    tw.config.threading.set_intra_op_parallelism_threads(2)

    def fn(i):
        if i == 3:
            raise ValueError("item 3")
        return i

    with pytest.raises(ValueError, match="item 3"):
        parallel.run_parallel(fn, list(range(6)))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_shifted_gemms_in_groups_of_rows_and_transposed(dtype):
    if not blas.available():
        pytest.skip("NumPy's BLAS is not a bundled OpenBLAS")
    rng = np.random.default_rng(1)
    a = rng.normal(size=(60, 7)).astype(dtype)[:, :6]
    w = rng.normal(size=(3, 6, 5)).astype(dtype)
    whole = np.zeros((50, 5), dtype)
    assert blas.shifted_gemms(a, [3, 0, 9], w, whole, [0, 0, 0], 45, 0)
    for chunk in (1, 7, 45, 100):     # equal c offsets: groups of rows give the same bits
        got = np.full((50, 5), 7, dtype)
        assert blas.shifted_gemms(a, [3, 0, 9], w, got, [0, 0, 0], 45, 0, chunk)
        np.testing.assert_array_equal(got[:45], whole[:45])
        assert (got[45:] == 7).all()
    b = rng.normal(size=(45, 5)).astype(dtype)
    want = np.stack([a[o:o + 40].T @ b[:40] for o in (3, 0, 9)])
    for chunk in (0, 6, 40):
        c = np.full((3, 6, 5), np.nan, dtype)
        assert blas.shifted_gemms_t(a, [3, 0, 9], b, c, 40, chunk)
        np.testing.assert_allclose(c, want, rtol=1e-5, atol=1e-5)
    c = np.full((3, 6, 5), np.nan, dtype)
    assert blas.shifted_gemms_t(a, [3, 0, 9], b, c, 0)           # no rows: zeros
    np.testing.assert_array_equal(c, 0)
    for args in [(a, [3, 0, 19], b, c, 45), (a, [0, 0], b, c, 40), (a, [0, 0, 0], b, c, 46),
                 (a, [0, 0, 0], b, c[:, :, ::-1], 40), (a, [0, 0, 0], b.astype(np.float16), c, 4),
                 (a, [0, 0, 0], b, c[:, :5], 40)]:
        assert not blas.shifted_gemms_t(*args)
