"""The fast eager kernels (ReluGrad, SparseSoftmaxCrossEntropyWithLogits, Mean, BroadcastTo,
SumToShape) give the same bits as their plain NumPy formulations (NaN, inf and -0.0 included).
"""
from __future__ import annotations

import numpy as np
import pytest

import twinflow as tw
from twinflow.ops import array_ops, nn_ops, reduction_ops

_SPECIAL = [np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1.5, -2.5, 1e-30, -1e-30]


def _bits(a):
    a = np.asarray(a)
    return a.view({2: np.uint16, 4: np.uint32, 8: np.uint64}[a.dtype.itemsize])


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_relu_grad_kernel_matches_where_bit_for_bit(dtype):
    grid = np.array(_SPECIAL, dtype)
    dy, y = np.meshgrid(grid, grid)
    want = np.where(y > 0, dy, dtype(0))
    got = nn_ops.ReluGrad.kernel(dy, y)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(_bits(got), _bits(want))
    # Transposed (non-contiguous) inputs and the np.where fallbacks: scalars, broadcasting.
    np.testing.assert_array_equal(_bits(nn_ops.ReluGrad.kernel(dy.T, y.T)), _bits(want.T))
    row = y[:1]
    np.testing.assert_array_equal(_bits(nn_ops.ReluGrad.kernel(dy, row)),
                                  _bits(np.where(row > 0, dy, dtype(0))))
    assert _bits(nn_ops.ReluGrad.kernel(dtype(-0.0), dtype(1))) == _bits(dtype(-0.0))


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("label_dtype", [np.int32, np.int64, np.uint32, np.int16])
def test_sparse_xent_2d_kernel_matches_the_general_one(dtype, label_dtype):
    rng = np.random.default_rng(0)
    logits = rng.normal(size=(12, len(_SPECIAL))).astype(dtype)
    logits[: len(_SPECIAL), :] = np.array(_SPECIAL, dtype)[:, None]  # one special value per row
    logits[1, 3] = np.nan
    labels = rng.integers(0, len(_SPECIAL), size=12).astype(label_dtype)
    got = nn_ops.SparseSoftmaxCrossEntropyWithLogits.kernel(logits, labels)
    want = nn_ops._sparse_xent_nd(logits, labels)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_array_equal(_bits(g), _bits(w))


@pytest.mark.parametrize("threads", [1, 2])
def test_sparse_xent_2d_kernel_in_blocks_of_rows_on_threads(monkeypatch, threads):
    from twinflow.core import config
    from twinflow.ops.nn import losses
    rng = np.random.default_rng(1)
    logits = (rng.normal(size=(67, 31)) * 30).astype(np.float32)
    logits[5, :] = np.array((_SPECIAL * 4)[:31], np.float32)
    labels = rng.integers(0, 31, size=67).astype(np.int32)
    want = nn_ops._sparse_xent_nd(logits, labels)
    # blocks of 3 rows (the last one short), shared over the threads from any size
    monkeypatch.setattr(losses, "XENT_BLOCK_ELEMENTS", 3 * 31)
    monkeypatch.setattr(losses, "XENT_PARALLEL_MIN", 1)
    old = config.threading.get_intra_op_parallelism_threads()
    config.threading.set_intra_op_parallelism_threads(threads)
    try:
        for _ in range(5):
            got = losses._sparse_xent_2d(logits, labels)
            for g, w in zip(got, want):
                assert g.dtype == w.dtype and g.shape == w.shape
                np.testing.assert_array_equal(_bits(g), _bits(w))
    finally:
        config.threading.set_intra_op_parallelism_threads(old)


@pytest.mark.parametrize("bad", [7, -1])
def test_sparse_xent_label_errors_are_the_same_on_both_paths(bad):
    logits = np.zeros((3, 5), np.float32)
    labels = np.array([0, bad, 1], np.int32)
    with pytest.raises(tw.errors.InvalidArgumentError) as fast:
        nn_ops.SparseSoftmaxCrossEntropyWithLogits.kernel(logits, labels)
    with pytest.raises(tw.errors.InvalidArgumentError) as general:
        nn_ops._sparse_xent_nd(logits, labels)
    assert str(fast.value) == str(general.value)
    assert f"label value of {bad}" in str(fast.value)


def test_sparse_xent_with_16_bit_labels_in_a_function():
    logits = tw.constant(np.arange(12, dtype=np.float32).reshape(4, 3) / 7)
    labels = tw.constant(np.array([0, 1, 2, 1], np.int16))

    @tw.function
    def f(lg, lb):
        return tw.nn.sparse_softmax_cross_entropy_with_logits(labels=lb, logits=lg)

    want = tw.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    np.testing.assert_array_equal(f(logits, labels).numpy(), want.numpy())


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.complex64])
@pytest.mark.parametrize("shape, axis, keepdims", [
    ((2000,), (0,), False), ((3, 4, 5), (0, 2), True), ((3, 4, 5), (1,), False),
    ((4, 5), (-1,), False), ((7,), None, False), ((), (), False)])
def test_float_mean_kernel_matches_np_mean_bit_for_bit(dtype, shape, axis, keepdims):
    x = (np.random.default_rng(1).normal(size=shape) * 100).astype(dtype)
    if x.size > 3:
        x.flat[1] = -0.0
        x.flat[2] = np.nan
    got = reduction_ops.Mean.kernel(x, axis=axis, keepdims=keepdims)
    want = np.mean(x, axis=axis, keepdims=keepdims, dtype=x.dtype)
    assert type(got) is type(want) and got.dtype == want.dtype
    assert np.asarray(got).tobytes() == np.asarray(want).tobytes()


@pytest.mark.parametrize("x", [np.float32(-0.0), np.asarray(np.nan), np.bool_(True), np.int8(-3),
                               np.asarray(1 + 2j, np.complex64), np.asarray(b"ab", object),
                               np.ones((1, 3), np.float32)])
def test_broadcast_to_kernel_is_numpys_read_only_view(x):
    for dims in [(), (0,), (3,), (2, 3)]:
        if np.ndim(x) > len(dims) or np.shape(x)[-1:] not in [(), (1,), dims[-1:]]:
            continue
        got = array_ops.BroadcastTo.kernel(x, np.array(dims, np.int32))
        want = np.broadcast_to(x, dims)
        assert got.shape == want.shape and got.dtype == want.dtype
        assert not got.flags.writeable
        assert [repr(v) for v in got.reshape(-1)] == [repr(v) for v in want.reshape(-1)]


@pytest.mark.parametrize("xs, target", [((4, 3), (3,)), ((4, 3), (1, 3)), ((4, 3), (4, 1)),
                                        ((2, 4, 3), ()), ((5,), ()), ((4, 3), (4, 3))])
def test_sum_to_shape_kernel_matches_a_plain_sum(xs, target):
    x = np.random.default_rng(2).normal(size=xs).astype(np.float32)
    lead = len(xs) - len(target)
    axes = tuple(range(lead)) + tuple(i + lead for i, d in enumerate(target)
                                      if d == 1 and xs[i + lead] != 1)
    want = np.sum(x, axis=axes, keepdims=True).reshape(target)
    for _ in range(2):  # the second call finds the axes cached
        got = array_ops.SumToShape.kernel(x, np.array(target, np.int32))
        assert got.shape == want.shape and got.tobytes() == want.tobytes()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape, axis, keepdims", [
    ((32, 26, 26, 16), (0, 1, 2), False), ((32, 24, 24, 16), (1, 2), True),
    ((32, 24, 24, 16), (-3, -2), False), ((4096, 3), 0, False), ((64, 70, 5), (1,), True),
    ((100, 100), (1,), False), ((50, 100, 300), (0,), False), ((7, 8, 100), (0, 2), False)])
def test_add_reduce_over_leading_axes_is_a_close_sum_of_the_same_shape(dtype, shape, axis,
                                                                       keepdims):
    from twinflow.ops.math.fast_reduce import add_reduce
    x = np.random.default_rng(3).normal(size=shape).astype(dtype)
    want = np.add.reduce(x.astype(np.float64), axis=axis, keepdims=keepdims)
    got = add_reduce(x, axis, x.dtype, keepdims)
    assert got.shape == want.shape and got.dtype == x.dtype
    np.testing.assert_allclose(got, want, rtol=1e-4 if dtype == np.float32 else 1e-12,
                               atol=1e-3 if dtype == np.float32 else 1e-10)
    x.flat[5] = np.nan   # NaN and inf still reach the sums they belong to
    x.flat[-1] = np.inf
    got = add_reduce(x, axis, x.dtype, keepdims)
    want = np.add.reduce(x, axis=axis, keepdims=keepdims)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_array_equal(np.isinf(got), np.isinf(want))


def test_add_reduce_keeps_numpy_for_other_cases():
    from twinflow.ops.math.fast_reduce import add_reduce
    x = np.arange(2 * 4096 * 3).reshape(2, 4096, 3)
    assert add_reduce(x, (1,)).tobytes() == np.add.reduce(x, axis=1).tobytes()   # integers
    f = x.astype(np.float32)
    assert add_reduce(f.transpose(1, 0, 2), (0,)).tobytes() == \
        np.add.reduce(f.transpose(1, 0, 2), axis=0).tobytes()                    # a view
    assert add_reduce(f, (2,)).tobytes() == np.add.reduce(f, axis=2).tobytes()   # last axis
    assert add_reduce(f, None).tobytes() == np.add.reduce(f, axis=None).tobytes()
    # a graph and eager agree (one kernel) and bias gradients take the fast path
    dy = tw.constant(np.ones((8, 30, 30, 4), np.float32))
    assert tw.nn.bias_add(dy, tw.zeros([4])).shape == (8, 30, 30, 4)
    assert tw.reduce_sum(dy, axis=[0, 1, 2]).numpy().tolist() == [7200.0] * 4
    f = tw.function(lambda t: tw.reduce_mean(t, axis=[1, 2]))
    np.testing.assert_array_equal(f(dy).numpy(), tw.reduce_mean(dy, axis=[1, 2]).numpy())
