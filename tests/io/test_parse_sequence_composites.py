"""VarLenFeature and RaggedFeature in parse_sequence_example (context and feature lists),
against what TensorFlow parsed from the same records (tests/fixtures/data/
sequence_composites.json, made by tests/fixtures/data/make_fixtures.py --sequence)."""
from __future__ import annotations

import json
import pathlib

import pytest

import twinflow as tw

from .test_parse_composites import describe

FIX = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "data"
EXPECT = json.loads((FIX / "sequence_composites.json").read_text())
R = tw.io.RaggedFeature
CONTEXT = {"n": tw.io.FixedLenFeature([], tw.int64), "tags": tw.io.VarLenFeature(tw.string),
           "cr": R(tw.float32, value_key="cv", row_splits_dtype=tw.int64),
           "cn": R(tw.int64, value_key="cnv", partitions=[R.RowLengths("cl")])}
LISTS = {"dense": tw.io.FixedLenSequenceFeature([], tw.int64),
         "tok": tw.io.VarLenFeature(tw.int64), "word": tw.io.VarLenFeature(tw.string),
         "rag": R(tw.float32), "r64": R(tw.int64, value_key="tok2", row_splits_dtype=tw.int64)}


def records() -> list:
    return list(tw.data.TFRecordDataset(str(FIX / "sequence_composites.tfrecord"))
                .as_numpy_iterator())


def parsed(ctx, lists, lengths=None) -> dict:
    out = {"context": {k: describe(v) for k, v in ctx.items()},
           "lists": {k: describe(v) for k, v in lists.items()}}
    if lengths is not None:
        out["lengths"] = {k: describe(v) for k, v in lengths.items()}
    return out


def test_parse_sequence_example_matches_tensorflow_eager_and_in_function():
    recs = records()
    assert parsed(*tw.io.parse_sequence_example(recs, CONTEXT, LISTS)) == EXPECT["batch"]
    parse = tw.function(lambda s: tw.io.parse_sequence_example(s, CONTEXT, LISTS))
    assert parsed(*parse(tw.constant(recs))) == EXPECT["batch"]
    one = tw.function(lambda s: tw.io.parse_single_sequence_example(s, CONTEXT, LISTS))
    for rec, expect in zip(recs, EXPECT["single"]):
        assert parsed(*tw.io.parse_single_sequence_example(rec, CONTEXT, LISTS)) == expect
        assert parsed(*one(tw.constant(rec))) == expect


def test_parse_sequence_example_in_dataset_map():
    ds = tw.data.TFRecordDataset(str(FIX / "sequence_composites.tfrecord"))
    singles = ds.map(lambda s: tw.io.parse_single_sequence_example(s, CONTEXT, LISTS))
    ctx_spec, list_spec = singles.element_spec
    assert list_spec["tok"] == tw.SparseTensorSpec([None, None], tw.int64)
    assert ctx_spec["tags"] == tw.SparseTensorSpec([None], tw.string)
    assert isinstance(list_spec["rag"], tw.RaggedTensorSpec)
    assert [parsed(*e) for e in singles] == EXPECT["single"]
    whole = next(iter(ds.batch(3).map(
        lambda s: tw.io.parse_sequence_example(s, CONTEXT, LISTS))))
    assert parsed(*whole) == EXPECT["batch"]


def test_unsupported_sequence_features_raise_clear_errors():
    rec = records()[0]
    with pytest.raises(ValueError, match="SparseFeature"):
        tw.io.parse_sequence_example([rec], sequence_features={
            "sp": tw.io.SparseFeature("tok", "tok2", tw.int64, 5)})
    with pytest.raises(ValueError, match="SparseFeature"):
        tw.io.parse_sequence_example([rec], context_features={
            "sp": tw.io.SparseFeature("cl", "cnv", tw.int64, 5)})
    with pytest.raises(NotImplementedError, match="partitions"):
        tw.io.parse_sequence_example([rec], sequence_features={
            "rag": R(tw.float32, partitions=[R.UniformRowLength(1)])})
    with pytest.raises(ValueError, match="scalar or a vector"):
        tw.io.parse_sequence_example([[rec]], sequence_features={"tok": LISTS["tok"]})
    with pytest.raises(tw.errors.InvalidArgumentError, match="Data types don't match"):
        tw.io.parse_sequence_example([rec], sequence_features={
            "tok": tw.io.VarLenFeature(tw.float32)})


def test_an_empty_batch_parses_to_empty_composites_as_in_tensorflow():
    empty = tw.constant([], tw.string)
    words = tw.io.parse_example(empty, {"w": tw.io.VarLenFeature(tw.string)})["w"]
    assert (words.indices.shape, words.dense_shape.numpy().tolist()) == ((0, 2), [0, 0])
    ctx, lists, lengths = tw.io.parse_sequence_example(empty, CONTEXT, LISTS)
    assert lists["tok"].indices.shape == (0, 3) and lists["tok"].dense_shape.numpy().tolist() \
        == [0, 0, 0]
    assert lists["rag"].to_list() == [] and ctx["cn"].to_list() == []
    assert lengths["dense"].numpy().tolist() == [] and ctx["tags"].values.dtype == tw.string
