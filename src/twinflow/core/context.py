"""The execution context: what `bind` consults to decide how to run an op.

``ctx`` holds the state of the calling thread (a ``threading.local``): the graph being built,
the tapes recording, the device scopes and the eager-op checks. Tracing a ``tw.function`` in one
thread therefore never turns another thread's eager ops symbolic. Settings TensorFlow keeps for
the whole process (``run_functions_eagerly``, the global seed and its op counter, the graph
installed by ``compat.v1.disable_eager_execution``) live in ``process`` and are read through
``ctx`` as properties.

Fast path: reading a ``threading.local`` attribute costs ~25 ns more than a plain one, twice
per eager op. ``process.quiet`` is True while no thread at all builds a graph, records on a tape
or checks numerics; eager dispatch reads that one plain attribute and skips ``ctx`` entirely.
"""
from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from typing import Any


class ProcessState:
    """Settings shared by every thread, and the count behind the eager fast path."""

    def __init__(self) -> None:
        self.run_functions_eagerly: bool = False
        self.global_seed: int | None = None
        self.op_seed_counter: int = 0
        # The graph new threads start in (compat.v1.disable_eager_execution), or None.
        self.default_graph: Any = None
        # Threads whose graph is set or whose slow_path is on; quiet while there are none.
        self.busy_threads: int = 0
        self.quiet: bool = True
        # Counted in busy_threads while set: every eager op must look at the device runtime
        # (not started yet, or logging placement); see core/devices.py.
        self.eager_hook: bool = False
        # A profiler session records every op (core/profiler.py); it turns eager_hook on.
        self.profiling: bool = False
        self.lock = threading.Lock()

    def next_op_seed(self) -> int:
        """The next eager op-level seed (one counter for all threads, never handed out twice).

        Returns:
            The seed.
        """
        with self.lock:
            self.op_seed_counter += 1
            return self.op_seed_counter


process = ProcessState()


def _shared(name: str) -> property:
    def get(self):
        return getattr(process, name)

    def put(self, value) -> None:
        setattr(process, name, value)
    return property(get, put, doc=f"Process-wide ``{name}`` (the same in every thread).")


class _Busy:
    """Whether one thread counts in ``process.busy_threads``; lives in that thread's state, so
    a thread that ends while building a graph (or recording) stops counting."""

    __slots__ = ("busy",)

    def __init__(self) -> None:
        self.busy = False

    def set(self, busy: bool) -> None:
        if busy is not self.busy:
            self.busy = busy
            with process.lock:
                process.busy_threads += 1 if busy else -1
                process.quiet = process.busy_threads == 0

    def __del__(self) -> None:
        with contextlib.suppress(Exception):  # (at interpreter exit the module may be gone)
            self.set(False)


class Context(threading.local):
    """Execution state of one thread. Fields are read directly by the dispatch hot path."""

    run_functions_eagerly = _shared("run_functions_eagerly")
    global_seed = _shared("global_seed")
    op_seed_counter = _shared("op_seed_counter")

    def __init__(self) -> None:
        # The graph being built, or None when executing eagerly.
        self.graph: Any = None
        self.graph_stack: list = []
        # Tapes currently recording, innermost last. Empty list is falsy: no tape work.
        self.tapes: list = []
        # Merged device strings of the enclosing tw.device scopes ('' at the bottom: no scope);
        # graph ops record the top as their requested device (core/devices.py resolves it).
        self.device_stack: list = [""]
        # When set, every op checks its float outputs for NaN/Inf (tw.debugging); per thread,
        # as TensorFlow's op callbacks.
        self.check_numerics: bool = False
        # Rebuilt whenever tapes or check_numerics change: True when bind must leave its
        # fastest path (something beyond "run kernel, wrap result" is needed).
        self.slow_path: bool = False
        # tw.function calls of this thread run their Python function (check_parity's eager
        # run); only read while the thread is busy (it records), so it never slows dispatch.
        self.functions_eagerly: bool = False
        self._busy = _Busy()
        if process.default_graph is not None:
            self.graph_stack.append(None)
            self.graph = process.default_graph
            self.refresh()

    def refresh(self) -> None:
        """Recomputes ``slow_path`` (and the process's fast-path flag) after ``graph``,
        ``tapes``, ``check_numerics`` or the device scope changed."""
        self.slow_path = bool(self.tapes) or self.check_numerics or bool(self.device_stack[-1])
        self._busy.set(self.slow_path or self.graph is not None)

    @property
    def executing_eagerly(self) -> bool:
        return self.graph is None

    @property
    def device_spec(self) -> str:
        """The merged device string of the innermost ``tw.device`` scope ('' for none)."""
        return self.device_stack[-1]


ctx = Context()


def executing_eagerly() -> bool:
    """True unless a graph is being built (inside tracing of a tw.function or a TF1 graph)."""
    return ctx.graph is None


@contextlib.contextmanager
def graph_mode(graph) -> Iterator[Any]:
    """Makes ``graph`` the graph that ops are added to, for the duration of the block."""
    c = ctx
    # A graph built from eager code starts without the eager tw.device scopes (as in
    # TensorFlow: a traced function's unplaced ops follow its caller's device at each call).
    clear_devices = c.graph is None and graph is not None and c.device_stack[-1] != ""
    if clear_devices:
        c.device_stack.append("")
    c.graph_stack.append(c.graph)
    c.graph = graph
    saved_tapes = c.tapes
    # Tapes do not see into a graph being built unless they were created inside it.
    c.tapes = [t for t in saved_tapes if getattr(t, "graph", None) is graph]
    c.refresh()
    try:
        yield graph
    finally:
        c.graph = c.graph_stack.pop()
        c.tapes = saved_tapes
        if clear_devices:
            c.device_stack.pop()
        c.refresh()


def eager_mode() -> contextlib.AbstractContextManager:
    """Runs the block eagerly even while a graph is being built (used for init_scope): the
    graph is None, and only tapes created outside any graph record."""
    return graph_mode(None)


def push_tape(tape) -> None:
    c = ctx
    c.tapes = c.tapes + [tape]
    c.refresh()


def pop_tape(tape) -> None:
    c = ctx
    c.tapes = [t for t in c.tapes if t is not tape]
    c.refresh()
