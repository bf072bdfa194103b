"""deterministic=False: parallel map and interleave yield results as they are ready."""
import time
from collections import Counter

import numpy as np

import twinflow as tw
from twinflow.data import Dataset


def slow_source(n: int, delay: float):
    """A dataset of n copies of n, where n == 0 is slow to produce its elements."""
    def gen():
        for _ in range(max(n, 1) if n else 3):
            if n == 0:
                time.sleep(delay)
            yield n
    return Dataset.from_generator(gen, output_signature=tw.TensorSpec([], tw.int64))


def interleave_reference(counts: list) -> Counter:
    return Counter(n for n in counts for _ in range(max(n, 1) if n else 3))


def test_interleave_any_order_lets_fast_inputs_overtake():
    counts = [0, 1, 2, 3]
    ds = Dataset.from_tensor_slices(np.array(counts, np.int64)).interleave(
        lambda n: slow_source(int(n), 0.05), cycle_length=4, num_parallel_calls=4,
        deterministic=False)
    out = [int(x) for x in ds.as_numpy_iterator()]
    assert Counter(out) == interleave_reference(counts)
    # the slow input's elements come last; in order they would come first
    assert out[-3:] == [0, 0, 0] and out[0] != 0
    ordered = Dataset.from_tensor_slices(np.array(counts, np.int64)).interleave(
        lambda n: slow_source(int(n), 0.0), cycle_length=4, num_parallel_calls=4)
    assert [int(x) for x in ordered.as_numpy_iterator()][0] == 0


def test_interleave_any_order_more_inputs_than_cycle_and_errors():
    ds = Dataset.range(10).interleave(
        lambda n: Dataset.range(n).map(lambda x: x + 100 * n), cycle_length=3,
        num_parallel_calls=3, deterministic=False)
    assert Counter(int(x) for x in ds.as_numpy_iterator()) == Counter(
        x + 100 * n for n in range(10) for x in range(n))
    opts = tw.data.Options()
    opts.deterministic = False
    again = Dataset.range(5).interleave(lambda n: Dataset.from_tensors(n), cycle_length=2,
                                        num_parallel_calls=2).with_options(opts)
    assert sorted(int(x) for x in again.as_numpy_iterator()) == list(range(5))

    def bad(n):
        return Dataset.from_tensors(n).map(
            lambda x: tw.debugging.check_numerics(tw.cast(x, tw.float32) / 0.0, "boom"))
    broken = Dataset.range(3).interleave(bad, cycle_length=2, num_parallel_calls=2,
                                         deterministic=False)
    try:
        list(broken.as_numpy_iterator())
    except tw.errors.InvalidArgumentError as e:
        assert "boom" in str(e)
    else:
        raise AssertionError("the worker's error was not raised")


def test_parallel_map_any_order_multiset_and_overtaking():
    def work(x):
        def slow(v):
            time.sleep(0.08 if int(v) == 0 else 0.0)
            return v
        return tw.py_function(slow, [x], tw.int64)
    ds = Dataset.range(6).map(work, num_parallel_calls=3, deterministic=False)
    out = [int(x) for x in ds.as_numpy_iterator()]
    assert sorted(out) == list(range(6)) and out[0] != 0
    ordered = Dataset.range(6).map(work, num_parallel_calls=3)
    assert [int(x) for x in ordered.as_numpy_iterator()] == list(range(6))


def test_any_order_interleave_inside_function():
    ds = Dataset.range(1, 5).interleave(lambda n: Dataset.from_tensors(n).repeat(n),
                                        cycle_length=2, num_parallel_calls=2,
                                        deterministic=False)

    @tw.function
    def total():
        s = tw.constant(0, tw.int64)
        for x in ds:
            s += x * x
        return s
    assert int(total()) == sum(n * n * n for n in range(1, 5))
