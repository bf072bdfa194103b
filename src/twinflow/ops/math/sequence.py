"""``tw.math`` odds and ends: lbeta, angle, cumulative_logsumexp,
is_non_decreasing, is_strictly_increasing (compositions: their gradients come from the ops used),
invert_permutation and confusion_matrix (ops)."""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ...core import dtypes
from ...core.errors import InvalidArgumentError
from ...core.shapes import TensorShape
from ...eager.execute import bind
from ...graph.graph import name_scoped
from ...graph.registry import register_op
from ...graph.tensor import Tensor, TensorLike
from ..array.gather import gather_nd
from ..array.layout import stack
from ..array.shape import reshape
from ..core import convert, static_int
from . import reduce as _reduce
from .binary import atan2, subtract
from .cast import cast
from .comparison import equal, less, less_equal
from .complex import imag, real
from .scan import cumsum
from .special import lgamma
from .unary import exp, log


@name_scoped
def lbeta(x: TensorLike, name: str | None = None) -> Tensor:
    """log |Beta(x)| along the last axis: sum(lgamma(x)) - lgamma(sum(x)) (``tw.math.lbeta``).

    Args:
        x: a floating-point tensor of rank >= 1 (an empty last axis gives 0).

    Returns:
        ``x.shape[:-1]``.
    """
    x = convert(x)
    if x.shape.rank == 0:
        raise InvalidArgumentError(None, None, "lbeta: x must have rank >= 1, got a scalar")
    return subtract(_reduce.reduce_sum(lgamma(x), axis=-1),
                    lgamma(_reduce.reduce_sum(x, axis=-1)))


@name_scoped
def angle(input: TensorLike, name: str | None = None) -> Tensor:
    """The argument (phase) of complex numbers; 0 or pi for reals (``tw.math.angle``).

    Args:
        input: a float or complex tensor.

    Returns:
        ``atan2(imag, real)`` (real dtype).
    """
    x = convert(input)
    if x.dtype.is_complex:
        return atan2(imag(x), real(x))
    if not x.dtype.is_floating:
        raise InvalidArgumentError(None, None, f"angle needs a float or complex tensor, got "
                                               f"{x.dtype.name}")
    # pi for negative reals (-inf too; -0.0 gives 0), 0 otherwise, as TensorFlow
    return cast(less(x, cast(0, x.dtype)), x.dtype) * cast(np.pi, x.dtype)


@name_scoped
def cumulative_logsumexp(x: TensorLike, axis=0, exclusive: bool = False, reverse: bool = False,
                         name: str | None = None) -> Tensor:
    """log(cumsum(exp(x))) computed without overflow (``tw.math.cumulative_logsumexp``).

    Args:
        x: a floating-point tensor.
        axis: the axis to accumulate along.
        exclusive: leave each element out of its own sum (the first becomes -inf).
        reverse: accumulate from the end.

    Returns:
        A tensor like ``x``.
    """
    x = convert(x)
    # Shift by the (stopped) maximum so exp cannot overflow; the shift cancels exactly.
    m = _reduce.reduce_max(x, axis=axis, keepdims=True)
    m = bind(_StopShift, [m])
    s = cumsum(exp(x - m), axis=axis, exclusive=exclusive, reverse=reverse)
    return log(s) + m


@register_op("CumulativeLogsumexpShift",
             schema="x:T -> y:T | T:type in [half,bfloat16,float,double]")
class _StopShift:
    """The max shift of cumulative_logsumexp: identity (0 where not finite, so an all -inf
    slice stays -inf rather than nan) with a zero gradient, since the shift cancels."""

    def infer(x):
        return x.dtype, x.shape

    def kernel(x):
        return np.where(np.isfinite(x), x, np.zeros((), x.dtype)).astype(x.dtype, copy=False)

    def grad(op, dy):
        return None


def invert_permutation(x: TensorLike, name: str | None = None) -> Tensor:
    """The inverse permutation: ``y[x[i]] = i`` (``tw.math.invert_permutation``).

    Args:
        x: a 1-D int32 or int64 permutation of ``0..n-1``.
        name: op name.

    Returns:
        A tensor like ``x``.
    """
    return bind(InvertPermutation, [convert(x)], name=name)


@register_op("InvertPermutation", schema="x:T -> y:T | T:type in [int32,int64]")
class InvertPermutation:
    """y[x[i]] = i for a permutation x of 0..n-1."""

    def infer(x):
        if x.shape.rank not in (None, 1):
            raise InvalidArgumentError(None, None, f"invert_permutation expects a 1-D vector, "
                                                   f"got shape {x.shape.as_list()}")
        return x.dtype, x.shape

    def kernel(x):
        n = x.shape[0]
        if x.ndim != 1 or not np.array_equal(np.sort(x), np.arange(n)):
            raise InvalidArgumentError(None, None, f"invert_permutation: x is not a "
                                                   f"permutation of 0..{n - 1}: {x.tolist()}")
        y = np.empty_like(x)
        y[x] = np.arange(n, dtype=x.dtype)
        return y

    def grad(op, dy):
        return None


def _adjacent(x: TensorLike, cmp) -> Tensor:
    x = reshape(convert(x), [-1])
    return _reduce.reduce_all(cmp(x[:-1], x[1:]))


def _monotonic(fn_name: str, word: str, cmp) -> Callable[..., Tensor]:
    def fn(x: TensorLike, name: str | None = None) -> Tensor:
        return _adjacent(x, cmp)
    fn.__name__ = fn.__qualname__ = fn_name
    fn.__doc__ = f"""Whether ``x`` (flattened) {word} (``tw.math.{fn_name}``).

    Args:
        x: a real tensor (fewer than 2 elements: True).

    Returns:
        A bool scalar.
    """
    return name_scoped(fn)


is_non_decreasing = _monotonic("is_non_decreasing", "never decreases", less_equal)
is_strictly_increasing = _monotonic("is_strictly_increasing", "always increases", less)


def confusion_matrix(labels: TensorLike, predictions: TensorLike, num_classes=None,
                     weights: TensorLike | None = None, dtype=dtypes.int32,
                     name: str | None = None) -> Tensor:
    """Counts of (label, prediction) pairs (``tw.math.confusion_matrix``).

    Args:
        labels: 1-D non-negative integer class ids.
        predictions: 1-D integer class ids, same length.
        num_classes: the matrix size (a Python int); default ``max(labels, predictions) + 1``.
        weights: optional 1-D weights (default 1 each).
        dtype: the result dtype.
        name: op name.

    Returns:
        ``[num_classes, num_classes]``: row = label, column = prediction.
    """
    lab = cast(convert(labels), dtypes.int64)
    pred = cast(convert(predictions), dtypes.int64)
    n = -1 if num_classes is None else static_int(num_classes, "confusion_matrix: num_classes")
    w = cast(convert(weights), dtype) if weights is not None else \
        cast(equal(lab, lab), dtype)
    return bind(ConfusionMatrix, [lab, pred, w], {"num_classes": n}, name=name)


@register_op("ConfusionMatrix",
             schema="labels:int64, predictions:int64, weights:T -> output:T | T:type; "
                    "num_classes:int")
class ConfusionMatrix:
    """Sums ``weights`` into ``[labels, predictions]`` of a square matrix."""

    def infer(labels, predictions, weights, *, num_classes):
        for t in (labels, predictions, weights):
            if t.shape.rank not in (None, 1):
                raise InvalidArgumentError(None, None, "confusion_matrix: labels, predictions "
                                           f"and weights must be 1-D, got shape {t.shape}")
        n = None if num_classes < 0 else num_classes
        return weights.dtype, TensorShape([n, n])

    def kernel(labels, predictions, weights, *, num_classes):
        if not labels.shape == predictions.shape == weights.shape:
            raise InvalidArgumentError(None, None, "confusion_matrix: labels, predictions and "
                                       f"weights differ in shape: {labels.shape}, "
                                       f"{predictions.shape}, {weights.shape}")
        n = num_classes if num_classes >= 0 else \
            int(max(labels.max(initial=-1), predictions.max(initial=-1))) + 1
        for t in (labels, predictions):
            if t.size and (t.min() < 0 or t.max() >= n):
                raise InvalidArgumentError(None, None, "confusion_matrix: labels and predictions "
                                           f"must be in [0, {n}), got {t.tolist()}")
        out = np.zeros((n, n), weights.dtype)
        np.add.at(out, (labels, predictions), weights)
        return out

    def grad(op, dy):
        labels, predictions, _ = op.inputs
        return None, None, gather_nd(dy, stack([labels, predictions], axis=1))
