"""``tw.keras.datasets.mnist``: MNIST from a local ``mnist.npz`` (twinflow never downloads).

Keras keeps its downloaded copy at ``~/.keras/datasets/mnist.npz``; if that file (or ``path``)
exists it is loaded. Otherwise use ``tw.keras.datasets.digits``, which ships with twinflow.
"""
from __future__ import annotations

import os

import numpy as np


def load_data(path: str = "mnist.npz") -> tuple:
    """Loads MNIST from a local copy of Keras' ``mnist.npz``.

    Args:
        path: the file, absolute or relative to ``~/.keras/datasets``.

    Returns:
        ``((x_train, y_train), (x_test, y_test))``.

    Raises:
        FileNotFoundError: there is no local copy.
    """
    candidates = [path, os.path.join(os.path.expanduser("~"), ".keras", "datasets", path)]
    for p in candidates:
        if os.path.exists(p):
            with np.load(p, allow_pickle=False) as z:
                return (z["x_train"], z["y_train"]), (z["x_test"], z["y_test"])
    raise FileNotFoundError(
        f"MNIST is not available offline ({' or '.join(candidates)} not found) and twinflow "
        "does not download data. Use tw.keras.datasets.digits.load_data(), the 8x8 "
        "handwritten digits shipped with twinflow, or place Keras' mnist.npz at one of those "
        "paths.")
