"""``tw.train.Coordinator``: stops a group of threads together and reports their errors."""
from __future__ import annotations

import contextlib
import sys
import threading
import time
from collections.abc import Iterator

from ..core.errors import OutOfRangeError


class Coordinator:
    """Coordinates the termination of a set of threads.

    Threads loop ``while not coord.should_stop():``; any of them (or the main thread) calls
    ``request_stop()``, possibly with the exception that ended it, and ``join`` waits for them
    all, then re-raises that exception. Exceptions of ``clean_stop_exception_types`` (by default
    ``OutOfRangeError``: an input ran out) stop the threads without being reported.
    """

    def __init__(self, clean_stop_exception_types=None) -> None:
        """Creates the coordinator.

        Args:
            clean_stop_exception_types: exception classes that stop cleanly (default:
                ``(tw.errors.OutOfRangeError,)``).
        """
        if clean_stop_exception_types is None:
            clean_stop_exception_types = (OutOfRangeError,)
        self._clean_stop_exception_types = tuple(clean_stop_exception_types)
        self._lock = threading.Lock()
        self._stop_event = threading.Event()
        self._exc_info_to_raise = None
        self._joined = False
        self._registered_threads: set = set()

    def _filter_exception(self, ex):
        if isinstance(ex, tuple):
            ex2 = ex[1]
        else:
            ex2 = ex
        if isinstance(ex2, self._clean_stop_exception_types):
            return None  # a clean stop: not reported
        return ex

    def request_stop(self, ex=None) -> None:
        """Asks every thread to stop; records ``ex`` (the first one wins) for ``join``.

        Args:
            ex: None, an exception, or an ``exc_info`` tuple.

        Raises:
            ValueError: ``ex`` is not an exception nor an ``exc_info`` tuple.
        """
        with self._lock:
            ex = self._filter_exception(ex)
            if self._joined:
                if isinstance(ex, tuple):
                    raise ex[1].with_traceback(ex[2])
                if ex is not None:
                    raise ex
            if ex is not None and self._exc_info_to_raise is None:
                if isinstance(ex, tuple):
                    if len(ex) != 3 or not isinstance(ex[1], BaseException):
                        raise ValueError(f"ex must be an exception or an exc_info tuple, got "
                                         f"{ex!r}")
                    self._exc_info_to_raise = ex
                elif isinstance(ex, BaseException):
                    self._exc_info_to_raise = (type(ex), ex, ex.__traceback__)
                else:
                    raise ValueError(f"ex must be an exception or an exc_info tuple, got "
                                     f"{ex!r}")
            self._stop_event.set()

    def clear_stop(self) -> None:
        """Clears the stop request and any recorded exception (to reuse the coordinator)."""
        with self._lock:
            self._joined = False
            self._exc_info_to_raise = None
            self._stop_event.clear()

    def should_stop(self) -> bool:
        """Whether a stop was requested.

        Returns:
            True once ``request_stop`` ran.
        """
        return self._stop_event.is_set()

    @contextlib.contextmanager
    def stop_on_exception(self) -> Iterator[None]:
        """``with coord.stop_on_exception():`` requests a stop with any exception of the block.

        Yields:
            Nothing.
        """
        try:
            yield
        except BaseException:  # noqa: BLE001  (recorded for join, as TensorFlow does)
            self.request_stop(ex=sys.exc_info())

    def wait_for_stop(self, timeout=None) -> bool:
        """Waits until a stop is requested.

        Args:
            timeout: seconds to wait at most (None: forever).

        Returns:
            True if a stop was requested, False on timeout.
        """
        return self._stop_event.wait(timeout)

    def register_thread(self, thread: threading.Thread) -> None:
        """Adds ``thread`` to the threads ``join`` waits for.

        Args:
            thread: a ``threading.Thread``.
        """
        with self._lock:
            self._registered_threads.add(thread)

    def join(self, threads=None, stop_grace_period_secs: float = 120,
             ignore_live_threads: bool = False) -> None:
        """Waits for a stop request, then for the threads; re-raises the recorded exception.

        Args:
            threads: threads to wait for, besides the registered ones.
            stop_grace_period_secs: how long threads may run after the stop request.
            ignore_live_threads: do not raise for threads still running after the grace
                period.

        Raises:
            RuntimeError: threads still run after the grace period.
            Exception: the exception passed to ``request_stop``.
        """
        with self._lock:
            threads = set(threads or ()) | self._registered_threads
        while any(t.is_alive() for t in threads) and not self.wait_for_stop(0.1):
            pass
        deadline = time.monotonic() + stop_grace_period_secs
        for t in threads:
            left = deadline - time.monotonic()
            if left > 0:
                t.join(left)
        with self._lock:
            self._joined = True
            self._registered_threads = set()
            exc = self._exc_info_to_raise
        stragglers = [t.name for t in threads if t.is_alive()]
        if exc is not None:
            raise exc[1].with_traceback(exc[2])
        if stragglers and not ignore_live_threads:
            raise RuntimeError(f"Coordinator stopped with threads still running: "
                               f"{' '.join(stragglers)}")

    @property
    def joined(self) -> bool:
        """Whether ``join`` has finished."""
        return self._joined

    def raise_requested_exception(self) -> None:
        """Re-raises the exception passed to ``request_stop``, if any.

        Raises:
            Exception: that exception.
        """
        with self._lock:
            exc = self._exc_info_to_raise
        if exc is not None:
            raise exc[1].with_traceback(exc[2])

    def loop(self, timer_interval_secs, target, args=None, kwargs=None) -> threading.Thread:
        """Starts a thread calling ``target(*args, **kwargs)`` every ``timer_interval_secs``
        until a stop is requested (exceptions request the stop).

        Args:
            timer_interval_secs: seconds between calls.
            target: the function.
            args: its positional arguments.
            kwargs: its keyword arguments.

        Returns:
            The started thread (registered).
        """
        def run() -> None:
            with self.stop_on_exception():
                while not self.should_stop():
                    target(*(args or ()), **(kwargs or {}))
                    if self.wait_for_stop(timer_interval_secs):
                        break
        t = threading.Thread(target=run, daemon=True, name=f"LooperThread-{target!r}"[:60])
        self.register_thread(t)
        t.start()
        return t
