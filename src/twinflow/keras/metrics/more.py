"""More metrics: the loss-style means (Hinge, LogCoshError, CosineSimilarity...),
RootMeanSquaredError, top-k accuracies, confusion counts (TruePositives...), F1Score and
FBetaScore, IoU and MeanIoU (Keras 3's definitions)."""
from __future__ import annotations

import functools
import inspect

from ...core import dtypes
from ...eager.execute import convert_to_tensor
from ...graph.tensor import DTypeLike, Tensor, TensorLike
from ...ops import array_ops, linalg_ops, math_ops, nn_ops, reduction_ops
from .. import losses as _losses
from ..declare import docstring, make_class, with_args
from .base import _THRESHOLDED_ARGS, Mean, Metric, _Thresholded, _to_float, wrapper_class

_wrapper = functools.partial(wrapper_class, module=__name__)


def _cosine(y_true, y_pred, axis=-1):
    return -_losses.cosine_similarity(y_true, y_pred, axis=axis)


def top_k_categorical_accuracy(y_true: TensorLike, y_pred: TensorLike, k: int = 5) -> Tensor:
    """1 where the true class (one-hot ``y_true``) is among the ``k`` highest predictions.

    Args:
        y_true: one-hot targets.
        y_pred: scores.
        k: how many top predictions count.

    Returns:
        One 0/1 value per sample.
    """
    y_pred = _to_float(y_pred)
    target = reduction_ops.argmax(_to_float(y_true), axis=-1)
    return sparse_top_k_categorical_accuracy(target, y_pred, k)


def sparse_top_k_categorical_accuracy(y_true: TensorLike, y_pred: TensorLike,
                                      k: int = 5, from_sorted_ids: bool = False) -> Tensor:
    """1 where the true class id is among the ``k`` highest predictions.

    Args:
        y_true: class ids (a trailing axis of 1 is dropped).
        y_pred: scores ``(batch, classes)``; with ``from_sorted_ids``, class ids sorted by
            decreasing score ``(batch, n)`` (the first ``k`` count).
        k: how many top predictions count.
        from_sorted_ids: whether ``y_pred`` holds sorted class ids rather than scores.

    Returns:
        One 0/1 value per sample.
    """
    target = math_ops.cast(array_ops.reshape(y_true, [-1]), dtypes.int32)
    if from_sorted_ids:
        ids = math_ops.cast(convert_to_tensor(y_pred), dtypes.int32)[:, :k]
        hit = reduction_ops.reduce_any(
            math_ops.equal(ids, array_ops.expand_dims(target, -1)), axis=-1)
        return math_ops.cast(hit, dtypes.float32)
    y_pred = _to_float(y_pred)
    hit = nn_ops.in_top_k(target, array_ops.reshape(y_pred, [-1, y_pred.shape.as_list()[-1]]),
                          k)
    return math_ops.cast(hit, dtypes.float32)


Hinge = _wrapper("Hinge", _losses.hinge, "The mean hinge loss.")
SquaredHinge = _wrapper("SquaredHinge", _losses.squared_hinge, "The mean squared hinge loss.")
CategoricalHinge = _wrapper("CategoricalHinge", _losses.categorical_hinge,
                            "The mean categorical hinge loss.")
LogCoshError = _wrapper("LogCoshError", _losses.log_cosh, "The mean log-cosh.", name="logcosh")
Poisson = _wrapper("Poisson", _losses.poisson, "The mean Poisson loss.")
KLDivergence = _wrapper("KLDivergence", _losses.kl_divergence, "The mean KL divergence.")
CosineSimilarity = _wrapper("CosineSimilarity", _cosine,
                            "The mean cosine similarity (1: aligned).", {"axis": -1},
                            name="cosine_similarity", arg_docs={"axis": "the vector axis."})
MeanAbsolutePercentageError = _wrapper("MeanAbsolutePercentageError",
                                       _losses.mean_absolute_percentage_error,
                                       "The mean absolute percentage error.")
MeanSquaredLogarithmicError = _wrapper("MeanSquaredLogarithmicError",
                                       _losses.mean_squared_logarithmic_error,
                                       "The mean squared logarithmic error.")
BinaryCrossentropy = _wrapper("BinaryCrossentropy", _losses.binary_crossentropy,
                              "The mean binary cross-entropy.",
                              {"from_logits": False, "label_smoothing": 0.0})
CategoricalCrossentropy = _wrapper("CategoricalCrossentropy", _losses.categorical_crossentropy,
                                   "The mean categorical cross-entropy.",
                                   {"from_logits": False, "label_smoothing": 0.0, "axis": -1})
_TOP_K = {"k": "how many top predictions count."}
TopKCategoricalAccuracy = _wrapper("TopKCategoricalAccuracy", top_k_categorical_accuracy,
                                   "How often the true class is in the top ``k``.",
                                   leading={"k": 5}, arg_docs=_TOP_K)
SparseTopKCategoricalAccuracy = _wrapper(
    "SparseTopKCategoricalAccuracy", sparse_top_k_categorical_accuracy,
    "How often the true class id is in the top ``k``.", {"from_sorted_ids": False},
    leading={"k": 5},
    arg_docs={**_TOP_K, "from_sorted_ids": "whether ``y_pred`` holds sorted class ids "
                                           "rather than scores."})


class RootMeanSquaredError(Mean):
    """``sqrt(mean((y_true - y_pred) ** 2))`` over everything seen.

    Args:
        name: the metric name.
        dtype: the result dtype.
    """

    def __init__(self, name: str = "root_mean_squared_error",
                 dtype: DTypeLike | None = None) -> None:
        super().__init__(name=name, dtype=dtype)

    def update_state(self, y_true: TensorLike, y_pred: TensorLike,
                     sample_weight: TensorLike | None = None) -> None:
        y_pred = _to_float(y_pred)
        y_true = array_ops.reshape(_to_float(y_true), array_ops.shape(y_pred))
        return super().update_state(math_ops.square(y_pred - y_true),
                                    sample_weight=sample_weight)

    def result(self) -> Tensor:
        return math_ops.sqrt(super().result())


def _count(class_name: str, field: str) -> type:
    def result(self) -> Tensor:
        return self._per_threshold(getattr(self, field).read_value())
    return make_class(class_name, (_Thresholded,), __name__, docstring(
        f"The (weighted) number of {field.replace('_', ' ')} of predictions above "
        "``thresholds``.", _THRESHOLDED_ARGS), {"result": result, "_default_name": field})


TruePositives = _count("TruePositives", "true_positives")
FalsePositives = _count("FalsePositives", "false_positives")
TrueNegatives = _count("TrueNegatives", "true_negatives")
FalseNegatives = _count("FalseNegatives", "false_negatives")


class FBetaScore(Metric):
    """F-beta score per class of ``(batch, classes)`` predictions: each row's top class
    (``threshold=None``) or every score above ``threshold`` counts as predicted.

    Args:
        average: None (one score per class), ``'micro'``, ``'macro'`` or ``'weighted'``.
        beta: the weight of recall against precision.
        threshold: the decision threshold (None: the row's maximum).
        name: the metric name.
        dtype: the result dtype.
    """

    def __init__(self, average: str | None = None, beta: float = 1.0, threshold=None,
                 name: str = "fbeta_score", dtype: DTypeLike | None = None) -> None:
        super().__init__(name=name, dtype=dtype)
        if average not in (None, "micro", "macro", "weighted"):
            raise ValueError(f"Invalid `average` argument value. Expected one of: "
                             f"{{None, 'micro', 'macro', 'weighted'}}. Received: "
                             f"average={average}")
        if not isinstance(beta, (int, float)) or beta <= 0:
            raise ValueError(f"`beta` should be a positive float. Received: beta={beta}")
        if threshold is not None and not 0 < threshold <= 1:
            raise ValueError(f"`threshold` should be a float in (0, 1]. Received: "
                             f"threshold={threshold}")
        self.average, self.beta, self.threshold = average, float(beta), threshold
        self._tw_built = False

    def _build(self, classes: int) -> None:
        self._add_state((classes,), "true_positives", "false_positives", "false_negatives",
                        "intermediate_weights")
        self._tw_built = True

    def update_state(self, y_true: TensorLike, y_pred: TensorLike,
                     sample_weight: TensorLike | None = None) -> None:
        y_pred = _to_float(y_pred)
        y_true = _to_float(y_true)
        if not self._tw_built:
            self._build(y_pred.shape.as_list()[-1])
        if self.threshold is None:
            top = reduction_ops.reduce_max(y_pred, axis=-1, keepdims=True)
            pred = math_ops.cast(math_ops.greater_equal(y_pred, top), dtypes.float32)
        else:
            pred = math_ops.cast(math_ops.greater(y_pred, self.threshold), dtypes.float32)
        w = 1.0 if sample_weight is None else array_ops.reshape(
            _to_float(sample_weight), [-1, 1])
        self.true_positives.assign_add(reduction_ops.reduce_sum(pred * y_true * w, axis=0))
        self.false_positives.assign_add(
            reduction_ops.reduce_sum(pred * (1.0 - y_true) * w, axis=0))
        self.false_negatives.assign_add(
            reduction_ops.reduce_sum((1.0 - pred) * y_true * w, axis=0))
        self.intermediate_weights.assign_add(reduction_ops.reduce_sum(y_true * w, axis=0))

    def result(self) -> Tensor:
        tp, fp = self.true_positives.read_value(), self.false_positives.read_value()
        fn = self.false_negatives.read_value()
        if self.average == "micro":
            tp, fp, fn = (reduction_ops.reduce_sum(v) for v in (tp, fp, fn))
        precision = math_ops.div_no_nan(tp, tp + fp)
        recall = math_ops.div_no_nan(tp, tp + fn)
        b2 = self.beta ** 2
        f = math_ops.div_no_nan((1.0 + b2) * precision * recall, b2 * precision + recall)
        if self.average == "macro":
            return reduction_ops.reduce_mean(f)
        if self.average == "weighted":
            w = self.intermediate_weights.read_value()
            return math_ops.div_no_nan(reduction_ops.reduce_sum(f * w),
                                       reduction_ops.reduce_sum(w))
        return f

    def reset_state(self) -> None:
        if self._tw_built:
            for v in (self.true_positives, self.false_positives, self.false_negatives,
                      self.intermediate_weights):
                v.assign(array_ops.zeros_like(v.read_value()))

    def get_config(self) -> dict:
        return {"name": self.name, "average": self.average, "beta": self.beta,
                "threshold": self.threshold}


class F1Score(FBetaScore):
    """The F1 score (``FBetaScore`` with beta 1).

    Args:
        average: None, ``'micro'``, ``'macro'`` or ``'weighted'``.
        threshold: the decision threshold (None: the row's maximum).
        name: the metric name.
        dtype: the result dtype.
    """

    def __init__(self, average: str | None = None, threshold=None, name: str = "f1_score",
                 dtype: DTypeLike | None = None) -> None:
        super().__init__(average=average, beta=1.0, threshold=threshold, name=name,
                         dtype=dtype)

    def get_config(self) -> dict:
        cfg = super().get_config()
        cfg.pop("beta")
        return cfg


_IOU_ARGS = dict(   # the IoU family's arguments (``with_args`` picks each member's)
    num_classes="the number of classes.", target_class_ids="the classes averaged.",
    name="the metric name.", dtype="the result dtype.",
    ignore_class="a class id whose samples are skipped.",
    sparse_y_true="labels are class ids (else one-hot/scores: argmax).",
    sparse_y_pred="predictions are class ids (else scores: argmax).",
    axis="the class axis for argmax.")


@with_args(_IOU_ARGS)
class IoU(Metric):
    """Intersection over union of class ids, averaged over ``target_class_ids``, from a
    confusion matrix accumulated over every batch."""

    def __init__(self, num_classes: int, target_class_ids, name: str | None = None,
                 dtype: DTypeLike | None = None, ignore_class: int | None = None,
                 sparse_y_true: bool = True, sparse_y_pred: bool = True,
                 axis: int = -1) -> None:
        super().__init__(name=name, dtype=dtype)
        self.num_classes = int(num_classes)
        self.target_class_ids = list(target_class_ids)
        if max(self.target_class_ids, default=0) >= self.num_classes:
            raise ValueError(f"Target class id {max(self.target_class_ids)} is out of range, "
                             f"which is [0, {self.num_classes}).")
        self.ignore_class = ignore_class
        self.sparse_y_true, self.sparse_y_pred, self.axis = sparse_y_true, sparse_y_pred, axis
        self.total_cm = self.add_weight("total_confusion_matrix",
                                        (self.num_classes, self.num_classes))

    def update_state(self, y_true: TensorLike, y_pred: TensorLike,
                     sample_weight: TensorLike | None = None) -> None:
        if not self.sparse_y_true:
            y_true = reduction_ops.argmax(y_true, axis=self.axis)
        if not self.sparse_y_pred:
            y_pred = reduction_ops.argmax(y_pred, axis=self.axis)
        t = math_ops.cast(array_ops.reshape(y_true, [-1]), dtypes.int32)
        p = math_ops.cast(array_ops.reshape(y_pred, [-1]), dtypes.int32)
        w = array_ops.ones_like(t, dtype=dtypes.float32) if sample_weight is None else \
            array_ops.reshape(_to_float(sample_weight), [-1])
        if self.ignore_class is not None:
            w = w * math_ops.cast(math_ops.not_equal(t, self.ignore_class), dtypes.float32)
            t = math_ops.maximum(t, 0)
        n = self.num_classes
        rows = array_ops.one_hot(t, n) * array_ops.expand_dims(w, -1)
        cols = array_ops.one_hot(p, n)
        self.total_cm.assign_add(linalg_ops.matmul(rows, cols, transpose_a=True))

    def result(self) -> Tensor:
        cm = self.total_cm.read_value()
        true_sum = reduction_ops.reduce_sum(cm, axis=1)
        pred_sum = reduction_ops.reduce_sum(cm, axis=0)
        diag = array_ops.gather_nd(cm, [[i, i] for i in range(self.num_classes)])
        denom = true_sum + pred_sum - diag
        ids = self.target_class_ids
        iou = math_ops.div_no_nan(array_ops.gather(diag, ids), array_ops.gather(denom, ids))
        present = math_ops.cast(math_ops.not_equal(array_ops.gather(denom, ids), 0.0),
                                dtypes.float32)
        return math_ops.div_no_nan(reduction_ops.reduce_sum(iou), reduction_ops.reduce_sum(
            present))

    def get_config(self) -> dict:
        # The constructor's arguments, each kept under its name (subclasses fix some of them).
        return {k: getattr(self, k) for k in inspect.signature(type(self).__init__).parameters
                if k != "self"}


@with_args(_IOU_ARGS)
class MeanIoU(IoU):
    """The mean intersection over union of every class."""

    def __init__(self, num_classes: int, name: str | None = None,
                 dtype: DTypeLike | None = None, ignore_class: int | None = None,
                 sparse_y_true: bool = True, sparse_y_pred: bool = True,
                 axis: int = -1) -> None:
        super().__init__(num_classes, list(range(num_classes)), name=name, dtype=dtype,
                         ignore_class=ignore_class, sparse_y_true=sparse_y_true,
                         sparse_y_pred=sparse_y_pred, axis=axis)

