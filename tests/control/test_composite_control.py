"""Composite values (RaggedTensor, SparseTensor) through cond, while_loop and map_fn, eagerly
and inside tw.function."""
from __future__ import annotations

import numpy as np

import twinflow as tw


def rt():
    return tw.ragged.constant([[1.0, 2.0], [3.0], []])


def both(fn, *args):
    return fn(*args), tw.function(fn, autograph=False)(*args)


def test_cond_returns_composites():
    def f(x, p):
        return tw.cond(p, lambda: x * 2.0, lambda: x + 1.0)

    for out in both(f, rt(), tw.constant(True)):
        assert out.to_list() == [[2.0, 4.0], [6.0], []]
    for out in both(f, rt(), tw.constant(False)):
        assert out.to_list() == [[2.0, 3.0], [4.0], []]


def test_while_loop_with_ragged_variable_that_grows():
    def f(x):
        def body(i, r):
            lens = r.row_lengths()
            grown = tw.RaggedTensor.from_row_lengths(
                tw.concat([r.flat_values, [9.0]], 0),
                tw.concat([lens[:-1], lens[-1:] + 1], 0))
            return i + 1, grown
        return tw.while_loop(lambda i, r: i < 2, body, (0, x))[1]

    for out in both(f, rt()):
        assert out.to_list() == [[1.0, 2.0], [3.0], [9.0, 9.0]]


def test_while_loop_with_sparse_variable():
    def f(s):
        return tw.while_loop(lambda i, s: i < 3, lambda i, s: (i + 1, s * 2.0), (0, s))[1]

    for out in both(f, tw.sparse.eye(2)):
        assert out.values.numpy().tolist() == [8.0, 8.0]


def test_map_fn_over_ragged_rows_and_to_ragged_rows():
    def sums(x):
        return tw.map_fn(tw.reduce_sum, x, fn_output_signature=tw.float32)

    for out in both(sums, rt()):
        assert out.numpy().tolist() == [3.0, 3.0, 0.0]
    spec = tw.RaggedTensorSpec(shape=[None], dtype=tw.int32, ragged_rank=0)

    def ranges(n):
        return tw.map_fn(lambda k: tw.range(k), n, fn_output_signature=spec)

    for out in both(ranges, tw.constant([1, 3, 2])):
        assert out.to_list() == [[0], [0, 1, 2], [0, 1]]
    nested = tw.RaggedTensorSpec(shape=[None, None], dtype=tw.float32, ragged_rank=1)

    def pairs(x):
        return tw.map_fn(lambda r: tw.RaggedTensor.from_row_lengths(r, [1, 1]), x,
                         fn_output_signature=nested)

    for out in both(pairs, tw.constant(np.arange(4.0).reshape(2, 2), tw.float32)):
        assert out.to_list() == [[[0.0], [1.0]], [[2.0], [3.0]]]
