"""``tw.keras.datasets.imdb``: the IMDB review sentiment data from Keras' cache file
``~/.keras/datasets/imdb.npz`` (reviews as word-rank sequences)."""
from __future__ import annotations

import numpy as np

from ._files import fetch_npz, limit_words, object_array, shift_words, word_index_loader


def load_data(path: str = "imdb.npz", num_words=None, skip_top: int = 0, maxlen=None,
              seed: int = 113, start_char=1, oov_char=2, index_from: int = 3,
              **kwargs) -> tuple:
    """Loads the 25,000 training and 25,000 test reviews, shuffled as Keras does.

    Args:
        path: the file name in the cache.
        num_words: keep the ``num_words`` most frequent words (others become ``oov_char``).
        skip_top: also replace the ``skip_top`` most frequent words.
        maxlen: drop reviews with ``maxlen`` or more words.
        seed: the shuffle seed.
        start_char: the start-of-review marker.
        oov_char: the out-of-vocabulary marker (None: drop those words).
        index_from: shift every word rank by this.
        **kwargs: none are accepted (Keras' removed ``nb_words``).

    Returns:
        ``((x_train, y_train), (x_test, y_test))``: object arrays of lists, int labels.
    """
    if kwargs:
        raise TypeError(f"Unrecognized keyword arguments: {kwargs}")
    f = fetch_npz(path, "imdb.npz", "69664113be75683a8fe16e3ed0ab59fda8886cb3cd7ada244f7d9544e4"
                  "676b9f")
    rng = np.random.RandomState(seed)
    parts = []
    for xk, yk in (("x_train", "y_train"), ("x_test", "y_test")):
        idx = np.arange(len(f[xk]))
        rng.shuffle(idx)
        parts.append((f[xk][idx], f[yk][idx]))
    (x_tr, y_tr), (x_te, y_te) = parts
    xs_tr, y_tr = shift_words(x_tr, y_tr, maxlen, start_char, index_from)
    xs_te, y_te = shift_words(x_te, y_te, maxlen, start_char, index_from)
    if maxlen and (not xs_tr or not xs_te):
        raise ValueError(f"After filtering for sequences shorter than maxlen={maxlen}, no "
                         "sequence was kept. Increase maxlen.")
    xs = limit_words(xs_tr + xs_te, num_words, skip_top, oov_char)
    labels = np.asarray(y_tr + y_te, dtype=np.asarray(parts[0][1]).dtype)
    k = len(xs_tr)
    return (object_array(xs[:k]), labels[:k]), (object_array(xs[k:]), labels[k:])


get_word_index = word_index_loader("imdb_word_index.json", "bfafd718b763782e994055a2d397834f",
                                   "IMDB")
