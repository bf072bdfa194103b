"""A few kernel calls at once: persistent worker threads that help the caller.

Compiled graphs use it twice: a large matrix product is split into row (or column) blocks
computed at once (``ops/matmul_split.py``, sized by the intra-op setting), and independent
heavy ops of a program run side by side (``compiler/schedule.py``, sized by the inter-op
setting). NumPy and BLAS release the GIL, so the calls truly overlap.

The caller never waits for a worker to start. It posts the run (one ``SimpleQueue.put`` per
helper wanted, ~5-10 µs until a sleeping worker runs) and takes calls from the run's list
itself, as the woken workers do; once the list is empty it waits only for calls a worker has
actually started. On a busy machine, where a worker may not get a core for milliseconds,
the caller simply does all the work; and after a run where concurrency did not pay, the
next runs go in order on the caller for a while (``_Backoff``); callers may also check
``machine_busy`` (the load average) first, as split products and concurrent groups do. A run
nested in
another (a split product inside a concurrent group) runs in order on its thread. Results
never depend on which thread ran a call: each call computes the same thing wherever it runs.
"""
from __future__ import annotations

import collections
import contextlib
import os
import queue
import threading
from collections.abc import Iterator
from time import perf_counter

from . import blas, config

_local = threading.local()      # .serial: no nested runs (worker, inside a run, one_at_a_time)
_lock = threading.Lock()        # guards _workers
_workers: list = []
_posts: queue.SimpleQueue = queue.SimpleQueue()
_NOTHING = contextlib.nullcontext()


def cpu_threads(setting: int) -> int:
    """A thread-count setting resolved: the setting, or the number of cores for 0.

    Args:
        setting: a value of ``set_intra_op_parallelism_threads`` or
            ``set_inter_op_parallelism_threads``.

    Returns:
        At least 1.
    """
    return max(1, setting if setting > 0 else config.cpu_count)


def inter_threads() -> int:
    """Ops of one program that may run at once: the inter-op setting (0: one per core).

    Returns:
        At least 1.
    """
    return cpu_threads(config.threading.get_inter_op_parallelism_threads())


class _Run:
    """The calls of one ``run_calls``, taken one at a time by whichever thread is free."""

    def __init__(self, calls: list) -> None:
        self.pending = collections.deque(enumerate(calls))
        self.results: list = [None] * len(calls)
        self.errors: list = []          # (position, exception)
        self.lock = threading.Lock()
        self.started = 0                # calls taken and not finished
        self.taken = 0                  # calls taken by any thread
        self.own = 0                    # calls taken by the caller
        self.waiter: threading.Lock | None = None

    def work(self) -> None:
        """Runs calls until none is left (on the caller and on woken workers)."""
        while True:
            with self.lock:
                if not self.pending:
                    return
                pos, (fn, args) = self.pending.popleft()
                self.started += 1
                self.taken += 1
                if not getattr(_local, "worker", False):
                    self.own += 1
            try:
                self.results[pos] = fn(*args)
            except BaseException as e:  # noqa: BLE001  (raised in the caller's thread)
                self.errors.append((pos, e))
            finally:
                with self.lock:
                    self.started -= 1
                    if self.started == 0 and self.waiter is not None and not self.pending:
                        self.waiter.release()
                        self.waiter = None

    def wait(self) -> None:
        """Waits for the calls workers started (the caller has emptied ``pending``)."""
        with self.lock:
            if not self.started:
                return
            w = self.waiter = threading.Lock()
            w.acquire()
        w.acquire()


def _worker_loop() -> None:
    _local.serial = _local.worker = True
    while True:
        _posts.get().work()   # (a run finished before this worker woke has nothing left)


def _ensure_workers(n: int) -> None:
    if len(_workers) >= n:
        return
    with _lock:
        while len(_workers) < n:
            t = threading.Thread(target=_worker_loop, daemon=True,
                                 name=f"twinflow-worker-{len(_workers)}")
            t.start()
            _workers.append(t)


def _forget_workers() -> None:
    # A forked child has none of the parent's threads: start fresh ones on demand.
    global _posts, _lock
    _workers.clear()
    _posts = queue.SimpleQueue()
    _lock = threading.Lock()


os.register_at_fork(after_in_child=_forget_workers)


def run_calls(calls: list, threads: int) -> list:
    """``[fn(*args) for fn, args in calls]``, with up to ``threads`` threads at once.

    The caller runs calls too; BLAS runs single-threaded meanwhile (``blas.single_threaded``):
    two levels of threads would oversubscribe the cores.

    Args:
        calls: ``(function, argument tuple)`` pairs, independent of each other.
        threads: the most threads to use (1: in order on the caller's thread).

    Returns:
        The results, in the order of ``calls``.

    Raises:
        BaseException: the error of the first failing call (in call order), after every call
            that started has finished (calls not yet started when one fails still run).
    """
    n = min(threads, len(calls))
    if n <= 1 or getattr(_local, "serial", False) or _backoff.skip():
        return [fn(*args) for fn, args in calls]
    run = _Run(calls)
    _ensure_workers(n - 1)
    # (BLAS on one thread already, the common case: no need to take the setting's lock)
    with blas.single_threaded() if blas.get_threads() not in (None, 1) else _NOTHING:
        t0 = perf_counter()
        for _ in range(n - 1):
            _posts.put(run)
        _local.serial = True     # a run nested in one of these calls stays on this thread
        try:
            run.work()
        finally:
            _local.serial = False
            t1 = perf_counter()
            run.wait()
            # In order, the calls would have taken about the caller's time per call each.
            _backoff.judge(run.taken > run.own, perf_counter() - t0,
                           (t1 - t0) / max(run.own, 1) * len(calls))
    if run.errors:
        raise min(run.errors, key=lambda pe: pe[0])[1]
    return run.results


# Other processes keep the cores busy when the 1-minute load average exceeds the cores plus
# this (read at most every BUSY_CHECK_S seconds; ops/nn/conv_shift.py asks this function too).
BUSY_MARGIN = 1.0
BUSY_CHECK_S = 1.0
_load = [-1e9, False]   # [when read, busy]


def machine_busy() -> bool:
    """Whether other processes keep the cores busy: then split products and concurrent groups
    run in order (``ops/matmul_split.py``, ``compiler/schedule.py``).

    Measured on the 2-core machine at load 3-9 (MLP step): a woken worker often ran its call
    at half speed or late, and the step took 1.16-1.32x its time in order, which the
    per-run ``_Backoff`` alone did not catch (its estimate of the in-order time is inflated
    by the same contention).

    Returns:
        True when the load average is above the cores plus ``BUSY_MARGIN``.
    """
    now = perf_counter()
    if now - _load[0] > BUSY_CHECK_S:
        try:
            avg = os.getloadavg()[0]
        except OSError:   # (no load average on this system: never busy)
            avg = 0.0
        _load[:] = [now, avg > config.cpu_count + BUSY_MARGIN]
    return _load[1]


class _Backoff:
    """Runs in order for a while after concurrency did not pay.

    On a machine whose cores are all busy, a woken worker may get no core until the caller has
    done every call (then posting cost time for nothing), or may be preempted while it holds
    the GIL or a call (then the caller waits). A run is *good* when a worker took a call and
    the run took less time than the calls would have in order (estimated as the caller's time
    per call, times the calls); after a bad one the next runs go in order on the caller (1, 2,
    4... up to ``MAX_SKIP`` after consecutive bad ones; a good run resets it). On an idle
    machine every run of calls large enough to share is good and nothing is skipped.
    (Unlocked: a race between threads only shifts the heuristic.)
    """

    MAX_SKIP = 64

    def __init__(self) -> None:
        self.left = 0       # runs still to go in order
        self.next = 1       # runs to skip after the next bad run

    def skip(self) -> bool:
        if self.left:
            self.left -= 1
            return True
        return False

    def judge(self, helped: bool, elapsed: float, in_order: float) -> None:
        if helped and elapsed <= in_order:
            self.next = 1
            return
        self.left = self.next
        self.next = min(2 * self.next, self.MAX_SKIP)


_backoff = _Backoff()


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
