"""tw.NoneTensorSpec and tw.TensorArraySpec: reprs and behaviour as TensorFlow 2.21 prints them."""
from __future__ import annotations

import pytest

import twinflow as tw


def test_none_tensor_spec():
    s = tw.NoneTensorSpec()
    assert repr(s) == "NoneTensorSpec()" and s == tw.NoneTensorSpec()
    assert s.is_compatible_with(tw.NoneTensorSpec())
    assert not s.is_compatible_with(tw.TensorSpec([]))
    assert tw.nest.flatten(s, expand_composites=True) == []
    assert s._to_components(None) == []
    assert s.value_type is type(s._from_components([]))
    with pytest.raises(TypeError, match="describes None"):
        s._to_components(tw.constant(1))


def test_tensor_array_spec():
    s = tw.TensorArraySpec([2], tw.float32)
    assert repr(s) == "TensorArraySpec(TensorShape([2]), tw.float32, False, True)"
    assert repr(tw.TensorArraySpec()) == \
        "TensorArraySpec(TensorShape(None), tw.float32, False, True)"
    ta = tw.TensorArray(tw.int32, size=2, element_shape=[3])
    assert tw.TensorArraySpec.from_value(ta) == tw.TensorArraySpec([3], tw.int32)
    assert s.value_type is tw.TensorArray
    assert s.is_compatible_with(tw.TensorArraySpec([None], tw.float32))
    assert not s.is_compatible_with(tw.TensorArraySpec([2], tw.int32))
    assert s.most_specific_common_supertype([tw.TensorArraySpec([3])]) == \
        tw.TensorArraySpec([None])
    with pytest.raises(TypeError, match="TensorArray"):
        tw.TensorArraySpec.from_value(tw.constant(1))
    with pytest.raises(NotImplementedError, match="ta.stack"):
        tw.nest.flatten(s, expand_composites=True)
