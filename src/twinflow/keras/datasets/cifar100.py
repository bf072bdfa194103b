"""``tw.keras.datasets.cifar100``: CIFAR-100 from Keras' cache (the extracted
``cifar-100-python`` folder; pickles read with NumPy-only unpickling)."""
from __future__ import annotations

import os

import numpy as np

from ..config import image_data_format
from ._files import fetch
from .cifar10 import load_batch


def load_data(label_mode: str = "fine") -> tuple:
    """Loads CIFAR-100 (50,000 training and 10,000 test 32x32 colour images).

    Args:
        label_mode: "fine" (100 classes) or "coarse" (20 super-classes).

    Returns:
        ``((x_train, y_train), (x_test, y_test))``: uint8 images and ``(n, 1)`` labels.
    """
    if label_mode not in ("fine", "coarse"):
        raise ValueError(f'`label_mode` must be one of `"fine"`, `"coarse"`. Received: '
                         f"label_mode={label_mode}.")
    root = fetch("cifar-100-python-target",
                 "https://www.cs.toronto.edu/~kriz/cifar-100-python.tar.gz", extract=True,
                 file_hash="85cd44d02ba6437773c5bbd22e183051d648de2e7d6b014e1ef29b855ba677a7")
    path = os.path.join(root, "cifar-100-python")
    key = label_mode + "_labels"
    x_train, y_train = load_batch(os.path.join(path, "train"), label_key=key)
    x_test, y_test = load_batch(os.path.join(path, "test"), label_key=key)
    y_train = np.asarray(y_train).reshape(-1, 1)
    y_test = np.asarray(y_test).reshape(-1, 1)
    if image_data_format() == "channels_last":
        x_train, x_test = x_train.transpose(0, 2, 3, 1), x_test.transpose(0, 2, 3, 1)
    return (x_train, y_train), (x_test, y_test)
