"""TensorFlow's tensor-bundle checkpoint format: the SSTable, tensors, TF's own checkpoint
(tests/fixtures/deploy/tf_ckpt), and corrupt files."""
import os
import shutil

import numpy as np
import pytest

import twinflow as tw
from twinflow.core import files
from twinflow.saved_model.bundle import (
    BundleReader,
    data_path,
    index_path,
    read_table,
    write_bundle,
    write_table,
)

FIX = os.path.join(os.path.dirname(__file__), "..", "fixtures", "deploy")
TF_CKPT = os.path.join(FIX, "tf_ckpt", "ckpt")


def test_table_round_trips_many_blocks():
    entries = [(f"key{i:05d}".encode(), bytes([i % 251]) * (i % 37)) for i in range(2000)]
    assert read_table(write_table(entries), "t") == entries
    assert read_table(write_table([]), "t") == []


def test_bundle_round_trips_dtypes(tmp_path):
    tensors = {"a": np.arange(12, dtype=np.float32).reshape(3, 4), "b/c": np.int64(-7),
               "d": np.array([True, False]), "e": np.array([b"x", b"", b"yz" * 300], object),
               "f": np.zeros((0, 2), np.float64), "g": np.array([1 + 2j], np.complex64)}
    prefix = write_bundle(str(tmp_path / "ck"), tensors)
    r = BundleReader(prefix)
    assert sorted(r.entries) == sorted(tensors)
    for k, v in tensors.items():
        got = r.get_tensor(k)
        assert got.shape == np.shape(v) and got.tolist() == np.asarray(v).tolist(), k
    assert r.shape_and_dtype("a") == ([3, 4], tw.float32)
    assert sorted(os.listdir(tmp_path)) == ["ck.data-00000-of-00001", "ck.index"]


def test_reads_the_checkpoint_tensorflow_wrote():
    values = np.load(os.path.join(FIX, "tf_ckpt_values.npz"))
    r = BundleReader(TF_CKPT)
    assert r.shape_and_dtype("_CHECKPOINTABLE_OBJECT_GRAPH") == ([], tw.string)
    for name in ("w", "b", "step"):
        got = r.get_tensor(f"model/{name}/.ATTRIBUTES/VARIABLE_VALUE")
        np.testing.assert_array_equal(got, values[name])
        assert got.dtype == values[name].dtype


def test_rewritten_tensorflow_checkpoint_reads_the_same(tmp_path):
    r = BundleReader(TF_CKPT)
    tensors = {k: r.get_tensor(k) for k in r.entries}
    r2 = BundleReader(write_bundle(str(tmp_path / "again"), tensors))
    assert {k: r2.get_tensor(k).tolist() for k in r2.entries} == \
        {k: v.tolist() for k, v in tensors.items()}


def _copy(tmp_path):
    for f in (index_path(TF_CKPT), data_path(TF_CKPT)):
        shutil.copy(f, tmp_path)
    return str(tmp_path / "ckpt")


@pytest.mark.parametrize("where", ["index", "data"])
def test_corrupt_or_truncated_files_raise_data_loss_naming_the_file(tmp_path, where):
    prefix = _copy(tmp_path)
    path = index_path(prefix) if where == "index" else data_path(prefix)
    good = open(path, "rb").read()
    for bad in (good[:len(good) // 2], good[:30] + bytes([good[30] ^ 0xFF]) + good[31:]):
        with open(path, "wb") as f:
            f.write(bad)
        with pytest.raises(tw.errors.DataLossError, match=os.path.basename(path)):
            r = BundleReader(prefix)
            for k in r.entries:
                r.get_tensor(k)
        assert open(path, "rb").read() == bad  # reading changes nothing


def test_missing_checkpoint_and_key():
    with pytest.raises(tw.errors.NotFoundError):
        BundleReader("/nonexistent/ckpt")
    with pytest.raises(tw.errors.NotFoundError, match="nope"):
        BundleReader(TF_CKPT).get_tensor("nope")


def _mid_swap(tmp_path, link: bool) -> tuple:
    """A folder as a save of ``new`` over ``old`` leaves it when killed between replacing the
    data file and the index (old pair kept aside as links or renames, new index still a
    temporary file)."""
    old, new = {"v": np.float32([1, 1])}, {"v": np.float32([2, 2])}
    prefix = write_bundle(str(tmp_path / "ck"), old)
    other = write_bundle(str(tmp_path / "sub" / "ck"), new)
    token = "0123456789ab"
    for path in (data_path(prefix), index_path(prefix)):
        (os.link if link else os.rename)(path, files.temp_path(path, "old", token))
    os.replace(index_path(other), files.temp_path(index_path(prefix), token=token))
    os.replace(data_path(other), data_path(prefix))
    return prefix, old, new


@pytest.mark.parametrize("link", [True, False], ids=["links", "renames"])
def test_a_save_killed_mid_swap_reads_the_old_pair_until_the_next_save(tmp_path, link):
    prefix, old, new = _mid_swap(tmp_path, link)
    before = sorted(os.listdir(tmp_path))
    assert BundleReader(prefix).get_tensor("v").tolist() == old["v"].tolist()
    assert tw.train.load_variable(prefix, "v").tolist() == old["v"].tolist()
    assert sorted(os.listdir(tmp_path)) == before  # reading changes nothing
    restored = files.clean_stale(str(tmp_path))   # what the next save does first
    assert len(restored) == 3
    assert sorted(os.listdir(tmp_path)) == ["ck.data-00000-of-00001", "ck.index", "sub"]
    assert BundleReader(prefix).get_tensor("v").tolist() == old["v"].tolist()
    write_bundle(prefix, new)
    assert BundleReader(prefix).get_tensor("v").tolist() == new["v"].tolist()


def test_without_hard_links_the_old_pair_is_renamed_aside(tmp_path, monkeypatch):
    prefix = write_bundle(str(tmp_path / "ck"), {"v": np.float32(1)})

    def no_link(src, dst):
        raise OSError(1, "links are not supported here")
    monkeypatch.setattr(os, "link", no_link)
    write_bundle(prefix, {"v": np.float32(2)})
    assert BundleReader(prefix).get_tensor("v") == 2
    assert sorted(os.listdir(tmp_path)) == ["ck.data-00000-of-00001", "ck.index"]
