"""VarLenFeature, SparseFeature and RaggedFeature parsed into SparseTensor/RaggedTensor, against
what TensorFlow parsed from the same records (tests/fixtures/data/composite_parsed.json, made
by tests/fixtures/data/make_fixtures.py)."""
from __future__ import annotations

import json
import pathlib

import numpy as np
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


# What TensorFlow 2.21 gives for SPARSE (`make_fixtures.py --sparse` prints it; small enough
# to keep inline).
SPARSE = ([[0, 1], [2, 0], [2, 3]], [1.5, -2.0, 3.0], [3, 4])
TF_SERIALIZED = [
    b'\x08\t\x12\x08\x12\x02\x08\x03\x12\x02\x08\x02"0' + np.asarray(
        [0, 1, 2, 0, 2, 3], "<i8").tobytes(),
    b'\x08\x01\x12\x04\x12\x02\x08\x03"\x0c\x00\x00\xc0?\x00\x00\x00\xc0\x00\x00@@',
    b'\x08\t\x12\x04\x12\x02\x08\x02"\x10' + np.asarray([3, 4], "<i8").tobytes()]
TF_MANY_EMPTY_ROW = [b'\x08\t\x12\x06\x12\x00\x12\x02\x08\x01', b'\x08\x01\x12\x02\x12\x00',
                     b'\x08\t\x12\x04\x12\x02\x08\x01"\x08\x04\x00\x00\x00\x00\x00\x00\x00']


def test_serialize_sparse_like_tensorflow():
    sp = tw.sparse.SparseTensor(*SPARSE)
    assert tw.io.serialize_sparse(sp).numpy().tolist() == TF_SERIALIZED
    many = tw.io.serialize_many_sparse(sp)
    assert many.shape == (3, 3) and many.numpy()[1].tolist() == TF_MANY_EMPTY_ROW
    back = tw.io.deserialize_many_sparse(many, tw.float32)
    assert back.indices.numpy().tolist() == SPARSE[0]
    assert back.values.numpy().tolist() == SPARSE[1]
    assert back.dense_shape.numpy().tolist() == SPARSE[2]

    @tw.function
    def round_trip(indices, values):
        s = tw.sparse.SparseTensor(indices, values, [3, 4])
        return tw.io.deserialize_many_sparse(tw.io.serialize_many_sparse(s), tw.float32,
                                             rank=2).values
    assert round_trip(tw.constant(SPARSE[0], tw.int64),
                      tw.constant(SPARSE[1])).numpy().tolist() == SPARSE[1]
    with pytest.raises(tw.errors.InvalidArgumentError, match="Type mismatch"):
        tw.io.deserialize_many_sparse(many, tw.int64)
    with pytest.raises(TypeError, match="SparseTensor"):
        tw.io.serialize_sparse(tw.constant([1.0]))


def test_dense_to_ragged_and_sparse_batch_transformations():
    ds = tw.data.Dataset.range(1, 4).map(lambda n: tw.range(n))
    ragged = ds.apply(tw.data.experimental.dense_to_ragged_batch(2))
    assert [r.to_list() for r in ragged] == [[[0], [0, 1]], [[0, 1, 2]]]
    sparse = ds.apply(tw.data.experimental.dense_to_sparse_batch(3, [3]))
    assert next(iter(sparse)).values.numpy().tolist() == [0, 0, 1, 0, 1, 2]
