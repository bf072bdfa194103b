"""tw.experimental.Optional as a composite value and tw.OptionalSpec: tw.function in and out,
tw.data elements, get_next_as_optional, errors on empty Optionals (eager and graph)."""
import numpy as np
import pytest

import twinflow as tw

Optional = tw.experimental.Optional


def test_spec_and_element_spec():
    o = Optional.from_value((tw.constant([1.0, 2.0]), {"a": tw.constant(3)}))
    spec = tw.OptionalSpec((tw.TensorSpec([2]), {"a": tw.TensorSpec([], tw.int32)}))
    assert o.element_spec == spec.element_spec
    assert o._type_spec == spec == tw.OptionalSpec.from_value(o)
    assert spec.value_type is Optional
    assert tw.OptionalSpec(tw.TensorSpec([2])) != tw.OptionalSpec(tw.TensorSpec([3]))
    assert bool(o.has_value())
    with pytest.raises(TypeError, match="expects an Optional"):
        tw.OptionalSpec.from_value(tw.constant(1))


def test_empty_optional():
    e = Optional.empty(tw.TensorSpec([None], tw.int32))
    assert not bool(e.has_value())
    assert e._type_spec == tw.OptionalSpec(tw.TensorSpec([None], tw.int32))
    with pytest.raises(tw.errors.InvalidArgumentError, match="does not have a value"):
        e.get_value()
    r = Optional.empty(tw.RaggedTensorSpec([None, None], tw.int32))
    assert r.element_spec == tw.RaggedTensorSpec([None, None], tw.int32)
    assert not bool(r.has_value())


def test_through_function_full_and_empty_share_a_trace():
    @tw.function
    def f(opt):
        return tw.cond(opt.has_value(), lambda: opt.get_value() * 2, lambda: tw.constant([-1]))

    np.testing.assert_array_equal(f(Optional.from_value(tw.constant([5]))).numpy(), [10])
    np.testing.assert_array_equal(
        f(Optional.empty(tw.TensorSpec([1], tw.int32))).numpy(), [-1])
    assert f.experimental_get_tracing_count() == 1

    @tw.function
    def make(x):
        return Optional.from_value({"x": x})

    out = make(tw.constant(1.5))
    assert isinstance(out, Optional) and float(out.get_value()["x"]) == 1.5

    @tw.function
    def get(opt):
        return opt.get_value()

    with pytest.raises(tw.errors.InvalidArgumentError, match="does not have a value"):
        get(Optional.empty(tw.TensorSpec([], tw.float32)))


def test_dataset_elements_and_get_next_as_optional():
    ds = tw.data.Dataset.range(3).map(lambda i: Optional.from_value(i * 2))
    assert ds.element_spec == tw.OptionalSpec(tw.TensorSpec([], tw.int64))
    assert [int(o.get_value()) for o in ds] == [0, 2, 4]
    it = iter(tw.data.Dataset.range(1))
    first, end = it.get_next_as_optional(), it.get_next_as_optional()
    assert int(first.get_value()) == 0 and not bool(end.has_value())
    assert end._type_spec == tw.OptionalSpec(tw.TensorSpec([], tw.int64))


def test_a_dataset_of_optionals_cannot_be_batched():
    ds = tw.data.Dataset.range(3).map(lambda i: Optional.from_value(i))
    with pytest.raises(TypeError, match="OptionalSpec cannot be batched"):
        ds.batch(2)
