"""``tw.keras.datasets.california_housing``: the California housing prices from Keras' cache
file ``~/.keras/datasets/california_housing.npz``."""
from __future__ import annotations

from ._files import load_regression


def load_data(version: str = "large", path: str = "california_housing.npz",
              test_split: float = 0.2, seed: int = 113) -> tuple:
    """Loads the 20,640 districts (8 features, median value), shuffled and split as Keras.

    Args:
        version: "large" (all) or "small" (the first 600).
        path, test_split, seed: as in ``boston_housing.load_data``.

    Returns:
        ``((x_train, y_train), (x_test, y_test))``.
    """
    if version not in ("large", "small"):
        raise ValueError(f"Argument `version` must be one of 'small', 'large'. Received: "
                         f"version={version}")
    return load_regression(path, "california_housing.npz", "1a2e3a52e0398de6463aebe6f4a8da34"
                           "fb21fbb6b934cf88c3425e766f2a1a6f", test_split, seed,
                           rows=600 if version == "small" else None)
