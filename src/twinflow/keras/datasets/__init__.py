"""``tw.keras.datasets``: small data sets shipped with twinflow (nothing is downloaded)."""
from . import digits, mnist

__all__ = ["digits", "mnist"]
