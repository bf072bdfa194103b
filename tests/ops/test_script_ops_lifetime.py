"""py_function / numpy_function: the function table stays bounded in long eager loops, and a
function lives as long as something may still call it (a graph, a GradientTape)."""
import gc

import numpy as np
import pytest

import twinflow as tw
from twinflow.ops import script_ops


def _table_size() -> int:
    gc.collect()
    return len(script_ops._FUNCS)


def test_eager_loops_leave_the_table_bounded():
    before = _table_size()

    def double(x):
        return x * 2

    for _ in range(10_000):
        tw.py_function(double, [1.0], tw.float32)
    assert _table_size() <= before + 1  # one token, reused
    for _ in range(10_000):
        tw.py_function(lambda x: x * 3, [1.0], tw.float32)
        tw.numpy_function(lambda a: a * 3, [1.0], [tw.float32])
    for _ in range(1_000):  # np.sin cannot be weakly referenced: one entry per op, dropped
        tw.numpy_function(np.sin, [np.float32(1.0)], tw.float32)
    assert _table_size() <= before + 1
    del double
    assert _table_size() <= before


def test_eager_gradient_keeps_a_dead_function_alive_while_the_tape_lives():
    x = tw.constant(3.0)
    with tw.GradientTape() as tape:
        tape.watch(x)
        y = tw.py_function(lambda a: a * a * a, [x], tw.float32)  # no other reference
    gc.collect()
    assert float(tape.gradient(y, x)) == 27.0


def test_a_graph_keeps_its_functions_and_releases_them_with_it():
    before = _table_size()

    def make():
        return tw.function(lambda x: tw.py_function(lambda a: a * a, [x], tw.float32))
    fn = make()
    assert float(fn(tw.constant(3.0))) == 9.0
    gc.collect()
    assert float(fn(tw.constant(4.0))) == 16.0  # the lambda lives in fn's graph
    del fn
    assert _table_size() <= before


def test_gradient_through_py_function_in_tw_function():
    @tw.function
    def step(x):
        with tw.GradientTape() as t:
            t.watch(x)
            y = tw.py_function(lambda a: a * a * a, [x], tw.float32)
        return t.gradient(y, x)
    gc.collect()
    assert float(step(tw.constant(2.0))) == 12.0
    gc.collect()
    assert float(step(tw.constant(1.0))) == 3.0


def test_numpy_function_in_tw_function_and_dataset_map():
    fn = tw.function(lambda v: tw.numpy_function(np.sin, [v], tw.float32))
    gc.collect()
    np.testing.assert_allclose(fn(tw.constant(1.0)), np.sin(np.float32(1.0)))
    ds = tw.data.Dataset.range(3).map(
        lambda v: tw.numpy_function(lambda a: a * 10, [v], tw.int64))
    gc.collect()
    assert list(ds.as_numpy_iterator()) == [0, 10, 20]


def test_one_function_with_a_dtype_and_a_list_tout():
    def pair(x):
        return [x, x]
    one = tw.py_function(pair, [1.0], tw.float32)  # Tout a dtype: the list is one tensor
    assert one.shape == (2,)
    two = tw.py_function(pair, [1.0], [tw.float32, tw.float32])
    assert len(two) == 2 and two[0].shape == ()


def test_as_decorators_and_argument_errors():
    @tw.py_function(Tout=tw.float32)
    def triple(x):
        return x * 3

    @tw.numpy_function(Tout=tw.float32)
    def plus(a, b):
        return a + b

    assert float(triple(tw.constant(2.0))) == 6.0
    assert float(tw.function(lambda v: plus(v, v))(tw.constant(2.0))) == 4.0

    with pytest.raises(TypeError, match="Tout"):
        tw.py_function(lambda x: x, [1.0])
    with pytest.raises(TypeError, match="inp"):
        tw.numpy_function(lambda x: x, Tout=tw.float32)
    with pytest.raises(TypeError, match="decorator"):
        tw.py_function(inp=[1.0], Tout=tw.float32)
