"""What the Keras data set loaders share: the cache file through ``keras.utils.get_file``
(a clear error when it is missing and cannot be downloaded), safe reading of ``.npz``
archives whose ragged object arrays are pickled (only NumPy's array reconstruction is
allowed, as Keras does: nothing else is unpickled) and the word-index sequence processing of
``imdb`` and ``reuters``."""
from __future__ import annotations

import io
import json
import pickle
import zipfile
from collections.abc import Callable

import numpy as np

from ..file_utils import get_file

ORIGIN = "https://storage.googleapis.com/tensorflow/tf-keras-datasets/"
_ALLOWED = frozenset({("numpy", "ndarray"), ("numpy", "dtype"),
                      ("numpy.core.multiarray", "_reconstruct"),
                      ("numpy._core.multiarray", "_reconstruct")})


class RestrictedUnpickler(pickle.Unpickler):
    """An unpickler that builds only NumPy arrays, lists, dicts, strings and numbers."""

    def find_class(self, module: str, name: str):
        if (module, name) in _ALLOWED:
            return super().find_class(module, name)
        raise pickle.UnpicklingError(f"Refusing to deserialize `{module}.{name}` while "
                                     "loading a Keras dataset: the file may be corrupted or "
                                     "malicious.")


def fetch(fname: str, origin: str, file_hash=None, **kwargs) -> str:
    """The cached file (``~/.keras/datasets/<fname>``), downloaded if missing.

    Args:
        fname: the file name in the cache.
        origin: the URL.
        file_hash: the expected sha256/md5.
        **kwargs: more ``get_file`` arguments.

    Returns:
        The local path.
    """
    try:
        return get_file(fname, origin=origin, file_hash=file_hash, **kwargs)
    except OSError as e:
        raise FileNotFoundError(f"{fname} is not in the Keras cache and could not be "
                                f"downloaded ({e}). Copy the file Keras downloads from "
                                f"{origin} into ~/.keras/{kwargs.get('cache_subdir', 'datasets')}"
                                f"/ (or $KERAS_HOME) to load it offline.") from None


def _read_npy(raw: bytes) -> np.ndarray:
    fp = io.BytesIO(raw)
    try:
        return np.lib.format.read_array(fp, allow_pickle=False)
    except ValueError:  # an object array: its payload is a pickle
        fp.seek(0)
        major, _ = np.lib.format.read_magic(fp)
        if major == 1:
            np.lib.format.read_array_header_1_0(fp)
        elif major in (2, 3):
            np.lib.format.read_array_header_2_0(fp)
        else:
            raise ValueError(f"Unsupported .npy version {major}") from None
        return RestrictedUnpickler(fp).load()


def fetch_npz(path: str, name: str, file_hash: str) -> dict:
    """The arrays of Keras' ``.npz`` file ``name``, object arrays included (restricted
    unpickling).

    Args:
        path: the file name in the cache.
        name: Keras' file name (its download location under ``ORIGIN``).
        file_hash: the file's SHA-256.

    Returns:
        name -> array.
    """
    out = {}
    with zipfile.ZipFile(fetch(path, ORIGIN + name, file_hash=file_hash)) as archive:
        for member in archive.namelist():
            if member.endswith(".npy"):
                out[member[:-4]] = _read_npy(archive.read(member))
    return out


def load_pickled_dict(path: str) -> dict:
    """A pickled dict with bytes keys (CIFAR's batch files), keys decoded.

    Args:
        path: the file.

    Returns:
        The dict.
    """
    with open(path, "rb") as f:
        d = RestrictedUnpickler(f, encoding="bytes").load()
    return {(k.decode("utf8") if isinstance(k, bytes) else k): v for k, v in d.items()}


def shift_words(xs: list, labels, maxlen, start_char, index_from: int) -> tuple:
    """Keras' first step on word-rank sequences: shift by ``index_from``, prepend
    ``start_char``, drop sequences of ``maxlen`` or more.

    Args:
        xs: sequences of word ranks.
        labels: their labels.
        maxlen: drop sequences at least this long (None: keep all).
        start_char: the start marker (None: none).
        index_from: the shift of every rank.

    Returns:
        ``(sequences as lists, labels as a list)``.
    """
    if start_char is not None:
        xs = [[start_char] + [w + index_from for w in x] for x in xs]
    else:
        xs = [[w + index_from for w in x] for x in xs]
    labels = list(labels)
    if maxlen:
        kept = [(x, y) for x, y in zip(xs, labels) if len(x) < maxlen]
        xs, labels = [k[0] for k in kept], [k[1] for k in kept]
    return xs, labels


def limit_words(xs: list, num_words, skip_top: int, oov_char) -> list:
    """Keras' second step: ranks outside ``[skip_top, num_words)`` become ``oov_char`` (or are
    dropped when it is None).

    Args:
        xs: sequences (lists).
        num_words: the rank limit (None: the largest rank seen).
        skip_top: the lowest rank kept.
        oov_char: the replacement, or None.

    Returns:
        The sequences.
    """
    if not num_words:
        num_words = max(max(x) for x in xs)
    if oov_char is not None:
        return [[w if skip_top <= w < num_words else oov_char for w in x] for x in xs]
    return [[w for w in x if skip_top <= w < num_words] for x in xs]


def check_test_split(test_split: float) -> None:
    """Raises ValueError unless ``0 <= test_split < 1`` (before any file is fetched).

    Args:
        test_split: the test fraction.

    Returns:
        None.
    """
    if not 0 <= test_split < 1:
        raise ValueError(f"Invalid `test_split` argument: {test_split}. It must be between 0 "
                         "and 1 (exclusive of 1).")


def split(x: np.ndarray, y: np.ndarray, test_split: float, seed: int) -> tuple:
    """Shuffles ``(x, y)`` with ``RandomState(seed)`` and splits off the last ``test_split``.

    Args:
        x: features.
        y: targets.
        test_split: the test fraction, in [0, 1).
        seed: the shuffle seed.

    Returns:
        ``((x_train, y_train), (x_test, y_test))``.
    """
    check_test_split(test_split)
    idx = np.arange(len(x))
    np.random.RandomState(seed).shuffle(idx)
    x, y = x[idx], y[idx]
    cut = int(len(x) * (1 - test_split))
    return (np.array(x[:cut]), np.array(y[:cut])), (np.array(x[cut:]), np.array(y[cut:]))


def load_regression(path: str, name: str, file_hash: str, test_split: float, seed: int,
                    rows: int | None = None) -> tuple:
    """A regression set (arrays ``x`` and ``y`` in Keras' ``<name>``), its first ``rows``
    samples (None: all) shuffled and split.

    Args:
        path: the file name in the cache.
        name: Keras' file name (its download location under ``ORIGIN``).
        file_hash: the file's SHA-256.
        test_split: the test fraction, in [0, 1).
        seed: the shuffle seed.
        rows: how many samples to keep.

    Returns:
        ``((x_train, y_train), (x_test, y_test))``.
    """
    check_test_split(test_split)
    with np.load(fetch(path, ORIGIN + name, file_hash=file_hash), allow_pickle=False) as f:
        x, y = f["x"], f["y"]
    return split(x[:rows], y[:rows], test_split, seed)


def word_index_loader(name: str, file_hash: str, data: str) -> Callable[[str], dict]:
    """The ``get_word_index`` of a text set: it reads Keras' JSON file ``name``.

    Args:
        name: Keras' file name (also the default ``path``).
        file_hash: the file's hash.
        data: the set's name, for the docstring.

    Returns:
        The function.
    """
    def get_word_index(path: str = name) -> dict:
        with open(fetch(path, ORIGIN + name, file_hash=file_hash)) as f:
            return json.load(f)
    get_word_index.__doc__ = f"""The word -> rank index of the {data} data (from the cache file).

    Args:
        path: the file name in the cache.

    Returns:
        A dict.
    """
    return get_word_index


def object_array(seqs: list) -> np.ndarray:
    """A 1-D object array of lists (even when the lists have equal lengths).

    Args:
        seqs: the lists.

    Returns:
        The array.
    """
    out = np.empty(len(seqs), dtype=object)
    out[:] = seqs
    return out
