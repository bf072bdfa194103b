"""``tw.experimental.ExtensionTypeBatchEncoder``: how an ExtensionType's values batch.

A batchable type's values are batched (``tw.data`` ``batch``/``unbatch``) by encoding each one
as a tuple of batchable values, stacking those component by component and decoding the result
with the batched spec. The default encoder encodes a value as its tensor and composite fields
and batches each field's spec; a subclass set as the type's ``__batch_encoder__`` class
attribute changes any of the five steps (as in TensorFlow).
"""
from __future__ import annotations

import numpy as np

from ..core.shapes import TensorShape
from ..eager.func_graph import TensorSpec
from ..eager.tensor import EagerTensor
from ..framework.type_spec import BatchableTypeSpec, CompositeTensor


def _check_spec(spec, op: str):
    # (ExtensionTypeSpec's marker: extension_type imports this module, not the other way)
    if not getattr(type(spec), "_tw_extension_spec", False):
        raise TypeError(f"ExtensionTypeBatchEncoder.{op}: expected an ExtensionType spec, got "
                        f"{type(spec).__name__}")
    return spec


def _batch_one(s, batch_size):
    if isinstance(s, TensorSpec):
        shape = TensorShape(None) if s.shape.rank is None else \
            TensorShape([batch_size]).concatenate(s.shape)
        return TensorSpec(shape, s.dtype)
    if isinstance(s, BatchableTypeSpec):
        return s._batch(batch_size)
    return s  # a static field


def _unbatch_one(s):
    if isinstance(s, TensorSpec):
        if s.shape.rank == 0:
            raise ValueError(f"ExtensionTypeBatchEncoder.unbatch: a field of spec {s} is a "
                             f"scalar: there is no batch dimension to remove")
        return TensorSpec(s.shape[1:] if s.shape.rank is not None else TensorShape(None),
                          s.dtype)
    if isinstance(s, BatchableTypeSpec):
        return s._unbatch()
    return s


class ExtensionTypeBatchEncoder:
    """The default batch encoder of BatchableExtensionTypes
    (``tw.experimental.ExtensionTypeBatchEncoder``): a value is encoded as its tensor and
    composite fields; a batch of values has every such field batched.
    """

    def batch(self, spec, batch_size) -> BatchableTypeSpec:
        """The spec of a batch of ``batch_size`` values of ``spec``.

        Args:
            spec: an ExtensionType spec.
            batch_size: an int, or None for an unknown size.

        Returns:
            The spec whose tensor and composite fields have one more outer dimension.
        """
        spec = _check_spec(spec, "batch")
        if batch_size is not None and (isinstance(batch_size, bool) or
                                       int(batch_size) != batch_size or batch_size < 0):
            raise ValueError(f"ExtensionTypeBatchEncoder.batch: batch_size must be a "
                             f"non-negative int or None, got {batch_size!r}")
        return type(spec)(spec._value_type, tuple((n, _batch_one(s, batch_size))
                                                  for n, s in spec._fields))

    def unbatch(self, spec) -> BatchableTypeSpec:
        """The spec of one value of a batch of ``spec``.

        Args:
            spec: a batched ExtensionType spec.

        Returns:
            The spec with the outer dimension of every tensor and composite field removed.
        """
        spec = _check_spec(spec, "unbatch")
        return type(spec)(spec._value_type, tuple((n, _unbatch_one(s))
                                                  for n, s in spec._fields))

    def encode(self, spec, value, minimum_rank: int = 0) -> tuple:
        """``value`` as a tuple of batchable values (its tensor and composite fields).

        Args:
            spec: the value's spec.
            value: an ExtensionType value of ``spec``.
            minimum_rank: the batch rank the caller will use; the default encoding returns
                the fields as they are whatever it is (as TensorFlow's).

        Returns:
            The fields' values, in declaration order.
        """
        spec = _check_spec(spec, "encode")
        if isinstance(minimum_rank, bool) or not isinstance(minimum_rank, int) or \
                minimum_rank < 0:
            raise ValueError(f"ExtensionTypeBatchEncoder.encode: minimum_rank must be a "
                             f"non-negative int, got {minimum_rank!r}")
        if not spec.is_compatible_with(value):
            raise ValueError(f"ExtensionTypeBatchEncoder.encode: {value!r} is not "
                             f"compatible with {spec}")
        return tuple(getattr(value, n) for n, s in spec._fields if hasattr(s, "_trace_key"))

    def decode(self, spec, encoded_value) -> CompositeTensor:
        """The value of ``spec`` that ``encode`` made ``encoded_value``.

        Args:
            spec: the value's spec.
            encoded_value: the tuple ``encode`` returned (or a batch of such tuples).

        Returns:
            The ExtensionType value.
        """
        spec = _check_spec(spec, "decode")
        names = [n for n, s in spec._fields if hasattr(s, "_trace_key")]
        encoded_value = tuple(encoded_value)
        if len(encoded_value) != len(names):
            raise ValueError(f"ExtensionTypeBatchEncoder.decode: {spec} has {len(names)} "
                             f"encoded components, got {len(encoded_value)}")
        return spec._from_components(dict(zip(names, encoded_value)))

    def encoding_specs(self, spec) -> tuple:
        """The specs of ``encode``'s values for ``spec``.

        Args:
            spec: an ExtensionType spec.

        Returns:
            The specs of the tensor and composite fields, in declaration order.
        """
        spec = _check_spec(spec, "encoding_specs")
        return tuple(s for _, s in spec._fields if hasattr(s, "_trace_key"))


_DEFAULT = ExtensionTypeBatchEncoder()


def encoder_of(spec):
    """The batch encoder of ``spec``'s value type (its ``__batch_encoder__``, or the default)."""
    return getattr(spec._value_type, "__batch_encoder__", None) or _DEFAULT


def _stack(spec, column: list):
    if isinstance(spec, BatchableTypeSpec):
        return spec._tw_stack(column)
    return EagerTensor(np.stack([np.asarray(c) for c in column]))


def _unstack(spec, value) -> list:
    if isinstance(spec, BatchableTypeSpec):
        rows = spec._tw_unstack(value)
    else:
        rows = list(np.asarray(value))
    return [EagerTensor(np.asarray(r)) if isinstance(r, (np.ndarray, np.generic)) else r
            for r in rows]


def stack_values(spec, values: list):
    """One eager batch of ``values`` (of ``spec``): encoded, stacked component-wise, decoded."""
    enc = encoder_of(spec)
    specs = enc.encoding_specs(spec)
    rows = [tuple(enc.encode(spec, v)) for v in values]
    columns = [_stack(s, [r[i] for r in rows]) for i, s in enumerate(specs)]
    return enc.decode(enc.batch(spec, len(values)), columns)


def unstack_value(spec, value) -> list:
    """The rows of an eager batch ``value`` of (batched) ``spec``."""
    enc = encoder_of(spec)
    specs = enc.encoding_specs(spec)
    parts = [_unstack(s, c) for s, c in zip(specs, enc.encode(spec, value))]
    row_spec = enc.unbatch(spec)
    n = len(parts[0]) if parts else 0
    return [enc.decode(row_spec, [p[i] for p in parts]) for i in range(n)]
