"""tw.RaggedTensor and tw.ragged: each op against a plain-Python reference, eagerly and in
tw.function; gradients by finite differences."""
from __future__ import annotations

import numpy as np
import pytest

import twinflow as tw
from tests.ops.composite_check import check, check_grad

ROWS = [[1, 2], [], [3, 4, 5]]
R = ("ragged", ROWS)


def rt(rows=ROWS, dtype=None):
    return tw.ragged.constant(rows, dtype=dtype)


def test_constant_spec_and_repr():
    x = rt()
    assert repr(x) == "<tw.RaggedTensor [[1, 2], [], [3, 4, 5]]>"
    assert x.dtype is tw.int32 and x.ragged_rank == 1 and x.shape.as_list() == [3, None]
    assert repr(x._type_spec) == "RaggedTensorSpec(TensorShape([3, None]), tw.int32, 1, tw.int64)"
    n = tw.ragged.constant([[[1.0, 2.0]], [[3.0, 4.0], [5.0, 6.0]]], ragged_rank=1)
    assert n.ragged_rank == 1 and n.shape.as_list() == [2, None, 2]
    assert tw.ragged.constant([[[1], [2, 3]], [[4]]]).ragged_rank == 2
    with pytest.raises(ValueError, match="private"):
        tw.RaggedTensor(tw.constant([1]), tw.constant([0, 1]))


def test_factories():
    v = tw.constant([1, 2, 3, 4, 5])
    check(lambda: tw.RaggedTensor.from_row_splits(v, [0, 2, 2, 5]), (), R)
    check(lambda: tw.RaggedTensor.from_row_lengths(v, [2, 0, 3]), (), R)
    check(lambda: tw.RaggedTensor.from_value_rowids(v, [0, 0, 2, 2, 2]), (), R)
    check(lambda: tw.RaggedTensor.from_value_rowids(v, [0, 0, 2, 2, 2], nrows=4), (),
          ("ragged", ROWS + [[]]))
    check(lambda: tw.RaggedTensor.from_row_starts(v, [0, 2, 2]), (), R)
    check(lambda: tw.RaggedTensor.from_row_limits(v, [2, 2, 5]), (), R)
    nested = [[[1], [2, 3]], [], [[4, 5, 6]]]
    flat = tw.constant([1, 2, 3, 4, 5, 6])
    check(lambda: tw.RaggedTensor.from_nested_row_splits(flat, [[0, 2, 2, 3], [0, 1, 3, 6]]),
          (), ("ragged", nested))
    check(lambda: tw.RaggedTensor.from_nested_row_lengths(flat, [[2, 0, 1], [1, 2, 3]]), (),
          ("ragged", nested))
    check(lambda: tw.RaggedTensor.from_nested_value_rowids(flat, [[0, 0, 2], [0, 1, 1, 2, 2, 2]]),
          (), ("ragged", nested))
    with pytest.raises(ValueError, match="valid RaggedTensor"):
        tw.RaggedTensor.from_row_splits(v, [0, 2, 1, 5])


def test_to_tensor_from_tensor():
    check(lambda: rt().to_tensor(), (), [[1, 2, 0], [0, 0, 0], [3, 4, 5]])
    check(lambda: rt().to_tensor(default_value=9, shape=[2, 4]), (), [[1, 2, 9, 9], [9] * 4])
    check(lambda: rt().to_tensor(shape=[None, 2]), (), [[1, 2], [0, 0], [3, 4]])
    dense = tw.constant([[1, 2, 0], [3, 0, 0], [0, 0, 0]])
    check(lambda: tw.RaggedTensor.from_tensor(dense, padding=0), (), ("ragged", [[1, 2], [3], []]))
    check(lambda: tw.RaggedTensor.from_tensor(dense, lengths=[1, 3, 0]), (),
          ("ragged", [[1], [3, 0, 0], []]))
    check(lambda: tw.RaggedTensor.from_tensor(dense), (), ("ragged", dense.numpy().tolist()))
    x = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    check_grad(lambda v: tw.reduce_sum(tw.RaggedTensor.from_row_splits(v, [0, 2, 2, 5])
                                       .to_tensor(shape=[3, 4]) * tw.constant(
                                           np.arange(12.0).reshape(3, 4))), x)
    check_grad(lambda d: tw.reduce_sum(tw.RaggedTensor.from_tensor(d, lengths=[1, 2]).flat_values
                                       ** 2), np.arange(6.0).reshape(2, 3))


def test_partitions_and_shape():
    x = rt()
    assert x.row_lengths().numpy().tolist() == [2, 0, 3]
    assert x.value_rowids().numpy().tolist() == [0, 0, 2, 2, 2]
    assert x.row_starts().numpy().tolist() == [0, 2, 2]
    assert x.row_limits().numpy().tolist() == [2, 2, 5]
    assert int(x.nrows()) == 3
    n = tw.ragged.constant([[[1], [2, 3]], [], [[4, 5, 6]]])
    assert [s.numpy().tolist() for s in n.nested_row_splits] == [[0, 2, 2, 3], [0, 1, 3, 6]]
    assert n.row_lengths(axis=2).to_list() == [[1, 2], [], [3]]
    check(lambda: n.bounding_shape(), (), [3, 2, 3])
    check(lambda: n.merge_dims(1, 2), (), ("ragged", [[1, 2, 3], [], [4, 5, 6]]))
    check(lambda: n.merge_dims(0, 1), (), ("ragged", [[1], [2, 3], [4, 5, 6]]))
    check(lambda: n.merge_dims(0, 2), (), [1, 2, 3, 4, 5, 6])
    check(lambda: x.with_values(x.values * 10), (), ("ragged", [[10, 20], [], [30, 40, 50]]))
    check(lambda: n.with_flat_values(n.flat_values + 1), (),
          ("ragged", [[[2], [3, 4]], [], [[5, 6, 7]]]))
    assert x.with_row_splits_dtype(tw.int32).row_splits.dtype is tw.int32
    sp = x.to_sparse()
    assert sp.indices.numpy().tolist() == [[0, 0], [0, 1], [2, 0], [2, 1], [2, 2]]
    assert tw.RaggedTensor.from_sparse(sp).to_list() == ROWS


def test_indexing():
    x = rt()
    check(lambda: x[0], (), [1, 2])
    check(lambda: x[-1], (), [3, 4, 5])
    check(lambda: x[1:], (), ("ragged", ROWS[1:]))
    check(lambda: x[::-1], (), ("ragged", ROWS[::-1]))
    check(lambda: x[:, :2], (), ("ragged", [r[:2] for r in ROWS]))
    check(lambda: x[:, -1:], (), ("ragged", [r[-1:] for r in ROWS]))
    check(lambda: x[::2, 0], (), [1, 3])
    n = tw.ragged.constant([[[1], [2, 3]], [], [[4, 5, 6]]])
    check(lambda: n[:, :, :1], (), ("ragged", [[[1], [2]], [], [[4]]]))
    with pytest.raises(tw.errors.InvalidArgumentError, match="out of range"):
        x[:, 0]
    with pytest.raises(tw.errors.InvalidArgumentError, match="out of range"):
        x[3]
    check_grad(lambda v: tw.reduce_sum(tw.RaggedTensor.from_row_splits(v, [0, 2, 2, 5])[:, :1]
                                       .flat_values * 3.0), np.arange(5.0))


def test_elementwise_and_map_flat_values():
    f = rt([[1.0, 2.0], [], [3.0]])
    check(lambda: f * 2.0 + 1.0, (), ("ragged", [[3.0, 5.0], [], [7.0]]))
    check(lambda: 1.0 - f, (), ("ragged", [[0.0, -1.0], [], [-2.0]]))
    check(lambda: f + f, (), ("ragged", [[2.0, 4.0], [], [6.0]]))
    check(lambda: -f, (), ("ragged", [[-1.0, -2.0], [], [-3.0]]))
    check(lambda: f > 1.5, (), ("ragged", [[False, True], [], [True]]))
    check(lambda: tw.ragged.map_flat_values(tw.square, f), (), ("ragged", [[1.0, 4.0], [], [9.0]]))
    with pytest.raises(ValueError, match="row partitions"):
        f + rt([[1.0], [2.0, 3.0], []])
    with pytest.raises(ValueError, match="cannot be broadcast"):
        f * tw.ones([3, 2])
    check_grad(lambda v: tw.reduce_sum(tw.ragged.map_flat_values(
        tw.sin, tw.RaggedTensor.from_row_lengths(v, [2, 1])).flat_values), np.arange(3.0))


def test_range_boolean_mask_partitions_segment_ids():
    check(lambda: tw.ragged.range([3, 5]), (), ("ragged", [list(range(3)), list(range(5))]))
    check(lambda: tw.ragged.range([0, 1], [3, 9], [2, 3]), (),
          ("ragged", [list(range(0, 3, 2)), list(range(1, 9, 3))]))
    check(lambda: tw.ragged.range(3, 0, -1), (), ("ragged", [[3, 2, 1]]))
    check(lambda: tw.ragged.range([1.5], 3.0), (), ("ragged", [[1.5, 2.5]]))
    x = rt()
    mask = tw.ragged.constant([[True, False], [], [False, True, True]])
    check(lambda: tw.ragged.boolean_mask(x, mask), (), ("ragged", [[1], [], [4, 5]]))
    check(lambda: tw.ragged.boolean_mask(x, [True, False, True]), (),
          ("ragged", [ROWS[0], ROWS[2]]))
    check(lambda: tw.ragged.boolean_mask([[1, 2], [3, 4]], [[True, False], [True, True]]), (),
          ("ragged", [[1], [3, 4]]))
    check(lambda: tw.ragged.stack_dynamic_partitions([10, 20, 30, 40], [1, 0, 1, 3], 4), (),
          ("ragged", [[20], [10, 30], [], [40]]))
    check(lambda: tw.ragged.row_splits_to_segment_ids([0, 2, 2, 5]), (), [0, 0, 2, 2, 2])
    check(lambda: tw.ragged.segment_ids_to_row_splits([0, 0, 2]), (), [0, 2, 2, 3])


def test_stack():
    a, b = rt([[1], [2, 3]]), rt([[4, 5], []])
    check(lambda: tw.ragged.stack([a, b]), (), ("ragged", [[[1], [2, 3]], [[4, 5], []]]))
    check(lambda: tw.ragged.stack([a, b], axis=1), (), ("ragged", [[[1], [4, 5]], [[2, 3], []]]))


def test_dense_functions_dispatch_ragged_arguments():
    x = rt([[1.0, 2.0], [3.0], []])
    check(lambda: tw.reduce_sum(x, axis=1), (), [3.0, 3.0, 0.0])
    check(lambda: tw.reduce_mean(x, axis=1)[:2], (), [1.5, 3.0])
    check(lambda: tw.reduce_max(x, axis=0), (), [3.0, 2.0])
    check(lambda: tw.reduce_sum(x), (), 6.0)
    check(lambda: tw.reduce_any(x > 2.5, axis=1), (), [False, True, False])
    check(lambda: tw.concat([x, x], 0), (), ("ragged", [[1.0, 2.0], [3.0], []] * 2))
    check(lambda: tw.concat([x, x], 1), (), ("ragged", [[1.0, 2.0, 1.0, 2.0], [3.0, 3.0], []]))
    check(lambda: tw.stack([x, x], 1), (),
          ("ragged", [[[1.0, 2.0], [1.0, 2.0]], [[3.0], [3.0]], [[], []]]))
    check(lambda: tw.gather(x, [2, 0]), (), ("ragged", [[], [1.0, 2.0]]))
    check(lambda: tw.gather(tw.constant([10.0, 20.0, 30.0]), tw.ragged.constant([[2], [0, 1]])),
          (), ("ragged", [[30.0], [10.0, 20.0]]))
    check(lambda: tw.tile(x, [2, 2]), (),
          ("ragged", [[1.0, 2.0, 1.0, 2.0], [3.0, 3.0], []] * 2))
    check(lambda: tw.expand_dims(x, 0), (), ("ragged", [[[1.0, 2.0], [3.0], []]]))
    check(lambda: (tw.size(x), tw.rank(x)), (), (3, 2))
    with pytest.raises(TypeError, match=r"x.to_tensor\(\)"):
        tw.matmul(x, x)
    check_grad(lambda v: tw.reduce_sum(tw.reduce_max(tw.RaggedTensor.from_row_lengths(
        v, [2, 1, 2]), axis=1) ** 2), np.array([1.0, 4.0, 2.0, -1.0, 3.0]))
    check_grad(lambda v: tw.reduce_sum(tw.reduce_mean(tw.RaggedTensor.from_row_lengths(
        v, [2, 1, 2]), axis=0) ** 2), np.array([1.0, 4.0, 2.0, -1.0, 3.0]))


def test_public_elementwise_functions_dispatch_to_flat_values():
    x = rt([[1.0, 4.0], [9.0], []])
    check(lambda: tw.add(x, 1.0), (), ("ragged", [[2.0, 5.0], [10.0], []]))
    check(lambda: tw.math.sqrt(x), (), ("ragged", [[1.0, 2.0], [3.0], []]))
    check(lambda: tw.maximum(x, 3.0), (), ("ragged", [[3.0, 4.0], [9.0], []]))
    check(lambda: tw.abs(-x), (), ("ragged", [[1.0, 4.0], [9.0], []]))
    check(lambda: tw.cast(x, tw.int32), (), ("ragged", [[1, 4], [9], []]))
    check(lambda: tw.where(x > 2.0, x, -x), (), ("ragged", [[-1.0, 4.0], [9.0], []]))
    check(lambda: tw.equal(x, 4.0), (), ("ragged", [[False, True], [False], []]))
    check_grad(lambda v: tw.reduce_sum(tw.math.exp(tw.RaggedTensor.from_row_lengths(
        v, [2, 1])).flat_values), np.array([0.1, 0.2, 0.3]))
    check(lambda: tw.add(x, tw.constant([[10.0], [20.0], [30.0]])), (),
          ("ragged", [[11.0, 14.0], [29.0], []]))
    with pytest.raises(ValueError, match="cannot be broadcast"):
        tw.add(x, tw.ones([3, 2]))
    with pytest.raises(TypeError, match="to_dense"):
        tw.add(tw.sparse.eye(2), 1.0)
