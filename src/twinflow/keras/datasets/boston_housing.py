"""``tw.keras.datasets.boston_housing``: the Boston housing prices from Keras' cache file
``~/.keras/datasets/boston_housing.npz``."""
from __future__ import annotations

from ._files import load_regression


def load_data(path: str = "boston_housing.npz", test_split: float = 0.2,
              seed: int = 113) -> tuple:
    """Loads the 506 samples (13 features, median price), shuffled and split as Keras does.

    Args:
        path: the file name in the cache.
        test_split: the test fraction, in [0, 1).
        seed: the shuffle seed.

    Returns:
        ``((x_train, y_train), (x_test, y_test))``.
    """
    return load_regression(path, "boston_housing.npz", "f553886a1f8d56431e820c5b82552d9d95cf"
                           "cb96d1e678153f8839538947dff5", test_split, seed)
