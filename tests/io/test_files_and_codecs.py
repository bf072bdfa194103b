"""tw.io.gfile, read_file/write_file, CSV/raw/compressed/base64 codecs, images, and the
file-reading datasets (text lines, fixed-length records, CSV, SQLite, list_files)."""
from __future__ import annotations

import gzip
import sqlite3
import zlib

import numpy as np
import pytest

import twinflow as tw

Dataset = tw.data.Dataset


def test_gfile_functions(tmp_path):
    g = tw.io.gfile
    d = tmp_path / "a" / "b"
    g.makedirs(str(d))
    assert g.isdir(str(d)) and g.exists(str(d))
    with g.GFile(str(d / "f.txt"), "w") as f:
        f.write("one\ntwo\n")
    with g.GFile(str(d / "f.txt")) as f:
        assert f.readline() == "one\n" and f.read() == "two\n"
    assert g.stat(str(d / "f.txt")).length == 8 and g.stat(str(d)).is_directory
    g.copy(str(d / "f.txt"), str(d / "g.txt"))
    with pytest.raises(tw.errors.AlreadyExistsError):
        g.copy(str(d / "f.txt"), str(d / "g.txt"))
    g.rename(str(d / "g.txt"), str(d / "h.txt"))
    assert g.listdir(str(d)) == ["f.txt", "h.txt"]
    assert g.glob(str(d / "*.txt")) == [str(d / "f.txt"), str(d / "h.txt")]
    g.remove(str(d / "h.txt"))
    with pytest.raises(tw.errors.NotFoundError):
        g.remove(str(d / "h.txt"))
    with pytest.raises(tw.errors.NotFoundError):
        g.GFile(str(d / "nope"))
    assert [p[0] for p in g.walk(str(tmp_path))][0] == str(tmp_path)
    g.rmtree(str(tmp_path / "a"))
    assert not g.exists(str(tmp_path / "a"))


def test_read_write_file_eager_and_in_function(tmp_path):
    path = str(tmp_path / "x.bin")
    tw.io.write_file(path, b"\x00abc\x00")
    assert tw.io.read_file(path).numpy() == b"\x00abc\x00"

    @tw.function
    def copy(src, dst):
        tw.io.write_file(dst, tw.io.read_file(src))
        return tw.io.read_file(dst)
    assert copy(tw.constant(path), tw.constant(path + "2")).numpy() == b"\x00abc\x00"
    with pytest.raises(tw.errors.NotFoundError):
        tw.io.read_file(str(tmp_path / "missing"))


def test_decode_csv_raw_compressed_base64():
    a, b, c = tw.io.decode_csv(["1,x,2.5", '2,"y,z",'], [[0], [""], [9.0]])
    assert a.numpy().tolist() == [1, 2] and b.numpy().tolist() == [b"x", b"y,z"]
    assert c.numpy().tolist() == [2.5, 9.0] and c.dtype == tw.float32
    with pytest.raises(tw.errors.InvalidArgumentError, match="required"):
        tw.io.decode_csv([","], [[0], tw.constant([], tw.int32)])
    with pytest.raises(tw.errors.InvalidArgumentError, match="Expect 2 fields"):
        tw.io.decode_csv(["1"], [[0], [0]])
    (only,) = tw.io.decode_csv(["1;2;3"], [[0]], field_delim=";", select_cols=[2])
    assert only.numpy().tolist() == [3]
    raw = tw.io.decode_raw(tw.constant([b"\x01\x00\x02\x00", b"\x03\x00\x04\x00"]), tw.int16)
    assert raw.numpy().tolist() == [[1, 2], [3, 4]]
    with pytest.raises(tw.errors.InvalidArgumentError, match="same size"):
        tw.io.decode_raw(tw.constant([b"\x01\x00", b"\x01"]), tw.int16)
    assert tw.io.decode_compressed(zlib.compress(b"hello"), "ZLIB").numpy() == b"hello"
    assert tw.io.decode_compressed(gzip.compress(b"hi"), "GZIP").numpy() == b"hi"
    enc = tw.io.encode_base64(tw.constant([b"\xff\xfe?"]))
    assert enc.numpy().tolist() == [b"__4_"]
    assert tw.io.decode_base64(enc).numpy().tolist() == [b"\xff\xfe?"]

    @tw.function
    def parse_line(line):
        x, y = tw.io.decode_csv(line, [[0.0], [0]])
        return x * tw.cast(y, tw.float32)
    assert float(parse_line(tw.constant("1.5,2"))) == 3.0


def test_serialize_parse_tensor_round_trip():
    for value in (np.arange(6, dtype=np.int32).reshape(2, 3), np.float64(2.5),
                  np.array([True, False]), np.array([b"a", b""], dtype=object)):
        t = tw.constant(value)
        back = tw.io.parse_tensor(tw.io.serialize_tensor(t), t.dtype)
        assert back.shape == t.shape and back.numpy().tolist() == t.numpy().tolist()


def test_images_png_jpeg_gif_bmp():
    pytest.importorskip("PIL")
    img = np.random.default_rng(0).integers(0, 255, (6, 5, 3)).astype(np.uint8)
    png = tw.io.encode_png(img)
    np.testing.assert_array_equal(tw.io.decode_png(png).numpy(), img)
    assert tw.io.decode_png(png, channels=1).shape == (6, 5, 1)
    assert tw.io.decode_image(png, channels=4).shape == (6, 5, 4)
    jpg = tw.io.encode_jpeg(img, quality=95)
    assert bool(tw.io.is_jpeg(jpg)) and not bool(tw.io.is_jpeg(png))
    assert np.abs(tw.io.decode_jpeg(jpg).numpy().astype(int) - img).mean() < 40
    assert tw.io.extract_jpeg_shape(jpg).numpy().tolist() == [6, 5, 3]
    assert tw.io.decode_and_crop_jpeg(jpg, [1, 1, 2, 3]).shape == (2, 3, 3)
    with pytest.raises(tw.errors.InvalidArgumentError, match="expected PNG"):
        tw.io.decode_png(jpg)
    with pytest.raises(tw.errors.InvalidArgumentError, match="not a valid image"):
        tw.io.decode_image(b"garbage")
    import io as pyio

    from PIL import Image
    frames = [Image.fromarray(np.full((2, 3, 3), v, np.uint8)) for v in (0, 255)]
    buf = pyio.BytesIO()
    frames[0].save(buf, "GIF", save_all=True, append_images=frames[1:])
    assert tw.io.decode_gif(buf.getvalue()).shape == (2, 2, 3, 3)
    buf = pyio.BytesIO()
    frames[1].save(buf, "BMP")
    assert tw.io.decode_bmp(buf.getvalue()).numpy().max() == 255

    @tw.function
    def decode(s):
        return tw.reduce_sum(tw.cast(tw.io.decode_png(s, channels=3), tw.int32))
    assert int(decode(png)) == int(img.astype(np.int64).sum())


def test_text_line_fixed_length_and_list_files(tmp_path):
    (tmp_path / "a.txt").write_bytes(b"l1\nl2\r\nl3")
    (tmp_path / "b.txt.gz").write_bytes(gzip.compress(b"m1\nm2\n"))
    lines = Dataset.from_tensor_slices([str(tmp_path / "a.txt")]).flat_map(
        tw.data.TextLineDataset)
    assert list(lines.as_numpy_iterator()) == [b"l1", b"l2", b"l3"]
    gz = tw.data.TextLineDataset(str(tmp_path / "b.txt.gz"), compression_type="GZIP")
    assert list(gz.as_numpy_iterator()) == [b"m1", b"m2"]
    (tmp_path / "r.bin").write_bytes(b"HH" + bytes(range(6)) + b"F")
    fixed = tw.data.FixedLengthRecordDataset(str(tmp_path / "r.bin"), 3, header_bytes=2,
                                             footer_bytes=1)
    assert list(fixed.as_numpy_iterator()) == [b"\x00\x01\x02", b"\x03\x04\x05"]
    with pytest.raises(tw.errors.DataLossError, match="multiple of record_bytes"):
        list(tw.data.FixedLengthRecordDataset(str(tmp_path / "r.bin"), 4))
    names = Dataset.list_files(str(tmp_path / "*.txt*"), shuffle=False)
    assert [n.rsplit(b"/", 1)[1] for n in names.as_numpy_iterator()] == [b"a.txt", b"b.txt.gz"]
    with pytest.raises(tw.errors.InvalidArgumentError, match="match"):
        Dataset.list_files(str(tmp_path / "*.none"))


def test_parallel_reads_of_several_tfrecord_files(tmp_path):
    paths = []
    for k in range(3):
        p = str(tmp_path / f"f{k}.tfrecord")
        with tw.io.TFRecordWriter(p) as w:
            for i in range(4):
                w.write(b"%d-%d" % (k, i))
        paths.append(p)
    serial = list(tw.data.TFRecordDataset(paths).as_numpy_iterator())
    assert serial == [b"%d-%d" % (k, i) for k in range(3) for i in range(4)]
    par = list(tw.data.TFRecordDataset(paths, num_parallel_reads=3).as_numpy_iterator())
    assert par == [b"%d-%d" % (k, i) for i in range(4) for k in range(3)]


def test_csv_and_sql_datasets(tmp_path):
    (tmp_path / "t.csv").write_text("a,b,name\n1,2.5,x\n3,,\"y,z\"\n")
    ds = tw.data.experimental.CsvDataset(str(tmp_path / "t.csv"), [[0], [9.0], tw.string],
                                         header=True)
    assert list(ds.as_numpy_iterator()) == [(1, 2.5, b"x"), (3, 9.0, b"y,z")]
    batches = tw.data.experimental.make_csv_dataset(str(tmp_path / "t.csv"), 2, label_name="a",
                                                    shuffle=False, num_epochs=1)
    (features, label), = list(batches.as_numpy_iterator())
    assert label.tolist() == [1, 3] and features["name"].tolist() == [b"x", b"y,z"]
    db = str(tmp_path / "d.sqlite")
    con = sqlite3.connect(db)
    con.execute("create table t (k integer, v text)")
    con.executemany("insert into t values (?, ?)", [(1, "a"), (2, "b")])
    con.commit()
    con.close()
    sql = tw.data.experimental.SqlDataset("sqlite", db, "select k, v from t order by k",
                                          (tw.int64, tw.string))
    assert list(sql.as_numpy_iterator()) == [(1, b"a"), (2, b"b")]


def test_json_example_and_write_graph(tmp_path):
    serialized = tw.io.decode_json_example(
        ['{"features": {"feature": {"x": {"int64List": {"value": ["5"]}}}}}'])
    x = tw.io.parse_example(serialized, {"x": tw.io.FixedLenFeature([], tw.int64)})["x"]
    assert x.numpy().tolist() == [5]
    g = tw.Graph()
    with g.as_default():
        tw.constant(1.0, name="c")
    path = tw.io.write_graph(g, str(tmp_path), "g.pbtxt")
    assert 'name: "c"' in open(path).read()


def test_fixed_length_records_stream_across_chunks(tmp_path):
    body = bytes(range(7)) * 160_001  # 1.1 MB: more than one read chunk
    (tmp_path / "big.bin.gz").write_bytes(gzip.compress(b"HEAD" + body + b"FOOT"))
    ds = tw.data.FixedLengthRecordDataset(str(tmp_path / "big.bin.gz"), 7, header_bytes=4,
                                          footer_bytes=4, compression_type="GZIP")
    n = 0
    for rec in ds.as_numpy_iterator():
        assert rec == bytes(range(7))
        n += 1
    assert n == 160_001


def test_zlib_text_lines_stream(tmp_path):
    (tmp_path / "t.z").write_bytes(zlib.compress(b"".join(b"line%d\n" % i for i in range(5000))))
    ds = tw.data.TextLineDataset(str(tmp_path / "t.z"), compression_type="ZLIB")
    lines = list(ds.as_numpy_iterator())
    assert len(lines) == 5000 and lines[-1] == b"line4999"
