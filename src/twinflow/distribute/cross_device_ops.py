"""How values held per replica are combined: ``ReduceOp`` and the ``CrossDeviceOps`` family.

``CrossDeviceOps.batch_all_reduce``/``all_gather``/``broadcast`` are the collective hook: every
reduction a strategy makes (``strategy.reduce``, ``ReplicaContext.all_reduce``, gradients in
Keras ``fit``) ends in one of them, with the values of the *local* replicas. A multi-worker
strategy replaces the object with one whose methods also combine across processes (MPI).
"""
from __future__ import annotations

import enum
from collections.abc import Callable, Sequence

from ..core.context import ctx
from ..core.devices import LOCAL, DeviceSpec, device
from ..ops import array_ops, math_ops
from ..ops.core import convert
from ..ops.variables import VariableAggregation
from .values import DistributedValues, Mirrored


class ReduceOp(enum.Enum):
    """How values of all replicas combine into one (``tf.distribute.ReduceOp``)."""

    SUM = "SUM"
    MEAN = "MEAN"

    @staticmethod
    def from_variable_aggregation(aggregation) -> ReduceOp:
        """The ReduceOp of a ``tw.VariableAggregation`` (SUM or MEAN).

        Args:
            aggregation: a VariableAggregation.

        Returns:
            The ReduceOp.

        Raises:
            ValueError: the aggregation has no ReduceOp (NONE, ONLY_FIRST_REPLICA).
        """
        mapping = {VariableAggregation.SUM: ReduceOp.SUM, VariableAggregation.MEAN: ReduceOp.MEAN}
        if aggregation not in mapping:
            raise ValueError(f"Could not convert from `tf.VariableAggregation` {aggregation} to"
                             " `tf.distribute.ReduceOp` type")
        return mapping[aggregation]


def as_reduce_op(reduce_op) -> ReduceOp:
    """A ReduceOp from a ReduceOp or its name (``'SUM'``, ``'MEAN'``).

    Args:
        reduce_op: a ReduceOp or a string.

    Returns:
        The ReduceOp.
    """
    if isinstance(reduce_op, ReduceOp):
        return reduce_op
    if isinstance(reduce_op, str) and reduce_op.upper() in ("SUM", "MEAN"):
        return ReduceOp[reduce_op.upper()]
    raise ValueError(f"reduce_op must be tf.distribute.ReduceOp.SUM or .MEAN, got {reduce_op!r}")


class CommunicationImplementation(enum.Enum):
    """Which collective implementation multi-worker strategies use."""

    AUTO = "AUTO"
    RING = "RING"
    NCCL = "NCCL"


CollectiveCommunication = CommunicationImplementation


class CommunicationOptions:
    """Options for collectives (``tf.distribute.experimental.CommunicationOptions``).

    They matter to collectives between processes (``MultiWorkerMirroredStrategy``): within one
    process values are combined directly, without packing or a network to time out.

    Args:
        bytes_per_pack: split gradients into packs of about this many bytes (0: one pack).
        timeout_seconds: fail a collective that takes longer than this (None: no timeout).
        implementation: a CommunicationImplementation.
    """

    def __init__(self, bytes_per_pack: int = 0, timeout_seconds: float | None = None,
                 implementation=CommunicationImplementation.AUTO) -> None:
        if not isinstance(bytes_per_pack, int) or bytes_per_pack < 0:
            raise ValueError(f"bytes_per_pack must be non-negative, got {bytes_per_pack!r}")
        if timeout_seconds is not None and not timeout_seconds > 0:
            raise ValueError(f"timeout_seconds must be positive, got {timeout_seconds!r}")
        if isinstance(implementation, str):
            implementation = CommunicationImplementation[implementation.upper()]
        if not isinstance(implementation, CommunicationImplementation):
            raise ValueError(f"implementation must be a CommunicationImplementation, got "
                             f"{implementation!r}")
        self.bytes_per_pack = bytes_per_pack
        self.timeout_seconds = timeout_seconds
        self.implementation = implementation

    def merge(self, options: CommunicationOptions | None) -> CommunicationOptions:
        """These options, overridden by the non-default fields of ``options``.

        Args:
            options: other options, or None.

        Returns:
            New CommunicationOptions.
        """
        if options is None:
            return self
        return CommunicationOptions(
            options.bytes_per_pack or self.bytes_per_pack,
            options.timeout_seconds if options.timeout_seconds is not None
            else self.timeout_seconds,
            options.implementation if options.implementation is not
            CommunicationImplementation.AUTO else self.implementation)

    def __repr__(self) -> str:
        return (f"CommunicationOptions(bytes_per_pack={self.bytes_per_pack}, timeout_seconds="
                f"{self.timeout_seconds}, implementation={self.implementation})")


class CollectiveHints(CommunicationOptions):
    """The older name of CommunicationOptions (without ``implementation``).

    Args:
        bytes_per_pack: see CommunicationOptions.
        timeout_seconds: see CommunicationOptions.
    """

    def __init__(self, bytes_per_pack: int = 0, timeout_seconds: float | None = None) -> None:
        super().__init__(bytes_per_pack, timeout_seconds)


# Every use of twinflow's device API in this package goes through the three functions below.
def current_device() -> str:
    """The full name of the device ops run on here (the innermost ``tw.device`` scope).

    Returns:
        e.g. ``/job:localhost/replica:0/task:0/device:CPU:0``.
    """
    return canonical(ctx.device_spec)


def on_device(name: str):
    """``tw.device`` for a device string in either form (``/cpu:1`` or the full
    ``/job:localhost/replica:0/task:0/device:CPU:1``).

    Args:
        name: the device string ('' keeps the current device).

    Returns:
        The ``tw.device`` context manager.
    """
    return device(name)


def canonical(name: str) -> str:
    """The full form of a device string given in either form.

    Args:
        name: ``/cpu:1``, ``CPU:1`` or ``/job:localhost/replica:0/task:0/device:CPU:1``.

    Returns:
        The full form.
    """
    spec = DeviceSpec.from_string(LOCAL).make_merged_spec(DeviceSpec.from_string(name or ""))
    if spec.device_type is None:
        spec = spec.replace(device_type="CPU")
    return spec.to_string() if spec.device_index is not None else \
        spec.replace(device_index=0).to_string()


def _dense(value):
    """A tensor for ``value`` (IndexedSlices become dense: values are summed as tensors)."""
    return convert(value)


def destination_devices(destinations) -> tuple:
    """The device strings ``destinations`` names.

    Args:
        destinations: a device string, a sequence of them, a DistributedValues (its devices),
            a variable (its device), or None (the current device).

    Returns:
        A tuple of canonical device strings.
    """
    if destinations is None:
        return (current_device(),)
    if isinstance(destinations, str):
        return (canonical(destinations),)
    devices = getattr(destinations, "_tw_devices", None)
    if devices is not None:
        return tuple(devices)
    if isinstance(destinations, DistributedValues):
        return tuple(getattr(v, "device", None) or current_device() for v in destinations.values)
    if isinstance(destinations, Sequence):
        return tuple(canonical(d) for d in destinations)
    dev = getattr(destinations, "device", None)
    if isinstance(dev, str):
        return (canonical(dev) if dev else current_device(),)
    raise ValueError(f"destinations must be a device string, a list of them, a variable or "
                     f"distributed values, got {destinations!r}")


def _mean(total, count: int):
    if total.dtype.is_floating or total.dtype.is_complex:
        return total / math_ops.cast(count, total.dtype)
    return math_ops.cast(math_ops.floordiv(total, math_ops.cast(count, total.dtype)),
                         total.dtype)


class CrossDeviceOps:
    """Combines the values of the local replicas (``tf.distribute.CrossDeviceOps``).

    Subclasses choose how a sum is accumulated (``_sum``). A strategy across processes
    replaces ``batch_all_reduce``/``all_gather``/``broadcast`` to also reach the other
    processes; everything else is built on them.
    """

    def _sum(self, values: list):
        """The sum of same-shaped tensors (accumulated in replica order)."""
        return values[0] if len(values) == 1 else math_ops.add_n(values)

    # ----- the collective hook -----
    def batch_all_reduce(self, reduce_op, per_replica_values: list, options=None) -> list:
        """All-reduces several values; every replica gets every result.

        Args:
            reduce_op: SUM or MEAN.
            per_replica_values: per value, a list with one tensor per local replica.
            options: CommunicationOptions (used by collectives between processes).

        Returns:
            Per value, a list with the reduced tensor for each local replica (on its device).
        """
        reduce_op = as_reduce_op(reduce_op)
        out = []
        for values in per_replica_values:
            values = [_dense(v) for v in values]
            total = self._sum(values)
            if reduce_op is ReduceOp.MEAN:
                total = _mean(total, len(values))
            out.append([total] * len(values))
        return out

    def all_gather(self, values: list, axis: int, options=None) -> list:
        """Concatenates the replicas' values along ``axis``; every replica gets the result.

        Args:
            values: one tensor per local replica.
            axis: the axis to concatenate along.
            options: CommunicationOptions.

        Returns:
            One tensor per local replica.
        """
        values = [_dense(v) for v in values]
        joined = values[0] if len(values) == 1 else array_ops.concat(values, axis)
        return [joined] * len(values)

    def broadcast(self, tensor, destinations) -> Mirrored:
        """Copies ``tensor`` to each destination device.

        Args:
            tensor: a tensor.
            destinations: see ``destination_devices``.

        Returns:
            A Mirrored value with one copy per destination.
        """
        return _place(destination_devices(destinations), [convert(tensor)] *
                      len(destination_devices(destinations)))

    # ----- built on the hook -----
    def all_reduce(self, reduce_op, values: list, options=None) -> list:
        """All-reduces one value held by the local replicas.

        Args:
            reduce_op: SUM or MEAN.
            values: one tensor per local replica.
            options: CommunicationOptions.

        Returns:
            The reduced tensor, once per local replica.
        """
        return self.batch_all_reduce(reduce_op, [list(values)], options)[0]

    def reduce(self, reduce_op, per_replica_value, destinations, options=None) -> Mirrored:
        """Reduces a per-replica value onto ``destinations``.

        Args:
            reduce_op: SUM or MEAN.
            per_replica_value: a DistributedValues (or a list of per-replica tensors).
            destinations: see ``destination_devices``.
            options: CommunicationOptions.

        Returns:
            A Mirrored value, one copy per destination device.
        """
        return self.batch_reduce(reduce_op, [(per_replica_value, destinations)], options)[0]

    def batch_reduce(self, reduce_op, value_destination_pairs, options=None) -> list:
        """Reduces several per-replica values, each onto its destinations.

        Args:
            reduce_op: SUM or MEAN.
            value_destination_pairs: ``(per_replica_value, destinations)`` pairs.
            options: CommunicationOptions.

        Returns:
            One Mirrored value per pair.
        """
        pairs = list(value_destination_pairs)
        values = [list(v.values if isinstance(v, DistributedValues) else v) for v, _ in pairs]
        reduced = self.batch_all_reduce(reduce_op, values, options)
        return [_place(destination_devices(d), [r[0]] * len(destination_devices(d)))
                for r, (_, d) in zip(reduced, pairs)]

    def _gather(self, per_replica_value, destinations, axis: int, options=None) -> Mirrored:
        values = list(per_replica_value.values if isinstance(per_replica_value,
                                                             DistributedValues)
                      else per_replica_value)
        joined = self.all_gather(values, axis, options)[0]
        devices = destination_devices(destinations)
        return _place(devices, [joined] * len(devices))


def _place(devices: tuple, tensors: list) -> Mirrored:
    out = []
    for d, t in zip(devices, tensors):
        with on_device(d):
            out.append(array_ops.identity(t))
    return Mirrored(out)


class ReductionToOneDevice(CrossDeviceOps):
    """Sums the values on one device, then copies the result to the others.

    Args:
        reduce_to_device: where the sum is computed (None: the first replica's device).
        accumulation_fn: ``fn(list_of_tensors) -> tensor`` (``tw.math.add_n`` by default).
    """

    def __init__(self, reduce_to_device: str | None = None,
                 accumulation_fn: Callable | None = None) -> None:
        self.reduce_to_device = None if reduce_to_device is None else \
            canonical(reduce_to_device)
        self.accumulation_fn = accumulation_fn or math_ops.add_n

    def _sum(self, values: list):
        if len(values) == 1:
            return values[0]
        with on_device(self.reduce_to_device or ""):
            return self.accumulation_fn(values)


class _AllReduceOps(CrossDeviceOps):
    def __init__(self, num_packs: int = 1) -> None:
        if not isinstance(num_packs, int) or num_packs < 0:
            raise ValueError(f"num_packs must be a non-negative integer, got {num_packs!r}")
        self.num_packs = num_packs


class NcclAllReduce(_AllReduceOps):
    """All-reduce in replica order, as NCCL's ring would (there is no NCCL: the values are
    summed on the CPU in the same order).

    Args:
        num_packs: how many packs gradients are grouped into (values are summed one by one,
            so packing changes nothing here).
    """


class HierarchicalCopyAllReduce(_AllReduceOps):
    """All-reduce by pairwise sums in a tree (replicas 0+1, 2+3, then the pairs...).

    Args:
        num_packs: how many packs gradients are grouped into (values are summed one by one,
            so packing changes nothing here).
    """

    def _sum(self, values: list):
        while len(values) > 1:
            values = [values[i] + values[i + 1] if i + 1 < len(values) else values[i]
                      for i in range(0, len(values), 2)]
        return values[0]
