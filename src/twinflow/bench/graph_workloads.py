"""Graph-mode-only workload factories (trace+compile time), used by ``workloads.WORKLOADS``."""
from __future__ import annotations

import logging

import numpy as np

import twinflow as tw


def chain_setup() -> dict:
    """A 2-element float32 input for a 1000-op elementwise chain."""
    return {"x": np.array([0.5, 1.5], np.float32)}


def chain_np(inp: dict):
    """One NumPy evaluation of the 1000-op chain (the unit trace+compile is compared to)."""
    x = inp["x"]
    a, b = np.float32(1.0001), np.float32(0.0001)

    def step():
        y = x
        for _ in range(500):
            y = y * a + b
        return y
    return step


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
