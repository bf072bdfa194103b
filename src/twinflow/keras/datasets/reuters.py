"""``tw.keras.datasets.reuters``: the Reuters newswire topics from Keras' cache file
``~/.keras/datasets/reuters.npz``."""
from __future__ import annotations

import json

import numpy as np

from ._files import ORIGIN, fetch, limit_words, load_npz, object_array, shift_words

_LABELS = ("cocoa", "grain", "veg-oil", "earn", "acq", "wheat", "copper", "housing",
           "money-supply", "coffee", "sugar", "trade", "reserves", "ship", "cotton", "carcass",
           "crude", "nat-gas", "cpi", "money-fx", "interest", "gnp", "meal-feed", "alum",
           "oilseed", "gold", "tin", "strategic-metal", "livestock", "retail", "ipi",
           "iron-steel", "rubber", "heat", "jobs", "lei", "bop", "zinc", "orange", "pet-chem",
           "dlr", "gas", "silver", "wpi", "hog", "lead")


def load_data(path: str = "reuters.npz", num_words=None, skip_top: int = 0, maxlen=None,
              test_split: float = 0.2, seed: int = 113, start_char=1, oov_char=2,
              index_from: int = 3) -> tuple:
    """Loads the 11,228 newswires (46 topics), shuffled and split as Keras does.

    Args:
        path: the file name in the cache.
        num_words: keep the ``num_words`` most frequent words.
        skip_top: also replace the ``skip_top`` most frequent words.
        maxlen: drop newswires with ``maxlen`` or more words.
        test_split: the test fraction.
        seed: the shuffle seed.
        start_char: the start marker.
        oov_char: the out-of-vocabulary marker (None: drop those words).
        index_from: shift every word rank by this.

    Returns:
        ``((x_train, y_train), (x_test, y_test))``.
    """
    f = load_npz(fetch(path, ORIGIN + "reuters.npz", file_hash="d6586e694ee56d7a4e65172e12b"
                       "3e987c03096cb01eab99753921ef915959916"))
    xs, labels = f["x"], f["y"]
    idx = np.arange(len(xs))
    np.random.RandomState(seed).shuffle(idx)
    xs, labels = shift_words(xs[idx], labels[idx], maxlen, start_char, index_from)
    xs = limit_words(xs, num_words, skip_top, oov_char)
    cut = int(len(xs) * (1 - test_split))
    return ((object_array(xs[:cut]), np.array(labels[:cut])),
            (object_array(xs[cut:]), np.array(labels[cut:])))


def get_word_index(path: str = "reuters_word_index.json") -> dict:
    """The word -> rank index of the Reuters data (from the cache file).

    Args:
        path: the file name in the cache.

    Returns:
        A dict.
    """
    with open(fetch(path, ORIGIN + "reuters_word_index.json",
                    file_hash="4d44cc38712099c9e383dc6e5f11a921")) as f:
        return json.load(f)


def get_label_names() -> tuple:
    """The 46 topic names, in label order.

    Returns:
        A tuple of strings.
    """
    return _LABELS
