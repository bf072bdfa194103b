"""``tw.dtypes`` is TensorFlow's ``tf.dtypes`` namespace: the dtypes, ``as_dtype`` and casts."""
import numpy as np
import pytest

import twinflow as tw
from twinflow.core import dtypes as core_dtypes

DTYPE_NAMES = ["bfloat16", "bool", "complex64", "complex128", "double", "float16", "float32",
               "float64", "half", "int8", "int16", "int32", "int64", "qint8", "qint16", "qint32",
               "quint8", "quint16", "resource", "string", "uint8", "uint16", "uint32", "uint64",
               "variant"]


@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_each_dtype_is_the_top_level_one(name):
    d = getattr(tw.dtypes, name)
    assert isinstance(d, tw.dtypes.DType)
    assert d is getattr(tw, name)


def test_bool_is_the_bool_dtype_not_python_bool():
    assert tw.dtypes.bool is core_dtypes.bool_
    assert tw.dtypes.bool.name == "bool"


def test_as_dtype_and_dtype_class():
    assert tw.dtypes.as_dtype("float32") is tw.float32
    assert tw.dtypes.as_dtype(np.int64) is tw.int64
    assert tw.dtypes.DType is core_dtypes.DType
    assert tw.dtypes.as_dtype("qint8") is tw.qint8
    with pytest.raises(TypeError):
        tw.dtypes.as_dtype("qint4")  # no such dtype


def test_import_path_is_the_same_module():
    import twinflow.dtypes
    assert twinflow.dtypes is tw.dtypes


def test_cast_matches_top_level():
    x = tw.constant([1.7, -2.2, 3.5])
    got = tw.dtypes.cast(x, tw.dtypes.int32)
    assert got.dtype is tw.int32
    np.testing.assert_array_equal(got.numpy(), tw.cast(x, tw.int32).numpy())
    np.testing.assert_array_equal(got.numpy(), [1, -2, 3])


def test_saturate_cast_clamps_like_top_level():
    x = tw.constant([-300.0, 5.0, 300.0])
    got = tw.dtypes.saturate_cast(x, tw.dtypes.uint8)
    assert got.dtype is tw.uint8
    np.testing.assert_array_equal(got.numpy(), [0, 5, 255])
    np.testing.assert_array_equal(got.numpy(), tw.saturate_cast(x, tw.uint8).numpy())


def test_complex_builds_from_parts():
    got = tw.dtypes.complex(tw.constant([1.0, 2.0]), tw.constant([3.0, -4.0]))
    assert got.dtype is tw.complex64
    np.testing.assert_array_equal(got.numpy(), np.array([1 + 3j, 2 - 4j], np.complex64))
    assert tw.dtypes.complex is tw.complex


def test_cast_in_a_function_graph():
    f = tw.function(lambda v: tw.dtypes.cast(v, tw.dtypes.float64))
    out = f(tw.constant([1, 2], dtype=tw.int32))
    assert out.dtype is tw.float64
    np.testing.assert_array_equal(out.numpy(), [1.0, 2.0])
