"""The thread pool large kernels split their work over, and per-thread scratch buffers.

NumPy releases the GIL inside ufunc loops and BLAS calls, so blocks of one fused loop (or
batch blocks of one convolution) run truly in parallel on Python threads. The pool has
``intra_threads() - 1`` workers: the calling thread takes the first share itself.
``tw.config.threading.set_intra_op_parallelism_threads(n)`` sets the number (0: one per
core), read on every call, so a change takes effect on the next kernel.
"""
from __future__ import annotations

import itertools
import os
import threading
import time

import numpy as np

from . import config

_lock = threading.Lock()
_pool: list = [None, 0]          # [executor, workers]
_local = threading.local()
# Per-thread scratch sets kept (a new set is made per distinct block shape).
MAX_SCRATCH_SETS = 32


def intra_threads() -> int:
    """Threads one kernel may use: the intra-op setting, or the number of cores for 0.

    Returns:
        At least 1.
    """
    n = config.threading.get_intra_op_parallelism_threads()
    return max(1, n if n > 0 else (os.cpu_count() or 1))


def _executor(workers: int):  # -> ThreadPoolExecutor
    with _lock:
        ex, size = _pool
        if ex is None or size != workers:
            if ex is not None:
                ex.shutdown(wait=False)
            # (imported here: concurrent.futures loads logging, kept out of import twinflow)
            from concurrent.futures import ThreadPoolExecutor  # noqa: PLC0415
            ex = ThreadPoolExecutor(workers, thread_name_prefix="twinflow-intra",
                                    initializer=_mark_worker)
            _pool[0], _pool[1] = ex, workers
        return ex


def _mark_worker() -> None:
    _local.worker = True


def scratch(rows: int, specs: tuple) -> list:
    """This thread's scratch arrays for ``specs`` (``(tail shape, dtype)`` each), ``rows`` long.

    Args:
        rows: the leading dimension (block length).
        specs: one ``(tail shape, dtype)`` per buffer.

    Returns:
        A list of arrays, reused by later calls on this thread.
    """
    cache = getattr(_local, "scratch", None)
    if cache is None:
        cache = _local.scratch = {}
    key = (rows, specs)
    bufs = cache.get(key)
    if bufs is None:
        if len(cache) >= MAX_SCRATCH_SETS:
            cache.clear()
        bufs = cache[key] = [np.empty((rows, *tail), dt) for tail, dt in specs]
    return bufs


def run_blocks(block, n: int, rows: int, specs: tuple, parallel: bool) -> None:
    """Calls ``block(start, stop, scratch)`` over ``[0, n)`` in pieces of ``rows``.

    With ``parallel`` and more than one thread allowed, the pieces are shared out
    dynamically: the caller and the pool's threads each take the next piece not yet taken
    until none is left (each with its own scratch). A pool thread that the OS has not
    scheduled yet takes nothing, so on a busy machine the caller does the work alone instead
    of waiting for it; it only waits for pieces another thread has started. When sharing
    took longer than the caller alone would have, later calls run alone for a while
    (``_judge``).

    Args:
        block: the per-block function.
        n: the length to cover.
        rows: block length.
        specs: scratch buffer specs (see ``scratch``).
        parallel: whether the work is large enough to share.
    """
    nblocks = -(-n // rows) if n else 0
    threads = intra_threads() if parallel and not getattr(_local, "worker", False) else 1
    if min(threads, nblocks) <= 1:
        buf = scratch(rows, specs)
        for s in range(0, n, rows):
            block(s, min(s + rows, n), buf)
        return
    if _backoff[1] > 0:          # sharing lost lately: run alone for a while
        _backoff[1] -= 1
        threads = 1
    share = _Share(block, n, rows, specs, nblocks)
    if threads > 1:
        ex = _executor(threads - 1)
        for _ in range(min(threads, nblocks) - 1):
            ex.submit(share.work)
    start = time.perf_counter()
    mine = share.work()
    own = time.perf_counter() - start
    share.wait()
    if threads > 1:
        _judge(time.perf_counter() - start, own / mine * nblocks if mine else 0.0)


# [calls to back off for after the next loss, calls left to run alone]
_backoff = [0, 0]
MAX_BACKOFF = 256


def _judge(elapsed: float, alone: float) -> None:
    """Backs off from sharing when it lost: on a machine whose cores are busy, a pool thread
    that the OS deschedules in the middle of a piece (or while it holds the GIL) makes the
    caller wait for it, longer than doing everything alone (``alone``: the caller's time per
    piece times the pieces). Each loss doubles the number of calls then run alone (up to
    ``MAX_BACKOFF``); each win halves it. Races between threads only blur the counts."""
    if alone and elapsed > alone:
        _backoff[0] = min(max(1, 2 * _backoff[0]), MAX_BACKOFF)
        _backoff[1] = _backoff[0]
    else:
        _backoff[0] //= 2


class _Share:
    """The pieces of one ``run_blocks`` call, taken one at a time by whichever thread asks."""

    def __init__(self, block, n: int, rows: int, specs: tuple, nblocks: int) -> None:
        self.block, self.n, self.rows, self.specs = block, n, rows, specs
        self.take = itertools.count().__next__   # atomic under the GIL
        self.nblocks = self.left = nblocks
        self.lock = threading.Lock()
        self.done = threading.Event()
        self.error: BaseException | None = None

    def work(self) -> int:
        """Runs pieces until none is left; returns how many this thread ran."""
        finished = 0
        try:
            i = self.take()
            if i < self.nblocks:
                buf = scratch(self.rows, self.specs)
                with np.errstate(all="ignore"):
                    while i < self.nblocks:
                        s = i * self.rows
                        self.block(s, min(s + self.rows, self.n), buf)
                        finished += 1
                        i = self.take()
        except BaseException as e:  # noqa: BLE001 - handed to the caller, which re-raises
            self.error = e
            finished = self.nblocks   # (wakes the caller now)
        with self.lock:
            self.left -= finished
            if self.left <= 0:
                self.done.set()
        return finished

    def wait(self) -> None:
        """Returns when every piece is done; re-raises a piece's exception."""
        self.done.wait()
        if self.error is not None:
            raise self.error
