"""Real parallelism: ``map(num_parallel_calls=N)`` on a thread pool and ``prefetch`` from a
background thread.

NumPy kernels release the GIL, so a map whose function is array work runs beside the training
step. Order is deterministic unless ``deterministic=False``. An exception in a worker is
re-raised in the consumer (with the worker's traceback, as ``__traceback__`` of the same
exception object). Closing a pass (an iterator dropped or exhausted, ``Iterator.close()``)
stops its threads: the generator's ``finally`` tells them to stop and joins them.
"""
from __future__ import annotations

import collections
import concurrent.futures as cf
import queue
import threading
from collections.abc import Callable, Iterator

from ..core import errors
from .dataset import Dataset
from .registry import register_node
from .transforms import Counted, Map

_ITEM, _END, _ERROR = 0, 1, 2
_JOIN_TIMEOUT_S = 30.0


@register_node
class ParallelMap(Map):
    """``map`` with ``num_parallel_calls``: up to that many elements in a thread pool."""

    def __init__(self, input_dataset: Dataset, fn: Callable, num_parallel_calls: int,
                 deterministic: bool) -> None:
        super().__init__(input_dataset, fn)
        self._n = num_parallel_calls
        self._deterministic = deterministic

    def _gen(self):
        deterministic = self._deterministic
        opts = self.options()
        if opts.deterministic is False or opts.experimental_deterministic is False:
            deterministic = False
        fn, n = self._fn, self._n
        pool = cf.ThreadPoolExecutor(n, thread_name_prefix="twinflow-data-map")
        pending: collections.deque = collections.deque()
        it = self._input._gen()
        exhausted = False
        try:
            while True:
                while not exhausted and len(pending) < n:
                    try:
                        e = next(it)
                    except StopIteration:
                        exhausted = True
                        break
                    pending.append(pool.submit(fn, e))
                if not pending:
                    return
                if deterministic:
                    fut = pending.popleft()
                else:
                    done, _ = cf.wait(pending, return_when=cf.FIRST_COMPLETED)
                    fut = next(f for f in pending if f in done)
                    pending.remove(fut)
                try:
                    out = fut.result()
                except errors.OpError as err:
                    self._dropped(err)
                    continue
                yield out
        finally:
            for f in pending:
                f.cancel()
            pool.shutdown(wait=True, cancel_futures=True)
            it.close()


def background(start: Callable[[], Iterator], buffer_size: int,
               name: str = "twinflow-data-prefetch") -> Iterator:
    """Runs the pass ``start()`` on a background thread that keeps up to ``buffer_size``
    elements ready; a generator handing them out in order.

    Args:
        start: starts the upstream pass (a generator), called on the background thread.
        buffer_size: how many elements may wait.
        name: the thread's name.

    Returns:
        A generator of the upstream elements.
    """
    # One pass at a time: completion order is the pass's own order.
    return completion_order(iter([start]), 1, buffer_size, name)


def completion_order(starts: Iterator[Callable[[], Iterator]], cycle: int, buffer_size: int,
                     name: str = "twinflow-data-interleave") -> Iterator:
    """Runs up to ``cycle`` passes at once, each on its own thread, and yields their elements
    in the order they are produced (``interleave(deterministic=False)``): a slow input does not
    hold back the others. When a pass ends the next one from ``starts`` is started.

    Args:
        starts: functions that each start one pass (a generator), taken as slots free up.
        cycle: how many passes run at once.
        buffer_size: how many elements may wait in all.
        name: the threads' name.

    Yields:
        The passes' elements, in completion order.
    """
    q: queue.Queue = queue.Queue(maxsize=max(buffer_size, 1))
    stop = threading.Event()
    threads: list = []

    def put(item) -> bool:
        while not stop.is_set():
            try:
                q.put(item, timeout=0.05)
                return True
            except queue.Full:
                continue
        return False

    def produce(start: Callable[[], Iterator]) -> None:
        it = None
        try:
            it = start()
            for e in it:
                if not put((_ITEM, e)):
                    return
            put((_END, None))
        except BaseException as ex:  # noqa: BLE001  (handed to the consumer, raised there)
            put((_ERROR, ex))
        finally:
            if it is not None:
                it.close()

    def launch() -> bool:
        start = next(starts, None)
        if start is None:
            return False
        t = threading.Thread(target=produce, args=(start,), name=name, daemon=True)
        threads.append(t)
        t.start()
        return True

    running = sum(launch() for _ in range(cycle))
    try:
        while running:
            kind, value = q.get()
            if kind == _ITEM:
                yield value
            elif kind == _END:
                running -= 1
                running += launch()
            else:
                raise value
    finally:
        stop.set()
        while True:  # unblock producers waiting on a full queue
            try:
                q.get_nowait()
            except queue.Empty:
                break
        for t in threads:
            t.join(_JOIN_TIMEOUT_S)


@register_node
class Prefetch(Counted):
    """Reads ahead on a background thread, up to ``_count`` elements."""

    def _gen(self):
        return background(self._input._gen, self._count)
