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

    With ``parallel`` and more than one thread allowed, contiguous runs of pieces go to the
    pool's threads (each with its own scratch); the caller runs the first and waits for all.

    Args:
        block: the per-block function.
        n: the length to cover.
        rows: block length.
        specs: scratch buffer specs (see ``scratch``).
        parallel: whether the work is large enough to share.
    """
    nblocks = -(-n // rows) if n else 0
    threads = intra_threads() if parallel and not getattr(_local, "worker", False) else 1
    parts = min(threads, nblocks)
    if parts <= 1:
        buf = scratch(rows, specs)
        for s in range(0, n, rows):
            block(s, min(s + rows, n), buf)
        return
    per = -(-nblocks // parts) * rows

    def part(i: int) -> None:
        buf = scratch(rows, specs)
        lo, hi = i * per, min((i + 1) * per, n)
        with np.errstate(all="ignore"):
            for s in range(lo, hi, rows):
                block(s, min(s + rows, hi), buf)

    ex = _executor(threads - 1)
    futures = [ex.submit(part, i) for i in range(1, parts)]
    try:
        part(0)
    finally:
        for f in futures:
            f.result()


def run_parallel(fn, items: list) -> list:
    """``[fn(item) for item in items]``, the items shared over the pool's threads.

    The calling thread and the workers each take the next item not yet taken until none are
    left, so which thread runs an item never changes the results, and on a busy machine a
    worker that is not scheduled in time costs nothing: the caller takes its items and drops
    the worker's task if it has not started.

    Args:
        fn: a function of one item (releasing the GIL for most of its time to gain).
        items: the work items.

    Returns:
        The results in order.
    """
    threads = 1 if getattr(_local, "worker", False) else intra_threads()
    if threads <= 1 or len(items) <= 1:
        return [fn(x) for x in items]
    results: list = [None] * len(items)
    taken = itertools.count()   # (next() on a count is atomic under the GIL)

    def take() -> None:
        for i in iter(taken.__next__, None):
            if i >= len(items):
                return
            results[i] = fn(items[i])

    ex = _executor(threads - 1)
    futures = [ex.submit(take) for _ in range(min(threads, len(items)) - 1)]
    try:
        take()
    finally:
        for f in futures:
            if not f.cancel():
                f.result()
    return results
