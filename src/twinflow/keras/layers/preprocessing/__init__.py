"""Keras preprocessing layers (``tw.keras.layers.Normalization``, ``StringLookup``...)."""
# ruff: noqa: F401  (a re-export module: every import is public)
from .affine import RandomRotation, RandomTranslation, RandomZoom
from .audio import MelSpectrogram, STFTSpectrogram
from .augment import RandomBrightness, RandomContrast, RandomCrop, RandomFlip
from .augment_color import (
    AutoContrast,
    Equalization,
    RandomColorJitter,
    RandomGaussianBlur,
    RandomHue,
    RandomSaturation,
    RandomSharpness,
    Solarization,
)
from .augment_geometry import (
    RandomElasticTransform,
    RandomHeight,
    RandomPerspective,
    RandomShear,
    RandomWidth,
)
from .augment_mix import CutMix, MaxNumBoundingBoxes, MixUp, RandomErasing
from .augment_policy import AugMix, ContrastLimitedAdaptiveHistogramEqualization, RandAugment
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
