"""keras.datasets: each load_data reads Keras' cache file format (tiny synthetic files from
tests/fixtures/keras_datasets/synthetic.py in a temporary KERAS_HOME) and gives Keras 3.15's
shuffle, split and index processing (expected.json, made by make_fixtures.py there)."""
import importlib.util
import json
import pathlib
import pickle

import numpy as np
import pytest

import twinflow as tw
from twinflow.keras import file_utils

FIX = pathlib.Path(__file__).parents[2] / "fixtures" / "keras_datasets"
WANT = json.loads((FIX / "expected.json").read_text())
_spec = importlib.util.spec_from_file_location("synthetic", FIX / "synthetic.py")
synthetic = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(synthetic)
ds = tw.keras.datasets


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("KERAS_HOME", str(tmp_path))
    # the synthetic files are not Keras' real ones: accept their hashes, never download
    monkeypatch.setattr(file_utils, "validate_file", lambda *a, **k: True)

    def offline(origin, target):
        raise OSError("network disabled in tests")
    monkeypatch.setattr(file_utils, "_download", offline)
    synthetic.write_all(str(tmp_path))
    return tmp_path


def _lists(a):
    return [list(map(int, x)) for x in a]


def test_text_datasets_match_keras(cache):
    (a, b), (c, d) = ds.imdb.load_data(num_words=10, skip_top=1)
    assert [_lists(a), b.tolist(), _lists(c), d.tolist()] == WANT["imdb"]
    assert a.dtype == object and a.ndim == 1
    (a, b), (c, d) = ds.imdb.load_data(maxlen=5, index_from=2, start_char=None)
    assert [_lists(a), b.tolist(), _lists(c), d.tolist()] == WANT["imdb_maxlen"]
    (a, b), (c, d) = ds.reuters.load_data(test_split=0.3, oov_char=None, num_words=8)
    assert [_lists(a), b.tolist(), _lists(c), d.tolist()] == WANT["reuters"]
    assert ds.imdb.get_word_index() == {"the": 1, "movie": 2}
    assert len(ds.reuters.get_label_names()) == 46


def test_numeric_datasets_match_keras(cache):
    (a, b), (c, d) = ds.boston_housing.load_data(test_split=0.25)
    assert [a[:, 0].tolist(), b.tolist(), c[:, 0].tolist(), d.tolist()] == WANT["boston"]
    (a, b), (c, d) = ds.california_housing.load_data(version="small", seed=7)
    assert [b.tolist(), d.tolist()] == WANT["california"]
    with pytest.raises(ValueError, match="test_split"):
        ds.boston_housing.load_data(test_split=1.0)


def test_image_datasets(cache):
    (a, b), (c, d) = ds.cifar100.load_data("coarse")
    assert [list(a.shape), b.ravel().tolist(), int(c[1, 31, 0, 2])] == WANT["cifar100"]
    (a, b), (c, d) = ds.cifar10.load_data()
    assert a.shape == (10, 32, 32, 3) and a.dtype == np.uint8 and b.shape == (10, 1)
    batch = pickle.loads(synthetic_batch(cache, "cifar-10-batches-py/data_batch_2"))
    np.testing.assert_array_equal(a[2], batch[b"data"][0].reshape(3, 32, 32)
                                  .transpose(1, 2, 0))
    assert b.ravel().tolist()[:4] == [0, 1, 1, 2] and d.ravel().tolist() == [5, 6]
    (a, b), (c, d) = ds.mnist.load_data()
    assert a.shape == (5, 28, 28) and d.tolist() == [7, 8]
    (a, b), (c, d) = ds.fashion_mnist.load_data()
    assert a.shape == (4, 28, 28) and b.tolist() == [0, 1, 2, 3] and c[1, 0, 0] == 784 % 256


def synthetic_batch(home, member):
    import tarfile
    path = home / "datasets" / "cifar-10-batches-py-target_archive"
    with tarfile.open(path) as tar:
        return tar.extractfile(member).read()


def test_refuses_hostile_pickles_and_missing_files(cache, tmp_path):
    class Evil:
        def __reduce__(self):
            return (print, ("pwned",))
    arr = np.empty(1, dtype=object)
    arr[0] = Evil()
    np.savez(cache / "datasets" / "imdb.npz", x_train=arr, y_train=np.zeros(1),
             x_test=arr, y_test=np.zeros(1))
    with pytest.raises(pickle.UnpicklingError, match="builtins.print"):
        ds.imdb.load_data()
    (cache / "datasets" / "reuters.npz").unlink()
    with pytest.raises(FileNotFoundError, match="reuters.npz"):
        ds.reuters.load_data()


def test_get_file_cache_hash_and_extract(tmp_path, monkeypatch):
    import tarfile
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.txt").write_text("hello")
    archive = tmp_path / "pack.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(src / "a.txt", arcname="pack/a.txt")
    calls = []

    def fake_download(origin, target):
        calls.append(origin)
        pathlib.Path(target).write_bytes(archive.read_bytes())
    monkeypatch.setattr(file_utils, "_download", fake_download)
    sha = file_utils.hash_file(str(archive))
    out = tw.keras.utils.get_file("pack.tar.gz", origin="http://x/pack.tar.gz",
                                  file_hash=sha, extract=True, cache_dir=tmp_path / "c")
    assert pathlib.Path(out, "pack", "a.txt").read_text() == "hello"
    assert out.endswith("pack_extracted")
    again = tw.keras.utils.get_file("pack.tar.gz", origin="http://x/pack.tar.gz",
                                    file_hash=sha, cache_dir=tmp_path / "c")
    assert len(calls) == 1 and again.endswith("pack.tar.gz")  # cached: no download
    with pytest.raises(ValueError, match="hash"):
        tw.keras.utils.get_file("other", origin="http://x/o", file_hash="0" * 64,
                                cache_dir=tmp_path / "c")
    with pytest.raises(ValueError, match="Paths are no longer accepted"):
        tw.keras.utils.get_file("a/b", origin="http://x/o", cache_dir=tmp_path)
    bad = tmp_path / "bad.tar"
    with tarfile.open(bad, "w") as tar:
        tar.add(src / "a.txt", arcname="../escape.txt")
    with pytest.raises(ValueError, match="outside"):
        file_utils.extract_archive(str(bad), str(tmp_path / "dest"))


def test_get_file_offline_error(tmp_path):
    with pytest.raises(OSError, match="URL fetch failure"):
        tw.keras.utils.get_file("f.bin", origin="http://127.0.0.1:9/f.bin", cache_dir=tmp_path)
    assert not (tmp_path / "datasets" / "f.bin").exists()
