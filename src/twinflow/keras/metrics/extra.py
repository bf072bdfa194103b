"""Keras 3's newer metrics: BinaryIoU and the one-hot IoUs, Pearson and concordance
correlations, R2Score, and the threshold-sweeping PrecisionAtRecall, RecallAtPrecision,
SensitivityAtSpecificity, SpecificityAtSensitivity (Keras 3.15's definitions)."""
from __future__ import annotations

import functools

from ...core import dtypes
from ...graph.tensor import DTypeLike, Tensor, TensorLike
from ...ops import array_ops, math_ops, reduction_ops
from .. import losses as _losses
from ..declare import REQUIRED, bound_init, docstring, make_class, with_args
from ..losses.base import per_sample
from ..settings import epsilon
from .base import Metric, _Confusion, _to_float, wrapper_class
from .more import _IOU_ARGS, IoU, MeanIoU


def _same_rank(y_true, y_pred):
    y_true, y_pred = _losses._pair(y_true, y_pred)
    return _losses._match_rank(y_true, y_pred), y_pred


@per_sample(axis="the axis the correlation runs over.", returns="One coefficient per sample.")
def pearson_correlation(y_true: TensorLike, y_pred: TensorLike, axis: int = -1) -> Tensor:
    """The Pearson correlation of ``y_true`` and ``y_pred`` along ``axis``."""
    y_true, y_pred = _same_rank(y_true, y_pred)
    t = y_true - reduction_ops.reduce_mean(y_true, axis=axis, keepdims=True)
    p = y_pred - reduction_ops.reduce_mean(y_pred, axis=axis, keepdims=True)
    t = t / reduction_ops.reduce_std(t, axis=axis, keepdims=True)
    p = p / reduction_ops.reduce_std(p, axis=axis, keepdims=True)
    return reduction_ops.reduce_mean(t * p, axis=axis)


@per_sample(axis="the axis the coefficient runs over.", returns="One coefficient per sample.")
def concordance_correlation(y_true: TensorLike, y_pred: TensorLike, axis: int = -1) -> Tensor:
    """Lin's concordance correlation along ``axis``, written as Keras 3.15 computes it (its
    covariance term centres ``y_true`` on the mean of ``y_pred``)."""
    y_true, y_pred = _same_rank(y_true, y_pred)
    t_mean = reduction_ops.reduce_mean(y_true, axis=axis, keepdims=True)
    p_mean = reduction_ops.reduce_mean(y_pred, axis=axis, keepdims=True)
    t_var = reduction_ops.reduce_variance(y_true - t_mean, axis=axis, keepdims=True)
    p_var = reduction_ops.reduce_variance(y_pred - p_mean, axis=axis, keepdims=True)
    covar = (y_true - p_mean) * (y_pred - p_mean)
    norm = t_var + p_var + math_ops.square(t_mean - p_mean)
    return reduction_ops.reduce_mean(2.0 * covar / (norm + epsilon()), axis=axis)


_wrapper = functools.partial(wrapper_class, module=__name__)
PearsonCorrelation = _wrapper("PearsonCorrelation", pearson_correlation,
                              "The mean Pearson correlation of the batches' samples.",
                              {"axis": -1})
ConcordanceCorrelation = _wrapper("ConcordanceCorrelation", concordance_correlation,
                                  "The mean concordance correlation of the batches' samples.",
                                  {"axis": -1})


class R2Score(Metric):
    """The coefficient of determination, accumulated over every batch, per output column.

    Args:
        class_aggregation: ``'uniform_average'`` (mean of the columns' scores),
            ``'variance_weighted_average'`` or None (one score per column).
        num_regressors: for the adjusted R2 (0: plain R2).
        name: the metric name.
        dtype: the result dtype.
    """

    def __init__(self, class_aggregation: str | None = "uniform_average",
                 num_regressors: int = 0, name: str = "r2_score",
                 dtype: DTypeLike | None = None) -> None:
        super().__init__(name=name, dtype=dtype)
        valid = (None, "uniform_average", "variance_weighted_average")
        if class_aggregation not in valid:
            raise ValueError(f"Invalid value for argument `class_aggregation`. Expected one "
                             f"of {valid}. Received: class_aggregation={class_aggregation}")
        if num_regressors < 0:
            raise ValueError("Invalid value for argument `num_regressors`. Expected a value "
                             f">= 0. Received: num_regressors={num_regressors}")
        self.class_aggregation = class_aggregation
        self.num_regressors = int(num_regressors)
        self.num_samples = self.add_weight("num_samples", ())
        self._columns = None

    def _build(self, shape) -> None:
        if shape.rank != 2 or shape[-1] is None:
            raise ValueError("R2Score expects 2D inputs with shape (batch_size, output_dim), "
                             f"output_dim known. Received: y_pred.shape={shape}")
        n = int(shape[-1])
        self._add_state((n,), "squared_sum", "sum", total_mse="residual")
        self._add_state((n,), "count")
        self._columns = n

    def update_state(self, y_true: TensorLike, y_pred: TensorLike,
                     sample_weight: TensorLike | None = None) -> None:
        y_true, y_pred = _same_rank(_to_float(y_true), _to_float(y_pred))
        if self._columns is None:
            self._build(y_pred.shape)
        w = array_ops.ones_like(y_true) if sample_weight is None else _to_float(sample_weight)
        if w.shape.rank == 1:
            w = array_ops.expand_dims(w, 1)
        w = array_ops.broadcast_to(w, array_ops.shape(y_true))
        self.sum.assign_add(reduction_ops.reduce_sum(y_true * w, axis=0))
        self.squared_sum.assign_add(reduction_ops.reduce_sum(y_true * y_true * w, axis=0))
        self.total_mse.assign_add(reduction_ops.reduce_sum(
            math_ops.square(y_true - y_pred) * w, axis=0))
        self.count.assign_add(reduction_ops.reduce_sum(w, axis=0))
        self.num_samples.assign_add(math_ops.cast(array_ops.size(y_true), dtypes.float32))

    def result(self) -> Tensor:
        if self._columns is None:
            return array_ops.zeros([], dtypes.float32)
        s = self.sum.read_value()
        total = self.squared_sum.read_value() - s * (s / self.count.read_value())
        raw = 1.0 - self.total_mse.read_value() / total
        raw = math_ops.where(math_ops.is_inf(raw), array_ops.zeros_like(raw), raw)
        if self.class_aggregation == "uniform_average":
            score = reduction_ops.reduce_mean(raw)
        elif self.class_aggregation == "variance_weighted_average":
            score = reduction_ops.reduce_sum(total * raw) / reduction_ops.reduce_sum(total)
        else:
            score = raw
        if self.num_regressors:
            n = self.num_samples.read_value()
            p = float(self.num_regressors)
            # Keras falls back to the plain score when n - 1 <= p (with a warning).
            adjusted = 1.0 - (1.0 - score) * (n - 1.0) / (n - p - 1.0)
            score = math_ops.where(math_ops.greater(n - 1.0, p), adjusted, score)
        return score

    def reset_state(self) -> None:
        for v in self.variables:
            v.assign(array_ops.zeros_like(v.read_value()))

    def get_config(self) -> dict:
        return {"name": self.name, "dtype": self.dtype,
                "class_aggregation": self.class_aggregation,
                "num_regressors": self.num_regressors}


@with_args(_IOU_ARGS, target_class_ids="which of the classes 0 and 1 are averaged.",
           threshold="predictions at or above it count as class 1.")
class BinaryIoU(IoU):
    """IoU of binary labels against predictions thresholded at ``threshold`` (``>=``)."""

    def __init__(self, target_class_ids=(0, 1), threshold: float = 0.5,
                 name: str | None = None, dtype: DTypeLike | None = None) -> None:
        super().__init__(2, target_class_ids, name=name, dtype=dtype)
        self.threshold = threshold

    def update_state(self, y_true: TensorLike, y_pred: TensorLike,
                     sample_weight: TensorLike | None = None) -> None:
        pred = math_ops.cast(math_ops.greater_equal(_to_float(y_pred), self.threshold),
                             dtypes.int32)
        super().update_state(y_true, pred, sample_weight)


@with_args(_IOU_ARGS, sparse_y_pred="predictions are already class ids.",
           axis="the class axis.")
class OneHotIoU(IoU):
    """IoU of one-hot labels and class scores (both reduced by argmax over ``axis``)."""

    def __init__(self, num_classes: int, target_class_ids, name: str | None = None,
                 dtype: DTypeLike | None = None, ignore_class: int | None = None,
                 sparse_y_pred: bool = False, axis: int = -1) -> None:
        super().__init__(num_classes, target_class_ids, name=name, dtype=dtype,
                         ignore_class=ignore_class, sparse_y_true=False,
                         sparse_y_pred=sparse_y_pred, axis=axis)


@with_args(_IOU_ARGS, sparse_y_pred="predictions are already class ids.",
           axis="the class axis.")
class OneHotMeanIoU(MeanIoU):
    """The mean IoU of every class, from one-hot labels and class scores."""

    def __init__(self, num_classes: int, name: str | None = None,
                 dtype: DTypeLike | None = None, ignore_class: int | None = None,
                 sparse_y_pred: bool = False, axis: int = -1) -> None:
        super().__init__(num_classes, name=name, dtype=dtype, ignore_class=ignore_class,
                         sparse_y_true=False, sparse_y_pred=sparse_y_pred, axis=axis)


class _AtConstraint(_Confusion):
    """Counts at ``num_thresholds`` thresholds spread over [0, 1] (0.5 alone when 1); the
    result is the best ``dependent`` rate among thresholds whose ``constrained`` rate is at
    least ``value`` (0 when none)."""
    _value_name = "value"

    def __init__(self, value: float, num_thresholds: int, class_id: int | None,
                 name: str | None, dtype: DTypeLike | None) -> None:
        if not 0 <= value <= 1:
            raise ValueError(f"Argument `{self._value_name}` must be in the range [0, 1]. "
                             f"Received: {self._value_name}={value}")
        if num_thresholds <= 0:
            raise ValueError("Argument `num_thresholds` must be an integer > 0. "
                             f"Received: num_thresholds={num_thresholds}")
        thresholds = [0.5] if num_thresholds == 1 else \
            [0.0] + [(i + 1) / (num_thresholds - 1) for i in range(num_thresholds - 2)] + [1.0]
        super().__init__(thresholds, name=name, dtype=dtype)
        self.value, self.num_thresholds, self.class_id = value, int(num_thresholds), class_id

    def update_state(self, y_true, y_pred, sample_weight=None) -> None:
        if self.class_id is not None:
            y_true = _to_float(y_true)[..., self.class_id]
            y_pred = _to_float(y_pred)[..., self.class_id]
        super().update_state(y_true, y_pred, sample_weight)

    def _rates(self):
        tp, fp = self.true_positives.read_value(), self.false_positives.read_value()
        tn, fn = self.true_negatives.read_value(), self.false_negatives.read_value()
        return {"sensitivity": math_ops.div_no_nan(tp, tp + fn),
                "specificity": math_ops.div_no_nan(tn, tn + fp),
                "precision": math_ops.div_no_nan(tp, tp + fp)}

    def _best(self, constrained: str, dependent: str) -> Tensor:
        r = self._rates()
        feasible = math_ops.greater_equal(r[constrained], self.value)
        best = math_ops.where(feasible, r[dependent], array_ops.zeros_like(r[dependent]))
        return math_ops.maximum(reduction_ops.reduce_max(best), 0.0)

    def reset_state(self) -> None:
        for v in (self.true_positives, self.false_positives, self.true_negatives,
                  self.false_negatives):
            v.assign(array_ops.zeros_like(v.read_value()))

    def get_config(self) -> dict:
        return {"name": self.name, "dtype": self.dtype, "class_id": self.class_id,
                "num_thresholds": self.num_thresholds, self._value_name: self.value}


def _at_metric(class_name: str, value_name: str, constrained: str, dependent: str,
               default: str, doc: str) -> type:
    def result(self) -> Tensor:
        """The best dependent rate under the constraint.

        Returns:
            A float32 scalar.
        """
        return self._best(constrained, dependent)

    def init(self, num_thresholds, class_id, name, dtype, **value) -> None:
        _AtConstraint.__init__(self, value[value_name], num_thresholds, class_id,
                               name or default, dtype)
    # Keras names the first argument after the constrained rate (recall=..., precision=...).
    params = [(value_name, REQUIRED), ("num_thresholds", 200), ("class_id", None),
              ("name", None), ("dtype", None)]
    return make_class(class_name, (_AtConstraint,), __name__, docstring(doc, {
        value_name: "the required rate, in [0, 1].",
        "num_thresholds": "how many thresholds to sweep.",
        "class_id": "the class column scored (None: all values).",
        "name": "the metric name.", "dtype": "the result dtype."}),
        {"__init__": bound_init(params, init), "result": result, "_value_name": value_name})


SensitivityAtSpecificity = _at_metric(
    "SensitivityAtSpecificity", "specificity", "specificity", "sensitivity",
    "sensitivity_at_specificity", "The best sensitivity where specificity is at least "
    "``specificity``.")
SpecificityAtSensitivity = _at_metric(
    "SpecificityAtSensitivity", "sensitivity", "sensitivity", "specificity",
    "specificity_at_sensitivity", "The best specificity where sensitivity is at least "
    "``sensitivity``.")
PrecisionAtRecall = _at_metric(
    "PrecisionAtRecall", "recall", "sensitivity", "precision", "precision_at_recall",
    "The best precision where recall is at least ``recall``.")
RecallAtPrecision = _at_metric(
    "RecallAtPrecision", "precision", "precision", "sensitivity", "recall_at_precision",
    "The best recall where precision is at least ``precision``.")
