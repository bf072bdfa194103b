"""Values held once per replica: ``PerReplica`` (different on each), ``Mirrored`` (the same).

A ``DistributedValues`` holds one value per *local* replica, in the order of the strategy's
``extended.worker_devices``. ``PerReplica`` is a composite tensor (its TypeSpec lists one spec
per replica), so it can be passed to and returned from ``tw.function``.
"""
from __future__ import annotations

from typing import Any

from ..core import nest
from ..core.props import readonly
from ..framework.type_spec import CompositeTensor, TypeSpec
from ..ops.composite_ops import type_spec_from_value


class DistributedValues:
    """Values, one per replica (``tf.distribute.DistributedValues``).

    Args:
        values: one value per local replica.
    """

    def __init__(self, values) -> None:
        self._values = tuple(values)
        if not self._values:
            raise ValueError(f"{type(self).__name__} needs at least one value")

    values = readonly("_values", "The value of each local replica.")
    _primary = property(lambda self: self._values[0])

    def _get_on_device_or_primary(self, device: str | None = None):
        return self._values[0]

    def __len__(self) -> int:
        return len(self._values)

    def __repr__(self) -> str:
        inner = ",\n  ".join(f"{i}: {v!r}" for i, v in enumerate(self._values))
        return f"{type(self).__name__}:{{\n  {inner}\n}}"

    def __iter__(self):
        raise TypeError(f"{type(self).__name__} is not iterable: its values are per replica. "
                        "Use strategy.experimental_local_results(value) to get them.")

    def __bool__(self) -> bool:
        raise TypeError(f"The truth value of a {type(self).__name__} is ambiguous (one value per "
                        "replica); reduce it first with strategy.reduce(...).")


class PerReplicaSpec(TypeSpec):
    """The TypeSpec of a PerReplica: one spec (or structure of specs) per replica.

    Args:
        *value_specs: the spec of each replica's value.
    """

    __slots__ = ("_value_specs",)
    _value_class: type  # the value type the spec describes (set below, once it exists)

    def __init__(self, *value_specs) -> None:
        self._value_specs = tuple(value_specs)

    value_type = readonly("_value_class", "The type of the values this spec describes.")
    _component_specs = readonly("_value_specs")

    def _serialize(self) -> tuple:
        return self._value_specs

    def _to_components(self, value) -> tuple:
        return value._values

    def _from_components(self, components) -> DistributedValues:
        return self._value_class(components)


class MirroredSpec(PerReplicaSpec):
    """The TypeSpec of a Mirrored value.

    Args:
        *value_specs: the spec of each replica's value.
    """

    __slots__ = ()


class _CompositeValues(DistributedValues, CompositeTensor):
    """DistributedValues passed to and from ``tw.function``: its spec lists each replica's."""

    _spec_class: type

    @property
    def _type_spec(self) -> PerReplicaSpec:
        return self._spec_class(*(nest.map_structure(type_spec_from_value, v)
                                  for v in self._values))


class PerReplica(_CompositeValues):
    """A value that differs between replicas (``strategy.run``'s results, distributed input)."""

    _spec_class = PerReplicaSpec


class Mirrored(_CompositeValues):
    """A value that is the same on every replica (the result of an all-reduce)."""

    _spec_class = MirroredSpec


PerReplicaSpec._value_class = PerReplica
MirroredSpec._value_class = Mirrored


def regroup(per_replica: list, wrap=PerReplica) -> Any:
    """One structure of distributed values from one structure per replica.

    Leaves that are the same object on every replica stay themselves (a mirrored variable, a
    Python constant); with a single replica the structure is returned as it is.

    Args:
        per_replica: one nested structure per replica, all of the same structure.
        wrap: the DistributedValues class wrapping leaves that differ.

    Returns:
        A structure whose differing leaves are ``wrap`` values.
    """
    first = per_replica[0]
    if len(per_replica) == 1:
        return first
    flats = [nest.flatten(v) for v in per_replica]
    for i, f in enumerate(flats[1:], start=1):
        if len(f) != len(flats[0]):
            raise ValueError(f"replica {i} returned a different structure than replica 0: "
                             f"{per_replica[i]!r} vs {first!r}")
    leaves = []
    for column in zip(*flats):
        leaves.append(column[0] if all(c is column[0] for c in column) else wrap(column))
    return nest.pack_sequence_as(first, leaves)


def select_replica(index: int, structure) -> Any:
    """The value replica ``index`` sees in ``structure`` (its own value of each leaf).

    Args:
        index: the local replica id.
        structure: a nested structure that may contain DistributedValues.

    Returns:
        The structure with each DistributedValues replaced by its ``index``-th value.
    """
    def pick(x):
        if isinstance(x, DistributedValues) and not getattr(x, "_tw_distributed", False):
            return x._values[index]
        return x
    return nest.map_structure(pick, structure)


def local_values(value, count: int) -> tuple:
    """The values of ``value`` for ``count`` local replicas (a plain value repeated).

    Args:
        value: a DistributedValues or a value the same on every replica.
        count: the number of local replicas.

    Returns:
        A tuple of ``count`` values.

    Raises:
        ValueError: a DistributedValues with another number of values.
    """
    if isinstance(value, DistributedValues):
        if len(value._values) != count:
            raise ValueError(f"{type(value).__name__} has {len(value._values)} values; the "
                             f"strategy has {count} local replicas")
        return value._values
    return (value,) * count
