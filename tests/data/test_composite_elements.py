"""RaggedTensor and SparseTensor elements in tw.data, against plain-Python lists."""
import numpy as np
import pytest

import twinflow as tw
from twinflow.data import Dataset

ROWS = [[1, 2], [3], [4, 5, 6], [], [7]]


def ragged(rows=ROWS):
    return tw.ragged.constant(rows, dtype=tw.int32)


def batches(items, n):
    return [items[i:i + n] for i in range(0, len(items), n)]


def dense_of(sp):
    out = np.zeros(sp.dense_shape.numpy(), sp.values.dtype.np)
    for idx, v in zip(sp.indices.numpy(), sp.values.numpy()):
        out[tuple(idx)] = v
    return out


def in_function(ds, step):
    """The list of ``step(element)`` values computed by a loop inside tw.function."""
    @tw.function
    def run():
        out = tw.TensorArray(tw.int32, size=0, dynamic_size=True)
        i = 0
        for x in ds:
            out = out.write(i, step(x))
            i += 1
        return out.stack()
    return run().numpy().tolist()


def test_slices_of_ragged_and_their_spec():
    ds = Dataset.from_tensor_slices(ragged())
    assert ds.element_spec == tw.RaggedTensorSpec([None], tw.int32, 0, tw.int64)
    assert [x.tolist() for x in ds.as_numpy_iterator()] == ROWS
    assert in_function(ds, lambda x: tw.reduce_sum(x)) == [sum(r) for r in ROWS]


def test_batch_of_ragged_is_ragged_and_unbatch_undoes_it():
    b = Dataset.from_tensor_slices(ragged()).batch(2)
    assert b.element_spec == tw.RaggedTensorSpec([None, None], tw.int32, 1, tw.int64)
    assert [x.to_list() for x in b] == batches(ROWS, 2)
    # two ragged levels: batch of batches
    bb = b.batch(2)
    assert bb.element_spec.ragged_rank == 2
    assert [x.to_list() for x in bb] == batches(batches(ROWS, 2), 2)
    assert [x.to_list() for x in bb.unbatch()] == batches(ROWS, 2)
    assert [x.tolist() for x in b.unbatch().as_numpy_iterator()] == ROWS
    assert in_function(b, lambda x: tw.reduce_sum(x.flat_values)) == [
        sum(sum(r) for r in rows) for rows in batches(ROWS, 2)]


def test_from_tensors_and_map_returning_ragged():
    whole = Dataset.from_tensors(ragged())
    assert whole.element_spec == tw.RaggedTensorSpec([5, None], tw.int32, 1, tw.int64)
    assert [x.to_list() for x in whole] == [ROWS]
    doubled = whole.map(lambda r: r * 2)
    assert [x.to_list() for x in doubled] == [[[2 * v for v in r] for r in ROWS]]
    made = Dataset.range(4).map(lambda n: tw.RaggedTensor.from_row_lengths(
        tw.range(n), [n // 2, n - n // 2]))
    assert isinstance(made.element_spec, tw.RaggedTensorSpec)
    expect = [[list(range(n // 2)), list(range(n // 2, n))] for n in range(4)]
    assert [x.to_list() for x in made] == expect
    assert in_function(made, lambda r: tw.cast(r.row_lengths()[1], tw.int32)) == [
        n - n // 2 for n in range(4)]


def test_ragged_batch_of_dense_elements():
    ds = Dataset.range(1, 5).map(lambda n: tw.range(n))
    rb = ds.ragged_batch(3)
    assert rb.element_spec == tw.RaggedTensorSpec([None, None], tw.int64, 1, tw.int64)
    assert [x.to_list() for x in rb] == batches([list(range(n)) for n in range(1, 5)], 3)
    assert Dataset.range(3).ragged_batch(2).element_spec == tw.TensorSpec([None], tw.int64)
    rows32 = Dataset.from_tensor_slices([[1, 2], [3, 4]]).ragged_batch(
        2, drop_remainder=True, row_splits_dtype=tw.int32)
    # (as TF: the rows keep their static length 2, the dimension is still a ragged one)
    assert rows32.element_spec == tw.RaggedTensorSpec([2, 2], tw.int32, 1, tw.int32)
    assert [x.to_list() for x in rows32] == [[[1, 2], [3, 4]]]
    with pytest.raises(tw.errors.InvalidArgumentError):
        Dataset.range(3).ragged_batch(0)


def test_ragged_batch_after_a_shuffle_keeps_the_shuffled_order():
    # batch's fast path slices a shuffled from_tensor_slices dataset; ragged_batch (no fast
    # path) must still iterate the shuffle, not the slices under it.
    rows = np.arange(16).reshape(8, 2)
    shuffled = Dataset.from_tensor_slices(rows).shuffle(8, seed=3,
                                                        reshuffle_each_iteration=False)
    dense = next(iter(shuffled.batch(8))).numpy()
    ragged = next(iter(shuffled.ragged_batch(8))).to_list()
    assert sorted(map(tuple, dense)) == sorted(map(tuple, rows))
    assert not np.array_equal(dense, rows)
    assert ragged == dense.tolist()


def test_sparse_slices_batch_and_sparse_batch():
    dense = np.array([[0, 1, 0, 0], [0, 0, 0, 0], [2, 0, 0, 3]], np.float32)
    sp = tw.sparse.from_dense(dense)
    ds = Dataset.from_tensor_slices(sp)
    assert ds.element_spec == tw.SparseTensorSpec([4], tw.float32)
    assert [dense_of(x).tolist() for x in ds] == dense.tolist()
    b = ds.batch(2)
    assert b.element_spec == tw.SparseTensorSpec([None, 4], tw.float32)
    assert [dense_of(x).tolist() for x in b] == [dense[:2].tolist(), dense[2:].tolist()]
    assert [dense_of(x).tolist() for x in b.unbatch()] == dense.tolist()
    assert in_function(b, lambda x: tw.cast(tw.sparse.reduce_sum(x), tw.int32)) == [1, 5]

    elems = [[1, 2], [3], [0, 4, 5]]
    sb = Dataset.from_generator(lambda: iter(elems), output_signature=tw.TensorSpec(
        [None], tw.int32)).sparse_batch(2, [4])
    assert sb.element_spec == tw.SparseTensorSpec([None, 4], tw.int32)
    got = list(sb)
    # every entry of an element is stored, zeros included (as TF's dense_to_sparse_batch)
    assert got[1].indices.numpy().tolist() == [[0, 0], [0, 1], [0, 2]]
    expect = [[e + [0] * (4 - len(e)) for e in chunk] for chunk in batches(elems, 2)]
    assert [dense_of(x).tolist() for x in got] == expect
    with pytest.raises(tw.errors.InvalidArgumentError, match="row_shape"):
        list(Dataset.from_tensors([1, 2, 3]).sparse_batch(1, [2]))


def test_composites_through_shuffle_filter_and_padded_batch_refusal():
    ds = Dataset.from_tensor_slices((ragged(), np.arange(5)))
    kept = ds.filter(lambda r, i: i % 2 == 0).map(lambda r, i: (r + 1, i))
    assert [(r.tolist(), int(i)) for r, i in kept.as_numpy_iterator()] == [
        ([v + 1 for v in ROWS[i]], i) for i in (0, 2, 4)]
    shuffled = [x.tolist() for x in Dataset.from_tensor_slices(ragged()).shuffle(
        5, seed=1).as_numpy_iterator()]
    assert sorted(map(tuple, shuffled)) == sorted(map(tuple, ROWS))
    with pytest.raises(TypeError, match="ragged and sparse"):
        Dataset.from_tensor_slices(ragged()).padded_batch(2)


def test_save_load_and_snapshot_of_composite_elements(tmp_path):
    ds = Dataset.from_tensor_slices(ragged()).batch(2)
    ds.save(str(tmp_path / "saved"))
    loaded = Dataset.load(str(tmp_path / "saved"))
    assert loaded.element_spec == ds.element_spec
    assert [x.to_list() for x in loaded] == batches(ROWS, 2)
    dense = np.array([[1, 0], [0, 2]], np.int32)
    pairs = Dataset.from_tensor_slices((tw.sparse.from_dense(dense),
                                        tw.ragged.constant([["a"], ["b", "c"]])))
    expect = [(dense[i].tolist(), w) for i, w in enumerate([[b"a"], [b"b", b"c"]])]
    for _ in range(2):  # written on the first pass, read back on the second
        snap = pairs.snapshot(str(tmp_path / "snap"))
        assert [(dense_of(s).tolist(), w.tolist()) for s, w in snap.as_numpy_iterator()] == expect
