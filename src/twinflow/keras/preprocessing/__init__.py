"""``tw.keras.preprocessing``: Keras' legacy preprocessing API (``image``, ``sequence``,
``text``) and the data set builders it re-exports from ``keras.utils``."""
# ruff: noqa: F401  (a re-export module: every import is public)
from ..utils import (
    image_dataset_from_directory,
    text_dataset_from_directory,
    timeseries_dataset_from_array,
)
from . import image, sequence, text
