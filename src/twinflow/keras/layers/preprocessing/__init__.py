"""Keras preprocessing layers (``tw.keras.layers.Normalization``, ``StringLookup``...)."""
# ruff: noqa: F401  (a re-export module: every import is public)
from .affine import RandomRotation, RandomTranslation, RandomZoom
from .augment import RandomBrightness, RandomContrast, RandomCrop, RandomFlip
from .color import (
    RandomColorDegeneration,
    RandomGrayscale,
    RandomInvert,
    RandomPosterization,
)
from .image import CenterCrop, Resizing
from .lookup import IntegerLookup, StringLookup
from .numeric import (
    CategoryEncoding,
    Discretization,
    HashedCrossing,
    Hashing,
    Normalization,
    Rescaling,
)
from .text import TextVectorization
