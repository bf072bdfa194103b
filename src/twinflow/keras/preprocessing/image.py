"""``tw.keras.preprocessing.image``: Keras' legacy image API (``ImageDataGenerator``, its
iterators, the NumPy transforms) and the ``keras.utils`` image file helpers."""
# ruff: noqa: F401  (a re-export module: every import is public)
from ..utils.image_utils import array_to_img, img_to_array, load_img, save_img, smart_resize
from .image_generator import ImageDataGenerator
from .image_iterators import DataFrameIterator, DirectoryIterator, Iterator, NumpyArrayIterator
from .image_transforms import (
    apply_affine_transform,
    apply_brightness_shift,
    apply_channel_shift,
    random_brightness,
    random_channel_shift,
    random_rotation,
    random_shear,
    random_shift,
    random_zoom,
)
