"""``tw.keras.datasets.reuters``: the Reuters newswire topics from Keras' cache file
``~/.keras/datasets/reuters.npz``."""
from __future__ import annotations

import numpy as np

from ._files import fetch_npz, limit_words, object_array, shift_words, word_index_loader

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
        test_split: the test fraction.
        path, num_words, skip_top, maxlen, seed, start_char, oov_char, index_from: as in
            ``imdb.load_data`` (newswires for reviews).

    Returns:
        ``((x_train, y_train), (x_test, y_test))``.
    """
    f = fetch_npz(path, "reuters.npz", "d6586e694ee56d7a4e65172e12b3e987c03096cb01eab99753921ef9"
                  "15959916")
    xs, labels = f["x"], f["y"]
    idx = np.arange(len(xs))
    np.random.RandomState(seed).shuffle(idx)
    xs, labels = shift_words(xs[idx], labels[idx], maxlen, start_char, index_from)
    xs = limit_words(xs, num_words, skip_top, oov_char)
    cut = int(len(xs) * (1 - test_split))
    return ((object_array(xs[:cut]), np.array(labels[:cut])),
            (object_array(xs[cut:]), np.array(labels[cut:])))


get_word_index = word_index_loader("reuters_word_index.json",
                                   "4d44cc38712099c9e383dc6e5f11a921", "Reuters")


def get_label_names() -> tuple:
    """The 46 topic names, in label order.

    Returns:
        A tuple of strings.
    """
    return _LABELS
