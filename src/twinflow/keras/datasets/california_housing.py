"""``tw.keras.datasets.california_housing``: the California housing prices from Keras' cache
file ``~/.keras/datasets/california_housing.npz``."""
from __future__ import annotations

import numpy as np

from ._files import ORIGIN, check_test_split, fetch, split


def load_data(version: str = "large", path: str = "california_housing.npz",
              test_split: float = 0.2, seed: int = 113) -> tuple:
    """Loads the 20,640 districts (8 features, median value), shuffled and split as Keras.

    Args:
        version: "large" (all) or "small" (the first 600).
        path: the file name in the cache.
        test_split: the test fraction, in [0, 1).
        seed: the shuffle seed.

    Returns:
        ``((x_train, y_train), (x_test, y_test))``.
    """
    check_test_split(test_split)
    if version not in ("large", "small"):
        raise ValueError(f"Argument `version` must be one of 'small', 'large'. Received: "
                         f"version={version}")
    path = fetch(path, ORIGIN + "california_housing.npz", file_hash="1a2e3a52e0398de6463aeb"
                 "e6f4a8da34fb21fbb6b934cf88c3425e766f2a1a6f")
    with np.load(path, allow_pickle=False) as f:
        x, y = f["x"], f["y"]
    if version == "small":
        x, y = x[:600], y[:600]
    return split(x, y, test_split, seed)
