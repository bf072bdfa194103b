"""tw.experimental.ExtensionType: fields, immutability, spec, and the TypeSpec mechanism
(tw.function traces once per spec, nest, while_loop)."""
from __future__ import annotations

import pytest

import twinflow as tw


class Masked(tw.experimental.ExtensionType):
    values: tw.Tensor
    mask: tw.Tensor
    scale: float = 1.0

    def total(self) -> tw.Tensor:
        """The sum of the unmasked values, scaled.

        Returns:
            A scalar.
        """
        return tw.reduce_sum(tw.where(self.mask, self.values, 0.0)) * self.scale


def test_fields_repr_immutability_and_spec():
    m = Masked([1.0, 2.0, 3.0], [True, False, True])
    assert isinstance(m.values, tw.Tensor) and m.values.dtype is tw.float32
    assert float(m.total()) == 4.0 and m.scale == 1.0
    assert repr(m).startswith("Masked(values=<tw.Tensor: shape=(3,)")
    with pytest.raises(AttributeError, match="immutable"):
        m.scale = 2.0
    with pytest.raises(TypeError, match="missing field 'mask'"):
        Masked([1.0])
    spec = m._type_spec
    assert isinstance(spec, Masked.Spec) and spec.is_compatible_with(m)
    assert not spec.is_compatible_with(Masked([1.0], [True], scale=2.0))
    flat = tw.nest.flatten(m, expand_composites=True)
    assert [t.dtype for t in flat] == [tw.bool, tw.float32]
    back = tw.nest.pack_sequence_as(m, flat, expand_composites=True)
    assert isinstance(back, Masked) and float(back.total()) == 4.0


def test_extension_type_through_function_and_while_loop():
    @tw.function
    def f(m):
        return m.total(), Masked(m.values * 2.0, m.mask, m.scale)

    total, doubled = f(Masked([1.0, 2.0], [True, True]))
    assert float(total) == 3.0 and doubled.values.numpy().tolist() == [2.0, 4.0]
    f(Masked([5.0, 6.0], [False, True]))
    assert f.experimental_get_tracing_count() == 1
    f(Masked([5.0, 6.0], [False, True], scale=3.0))  # a static field: another type
    assert f.experimental_get_tracing_count() == 2

    @tw.function
    def g(m):
        return tw.while_loop(lambda i, m: i < 3,
                             lambda i, m: (i + 1, Masked(m.values + 1.0, m.mask)), (0, m))[1]

    assert g(Masked([0.0], [True])).values.numpy().tolist() == [3.0]


def test_as_dict_and_batchable():
    class Pair(tw.experimental.BatchableExtensionType):
        a: tw.Tensor
        b: int

    p = Pair([1, 2], 3)
    d = tw.experimental.extension_type.as_dict(p)
    assert list(d) == ["a", "b"] and d["b"] == 3 and d["a"].numpy().tolist() == [1, 2]
    with pytest.raises(TypeError, match="ExtensionType"):
        tw.experimental.extension_type.as_dict(3)
