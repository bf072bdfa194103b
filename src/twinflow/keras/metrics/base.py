"""``tw.keras.metrics``: stateful metrics (``update_state``/``result``/``reset_state``).

State lives in non-trainable variables updated with ``assign_add``, so a metric updates the
same way eagerly and inside a traced train step. ``metric(values)`` updates and returns the
result: ``m(0); m(5); m.result()`` gives 2.5.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ...core import dtypes
from ...core.context import eager_mode
from ...graph.tensor import DTypeLike, Tensor, TensorLike
from ...ops import array_ops, math_ops, reduction_ops
from ...ops.variables import Variable, VariableAggregation, VariableSynchronization
from .. import losses as _losses
from ..declare import bound_init, docstring, make_class, with_args
from ..layers.base import Layer
from ..losses.base import per_sample_args


def _to_float(x, dtype=dtypes.float32):
    t = _losses._tensor(x)
    return t if t.dtype is dtype else math_ops.cast(t, dtype)


class Metric(Layer):
    """Base class of metrics: a layer whose variables accumulate statistics.

    Args:
        name: the metric name.
        dtype: the dtype of the result (float32).
    """

    _tw_is_metric = True

    def __init__(self, name: str | None = None, dtype: DTypeLike | None = None, **kwargs) -> None:
        super().__init__(name=name, dtype=dtype, **kwargs)
        self.built = True

    def __call__(self, *args: Any, **kwargs: Any) -> Tensor:
        """Updates the state with a batch and returns the new result.

        Args:
            *args: as for ``update_state``.
            **kwargs: as for ``update_state``.

        Returns:
            The metric's value after the update.
        """
        self.update_state(*args, **kwargs)
        return self.result()

    def update_state(self, *args, **kwargs) -> None:
        """Accumulates statistics (override).

        Args:
            *args: values (or ``y_true, y_pred``).
            **kwargs: ``sample_weight``.
        """
        raise NotImplementedError

    def result(self) -> Tensor:
        """The metric's current value (override).

        Returns:
            A scalar tensor.
        """
        raise NotImplementedError

    def reset_state(self) -> None:
        """Sets every state variable back to zero."""
        for v in self.variables:
            v.assign(np.zeros(v.shape.as_list(), v.dtype.np))

    reset_states = reset_state

    def add_weight(self, name: str | None = None, shape=(), dtype: DTypeLike | None = None,
                   initializer="zeros", **kwargs) -> Variable:
        """Creates a non-trainable state variable (zeros by default).

        Args:
            name: the variable's name.
            shape: its shape.
            dtype: its dtype.
            initializer: its initializer.
            **kwargs: passed to ``Layer.add_weight``.

        Returns:
            The variable.
        """
        kwargs.setdefault("trainable", False)
        # Under a strategy each replica accumulates its own copy; reads sum them (as Keras).
        kwargs.setdefault("synchronization", VariableSynchronization.ON_READ)
        kwargs.setdefault("aggregation", VariableAggregation.SUM)
        return super().add_weight(name=name, shape=shape, dtype=dtype, initializer=initializer,
                                  **kwargs)

    def _add_state(self, shape: tuple, *names: str, **renamed: str) -> None:
        """Zero state variables of ``shape`` whose size the first update gives: each set as
        the attribute of its name (``renamed``: attribute=variable name). They are created
        eagerly, also when that update is being traced."""
        with eager_mode():
            for attr, name in {**{n: n for n in names}, **renamed}.items():
                setattr(self, attr, self.add_weight(name, shape))

    def get_config(self) -> dict:
        return {"name": self.name, "dtype": self.dtype}


class Reduce(Metric):
    """Sums values (and counts them, for ``Mean``).

    Args:
        name: the metric's name.
        dtype: the dtype of its state variables (float32 when None).
    """

    _mean = True

    def __init__(self, name: str | None = None, dtype: DTypeLike | None = None) -> None:
        if name is None and type(self) in (Mean, Sum):
            name = type(self).__name__.lower()  # as Keras: every Mean() is named "mean"
        super().__init__(name=name, dtype=dtype)
        self.total = self.add_weight("total")
        self.count = self.add_weight("count") if self._mean else None

    def update_state(self, values: TensorLike, sample_weight: TensorLike | None = None) -> None:
        values = _to_float(values, self._tw_dtype)
        if sample_weight is not None:
            sw = _to_float(sample_weight, self._tw_dtype)
            if sw.shape.rank is not None and values.shape.rank is not None and \
                    sw.shape.rank < values.shape.rank:
                sw = array_ops.broadcast_to(
                    array_ops.reshape(sw, sw.shape.as_list() + [1] * (values.shape.rank
                                                                      - sw.shape.rank)),
                    array_ops.shape(values))
            else:
                sw = array_ops.broadcast_to(sw, array_ops.shape(values))
            values = values * sw
            n = reduction_ops.reduce_sum(sw)
        else:
            static = values.shape
            if static.is_fully_defined():
                n = float(np.prod(static.as_list()))
            else:
                n = math_ops.cast(array_ops.size(values), self._tw_dtype)
        self.total.assign_add(reduction_ops.reduce_sum(values))
        if self.count is not None:
            self.count.assign_add(n)

    def result(self) -> Tensor:
        if self.count is None:
            return array_ops.identity(self.total.read_value())
        return math_ops.div_no_nan(self.total.read_value(), self.count.read_value())


class Mean(Reduce):
    """The (weighted) mean of every value seen."""


class Sum(Reduce):
    """The (weighted) sum of every value seen."""

    _mean = False


class MeanMetricWrapper(Mean):
    """The mean of ``fn(y_true, y_pred)`` over every sample seen.

    Args:
        fn: a per-sample metric function.
        name: the metric name.
        dtype: the result dtype.
        **kwargs: passed to ``fn``.
    """

    def __init__(self, fn: Callable, name: str | None = None, dtype: DTypeLike | None = None,
                 **kwargs) -> None:
        super().__init__(name=name, dtype=dtype)
        self._fn = fn
        self._fn_kwargs = kwargs

    def update_state(self, y_true: TensorLike, y_pred: TensorLike,
                     sample_weight: TensorLike | None = None) -> None:
        return super().update_state(self._fn(y_true, y_pred, **self._fn_kwargs),
                                    sample_weight=sample_weight)

    def get_config(self) -> dict:
        return {**super().get_config(), **self._fn_kwargs}


_METRIC_ARGS = {"name": "the metric's name.",
                "dtype": "the dtype of its state variables (float32 when None)."}


def wrapper_class(cls_name: str, fn: Callable, doc: str, keywords: dict | None = None, *,
                  name: str | None = None, leading: dict | None = None,
                  arg_docs: dict | None = None, module: str = __name__) -> type:
    """A ``MeanMetricWrapper`` subclass whose constructor takes ``fn``'s keyword arguments,
    in Keras' order ``(*leading, name, dtype, *keywords)``; they are also attributes.

    Args:
        cls_name: the class name, e.g. ``"BinaryAccuracy"``.
        fn: the per-sample metric function.
        doc: the class docstring's summary (an Args section is added).
        keywords: the arguments after ``name`` and ``dtype``, name -> default.
        name: the default metric name (default ``fn.__name__``).
        leading: the arguments before ``name``, name -> default.
        arg_docs: the arguments' descriptions (a loss function's are known already).
        module: the module the class is bound in.

    Returns:
        The class.
    """
    leading, keywords = leading or {}, keywords or {}
    params = [*leading.items(), ("name", name or fn.__name__), ("dtype", None),
              *keywords.items()]

    def init(self, name, dtype, **kwargs) -> None:
        MeanMetricWrapper.__init__(self, fn, name=name, dtype=dtype, **kwargs)
        self.__dict__.update(kwargs)
    docs = {**per_sample_args(fn), **_METRIC_ARGS, **(arg_docs or {})}
    return make_class(cls_name, (MeanMetricWrapper,), module,
                      docstring(doc, {k: docs[k] for k, _ in params}),
                      {"__init__": bound_init(params, init)})


# ----- per-sample metric functions -----------------------------------------------------------

def _flat_labels(y_true, y_pred):
    t = _losses._tensor(y_true)
    rt, rp = t.shape.rank, y_pred.shape.rank
    if rt is not None and rp is not None and rt == rp and t.shape.as_list()[-1] == 1:
        t = array_ops.reshape(t, [-1]) if rt == 2 else array_ops.squeeze(t, axis=[-1])
    return t


def accuracy(y_true: TensorLike, y_pred: TensorLike) -> Tensor:
    """1.0 where ``y_true == y_pred``, else 0.0.

    Args:
        y_true: targets.
        y_pred: predictions of the same shape.

    Returns:
        Per-element matches as float32.
    """
    y_pred = _losses._tensor(y_pred)
    y_true = _losses._tensor(y_true, y_pred.dtype)
    return math_ops.cast(math_ops.equal(y_true, y_pred), dtypes.float32)


def binary_accuracy(y_true: TensorLike, y_pred: TensorLike, threshold: float = 0.5) -> Tensor:
    """The mean over the last axis of ``(y_pred > threshold) == y_true``.

    Args:
        y_true: 0/1 labels.
        y_pred: probabilities.
        threshold: the decision threshold.

    Returns:
        One value per sample.
    """
    y_true, y_pred = _losses._pair(y_true, y_pred)
    y_true = _losses._match_rank(y_true, y_pred)
    pred = math_ops.cast(math_ops.greater(y_pred, threshold), y_pred.dtype)
    return reduction_ops.reduce_mean(math_ops.cast(math_ops.equal(y_true, pred),
                                                   dtypes.float32), axis=-1)


def categorical_accuracy(y_true: TensorLike, y_pred: TensorLike) -> Tensor:
    """1.0 where ``argmax(y_true) == argmax(y_pred)``.

    Args:
        y_true: one-hot labels.
        y_pred: scores.

    Returns:
        One value per sample.
    """
    y_pred = _losses._tensor(y_pred)
    y_true = _losses._tensor(y_true)
    return math_ops.cast(math_ops.equal(reduction_ops.argmax(y_true, axis=-1),
                                        reduction_ops.argmax(y_pred, axis=-1)), dtypes.float32)


def sparse_categorical_accuracy(y_true: TensorLike, y_pred: TensorLike) -> Tensor:
    """1.0 where the integer label equals ``argmax(y_pred)``.

    Args:
        y_true: class ids, ``(N,)`` or ``(N, 1)``.
        y_pred: scores ``(N, C)``.

    Returns:
        One value per sample.
    """
    y_pred = _losses._tensor(y_pred)
    labels = _flat_labels(y_true, y_pred)
    pred = reduction_ops.argmax(y_pred, axis=-1)
    if labels.dtype is not pred.dtype:
        labels = math_ops.cast(labels, pred.dtype)
    return math_ops.cast(math_ops.equal(labels, pred), dtypes.float32)


Accuracy = wrapper_class("Accuracy", accuracy, "How often predictions equal labels.")
BinaryAccuracy = wrapper_class(
    "BinaryAccuracy", binary_accuracy, "How often thresholded probabilities equal 0/1 labels.",
    {"threshold": 0.5}, arg_docs={"threshold": "predictions above it count as 1."})
CategoricalAccuracy = wrapper_class("CategoricalAccuracy", categorical_accuracy,
                                    "How often the top prediction matches a one-hot label.")
SparseCategoricalAccuracy = wrapper_class("SparseCategoricalAccuracy",
                                          sparse_categorical_accuracy,
                                          "How often the top prediction matches an integer label.")
MeanSquaredError = wrapper_class("MeanSquaredError", _losses.mean_squared_error,
                                 "The mean squared error over every sample seen.")
MeanAbsoluteError = wrapper_class("MeanAbsoluteError", _losses.mean_absolute_error,
                                  "The mean absolute error over every sample seen.")
SparseCategoricalCrossentropy = wrapper_class(
    "SparseCategoricalCrossentropy", _losses.sparse_categorical_crossentropy,
    "The mean sparse categorical cross-entropy.",
    {"from_logits": False, "ignore_class": None, "axis": -1})


class _Confusion(Metric):
    """Counts true/false positives/negatives of ``y_pred > threshold`` at each threshold.

    Args:
        thresholds: the thresholds.
        name: the metric name.
        dtype: the metric dtype.
    """

    def __init__(self, thresholds, name: str | None = None, dtype=None) -> None:
        super().__init__(name=name, dtype=dtype)
        self._tw_thresholds = np.asarray(thresholds, np.float32)
        n = len(self._tw_thresholds)
        self.true_positives = self.add_weight("true_positives", (n,))
        self.false_positives = self.add_weight("false_positives", (n,))
        self.true_negatives = self.add_weight("true_negatives", (n,))
        self.false_negatives = self.add_weight("false_negatives", (n,))

    def update_state(self, y_true, y_pred, sample_weight=None) -> None:
        pred = array_ops.reshape(_to_float(y_pred), [-1, 1])
        truth = array_ops.reshape(_to_float(y_true), [-1, 1])
        above = math_ops.cast(math_ops.greater(pred, self._tw_thresholds), dtypes.float32)
        pos = math_ops.cast(math_ops.greater(truth, 0.5), dtypes.float32)
        neg = 1.0 - pos
        if sample_weight is not None:
            w = array_ops.reshape(_to_float(sample_weight), [-1, 1])
            pos, neg = pos * w, neg * w
        below = 1.0 - above
        for count, hits in ((self.true_positives, above * pos),
                            (self.false_positives, above * neg),
                            (self.true_negatives, below * neg),
                            (self.false_negatives, below * pos)):
            count.assign_add(reduction_ops.reduce_sum(hits, axis=0))


_THRESHOLDED_ARGS = {"thresholds": "a threshold or a list of them.",
                     "name": "the metric name.", "dtype": "the result dtype."}


@with_args(_THRESHOLDED_ARGS)
class _Thresholded(_Confusion):
    """Counts at ``thresholds``: a float (the result is a scalar) or a list of them (one
    result per threshold)."""

    _default_name: str | None = None

    def __init__(self, thresholds=0.5, name: str | None = None,
                 dtype: DTypeLike | None = None) -> None:
        self._tw_scalar = not isinstance(thresholds, (list, tuple))
        self.thresholds = thresholds if self._tw_scalar else list(thresholds)
        super().__init__([thresholds] if self._tw_scalar else list(thresholds),
                         name=name or self._default_name, dtype=dtype)

    def get_config(self) -> dict:
        return {**super().get_config(), "thresholds": self.thresholds}

    def _per_threshold(self, value: Tensor) -> Tensor:
        return value[0] if self._tw_scalar else value

    def _tp_rate(self, other) -> Tensor:
        """``tp / (tp + other)`` per threshold (0 where both are 0)."""
        tp = self.true_positives.read_value()
        return self._per_threshold(math_ops.div_no_nan(tp, tp + other.read_value()))


@with_args(_THRESHOLDED_ARGS)
class Precision(_Thresholded):
    """``tp / (tp + fp)`` of predictions above ``thresholds`` (0.5)."""

    _default_name = "precision"

    def result(self) -> Tensor:
        return self._tp_rate(self.false_positives)


@with_args(_THRESHOLDED_ARGS)
class Recall(_Thresholded):
    """``tp / (tp + fn)`` of predictions above ``thresholds`` (0.5)."""

    _default_name = "recall"

    def result(self) -> Tensor:
        return self._tp_rate(self.false_negatives)


class AUC(_Confusion):
    """Area under the ROC curve, from counts at ``num_thresholds`` evenly spaced thresholds.

    Args:
        num_thresholds: how many thresholds (at least 2).
        name: the metric name.
        dtype: the result dtype.
        **kwargs: other Keras arguments (``curve='ROC'`` only).
    """

    def __init__(self, num_thresholds: int = 200, curve: str = "ROC", name: str = "auc",
                 dtype: DTypeLike | None = None, **kwargs) -> None:
        if curve != "ROC":
            raise NotImplementedError("twinflow's AUC computes the ROC curve only")
        eps = 1e-7
        inner = [(i + 1) / (num_thresholds - 1) for i in range(num_thresholds - 2)]
        super().__init__([-eps] + inner + [1.0 + eps], name=name, dtype=dtype)

    def result(self) -> Tensor:
        tp, fp = self.true_positives.read_value(), self.false_positives.read_value()
        tn, fn = self.true_negatives.read_value(), self.false_negatives.read_value()
        tpr = math_ops.div_no_nan(tp, tp + fn)
        fpr = math_ops.div_no_nan(fp, fp + tn)
        # Thresholds ascend, so the rates descend: trapezoids between neighbours.
        widths = fpr[:-1] - fpr[1:]
        heights = (tpr[:-1] + tpr[1:]) * 0.5
        return reduction_ops.reduce_sum(widths * heights)


_BY_NAME: dict = {
    "accuracy": Accuracy, "acc": Accuracy, "binary_accuracy": BinaryAccuracy,
    "categorical_accuracy": CategoricalAccuracy,
    "sparse_categorical_accuracy": SparseCategoricalAccuracy,
    "mse": MeanSquaredError, "mean_squared_error": MeanSquaredError,
    "mae": MeanAbsoluteError, "mean_absolute_error": MeanAbsoluteError,
    "auc": AUC, "precision": Precision, "recall": Recall,
}


def get(identifier, loss=None) -> Metric:
    """Resolves a metric name, class, object or function to a Metric.

    ``'accuracy'`` picks the accuracy that fits ``loss`` (sparse/categorical/binary), as
    ``Model.compile`` does.

    Args:
        identifier: the metric.
        loss: the compiled loss (for ``'accuracy'``).

    Returns:
        A Metric.
    """
    if isinstance(identifier, Metric):
        return identifier
    if isinstance(identifier, str):
        key = identifier.lower()
        if key in ("accuracy", "acc"):
            lname = _loss_name(loss)
            if "sparse_categorical" in lname:
                return SparseCategoricalAccuracy(name=identifier)
            if "categorical" in lname:
                return CategoricalAccuracy(name=identifier)
            if "binary" in lname:
                return BinaryAccuracy(name=identifier)
            return Accuracy(name=identifier)
        if key not in _BY_NAME:
            raise ValueError(f"Unknown metric function: {identifier!r}")
        return _BY_NAME[key](name=identifier)
    if isinstance(identifier, type) and issubclass(identifier, Metric):
        return identifier()
    if callable(identifier):
        return MeanMetricWrapper(identifier, name=getattr(identifier, "__name__", "metric"))
    raise ValueError(f"Could not interpret metric identifier: {identifier!r}")


def _loss_name(loss) -> str:
    if loss is None:
        return ""
    if isinstance(loss, str):
        return loss.lower()
    if isinstance(loss, _losses.LossFunctionWrapper):
        return loss.fn.__name__
    return (getattr(loss, "__name__", None) or type(loss).__name__).lower().replace(
        "sparsecategorical", "sparse_categorical")


__all__ = ["AUC", "Precision", "Recall", "Metric", "Mean", "Sum", "MeanMetricWrapper",
           "Accuracy", "BinaryAccuracy",
           "CategoricalAccuracy", "SparseCategoricalAccuracy", "MeanSquaredError",
           "MeanAbsoluteError", "SparseCategoricalCrossentropy", "accuracy", "binary_accuracy",
           "categorical_accuracy", "sparse_categorical_accuracy", "get"]
