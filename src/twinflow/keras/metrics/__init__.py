"""``tw.keras.metrics``: stateful metrics (``update_state``/``result``/``reset_state``).

``base.py``: the Metric classes, accuracies, MSE/MAE, Precision/Recall/AUC, ``get``;
``more.py``: the loss-style means, RMSE, top-k accuracies, confusion counts, F-scores, IoU;
``extra.py``: BinaryIoU, one-hot IoUs, correlations, R2Score, the ``*At*`` threshold metrics.
"""
# ruff: noqa: F401  (a re-export module)
from ..losses import (
    binary_crossentropy,
    binary_focal_crossentropy,
    categorical_crossentropy,
    categorical_focal_crossentropy,
    categorical_hinge,
    hinge,
    huber,
    kl_divergence,
    log_cosh,
    mean_absolute_error,
    mean_absolute_percentage_error,
    mean_squared_error,
    mean_squared_logarithmic_error,
    poisson,
    sparse_categorical_crossentropy,
    squared_hinge,
)
from ..named import serializers as _serializers
from ..registry import deserialize_object as _deserialize_object
from .base import *  # noqa: F403
from .base import _BY_NAME, Metric, get
from .base import __all__ as _base_all
from .extra import (
    BinaryIoU,
    ConcordanceCorrelation,
    OneHotIoU,
    OneHotMeanIoU,
    PearsonCorrelation,
    PrecisionAtRecall,
    R2Score,
    RecallAtPrecision,
    SensitivityAtSpecificity,
    SpecificityAtSensitivity,
    concordance_correlation,
    pearson_correlation,
)
from .more import (
    BinaryCrossentropy,
    CategoricalCrossentropy,
    CategoricalHinge,
    CosineSimilarity,
    F1Score,
    FalseNegatives,
    FalsePositives,
    FBetaScore,
    Hinge,
    IoU,
    KLDivergence,
    LogCoshError,
    MeanAbsolutePercentageError,
    MeanIoU,
    MeanSquaredLogarithmicError,
    Poisson,
    RootMeanSquaredError,
    SparseTopKCategoricalAccuracy,
    SquaredHinge,
    TopKCategoricalAccuracy,
    TrueNegatives,
    TruePositives,
    sparse_top_k_categorical_accuracy,
    top_k_categorical_accuracy,
)

_BY_NAME.update({
    "top_k_categorical_accuracy": TopKCategoricalAccuracy,
    "sparse_top_k_categorical_accuracy": SparseTopKCategoricalAccuracy,
    "root_mean_squared_error": RootMeanSquaredError, "hinge": Hinge,
    "squared_hinge": SquaredHinge, "categorical_hinge": CategoricalHinge,
    "logcosh": LogCoshError, "poisson": Poisson, "kl_divergence": KLDivergence,
    "kld": KLDivergence, "cosine_similarity": CosineSimilarity,
    "mape": MeanAbsolutePercentageError,
    "mean_absolute_percentage_error": MeanAbsolutePercentageError,
    "msle": MeanSquaredLogarithmicError,
    "mean_squared_logarithmic_error": MeanSquaredLogarithmicError,
    "binary_crossentropy": BinaryCrossentropy,
    "categorical_crossentropy": CategoricalCrossentropy,
    "pearson_correlation": PearsonCorrelation,
    "concordance_correlation": ConcordanceCorrelation, "r2_score": R2Score,
})

mse = MSE = mean_squared_error
mae = MAE = mean_absolute_error
mape = MAPE = mean_absolute_percentage_error
msle = MSLE = mean_squared_logarithmic_error
kld = KLD = kullback_leibler_divergence = kl_divergence
logcosh = log_cosh


serialize, deserialize = _serializers(
    "metric", __name__, lambda config, custom: _deserialize_object(
        config, custom, globals(), Metric, get, "metric"), Metric, names=("metric", "config"))


__all__ = [n for n in dir() if not n.startswith("_")]
