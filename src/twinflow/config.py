"""``tw.config``: run-time switches and device listing (implemented in ``core/config.py``)."""
# ruff: noqa: F401  (a re-export module: every import is public)
from __future__ import annotations

from .core import config as _impl
from .core.config import (
    LogicalDevice,
    LogicalDeviceConfiguration,
    PhysicalDevice,
    cpu_count,
    experimental,
    functions_run_eagerly,
    get_logical_device_configuration,
    get_soft_device_placement,
    get_visible_devices,
    list_logical_devices,
    list_physical_devices,
    optimizer,
    run_functions_eagerly,
    set_logical_device_configuration,
    set_soft_device_placement,
    set_visible_devices,
    threading,
)

__all__ = list(_impl.__all__) + ["experimental_functions_run_eagerly",
                                  "experimental_run_functions_eagerly"]

# TensorFlow 2.3's names (deprecated there, kept as aliases).
experimental_functions_run_eagerly = functions_run_eagerly
experimental_run_functions_eagerly = run_functions_eagerly
