"""tw.function with composite arguments: get_concrete_function of a composite spec,
input_signature with composite specs, and reduce_retracing generalizing composite specs (two
traces, as TensorFlow 2.21 gives, then every row count / dense shape of the same ranks)."""
from __future__ import annotations

import pytest

import twinflow as tw


def test_get_concrete_function_of_ragged_spec():
    f = tw.function(lambda x: tw.reduce_sum(x, axis=1))
    cf = f.get_concrete_function(tw.RaggedTensorSpec([None, None], tw.float32, 1))
    for rows in ([[1.0], [2.0, 3.0]], [[4.0, 5.0, 6.0]], [[], [1.0], [2.0, 2.0]]):
        x = tw.ragged.constant(rows, dtype=tw.float32)
        expected = [sum(r) for r in rows]
        assert cf(x).numpy().tolist() == expected
        assert f(x).numpy().tolist() == expected
    assert f.experimental_get_tracing_count() == 1
    with pytest.raises((TypeError, ValueError)):
        cf(tw.ragged.constant([[1, 2]]))  # int32 does not fit the float32 spec


def test_input_signature_sparse_spec():
    @tw.function(input_signature=[tw.SparseTensorSpec([None, 3], tw.float32)])
    def row_sums(sp):
        return tw.sparse.reduce_sum(sp, axis=1)

    a = tw.sparse.SparseTensor([[0, 1], [1, 2]], [2.0, 5.0], [2, 3])
    b = tw.sparse.SparseTensor([[3, 0]], [1.5], [4, 3])
    assert row_sums(a).numpy().tolist() == [2.0, 5.0]
    assert row_sums(b).numpy().tolist() == [0.0, 0.0, 0.0, 1.5]
    assert row_sums.experimental_get_tracing_count() == 1
    with pytest.raises((TypeError, ValueError)):
        row_sums(tw.sparse.SparseTensor([[0, 0]], [1.0], [2, 4]))  # 4 columns, not 3


def test_reduce_retracing_generalizes_ragged_specs():
    f = tw.function(lambda x: x * 2.0, reduce_retracing=True)
    for n in (2, 3, 4, 5):
        rows = [[1.0] * n, [2.0]] * n
        assert f(tw.ragged.constant(rows)).to_list() == [[2 * v for v in r] for r in rows]
    assert f.experimental_get_tracing_count() == 2
    f(tw.ragged.constant([[[1.0]], [[2.0], [3.0]]]))  # rank 3: a new family, a new trace
    assert f.experimental_get_tracing_count() == 3
    f(tw.ragged.constant([[[1.0]], [[2.0]], []]))
    assert f.experimental_get_tracing_count() == 4
    f(tw.ragged.constant([[[1.0]], [[2.0]], [], [[5.0]]]))
    assert f.experimental_get_tracing_count() == 4


def test_reduce_retracing_generalizes_sparse_specs():
    f = tw.function(lambda x: tw.sparse.reduce_sum(x), reduce_retracing=True)
    for n in (2, 3, 4):
        assert float(f(tw.sparse.SparseTensor([[0, 0]], [1.5], [n, 3]))) == 1.5
    assert f.experimental_get_tracing_count() == 2
    cf = f.get_concrete_function(tw.SparseTensorSpec([None, 3], tw.float32))
    assert cf.structured_input_signature[0][0] == tw.SparseTensorSpec([None, 3], tw.float32)


def test_without_reduce_retracing_each_row_count_traces():
    f = tw.function(lambda x: x * 2.0)
    for n in (2, 3):
        f(tw.ragged.constant([[1.0]] * n))
    assert f.experimental_get_tracing_count() == 2
