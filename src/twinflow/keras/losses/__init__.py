"""``tw.keras.losses``: loss functions (per-sample values) and Loss classes (reduced).

``base.py``: the Loss base, reductions, the cross-entropies, MSE/MAE/Huber and the other
classic losses, ``get``; ``more.py``: focal and generalized cross-entropies,
Dice, Tversky, Circle.
"""
# ruff: noqa: F401  (a re-export module)
from collections.abc import Callable

from ..named import serializers as _serializers
from ..registry import deserialize_object as _deserialize_object
from .base import (
    _BY_NAME,
    _EPS,
    KLD,
    MAE,
    MAPE,
    MSE,
    MSLE,
    BinaryCrossentropy,
    CategoricalCrossentropy,
    CategoricalHinge,
    CosineSimilarity,
    Hinge,
    Huber,
    KLDivergence,
    LogCosh,
    Loss,
    LossFunctionWrapper,
    MeanAbsoluteError,
    MeanAbsolutePercentageError,
    MeanSquaredError,
    MeanSquaredLogarithmicError,
    Poisson,
    Reduction,
    SparseCategoricalCrossentropy,
    SquaredHinge,
    _aligned_pair,
    _match_rank,
    _pair,
    _tensor,
    binary_crossentropy,
    categorical_crossentropy,
    categorical_hinge,
    cosine_similarity,
    get,
    hinge,
    huber,
    kl_divergence,
    kld,
    kullback_leibler_divergence,
    log_cosh,
    logcosh,
    mae,
    mape,
    mean_absolute_error,
    mean_absolute_percentage_error,
    mean_squared_error,
    mean_squared_logarithmic_error,
    mse,
    msle,
    poisson,
    reduce_weighted,
    sparse_categorical_crossentropy,
    squared_hinge,
)
from .more import (
    CTC,
    BinaryFocalCrossentropy,
    CategoricalFocalCrossentropy,
    CategoricalGeneralizedCrossEntropy,
    Circle,
    Dice,
    Tversky,
    binary_focal_crossentropy,
    categorical_focal_crossentropy,
    categorical_generalized_cross_entropy,
    circle,
    ctc,
    dice,
    tversky,
)

_BY_NAME.update({
    "binary_focal_crossentropy": binary_focal_crossentropy,
    "categorical_focal_crossentropy": categorical_focal_crossentropy,
    "categorical_generalized_cross_entropy": categorical_generalized_cross_entropy,
    "dice": dice, "tversky": tversky, "circle": circle, "ctc": ctc,
})


serialize, deserialize = _serializers(
    "loss", __name__, lambda config, custom: _deserialize_object(
        config, custom, globals(), Loss, get, "loss"), Loss, names=("loss", "name"))
