"""tw.py_function / tw.numpy_function: eager, in tw.function, in Dataset.map, gradients,
and clear errors for outputs that break Tout."""
from __future__ import annotations

import traceback

import numpy as np
import pytest

import twinflow as tw


def _np_double(x):
    return x * 2


def test_py_function_eager_graph_and_numpy_function():
    x = tw.constant([1.0, 2.0])
    y = tw.py_function(lambda t: t * 3.0, [x], tw.float32)
    np.testing.assert_allclose(y.numpy(), [3.0, 6.0])

    @tw.function
    def f(t):
        a, b = tw.py_function(lambda u: (u + 1.0, tw.reduce_sum(u)), [t],
                              [tw.float32, tw.float32])
        return a * b
    np.testing.assert_allclose(f(x).numpy(), [6.0, 9.0])
    z = tw.numpy_function(_np_double, [tw.constant([1, 2])], tw.int32)
    assert z.numpy().tolist() == [2, 4]


def test_py_function_gradient_eager_and_in_function():
    x = tw.constant([1.0, 2.0])
    with tw.GradientTape() as tape:
        tape.watch(x)
        y = tw.py_function(lambda t: t * t, [x], tw.float32)
        s = tw.reduce_sum(y)
    np.testing.assert_allclose(tape.gradient(s, x).numpy(), [2.0, 4.0])

    @tw.function
    def g(t):
        with tw.GradientTape() as tp:
            tp.watch(t)
            out = tw.reduce_sum(tw.py_function(lambda u: tw.sin(u), [t], tw.float32))
        return tp.gradient(out, t)
    np.testing.assert_allclose(g(x).numpy(), np.cos([1.0, 2.0]), rtol=1e-6)


def test_wrong_dtype_is_a_clear_error():
    with pytest.raises(tw.errors.InvalidArgumentError, match="int64 .* Tout says float32"):
        tw.py_function(lambda t: tw.constant(1, tw.int64), [tw.constant(1.0)], tw.float32)
    with pytest.raises(tw.errors.InvalidArgumentError, match="returned 1 values"):
        tw.numpy_function(lambda t: t, [tw.constant(1.0)], [tw.float32, tw.float32])


def _boom(x):
    raise KeyError("bad element")


def test_py_function_in_dataset_map_and_error_traceback():
    ds = tw.data.Dataset.range(4).map(
        lambda x: tw.py_function(lambda t: t * 10, [x], tw.int64))
    assert list(ds.as_numpy_iterator()) == [0, 10, 20, 30]
    bad = tw.data.Dataset.range(3).map(lambda x: tw.py_function(_boom, [x], tw.int64),
                                       num_parallel_calls=2)
    with pytest.raises(Exception) as info:
        list(bad)
    text = "".join(traceback.format_exception(info.value))
    assert "_boom" in text and "bad element" in text


def test_ensure_shape_eager_and_graph():
    x = tw.constant([[1.0, 2.0]])
    assert tw.ensure_shape(x, [1, None]).shape == (1, 2)
    with pytest.raises(tw.errors.InvalidArgumentError, match="not compatible"):
        tw.ensure_shape(x, [2, 2])

    @tw.function(input_signature=[tw.TensorSpec([None, None], tw.float32)])
    def f(v):
        y = tw.ensure_shape(v, [None, 2])
        assert y.shape.as_list() == [None, 2]
        return y
    assert f(x).shape == (1, 2)
    with pytest.raises(tw.errors.InvalidArgumentError, match="expected shape"):
        f(tw.constant([[1.0, 2.0, 3.0]]))
