"""``tw.keras.datasets.cifar10``: CIFAR-10 from Keras' cache (the extracted
``cifar-10-batches-py`` folder of ``cifar-10-python.tar.gz``). Its batch files are Python
pickles: they are read with an unpickler that builds only NumPy arrays and plain values."""
from __future__ import annotations

import os

import numpy as np

from ..config import image_data_format
from ._files import fetch, load_pickled_dict


def load_batch(fpath: str, label_key: str = "labels") -> tuple:
    """One CIFAR batch file.

    Args:
        fpath: the file.
        label_key: the labels' key ("labels", "fine_labels" or "coarse_labels").

    Returns:
        ``(data (n, 3, 32, 32) uint8, labels list)``.
    """
    d = load_pickled_dict(fpath)
    data = np.asarray(d["data"])
    return data.reshape(data.shape[0], 3, 32, 32), d[label_key]


def load_data() -> tuple:
    """Loads CIFAR-10 (50,000 training and 10,000 test 32x32 colour images, 10 classes).

    Returns:
        ``((x_train, y_train), (x_test, y_test))``: uint8 images (channels last unless
        ``keras.config.image_data_format()`` is channels_first) and ``(n, 1)`` uint8 labels.
    """
    root = fetch("cifar-10-batches-py-target",
                 "https://www.cs.toronto.edu/~kriz/cifar-10-python.tar.gz", extract=True,
                 file_hash="6d958be074577803d12ecdefd02955f39262c83c16fe9348329d7fe0b5c001ce")
    path = os.path.join(root, "cifar-10-batches-py")
    parts = [load_batch(os.path.join(path, f"data_batch_{i}")) for i in range(1, 6)]
    x_train = np.concatenate([p[0] for p in parts]).astype("uint8")
    y_train = np.concatenate([np.asarray(p[1]) for p in parts]).astype("uint8")
    x_test, y_test = load_batch(os.path.join(path, "test_batch"))
    y_train = y_train.reshape(-1, 1)
    y_test = np.asarray(y_test).reshape(-1, 1).astype("uint8")
    if image_data_format() == "channels_last":
        x_train, x_test = x_train.transpose(0, 2, 3, 1), x_test.transpose(0, 2, 3, 1)
    return (x_train, y_train), (x_test.astype("uint8"), y_test)
