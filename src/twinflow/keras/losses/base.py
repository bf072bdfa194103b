"""``tw.keras.losses``: loss functions (per-sample values) and Loss classes (reduced).

A loss function ``fn(y_true, y_pred)`` returns one value per sample (the mean over the last
axis where Keras does); a Loss object multiplies by ``sample_weight`` and reduces, by default
to the mean over the batch (``SUM_OVER_BATCH_SIZE``).
"""
from __future__ import annotations

import inspect
from collections.abc import Callable

from ...core import dtypes
from ...eager.execute import convert_to_tensor
from ...graph.tensor import Tensor, TensorLike
from ...ops import array_ops, math_ops, nn_ops, reduction_ops
from ...ops.variables import Variable
from ..declare import args_section, bound_init, docstring, make_class
from ..masks import get_keras_mask, set_keras_mask
from ..named import by_name

_EPS = 1e-7


class Reduction:
    """How a Loss object reduces per-sample losses."""

    AUTO = "auto"
    NONE = "none"
    SUM = "sum"
    SUM_OVER_BATCH_SIZE = "sum_over_batch_size"
    MEAN = "mean"
    MEAN_WITH_SAMPLE_WEIGHT = "mean_with_sample_weight"

    @classmethod
    def all(cls) -> tuple:
        """The valid values (None means ``'none'``, as in Keras 3).

        Returns:
            A tuple of names.
        """
        return (cls.AUTO, cls.NONE, cls.SUM, cls.SUM_OVER_BATCH_SIZE, cls.MEAN,
                cls.MEAN_WITH_SAMPLE_WEIGHT, None)

    @classmethod
    def validate(cls, reduction) -> str:
        """Checks a reduction name.

        Args:
            reduction: the name.

        Returns:
            The name (``'none'`` for None).
        """
        if not isinstance(reduction, (str, type(None))) or reduction not in cls.all():
            raise ValueError(f"Invalid value for argument `reduction`. Expected one of "
                             f"{list(cls.all())}. Received: reduction={reduction}")
        return cls.NONE if reduction is None else reduction


def _tensor(x, dtype=None):
    if isinstance(x, Variable):
        x = x.read_value()
    if isinstance(x, Tensor):
        if dtype is not None and x.dtype is not dtype:
            return math_ops.cast(x, dtype)
        return x
    t = convert_to_tensor(x)
    if dtype is not None and t.dtype is not dtype:
        t = math_ops.cast(t, dtype)
    return t


def _pair(y_true, y_pred):
    y_pred = _tensor(y_pred)
    if not y_pred.dtype.is_floating:
        y_pred = math_ops.cast(y_pred, dtypes.float32)
    y_true = _tensor(y_true, y_pred.dtype)
    return y_true, y_pred


def _match_rank(y_true, y_pred):
    # Keras squeezes or expands y_true's last axis so (N,) labels meet (N, 1) predictions.
    rt, rp = y_true.shape.rank, y_pred.shape.rank
    if rt is not None and rp is not None:
        if rt == rp - 1:
            y_true = array_ops.reshape(y_true, array_ops.shape(y_pred)) \
                if y_pred.shape.as_list()[-1] == 1 else y_true
        elif rt == rp + 1 and y_true.shape.as_list()[-1] == 1:
            y_true = array_ops.reshape(y_true, array_ops.shape(y_pred))
    return y_true


def _aligned_pair(y_true, y_pred) -> tuple:
    """``_pair`` with ``y_true``'s rank matched to ``y_pred``'s (elementwise losses)."""
    y_true, y_pred = _pair(y_true, y_pred)
    return _match_rank(y_true, y_pred), y_pred


_PROBS = "probabilities, or logits with ``from_logits=True``."
_COMMON_ARGS = {"y_true": "targets.", "y_pred": "predictions.",
                "from_logits": "whether ``y_pred`` are logits."}
_ARGS_OF: dict = {}   # loss function -> its arguments' descriptions (wrapper classes reuse them)


def per_sample(fn: Callable | None = None, /, *, returns: str = "One loss per sample.",
               **arg_docs: str) -> Callable:
    """Completes a per-sample loss (or metric) function's docstring with its Args and Returns
    sections.

    The loss functions share most argument descriptions (``y_true``, ``y_pred``,
    ``from_logits``); each states only the ones that differ. Use as ``@per_sample`` or
    ``@per_sample(delta="...")``.

    Args:
        fn: the function (when used without arguments).
        returns: the Returns section.
        **arg_docs: descriptions of ``fn``'s arguments besides the common ones.

    Returns:
        The function, its docstring completed (or a decorator doing that).
    """
    def complete(fn: Callable) -> Callable:
        docs = {**_COMMON_ARGS, **arg_docs}
        names = list(inspect.signature(fn).parameters)
        _ARGS_OF[fn] = {k: docs[k] for k in names}
        fn.__doc__ = f"{fn.__doc__}\n\n    Args:\n{args_section({k: docs[k] for k in names})}\n" \
                     f"    Returns:\n        {returns}\n"
        return fn
    return complete if fn is None else complete(fn)


@per_sample
def mean_squared_error(y_true: TensorLike, y_pred: TensorLike) -> Tensor:
    """``mean((y_true - y_pred) ** 2, axis=-1)``."""
    y_true, y_pred = _aligned_pair(y_true, y_pred)
    return reduction_ops.reduce_mean(math_ops.squared_difference(y_pred, y_true), axis=-1)


@per_sample
def mean_absolute_error(y_true: TensorLike, y_pred: TensorLike) -> Tensor:
    """``mean(|y_true - y_pred|, axis=-1)``."""
    y_true, y_pred = _aligned_pair(y_true, y_pred)
    return reduction_ops.reduce_mean(math_ops.abs(y_pred - y_true), axis=-1)


@per_sample(delta="where the loss turns linear.")
def huber(y_true: TensorLike, y_pred: TensorLike, delta: float = 1.0) -> Tensor:
    """Quadratic for errors below ``delta``, linear beyond (mean over the last axis)."""
    y_true, y_pred = _aligned_pair(y_true, y_pred)
    err = math_ops.abs(y_pred - y_true)
    quad = math_ops.minimum(err, delta)
    lin = err - quad
    return reduction_ops.reduce_mean(0.5 * quad * quad + delta * lin, axis=-1)


@per_sample(
    y_true="labels in [0, 1].", y_pred=_PROBS, label_smoothing="squeezes labels towards 0.5.",
    axis="the averaged axis.")
def binary_crossentropy(y_true: TensorLike, y_pred: TensorLike, from_logits: bool = False,
                        label_smoothing: float = 0.0, axis: int = -1) -> Tensor:
    """Cross-entropy of independent binary labels (mean over the last axis)."""
    y_true, y_pred = _aligned_pair(y_true, y_pred)
    if label_smoothing:
        y_true = y_true * (1.0 - label_smoothing) + 0.5 * label_smoothing
    if from_logits:
        per = nn_ops.sigmoid_cross_entropy_with_logits(labels=y_true, logits=y_pred)
    else:
        per = bce_of_probabilities(y_true, y_pred)
    return reduction_ops.reduce_mean(per, axis=axis)


def bce_of_probabilities(y_true: Tensor, p: Tensor) -> Tensor:
    """Element-wise binary cross-entropy of probabilities clipped to ``[eps, 1 - eps]``.

    Args:
        y_true: labels.
        p: probabilities of the same dtype.

    Returns:
        The element-wise losses.
    """
    p = math_ops.clip_by_value(p, _EPS, 1.0 - _EPS)
    return -(y_true * math_ops.log(p) + (1.0 - y_true) * math_ops.log(1.0 - p))


@per_sample(
    y_true="one-hot (or soft) labels.", y_pred=_PROBS,
    label_smoothing="mixes the labels with the uniform distribution.", axis="the class axis.")
def categorical_crossentropy(y_true: TensorLike, y_pred: TensorLike, from_logits: bool = False,
                             label_smoothing: float = 0.0, axis: int = -1) -> Tensor:
    """Cross-entropy of one-hot labels over ``axis``."""
    y_true, y_pred = _pair(y_true, y_pred)
    if label_smoothing:
        n = y_pred.shape.as_list()[axis]
        y_true = y_true * (1.0 - label_smoothing) + label_smoothing / n
    if from_logits:
        return nn_ops.softmax_cross_entropy_with_logits(labels=y_true, logits=y_pred, axis=axis)
    p = y_pred / reduction_ops.reduce_sum(y_pred, axis=axis, keepdims=True)
    p = math_ops.clip_by_value(p, _EPS, 1.0 - _EPS)
    return -reduction_ops.reduce_sum(y_true * math_ops.log(p), axis=axis)


@per_sample(
    y_true="class ids, shape ``(N,)`` or ``(N, 1)`` (floats are accepted and cast).",
    y_pred="probabilities, or logits with ``from_logits=True``, shape ``(N, C)``.",
    ignore_class="a label whose samples give 0 and are masked out of a mean, as Keras.",
    axis="the class axis of ``y_pred``.")
def sparse_categorical_crossentropy(y_true: TensorLike, y_pred: TensorLike,
                                    from_logits: bool = False, ignore_class=None,
                                    axis: int = -1) -> Tensor:
    """Cross-entropy of integer class labels."""
    y_pred = _tensor(y_pred)
    rank = y_pred.shape.rank
    if rank is not None and axis % rank != rank - 1:
        perm = [i for i in range(rank) if i != axis % rank] + [axis % rank]
        y_pred = array_ops.transpose(y_pred, perm)
    labels = _tensor(y_true)
    if labels.dtype not in (dtypes.int32, dtypes.int64):
        labels = math_ops.cast(labels, dtypes.int64)
    if labels.shape.rank is not None and rank is not None and labels.shape.rank == rank:
        labels = array_ops.reshape(labels, [-1]) if rank == 2 else \
            array_ops.squeeze(labels, axis=[-1])
    keep = None
    if ignore_class is not None:
        keep = math_ops.not_equal(labels, math_ops.cast(ignore_class, labels.dtype))
        labels = math_ops.where(keep, labels, array_ops.zeros_like(labels))
    if from_logits:
        out = nn_ops.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=y_pred)
    else:
        p = math_ops.clip_by_value(y_pred, _EPS, 1.0 - _EPS)
        out = nn_ops.sparse_softmax_cross_entropy_with_logits(labels=labels,
                                                              logits=math_ops.log(p))
    if keep is not None:
        out = math_ops.where(keep, out, array_ops.zeros_like(out))
        set_keras_mask(out, keep)
    return out


@per_sample(y_true="a distribution.", y_pred="a distribution.")
def kl_divergence(y_true: TensorLike, y_pred: TensorLike) -> Tensor:
    """``sum(y_true * log(y_true / y_pred), axis=-1)``."""
    y_true, y_pred = _pair(y_true, y_pred)
    t = math_ops.clip_by_value(y_true, _EPS, 1.0)
    p = math_ops.clip_by_value(y_pred, _EPS, 1.0)
    return reduction_ops.reduce_sum(t * math_ops.log(t / p), axis=-1)


mse = MSE = mean_squared_error
mae = MAE = mean_absolute_error
kld = KLD = kullback_leibler_divergence = kl_divergence


# ----- more per-sample losses (Keras 3's formulas) ------------------------------------------

def _hinge_labels(y_true):
    """Labels in {0, 1} become {-1, 1} (Keras converts binary labels for hinge losses)."""
    binary = reduction_ops.reduce_all(math_ops.logical_or(math_ops.equal(y_true, 0.0),
                                                          math_ops.equal(y_true, 1.0)))
    return math_ops.where(binary, 2.0 * y_true - 1.0, y_true)


@per_sample
def hinge(y_true: TensorLike, y_pred: TensorLike) -> Tensor:
    """``mean(max(1 - y_true * y_pred, 0), axis=-1)`` (labels -1/1, or 0/1 converted)."""
    y_true, y_pred = _aligned_pair(y_true, y_pred)
    y_true = _hinge_labels(y_true)
    return reduction_ops.reduce_mean(nn_ops.relu(1.0 - y_true * y_pred), axis=-1)


@per_sample
def squared_hinge(y_true: TensorLike, y_pred: TensorLike) -> Tensor:
    """``mean(max(1 - y_true * y_pred, 0) ** 2, axis=-1)``."""
    y_true, y_pred = _aligned_pair(y_true, y_pred)
    y_true = _hinge_labels(y_true)
    return reduction_ops.reduce_mean(math_ops.square(nn_ops.relu(1.0 - y_true * y_pred)),
                                     axis=-1)


@per_sample(y_true="one-hot targets.")
def categorical_hinge(y_true: TensorLike, y_pred: TensorLike) -> Tensor:
    """``max(max((1 - y_true) * y_pred) - sum(y_true * y_pred) + 1, 0)`` (one-hot labels)."""
    y_true, y_pred = _pair(y_true, y_pred)
    pos = reduction_ops.reduce_sum(y_true * y_pred, axis=-1)
    neg = reduction_ops.reduce_max((1.0 - y_true) * y_pred, axis=-1)
    return nn_ops.relu(neg - pos + 1.0)


@per_sample
def log_cosh(y_true: TensorLike, y_pred: TensorLike) -> Tensor:
    """``mean(log(cosh(y_pred - y_true)), axis=-1)``, computed without overflow."""
    y_true, y_pred = _aligned_pair(y_true, y_pred)
    x = y_pred - y_true
    return reduction_ops.reduce_mean(x + nn_ops.softplus(-2.0 * x) - 0.6931471805599453,
                                     axis=-1)


@per_sample(y_true="targets (counts).", y_pred="predicted rates.")
def poisson(y_true: TensorLike, y_pred: TensorLike) -> Tensor:
    """``mean(y_pred - y_true * log(y_pred + epsilon), axis=-1)``."""
    y_true, y_pred = _aligned_pair(y_true, y_pred)
    return reduction_ops.reduce_mean(y_pred - y_true * math_ops.log(y_pred + 1e-7), axis=-1)


@per_sample(axis="the vector axis.")
def cosine_similarity(y_true: TensorLike, y_pred: TensorLike, axis: int = -1) -> Tensor:
    """``-sum(l2_normalize(y_true) * l2_normalize(y_pred), axis)`` (-1 means aligned)."""
    y_true, y_pred = _pair(y_true, y_pred)
    return -reduction_ops.reduce_sum(nn_ops.l2_normalize(y_true, axis=axis) *
                                     nn_ops.l2_normalize(y_pred, axis=axis), axis=axis)


@per_sample
def mean_absolute_percentage_error(y_true: TensorLike, y_pred: TensorLike) -> Tensor:
    """``100 * mean(|y_true - y_pred| / max(|y_true|, epsilon), axis=-1)``."""
    y_true, y_pred = _aligned_pair(y_true, y_pred)
    diff = math_ops.abs((y_true - y_pred) / math_ops.maximum(math_ops.abs(y_true), 1e-7))
    return 100.0 * reduction_ops.reduce_mean(diff, axis=-1)


@per_sample
def mean_squared_logarithmic_error(y_true: TensorLike, y_pred: TensorLike) -> Tensor:
    """``mean((log(max(y_pred, eps) + 1) - log(max(y_true, eps) + 1)) ** 2, axis=-1)``."""
    y_true, y_pred = _aligned_pair(y_true, y_pred)
    a = math_ops.log(math_ops.maximum(y_pred, 1e-7) + 1.0)
    b = math_ops.log(math_ops.maximum(y_true, 1e-7) + 1.0)
    return reduction_ops.reduce_mean(math_ops.squared_difference(a, b), axis=-1)


mape = MAPE = mean_absolute_percentage_error
msle = MSLE = mean_squared_logarithmic_error
logcosh = log_cosh


class Loss:
    """Base class: ``loss(y_true, y_pred, sample_weight=None)`` returns a reduced loss.

    Args:
        name: the loss name.
        reduction: one of ``Reduction``'s values.
        dtype: the dtype the loss is computed in: predictions and labels are cast to it
            (default: float32, or wider when the inputs are).
    """

    def __init__(self, name: str | None = None,
                 reduction: str = Reduction.SUM_OVER_BATCH_SIZE, dtype=None) -> None:
        self.reduction = Reduction.validate(reduction)
        self.name = name
        self._dtype = None if dtype is None else dtypes.as_dtype(dtype)

    @property
    def dtype(self) -> str:
        """The dtype's name the loss is computed in."""
        return self._dtype.name if self._dtype is not None else "float32"

    def call(self, y_true: TensorLike, y_pred: TensorLike) -> Tensor:
        """Per-sample losses (override).

        Args:
            y_true: targets.
            y_pred: predictions.

        Returns:
            A tensor of per-sample losses.
        """
        raise NotImplementedError

    def __call__(self, y_true: TensorLike, y_pred: TensorLike,
                 sample_weight: TensorLike | None = None) -> Tensor:
        """Computes the per-sample losses and reduces them.

        Args:
            y_true: the labels.
            y_pred: the predictions.
            sample_weight: optional per-sample weights.

        Returns:
            The loss, reduced as ``reduction`` says. Steps that the predictions' Keras mask
            marks as padding weigh nothing (a mean is over the unmasked steps), as in Keras 3.
        """
        mask = get_keras_mask(y_pred)
        # As Keras: losses are computed in float32 (mixed-precision models predict float16).
        if self._dtype is not None:   # Keras: both are converted to the loss's dtype
            y_pred = _tensor(y_pred, self._dtype)
            y_true = _tensor(y_true, self._dtype)
        y_pred = _at_least_float32(y_pred)
        y_true = _at_least_float32(y_true)
        losses = self.call(y_true, y_pred)
        out_mask = get_keras_mask(losses)   # a loss may mark its own values (Circle: > 0)
        if out_mask is not None:
            mask = out_mask if mask is None else math_ops.logical_and(mask, out_mask)
        if mask is not None:
            sample_weight = _masked_weight(mask, losses, sample_weight, self.reduction)
        return reduce_weighted(losses, sample_weight, self.reduction)

    def get_config(self) -> dict:
        """The constructor arguments.

        Returns:
            A dict.
        """
        cfg = {"reduction": self.reduction, "name": self.name}
        if self._dtype is not None:
            cfg["dtype"] = self._dtype.name
        return cfg


def _at_least_float32(x):
    if isinstance(x, Tensor) and x.dtype is dtypes.float16:
        return math_ops.cast(x, dtypes.float32)
    return x


def _masked_weight(mask, losses, sample_weight, reduction):
    """The sample weights with the predictions' mask folded in (Keras 3's ``apply_mask``): for
    mean reductions kept steps weigh ``total / kept`` so the mean is over kept steps."""
    if mask.shape.rank is not None and losses.shape.rank is not None and \
            mask.shape.rank != losses.shape.rank:
        return sample_weight  # the mask is not per loss value (e.g. a per-step mask, one loss)
    keep = math_ops.cast(mask, losses.dtype)
    if Reduction.validate(reduction) in (Reduction.AUTO, Reduction.MEAN,
                                          Reduction.SUM_OVER_BATCH_SIZE):
        total = math_ops.cast(array_ops.size(keep), losses.dtype)
        keep = keep * math_ops.div_no_nan(total, reduction_ops.reduce_sum(keep))
    if sample_weight is None:
        return keep
    sw = _tensor(sample_weight, losses.dtype)
    if sw.shape.rank is not None and sw.shape.rank < keep.shape.rank:
        sw = array_ops.reshape(sw, array_ops.concat(
            [array_ops.shape(sw), array_ops.ones([keep.shape.rank - sw.shape.rank],
                                                 "int32")], 0))
    return keep * sw


def reduce_weighted(losses, sample_weight: TensorLike | None = None,
                    reduction: str = Reduction.SUM_OVER_BATCH_SIZE) -> Tensor:
    """Weights per-sample ``losses`` and reduces them.

    Args:
        losses: per-sample losses.
        sample_weight: optional weights broadcastable to ``losses``.
        reduction: a ``Reduction`` value.

    Returns:
        The reduced loss (float32 scalar unless reduction is NONE).
    """
    reduction = Reduction.validate(reduction)
    sw = None
    if sample_weight is not None:
        sw = _tensor(sample_weight, losses.dtype)
        if sw.shape.rank is not None and losses.shape.rank is not None and \
                sw.shape.rank > losses.shape.rank and \
                sw.shape.num_elements() == losses.shape.num_elements():
            # (weights [[1], [0]] for losses [a, b]; otherwise they broadcast, as Keras:
            # MeanSquaredError()([1., 2.], [1.5, 2.5], sample_weight=[1., 0.]) is 0.125)
            sw = array_ops.reshape(sw, array_ops.shape(losses))
        losses = losses * sw
    if reduction == Reduction.NONE:
        return losses
    if reduction == Reduction.SUM:
        return reduction_ops.reduce_sum(losses)
    if reduction == Reduction.MEAN_WITH_SAMPLE_WEIGHT and sw is not None:
        weights = reduction_ops.reduce_sum(sw * array_ops.ones_like(losses))
        return math_ops.div_no_nan(reduction_ops.reduce_sum(losses), weights)
    return reduction_ops.reduce_mean(losses)


class LossFunctionWrapper(Loss):
    """A Loss object around a per-sample loss function and its keyword arguments.

    Args:
        fn: the per-sample loss ``fn(y_true, y_pred, **kwargs)``.
        reduction: one of ``Reduction``'s values.
        name: the loss name.
        **kwargs: passed to ``fn``.
    """

    def __init__(self, fn: Callable, reduction: str = Reduction.SUM_OVER_BATCH_SIZE,
                 name: str | None = None, dtype=None, **kwargs) -> None:
        super().__init__(name=name, reduction=reduction, dtype=dtype)
        self.fn = fn
        self._fn_kwargs = kwargs

    def call(self, y_true: TensorLike, y_pred: TensorLike) -> Tensor:
        return self.fn(y_true, y_pred, **self._fn_kwargs)

    def get_config(self) -> dict:
        cfg = super().get_config()
        cfg.update(self._fn_kwargs)
        return cfg


_LOSS_ARGS = {
    "reduction": "one of ``Reduction``'s values.",
    "name": "the loss name.",
    "dtype": "the dtype the loss is computed in.",
}


def per_sample_args(fn: Callable) -> dict:
    """The argument descriptions of a ``per_sample`` function (metrics reuse them).

    Args:
        fn: the function.

    Returns:
        Argument name -> description (empty for other functions).
    """
    return _ARGS_OF.get(fn, {})


def wrapper_class(cls_name: str, fn: Callable, doc: str, params: dict | None = None, *,
                  name: str | None = None, order: tuple | None = None,
                  check: Callable | None = None) -> type:
    """A ``LossFunctionWrapper`` subclass whose constructor takes ``fn``'s keyword arguments.

    Keras' Loss classes are each a per-sample function with its arguments fixed; this writes
    the constructor (with its real signature) and the docstring's Args section once for all.

    Args:
        cls_name: the class name, e.g. ``"Huber"``; the class lives in ``fn``'s module.
        fn: the per-sample loss function.
        doc: the class docstring's summary (an Args section is added).
        params: the constructor's arguments passed to ``fn``, name -> default, in order.
        name: the default loss name (default ``fn.__name__``).
        order: the constructor's argument order when ``reduction``, ``name`` and ``dtype`` do
            not simply follow ``params`` (Keras' Dice and Tversky).
        check: called with the constructor's arguments; raises on bad values.

    Returns:
        The class.
    """
    params = params or {}
    defaults = {**params, "reduction": Reduction.SUM_OVER_BATCH_SIZE,
                "name": name or fn.__name__, "dtype": None}
    order = order or (*params, "reduction", "name", "dtype")

    def init(self, reduction, name, dtype, **kwargs) -> None:
        if check is not None:
            check(**kwargs)
        LossFunctionWrapper.__init__(self, fn, reduction=reduction, name=name, dtype=dtype,
                                     **kwargs)
    docs = {**_ARGS_OF[fn], **_LOSS_ARGS}   # fn's own from ``per_sample``
    return make_class(cls_name, (LossFunctionWrapper,), fn.__module__,
                      docstring(doc, {k: docs[k] for k in order}),
                      {"__init__": bound_init([(k, defaults[k]) for k in order], init)})



MeanSquaredError = wrapper_class("MeanSquaredError", mean_squared_error,
                                 "Mean of squared errors.")
MeanAbsoluteError = wrapper_class("MeanAbsoluteError", mean_absolute_error,
                                  "Mean of absolute errors.")
Huber = wrapper_class("Huber", huber, "Huber loss with threshold ``delta``.", {"delta": 1.0},
                      name="huber_loss")
_CROSSENTROPY = {"from_logits": False, "label_smoothing": 0.0, "axis": -1}
BinaryCrossentropy = wrapper_class("BinaryCrossentropy", binary_crossentropy,
                                   "Binary cross-entropy (``from_logits`` for raw scores).",
                                   _CROSSENTROPY)
CategoricalCrossentropy = wrapper_class(
    "CategoricalCrossentropy", categorical_crossentropy,
    "Cross-entropy of one-hot labels (``from_logits`` for raw scores).", _CROSSENTROPY)


SparseCategoricalCrossentropy = wrapper_class(
    "SparseCategoricalCrossentropy", sparse_categorical_crossentropy,
    "Cross-entropy of integer labels (``from_logits`` for raw scores).",
    {"from_logits": False, "ignore_class": None, "axis": -1},
    order=("from_logits", "ignore_class", "reduction", "axis", "name", "dtype"))
KLDivergence = wrapper_class("KLDivergence", kl_divergence, "Kullback-Leibler divergence.")
Hinge = wrapper_class("Hinge", hinge, "The hinge loss (labels -1/1 or 0/1).")
SquaredHinge = wrapper_class("SquaredHinge", squared_hinge, "The squared hinge loss.")
CategoricalHinge = wrapper_class("CategoricalHinge", categorical_hinge,
                                 "The categorical hinge loss (one-hot labels).")
LogCosh = wrapper_class("LogCosh", log_cosh, "``log(cosh(error))``.")
Poisson = wrapper_class("Poisson", poisson, "The Poisson loss.")
CosineSimilarity = wrapper_class("CosineSimilarity", cosine_similarity,
                                 "Minus the cosine similarity of the vectors along ``axis``.",
                                 {"axis": -1})
MeanAbsolutePercentageError = wrapper_class("MeanAbsolutePercentageError",
                                            mean_absolute_percentage_error,
                                            "Mean absolute percentage error.")
MeanSquaredLogarithmicError = wrapper_class("MeanSquaredLogarithmicError",
                                            mean_squared_logarithmic_error,
                                            "Mean squared logarithmic error.")


_BY_NAME = {
    "mean_squared_error": mean_squared_error, "mse": mean_squared_error,
    "mean_absolute_error": mean_absolute_error, "mae": mean_absolute_error,
    "huber": huber, "huber_loss": huber, "binary_crossentropy": binary_crossentropy,
    "categorical_crossentropy": categorical_crossentropy,
    "sparse_categorical_crossentropy": sparse_categorical_crossentropy,
    "kl_divergence": kl_divergence, "kld": kl_divergence,
    "hinge": hinge, "squared_hinge": squared_hinge, "categorical_hinge": categorical_hinge,
    "log_cosh": log_cosh, "logcosh": log_cosh, "poisson": poisson,
    "cosine_similarity": cosine_similarity,
    "mean_absolute_percentage_error": mean_absolute_percentage_error, "mape": mape,
    "mean_squared_logarithmic_error": mean_squared_logarithmic_error, "msle": msle,
}


def get(identifier) -> Callable | None:
    """Resolves a loss name, class, Loss object or function.

    Args:
        identifier: ``'mse'``, ``'sparse_categorical_crossentropy'``, a Loss...

    Returns:
        A callable ``loss(y_true, y_pred)``.
    """
    if identifier is None or isinstance(identifier, Loss):
        return identifier
    if isinstance(identifier, str):
        return by_name(_BY_NAME, identifier, "loss function")
    if isinstance(identifier, type) and issubclass(identifier, Loss):
        return identifier()
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret loss identifier: {identifier!r}")
