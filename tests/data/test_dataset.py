"""tw.data.Dataset: sources, transformations, cardinality, element_spec."""
from __future__ import annotations

import numpy as np
import pytest

import twinflow as tw

Dataset = tw.data.Dataset


def _np(ds):
    return list(ds.as_numpy_iterator())


def test_from_tensor_slices_tuples_dicts_and_lists():
    x = np.arange(6, dtype=np.float32).reshape(3, 2)
    ds = Dataset.from_tensor_slices((x, np.array([0, 1, 2])))
    items = list(ds)
    assert len(items) == 3 and isinstance(items[0], tuple)
    assert isinstance(items[0][0], tw.Tensor)
    np.testing.assert_array_equal(items[1][0].numpy(), [2, 3])
    assert _np(Dataset.from_tensor_slices([1, 2, 3])) == [1, 2, 3]
    d = _np(Dataset.from_tensor_slices({"a": [1, 2], "b": [3., 4.]}))
    assert d[1]["a"] == 2 and d[1]["b"] == 4.0
    spec = ds.element_spec
    assert spec[0].shape.as_list() == [2] and spec[0].dtype == tw.float32
    with pytest.raises(ValueError):
        Dataset.from_tensor_slices((np.zeros(3), np.zeros(4)))


def test_python_values_get_the_dtypes_of_tw_constant():
    big = 2**40
    ds = Dataset.from_tensor_slices(([1, big], [1., 2.], [3, 4]))
    assert [s.dtype for s in ds.element_spec] == [tw.int64, tw.float32, tw.int32]
    assert [int(a) for a, _, _ in _np(ds)] == [1, big]
    assert Dataset.from_tensors(big).element_spec.dtype == tw.int64
    assert Dataset.from_tensors(tw.constant([big])).element_spec.dtype == tw.int64


def test_from_tensors_range_zip_enumerate():
    assert len(_np(Dataset.from_tensors(np.zeros((4, 2))))) == 1
    assert _np(Dataset.range(2, 8, 2)) == [2, 4, 6]
    assert Dataset.range(3).element_spec.dtype == tw.int64
    z = _np(Dataset.zip((Dataset.range(3), Dataset.range(10, 20))))
    assert z == [(0, 10), (1, 11), (2, 12)]
    assert _np(Dataset.range(2).enumerate(start=5)) == [(5, 0), (6, 1)]


_CALLS: list = []


@tw.autograph.experimental.do_not_convert
def _double(x):
    _CALLS.append(1)  # a Python side effect: runs while tracing only
    return x * 2


def test_map_filter_are_traced_once():
    _CALLS.clear()
    ds = Dataset.range(5).map(_double, num_parallel_calls=tw.data.AUTOTUNE)
    assert _np(ds) == [0, 2, 4, 6, 8]
    assert _np(ds) == [0, 2, 4, 6, 8]
    assert len(_CALLS) == 1
    assert _np(Dataset.range(10).filter(lambda x: x % 3 == 0)) == [0, 3, 6, 9]
    pairs = Dataset.from_tensor_slices(([1, 2], [3, 4])).map(lambda a, b: a + b)
    assert _np(pairs) == [4, 6]


def test_batch_drop_remainder_and_cardinality():
    ds = Dataset.range(10).batch(4)
    assert [b.tolist() for b in _np(ds)] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    assert int(ds.cardinality()) == 3
    ds2 = Dataset.range(10).batch(4, drop_remainder=True)
    assert int(ds2.cardinality()) == 2 and len(ds2) == 2
    assert ds2.element_spec.shape.as_list() == [4]
    assert ds.element_spec.shape.as_list() == [None]
    pairs = Dataset.from_tensor_slices((np.zeros((5, 2)), np.arange(5))).batch(2)
    assert [b[0].shape for b in _np(pairs)] == [(2, 2), (2, 2), (1, 2)]
    mapped = Dataset.range(7).map(lambda x: x).batch(3)
    assert [len(b) for b in _np(mapped)] == [3, 3, 1]
    assert [b.tolist() for b in _np(Dataset.range(4).batch(2).unbatch().batch(3))] == \
        [[0, 1, 2], [3]]


def test_shuffle_seeded_reshuffle_and_complete():
    ds = Dataset.range(20).shuffle(20, seed=3)
    a, b = _np(ds), _np(ds)
    assert sorted(a) == list(range(20)) and a != list(range(20))
    assert a != b  # reshuffled each iteration
    again = Dataset.range(20).shuffle(20, seed=3)
    assert _np(again) == a
    fixed = Dataset.range(20).shuffle(5, seed=1, reshuffle_each_iteration=False)
    first = _np(fixed)
    assert _np(fixed) == first and sorted(first) == list(range(20))


def test_repeat_take_skip_prefetch_cache():
    assert _np(Dataset.range(3).repeat(2)) == [0, 1, 2, 0, 1, 2]
    assert int(Dataset.range(3).repeat().cardinality()) == tw.data.INFINITE_CARDINALITY
    assert _np(Dataset.range(3).repeat().take(5)) == [0, 1, 2, 0, 1]
    assert _np(Dataset.range(5).skip(2).prefetch(tw.data.AUTOTUNE)) == [2, 3, 4]
    assert int(Dataset.range(5).filter(lambda x: x > 1).cardinality()) == \
        tw.data.UNKNOWN_CARDINALITY
    count = []

    def g():
        count.append(1)
        yield from range(3)
    cached = Dataset.from_generator(g, output_types=tw.int64).cache()
    assert _np(cached) == [0, 1, 2] and _np(cached) == [0, 1, 2]
    assert len(count) == 1
    with pytest.raises(TypeError):
        len(Dataset.range(3).repeat())


def test_reduce_concatenate_shard_and_single_element():
    assert int(Dataset.range(5).reduce(np.int64(0), lambda s, x: s + x)) == 10
    assert _np(Dataset.range(2).concatenate(Dataset.range(5, 7))) == [0, 1, 5, 6]
    assert _np(Dataset.range(10).shard(3, 1)) == [1, 4, 7]
    assert int(Dataset.from_tensors(np.int64(7)).get_single_element()) == 7


def test_padded_batch():
    ds = Dataset.from_generator(lambda: iter([[1], [2, 3], [4, 5, 6]]),
                                output_types=tw.int32, output_shapes=[None]).padded_batch(2)
    out = _np(ds)
    np.testing.assert_array_equal(out[0], [[1, 0], [2, 3]])
    np.testing.assert_array_equal(out[1], [[4, 5, 6]])


def test_loop_over_dataset_inside_function_makes_a_new_pass_per_call():
    ds = Dataset.from_tensor_slices((np.arange(10, dtype=np.float32), np.arange(10)))
    ds = ds.shuffle(10, seed=4).batch(4)

    @tw.function
    def total(dataset):
        s = tw.constant(0.0)
        n = tw.constant(0, tw.int64)
        first = tw.constant(-1.0)
        for x, y in dataset:
            s += tw.reduce_sum(x)
            n += tw.reduce_sum(y)
            first = tw.where(first < 0, x[0], first)
        return s, n, first

    results = [total(ds) for _ in range(3)]
    for s, n, _ in results:
        assert float(s) == 45.0 and int(n) == 45
    assert len({float(f) for _, _, f in results}) > 1  # reshuffled on every call
    assert total.experimental_get_tracing_count() == 1


def test_unknown_cardinality_loop_in_function_runs_a_while_until_the_end():
    ds = Dataset.range(10).filter(lambda x: x > 3)
    assert int(ds.cardinality()) == -2

    @tw.function
    def f():
        s = tw.constant(0, tw.int64)
        n = tw.constant(0)
        for x in ds:
            s += x
            n += 1
        return s, n

    for _ in range(2):  # each call makes a new pass
        s, n = f()
        assert int(s) == 39 and int(n) == 6
    assert f.experimental_get_tracing_count() == 1
    types = [op.type for op in f.get_concrete_function().graph.get_operations()]
    assert "While" in types or "StatelessWhile" in types


def test_unknown_cardinality_batches_of_varying_size_break_and_empty_in_function():
    xs = np.arange(10, dtype=np.float32)
    ds = Dataset.from_tensor_slices((xs, np.arange(10))).filter(lambda x, y: y % 3 != 0)

    @tw.function
    def total(dataset):
        s = tw.constant(0.0)
        rows = tw.constant(0)
        for x, _ in dataset:
            s += tw.reduce_sum(x)
            rows += tw.shape(x)[0]
        return s, rows

    s, rows = total(ds.batch(4))  # batches of 4 and 2
    assert float(s) == 27.0 and int(rows) == 6
    s, rows = total(ds.filter(lambda x, y: y > 100).batch(4))  # no element at all
    assert float(s) == 0.0 and int(rows) == 0

    @tw.function
    def until():
        s = tw.constant(0, tw.int64)
        for x in Dataset.range(5).repeat():  # infinite: stops at the break
            s += x
            if s > 20:
                break
        return s

    assert int(until()) == 21
