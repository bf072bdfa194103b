"""Neural-network ops: activations, softmax and losses, conv2d, pooling, normalization.

Activations and softmax are fused ops whose gradients are themselves ops (``ReluGrad``...), so
every rule stays differentiable. Convolutions and pools run im2col-style on
``sliding_window_view``; their gradient ops (``Conv2DBackpropInput``, ``MaxPoolGrad``...) close
under differentiation. Losses, moments and normalizations are compositions of other ops.
"""
from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from ..graph.tensor import ShapeLike, TensorLike
from . import array_ops, math_ops, random_ops, reduction_ops
from .array_ops import shape
from .core import (
    InvalidArgumentError,
    Tensor,
    TensorShape,
    ZerosLike,
    bind,
    check_float,
    constant_value,
    convert,
    convert_pair,
    dtypes,
    quietly,
    register_op,
    shape_from_tensor,
    unary_infer,
)
from .math_ops import add, multiply, negative, subtract
from .reduction_ops import reduce_sum

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def _float_infer(name: str):
    def infer(x, **attrs):
        check_float(name, x, allow_complex=False)
        return x.dtype, x.shape
    return infer


def _grad_infer(dy, x, **attrs):
    return dy.dtype, dy.shape


def _float_arg(x, op_name: str):
    """Converts ``x`` and checks it is real floating point (eager runs no ``infer``)."""
    x = convert(x)
    if not x.dtype.is_floating:
        raise InvalidArgumentError(
            None, None, f"Value for attr 'T' of {x.dtype.name} is not in the list of allowed "
            f"values: half, float, double; {op_name} needs a floating-point tensor (use "
            f"tw.cast) [Op:{op_name}]")
    return x


def _mask_nonpositive(g, y):
    """``g * (y <= 0)``, built from ReluGrad so that it stays differentiable."""
    return subtract(g, bind(ReluGrad, [g, y]))


# ----- activations ------------------------------------------------------------------------------

@register_op("Relu")
class Relu:
    """max(x, 0)."""

    infer = unary_infer

    def kernel(x):
        return np.maximum(x, x.dtype.type(0))

    def grad(op, dy):
        return bind(ReluGrad, [dy, op.outputs[0]])


@register_op("ReluGrad", same_dtype=True)
class ReluGrad:
    """dy where the Relu's output (or input) is positive, else 0."""

    infer = _grad_infer

    def kernel(dy, y):
        uint = _UINT_OF_FLOAT.get(dy.dtype)
        if uint is not None and dy.ndim and dy.shape == y.shape:
            # See lower: the same bits as np.where, without its mispredicted branches.
            return np.multiply(dy.view(uint), y > 0, dtype=uint).view(dy.dtype)
        return np.where(y > 0, dy, dy.dtype.type(0))

    def lower(op):
        """Codegen hint: np.where on a data-dependent mask mispredicts branches (5x slower than
        a multiply), so dy's bit patterns are multiplied by the 0/1 mask as unsigned ints: the
        same dy-or-+0.0 result, bit for bit (NaN and -0.0 included), without branches."""
        dy, y = op.inputs
        uint = _UINT_OF_FLOAT.get(dy.dtype.np)
        if uint is None or not dy.shape.rank or dy.shape.as_tuple() != y.shape.as_tuple():
            return None
        return _relu_grad_lowered(uint)

    def grad(op, ddx):
        return bind(ReluGrad, [ddx, op.inputs[1]]), None


_UINT_OF_FLOAT = {np.dtype(np.float16): np.uint16, np.dtype(np.float32): np.uint32,
                  np.dtype(np.float64): np.uint64}


def _relu_grad_lowered(uint):
    def relu_grad(dy, y):
        return np.multiply(dy.view(uint), y > 0, dtype=uint).view(dy.dtype)
    relu_grad.fresh_result = True
    return relu_grad


@register_op("Relu6")
class Relu6:
    """min(max(x, 0), 6)."""

    infer = unary_infer

    def kernel(x):
        return np.clip(x, x.dtype.type(0), x.dtype.type(6))

    def grad(op, dy):
        return bind(Relu6Grad, [dy, op.inputs[0]])


@register_op("Relu6Grad", same_dtype=True)
class Relu6Grad:
    """dy where 0 < x < 6, else 0."""

    infer = _grad_infer

    def kernel(dy, x):
        return np.where((x > 0) & (x < 6), dy, dy.dtype.type(0))

    def grad(op, ddx):
        return bind(Relu6Grad, [ddx, op.inputs[1]]), None


@register_op("LeakyRelu")
class LeakyRelu:
    """x if x > 0 else alpha * x."""

    infer = _float_infer("LeakyRelu")

    def kernel(x, *, alpha=0.2):
        return np.where(x > 0, x, x * x.dtype.type(alpha))

    def grad(op, dy):
        return bind(LeakyReluGrad, [dy, op.inputs[0]], {"alpha": op.attrs["alpha"]})


@register_op("LeakyReluGrad", same_dtype=True)
class LeakyReluGrad:
    """dy if x > 0 else alpha * dy."""

    infer = _grad_infer

    def kernel(dy, x, *, alpha=0.2):
        return np.where(x > 0, dy, dy * dy.dtype.type(alpha))

    def grad(op, ddx):
        return bind(LeakyReluGrad, [ddx, op.inputs[1]], {"alpha": op.attrs["alpha"]}), None


@register_op("Elu")
class Elu:
    """x if x > 0 else exp(x) - 1."""

    infer = _float_infer("Elu")

    def kernel(x):
        return np.where(x > 0, x, np.expm1(np.minimum(x, x.dtype.type(0))))

    def grad(op, dy):
        return bind(EluGrad, [dy, op.outputs[0]])


@register_op("EluGrad", same_dtype=True)
class EluGrad:
    """Elu's gradient from its output y: dy if y > 0 else dy * (y + 1)."""

    infer = _grad_infer

    def kernel(dy, y):
        return np.where(y > 0, dy, dy * (y + y.dtype.type(1)))

    def grad(op, ddx):
        dy, y = op.inputs
        return bind(EluGrad, [ddx, y]), _mask_nonpositive(multiply(ddx, dy), y)


@register_op("Selu")
class Selu:
    """scale * (x if x > 0 else alpha * (exp(x) - 1)), with the self-normalizing constants."""

    infer = _float_infer("Selu")

    def kernel(x):
        t = x.dtype.type
        neg = t(_SELU_SCALE * _SELU_ALPHA) * np.expm1(np.minimum(x, t(0)))
        return np.where(x > 0, t(_SELU_SCALE) * x, neg)

    def grad(op, dy):
        return bind(SeluGrad, [dy, op.outputs[0]])


@register_op("SeluGrad", same_dtype=True)
class SeluGrad:
    """Selu's gradient from its output y: scale * dy if y > 0 else dy * (y + scale * alpha)."""

    infer = _grad_infer

    def kernel(dy, y):
        t = y.dtype.type
        return np.where(y > 0, dy * t(_SELU_SCALE), dy * (y + t(_SELU_SCALE * _SELU_ALPHA)))

    def grad(op, ddx):
        dy, y = op.inputs
        return bind(SeluGrad, [ddx, y]), _mask_nonpositive(multiply(ddx, dy), y)


@register_op("Softplus")
class Softplus:
    """log(1 + exp(x)), computed without overflow."""

    infer = _float_infer("Softplus")

    def kernel(x):
        return np.logaddexp(x.dtype.type(0), x)

    def grad(op, dy):
        # sigmoid(x) == exp(-softplus(-x)): stable, and built from ops that differentiate again.
        return multiply(dy, math_ops.exp(negative(softplus(negative(op.inputs[0])))))


@register_op("Softsign")
class Softsign:
    """x / (1 + |x|)."""

    infer = _float_infer("Softsign")

    def kernel(x):
        return x / (x.dtype.type(1) + np.abs(x))

    def grad(op, dy):
        return bind(SoftsignGrad, [dy, op.inputs[0]])


@register_op("SoftsignGrad", same_dtype=True)
class SoftsignGrad:
    """dy / (1 + |x|)**2."""

    infer = _grad_infer

    def kernel(dy, x):
        d = x.dtype.type(1) + np.abs(x)
        return dy / (d * d)

    def grad(op, ddx):
        dy, x = op.inputs
        # d/dx (1 + |x|)**-2 = -2 sign(x) (1 + |x|)**-3, and sign(x) / (1 + |x|) equals
        # sign(x) - softsign(x)
        s = subtract(math_ops.sign(x), softsign(x))
        gx = multiply(bind(SoftsignGrad, [multiply(ddx, dy), x]), multiply(s, -2.0))
        return bind(SoftsignGrad, [ddx, x]), gx


def relu(features: TensorLike, name: str | None = None) -> Tensor:
    """Rectified linear unit, max(features, 0) (``tw.nn.relu``).

    Args:
        features: a tensor.
        name: op name.

    Returns:
        A tensor of the same shape and dtype.
    """
    return bind(Relu, [convert(features)], name=name)


def relu6(features: TensorLike, name: str | None = None) -> Tensor:
    """min(max(features, 0), 6) (``tw.nn.relu6``).

    Args:
        features: a tensor.
        name: op name.

    Returns:
        A tensor of the same shape and dtype.
    """
    return bind(Relu6, [convert(features)], name=name)


def leaky_relu(features: TensorLike, alpha: float = 0.2, name: str | None = None) -> Tensor:
    """features if positive, else alpha * features (``tw.nn.leaky_relu``).

    Args:
        features: a float tensor.
        alpha: slope for negative inputs.
        name: op name.

    Returns:
        A tensor of the same shape and dtype.
    """
    return bind(LeakyRelu, [_float_arg(features, "LeakyRelu")], {"alpha": float(alpha)}, name=name)


def elu(features: TensorLike, name: str | None = None) -> Tensor:
    """Exponential linear unit: x if x > 0 else exp(x) - 1 (``tw.nn.elu``).

    Args:
        features: a float tensor.
        name: op name.

    Returns:
        A tensor of the same shape and dtype.
    """
    return bind(Elu, [_float_arg(features, "Elu")], name=name)


def selu(features: TensorLike, name: str | None = None) -> Tensor:
    """Scaled exponential linear unit (``tw.nn.selu``).

    Args:
        features: a float tensor.
        name: op name.

    Returns:
        A tensor of the same shape and dtype.
    """
    return bind(Selu, [_float_arg(features, "Selu")], name=name)


def softplus(features: TensorLike, name: str | None = None) -> Tensor:
    """log(exp(features) + 1) (``tw.nn.softplus``, ``tw.math.softplus``).

    Args:
        features: a float tensor.
        name: op name.

    Returns:
        A tensor of the same shape and dtype.
    """
    return bind(Softplus, [_float_arg(features, "Softplus")], name=name)


def softsign(features: TensorLike, name: str | None = None) -> Tensor:
    """features / (abs(features) + 1) (``tw.nn.softsign``).

    Args:
        features: a float tensor.
        name: op name.

    Returns:
        A tensor of the same shape and dtype.
    """
    return bind(Softsign, [_float_arg(features, "Softsign")], name=name)


def silu(features: TensorLike, beta: float = 1.0, name: str | None = None) -> Tensor:
    """Sigmoid-weighted linear unit, features * sigmoid(beta * features) (``tw.nn.silu``).

    Args:
        features: a float tensor.
        beta: the sigmoid's slope.
        name: unused (kept for TensorFlow's signature).

    Returns:
        A tensor of the same shape and dtype.
    """
    x = convert(features)
    z = x if beta == 1.0 else multiply(x, beta)
    return multiply(x, math_ops.sigmoid(z))


swish = silu


def gelu(features: TensorLike, approximate: bool = False, name: str | None = None) -> Tensor:
    """Gaussian error linear unit (``tw.nn.gelu``).

    Args:
        features: a float tensor.
        approximate: use the tanh approximation instead of the exact erf form.
        name: unused (kept for TensorFlow's signature).

    Returns:
        A tensor of the same shape and dtype.
    """
    x = convert(features)
    if approximate:
        inner = multiply(add(x, multiply(multiply(multiply(x, x), x), 0.044715)),
                         float(np.sqrt(2.0 / np.pi)))
        return multiply(multiply(x, 0.5), add(math_ops.tanh(inner), 1.0))
    return multiply(multiply(x, 0.5), add(math_ops.erf(multiply(x, float(1 / np.sqrt(2.0)))),
                                          1.0))


# ----- softmax and losses -----------------------------------------------------------------------

def _softmax_infer(x, *, axis=-1):
    check_float("Softmax", x, allow_complex=False)
    rank = x.shape.rank
    if rank is not None and not -rank <= axis < max(rank, 1):
        raise InvalidArgumentError(None, None, f"axis {axis} is out of range for a tensor of "
                                               f"rank {rank}")
    return x.dtype, x.shape


@register_op("Softmax")
class Softmax:
    """exp(x) / sum(exp(x)) along ``axis``."""

    infer = _softmax_infer

    def kernel(x, *, axis=-1):
        e = np.exp(quietly(np.subtract, x, np.max(x, axis=axis, keepdims=True)))
        return e / np.sum(e, axis=axis, keepdims=True)

    def grad(op, dy):
        y = op.outputs[0]
        g = multiply(dy, y)
        return subtract(g, multiply(y, reduce_sum(g, axis=op.attrs["axis"], keepdims=True)))


@register_op("LogSoftmax")
class LogSoftmax:
    """x - log(sum(exp(x))) along ``axis``."""

    infer = _softmax_infer

    def kernel(x, *, axis=-1):
        z = quietly(np.subtract, x, np.max(x, axis=axis, keepdims=True))
        return z - np.log(np.sum(np.exp(z), axis=axis, keepdims=True))

    def grad(op, dy):
        y = op.outputs[0]
        return subtract(dy, multiply(math_ops.exp(y), reduce_sum(dy, axis=op.attrs["axis"],
                                                                 keepdims=True)))


def softmax(logits: TensorLike, axis: TensorLike | None = None, name: str | None = None) -> Tensor:
    """Softmax along ``axis`` (default: the last) (``tw.nn.softmax``).

    Args:
        logits: a float tensor.
        axis: the dimension softmax is taken over.
        name: op name.

    Returns:
        A tensor of the same shape and dtype whose slices along ``axis`` sum to 1.
    """
    axis = -1 if axis is None else int(axis)
    return bind(Softmax, [_float_arg(logits, "Softmax")], {"axis": axis}, name=name)


def log_softmax(logits: TensorLike, axis: TensorLike | None = None,
                name: str | None = None) -> Tensor:
    """Log of the softmax along ``axis`` (default: the last) (``tw.nn.log_softmax``).

    Args:
        logits: a float tensor.
        axis: the dimension softmax is taken over.
        name: op name.

    Returns:
        A tensor of the same shape and dtype.
    """
    axis = -1 if axis is None else int(axis)
    return bind(LogSoftmax, [_float_arg(logits, "LogSoftmax")], {"axis": axis}, name=name)


def _sigmoid_xent_infer(logits, labels):
    check_float("SigmoidCrossEntropyWithLogits", logits, allow_complex=False)
    if not logits.shape.is_compatible_with(labels.shape):
        raise InvalidArgumentError(
            None, None, f"logits and labels must have the same shape ({logits.shape} vs "
            f"{labels.shape})")
    return logits.dtype, logits.shape.merge_with(labels.shape)


@register_op("SigmoidCrossEntropyWithLogits", same_dtype=True)
class SigmoidCrossEntropyWithLogits:
    """max(x, 0) - x * z + log(1 + exp(-|x|)) for logits x and labels z."""

    infer = _sigmoid_xent_infer

    def kernel(x, z):
        if x.shape != z.shape:
            raise ValueError("shape mismatch")  # bind re-runs infer for the message
        t = x.dtype.type
        return np.maximum(x, t(0)) - x * z + np.log1p(np.exp(-np.abs(x)))

    def grad(op, dy):
        x, z = op.inputs
        sig = math_ops.exp(negative(softplus(negative(x))))
        return multiply(dy, subtract(sig, z)), negative(multiply(dy, x))


def sigmoid_cross_entropy_with_logits(labels: TensorLike | None = None,
                                      logits: TensorLike | None = None,
                                      name: str | None = None) -> Tensor:
    """Elementwise logistic loss, computed stably (``tw.nn.sigmoid_cross_entropy_with_logits``).

    Args:
        labels: a tensor of the logits' shape and dtype, values in [0, 1].
        logits: a float tensor.
        name: op name.

    Returns:
        The per-element loss, shaped like ``logits``.
    """
    if labels is None or logits is None:
        raise ValueError("sigmoid_cross_entropy_with_logits needs both labels and logits")
    logits = _float_arg(logits, "SigmoidCrossEntropyWithLogits")
    if isinstance(labels, Tensor) or hasattr(labels, "_as_tensor"):
        labels = convert(labels)
    else:
        # plain labels (lists, NumPy arrays of 0/1) take the logits' dtype
        labels = convert(np.asarray(labels, dtype=logits.dtype.np))
    return bind(SigmoidCrossEntropyWithLogits, [logits, labels], name=name)


def softmax_cross_entropy_with_logits(labels: TensorLike, logits: TensorLike, axis: int = -1,
                                      name: str | None = None) -> Tensor:
    """Cross entropy between ``labels`` (distributions) and softmax(``logits``).

    Args:
        labels: a tensor of the logits' shape; each slice along ``axis`` a distribution.
        logits: a float tensor.
        axis: the class dimension.
        name: unused (kept for TensorFlow's signature).

    Returns:
        The loss, with ``axis`` reduced away.
    """
    logits, labels = convert_pair(logits, labels)
    return negative(reduce_sum(multiply(labels, log_softmax(logits, axis=axis)), axis=axis))


def _sparse_xent_infer(logits, labels):
    check_float("SparseSoftmaxCrossEntropyWithLogits", logits, allow_complex=False)
    if not labels.dtype.is_integer:
        raise InvalidArgumentError(None, None, f"labels must be int32 or int64, got "
                                               f"{labels.dtype.name}")
    ls, ys = logits.shape, labels.shape
    if ls.rank is not None and ys.rank is not None:
        if ls.rank != ys.rank + 1 or not TensorShape(ls.as_list()[:-1]).is_compatible_with(ys):
            raise InvalidArgumentError(
                None, None, f"logits and labels must have the same first dimension(s), got "
                f"logits shape {ls.as_list()} and labels shape {ys.as_list()}")
        batch = TensorShape(ls.as_list()[:-1]).merge_with(ys)
        return [(logits.dtype, batch), (logits.dtype, TensorShape(batch.as_list() +
                                                                  [ls.as_list()[-1]]))]
    if ys.rank is not None:
        return [(logits.dtype, ys), (logits.dtype, TensorShape(ys.as_list() + [None]))]
    return [(logits.dtype, TensorShape(None)), (logits.dtype, ls)]


@register_op("SparseSoftmaxCrossEntropyWithLogits", multi_output=True)
class SparseSoftmaxCrossEntropyWithLogits:
    """-log(softmax(logits)[label]) per example; second output is the gradient."""

    infer = _sparse_xent_infer

    def kernel(logits, labels):
        if logits.ndim == 2 and logits.dtype in _UINT_OF_FLOAT and \
                labels.dtype.kind in "iu" and labels.dtype.itemsize in _UNSIGNED:
            return _sparse_xent_2d(logits, labels)
        return _sparse_xent_nd(logits, labels)

    def lower(op):
        """Codegen hint for [batch, classes] logits: the same arithmetic indexing rows directly
        (take/put_along_axis and the boolean label check cost more than the math itself)."""
        logits, labels = op.inputs
        if logits.shape.rank != 2 or logits.dtype.np not in _UINT_OF_FLOAT or \
                labels.dtype.np.itemsize not in _UNSIGNED:
            return None
        return _sparse_xent_2d

    def grad(op, dloss, dbackprop):
        logits, _ = op.inputs
        backprop = op.outputs[1]
        g = None
        if dloss is not None:
            g = multiply(array_ops.expand_dims(dloss, -1), backprop)
        if dbackprop is not None:
            # backprop = softmax(logits) - onehot: its gradient is softmax's.
            y = softmax(logits)
            gy = multiply(dbackprop, y)
            g2 = subtract(gy, multiply(y, reduce_sum(gy, axis=-1, keepdims=True)))
            g = g2 if g is None else add(g, g2)
        return g, None


def _sparse_xent_nd(logits, labels):
    if labels.shape != logits.shape[:-1]:
        raise ValueError("shape mismatch")  # bind re-runs infer for the message
    n = logits.shape[-1]
    bad = (labels < 0) | (labels >= n)
    if bad.any():
        first = int(labels[bad].reshape(-1)[0])
        shown = " ".join(str(int(v)) for v in labels.reshape(-1)[:20])
        raise InvalidArgumentError(
            None, None, f"Received a label value of {first} which is outside the valid "
            f"range of [0, {n}).  Label values: {shown}")
    z = quietly(np.subtract, logits, np.max(logits, axis=-1, keepdims=True))  # inf - inf: nan
    e = np.exp(z)
    s = np.sum(e, axis=-1, keepdims=True)
    logp = z - np.log(s)
    idx = labels.astype(np.intp)[..., None]
    loss = -np.take_along_axis(logp, idx, axis=-1)[..., 0]
    backprop = e / s
    np.put_along_axis(backprop, idx, np.take_along_axis(backprop, idx, -1) - 1, axis=-1)
    return loss, backprop


def _sparse_xent_2d(logits, labels):
    """``_sparse_xent_nd`` for [batch, classes] logits and 32/64-bit labels, bit for bit."""
    n = logits.shape[-1]
    # Negative labels wrap to huge unsigned values: one comparison checks both bounds.
    if labels.shape != logits.shape[:-1] or (labels.view(_UNSIGNED[labels.dtype.itemsize])
                                             >= n).any():
        return _sparse_xent_nd(logits, labels)  # raises
    z = quietly(np.subtract, logits, np.maximum.reduce(logits, axis=-1, keepdims=True))
    e = np.exp(z)
    s = np.add.reduce(e, axis=-1, keepdims=True)
    rows = np.arange(logits.shape[0])
    loss = -(z[rows, labels] - np.log(s)[:, 0])
    backprop = e / s
    backprop[rows, labels] -= 1
    return loss, backprop


_UNSIGNED = {4: np.uint32, 8: np.uint64}


def sparse_softmax_cross_entropy_with_logits(labels: TensorLike | None = None,
                                             logits: TensorLike | None = None,
                                             name: str | None = None) -> Tensor:
    """Cross entropy of softmax(``logits``) against integer class ``labels``.

    Args:
        labels: an int32/int64 tensor of shape ``logits.shape[:-1]``, values in [0, classes).
        logits: a float tensor ``[..., classes]``.
        name: op name.

    Returns:
        The per-example loss, shaped like ``labels``.

    Raises:
        InvalidArgumentError: a label is outside [0, classes).
    """
    if labels is None or logits is None:
        raise ValueError("sparse_softmax_cross_entropy_with_logits needs labels and logits")
    logits = _float_arg(logits, "SparseSoftmaxCrossEntropyWithLogits")
    labels = convert(labels, dtype_hint=dtypes.int32)
    if not labels.dtype.is_integer:
        raise InvalidArgumentError(None, None, f"labels must be int32 or int64, got "
                                               f"{labels.dtype.name} "
                                               f"[Op:SparseSoftmaxCrossEntropyWithLogits]")
    return bind(SparseSoftmaxCrossEntropyWithLogits, [logits, labels], name=name)[0]


def l2_loss(t: TensorLike, name: str | None = None) -> Tensor:
    """sum(t ** 2) / 2 (``tw.nn.l2_loss``).

    Args:
        t: a float tensor.
        name: unused (kept for TensorFlow's signature).

    Returns:
        A scalar of ``t``'s dtype.
    """
    t = convert(t)
    return multiply(reduce_sum(multiply(t, t)), 0.5)


# ----- bias_add ---------------------------------------------------------------------------------

def _channel_axis(rank, data_format):
    return 1 if data_format is not None and data_format.startswith("NC") and rank > 2 else -1


def _bias_add_infer(value, bias, *, data_format="NHWC"):
    if bias.shape.rank is not None and bias.shape.rank != 1:
        raise InvalidArgumentError(None, None, f"Biases must be 1D: {bias.shape}")
    rank = value.shape.rank
    if rank is not None:
        if rank < 2:
            raise InvalidArgumentError(None, None, f"Input tensor must be at least 2D: "
                                                   f"{value.shape}")
        c = value.shape[_channel_axis(rank, data_format)]
        b = bias.shape[0] if bias.shape.rank == 1 else None
        if c is not None and b is not None and c != b:
            raise InvalidArgumentError(
                None, None, f"Must provide as many biases as the channel dimension of the "
                f"input tensor: {bias.shape} vs. {value.shape}")
    return value.dtype, value.shape


@register_op("BiasAdd", same_dtype=True)
class BiasAdd:
    """value + bias along the channel dimension."""

    infer = _bias_add_infer

    def kernel(value, bias, *, data_format="NHWC"):
        if bias.ndim != 1 or value.ndim < 2 or \
                value.shape[_channel_axis(value.ndim, data_format)] != bias.shape[0]:
            raise ValueError("shape mismatch")  # bind re-runs infer for the message
        if _channel_axis(value.ndim, data_format) == 1:
            bias = bias.reshape((-1,) + (1,) * (value.ndim - 2))
        return value + bias

    def grad(op, dy):
        if not op.needs_grad[1]:
            return dy, None
        fmt = op.attrs["data_format"]
        return dy, bind(BiasAddGrad, [dy], {"data_format": fmt})


@register_op("BiasAddGrad")
class BiasAddGrad:
    """Sums ``out_backprop`` over every dimension but the channel one."""

    def infer(dy, *, data_format="NHWC"):
        rank = dy.shape.rank
        if rank is None:
            return dy.dtype, TensorShape([None])
        return dy.dtype, TensorShape([dy.shape[_channel_axis(rank, data_format)]])

    def kernel(dy, *, data_format="NHWC"):
        ch = _channel_axis(dy.ndim, data_format) % dy.ndim
        return np.sum(dy, axis=tuple(i for i in range(dy.ndim) if i != ch), dtype=dy.dtype)

    def grad(op, ddb):
        dy = op.inputs[0]
        return bind(BiasAdd, [bind(ZerosLike, [dy]), ddb], {"data_format":
                                                            op.attrs["data_format"]})


def bias_add(value: TensorLike, bias: TensorLike, data_format: str | None = None,
             name: str | None = None) -> Tensor:
    """Adds a 1-D ``bias`` along the channel dimension of ``value`` (``tw.nn.bias_add``).

    Args:
        value: a tensor of rank >= 2.
        bias: a 1-D tensor, as long as the channel dimension.
        data_format: "NHWC"-style (channels last, default) or "NCHW"-style.
        name: op name.

    Returns:
        ``value`` plus the broadcast bias.
    """
    value, bias = convert_pair(value, bias)
    return bind(BiasAdd, [value, bias], {"data_format": data_format or "NHWC"}, name=name)


# ----- convolution and pooling geometry ---------------------------------------------------------

def _hw_list(v, name: str, default: int = 1) -> tuple:
    """Normalizes strides/dilations/ksize to (h, w), from an int or a list of 1, 2 or 4."""
    if v is None:
        return default, default
    if isinstance(v, (int, np.integer)):
        return int(v), int(v)
    v = [int(i) for i in v]
    if len(v) == 1:
        return v[0], v[0]
    if len(v) == 2:
        return v[0], v[1]
    if len(v) == 4:
        if v[0] != 1 or v[3] != 1:
            raise InvalidArgumentError(None, None, f"{name} in the batch and depth dimensions "
                                                   f"must be 1, got {v}")
        return v[1], v[2]
    raise ValueError(f"{name} must be an int or a list of 1, 2 or 4 ints, got {v}")


def _padding_attrs(padding) -> tuple:
    """(padding string, explicit paddings as ((top, bottom), (left, right)) or None)."""
    if isinstance(padding, str):
        p = padding.upper()
        if p not in ("SAME", "VALID"):
            raise ValueError(f"padding must be 'SAME', 'VALID' or a list of pairs, got "
                             f"{padding!r}")
        return p, None
    pairs = [tuple(int(i) for i in p) for p in padding]
    if len(pairs) == 4:
        if pairs[0] != (0, 0) or pairs[3] != (0, 0):
            raise ValueError(f"explicit padding of the batch and channel dimensions must be 0, "
                             f"got {padding}")
        pairs = pairs[1:3]
    if len(pairs) != 2 or any(len(p) != 2 or min(p) < 0 for p in pairs):
        raise ValueError(f"explicit padding must be [[0, 0], [top, bottom], [left, right], "
                         f"[0, 0]] with non-negative values, got {padding}")
    return "EXPLICIT", tuple(pairs)


def _out_dim(size, k, stride, dilation, padding, explicit, which: int, op_name: str):
    """(output size, pad before, pad after) along one spatial dim; sizes may be None."""
    eff = (k - 1) * dilation + 1 if k is not None else None
    if size is None or eff is None:
        return None, None, None
    if padding == "SAME":
        out = -(-size // stride)
        total = max((out - 1) * stride + eff - size, 0)
        return out, total // 2, total - total // 2
    before, after = explicit[which] if padding == "EXPLICIT" else (0, 0)
    span = size + before + after - eff
    if span < 0:
        raise InvalidArgumentError(
            None, None, f"{op_name}: computed output size would be negative: window of "
            f"{eff} (kernel {k}, dilation {dilation}) does not fit in input size {size} "
            f"with padding ({before}, {after})")
    return span // stride + 1, before, after


def _geometry(op_name, in_shape, kh, kw, attrs):
    """Output (OH, OW) and paddings ((top, bottom), (left, right)) of a conv/pool."""
    sh, sw = attrs["strides"]
    dh, dw = attrs.get("dilations", (1, 1))
    pad, explicit = attrs["padding"], attrs.get("explicit_paddings")
    oh, pt, pb = _out_dim(in_shape[1], kh, sh, dh, pad, explicit, 0, op_name)
    ow, pl, pr = _out_dim(in_shape[2], kw, sw, dw, pad, explicit, 1, op_name)
    return (oh, ow), ((pt, pb), (pl, pr))


def _pad(x, pads, value=0):
    (pt, pb), (pl, pr) = pads
    if pt == pb == pl == pr == 0:
        return x
    return np.pad(x, ((0, 0), (pt, pb), (pl, pr), (0, 0)), constant_values=value)


def _windows(xp, kh, kw, attrs, out_hw):
    """[N, OH, OW, C, kh, kw] strided view of the windows of padded ``xp``."""
    sh, sw = attrs["strides"]
    dh, dw = attrs.get("dilations", (1, 1))
    oh, ow = out_hw
    eh, ew = (kh - 1) * dh + 1, (kw - 1) * dw + 1
    v = sliding_window_view(xp, (eh, ew), axis=(1, 2))
    return v[:, :(oh - 1) * sh + 1:sh, :(ow - 1) * sw + 1:sw, :, ::dh, ::dw]


def _offsets(kh, kw, attrs, out_hw):
    """For each window offset (i, j): the index selecting it from every window of a padded input.

    Pools and scatters loop over these kh * kw strided slices: each is one vectorized NumPy
    operation on [N, OH, OW, C], much faster than reducing small trailing window axes.
    """
    sh, sw = attrs["strides"]
    dh, dw = attrs.get("dilations", (1, 1))
    oh, ow = out_hw
    for i in range(kh):
        for j in range(kw):
            yield (slice(None), slice(i * dh, i * dh + (oh - 1) * sh + 1, sh),
                   slice(j * dw, j * dw + (ow - 1) * sw + 1, sw))


def _padded_zeros(in_shape, pads, dtype):
    n, h, w, c = in_shape
    (pt, pb), (pl, pr) = pads
    return np.zeros((n, h + pt + pb, w + pl + pr, c), dtype=dtype)


def _crop(xp, in_shape, pads):
    (pt, _), (pl, _) = pads
    return xp[:, pt:pt + in_shape[1], pl:pl + in_shape[2], :]


def _scatter_windows(cols, in_shape, kh, kw, attrs, out_hw, pads):
    """Adds cols [N, OH, OW, kh, kw, C] back onto the input positions they were read from."""
    out = _padded_zeros(in_shape, pads, cols.dtype)
    for k, sl in enumerate(_offsets(kh, kw, attrs, out_hw)):
        out[sl] += cols[:, :, :, k // kw, k % kw, :]
    return _crop(out, in_shape, pads)


def _conv_attrs(strides, padding, dilations, data_format) -> dict:
    if data_format not in (None, "NHWC"):
        raise ValueError(f"twinflow's conv2d supports data_format='NHWC' only, got "
                         f"{data_format!r}")
    pad, explicit = _padding_attrs(padding)
    return {"strides": _hw_list(strides, "strides"), "padding": pad,
            "explicit_paddings": explicit, "dilations": _hw_list(dilations, "dilations")}


def _fmt_shape(s) -> str:
    return str(s.as_list()) if s.rank is not None else "<unknown>"


def _conv_shape(op_name, x_shape, f_shape, attrs):
    """Checks conv2d operand shapes; returns the output TensorShape."""
    if x_shape.rank is not None and x_shape.rank != 4:
        raise InvalidArgumentError(None, None, f"{op_name}: input must be 4-dimensional "
                                               f"[batch, height, width, channels], got shape "
                                               f"{_fmt_shape(x_shape)}")
    if f_shape.rank is not None and f_shape.rank != 4:
        raise InvalidArgumentError(None, None, f"{op_name}: filter must be 4-dimensional "
                                               f"[height, width, in_channels, out_channels], "
                                               f"got shape {_fmt_shape(f_shape)}")
    xs = x_shape.as_list() if x_shape.rank is not None else [None] * 4
    fs = f_shape.as_list() if f_shape.rank is not None else [None] * 4
    if xs[3] is not None and fs[2] is not None and xs[3] != fs[2]:
        raise InvalidArgumentError(
            None, None, f"{op_name}: input depth {xs[3]} does not match the filter's input "
            f"depth {fs[2]} (input shape {xs}, filter shape {fs})")
    (oh, ow), _ = _geometry(op_name, xs, fs[0], fs[1], attrs)
    return TensorShape([xs[0], oh, ow, fs[3]])


def _static_dims(t) -> list:
    s = shape_from_tensor(t)
    return s.as_list() if s.rank is not None else [None] * 4


def _conv_infer(x, w, **attrs):
    check_float("Conv2D", x, allow_complex=False)
    return x.dtype, _conv_shape("Conv2D", x.shape, w.shape, attrs)


@register_op("Conv2D", same_dtype=True)
class Conv2D:
    """2-D convolution (cross-correlation) of NHWC ``input`` with HWIO ``filter``."""

    infer = _conv_infer

    def kernel(x, w, **attrs):
        kh, kw, c, o = w.shape
        n = x.shape[0]
        out_hw, pads = _geometry("Conv2D", x.shape, kh, kw, attrs)
        if x.shape[3] != c:
            raise ValueError("channel mismatch")  # bind re-runs infer for the message
        if kh == kw == 1 and attrs["strides"] == (1, 1) and out_hw == x.shape[1:3]:
            return (x.reshape(-1, c) @ w.reshape(c, o)).reshape(n, *out_hw, o)
        win = _windows(_pad(x, pads), kh, kw, attrs, out_hw)
        cols = win.transpose(0, 1, 2, 4, 5, 3).reshape(-1, kh * kw * c)
        return (cols @ w.reshape(-1, o)).reshape(n, *out_hw, o)

    def grad(op, dy):
        x, w = op.inputs
        attrs = op.attrs
        need_x, need_w = op.needs_grad
        return (bind(Conv2DBackpropInput, [shape(x), w, dy], attrs) if need_x else None,
                bind(Conv2DBackpropFilter, [x, shape(w), dy], attrs) if need_w else None)


def _check_out_backprop(op_name, dy, expected) -> None:
    if tuple(dy.shape) != tuple(expected):
        raise InvalidArgumentError(
            None, None, f"{op_name}: out_backprop has shape {list(dy.shape)} but the "
            f"convolution's output shape is {list(expected)}")


@register_op("Conv2DBackpropInput")
class Conv2DBackpropInput:
    """Gradient of Conv2D with respect to its input (also the transposed convolution)."""

    def infer(input_sizes, w, dy, **attrs):
        dims = _static_dims(input_sizes)
        if w.shape.rank is not None and w.shape.rank != 4:
            raise InvalidArgumentError(None, None, f"Conv2DBackpropInput: filter must be "
                                                   f"4-dimensional, got {_fmt_shape(w.shape)}")
        if len(dims) != 4:
            raise InvalidArgumentError(None, None, f"Conv2DBackpropInput: input_sizes must "
                                                   f"have 4 elements, got {dims}")
        return w.dtype, TensorShape(dims)

    def kernel(input_sizes, w, dy, **attrs):
        in_shape = tuple(int(v) for v in input_sizes)
        kh, kw, c, o = w.shape
        out_hw, pads = _geometry("Conv2DBackpropInput", in_shape, kh, kw, attrs)
        _check_out_backprop("Conv2DBackpropInput", dy, (in_shape[0], *out_hw, o))
        cols = (dy.reshape(-1, o) @ w.reshape(-1, o).T).reshape(
            in_shape[0], *out_hw, kh, kw, c)
        return _scatter_windows(cols, in_shape, kh, kw, attrs, out_hw, pads)

    def grad(op, ddx):
        _, w, dy = op.inputs
        attrs = op.attrs
        return (None, bind(Conv2DBackpropFilter, [ddx, shape(w), dy], attrs),
                bind(Conv2D, [ddx, w], attrs))


@register_op("Conv2DBackpropFilter")
class Conv2DBackpropFilter:
    """Gradient of Conv2D with respect to its filter."""

    def infer(x, filter_sizes, dy, **attrs):
        dims = _static_dims(filter_sizes)
        if len(dims) != 4:
            raise InvalidArgumentError(None, None, f"Conv2DBackpropFilter: filter_sizes must "
                                                   f"have 4 elements, got {dims}")
        return x.dtype, TensorShape(dims)

    def kernel(x, filter_sizes, dy, **attrs):
        kh, kw, c, o = (int(v) for v in filter_sizes)
        out_hw, pads = _geometry("Conv2DBackpropFilter", x.shape, kh, kw, attrs)
        _check_out_backprop("Conv2DBackpropFilter", dy, (x.shape[0], *out_hw, o))
        win = _windows(_pad(x, pads), kh, kw, attrs, out_hw)
        cols = win.transpose(0, 1, 2, 4, 5, 3).reshape(-1, kh * kw * c)
        return (cols.T @ dy.reshape(-1, o)).reshape(kh, kw, c, o)

    def grad(op, ddw):
        x, _, dy = op.inputs
        attrs = op.attrs
        return (bind(Conv2DBackpropInput, [shape(x), ddw, dy], attrs), None,
                bind(Conv2D, [x, ddw], attrs))


def conv2d(input: TensorLike, filters: TensorLike, strides, padding: str, data_format: str = "NHWC",
           dilations=None, name: str | None = None) -> Tensor:
    """2-D convolution (``tw.nn.conv2d``).

    Args:
        input: a float tensor [batch, height, width, in_channels].
        filters: a tensor [filter_height, filter_width, in_channels, out_channels].
        strides: an int or a list of 1, 2 or 4 ints (batch and channel strides must be 1).
        padding: "SAME", "VALID", or explicit [[0, 0], [top, bottom], [left, right], [0, 0]].
        data_format: "NHWC" (the only layout supported).
        dilations: an int or a list of 1, 2 or 4 ints (default 1).
        name: op name.

    Returns:
        The convolution, [batch, out_height, out_width, out_channels].
    """
    x, w = convert_pair(input, filters)
    _float_arg(x, "Conv2D")
    attrs = _conv_attrs(strides, padding, dilations, data_format)
    return bind(Conv2D, [x, w], attrs, name=name)


def conv2d_transpose(input: TensorLike, filters: TensorLike, output_shape: ShapeLike, strides,
                     padding: str = "SAME", data_format: str = "NHWC", dilations=None,
                     name: str | None = None) -> Tensor:
    """Transposed 2-D convolution, the gradient of conv2d (``tw.nn.conv2d_transpose``).

    Args:
        input: a tensor [batch, height, width, in_channels].
        filters: a tensor [filter_height, filter_width, output_channels, in_channels].
        output_shape: the 4-element output shape.
        strides: as for conv2d.
        padding: as for conv2d.
        data_format: "NHWC" (the only layout supported).
        dilations: as for conv2d.
        name: op name.

    Returns:
        The tensor of shape ``output_shape``.
    """
    x, w = convert_pair(input, filters)
    attrs = _conv_attrs(strides, padding, dilations, data_format)
    sizes = convert(output_shape, dtype_hint=dtypes.int32)
    return bind(Conv2DBackpropInput, [sizes, w, x], attrs, name=name)


def _pool_shape(op_name, x_shape, attrs):
    if x_shape.rank is not None and x_shape.rank != 4:
        raise InvalidArgumentError(None, None, f"{op_name}: input must be 4-dimensional "
                                               f"[batch, height, width, channels], got shape "
                                               f"{_fmt_shape(x_shape)}")
    xs = x_shape.as_list() if x_shape.rank is not None else [None] * 4
    kh, kw = attrs["ksize"]
    (oh, ow), _ = _geometry(op_name, xs, kh, kw, attrs)
    return TensorShape([xs[0], oh, ow, xs[3]])


def _pool_infer(name):
    def infer(x, **attrs):
        return x.dtype, _pool_shape(name, x.shape, attrs)
    return infer


def _max_pool_argmax(x, attrs):
    """Offset number (row-major in the window) of each window's first maximum, and geometry."""
    kh, kw = attrs["ksize"]
    out_hw, pads = _geometry("MaxPool", x.shape, kh, kw, attrs)
    fill = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min
    xp = _pad(x, pads, fill)
    best = idx = None
    for k, sl in enumerate(_offsets(kh, kw, attrs, out_hw)):
        v = xp[sl]
        if best is None:
            best, idx = v.copy(), np.zeros(v.shape, dtype=np.int8 if kh * kw < 128 else np.int32)
        else:
            better = v > best  # strict: ties keep the first position
            np.copyto(idx, k, where=better)
            np.maximum(best, v, out=best)
    return idx, out_hw, pads


@register_op("MaxPool")
class MaxPool:
    """Maximum over ``ksize`` windows of an NHWC tensor."""

    infer = _pool_infer("MaxPool")

    def kernel(x, **attrs):
        kh, kw = attrs["ksize"]
        out_hw, pads = _geometry("MaxPool", x.shape, kh, kw, attrs)
        fill = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min
        xp = _pad(x, pads, fill)
        out = None
        for sl in _offsets(kh, kw, attrs, out_hw):
            out = xp[sl].copy() if out is None else np.maximum(out, xp[sl], out=out)
        return out

    def grad(op, dy):
        return bind(MaxPoolGrad, [op.inputs[0], op.outputs[0], dy], op.attrs)


@register_op("MaxPoolGrad")
class MaxPoolGrad:
    """Routes each window's gradient to the position of its maximum (first one on ties)."""

    def infer(x, y, dy, **attrs):
        return dy.dtype, x.shape

    def kernel(x, y, dy, **attrs):
        kh, kw = attrs["ksize"]
        idx, out_hw, pads = _max_pool_argmax(x, attrs)
        dxp = _padded_zeros(x.shape, pads, dy.dtype)
        for k, sl in enumerate(_offsets(kh, kw, attrs, out_hw)):
            target = dxp[sl]
            np.add(target, dy, out=target, where=idx == k)
        return _crop(dxp, x.shape, pads)

    def grad(op, ddx):
        x, y, _ = op.inputs
        return None, None, bind(MaxPoolGradGrad, [x, y, ddx], op.attrs)


@register_op("MaxPoolGradGrad")
class MaxPoolGradGrad:
    """Picks, for each window, the input-shaped ``grad`` at the position of the maximum."""

    def infer(x, y, g, **attrs):
        return g.dtype, _pool_shape("MaxPoolGradGrad", x.shape, attrs)

    def kernel(x, y, g, **attrs):
        kh, kw = attrs["ksize"]
        idx, out_hw, pads = _max_pool_argmax(x, attrs)
        gp = _pad(g, pads)
        out = np.zeros(idx.shape, dtype=g.dtype)
        for k, sl in enumerate(_offsets(kh, kw, attrs, out_hw)):
            np.copyto(out, gp[sl], where=idx == k)
        return out

    def grad(op, dd):
        x, y, _ = op.inputs
        return None, None, bind(MaxPoolGrad, [x, y, dd], op.attrs)


def _avg_counts(in_hw, attrs, out_hw, pads, dtype):
    """How many real (unpadded) inputs each output window covers, shaped [OH, OW, 1]."""
    counts = []
    for size, k, s, n, (before, _) in zip(in_hw, attrs["ksize"], attrs["strides"], out_hw,
                                          pads):
        start = np.arange(n) * s - before
        counts.append(np.minimum(start + k, size) - np.maximum(start, 0))
    return (counts[0][:, None] * counts[1][None, :]).astype(dtype)[:, :, None]


@register_op("AvgPool")
class AvgPool:
    """Mean over ``ksize`` windows of an NHWC tensor (padding excluded from the count)."""

    infer = _pool_infer("AvgPool")

    def kernel(x, **attrs):
        kh, kw = attrs["ksize"]
        out_hw, pads = _geometry("AvgPool", x.shape, kh, kw, attrs)
        xp = _pad(x, pads)
        sums = None
        for sl in _offsets(kh, kw, attrs, out_hw):
            sums = xp[sl].copy() if sums is None else np.add(sums, xp[sl], out=sums)
        return sums / _avg_counts(x.shape[1:3], attrs, out_hw, pads, x.dtype)

    def grad(op, dy):
        return bind(AvgPoolGrad, [shape(op.inputs[0]), dy], op.attrs)


@register_op("AvgPoolGrad")
class AvgPoolGrad:
    """Spreads each window's gradient evenly over the inputs it averaged."""

    def infer(orig_input_shape, dy, **attrs):
        return dy.dtype, _static_dims_shape(orig_input_shape)

    def kernel(orig_input_shape, dy, **attrs):
        in_shape = tuple(int(v) for v in orig_input_shape)
        kh, kw = attrs["ksize"]
        out_hw, pads = _geometry("AvgPoolGrad", in_shape, kh, kw, attrs)
        _check_out_backprop("AvgPoolGrad", dy, (in_shape[0], *out_hw, in_shape[3]))
        g = dy / _avg_counts(in_shape[1:3], attrs, out_hw, pads, dy.dtype)
        dxp = _padded_zeros(in_shape, pads, dy.dtype)
        for sl in _offsets(kh, kw, attrs, out_hw):
            dxp[sl] += g
        return _crop(dxp, in_shape, pads)

    def grad(op, ddx):
        return None, bind(AvgPool, [ddx], op.attrs)


def _static_dims_shape(t) -> TensorShape:
    return TensorShape(_static_dims(t))


def _pool_attrs(ksize, strides, padding, data_format) -> dict:
    if data_format not in (None, "NHWC"):
        raise ValueError(f"twinflow's pooling supports data_format='NHWC' only, got "
                         f"{data_format!r}")
    pad, explicit = _padding_attrs(padding)
    if pad == "EXPLICIT":
        raise ValueError("pooling supports padding 'SAME' or 'VALID' only")
    return {"ksize": _hw_list(ksize, "ksize"), "strides": _hw_list(strides, "strides"),
            "padding": pad}


def max_pool2d(input: TensorLike, ksize, strides, padding: str, data_format: str = "NHWC",
               name: str | None = None) -> Tensor:
    """Max pooling over 2-D windows (``tw.nn.max_pool2d``, ``tw.nn.max_pool``).

    Args:
        input: a tensor [batch, height, width, channels].
        ksize: window size, an int or a list of 1, 2 or 4 ints.
        strides: window stride, an int or a list of 1, 2 or 4 ints.
        padding: "SAME" or "VALID".
        data_format: "NHWC" (the only layout supported).
        name: op name.

    Returns:
        The pooled tensor [batch, out_height, out_width, channels].
    """
    return bind(MaxPool, [convert(input)], _pool_attrs(ksize, strides, padding, data_format),
                name=name)


def avg_pool2d(input: TensorLike, ksize, strides, padding: str, data_format: str = "NHWC",
               name: str | None = None) -> Tensor:
    """Average pooling over 2-D windows (``tw.nn.avg_pool2d``, ``tw.nn.avg_pool``).

    Args:
        input: a float tensor [batch, height, width, channels].
        ksize: window size, an int or a list of 1, 2 or 4 ints.
        strides: window stride, an int or a list of 1, 2 or 4 ints.
        padding: "SAME" or "VALID" (padding is not counted in the average).
        data_format: "NHWC" (the only layout supported).
        name: op name.

    Returns:
        The pooled tensor [batch, out_height, out_width, channels].
    """
    x = _float_arg(input, "AvgPool")
    return bind(AvgPool, [x], _pool_attrs(ksize, strides, padding, data_format), name=name)


def max_pool(input: TensorLike, ksize, strides, padding: str, data_format: str | None = None,
             name: str | None = None) -> Tensor:
    """Max pooling of a rank-3 (NWC) or rank-4 (NHWC) tensor (``tw.nn.max_pool``).

    Args:
        input: a tensor [batch, width, channels] or [batch, height, width, channels].
        ksize: window size (an int or a list).
        strides: window stride (an int or a list).
        padding: "SAME" or "VALID".
        data_format: "NWC" / "NHWC" or None.
        name: op name.

    Returns:
        The pooled tensor.
    """
    x = convert(input)
    if x.shape.rank == 3:
        return max_pool1d(x, ksize, strides, padding, data_format or "NWC")
    return max_pool2d(x, ksize, strides, padding, data_format or "NHWC", name)


def avg_pool(input: TensorLike, ksize, strides, padding: str, data_format: str | None = None,
             name: str | None = None) -> Tensor:
    """Average pooling of a rank-3 (NWC) or rank-4 (NHWC) tensor (``tw.nn.avg_pool``).

    Args:
        input: a float tensor [batch, width, channels] or [batch, height, width, channels].
        ksize: window size (an int or a list).
        strides: window stride (an int or a list).
        padding: "SAME" or "VALID".
        data_format: "NWC" / "NHWC" or None.
        name: op name.

    Returns:
        The pooled tensor.
    """
    x = convert(input)
    if x.shape.rank == 3:
        return avg_pool1d(x, ksize, strides, padding, data_format or "NWC")
    return avg_pool2d(x, ksize, strides, padding, data_format or "NHWC", name)


@register_op("InTopKV2")
class InTopKV2:
    """Whether each target's prediction is among the ``k`` largest of its row (ties count)."""

    def infer(predictions, targets, k):
        if predictions.shape.rank not in (None, 2):
            raise InvalidArgumentError(None, None, f"predictions must be 2-dimensional, got "
                                                   f"shape {predictions.shape}")
        batch = predictions.shape[0] if predictions.shape.rank == 2 else None
        return dtypes.bool_, TensorShape([batch]).merge_with(
            targets.shape if targets.shape.rank == 1 else TensorShape([None]))

    def kernel(predictions, targets, k):
        n, c = predictions.shape
        valid = (targets >= 0) & (targets < c)
        t = np.where(valid, targets, 0).astype(np.intp)
        pt = predictions[np.arange(n), t]
        above = (predictions > pt[:, None]).sum(axis=1)
        return valid & np.isfinite(pt) & (above < int(k))

    def grad(op, dy):
        return None, None, None


def in_top_k(targets: TensorLike, predictions: TensorLike, k, name: str | None = None) -> Tensor:
    """Whether ``targets`` are in the top ``k`` of ``predictions`` (``tw.nn.in_top_k``).

    Args:
        targets: an int tensor [batch] of class indices.
        predictions: a float tensor [batch, classes].
        k: how many top entries count.
        name: op name.

    Returns:
        A bool tensor [batch]; ties at the boundary count as in, bad targets as out.
    """
    p = convert(predictions)
    t = convert(targets, dtype_hint=dtypes.int32)
    kk = convert(k, dtype=t.dtype) if hasattr(k, "dtype") else convert(k, t.dtype)
    return bind(InTopKV2, [p, t, kk], name=name)


# ----- normalization and dropout ----------------------------------------------------------------

def moments(x: TensorLike, axes: TensorLike, shift: TensorLike | None = None,
            keepdims: bool = False, name: str | None = None) -> tuple[Tensor, Tensor]:
    """Mean and variance of ``x`` over ``axes`` (``tw.nn.moments``).

    Args:
        x: a float tensor.
        axes: the axes to reduce.
        shift: unused (kept for TensorFlow's signature).
        keepdims: keep the reduced axes with length 1.
        name: unused (kept for TensorFlow's signature).

    Returns:
        A pair (mean, variance).
    """
    x = convert(x)
    axes = [int(a) for a in np.asarray(constant_value(axes) if not isinstance(axes, (list,
            tuple, int)) else axes).reshape(-1)]
    mean_k = reduction_ops.reduce_mean(x, axis=axes, keepdims=True)
    # TensorFlow stops the mean's gradient here: its contribution is zero anyway.
    sq = math_ops.squared_difference(x, array_ops.stop_gradient(mean_k))
    variance = reduction_ops.reduce_mean(sq, axis=axes, keepdims=keepdims)
    mean = mean_k if keepdims else reduction_ops.reduce_mean(x, axis=axes)
    return mean, variance


def batch_normalization(x: TensorLike, mean: TensorLike, variance: TensorLike,
                        offset: TensorLike | None, scale: TensorLike | None,
                        variance_epsilon: float, name: str | None = None) -> Tensor:
    """(x - mean) * scale / sqrt(variance + epsilon) + offset (``tw.nn.batch_normalization``).

    Args:
        x: a float tensor.
        mean: a tensor broadcastable to ``x``.
        variance: a tensor broadcastable to ``x``.
        offset: a tensor broadcastable to ``x``, or None.
        scale: a tensor broadcastable to ``x``, or None.
        variance_epsilon: a small float added to the variance.
        name: unused (kept for TensorFlow's signature).

    Returns:
        The normalized tensor.
    """
    x = convert(x)
    mean = convert(mean, dtype_hint=x.dtype)
    variance = convert(variance, dtype_hint=x.dtype)
    inv = math_ops.rsqrt(add(variance, variance_epsilon))
    if scale is not None:
        inv = multiply(inv, convert(scale, dtype_hint=x.dtype))
    shift = negative(multiply(mean, inv))
    if offset is not None:
        shift = add(shift, convert(offset, dtype_hint=x.dtype))
    return add(multiply(x, inv), shift)


def l2_normalize(x: TensorLike, axis: TensorLike | None = None, epsilon: float = 1e-12,
                 name: str | None = None) -> Tensor:
    """x / sqrt(max(sum(x ** 2, axis), epsilon)) (``tw.nn.l2_normalize``).

    Args:
        x: a float tensor.
        axis: the axis or axes to normalize along (None: all).
        epsilon: lower bound on the squared norm.
        name: unused (kept for TensorFlow's signature).

    Returns:
        The normalized tensor.
    """
    x = convert(x)
    sq = reduce_sum(multiply(x, x), axis=axis, keepdims=True)
    return multiply(x, math_ops.rsqrt(math_ops.maximum(sq, epsilon)))


def dropout(x: TensorLike, rate, noise_shape: ShapeLike | None = None, seed: int | None = None,
            name: str | None = None) -> Tensor:
    """Zeroes elements with probability ``rate``, scaling the rest by 1 / (1 - rate).

    Args:
        x: a float tensor.
        rate: the probability of dropping each element, in [0, 1).
        noise_shape: shape of the random keep/drop mask (broadcast against ``x``).
        seed: op seed (see ``tw.random.set_seed``).
        name: unused (kept for TensorFlow's signature).

    Returns:
        A tensor of ``x``'s shape and dtype.

    Raises:
        ValueError: ``rate`` is outside [0, 1).
    """
    x = convert(x)
    check_float("dropout", x, allow_complex=False)
    r = constant_value(rate) if not isinstance(rate, (int, float)) else rate
    if r is not None:
        r = float(r)
        if not 0 <= r < 1:
            raise ValueError(f"rate must be a scalar tensor or a float in the range [0, 1), "
                             f"got {r}")
        if r == 0:
            return x
    shp = shape(x) if noise_shape is None else noise_shape
    u = random_ops.random_uniform(shp, dtype=x.dtype, seed=seed)
    rate_t = math_ops.cast(rate, x.dtype) if hasattr(rate, "dtype") else rate
    keep = math_ops.cast(math_ops.greater_equal(u, rate_t), x.dtype)
    scale = math_ops.reciprocal(subtract(1.0, rate_t)) if hasattr(rate_t, "dtype") \
        else 1.0 / (1.0 - r)
    return multiply(multiply(x, scale), keep)


# ----- compositions: more convolutions, losses, embeddings -----------------------------------

def _width_arg(v, name: str) -> int:
    """An int from a 1-D stride/dilation/ksize argument: int, [w] or [1, w, 1]."""
    if v is None:
        return 1
    if isinstance(v, (int, np.integer)):
        return int(v)
    v = [int(i) for i in v]
    if len(v) == 1:
        return v[0]
    if len(v) == 3 and v[0] == v[2] == 1:
        return v[1]
    raise ValueError(f"{name} must be an int, [w] or [1, w, 1], got {v}")


def conv1d(input: TensorLike, filters: TensorLike, stride, padding: str, data_format: str = "NWC",
           dilations=None, name: str | None = None) -> Tensor:
    """1-D convolution of [batch, width, channels] inputs (``tw.nn.conv1d``).

    Args:
        input: a float tensor [batch, width, in_channels].
        filters: a tensor [filter_width, in_channels, out_channels].
        stride: an int or a list of 1 or 3 ints.
        padding: "SAME", "VALID" or explicit [[0, 0], [left, right], [0, 0]].
        data_format: "NWC" (the only layout supported).
        dilations: an int or a list of 1 or 3 ints.
        name: unused (kept for TensorFlow's signature).

    Returns:
        The convolution, [batch, out_width, out_channels].
    """
    if data_format not in (None, "NWC"):
        raise ValueError(f"conv1d supports data_format='NWC' only, got {data_format!r}")
    x, w = convert_pair(input, filters)
    if not isinstance(padding, str):
        padding = [[0, 0], [0, 0]] + [list(p) for p in padding][1:]
    out = conv2d(array_ops.expand_dims(x, 1), array_ops.expand_dims(w, 0),
                 [1, _width_arg(stride, "stride")], padding,
                 dilations=[1, _width_arg(dilations, "dilations")])
    return array_ops.squeeze(out, [1])


def _pool1d(pool, input, ksize, strides, padding, data_format) -> Tensor:
    if data_format not in (None, "NWC"):
        raise ValueError(f"1-D pooling supports data_format='NWC' only, got {data_format!r}")
    out = pool(array_ops.expand_dims(convert(input), 1), [1, _width_arg(ksize, "ksize")],
               [1, _width_arg(strides, "strides")], padding)
    return array_ops.squeeze(out, [1])


def max_pool1d(input: TensorLike, ksize, strides, padding: str, data_format: str = "NWC",
               name: str | None = None) -> Tensor:
    """Max pooling of [batch, width, channels] inputs (``tw.nn.max_pool1d``).

    Args:
        input: a tensor [batch, width, channels].
        ksize: window size (an int or a list of 1 or 3 ints).
        strides: window stride (likewise).
        padding: "SAME" or "VALID".
        data_format: "NWC" (the only layout supported).
        name: unused (kept for TensorFlow's signature).

    Returns:
        The pooled tensor.
    """
    return _pool1d(max_pool2d, input, ksize, strides, padding, data_format)


def avg_pool1d(input: TensorLike, ksize, strides, padding: str, data_format: str = "NWC",
               name: str | None = None) -> Tensor:
    """Average pooling of [batch, width, channels] inputs (``tw.nn.avg_pool1d``).

    Args:
        input: a float tensor [batch, width, channels].
        ksize: window size (an int or a list of 1 or 3 ints).
        strides: window stride (likewise).
        padding: "SAME" or "VALID".
        data_format: "NWC" (the only layout supported).
        name: unused (kept for TensorFlow's signature).

    Returns:
        The pooled tensor.
    """
    return _pool1d(avg_pool2d, input, ksize, strides, padding, data_format)


def depthwise_conv2d(input: TensorLike, filter: TensorLike, strides, padding: str,
                     data_format: str | None = None, dilations=None,
                     name: str | None = None) -> Tensor:
    """Depthwise 2-D convolution: each input channel gets its own filters.

    Runs as one conv2d with a block-diagonal filter (channel c feeds only outputs
    c * multiplier ... c * multiplier + multiplier - 1), which keeps every gradient rule.

    Args:
        input: a float tensor [batch, height, width, in_channels].
        filter: a tensor [filter_height, filter_width, in_channels, channel_multiplier].
        strides: as for conv2d.
        padding: as for conv2d.
        data_format: "NHWC" (the only layout supported).
        dilations: as for conv2d.
        name: unused (kept for TensorFlow's signature).

    Returns:
        A tensor [batch, out_height, out_width, in_channels * channel_multiplier].
    """
    x, f = convert_pair(input, filter)
    if f.shape.rank not in (None, 4):
        raise ValueError(f"depthwise_conv2d needs a rank-4 filter, got shape {f.shape}")
    fs = shape(f)
    eye = array_ops.expand_dims(array_ops.eye(fs[2], dtype=f.dtype), -1)
    full = array_ops.reshape(multiply(array_ops.expand_dims(f, 3), eye),
                             array_ops.concat([fs[:3], [-1]], 0))
    return conv2d(x, full, strides, padding, data_format or "NHWC", dilations)


def separable_conv2d(input: TensorLike, depthwise_filter: TensorLike, pointwise_filter: TensorLike,
                     strides, padding: str, data_format: str | None = None, dilations=None,
                     name: str | None = None) -> Tensor:
    """Depthwise convolution followed by a 1x1 convolution (``tw.nn.separable_conv2d``).

    Args:
        input: a float tensor [batch, height, width, in_channels].
        depthwise_filter: [filter_height, filter_width, in_channels, channel_multiplier].
        pointwise_filter: [1, 1, in_channels * channel_multiplier, out_channels].
        strides: as for conv2d.
        padding: as for conv2d.
        data_format: "NHWC" (the only layout supported).
        dilations: as for conv2d.
        name: unused (kept for TensorFlow's signature).

    Returns:
        A tensor [batch, out_height, out_width, out_channels].
    """
    d = depthwise_conv2d(input, depthwise_filter, strides, padding, data_format, dilations)
    return conv2d(d, pointwise_filter, 1, "VALID")


def atrous_conv2d(value: TensorLike, filters: TensorLike, rate, padding: str,
                  name: str | None = None) -> Tensor:
    """conv2d with dilation ``rate`` (``tw.nn.atrous_conv2d``).

    Args:
        value: a float tensor [batch, height, width, in_channels].
        filters: a tensor [filter_height, filter_width, in_channels, out_channels].
        rate: the dilation rate.
        padding: "SAME" or "VALID".
        name: op name.

    Returns:
        The convolution.
    """
    return conv2d(value, filters, 1, padding, dilations=rate, name=name)


def convolution(input: TensorLike, filters: TensorLike, strides=None, padding: str = "VALID",
                data_format: str | None = None, dilations=None, name: str | None = None) -> Tensor:
    """N-D convolution for N = 1 or 2 (``tw.nn.convolution``).

    Args:
        input: a float tensor [batch, spatial..., in_channels].
        filters: a tensor [spatial..., in_channels, out_channels].
        strides: as for conv1d / conv2d (default 1).
        padding: "SAME", "VALID" or explicit pairs.
        data_format: "NWC" / "NHWC" or None.
        dilations: as for conv1d / conv2d (default 1).
        name: op name.

    Returns:
        The convolution.
    """
    x = convert(input)
    rank = x.shape.rank
    strides = 1 if strides is None else strides
    if rank == 3:
        return conv1d(x, filters, strides, padding, data_format or "NWC", dilations)
    if rank == 4:
        return conv2d(x, filters, strides, padding, data_format or "NHWC", dilations, name)
    raise ValueError(f"tw.nn.convolution supports 1-D and 2-D convolutions (rank 3 or 4 "
                     f"input), got an input of shape {x.shape}")


def crelu(features: TensorLike, axis: int = -1, name: str | None = None) -> Tensor:
    """Concatenated ReLU: concat([relu(x), relu(-x)], axis) (``tw.nn.crelu``).

    Args:
        features: a tensor.
        axis: the axis the two halves are joined along.
        name: unused (kept for TensorFlow's signature).

    Returns:
        A tensor twice as long along ``axis``.
    """
    x = convert(features)
    return array_ops.concat([relu(x), relu(negative(x))], axis)


def weighted_cross_entropy_with_logits(labels: TensorLike, logits: TensorLike,
                                       pos_weight: TensorLike, name: str | None = None) -> Tensor:
    """Logistic loss with positive examples weighted by ``pos_weight``.

    Args:
        labels: a tensor of the logits' shape and dtype.
        logits: a float tensor.
        pos_weight: the weight of positive examples.
        name: unused (kept for TensorFlow's signature).

    Returns:
        The per-element loss.
    """
    x, z = convert_pair(logits, labels)
    log_weight = add(multiply(subtract(pos_weight, 1.0) if hasattr(pos_weight, "dtype")
                              else pos_weight - 1.0, z), 1.0)
    return add(multiply(subtract(1.0, z), x), multiply(log_weight, softplus(negative(x))))


def log_poisson_loss(targets: TensorLike, log_input: TensorLike, compute_full_loss: bool = False,
                     name: str | None = None) -> Tensor:
    """Poisson negative log-likelihood from log-rates (``tw.nn.log_poisson_loss``).

    Args:
        targets: a tensor of counts.
        log_input: a float tensor of log-rates, same shape.
        compute_full_loss: add the Stirling approximation of log(targets!).
        name: unused (kept for TensorFlow's signature).

    Returns:
        The per-element loss.
    """
    c, z = convert_pair(log_input, targets)
    loss = subtract(math_ops.exp(c), multiply(c, z))
    if not compute_full_loss:
        return loss
    # Stirling's approximation, used only where targets > 1 (as TensorFlow does).
    big = math_ops.greater(z, 1.0)
    # keep log() off targets <= 1 so neither branch of where() computes NaN
    zs = math_ops.where(big, z, array_ops.ones_like(z))
    stirling = add(subtract(multiply(zs, math_ops.log(zs)), zs),
                   multiply(math_ops.log(multiply(zs, 2 * np.pi)), 0.5))
    return add(loss, math_ops.where(big, stirling, array_ops.zeros_like(z)))


def embedding_lookup(params: TensorLike, ids: TensorLike, max_norm=None,
                     name: str | None = None) -> Tensor:
    """Rows of ``params`` for each id (``tw.nn.embedding_lookup``).

    Args:
        params: a tensor [vocabulary, ...].
        ids: an int tensor of row indices.
        max_norm: if set, rows whose L2 norm exceeds it are scaled down to it.
        name: op name.

    Returns:
        A tensor of shape ids.shape + params.shape[1:].
    """
    out = array_ops.gather(params, ids, name=name)
    if max_norm is None:
        return out
    axes = list(range(convert(ids).shape.rank, out.shape.rank))
    norm = math_ops.sqrt(reduce_sum(multiply(out, out), axis=axes, keepdims=True))
    return multiply(out, math_ops.minimum(math_ops.div_no_nan(
        convert(max_norm, dtype_hint=out.dtype), norm), 1.0))


def compute_average_loss(per_example_loss: TensorLike, sample_weight: TensorLike | None = None,
                         global_batch_size=None) -> Tensor:
    """Sums per-example losses and divides by the (global) batch size.

    Args:
        per_example_loss: a float tensor [batch, ...].
        sample_weight: optional weights broadcastable to ``per_example_loss``.
        global_batch_size: the divisor; defaults to the batch dimension.

    Returns:
        A scalar loss.
    """
    loss = convert(per_example_loss)
    if sample_weight is not None:
        loss = multiply(loss, convert(sample_weight, dtype_hint=loss.dtype))
    total = reduce_sum(loss)
    if global_batch_size is None:
        n = math_ops.cast(array_ops.shape(loss)[0] if loss.shape.rank else 1, loss.dtype)
        return math_ops.div_no_nan(total, n)
    return math_ops.divide(total, math_ops.cast(global_batch_size, loss.dtype))


def scale_regularization_loss(regularization_loss: TensorLike) -> Tensor:
    """Scales a regularization loss by the number of replicas (always 1 in twinflow).

    Args:
        regularization_loss: a scalar loss.

    Returns:
        The loss.
    """
    return convert(regularization_loss)


def zero_fraction(value: TensorLike, name: str | None = None) -> Tensor:
    """The fraction of entries of ``value`` that are zero (``tw.nn.zero_fraction``).

    Args:
        value: a numeric tensor.
        name: unused (kept for TensorFlow's signature).

    Returns:
        A float32 scalar.
    """
    v = convert(value)
    zeros = math_ops.cast(math_ops.equal(v, array_ops.zeros_like(v)), dtypes.float32)
    return reduction_ops.reduce_mean(zeros)


def normalize_moments(counts: TensorLike, mean_ss: TensorLike, variance_ss: TensorLike,
                      shift: TensorLike | None, name: str | None = None) -> tuple[Tensor, Tensor]:
    """Mean and variance from sufficient statistics (``tw.nn.normalize_moments``).

    Args:
        counts: the number of elements summed.
        mean_ss: the (shifted) sum of the elements.
        variance_ss: the (shifted) sum of squares.
        shift: the shift used, or None.
        name: unused (kept for TensorFlow's signature).

    Returns:
        A pair (mean, variance).
    """
    mean_ss = convert(mean_ss)
    divisor = math_ops.reciprocal(convert(counts, dtype_hint=mean_ss.dtype))
    shifted_mean = multiply(mean_ss, divisor)
    mean = shifted_mean if shift is None else add(shifted_mean, shift)
    variance = subtract(multiply(variance_ss, divisor), multiply(shifted_mean, shifted_mean))
    return mean, variance


__all__ = ["relu", "relu6", "leaky_relu", "elu", "selu", "gelu", "softplus", "softsign", "silu",
           "swish", "softmax", "log_softmax", "bias_add", "sigmoid_cross_entropy_with_logits",
           "softmax_cross_entropy_with_logits", "sparse_softmax_cross_entropy_with_logits",
           "l2_loss", "dropout", "conv2d", "conv2d_transpose", "max_pool2d", "avg_pool2d",
           "max_pool", "avg_pool", "moments", "batch_normalization", "l2_normalize", "conv1d",
           "max_pool1d", "avg_pool1d", "depthwise_conv2d", "separable_conv2d", "atrous_conv2d",
           "convolution", "crelu", "weighted_cross_entropy_with_logits", "log_poisson_loss",
           "embedding_lookup", "compute_average_loss", "scale_regularization_loss",
           "zero_fraction", "normalize_moments", "in_top_k"]
