"""``logical_cpus(n)``: a test runs with N logical CPUs.

The runtime starts at the process's first op, after which TensorFlow (and twinflow) refuse a new
logical device configuration; tests reset it as TensorFlow's own tests do (``runtime.reset``,
the counterpart of ``context._reset_context``) and restore the previous one afterwards.
"""
from __future__ import annotations

import contextlib
from collections.abc import Iterator

import twinflow as tw
from twinflow.core.devices import runtime


@contextlib.contextmanager
def logical_cpus(n: int) -> Iterator[list]:
    """Runs the block with ``n`` logical CPUs; yields their LogicalDevices."""
    saved = runtime.configs
    runtime.reset([tw.config.LogicalDeviceConfiguration()] * n)
    try:
        yield tw.config.list_logical_devices("CPU")
    finally:
        runtime.reset(saved)
