"""Graph-mode-only workload factories (trace+compile time, graph control flow), used by
``workloads.WORKLOADS``."""
from __future__ import annotations

import logging

import numpy as np

import twinflow as tw


def chain_setup() -> dict:
    """A 2-element float32 input for a 1000-op elementwise chain."""
    return {"x": np.array([0.5, 1.5], np.float32)}


def chain_tw(inp: dict, mode: str):
    """Traces, optimizes and compiles a fresh 1000-op tw.function (and calls it once)."""
    x = tw.constant(inp["x"])

    def chain(y):
        for _ in range(500):
            y = y * 1.0001 + 0.0001
        return y

    log = logging.getLogger("twinflow")

    def step():
        # A fresh tw.function per step is this workload's point: silence the retrace warning.
        level = log.level
        log.setLevel(logging.ERROR)
        try:
            return tw.function(chain)(x)
        finally:
            log.setLevel(level)
    return step


def while_setup() -> dict:
    """The float32 scalar a 1000-iteration loop updates."""
    return {"x": np.float32(1.0)}


def while_np(inp: dict):
    """The loop in plain Python on NumPy scalars of the graph's dtypes, as fast as it is
    written by hand: its constants are made once, outside the loop (made inside it, they
    would cost most of the loop's time and flatter twinflow about 8x)."""
    x0 = inp["x"]
    n, one = np.int32(1000), np.int32(1)
    a, b = np.float32(0.99), np.float32(1.0)

    def step():
        i, x = np.int32(0), x0
        while i < n:
            x = x * a + b
            i = i + one
        return x
    return step


def while_tw(inp: dict, mode: str):
    """``tw.while_loop`` of the same 1000 iterations inside a tw.function."""
    x = tw.constant(inp["x"])

    @tw.function
    def loop(x):
        return tw.while_loop(lambda i, x: i < 1000, lambda i, x: (i + 1, x * 0.99 + 1.0),
                             [0, x])[1]
    return lambda: loop(x)
