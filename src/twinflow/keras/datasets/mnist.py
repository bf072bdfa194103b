"""``tw.keras.datasets.mnist``: MNIST from Keras' cache file ``~/.keras/datasets/mnist.npz``
(downloaded when missing and the network allows). ``tw.keras.datasets.digits`` ships with
twinflow and always loads offline."""
from __future__ import annotations

import numpy as np

from ._files import ORIGIN, fetch


def load_data(path: str = "mnist.npz") -> tuple:
    """Loads MNIST (60,000 training and 10,000 test 28x28 greyscale digits).

    Args:
        path: the file name in the cache (``~/.keras/datasets``).

    Returns:
        ``((x_train, y_train), (x_test, y_test))``: uint8 arrays.
    """
    path = fetch(path, ORIGIN + "mnist.npz", file_hash="731c5ac602752760c8e48fbffcf8c3b850d9"
                 "dc2a2aedcf2cc48468fc17b673d1")
    with np.load(path, allow_pickle=False) as f:
        return (f["x_train"], f["y_train"]), (f["x_test"], f["y_test"])
