"""Running one function per local replica, with ``merge_call`` between them.

Each replica runs in its own thread, started with the caller's execution state (the graph
being built, tapes, device and name scopes, the strategy stack) and placed on its device. The
threads take turns: replica 0 runs until it finishes or calls ``merge_call``, then replica 1,
and so on; when all wait in ``merge_call``, the caller's thread runs the merge function once
on their arguments and hands each its result. Turns make runs deterministic and keep one
thread at a time adding to a graph.

No wait is unbounded without a way out: a replica that raises (or a merge function that does)
aborts the run, which wakes every other replica with ``_Aborted`` (one that never started
does not start); waits poll, so a replica whose coordinating thread is gone, or a coordinator
whose replica thread died without reporting, raises instead of waiting forever.
"""
from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from ..core.context import ctx
from ..graph.graph import name_scope
from ..ops.variables import variable_creator_scope
from . import context
from .cross_device_ops import on_device
from .values import regroup, select_replica

_POLL_S = 0.5  # how often a waiting thread checks that the thread it waits for is alive


class _Aborted(BaseException):
    """Unwinds a replica thread whose run failed elsewhere."""


def _wait(event: threading.Event, alive: Callable[[], bool], what: str) -> None:
    """Waits for ``event``, checking every ``_POLL_S`` that the thread to set it is alive."""
    while not event.wait(_POLL_S):
        if not alive():
            raise RuntimeError(f"strategy.run: {what} ended without handing over its turn")


class _Replica(threading.Thread):
    def __init__(self, runner: ReplicaRunner, index: int, args: tuple, kwargs: dict) -> None:
        super().__init__(name=f"twinflow-replica-{index}", daemon=True)
        self.runner = runner
        self.index = index
        self.args = args
        self.kwargs = kwargs
        self.go = threading.Event()
        self.paused = threading.Event()
        self.done = False
        self.result: Any = None
        self.error: BaseException | None = None
        self.merge: tuple | None = None  # (merge_fn, args, kwargs) while waiting
        self.merge_result: Any = None

    def run(self) -> None:
        r = self.runner
        try:
            self.wait_turn(first=True)
            _install_state(r.state)
            context.install(r.stack)
            rc = r.replica_contexts[self.index]
            with rc, on_device(r.devices[self.index]), _replica_scope(self.index), \
                    variable_creator_scope(r.make_creator(self.index)):
                self.result = r.fn(*self.args, **self.kwargs)
        except _Aborted:
            pass
        except BaseException as e:  # noqa: BLE001  (re-raised in the caller's thread)
            self.error = e
        finally:
            self.done = True
            _clear_state()
            self.paused.set()

    def wait_turn(self, first: bool = False) -> None:
        """Hands the turn back to the coordinator and waits for the next one.

        Raises:
            _Aborted: the run failed elsewhere (checked before and after waiting).
        """
        r = self.runner
        if r.aborted:
            raise _Aborted()
        if not first:
            self.paused.set()
        try:
            _wait(self.go, r.owner.is_alive, "the thread that called it")
        except RuntimeError as e:
            r.aborted = True
            raise _Aborted() from e
        self.go.clear()
        if r.aborted:
            raise _Aborted()


def _replica_scope(index: int):
    """Replica k > 0 names its graph ops under ``replica_k/`` (as TensorFlow)."""
    if index == 0 or ctx.graph is None:
        return _NullScope()
    return name_scope(f"replica_{index}")


class _NullScope:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc) -> None:
        return None


def _capture_state() -> dict:
    c = ctx
    g = c.graph
    return {"graph": g, "graph_stack": list(c.graph_stack), "tapes": list(c.tapes),
            "device_stack": list(c.device_stack), "check_numerics": c.check_numerics,
            "functions_eagerly": c.functions_eagerly,
            "scope": g._scope if g is not None else None,
            "control_deps": list(g._control_deps) if g is not None else None}


def _install_state(state: dict) -> None:
    c = ctx
    c.graph = state["graph"]
    c.graph_stack = list(state["graph_stack"])
    c.tapes = list(state["tapes"])
    c.device_stack = list(state["device_stack"])
    c.check_numerics = state["check_numerics"]
    c.functions_eagerly = state["functions_eagerly"]
    g = state["graph"]
    if g is not None:
        g._scope = state["scope"]
        g._control_deps = list(state["control_deps"])
    c.refresh()


def _clear_state() -> None:
    c = ctx
    c.graph = None
    c.graph_stack = []
    c.tapes = []
    c.check_numerics = False
    c.refresh()


class ReplicaRunner:
    """Runs ``fn`` once per local replica of ``strategy`` (several replicas: threads).

    Args:
        strategy: the strategy.
        fn: the replica function.
        make_context: ``fn(local_index) -> ReplicaContext``.
    """

    def __init__(self, strategy, fn: Callable, make_context: Callable) -> None:
        self.strategy = strategy
        self.fn = fn
        ext = strategy.extended
        self.devices = tuple(ext.worker_devices)
        self.replica_contexts = [make_context(i) for i in range(len(self.devices))]
        for rc in self.replica_contexts:
            rc._runner = self
        self.aborted = False
        self.state = _capture_state()
        self.stack = context.snapshot()
        # Variables created inside the replicas: replica 0 makes them (a copy per device);
        # the others get replica 0's variable of the same name (TensorFlow's rule).
        self.shared: dict = {}
        self.threads: list = []
        self.owner = threading.current_thread()

    def make_creator(self, index: int) -> Callable:
        """The variable creator of replica ``index``."""
        counts: dict = {}

        def creator(next_creator, **kwargs):
            name = kwargs.get("name") or "Variable"
            k = counts.get(name, 0)
            counts[name] = k + 1
            if index == 0:
                context.push(self.strategy, None)
                try:
                    v = self.strategy.extended._create_variable(next_creator, **kwargs)
                finally:
                    context.pop()
                self.shared[(name, k)] = v
                return v
            v = self.shared.get((name, k))
            if v is None:
                raise RuntimeError(f"Replica {index} created variable {name!r} that replica 0 "
                                   "did not: every replica must create the same variables.")
            return v
        return creator

    def run(self, args: tuple, kwargs: dict) -> Any:
        """Runs the replicas to the end.

        Args:
            args: arguments (PerReplica values give each replica its own).
            kwargs: keyword arguments.

        Returns:
            The results, regrouped (PerReplica where they differ).
        """
        n = len(self.devices)
        self.threads = [_Replica(self, i, select_replica(i, args), select_replica(i, kwargs))
                        for i in range(n)]
        for t in self.threads:
            t.start()
        try:
            while True:
                for t in self.threads:
                    if not t.done:
                        t.go.set()
                        _wait(t.paused, t.is_alive, f"replica thread {t.index}")
                        t.paused.clear()
                        if t.error is not None:
                            raise t.error
                if all(t.done for t in self.threads):
                    break
                self._merge()
        except BaseException:
            self._abort()
            raise
        return regroup([t.result for t in self.threads])

    def _merge(self) -> None:
        waiting = [t for t in self.threads if not t.done]
        if len(waiting) != len(self.threads):
            done = [t.index for t in self.threads if t.done]
            raise RuntimeError(f"Replicas {done} finished while the others called merge_call "
                               "(or all_reduce): every replica must make the same calls.")
        merge_fn, _, _ = waiting[0].merge
        args = regroup([t.merge[1] for t in waiting])
        kwargs = regroup([t.merge[2] for t in waiting])
        context.push(self.strategy, None)
        try:
            result = merge_fn(self.strategy, *args, **kwargs)
        finally:
            context.pop()
        for t in waiting:
            t.merge_result = select_replica(t.index, result)
            t.merge = None

    def merge_call(self, index: int, merge_fn: Callable, args: tuple, kwargs: dict) -> Any:
        """Called by replica ``index``: waits for the others, returns its merged result."""
        t = self.threads[index]
        if ctx.graph is not self.state["graph"]:
            raise RuntimeError("merge_call (or all_reduce) was called inside a nested graph "
                               "(a tw.cond branch, a loop body or another tw.function): call it "
                               "at the top level of the replica function.")
        t.merge = (merge_fn, tuple(args), dict(kwargs))
        t.wait_turn()
        return t.merge_result

    def _abort(self) -> None:
        self.aborted = True
        for t in self.threads:
            if not t.done:
                t.go.set()
        for t in self.threads:
            t.join(timeout=10)  # each wakes at once: it raises _Aborted or does not start
