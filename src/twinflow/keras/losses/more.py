"""Keras 3's newer losses: focal cross-entropies, generalized cross-entropy, Dice, Tversky,
Circle and CTC (function and class forms), with Keras 3.15's formulas and defaults."""
from __future__ import annotations

from ...core import dtypes
from ...graph.tensor import Tensor, TensorLike
from ...ops import array_ops, linalg_ops, math_ops, nn_ops, reduction_ops
from ...ops.nn import ctc as _nn_ctc
from ..masks import set_keras_mask
from ..settings import epsilon
from .base import (
    _PROBS,
    _aligned_pair,
    _pair,
    _tensor,
    bce_of_probabilities,
    per_sample,
    wrapper_class,
)


@per_sample(
    y_true="labels in [0, 1].", y_pred=_PROBS,
    apply_class_balancing="weigh class 1 by ``alpha`` and class 0 by ``1 - alpha``.",
    alpha="the class-1 weight when balancing.",
    gamma="the focusing exponent (0 gives the binary cross-entropy).",
    label_smoothing="squeezes labels towards 0.5.", axis="the averaged axis.")
def binary_focal_crossentropy(y_true: TensorLike, y_pred: TensorLike,
                              apply_class_balancing: bool = False, alpha: float = 0.25,
                              gamma: float = 2.0, from_logits: bool = False,
                              label_smoothing: float = 0.0, axis: int = -1) -> Tensor:
    """Binary cross-entropy scaled by the focal factor ``(1 - p_t) ** gamma``
    (Lin et al., 2018): easy examples weigh less."""
    y_true, y_pred = _aligned_pair(y_true, y_pred)
    if label_smoothing:
        y_true = y_true * (1.0 - label_smoothing) + 0.5 * label_smoothing
    if from_logits:
        y_pred = math_ops.sigmoid(y_pred)
    bce = bce_of_probabilities(y_true, y_pred)
    p_t = y_true * y_pred + (1.0 - y_true) * (1.0 - y_pred)
    focal = math_ops.pow(1.0 - p_t, gamma) * bce
    if apply_class_balancing:
        focal = (y_true * alpha + (1.0 - y_true) * (1.0 - alpha)) * focal
    return reduction_ops.reduce_mean(focal, axis=axis)


@per_sample(
    y_true="one-hot (or soft) labels.", y_pred=_PROBS,
    alpha="the class weight, a float or one per class.", gamma="the focusing exponent.",
    label_smoothing="mixes the labels with the uniform distribution.", axis="the class axis.")
def categorical_focal_crossentropy(y_true: TensorLike, y_pred: TensorLike, alpha=0.25,
                                   gamma: float = 2.0, from_logits: bool = False,
                                   label_smoothing: float = 0.0, axis: int = -1) -> Tensor:
    """Categorical cross-entropy with the focal factor ``alpha * (1 - p) ** gamma`` per class."""
    if isinstance(axis, bool):
        raise ValueError(f"`axis` must be of type `int`. Received: axis={axis} of type "
                         f"{type(axis)}")
    y_true, y_pred = _pair(y_true, y_pred)
    if label_smoothing:
        n = math_ops.cast(array_ops.shape(y_true)[-1], y_pred.dtype)
        y_true = y_true * (1.0 - label_smoothing) + label_smoothing / n
    if from_logits:
        y_pred = nn_ops.softmax(y_pred, axis=axis)
    out = y_pred / reduction_ops.reduce_sum(y_pred, axis=axis, keepdims=True)
    eps = epsilon()
    out = math_ops.clip_by_value(out, eps, 1.0 - eps)
    weight = math_ops.pow(1.0 - out, gamma) * _tensor(alpha, y_pred.dtype)
    return reduction_ops.reduce_sum(weight * (-y_true * math_ops.log(out)), axis=axis)


@per_sample(
    y_true="integer class ids, shape ``(N,)`` or ``(N, 1)``.",
    y_pred="class probabilities ``(N, C)``.",
    q="in (0, 1): near 0 it behaves like cross-entropy, near 1 like MAE.")
def categorical_generalized_cross_entropy(y_true: TensorLike, y_pred: TensorLike,
                                          q: float) -> Tensor:
    """Generalized cross-entropy ``(1 - p ** q) / q`` of the true class's probability ``p``
    (Zhang & Sabuncu, 2018): robust to noisy labels."""
    y_pred = _tensor(y_pred)
    if not y_pred.dtype.is_floating:
        y_pred = math_ops.cast(y_pred, dtypes.float32)
    labels = math_ops.cast(_tensor(y_true), dtypes.int32)
    hot = array_ops.one_hot(labels, y_pred.shape.as_list()[-1], dtype=y_pred.dtype)
    p = reduction_ops.reduce_sum(y_pred * hot, axis=-1)
    return (1.0 - math_ops.pow(p, q)) / q


@per_sample(
    axis="the summed axes (None: all, giving one value).",
    returns="The Dice loss (one per entry of the axes not summed).")
def dice(y_true: TensorLike, y_pred: TensorLike, axis=None) -> Tensor:
    """``1 - 2 * sum(y_true * y_pred) / (sum(y_true) + sum(y_pred) + epsilon)``."""
    y_true, y_pred = _pair(y_true, y_pred)
    axis = list(axis) if isinstance(axis, (list, tuple)) else axis
    inter = reduction_ops.reduce_sum(y_true * y_pred, axis=axis)
    total = reduction_ops.reduce_sum(y_true, axis=axis) + \
        reduction_ops.reduce_sum(y_pred, axis=axis) + epsilon()
    return 1.0 - 2.0 * inter / total


@per_sample(
    alpha="the weight of false positives.", beta="the weight of false negatives.",
    axis="the summed axes (None: all).", returns="The Tversky loss.")
def tversky(y_true: TensorLike, y_pred: TensorLike, alpha: float = 0.5, beta: float = 0.5,
            axis=None) -> Tensor:
    """Tversky loss ``1 - TP / (TP + alpha * FP + beta * FN + epsilon)`` (Salehi et al.,
    2017); ``alpha = beta = 0.5`` is the Dice loss."""
    y_true, y_pred = _pair(y_true, y_pred)
    axis = list(axis) if isinstance(axis, (list, tuple)) else axis
    inter = reduction_ops.reduce_sum(y_true * y_pred, axis=axis)
    fp = reduction_ops.reduce_sum((1.0 - y_pred) * y_true, axis=axis)
    fn = reduction_ops.reduce_sum(y_pred * (1.0 - y_true), axis=axis)
    return 1.0 - inter / (inter + fp * alpha + fn * beta + epsilon())


@per_sample(
    y_true="integer labels ``(N,)``.", y_pred="L2-normalized embeddings ``(N, D)``.",
    ref_labels="labels of the reference embeddings (default ``y_true``).",
    ref_embeddings="reference embeddings (default ``y_pred``).",
    remove_diagonal="leave each sample's similarity to itself out of its positives.",
    gamma="the scale.", margin="the relaxation.",
    returns="One loss per sample; its Keras mask (values > 0) makes a Loss average over those.")
def circle(y_true: TensorLike, y_pred: TensorLike, ref_labels: TensorLike | None = None,
           ref_embeddings: TensorLike | None = None, remove_diagonal: bool = True,
           gamma: float = 80.0, margin: float = 0.4) -> Tensor:
    """Circle loss (Sun et al., 2020) of L2-normalized embeddings: pulls same-label pairs
    together and pushes different-label pairs apart, each pair weighted by how far it is from
    its optimum."""
    y_pred = _tensor(y_pred)
    labels = math_ops.cast(array_ops.reshape(_tensor(y_true), [-1]), dtypes.int32)
    ref = y_pred if ref_embeddings is None else _tensor(ref_embeddings, y_pred.dtype)
    ref_lab = labels if ref_labels is None else math_ops.cast(
        array_ops.reshape(_tensor(ref_labels), [-1]), dtypes.int32)
    dist = math_ops.maximum(1.0 - linalg_ops.matmul(y_pred, ref, transpose_b=True), 0.0)
    same = math_ops.equal(array_ops.expand_dims(labels, 1), array_ops.expand_dims(ref_lab, 0))
    pos = same
    if remove_diagonal:
        eye = math_ops.cast(array_ops.eye(array_ops.shape(labels)[0],
                                          array_ops.shape(ref_lab)[0]), dtypes.bool_)
        pos = math_ops.logical_and(same, math_ops.logical_not(eye))
    neg = math_ops.logical_not(same)
    posf, negf = math_ops.cast(pos, dist.dtype), math_ops.cast(neg, dist.dtype)
    pos_w = math_ops.maximum((margin + dist) * posf, 0.0)
    neg_w = math_ops.maximum((1.0 + margin - dist) * negf, 0.0)
    pos_d = -gamma * pos_w * (margin - dist)
    neg_d = gamma * neg_w * (1.0 - margin - dist)
    ninf = array_ops.fill(array_ops.shape(dist), _tensor(float("-inf"), dist.dtype))
    p_loss = reduction_ops.reduce_logsumexp(math_ops.where(pos, pos_d, ninf), axis=1)
    n_loss = reduction_ops.reduce_logsumexp(math_ops.where(neg, neg_d, ninf), axis=1)
    loss = nn_ops.softplus(p_loss + n_loss)
    set_keras_mask(loss, math_ops.greater(loss, 0.0))
    return loss


BinaryFocalCrossentropy = wrapper_class(
    "BinaryFocalCrossentropy", binary_focal_crossentropy,
    "Binary focal cross-entropy (see ``binary_focal_crossentropy``).",
    {"apply_class_balancing": False, "alpha": 0.25, "gamma": 2.0, "from_logits": False,
     "label_smoothing": 0.0, "axis": -1})
CategoricalFocalCrossentropy = wrapper_class(
    "CategoricalFocalCrossentropy", categorical_focal_crossentropy,
    "Categorical focal cross-entropy (see ``categorical_focal_crossentropy``).",
    {"alpha": 0.25, "gamma": 2.0, "from_logits": False, "label_smoothing": 0.0, "axis": -1})


def _check_q(q, **_) -> None:
    if not 0 < q < 1:
        raise ValueError(f"q must be in the interval (0, 1); received q={q}")


CategoricalGeneralizedCrossEntropy = wrapper_class(
    "CategoricalGeneralizedCrossEntropy", categorical_generalized_cross_entropy,
    "Generalized cross-entropy of integer labels (see "
    "``categorical_generalized_cross_entropy``).", {"q": 0.5}, check=_check_q)
Dice = wrapper_class("Dice", dice, "The Dice loss (see ``dice``).", {"axis": None},
                     order=("reduction", "name", "axis", "dtype"))
Tversky = wrapper_class("Tversky", tversky, "The Tversky loss (see ``tversky``).",
                        {"alpha": 0.5, "beta": 0.5, "axis": None},
                        order=("alpha", "beta", "reduction", "name", "axis", "dtype"))
Circle = wrapper_class(
    "Circle", circle, "The Circle loss of L2-normalized embeddings (see ``circle``); the mean "
    "is over the samples whose loss is positive, as in Keras.",
    {"gamma": 80.0, "margin": 0.4, "remove_diagonal": True})


@per_sample(
    y_true="``(batch, max_label_length)`` integer labels, 0 for padding.",
    y_pred="``(batch, max_time, num_classes)`` logits (not softmaxed).")
def ctc(y_true: TensorLike, y_pred: TensorLike) -> Tensor:
    """CTC loss of integer labels (0 is the blank and pads them) against batch-major logits,
    every logit sequence taken whole."""
    y_true, y_pred = _tensor(y_true), _tensor(y_pred)
    if y_true.shape.rank != 2:
        raise ValueError("Targets `y_true` are expected to be a tensor of shape "
                         "`(batch_size, max_length)` in integer format. Received: "
                         f"y_true.shape={y_true.shape}")
    if y_pred.shape.rank != 3:
        raise ValueError("Logits `y_pred` are expected to be a tensor of shape "
                         "`(batch_size, max_length, num_classes)`. Received: "
                         f"y_pred.shape={y_pred.shape}")
    shape = array_ops.shape(y_pred)
    input_length = array_ops.fill([shape[0]], shape[1])
    label_length = math_ops.cast(reduction_ops.reduce_sum(math_ops.cast(
        math_ops.not_equal(y_true, math_ops.cast(0, y_true.dtype)), dtypes.int32), axis=-1),
        dtypes.int32)
    logits = y_pred if y_pred.dtype in (dtypes.float16, dtypes.float32) else \
        math_ops.cast(y_pred, dtypes.float32)
    loss = _nn_ctc.ctc_loss(math_ops.cast(y_true, dtypes.int32), logits, label_length,
                            input_length, logits_time_major=False, blank_index=0)
    return loss if y_pred.dtype is loss.dtype else math_ops.cast(loss, y_pred.dtype)


CTC = wrapper_class("CTC", ctc, "The CTC loss (see ``ctc``).")
