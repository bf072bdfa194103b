"""The profiler's recorder: one event per executed op, written as a Chrome trace.

``start`` sets ``process.profiling``, which makes every eager op leave the fast path (the
device hook, ``core/devices.py``) and every ``tw.function`` call run its program compiled with
a timer around each op (``GraphCallable.profiled_run``; the call reads the flag once). While it
is off nothing is recorded and the only cost is that flag: eager ops on the fast path never
read it. Events are ``(name, type, start_ns, end_ns, thread,
args)`` tuples appended to a list (``list.append`` is atomic); ``stop`` writes them, gzipped,
to ``<logdir>/plugins/profile/<run>/<host>.trace.json.gz`` as TensorFlow places its traces. The
Chrome trace format is what Perfetto (ui.perfetto.dev) and chrome://tracing open.
"""
from __future__ import annotations

import collections
import gzip
import json
import os
import socket
import sys
import threading
import time

from . import devices
from .context import process
from .errors import UnavailableError
from .files import atomic_write

ProfilerOptions = collections.namedtuple(
    "ProfilerOptions", ["host_tracer_level", "python_tracer_level", "device_tracer_level",
                        "delay_ms"], defaults=[2, 0, 1, None])
ProfilerOptions.__doc__ = """Options of ``start`` (TensorFlow's fields and defaults).

host_tracer_level: 0 records nothing, 1 only ``Trace`` events, 2 (default) and 3 also one event
per executed op. python_tracer_level: 1 also records every Python function call (``sys``'s
profile hook). device_tracer_level: twinflow runs on the host only, so there are no device
events at any level. delay_ms: events start that many milliseconds after ``start``."""


class Recorder:
    """The events of one profiling session."""

    def __init__(self, logdir: str, options: ProfilerOptions) -> None:
        self.logdir, self.options = logdir, options
        self.events: list = []
        self.begin = time.perf_counter_ns()
        self.after = self.begin + int((options.delay_ms or 0) * 1e6)
        self.ops = options.host_tracer_level >= 2
        self.traces = options.host_tracer_level >= 1
        self.threads: dict = {}

    def add(self, name: str, kind: str, start: int, end: int, args=None) -> None:
        """Records one event (times from ``time.perf_counter_ns``)."""
        if start >= self.after:
            ident = threading.get_ident()
            if ident not in self.threads:  # (named now: the thread may be gone by stop)
                self.threads[ident] = threading.current_thread().name
            self.events.append((name, kind, start, end, ident, args))


_active: list = []  # [Recorder] while profiling
_lock = threading.Lock()


def active() -> Recorder | None:
    """The recorder of the running session, or None."""
    return _active[0] if _active else None


def record_op(name: str, op_type: str, start: int, outputs=(), graph: str | None = None) -> None:
    """Records an op that ran from ``start`` until now (called by bind and compiled graphs).

    Args:
        name: the op's name (its type when eager).
        op_type: the op's type.
        start: ``time.perf_counter_ns()`` before it ran.
        outputs: the op's output values (NumPy; None for one nobody reads), for listeners.
        graph: the name of the function graph running the op, None when eager.
    """
    rec = _active[0] if _active else None
    if rec is not None and rec.ops:
        rec.add(name, op_type, start, time.perf_counter_ns())
    for listener in _listeners:
        listener(graph, name, op_type, outputs)


_listeners: list = []  # per-op listeners (the tfdbg2 dumper, io/debug_events.py)


def _refresh() -> None:
    """Ops take the recording path while a profiler or a listener wants them (under _lock)."""
    process.profiling = bool(_active or _listeners)
    devices.refresh_eager_hook()


def add_listener(fn) -> None:
    """Calls ``fn(graph, name, op_type, outputs)`` after every op run until removed.

    Args:
        fn: the listener.
    """
    with _lock:
        _listeners.append(fn)
        _refresh()


def remove_listener(fn) -> None:
    """Stops calling ``fn`` (see ``add_listener``).

    Args:
        fn: the listener.
    """
    with _lock:
        if fn in _listeners:
            _listeners.remove(fn)
        _refresh()


def _python_hook(frame, event, arg):
    rec = _active[0] if _active else None
    if rec is None:
        return
    if event in ("call", "c_call"):
        _py_stack.setdefault(threading.get_ident(), []).append(time.perf_counter_ns())
    elif event in ("return", "c_return", "c_exception"):
        stack = _py_stack.get(threading.get_ident())
        if stack:
            t0 = stack.pop()
            code = frame.f_code
            what = getattr(arg, "__qualname__", None) if event != "return" else None
            name = what or f"{code.co_name} ({os.path.basename(code.co_filename)}:" \
                           f"{code.co_firstlineno})"
            rec.add(name, "python", t0, time.perf_counter_ns())


_py_stack: dict = {}


def start(logdir: str, options: ProfilerOptions | None = None) -> None:
    """Starts recording (see ``tw.profiler.experimental.start``).

    Args:
        logdir: where ``stop`` writes the trace.
        options: a ProfilerOptions, or None for the defaults.

    Raises:
        UnavailableError: a session is already running.
    """
    options = options if options is not None else ProfilerOptions()
    if not isinstance(options, ProfilerOptions):
        raise TypeError(f"options must be a tw.profiler.experimental.ProfilerOptions, got "
                        f"{options!r}")
    with _lock:
        if _active:
            raise UnavailableError(None, None, "Cannot start profiling: Another profiler is "
                                   "running.")
        _active.append(Recorder(os.fspath(logdir), options))
        _refresh()
    if options.python_tracer_level:
        threading.setprofile(_python_hook)
        sys.setprofile(_python_hook)


def stop(save: bool = True) -> str | None:
    """Stops recording and writes the trace (see ``tw.profiler.experimental.stop``).

    Args:
        save: write the trace file (False drops the events).

    Returns:
        The path of the trace file written, or None.

    Raises:
        UnavailableError: no session is running.
    """
    with _lock:
        if not _active:
            raise UnavailableError(None, None, "Cannot export profiling results. No profiler "
                                   "is running.")
        rec = _active.pop()
        _refresh()
    if rec.options.python_tracer_level:
        sys.setprofile(None)
        threading.setprofile(None)
        _py_stack.clear()
    return write_trace(rec) if save else None


def trace_json(rec: Recorder) -> dict:
    """The Chrome trace (``{"traceEvents": [...]}``) of ``rec``'s events.

    Args:
        rec: a Recorder.

    Returns:
        The JSON-ready dict.
    """
    pid = os.getpid()
    tids: dict = {}
    names = dict(rec.threads)
    events = [{"ph": "M", "name": "process_name", "pid": pid, "args": {"name": "twinflow (host)"}}]
    for name, kind, start, end, ident, args in list(rec.events):
        tid = tids.setdefault(ident, len(tids) + 1)
        ev = {"ph": "X", "name": name, "cat": kind, "pid": pid, "tid": tid,
              "ts": (start - rec.begin) / 1000.0, "dur": max(end - start, 0) / 1000.0}
        ev["args"] = {"type": kind, **(args or {})}
        events.append(ev)
    for ident, tid in tids.items():
        events.append({"ph": "M", "name": "thread_name", "pid": pid, "tid": tid,
                       "args": {"name": names.get(ident, f"thread {ident}")}})
    return {"traceEvents": events, "displayTimeUnit": "ns"}


def write_trace(rec: Recorder) -> str:
    """Writes ``rec``'s trace where TensorFlow's profiler puts its run.

    Args:
        rec: a Recorder.

    Returns:
        The path written.
    """
    run = time.strftime("%Y_%m_%d_%H_%M_%S", time.localtime(time.time()))
    folder = os.path.join(rec.logdir, "plugins", "profile", run)
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, f"{socket.gethostname()}.trace.json.gz")
    data = gzip.compress(json.dumps(trace_json(rec)).encode())
    atomic_write(path, data)
    return path


class Trace:
    """A named span on the trace (TensorFlow's ``TraceMe``): nests, works in any thread.

    Costs a flag check when no profiler records. ``step_num`` and other keyword arguments
    appear as the event's args (TensorBoard's step markers use ``step_num``).
    """

    def __init__(self, name: str, **kwargs) -> None:
        """Describes the span.

        Args:
            name: the event name.
            **kwargs: metadata shown with the event.
        """
        self.name, self.args, self.start = name, kwargs, None

    def __enter__(self) -> Trace:
        if _active and _active[0].traces:
            self.start = time.perf_counter_ns()
        return self

    def set_metadata(self, **kwargs) -> None:
        """Adds metadata to the event (before the span ends).

        Args:
            **kwargs: metadata shown with the event.
        """
        self.args.update(kwargs)

    def __exit__(self, *exc) -> bool:
        rec = active()
        if rec is not None and self.start is not None:
            rec.add(self.name, "trace", self.start, time.perf_counter_ns(),
                    {k: (v if isinstance(v, (int, float, str, bool)) else str(v))
                     for k, v in self.args.items()})
        self.start = None
        return False


class Profile:
    """``with Profile(logdir):`` profiles the block (``start`` on entry, ``stop`` on exit)."""

    def __init__(self, logdir: str, options: ProfilerOptions | None = None) -> None:
        """Describes the session.

        Args:
            logdir: where the trace is written.
            options: a ProfilerOptions, or None.
        """
        self.logdir, self.options = logdir, options

    def __enter__(self) -> Profile:
        start(self.logdir, self.options)
        return self

    def __exit__(self, *exc) -> bool:
        stop()
        return False
