"""tw.lookup: tables eagerly and in tw.function, initializers, errors (checked against TF 2.21)."""
import numpy as np
import pytest

import twinflow as tw
from twinflow.core import errors


def _table(default=-1):
    init = tw.lookup.KeyValueTensorInitializer(["a", "b"], [1, 2])
    return tw.lookup.StaticHashTable(init, default)


def test_static_hash_table_eager():
    t = _table()
    np.testing.assert_array_equal(t.lookup(tw.constant(["a", "c", "b"])).numpy(), [1, -1, 2])
    assert t.lookup(tw.constant(["a"])).dtype == tw.int32
    assert int(t.size()) == 2 and t.size().dtype == tw.int64
    assert int(t.default_value) == -1
    assert t.key_dtype == tw.string and t.value_dtype == tw.int32


@pytest.mark.parametrize("kd", [tw.int32, tw.int64])
def test_integer_keys_in_function(kd):
    init = tw.lookup.KeyValueTensorInitializer(tw.constant([3, 5], kd),
                                               tw.constant([0.5, 1.5]))
    t = tw.lookup.StaticHashTable(init, 9.0)

    @tw.function
    def f(x):
        return t.lookup(x)
    out = f(tw.constant([[5, 4], [3, 3]], kd))
    assert out.shape == (2, 2) and out.dtype == tw.float32
    np.testing.assert_array_equal(out.numpy(), [[1.5, 9.0], [0.5, 0.5]])
    spec = f.get_concrete_function(tw.TensorSpec([None, 2], kd)).outputs[0]
    assert spec.shape.as_list() == [None, 2]


def test_scalar_keys_and_dataset_map():
    t = _table()
    ds = tw.data.Dataset.from_tensor_slices(["a", "b", "c"]).map(t.lookup)
    assert [int(x) for x in ds] == [1, 2, -1]
    assert int(t["b"]) == 2
    strings = tw.lookup.StaticHashTable(tw.lookup.KeyValueTensorInitializer([1], ["one"]), "?")
    assert strings.lookup(tw.constant(2)).numpy() == b"?"
    m = tw.lookup.experimental.MutableHashTable(tw.int64, tw.string, "")
    m.insert(tw.constant(4, tw.int64), tw.constant("four"))
    assert m.lookup(tw.constant(4, tw.int64)).numpy() == b"four"
    m.remove(tw.constant(4, tw.int64))
    assert int(m.size()) == 0


def test_key_dtype_mismatch_is_type_error():
    t = _table()
    with pytest.raises(TypeError, match="Dtype of argument `keys` must be"):
        t.lookup(tw.constant([1]))

    @tw.function
    def f(x):
        return t.lookup(x)
    with pytest.raises(TypeError, match="keys"):
        f(tw.constant([1]))


def test_conflicting_duplicate_keys_and_bad_initializer():
    with pytest.raises(errors.FailedPreconditionError, match="different value"):
        tw.lookup.StaticHashTable(tw.lookup.KeyValueTensorInitializer(["a", "a"], [1, 2]), -1)
    with pytest.raises(ValueError, match="2 keys but 1 values"):
        tw.lookup.KeyValueTensorInitializer(["a", "b"], [1])
    with pytest.raises(TypeError, match="keys of dtype"):
        tw.lookup.KeyValueTensorInitializer([1.0], [1])


def test_text_file_initializer(tmp_path):
    p = tmp_path / "vocab.txt"
    p.write_text("aa\tx\nbb\ty\n")
    by_line = tw.lookup.TextFileInitializer(str(p), tw.string, 0, tw.int64,
                                            tw.lookup.TextFileIndex.LINE_NUMBER)
    t = tw.lookup.StaticHashTable(by_line, -1)
    np.testing.assert_array_equal(t.lookup(tw.constant(["bb", "q", "aa"])).numpy(), [1, -1, 0])
    cols = tw.lookup.TextFileInitializer(p, tw.string, 0, tw.string, 1)
    t2 = tw.lookup.StaticHashTable(cols, "?")
    assert t2.lookup(tw.constant(["bb", "q"])).numpy().tolist() == [b"y", b"?"]
    whole = tw.lookup.TextFileInitializer(p, tw.string, tw.lookup.TextFileIndex.WHOLE_LINE,
                                          tw.int64, tw.lookup.TextFileIndex.LINE_NUMBER)
    assert int(tw.lookup.StaticHashTable(whole, -1).lookup(tw.constant("bb\ty"))) == 1
    with pytest.raises(errors.NotFoundError):
        tw.lookup.StaticHashTable(tw.lookup.TextFileInitializer(
            tmp_path / "none.txt", tw.string, 0, tw.int64, -1), -1)
    with pytest.raises(errors.InvalidArgumentError, match="columns"):
        tw.lookup.StaticHashTable(tw.lookup.TextFileInitializer(p, tw.string, 3, tw.int64, -1),
                                  -1)
    with pytest.raises(ValueError, match="LINE_NUMBER needs int64"):
        tw.lookup.TextFileInitializer(p, tw.string, 0, tw.int32, -1)


def test_static_vocabulary_table():
    init = tw.lookup.KeyValueTensorInitializer(["a", "b"], tw.constant([0, 1], tw.int64))
    v = tw.lookup.StaticVocabularyTable(init, 3)
    ids = v.lookup(tw.constant(["a", "zz", "qq", "b", "zz"])).numpy()
    np.testing.assert_array_equal(ids, [0, 3, 2, 1, 3])  # TF 2.21's ids (Fingerprint64 buckets)
    assert int(v.size()) == 5

    @tw.function
    def f(x):
        return v.lookup(x)
    np.testing.assert_array_equal(f(tw.constant(["a", "zz", "qq", "b", "zz"])).numpy(), ids)
    ints = tw.lookup.StaticVocabularyTable(tw.lookup.KeyValueTensorInitializer(
        tw.constant([5, 7], tw.int64), tw.constant([0, 1], tw.int64)), 4)
    got = ints.lookup(tw.constant([5, 9, 10, 7], tw.int64)).numpy()
    np.testing.assert_array_equal(got, [0, 3, 4, 1])  # TF 2.21's ids
    with pytest.raises(TypeError, match="must be"):
        ints.lookup(tw.constant([5]))
    with pytest.raises(ValueError, match="num_oov_buckets"):
        tw.lookup.StaticVocabularyTable(init, 0)
    with pytest.raises(TypeError, match="value_dtype"):
        tw.lookup.StaticVocabularyTable(tw.lookup.KeyValueTensorInitializer(["a"], [1]), 1)


def test_mutable_hash_table_eager_and_function():
    m = tw.lookup.experimental.MutableHashTable(tw.string, tw.int64, -1)
    m.insert(tw.constant(["x", "y"]), tw.constant([1, 2], tw.int64))
    np.testing.assert_array_equal(m.lookup(tw.constant(["x", "z"])).numpy(), [1, -1])
    m.remove(tw.constant(["x"]))
    keys, values = m.export()
    assert keys.numpy().tolist() == [b"y"] and values.numpy().tolist() == [2]

    @tw.function
    def put_then_get(k, v):
        m.insert(k, v)
        return m.lookup(k), m.size()
    got, size = put_then_get(tw.constant(["p", "q"]), tw.constant([7, 8], tw.int64))
    np.testing.assert_array_equal(got.numpy(), [7, 8])
    assert int(size) == 3
    with pytest.raises(TypeError, match="`values` must be"):
        m.insert(tw.constant(["x"]), tw.constant([1]))
    with pytest.raises(errors.InvalidArgumentError, match="shape"):
        m.insert(tw.constant(["x", "y"]), tw.constant([1], tw.int64))


def test_saved_model_refuses_tables(tmp_path):
    t = _table()

    class Tracked(tw.Module):
        def __init__(self):
            super().__init__()
            self.table = t

        @tw.function(input_signature=[tw.TensorSpec([None], tw.string)])
        def f(self, x):
            return self.table.lookup(x)

    class Captured(tw.Module):
        @tw.function(input_signature=[tw.TensorSpec([None], tw.string)])
        def f(self, x):
            return t.lookup(x)
    with pytest.raises(ValueError, match="TrackableResource"):
        tw.saved_model.save(Tracked(), str(tmp_path / "a"))
    with pytest.raises(ValueError, match="tw.lookup table"):
        tw.saved_model.save(Captured(), str(tmp_path / "b"))


def test_eager_lookups_do_not_grow_memory():
    # Each lookup/size/insert runs a numpy_function whose Python function held the table: the
    # function table kept every one of them (and so every table) alive.
    import gc
    import weakref

    from twinflow.ops import script_ops
    gc.collect()
    before = len(script_ops._FUNCS)
    init = tw.lookup.KeyValueTensorInitializer(["a", "b"], [1, 2])
    refs = []
    for _ in range(1_000):
        t = tw.lookup.StaticHashTable(init, -1)
        assert int(t.lookup(tw.constant(["b"]))[0]) == 2 and int(t.size()) == 2
        m = tw.lookup.experimental.MutableHashTable(tw.string, tw.int64, -1)
        m.insert(tw.constant(["x"]), tw.constant([3], tw.int64))
        assert int(m.lookup(tw.constant(["x"]))[0]) == 3
        refs.append(weakref.ref(t))
    del t, m
    gc.collect()
    assert len(script_ops._FUNCS) <= before + 1
    assert all(r() is None for r in refs)
