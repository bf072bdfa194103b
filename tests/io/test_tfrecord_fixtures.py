"""TFRecord files and Example protos against fixtures written by TensorFlow
(tests/fixtures/data/make_fixtures.py), and files written for TensorFlow to read back."""
from __future__ import annotations

import gzip
import os
import pathlib

import numpy as np
import pytest

import twinflow as tw

FIX = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "data"
FEATURES = {"id": tw.io.FixedLenFeature([], tw.int64),
            "xy": tw.io.FixedLenFeature([2], tw.float32),
            "name": tw.io.FixedLenFeature([], tw.string),
            "tags": tw.io.FixedLenSequenceFeature([], tw.int64, allow_missing=True)}


@pytest.mark.parametrize("name,comp", [("examples.tfrecord", ""),
                                       ("examples.tfrecord.gz", "GZIP"),
                                       ("examples.tfrecord.zlib", "ZLIB")])
def test_reads_tensorflow_examples(name, comp):
    ds = tw.data.TFRecordDataset(str(FIX / name), compression_type=comp)
    parsed = [tw.io.parse_single_example(r, {k: v for k, v in FEATURES.items()
                                             if k != "tags"}) for r in ds]
    assert [int(p["id"]) for p in parsed] == [0, 1, 2]
    np.testing.assert_allclose(parsed[2]["xy"].numpy(), [2.5, -4.0])
    assert parsed[1]["name"].numpy() == b"row1"
    batch = next(iter(ds.batch(3).map(lambda s: tw.io.parse_example(s, FEATURES))))
    assert batch["tags"].numpy().tolist() == [[0, 0], [0, 0], [0, 1]]
    assert batch["id"].numpy().tolist() == [0, 1, 2]
    ex = tw.train.Example.FromString(next(iter(ds)).numpy())
    assert list(ex.features.feature["xy"].float_list.value) == [0.5, -0.0]


def test_sequence_example_and_tensors_from_tensorflow():
    (rec,) = list(tw.io.tf_record_iterator(str(FIX / "sequence.tfrecord")))
    ctx, seq = tw.io.parse_single_sequence_example(
        rec, {"length": tw.io.FixedLenFeature([], tw.int64)},
        {"tokens": tw.io.FixedLenSequenceFeature([], tw.int64),
         "vec": tw.io.FixedLenSequenceFeature([2], tw.float32)})
    assert int(ctx["length"]) == 3 and seq["tokens"].numpy().tolist() == [7, 8, 9]
    assert seq["vec"].numpy().tolist() == [[1, 2], [2, 3], [3, 4]]
    _, lists, lengths = tw.io.parse_sequence_example(
        [rec, rec], sequence_features={"tokens": tw.io.FixedLenSequenceFeature([], tw.int64)})
    assert lists["tokens"].shape == (2, 3) and lengths["tokens"].numpy().tolist() == [3, 3]
    t1, t2, t3 = list(tw.io.tf_record_iterator(str(FIX / "tensors.tfrecord")))
    np.testing.assert_array_equal(tw.io.parse_tensor(t1, tw.float32).numpy(),
                                  [[1.5, -2.0, 3.25]])
    assert tw.io.parse_tensor(t2, tw.string).numpy().tolist() == [b"a", b"bc"]
    assert tw.io.parse_tensor(t3, tw.int64).numpy().tolist() == [1, 2, 3]
    with pytest.raises(tw.errors.InvalidArgumentError, match="Type mismatch"):
        tw.io.parse_tensor(t1, tw.int32)


def write_files_for_tensorflow(folder: pathlib.Path) -> None:
    """Files that `make_fixtures.py --check FOLDER` reads with TensorFlow."""
    def ex(i):
        return tw.train.Example(features=tw.train.Features(feature={
            "id": tw.train.Feature(int64_list=tw.train.Int64List(value=[i])),
            "xy": tw.train.Feature(float_list=tw.train.FloatList(value=[i, i / 2])),
            "name": tw.train.Feature(bytes_list=tw.train.BytesList(value=[b"n%d" % i]))}))
    for name, comp in (("tw_examples.tfrecord", None), ("tw_examples.tfrecord.gz", "GZIP")):
        with tw.io.TFRecordWriter(str(folder / name), comp) as w:
            for i in range(3):
                w.write(ex(i).SerializeToString())
    tw.io.write_file(str(folder / "tw_tensor.pb"),
                     tw.io.serialize_tensor(tw.constant([[1.0, 2.0], [3.0, 4.0]])))
    tw.data.experimental.TFRecordWriter(str(folder / "tw_strings.tfrecord")).write(
        tw.data.Dataset.from_tensor_slices([b"x", b"yz"]))


def test_files_written_for_tensorflow_round_trip(tmp_path):
    write_files_for_tensorflow(tmp_path)
    back = [tw.io.parse_single_example(r, {"xy": FEATURES["xy"]})["xy"].numpy().tolist()
            for r in tw.data.TFRecordDataset(str(tmp_path / "tw_examples.tfrecord.gz"), "GZIP")]
    assert back == [[0, 0], [1, 0.5], [2, 1]]
    with gzip.open(tmp_path / "tw_examples.tfrecord.gz") as f:
        assert f.read() == (tmp_path / "tw_examples.tfrecord").read_bytes()
    # the same bytes as TensorFlow's writer for the same records (fixture made by TF)
    recs = list(tw.io.tf_record_iterator(str(FIX / "examples.tfrecord")))
    with tw.io.TFRecordWriter(str(tmp_path / "copy.tfrecord")) as w:
        for r in recs:
            w.write(r)
    assert (tmp_path / "copy.tfrecord").read_bytes() == (FIX / "examples.tfrecord").read_bytes()
    assert [r.numpy() for r in tw.data.TFRecordDataset(str(tmp_path / "tw_strings.tfrecord"))
            ] == [b"x", b"yz"]
    assert not [p for p in os.listdir(tmp_path) if ".tw-tmp-" in p]
    w = tw.io.TFRecordWriter(str(tmp_path / "dropped.tfrecord"))
    w.write(b"kept")
    del w  # dropped without close(): the records are kept, as TensorFlow's writer does
    assert list(tw.io.tf_record_iterator(str(tmp_path / "dropped.tfrecord"))) == [b"kept"]
    with pytest.raises(ValueError), tw.io.TFRecordWriter(str(tmp_path / "failed")) as w:
        w.write(b"x")
        raise ValueError("failed while writing")
    assert not (tmp_path / "failed").exists()
    assert not [p for p in os.listdir(tmp_path) if ".tw-tmp-" in p]


def test_corrupted_and_truncated_records_raise_data_loss(tmp_path):
    data = bytearray((FIX / "examples.tfrecord").read_bytes())
    first = int.from_bytes(data[:8], "little") + 16
    bad = bytearray(data)
    bad[first + 20] ^= 0xFF  # a byte of the second record's data
    (tmp_path / "bad.tfrecord").write_bytes(bytes(bad))
    with pytest.raises(tw.errors.DataLossError, match=rf"bad.tfrecord.*offset {first}"):
        list(tw.data.TFRecordDataset(str(tmp_path / "bad.tfrecord")))
    (tmp_path / "cut.tfrecord").write_bytes(bytes(data[:-3]))
    with pytest.raises(tw.errors.DataLossError, match="cut.tfrecord: truncated record at offset"):
        list(tw.io.tf_record_iterator(str(tmp_path / "cut.tfrecord")))
    hdr = bytearray(data)
    hdr[0] ^= 1  # the length of the first record: its CRC no longer matches
    (tmp_path / "hdr.tfrecord").write_bytes(bytes(hdr))
    with pytest.raises(tw.errors.DataLossError, match="offset 0 .length CRC"):
        list(tw.io.tf_record_iterator(str(tmp_path / "hdr.tfrecord")))
    with pytest.raises(tw.errors.NotFoundError):
        list(tw.io.tf_record_iterator(str(tmp_path / "missing.tfrecord")))


def test_parse_errors():
    rec = next(tw.io.tf_record_iterator(str(FIX / "examples.tfrecord")))
    with pytest.raises(tw.errors.InvalidArgumentError, match="required"):
        tw.io.parse_single_example(rec, {"nope": tw.io.FixedLenFeature([], tw.int64)})
    with pytest.raises(tw.errors.InvalidArgumentError, match="expected 3 values"):
        tw.io.parse_single_example(rec, {"xy": tw.io.FixedLenFeature([3], tw.float32)})
    with pytest.raises(tw.errors.InvalidArgumentError, match="Data types"):
        tw.io.parse_single_example(rec, {"xy": tw.io.FixedLenFeature([2], tw.int64)})
    out = tw.io.parse_single_example(rec, {"z": tw.io.FixedLenFeature([2], tw.float32,
                                                                      default_value=7.0)})
    assert out["z"].numpy().tolist() == [7.0, 7.0]

    @tw.function
    def parse(s):
        return tw.io.parse_single_example(s, {"id": FEATURES["id"]})["id"] + 1
    assert int(parse(tw.constant(rec))) == 1


def test_hostile_lengths_and_shapes_are_clear_errors(tmp_path):
    import struct

    from twinflow.io.crc32c import masked_crc32c
    header = struct.pack("<Q", 1 << 60)
    (tmp_path / "huge.tfrecord").write_bytes(header + struct.pack("<I", masked_crc32c(header))
                                             + b"abc")
    with pytest.raises(tw.errors.DataLossError, match="truncated record at offset 0"):
        list(tw.io.tf_record_iterator(str(tmp_path / "huge.tfrecord")))
    from twinflow.io.protos import message_class
    t = message_class("TensorProto")(dtype=1)
    t.tensor_shape.dim.add(size=1 << 40)
    t.float_val.append(1.0)
    with pytest.raises(tw.errors.ResourceExhaustedError, match="elements"):
        tw.io.parse_tensor(t.SerializeToString(), tw.float32)
    s = message_class("TensorProto")(dtype=7)
    s.tensor_shape.dim.add(size=3)
    s.string_val.extend([b"a", b"b"])
    with pytest.raises(tw.errors.InvalidArgumentError, match="2 strings"):
        tw.io.parse_tensor(s.SerializeToString(), tw.string)
    with pytest.raises(tw.errors.InvalidArgumentError, match="Could not parse"):
        tw.io.parse_tensor(b"\xff\xff\xff", tw.float32)
