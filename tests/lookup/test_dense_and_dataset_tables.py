"""tw.lookup.experimental.DenseHashTable and the tables built from datasets
(tw.data.experimental.DatasetInitializer, table_from_dataset, index_table_from_dataset)."""
import numpy as np
import pytest

import twinflow as tw


def test_dense_hash_table_reserves_empty_and_deleted_keys():
    t = tw.lookup.experimental.DenseHashTable(tw.int64, tw.int64, default_value=-1,
                                              empty_key=0, deleted_key=-1)
    t.insert([1, 2, 3], [10, 20, 30])
    np.testing.assert_array_equal(t.lookup([1, 5, 3]), [10, -1, 30])
    t.erase(tw.constant([2], tw.int64))
    assert int(t.size()) == 2
    t.insert_or_assign([1], [11])
    np.testing.assert_array_equal(t[tw.constant([1], tw.int64)], [11])
    with pytest.raises(tw.errors.InvalidArgumentError, match="empty_key"):
        t.insert([0], [1])
    with pytest.raises(tw.errors.InvalidArgumentError, match="deleted_key"):
        t.lookup([-1])
    with pytest.raises(tw.errors.InvalidArgumentError, match="cannot be equal"):
        tw.lookup.experimental.DenseHashTable(tw.int64, tw.int64, -1, empty_key=0,
                                              deleted_key=0)

    @tw.function
    def f(k):
        return t.lookup(k)
    np.testing.assert_array_equal(f(tw.constant([3, 4], tw.int64)), [30, -1])


def test_tables_from_datasets_match_tensorflow():
    pairs = tw.data.Dataset.from_tensor_slices((["a", "b"], [1, 2]))
    table = tw.lookup.StaticHashTable(tw.data.experimental.DatasetInitializer(pairs), -1)
    np.testing.assert_array_equal(table.lookup(tw.constant(["b", "z"])), [2, -1])
    t2 = tw.data.experimental.table_from_dataset(pairs, default_value=-1)
    np.testing.assert_array_equal(t2.lookup(tw.constant(["a"])), [1])
    keys = tw.data.Dataset.from_tensor_slices(["x", "y", "z"])
    ids = tw.data.experimental.index_table_from_dataset(keys, num_oov_buckets=2)
    # TensorFlow 2.21 gives [1, 4, 2] ("q" hashes to bucket 1 of 2, after the 3 known ids)
    np.testing.assert_array_equal(ids.lookup(tw.constant(["y", "q", "z"])), [1, 4, 2])
    short = tw.data.experimental.index_table_from_dataset(keys, vocab_size=2)
    np.testing.assert_array_equal(short.lookup(tw.constant(["y", "z"])), [1, -1])
    with pytest.raises(ValueError, match="pairs of scalars"):
        tw.data.experimental.DatasetInitializer(keys)
    with pytest.raises(TypeError, match="key_dtype"):
        tw.data.experimental.table_from_dataset(pairs, default_value=0, key_dtype=tw.int64)
