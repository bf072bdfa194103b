"""tw.nondifferentiable_batch_function: concurrent calls share one batched run."""
import threading

import numpy as np
import pytest

import twinflow as tw


def test_concurrent_calls_are_batched_and_padded():
    runs = tw.Variable(0)
    sizes = []

    def record(n):
        sizes.append(int(n))
        return np.int32(0)

    @tw.nondifferentiable_batch_function(1, 8, 200000, allowed_batch_sizes=[4, 8])
    def double(x):
        runs.assign_add(1)
        tw.numpy_function(record, [tw.shape(x)[0]], tw.int32)
        return x * 2.0

    out = {}
    barrier = threading.Barrier(6)

    def worker(i):
        barrier.wait()
        out[i] = double(tw.constant([[float(i)]])).numpy()
    threads = [threading.Thread(target=worker, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert {i: float(v[0, 0]) for i, v in out.items()} == {i: 2.0 * i for i in range(6)}
    assert int(runs.numpy()) < 6 and all(s in (4, 8) for s in sizes)  # padded batches
    np.testing.assert_allclose(double(tw.constant([[1.0], [2.0]])), [[2.0], [4.0]])

    @tw.function
    def f(x):
        return double(x) + 1.0
    np.testing.assert_allclose(f(tw.constant([[3.0]])), [[7.0]])


def test_bad_batch_arguments():
    with pytest.raises(tw.errors.InvalidArgumentError, match="max_batch_size"):
        tw.nondifferentiable_batch_function(1, 8, 10, allowed_batch_sizes=[2, 4])(lambda x: x)
    f = tw.nondifferentiable_batch_function(1, 2, 10, enable_large_batch_splitting=False)(
        lambda x: x)
    with pytest.raises(tw.errors.InvalidArgumentError, match="exceeds"):
        f(tw.zeros([3, 1]))
    with pytest.raises(tw.errors.InvalidArgumentError, match="dimension 0"):
        f(tw.zeros([1]), tw.zeros([2]))
