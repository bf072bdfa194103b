"""Strategies in one process: ``MirroredStrategy`` (one replica per device) and
``OneDeviceStrategy``."""
from __future__ import annotations

from collections.abc import Callable

from ..core.config import list_logical_devices
from ..core.props import readonly
from .cross_device_ops import CrossDeviceOps, ReductionToOneDevice, canonical, on_device
from .replica_context import ReplicaContext
from .replicas import ReplicaRunner
from .strategy import Strategy, StrategyExtended
from .variables import create_distributed_variable


def _devices(devices) -> tuple:
    if devices is None:
        gpus = list_logical_devices("GPU")
        names = [d.name for d in gpus] or [list_logical_devices("CPU")[0].name]
    elif isinstance(devices, str):
        names = [devices]
    else:
        names = list(devices)
    if not names:
        raise ValueError("MirroredStrategy needs at least one device")
    out = tuple(canonical(n) for n in names)
    if len(set(out)) != len(out):
        raise ValueError(f"No duplicates allowed in `devices` argument: {names}")
    return out


class MirroredExtended(StrategyExtended):
    """MirroredStrategy's implementation: replicas in threads, variables copied per device.

    Args:
        container_strategy: the MirroredStrategy.
        devices: the replicas' devices.
        cross_device_ops: how values are combined (ReductionToOneDevice by default).
    """

    def __init__(self, container_strategy, devices, cross_device_ops=None) -> None:
        super().__init__(container_strategy)
        self._devices = _devices(devices)
        if cross_device_ops is not None and not isinstance(cross_device_ops, CrossDeviceOps):
            raise TypeError(f"cross_device_ops must be a tf.distribute.CrossDeviceOps, got "
                            f"{cross_device_ops!r}")
        self._cross_device_ops = (ReductionToOneDevice() if cross_device_ops is None
                                  else cross_device_ops)

    worker_devices = readonly("_devices", "The devices of this process's replicas.")

    def _create_variable(self, next_creator: Callable, **kwargs):
        return create_distributed_variable(self._container_strategy_ref, self._devices,
                                           next_creator, kwargs)

    def _call_for_each_replica(self, fn: Callable, args: tuple, kwargs: dict):
        if len(self._devices) == 1:
            return super()._call_for_each_replica(fn, args, kwargs)
        strategy = self._container_strategy_ref
        offset = self._replica_id_offset
        runner = ReplicaRunner(strategy, fn, lambda i: ReplicaContext(strategy, offset + i))
        return runner.run(args, kwargs)


class MirroredStrategy(Strategy):
    """Synchronous data parallelism over the devices of this process
    (``tf.distribute.MirroredStrategy``): one replica per device, variables mirrored.

    Args:
        devices: device strings (``['/cpu:0', '/cpu:1']``); None: every GPU, else the CPU.
        cross_device_ops: a CrossDeviceOps (ReductionToOneDevice by default).
    """

    def __init__(self, devices=None, cross_device_ops: CrossDeviceOps | None = None) -> None:
        super().__init__(MirroredExtended(self, devices, cross_device_ops))


class OneDeviceExtended(StrategyExtended):
    """OneDeviceStrategy's implementation: one replica, variables on its device.

    Args:
        container_strategy: the OneDeviceStrategy.
        device_name: the device.
    """

    def __init__(self, container_strategy, device_name: str) -> None:
        super().__init__(container_strategy)
        self._device = canonical(device_name)

    @property
    def worker_devices(self) -> tuple:
        return (self._device,)

    def _create_variable(self, next_creator: Callable, **kwargs):
        with on_device(self._device):
            v = next_creator(**kwargs)
        v._distribute_strategy = self._container_strategy_ref
        return v


class OneDeviceStrategy(Strategy):
    """Runs everything on one device (``tf.distribute.OneDeviceStrategy``): the code of a
    distributed program, one replica.

    Args:
        device: the device string (``'/cpu:0'``).
    """

    def __init__(self, device: str) -> None:
        if not isinstance(device, str):
            raise TypeError(f"OneDeviceStrategy needs a device string, got {device!r}")
        super().__init__(OneDeviceExtended(self, device))
