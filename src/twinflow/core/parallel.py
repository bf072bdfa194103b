"""The thread pool large kernels split their work over, and per-thread scratch buffers.

NumPy releases the GIL inside ufunc loops and BLAS calls, so blocks of one fused loop (or
batch blocks of one convolution) run truly in parallel on Python threads: the threads are
``core.workers``' (the same that split matrix products and run independent ops at once).
``tw.config.threading.set_intra_op_parallelism_threads(n)`` sets the number (0: one per
core), read on every call, so a change takes effect on the next kernel.
"""
from __future__ import annotations

import threading

import numpy as np

from . import config
from .workers import run_calls

_local = threading.local()
# Per-thread scratch sets kept (a new set is made per distinct block shape).
MAX_SCRATCH_SETS = 32


def intra_threads() -> int:
    """Threads one kernel may use: the intra-op setting, or the number of cores for 0.

    Returns:
        At least 1.
    """
    n = config.threading.get_intra_op_parallelism_threads()
    return max(1, n if n > 0 else config.cpu_count)


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

    With ``parallel`` and more than one thread allowed, the pieces are calls of one
    ``core.workers.run_calls`` run: the caller and the woken workers each take the next piece
    not yet taken (each with its own scratch), the caller never waits for a worker to start,
    and after a run where sharing did not pay the next runs stay on the caller for a while.
    Each piece computes the same values wherever it runs.

    Args:
        block: the per-block function.
        n: the length to cover.
        rows: block length.
        specs: scratch buffer specs (see ``scratch``).
        parallel: whether the work is large enough to share.
    """
    nblocks = -(-n // rows) if n else 0
    threads = intra_threads() if parallel else 1
    if min(threads, nblocks) <= 1:
        buf = scratch(rows, specs)
        for s in range(0, n, rows):
            block(s, min(s + rows, n), buf)
        return

    def piece(s: int) -> None:
        with np.errstate(all="ignore"):
            block(s, min(s + rows, n), scratch(rows, specs))
    run_calls([(piece, (s,)) for s in range(0, n, rows)], threads)


def run_parallel(fn, items: list) -> list:
    """``[fn(item) for item in items]``, the items shared over the intra-op threads (one
    ``core.workers.run_calls`` run: results never depend on which thread ran an item).

    Args:
        fn: a function of one item (releasing the GIL for most of its time to gain).
        items: the work items.

    Returns:
        The results in order.
    """
    return run_calls([(fn, (x,)) for x in items], intra_threads())
