"""The execution context: what `bind` consults to decide how to run an op.

One module-level object, ``ctx``, read on every op. Its fields are plain attributes so the eager
hot path pays one attribute load per question ("is a graph being built?", "is a tape active?").
"""
from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any


class Context:
    """Mutable execution state. Fields are read directly by the dispatch hot path."""

    def __init__(self) -> None:
        # The graph being built, or None when executing eagerly.
        self.graph: Any = None
        self.graph_stack: list = []
        # Tapes currently recording, innermost last. Empty list is falsy: no tape work.
        self.tapes: list = []
        self.device_stack: list = ["/job:localhost/replica:0/task:0/device:CPU:0"]
        self.run_functions_eagerly: bool = False
        # When set, every op checks its float outputs for NaN/Inf (tw.debugging).
        self.check_numerics: bool = False
        self.global_seed: int | None = None
        self.op_seed_counter: int = 0
        # Rebuilt whenever tapes or check_numerics change: True when bind must leave its
        # fastest path (something beyond "run kernel, wrap result" is needed).
        self.slow_path: bool = False

    def refresh(self) -> None:
        self.slow_path = bool(self.tapes) or self.check_numerics

    @property
    def executing_eagerly(self) -> bool:
        return self.graph is None

    @property
    def device(self) -> str:
        return self.device_stack[-1]


ctx = Context()


def executing_eagerly() -> bool:
    """True unless a graph is being built (inside tracing of a tw.function or a TF1 graph)."""
    return ctx.graph is None


@contextlib.contextmanager
def graph_mode(graph) -> Iterator[Any]:
    """Makes ``graph`` the graph that ops are added to, for the duration of the block."""
    ctx.graph_stack.append(ctx.graph)
    ctx.graph = graph
    saved_tapes = ctx.tapes
    # Tapes do not see into a graph being built unless they were created inside it.
    ctx.tapes = [t for t in saved_tapes if getattr(t, "graph", None) is graph]
    ctx.refresh()
    try:
        yield graph
    finally:
        ctx.graph = ctx.graph_stack.pop()
        ctx.tapes = saved_tapes
        ctx.refresh()


def eager_mode() -> contextlib.AbstractContextManager:
    """Runs the block eagerly even while a graph is being built (used for init_scope): the
    graph is None, and only tapes created outside any graph record."""
    return graph_mode(None)


def push_tape(tape) -> None:
    ctx.tapes = ctx.tapes + [tape]
    ctx.refresh()


def pop_tape(tape) -> None:
    ctx.tapes = [t for t in ctx.tapes if t is not tape]
    ctx.refresh()


@contextlib.contextmanager
def device(name: str) -> Iterator[None]:
    """Scopes op placement; twinflow runs every op on the CPU, so this records the request.

    Args:
        name: a device string such as ``"/CPU:0"`` or ``"GPU:0"``; empty keeps the current one.

    Returns:
        A context manager (``with tw.device(name):``).
    """
    ctx.device_stack.append(canonical_device(name))
    try:
        yield
    finally:
        ctx.device_stack.pop()


def canonical_device(name: str) -> str:
    if not name:
        return ctx.device
    spec = name.strip().lstrip("/")
    parts = spec.split(":")
    kind = parts[0].lower().split("/")[-1].replace("device", "").strip() or "cpu"
    if kind not in ("cpu", "gpu"):
        raise ValueError(f"Unknown device {name!r}: expected '/cpu:N' or '/gpu:N'")
    index = int(parts[-1]) if len(parts) > 1 and parts[-1].isdigit() else 0
    if kind == "gpu":
        raise RuntimeError(f"Device {name!r} is not available: twinflow runs on the CPU only "
                           "(tw.config.list_physical_devices('GPU') is empty).")
    return f"/job:localhost/replica:0/task:0/device:CPU:{index}"
