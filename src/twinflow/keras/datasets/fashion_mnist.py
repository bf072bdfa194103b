"""``tw.keras.datasets.fashion_mnist``: Fashion-MNIST from Keras' cache folder
``~/.keras/datasets/fashion-mnist/`` (the four gzipped IDX files)."""
from __future__ import annotations

import gzip
import os

import numpy as np

from ._files import ORIGIN, fetch

FILES = ("train-labels-idx1-ubyte.gz", "train-images-idx3-ubyte.gz",
         "t10k-labels-idx1-ubyte.gz", "t10k-images-idx3-ubyte.gz")


def load_data() -> tuple:
    """Loads Fashion-MNIST (60,000 training and 10,000 test 28x28 greyscale images).

    Returns:
        ``((x_train, y_train), (x_test, y_test))``: uint8 arrays.
    """
    sub = os.path.join("datasets", "fashion-mnist")
    paths = [fetch(f, ORIGIN + f, cache_subdir=sub) for f in FILES]
    arrays = []
    for k, p in enumerate(paths):
        with gzip.open(p, "rb") as f:
            data = f.read()
        arrays.append(np.frombuffer(data, np.uint8, offset=8 if k % 2 == 0 else 16))
    y_train, y_test = arrays[0], arrays[2]
    x_train = arrays[1].reshape(len(y_train), 28, 28)
    x_test = arrays[3].reshape(len(y_test), 28, 28)
    return (x_train, y_train), (x_test, y_test)
