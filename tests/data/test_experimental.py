"""tw.data.experimental: the functions for Dataset.apply and the helpers programs use."""
from __future__ import annotations

import numpy as np
import pytest

import twinflow as tw

Dataset = tw.data.Dataset
X = tw.data.experimental


def _np(ds):
    return [e.tolist() if isinstance(e, np.ndarray) else e for e in ds.as_numpy_iterator()]


def test_apply_forms_match_the_methods():
    ds = Dataset.range(6)
    assert _np(ds.apply(X.map_and_batch(lambda x: x * 2, 4, num_parallel_calls=2))) == \
        [[0, 2, 4, 6], [8, 10]]
    assert sorted(_np(ds.apply(X.shuffle_and_repeat(6, count=2, seed=1)))) == \
        sorted(list(range(6)) * 2)
    assert _np(ds.apply(X.parallel_interleave(lambda x: Dataset.from_tensors(x).repeat(2),
                                              cycle_length=2))) == [0, 1, 0, 1, 2, 3, 2, 3,
                                                                    4, 5, 4, 5]
    assert _np(ds.apply(X.take_while(lambda x: x < 2))) == [0, 1]
    assert _np(ds.apply(X.enumerate_dataset(1)).take(1)) == [(1, 0)]
    assert _np(ds.apply(X.copy_to_device("/cpu:0")).apply(X.prefetch_to_device("/cpu:0"))) \
        == list(range(6))
    assert _np(X.from_list([[1, 2], [3, 4]])) == [[1, 2], [3, 4]]
    assert _np(X.Counter().take(2)) == [0, 1]
    assert int(X.cardinality(ds)) == 6 and X.get_structure(ds) == ds.element_spec
    assert int(X.get_single_element(Dataset.from_tensors(np.int64(3)))) == 3
    with pytest.raises(tw.errors.FailedPreconditionError, match="expected to contain 7"):
        list(ds.apply(X.assert_cardinality(7)))
    assert int(ds.apply(X.assert_cardinality(6)).cardinality()) == 6


def test_at_pad_to_cardinality_and_optional():
    ds = Dataset.range(5).map(lambda x: x * 3)
    assert int(X.at(ds, 2)) == 6
    with pytest.raises(tw.errors.OutOfRangeError):
        X.at(ds, 9)
    padded = Dataset.from_tensor_slices({"a": np.array([1, 2])}).apply(
        X.pad_to_cardinality(4))
    out = _np(padded)
    assert [int(d["a"]) for d in out] == [1, 2, 0, 0]
    assert [bool(d["valid"]) for d in out] == [True, True, False, False]
    it = iter(Dataset.range(1))
    opt = X.get_next_as_optional(it)
    assert bool(opt.has_value()) and int(opt.get_value()) == 0
    empty = it.get_next_as_optional()
    assert not bool(empty.has_value())
    with pytest.raises(tw.errors.InvalidArgumentError):
        empty.get_value()
    with pytest.raises(tw.errors.OutOfRangeError):
        it.get_next()


def test_group_by_reducer_and_rejection_resample():
    ds = Dataset.range(10)
    reducer = X.Reducer(init_func=lambda k: np.int64(0), reduce_func=lambda s, x: s + x,
                        finalize_func=lambda s: s)
    sums = sorted(int(v) for v in ds.apply(X.group_by_reducer(lambda x: x % 2, reducer))
                  .as_numpy_iterator())
    assert sums == [20, 25]
    labels = Dataset.from_tensor_slices(np.array([0] * 300 + [1] * 100, np.int64)).shuffle(
        400, seed=2)
    out = [int(c) for c, _ in labels.apply(X.rejection_resample(
        lambda x: x, [0.5, 0.5], [0.75, 0.25], seed=3)).as_numpy_iterator()]
    assert out.count(1) == 100 and 70 < out.count(0) < 130  # ~100 of 300 kept
    with pytest.raises(ValueError):
        X.rejection_resample(lambda x: x, [0.5, 0.6])


def test_random_dataset_and_debug_mode():
    a = _np(X.RandomDataset(seed=4).take(3))
    assert a == _np(X.RandomDataset(seed=4).take(3)) and len(set(a)) == 3
    seen = []

    def f(x):
        seen.append(1)
        return x + 1
    try:
        X.enable_debug_mode()
        assert _np(Dataset.range(3).map(f, num_parallel_calls=2)) == [1, 2, 3]
        assert len(seen) == 4  # one trace (for the element_spec), then Python per element
    finally:
        from twinflow.data import structure
        structure.set_debug_mode(False)


def test_batched_features_from_tfrecords(tmp_path):
    for k in range(2):
        with tw.io.TFRecordWriter(str(tmp_path / f"p{k}.tfrecord")) as w:
            for i in range(3):
                w.write(tw.train.Example(features=tw.train.Features(feature={
                    "v": tw.train.Feature(int64_list=tw.train.Int64List(value=[10 * k + i])),
                    "y": tw.train.Feature(float_list=tw.train.FloatList(value=[i]))}))
                    .SerializeToString())
    feats = {"v": tw.io.FixedLenFeature([], tw.int64), "y": tw.io.FixedLenFeature([], tw.float32)}
    ds = X.make_batched_features_dataset(str(tmp_path / "*.tfrecord"), 2, feats,
                                         label_key="y", num_epochs=1, shuffle=False)
    got = [(f["v"].tolist(), y.tolist()) for f, y in ds.as_numpy_iterator()]
    assert got == [([0, 1], [0, 1]), ([2, 10], [2, 0]), ([11, 12], [1, 2])]
    parsed = tw.data.TFRecordDataset(str(tmp_path / "p0.tfrecord")).batch(3).apply(
        X.parse_example_dataset(feats))
    assert [d["v"].tolist() for d in parsed.as_numpy_iterator()] == [[0, 1, 2]]


def _slow(x):
    import time
    time.sleep(0.01)
    return x


def test_profile_names_the_slow_stage():
    from twinflow.data.profile import format_profile, profile
    ds = Dataset.range(10).map(lambda x: tw.numpy_function(_slow, [x], tw.int64)).batch(2)
    rows = profile(ds)
    assert [r.name for r in rows] == ["Batch", "Map", "Range"]
    assert [r.elements for r in rows] == [5, 10, 10]
    slowest = max(rows, key=lambda r: r.self_s)
    assert slowest.name == "Map" and slowest.self_s >= 0.09
    assert "Map" in format_profile(rows)
    assert list(ds.as_numpy_iterator())[0].tolist() == [0, 1]  # the nodes are restored
    assert "_gen" not in vars(ds)


def test_dataset_random_and_rejection_resample():
    def take2(d):
        return [int(v) for v in d.take(2).as_numpy_iterator()]
    assert take2(Dataset.random(seed=3)) == take2(Dataset.random(seed=3))
    fresh = Dataset.random(seed=3, rerandomize_each_iteration=True)
    assert take2(fresh) != take2(fresh)
    pairs = list(Dataset.from_tensor_slices(np.array([0, 1, 1], np.int64))
                 .rejection_resample(lambda x: x, [0.5, 0.5], seed=1).as_numpy_iterator())
    assert all(int(c) == int(e) for c, e in pairs)
