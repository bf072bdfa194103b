"""Run-time switches and device listing, re-exported as ``tw.config``.

The machine has one physical device, the host CPU; ``set_logical_device_configuration`` splits
it into N logical CPUs (``core/devices.py``) before the runtime starts.
"""
from __future__ import annotations

import os
import tracemalloc
import types
from typing import NamedTuple

import numpy as np

from . import blas
from .context import ctx
from .devices import LogicalDeviceConfiguration, runtime

__all__ = ["PhysicalDevice", "LogicalDevice", "list_physical_devices", "list_logical_devices",
           "get_visible_devices", "set_visible_devices", "run_functions_eagerly",
           "functions_run_eagerly", "experimental", "threading", "optimizer",
           "get_soft_device_placement", "set_soft_device_placement", "cpu_count",
           "LogicalDeviceConfiguration", "set_logical_device_configuration",
           "get_logical_device_configuration"]


class PhysicalDevice(NamedTuple):
    """A device of the machine, as ``tf.config.PhysicalDevice``."""

    name: str
    device_type: str


class LogicalDevice(NamedTuple):
    """A device as the runtime sees it, as ``tf.config.LogicalDevice``."""

    name: str
    device_type: str


_CPU = PhysicalDevice(name="/physical_device:CPU:0", device_type="CPU")


def list_physical_devices(device_type: str | None = None) -> list:
    """The machine's devices (``tw.config.list_physical_devices``).

    Args:
        device_type: ``'CPU'``, ``'GPU'``, ``'TPU'``... or None for all.

    Returns:
        A list of PhysicalDevice: the CPU, or nothing for any other device type.
    """
    if device_type is None or device_type.upper() == "CPU":
        return [_CPU]
    return []


def list_logical_devices(device_type: str | None = None) -> list:
    """The runtime's devices (``tw.config.list_logical_devices``); starts the runtime.

    Args:
        device_type: ``'CPU'``, ``'GPU'``... or None for all.

    Returns:
        A list of LogicalDevice: one per logical CPU.
    """
    runtime.start()
    if device_type is None or device_type.upper() == "CPU":
        return [LogicalDevice(name=d.logical_name, device_type=d.device_type)
                for d in runtime.devices]
    return []


def set_logical_device_configuration(device, logical_devices) -> None:
    """Splits a physical device into logical devices (before the runtime starts).

    Args:
        device: the PhysicalDevice (the CPU).
        logical_devices: a list of LogicalDeviceConfiguration, one per logical device; an
            empty list (or None) keeps one device.

    Raises:
        ValueError: not the CPU, or a memory limit (not supported on CPUs, as in TensorFlow).
        RuntimeError: the runtime has started (an op ran, a device was listed or scoped).
    """
    if not isinstance(device, PhysicalDevice) or device != _CPU:
        raise ValueError(f"Unrecognized device: {device!r}")
    configs = list(logical_devices or [])
    for c in configs:
        if not isinstance(c, LogicalDeviceConfiguration):
            raise ValueError(f"Expected a list of LogicalDeviceConfiguration, got {c!r}")
        if c.memory_limit is not None:
            raise ValueError("Setting memory limit on CPU virtual devices is currently not "
                             "supported")
    runtime.configure(configs)


def get_logical_device_configuration(device) -> list | None:
    """The logical device configuration set for ``device``.

    Args:
        device: the PhysicalDevice.

    Returns:
        The list of LogicalDeviceConfiguration, or None if none was set.
    """
    if not isinstance(device, PhysicalDevice) or device != _CPU:
        raise ValueError(f"Unrecognized device: {device!r}")
    return None if runtime.configs is None else list(runtime.configs)


def get_visible_devices(device_type: str | None = None) -> list:
    """The devices the runtime may use (all of them: the CPU).

    Args:
        device_type: optional device type filter.

    Returns:
        A list of PhysicalDevice.
    """
    return list_physical_devices(device_type)


def set_visible_devices(devices, device_type: str | None = None) -> None:
    """Accepted for compatibility; the CPU is always visible.

    Args:
        devices: a PhysicalDevice or list of them.
        device_type: the kind of device the list is for; changes nothing (twinflow has one
            device, the CPU, always visible).
    """
    devices = [devices] if isinstance(devices, PhysicalDevice) else list(devices)
    for d in devices:
        if d.device_type != "CPU":
            raise ValueError(f"Unknown device {d}: twinflow only has {_CPU.name}")


class _EagerFunctionsSetting:
    """What ``run_functions_eagerly`` returns: usable as a statement or as a ``with`` block.

    The new value is set at once; leaving a ``with`` block restores the previous one.
    """

    def __init__(self, previous: bool) -> None:
        self._previous = previous

    def __enter__(self) -> _EagerFunctionsSetting:
        return self

    def __exit__(self, *exc) -> None:
        ctx.run_functions_eagerly = self._previous

    def __bool__(self) -> bool:
        return ctx.run_functions_eagerly

    def __repr__(self) -> str:
        return f"<run_functions_eagerly={ctx.run_functions_eagerly}>"


def run_functions_eagerly(run_eagerly: bool) -> _EagerFunctionsSetting:
    """Makes every ``tw.function`` run its Python code eagerly instead of tracing a graph.

    Args:
        run_eagerly: True to run functions eagerly (for debugging), False to trace them.

    Returns:
        An object that may be used as a context manager to restore the previous setting.
    """
    previous = ctx.run_functions_eagerly
    ctx.run_functions_eagerly = bool(run_eagerly)
    return _EagerFunctionsSetting(previous)


def functions_run_eagerly() -> bool:
    """True if ``run_functions_eagerly(True)`` is in effect.

    Returns:
        The current setting.
    """
    return ctx.run_functions_eagerly


def get_soft_device_placement() -> bool:
    """Whether an op placed on a device that does not exist falls back to CPU:0.

    Returns:
        The flag (True by default, as in TensorFlow).
    """
    return runtime.soft_placement


def set_soft_device_placement(enabled: bool) -> None:
    """Sets soft placement: when off, an op placed on a missing device raises
    InvalidArgumentError instead of running on CPU:0.

    Args:
        enabled: the flag.
    """
    runtime.set_soft_placement(enabled)


def _memory_growth(device, enable: bool) -> None:
    """Accepted for compatibility (no accelerator memory to manage)."""
    if device.device_type != "CPU":
        raise ValueError(f"Unknown device {device}")


def _get_memory_growth(device) -> bool:
    return False


def _device_details(device) -> dict:
    """``get_device_details``: TensorFlow gives CPUs no details (an empty dict)."""
    if not isinstance(device, PhysicalDevice):
        raise ValueError(f"device must be a tf.config.PhysicalDevice, but got: {device}")
    return {}


def _set_synchronous(enable: bool) -> None:
    """Eager ops always run synchronously, on the calling thread (docs/devices.md)."""
    if not enable:
        raise NotImplementedError("twinflow has no asynchronous eager execution: eager ops run "
                                  "on the calling thread; set_synchronous_execution(True) only")


_tf32 = [True]
_DEVICE_POLICIES = (None, "silent", "silent_for_int32", "warn", "explicit")
_device_policy = ["silent"]


def _enable_tf32(enabled: bool) -> None:
    """TensorFloat-32 is an Ampere GPU matmul mode; twinflow's host kernels compute float32 in
    float32 whatever the flag says (as TensorFlow's CPU kernels), which records it."""
    _tf32[0] = bool(enabled)


def _set_device_policy(device_policy) -> None:
    """How ops treat inputs on another device. twinflow's devices share host memory, so an
    input is used where it is (``silent``); ``explicit`` (raise unless copied by hand) is not
    supported."""
    if device_policy not in _DEVICE_POLICIES:
        raise ValueError(f"Invalid argument `device_policy`: {device_policy!r}. Valid values: "
                         "None, 'silent', 'silent_for_int32', 'warn', 'explicit'")
    if device_policy == "explicit":
        raise NotImplementedError("set_device_policy('explicit'): twinflow's logical devices "
                                  "share host memory and never copy inputs, so it has no "
                                  "'explicit' mode")
    _device_policy[0] = "silent" if device_policy is None else device_policy


def _memory_info(device) -> dict:
    """Bytes allocated (``current``, ``peak``) on a host device: NumPy's allocations as
    Python's ``tracemalloc`` counts them while it traces (``tracemalloc.start()``); without it
    nothing is counted and both are 0, as TensorFlow's CPU allocator reports by default."""
    _host_device(device)
    if not tracemalloc.is_tracing():
        return {"current": 0, "peak": 0}
    current, peak = tracemalloc.get_traced_memory()
    return {"current": int(current), "peak": int(peak)}


def _reset_memory_stats(device) -> None:
    """Resets the ``peak`` of ``get_memory_info`` to the current use."""
    _host_device(device)
    if tracemalloc.is_tracing():
        tracemalloc.reset_peak()


def _host_device(device) -> None:
    name = device if isinstance(device, str) else getattr(device, "name", str(device))
    if "CPU" not in name.upper():
        raise ValueError(f"No matching devices found for '{name}': twinflow has host (CPU) "
                         "devices only")


experimental = types.SimpleNamespace(
    enable_tensor_float_32_execution=_enable_tf32,
    tensor_float_32_execution_enabled=lambda: _tf32[0],
    get_device_policy=lambda: _device_policy[0],
    set_device_policy=_set_device_policy,
    get_memory_info=_memory_info,
    get_memory_usage=lambda device: _memory_info(device)["current"],
    reset_memory_stats=_reset_memory_stats,
    list_physical_devices=list_physical_devices,
    list_logical_devices=list_logical_devices,
    get_visible_devices=get_visible_devices,
    set_visible_devices=set_visible_devices,
    set_memory_growth=_memory_growth,
    get_memory_growth=_get_memory_growth,
    set_virtual_device_configuration=set_logical_device_configuration,
    get_virtual_device_configuration=get_logical_device_configuration,
    VirtualDeviceConfiguration=LogicalDeviceConfiguration,
    get_device_details=_device_details,
    get_synchronous_execution=lambda: True,
    set_synchronous_execution=_set_synchronous,
    enable_op_determinism=lambda: None,
)

_threads = {"intra": 0, "inter": 0}


def _thread_count(n, what: str) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise ValueError(f"{what} must be a non-negative int (0: one per core), got {n!r}")
    return int(n)


def _set_intra(num_threads) -> None:
    """Threads one kernel may use: twinflow's pool (fused blocks, conv batch blocks) and the
    BLAS library's own threads (``core.blas``). 0 means one per core / BLAS's default."""
    _threads["intra"] = _thread_count(num_threads, "intra_op_parallelism_threads")
    blas.set_threads(_threads["intra"])


def _set_inter(num_threads) -> None:
    """Ops of one graph that may run at once: independent heavy ops (the two matrix products of
    a dense layer's gradient) run on ``core.workers`` threads (``compiler/schedule.py``).
    0 means one per core; 1 runs them one at a time."""
    _threads["inter"] = _thread_count(num_threads, "inter_op_parallelism_threads")


threading = types.SimpleNamespace(
    get_intra_op_parallelism_threads=lambda: _threads["intra"],
    set_intra_op_parallelism_threads=_set_intra,
    get_inter_op_parallelism_threads=lambda: _threads["inter"],
    set_inter_op_parallelism_threads=_set_inter,
)

optimizer = types.SimpleNamespace(
    set_jit=lambda enabled: None,
    get_jit=lambda: "",
    set_experimental_options=lambda options: None,
    get_experimental_options=lambda: {},
)

# The number of CPUs, read once: thread pools are sized from it, and os.cpu_count() costs ~6 us
# a call on Linux (it reads /sys), which kernels asking it per call paid (8 times per seed 004
# training step)
cpu_count = os.cpu_count() or 1
