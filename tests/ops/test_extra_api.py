"""Errors, namespaces and TensorFlow details of the extra API (segment ops, bincount, strings,
tw.debugging.assert_integer); values are checked by the registry cases in cases_extra.py."""
from __future__ import annotations

import numpy as np
import pytest

import twinflow as tw


def test_namespaces():
    for name in ("segment_sum", "segment_mean", "segment_max", "segment_min", "segment_prod",
                 "unsorted_segment_sum", "unsorted_segment_mean", "unsorted_segment_max",
                 "unsorted_segment_min", "unsorted_segment_prod", "unsorted_segment_sqrt_n",
                 "bincount"):
        assert callable(getattr(tw.math, name))
    for name in tw.strings.__all__:
        assert callable(getattr(tw.strings, name))
    assert tw.as_string is tw.strings.as_string
    assert callable(tw.tensor_scatter_nd_sub) and callable(tw.debugging.assert_integer)


# ----- segment ops ------------------------------------------------------------------------------

def test_segment_sum_doc_example():
    # TF docs: tf.math.segment_sum(c, tf.constant([0, 0, 1])) == [[5, 5, 5, 5], [5, 6, 7, 8]]
    c = tw.constant([[1, 2, 3, 4], [4, 3, 2, 1], [5, 6, 7, 8]])
    np.testing.assert_array_equal(tw.math.segment_sum(c, tw.constant([0, 0, 1])).numpy(),
                                  [[5, 5, 5, 5], [5, 6, 7, 8]])


def test_empty_segments_follow_tensorflow():
    x = tw.constant([3.0, 1.0])
    np.testing.assert_array_equal(tw.math.segment_max(x, [0, 2]).numpy(), [3.0, 0.0, 1.0])
    np.testing.assert_array_equal(tw.math.segment_prod(x, [0, 2]).numpy(), [3.0, 1.0, 1.0])
    lowest = np.finfo(np.float32).min
    np.testing.assert_array_equal(tw.math.unsorted_segment_max(x, [0, 0], 2).numpy(),
                                  [3.0, lowest])
    np.testing.assert_array_equal(
        tw.math.unsorted_segment_min(tw.constant([5]), [1], 2).numpy(),
        [np.iinfo(np.int32).max, 5])


def test_segment_errors():
    x = tw.constant([1.0, 2.0, 3.0])
    with pytest.raises(tw.errors.InvalidArgumentError, match="not increasing"):
        tw.math.segment_sum(x, [1, 0, 2])
    with pytest.raises(tw.errors.InvalidArgumentError, match="dimension 0 of data"):
        tw.math.segment_sum(x, [0, 1])
    with pytest.raises(tw.errors.InvalidArgumentError, match="vector"):
        tw.math.segment_sum(x, [[0, 1, 2]])
    with pytest.raises(tw.errors.InvalidArgumentError, match="out of range"):
        tw.math.unsorted_segment_sum(x, [0, 3, 1], 3)
    with pytest.raises(tw.errors.InvalidArgumentError, match="does not start with"):
        tw.math.unsorted_segment_sum(x, [[0, 1, 2]], 3)
    with pytest.raises(TypeError):
        tw.math.segment_sum(x, [0.0, 1.0, 1.0])


def test_unsorted_segment_sum_in_function_with_dynamic_num_segments():
    @tw.function
    def f(x, ids, n):
        return tw.math.unsorted_segment_sum(x, ids, n)
    out = f(tw.constant([1.0, 2.0, 4.0]), tw.constant([1, 1, 0]), tw.constant(3))
    np.testing.assert_array_equal(out.numpy(), [4.0, 3.0, 0.0])


def test_segment_max_gradient_splits_ties():
    x = tw.constant([2.0, 2.0, 1.0])
    with tw.GradientTape() as tape:
        tape.watch(x)
        y = tw.reduce_sum(tw.math.segment_max(x, [0, 0, 1]))
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [0.5, 0.5, 1.0])


def test_bincount():
    # TF docs: tf.math.bincount([1, 1, 2, 3, 2, 4, 4, 5]) == [0, 2, 2, 1, 2, 1]
    values = tw.constant([1, 1, 2, 3, 2, 4, 4, 5])
    out = tw.math.bincount(values)
    assert out.dtype == tw.int32
    np.testing.assert_array_equal(out.numpy(), [0, 2, 2, 1, 2, 1])
    np.testing.assert_array_equal(tw.math.bincount(values, minlength=3, maxlength=3).numpy(),
                                  [0, 2, 2])
    assert tw.math.bincount(tw.constant([], dtype=tw.int32)).shape == (0,)
    with pytest.raises(tw.errors.InvalidArgumentError, match="non-negative"):
        tw.math.bincount(tw.constant([1, -1]))


def test_bincount_with_unknown_values_in_function():
    f = tw.function(lambda a: tw.math.bincount(a, minlength=2))
    np.testing.assert_array_equal(f(tw.constant([0, 3])).numpy(), [1, 0, 0, 1])
    np.testing.assert_array_equal(f(tw.constant([0, 0])).numpy(), [2, 0])


# ----- strings ----------------------------------------------------------------------------------

def test_string_errors():
    with pytest.raises(tw.errors.InvalidArgumentError, match="could not correctly convert"):
        tw.strings.to_number(tw.constant(["1", "one"]))
    with pytest.raises(tw.errors.InvalidArgumentError, match="out of range"):
        tw.strings.to_number(tw.constant(["3000000000"]), out_type=tw.int32)
    with pytest.raises(tw.errors.InvalidArgumentError, match="pos 5 out of range"):
        tw.strings.substr(tw.constant("abc"), 5, 1)
    assert isinstance(tw.strings.split(tw.constant(["a b", "c"])), tw.RaggedTensor)
    with pytest.raises(TypeError):
        tw.strings.length(tw.constant([1, 2]))
    with pytest.raises(tw.errors.InvalidArgumentError, match="placeholders"):
        tw.strings.format("{} {}", [tw.constant(1)])


def test_string_tensor_formats():
    assert tw.strings.as_string(tw.constant(3.5)).numpy() == b"3.500000"
    assert tw.strings.as_string(tw.constant(3.5), shortest=True).numpy() == b"3.5"
    assert tw.strings.format("v: {}", tw.constant([1, 2, 3, 4, 5, 6, 7]),
                             summarize=2).numpy() == b"v: [1 2 ... 6 7]"
    assert tw.strings.substr(tw.constant("h\u00e9llo"), 1, 2, unit="UTF8_CHAR").numpy() == \
        "\u00e9l".encode()


def test_strings_in_function_and_graph_have_no_gradient():
    x = tw.constant([1.5, 2.0])
    with tw.GradientTape() as tape:
        tape.watch(x)
        s = tw.strings.as_string(x)
        y = tw.strings.to_number(s)
    assert tape.gradient(y, x) is None

    @tw.function
    def f(words):
        return tw.strings.reduce_join(tw.strings.upper(words), separator=" ")
    assert f(tw.constant(["a", "b"])).numpy() == b"A B"


# ----- assert_integer ---------------------------------------------------------------------------

def test_assert_integer():
    assert tw.debugging.assert_integer(tw.constant([1, 2])) is None
    assert tw.debugging.assert_integer(tw.Variable(np.int64(3))) is None
    with pytest.raises(TypeError, match="to be integer, got float32"):
        tw.debugging.assert_integer(tw.constant(1.0), message="ids:")
    with pytest.raises(TypeError):
        tw.debugging.assert_integer([True])


def test_string_elements_are_scalar_tensors():
    # NumPy gives bare bytes for an element of an object array; tensors keep 0-d arrays.
    t = tw.constant(["ab", "c"])
    for elem in (t[0], list(t)[0], tw.unstack(t)[0], tw.gather(t, 0),
                 tw.function(lambda x: x[0])(t)):
        assert elem.dtype == tw.string and elem.shape == () and elem.numpy() == b"ab"
    lengths = tw.map_fn(tw.strings.length, t, fn_output_signature=tw.int32)
    np.testing.assert_array_equal(lengths.numpy(), [2, 1])
    tokens = tw.data.Dataset.from_tensor_slices(["a b", "c d e"]).map(
        lambda s: tw.strings.reduce_join(tw.strings.split(s), separator="+"))
    assert list(tokens.as_numpy_iterator()) == [b"a+b", b"c+d+e"]
