"""``tw.keras.activations``: element-wise activation functions, looked up by name."""
from __future__ import annotations

from collections.abc import Callable

from ..eager.execute import convert_to_tensor
from ..ops import array_ops, math_ops, nn_ops, reduction_ops
from .named import by_name as _by_name
from .named import serializers as _serializers


def linear(x):
    """The identity (no activation).

    Args:
        x: a tensor.

    Returns:
        ``x``.
    """
    return x


def relu(x, alpha: float = 0.0, max_value=None, threshold: float = 0.0,
         negative_slope: float | None = None):
    """Rectified linear unit, ``max(x, 0)`` (with Keras' leaky/capped/thresholded variants).

    ``x`` where ``x > threshold``, else 0; clipped to ``[0, max_value]``; then
    ``negative_slope * (threshold - x)`` is subtracted where ``x < threshold`` (Keras' rule).

    Args:
        x: a tensor.
        alpha: the slope below the threshold (tf.keras 2 name of ``negative_slope``).
        max_value: an upper cap.
        threshold: values below it are zeroed (or scaled by the slope).
        negative_slope: the slope below the threshold.

    Returns:
        The activated tensor.
    """
    slope = float(alpha if negative_slope is None else negative_slope)
    if slope == 0.0 and max_value is None and threshold == 0.0:
        return nn_ops.relu(x)
    if slope != 0.0 and max_value is None and threshold == 0.0:
        return nn_ops.leaky_relu(x, alpha=slope)
    x = convert_to_tensor(x)
    negative = nn_ops.relu(threshold - x) if slope else None
    if threshold:
        y = x * math_ops.cast(math_ops.greater(x, threshold), x.dtype)
    else:
        y = nn_ops.relu(x)
    if max_value is not None:
        y = math_ops.clip_by_value(y, 0.0, float(max_value))
    return y - slope * negative if slope else y


def sigmoid(x):
    """``1 / (1 + exp(-x))``.

    Args:
        x: a tensor.

    Returns:
        The activated tensor.
    """
    return math_ops.sigmoid(x)


def tanh(x):
    """Hyperbolic tangent.

    Args:
        x: a tensor.

    Returns:
        The activated tensor.
    """
    return math_ops.tanh(x)


def softmax(x, axis: int = -1):
    """Softmax over ``axis``.

    Args:
        x: a tensor.
        axis: the normalized axis.

    Returns:
        Probabilities summing to one along ``axis``.
    """
    return nn_ops.softmax(x, axis=axis)


def log_softmax(x, axis: int = -1):
    """Log of the softmax over ``axis``.

    Args:
        x: a tensor.
        axis: the normalized axis.

    Returns:
        The log-probabilities.
    """
    return nn_ops.log_softmax(x, axis=axis)


def elu(x, alpha: float = 1.0):
    """Exponential linear unit.

    Args:
        x: a tensor.
        alpha: scale of the negative part.

    Returns:
        The activated tensor.
    """
    y = nn_ops.elu(x)
    return y if alpha == 1.0 else math_ops.where(x > 0, y, y * alpha)


def selu(x):
    """Scaled exponential linear unit.

    Args:
        x: a tensor.

    Returns:
        The activated tensor.
    """
    return nn_ops.selu(x)


def softplus(x):
    """``log(1 + exp(x))``.

    Args:
        x: a tensor.

    Returns:
        The activated tensor.
    """
    return nn_ops.softplus(x)


def softsign(x):
    """``x / (1 + |x|)``.

    Args:
        x: a tensor.

    Returns:
        The activated tensor.
    """
    return nn_ops.softsign(x)


def swish(x):
    """``x * sigmoid(x)`` (also called SiLU).

    Args:
        x: a tensor.

    Returns:
        The activated tensor.
    """
    return nn_ops.silu(x)


def gelu(x, approximate: bool = False):
    """Gaussian error linear unit.

    Args:
        x: a tensor.
        approximate: use the tanh approximation.

    Returns:
        The activated tensor.
    """
    return nn_ops.gelu(x, approximate=approximate)


def relu6(x):
    """``min(max(x, 0), 6)``.

    Args:
        x: a tensor.

    Returns:
        The activated tensor.
    """
    return nn_ops.relu6(x)


def leaky_relu(x, alpha: float = 0.2):
    """``x`` for positive values, ``alpha * x`` otherwise.

    Args:
        x: a tensor.
        alpha: the negative slope.

    Returns:
        The activated tensor.
    """
    return nn_ops.leaky_relu(x, alpha=alpha)


def exponential(x):
    """``exp(x)``.

    Args:
        x: a tensor.

    Returns:
        The activated tensor.
    """
    return math_ops.exp(x)


silu = swish

def _t(x):
    return convert_to_tensor(x)


def celu(x, alpha: float = 1.0):
    """``max(x, 0) + min(0, alpha * (exp(x / alpha) - 1))``.

    Args:
        x: a tensor.
        alpha: the scale of the negative part.

    Returns:
        The activated tensor.
    """
    x = _t(x)
    return nn_ops.relu(x) + math_ops.minimum(0.0, alpha * (math_ops.exp(x / alpha) - 1.0))


def glu(x, axis: int = -1):
    """Gated linear unit: ``a * sigmoid(b)`` for the two halves ``a, b`` of ``axis``.

    Args:
        x: a tensor with an even size along ``axis``.
        axis: the split axis.

    Returns:
        The activated tensor (half the size along ``axis``).
    """
    a, b = array_ops.split(_t(x), 2, axis=axis)
    return a * math_ops.sigmoid(b)


def hard_sigmoid(x):
    """``relu6(x + 3) / 6`` (Keras 3's definition).

    Args:
        x: a tensor.

    Returns:
        The activated tensor.
    """
    return nn_ops.relu6(_t(x) + 3.0) * (1.0 / 6.0)


def hard_silu(x):
    """``x * hard_sigmoid(x)``.

    Args:
        x: a tensor.

    Returns:
        The activated tensor.
    """
    x = _t(x)
    return x * hard_sigmoid(x)


def log_sigmoid(x):
    """``log(sigmoid(x)) = -softplus(-x)``.

    Args:
        x: a tensor.

    Returns:
        The activated tensor.
    """
    return -nn_ops.softplus(-_t(x))


def mish(x):
    """``x * tanh(softplus(x))``.

    Args:
        x: a tensor.

    Returns:
        The activated tensor.
    """
    x = _t(x)
    return x * math_ops.tanh(nn_ops.softplus(x))


def hard_shrink(x, threshold: float = 0.5):
    """``x`` where ``|x| > threshold``, else 0.

    Args:
        x: a tensor.
        threshold: the threshold.

    Returns:
        The activated tensor.
    """
    x = _t(x)
    return x * math_ops.cast(math_ops.greater(math_ops.abs(x), threshold), x.dtype)


def soft_shrink(x, threshold: float = 0.5):
    """``x - threshold`` above it, ``x + threshold`` below ``-threshold``, else 0.

    Args:
        x, threshold: as for ``hard_shrink``.

    Returns:
        The activated tensor.
    """
    x = _t(x)
    return nn_ops.relu(x - threshold) - nn_ops.relu(-x - threshold)


def tanh_shrink(x):
    """``x - tanh(x)``.

    Args:
        x: a tensor.

    Returns:
        The activated tensor.
    """
    x = _t(x)
    return x - math_ops.tanh(x)


def squareplus(x, b: float = 4.0):
    """``(x + sqrt(x**2 + b)) / 2``.

    Args:
        x: a tensor.
        b: the smoothness (> 0).

    Returns:
        The activated tensor.
    """
    x = _t(x)
    return (x + math_ops.sqrt(math_ops.square(x) + b)) * 0.5


def sparse_plus(x):
    """0 below -1, ``x`` above 1, ``(x + 1)**2 / 4`` between.

    Args:
        x: a tensor.

    Returns:
        The activated tensor.
    """
    x = _t(x)
    mid = math_ops.square(math_ops.clip_by_value(x, -1.0, 1.0) + 1.0) * 0.25
    return math_ops.where(math_ops.greater_equal(x, 1.0), x, mid)


def sparse_sigmoid(x):
    """0 below -1, 1 above 1, ``(x + 1) / 2`` between.

    Args:
        x: a tensor.

    Returns:
        The activated tensor.
    """
    return (math_ops.clip_by_value(_t(x), -1.0, 1.0) + 1.0) * 0.5


def threshold(x, threshold: float, default_value: float):  # noqa: A002 (Keras' names)
    """``x`` where ``x > threshold``, else ``default_value``.

    Args:
        x: a tensor.
        threshold: the threshold.
        default_value: the value at or below it.

    Returns:
        The activated tensor.
    """
    x = _t(x)
    return math_ops.where(math_ops.greater(x, threshold), x,
                          array_ops.fill(array_ops.shape(x), math_ops.cast(default_value,
                                                                           x.dtype)))


hard_swish = hard_silu


_BY_NAME = {f.__name__: f for f in (linear, relu, sigmoid, tanh, softmax, log_softmax, elu,
                                     selu, softplus, softsign, swish, gelu, relu6, leaky_relu,
                                     exponential)}
_BY_NAME["silu"] = swish
_BY_NAME.update({f.__name__: f for f in (celu, glu, hard_sigmoid, hard_silu, log_sigmoid, mish,
                                         hard_shrink, soft_shrink, tanh_shrink, squareplus,
                                         sparse_plus, sparse_sigmoid)})
_BY_NAME["hard_swish"] = hard_silu


def hard_tanh(x):
    """``x`` clipped to [-1, 1].

    Args:
        x: a tensor.

    Returns:
        The activated tensor.
    """
    return math_ops.clip_by_value(_t(x), -1.0, 1.0)


def sparsemax(x, axis: int = -1):
    """The Euclidean projection of ``x`` onto the probability simplex along ``axis``
    (Martins & Astudillo, 2016): like softmax, but exactly 0 for low scores.

    Args:
        x: a float tensor.
        axis: the axis.

    Returns:
        Non-negative values summing to 1 along ``axis``.
    """
    x = _t(x)
    srt = array_ops.sort(x, axis=axis, direction="DESCENDING")
    cum = math_ops.cumsum(srt, axis=axis)
    shape = [1] * x.shape.rank
    shape[axis] = -1
    r = array_ops.reshape(math_ops.cast(array_ops.range(1, array_ops.shape(x)[axis] + 1),
                                        x.dtype), shape)
    support = math_ops.greater(1.0 + r * srt, cum)
    k = reduction_ops.reduce_sum(math_ops.cast(support, x.dtype), axis=axis, keepdims=True)
    total = reduction_ops.reduce_sum(math_ops.where(support, srt, array_ops.zeros_like(srt)),
                                     axis=axis, keepdims=True)
    return nn_ops.relu(x - (total - 1.0) / k)


_BY_NAME.update(hard_tanh=hard_tanh, sparsemax=sparsemax)


def get(identifier) -> Callable:
    """Resolves an activation name (``'relu'``), None (linear) or callable.

    Args:
        identifier: the activation.

    Returns:
        The activation function.
    """
    if identifier is None:
        return linear
    if isinstance(identifier, str):
        return _by_name(_BY_NAME, identifier, "activation function")
    if callable(identifier):
        return identifier
    raise TypeError(f"Could not interpret activation function identifier: {identifier!r}")


def _resolve(config, custom_objects: dict | None) -> Callable:
    name = config.get("class_name") if isinstance(config, dict) else config
    if custom_objects and name in custom_objects:
        return custom_objects[name]
    return get(name)


serialize, deserialize = _serializers("activation", __name__, _resolve,
                                      names=("activation", "config"))
