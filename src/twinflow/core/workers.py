"""A few kernel calls at once: persistent worker threads with a cheap hand-off.

Compiled graphs use it twice: a large matrix product is split into row (or column) blocks
computed at once (``ops/matmul_split.py``, sized by the intra-op setting), and independent
heavy ops of a program run side by side (``compiler/schedule.py``, sized by the inter-op
setting). NumPy and BLAS release the GIL, so the calls truly overlap.

The hand-off is one lock release to wake a worker and one acquire to wait for it, about
10 µs in all on an idle core: cheaper than a ``concurrent.futures`` submission (~25 µs),
which matters for products of 50-300 µs. One caller at a time uses the workers: a call made
while they are busy (from a worker, from a call nested inside a concurrent one, or from
another Python thread) runs its calls one after the other on its own thread, so nothing ever
waits for a worker that waits for it. Results never depend on the number of threads that ran
them: each call computes the same thing wherever it runs.
"""
from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterator

from . import blas, config

_busy = threading.Lock()        # held by the one caller whose calls the workers run
_local = threading.local()      # .serial: True on the worker threads and in one_at_a_time
_workers: list = []


def cpu_threads(setting: int) -> int:
    """A thread-count setting resolved: the setting, or the number of cores for 0.

    Args:
        setting: a value of ``set_intra_op_parallelism_threads`` or
            ``set_inter_op_parallelism_threads``.

    Returns:
        At least 1.
    """
    return max(1, setting if setting > 0 else (os.cpu_count() or 1))


def inter_threads() -> int:
    """Ops of one program that may run at once: the inter-op setting (0: one per core).

    Returns:
        At least 1.
    """
    return cpu_threads(config.threading.get_inter_op_parallelism_threads())


class _Worker:
    """One daemon thread running the calls it is handed, one batch at a time."""

    def __init__(self, index: int) -> None:
        self.go = threading.Lock()
        self.go.acquire()
        self.done = threading.Lock()
        self.done.acquire()
        self.batch: list = []        # [(position, fn, args)]
        self.results: list = []      # filled with (position, value) by the worker
        self.error: tuple | None = None   # (position, exception) of a failed call
        self.thread = threading.Thread(target=self._loop, daemon=True,
                                       name=f"twinflow-worker-{index}")
        self.thread.start()

    def _loop(self) -> None:
        _local.serial = True
        while True:
            self.go.acquire()
            pos = -1
            try:
                for pos, fn, args in self.batch:
                    self.results[pos] = fn(*args)
            except BaseException as e:  # noqa: BLE001  (re-raised in the caller's thread)
                self.error = (pos, e)
            self.batch = []
            self.done.release()


def _get_workers(n: int) -> list:
    while len(_workers) < n:
        _workers.append(_Worker(len(_workers)))
    return _workers[:n]


def _forget_workers() -> None:
    # A forked child has none of the parent's threads: start fresh ones on demand.
    global _busy
    _workers.clear()
    _busy = threading.Lock()


os.register_at_fork(after_in_child=_forget_workers)


def run_calls(calls: list, threads: int) -> list:
    """``[fn(*args) for fn, args in calls]``, with up to ``threads`` threads at once.

    Call ``i`` runs on thread ``i % threads`` (the caller is thread 0), so which calls share a
    thread is fixed. BLAS runs single-threaded meanwhile (``blas.single_threaded``): two levels
    of threads would oversubscribe the cores.

    Args:
        calls: ``(function, argument tuple)`` pairs, independent of each other.
        threads: the most threads to use (1: in order on the caller's thread).

    Returns:
        The results, in the order of ``calls``.

    Raises:
        BaseException: the first error of a call (in call order), after all have finished.
    """
    n = min(threads, len(calls))
    if n <= 1 or getattr(_local, "serial", False) or not _busy.acquire(blocking=False):
        return [fn(*args) for fn, args in calls]
    try:
        with blas.single_threaded():
            return _run(calls, n)
    finally:
        _busy.release()


def _run(calls: list, n: int) -> list:
    results: list = [None] * len(calls)
    workers = _get_workers(n - 1)
    for w in workers:
        w.results, w.error = results, None
    for pos in range(1, len(calls)):
        t = pos % n
        if t:
            workers[t - 1].batch.append((pos, *calls[pos]))
    for w in workers:
        w.go.release()
    errors = []
    try:
        for pos in range(0, len(calls), n):
            fn, args = calls[pos]
            results[pos] = fn(*args)
    except BaseException as e:  # noqa: BLE001  (raised once the workers are done)
        errors.append((pos, e))
    for w in workers:
        w.done.acquire()
        if w.error is not None:
            errors.append(w.error)
            w.error = None
    if errors:
        raise min(errors, key=lambda pe: pe[0])[1]
    return results


@contextlib.contextmanager
def one_at_a_time() -> Iterator[None]:
    """Within the block, this thread runs every ``run_calls`` in order on itself
    (``tw.experimental.function_executor_type("SINGLE_THREADED_EXECUTOR")``).

    Yields:
        Nothing.
    """
    old = getattr(_local, "serial", False)
    _local.serial = True
    try:
        yield
    finally:
        _local.serial = old


def running_concurrently() -> bool:
    """Whether the workers are in use now (by this or another thread).

    Returns:
        True while some caller's calls run on them.
    """
    return _busy.locked()
