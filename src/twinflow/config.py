"""``tw.config``: run-time switches and device listing (implemented in ``core/config.py``)."""
from __future__ import annotations

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

__all__ = ["PhysicalDevice", "LogicalDevice", "list_physical_devices", "list_logical_devices",
           "get_visible_devices", "set_visible_devices", "run_functions_eagerly",
           "functions_run_eagerly", "experimental", "threading", "optimizer",
           "get_soft_device_placement", "set_soft_device_placement", "cpu_count",
           "LogicalDeviceConfiguration", "set_logical_device_configuration",
           "get_logical_device_configuration"]
