"""VarLenFeature, SparseFeature and RaggedFeature parsed into SparseTensor/RaggedTensor, against
what TensorFlow parsed from the same records (tests/fixtures/data/composite_parsed.json, made
by tests/fixtures/data/make_fixtures.py)."""
from __future__ import annotations

import json
import pathlib

import pytest

import twinflow as tw

FIX = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "data"
EXPECT = json.loads((FIX / "composite_parsed.json").read_text())
R = tw.io.RaggedFeature
FEATURES = {
    "var": tw.io.VarLenFeature(tw.int64),
    "words": tw.io.VarLenFeature(tw.string),
    "sp": tw.io.SparseFeature("idx", "val", tw.float32, 6),
    "sp2": tw.io.SparseFeature(["i0", "i1"], "val", tw.float32, [3, 4]),
    "rag": R(tw.float32, value_key="rv"),
    "nested": R(tw.int64, value_key="nv", partitions=[R.RowLengths("lens")]),
    "uniform": R(tw.int64, value_key="uv", row_splits_dtype=tw.int64,
                 partitions=[R.UniformRowLength(1)]),
}


def records() -> list:
    return list(tw.data.TFRecordDataset(str(FIX / "composite_examples.tfrecord"))
                .as_numpy_iterator())


def plain(x):
    if isinstance(x, list):
        return [plain(v) for v in x]
    return x.decode() if isinstance(x, bytes) else x


def describe(v) -> dict:
    if isinstance(v, tw.sparse.SparseTensor):
        return {"indices": v.indices.numpy().tolist(), "values": plain(v.values.numpy().tolist()),
                "dense_shape": v.dense_shape.numpy().tolist()}
    if isinstance(v, tw.RaggedTensor):
        return {"ragged": plain(v.to_list()), "splits_dtype": v.row_splits.dtype.name}
    return {"dense": plain(v.numpy().tolist())}


def test_parse_example_matches_tensorflow_eager_and_in_function():
    recs = records()
    got = {k: describe(v) for k, v in tw.io.parse_example(recs, FEATURES).items()}
    assert got == EXPECT["batch"]
    parse = tw.function(lambda s: tw.io.parse_example(s, FEATURES))
    assert {k: describe(v) for k, v in parse(tw.constant(recs)).items()} == EXPECT["batch"]
    for rec, expect in zip(recs, EXPECT["single"]):
        one = tw.io.parse_single_example(rec, FEATURES)
        assert {k: describe(v) for k, v in one.items()} == expect


def test_parsing_in_dataset_map_gives_composite_elements():
    ds = tw.data.TFRecordDataset(str(FIX / "composite_examples.tfrecord"))
    singles = ds.map(lambda s: tw.io.parse_single_example(s, FEATURES))
    spec = singles.element_spec
    assert spec["sp2"] == tw.SparseTensorSpec([3, 4], tw.float32)
    assert spec["var"] == tw.SparseTensorSpec([None], tw.int64)
    assert spec["rag"] == tw.TensorSpec([None], tw.float32)
    assert isinstance(spec["nested"], tw.RaggedTensorSpec)
    assert [{k: describe(v) for k, v in e.items()} for e in singles] == EXPECT["single"]
    # batching the parsed elements: sparse stays sparse, ragged gains a ragged dimension
    # ("rag" of one example is a dense vector: those of different lengths cannot be batched)
    batched = next(iter(singles.map(lambda e: {"sp": e["sp"], "nested": e["nested"]}).batch(3)))
    assert describe(batched["sp"]) == EXPECT["batch"]["sp"]
    assert describe(batched["nested"])["ragged"] == EXPECT["batch"]["nested"]["ragged"]
    whole = next(iter(ds.batch(3).map(lambda s: tw.io.parse_example(s, FEATURES))))
    assert {k: describe(v) for k, v in whole.items()} == EXPECT["batch"]


def test_composite_parsing_errors():
    def example(**kw):
        return tw.train.Example(features=tw.train.Features(feature={
            k: tw.train.Feature(int64_list=tw.train.Int64List(value=v))
            for k, v in kw.items()})).SerializeToString()
    with pytest.raises(tw.errors.InvalidArgumentError, match="out of bounds"):
        tw.io.parse_single_example(example(i=[7], v=[1]),
                                   {"s": tw.io.SparseFeature("i", "v", tw.int64, 5)})
    with pytest.raises(tw.errors.InvalidArgumentError, match="different lengths"):
        tw.io.parse_single_example(example(i=[1, 2], v=[1]),
                                   {"s": tw.io.SparseFeature("i", "v", tw.int64, 5)})
    with pytest.raises(tw.errors.InvalidArgumentError, match="does not cut 3 values"):
        tw.io.parse_single_example(example(v=[1, 2, 3], n=[1, 1]), {
            "r": R(tw.int64, value_key="v", partitions=[R.RowLengths("n")])})
    with pytest.raises(tw.errors.InvalidArgumentError, match="rows of length 2"):
        tw.io.parse_single_example(example(v=[1, 2, 3]), {
            "r": R(tw.int64, value_key="v", partitions=[R.UniformRowLength(2)])})
    rows = tw.io.parse_example([example(v=[1, 2, 3], s=[0, 1, 3]), example(v=[4], s=[0, 0, 1])],
                               {"r": R(tw.int64, value_key="v", partitions=[
                                   R.RowSplits("s")])})["r"]
    assert rows.to_list() == [[[1], [2, 3]], [[], [4]]]
    with pytest.raises(NotImplementedError, match="dense tensors only"):
        tw.io.parse_sequence_example(example(v=[1]), context_features={
            "v": tw.io.VarLenFeature(tw.int64)})
