"""The 8x8 handwritten digits (UCI "Optical Recognition of Handwritten Digits", 1,797 images).

Shipped inside the package as ``digits.npz`` (see ``README.md`` next to it for the source and the
CC BY 4.0 licence), so it loads offline. Pixel values are integers 0..16.
"""
from __future__ import annotations

import os

import numpy as np

_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "digits.npz")


def load_data() -> tuple:
    """Loads the digits, split into 1,437 training and 360 test images.

    Returns:
        ``((x_train, y_train), (x_test, y_test))``: uint8 images of shape ``(n, 8, 8)`` with
        values 0..16, and uint8 labels 0..9.
    """
    with np.load(_PATH, allow_pickle=False) as z:
        return (z["x_train"], z["y_train"]), (z["x_test"], z["y_test"])
