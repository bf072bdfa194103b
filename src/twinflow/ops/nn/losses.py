"""Softmax and losses: softmax, log_softmax, the cross entropies, l2_loss, Poisson loss, loss
averaging."""
from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np

from ...core import dtypes
from ...core.errors import InvalidArgumentError
from ...core.parallel import intra_threads, run_blocks
from ...core.shapes import TensorShape
from ...eager.execute import bind
from ...graph.graph import name_scoped
from ...graph.registry import register_op
from ...graph.tensor import Tensor, TensorLike
from ..array.create import ones_like, zeros_like
from ..array.layout import expand_dims
from ..array.shape import shape
from ..core import convert, convert_pair, quietly, static_int
from ..math.binary import add, div_no_nan, divide, multiply, subtract
from ..math.cast import cast
from ..math.comparison import greater, where
from ..math.reduce import reduce_sum
from ..math.unary import exp, log, negative
from .activations import _UINT_OF_FLOAT, _float_arg, softplus


def _softmax_infer(x, *, axis=-1):
    if x.shape.rank == 0:  # (the schema checks the dtype and the axis)
        raise InvalidArgumentError(None, None, "logits must have >= 1 dimension, got shape []")
    return x.dtype, x.shape


@register_op("Softmax")
class Softmax:
    """exp(x) / sum(exp(x)) along ``axis``."""

    infer = _softmax_infer

    def kernel(x, *, axis=-1):
        z = quietly(np.subtract, x, np.fmax.reduce(x, axis=axis, keepdims=True))
        e = quietly(np.exp, z)
        out = quietly(np.divide, e, np.sum(e, axis=axis, keepdims=True))
        bad = np.isnan(z)  # a NaN logit, or +inf (inf - inf)
        if bad.any():  # as TensorFlow's CPU kernels: float32 rows keep 0 where z is not NaN
            rows = bad.any(axis=axis, keepdims=True)
            nan = np.full((), np.nan, out.dtype)
            keep = np.where(bad, nan, np.zeros((), out.dtype)) \
                if out.dtype.name in ("float32", "bfloat16") else nan
            out = np.where(rows, keep, out)
        return out

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
        return subtract(dy, multiply(exp(y), reduce_sum(dy, axis=op.attrs["axis"],
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
    axis = -1 if axis is None else static_int(axis, "softmax: axis")
    return bind(Softmax, [_float_arg(logits, "Softmax")], {"axis": axis}, name=name)


def log_softmax(logits: TensorLike, axis: TensorLike | None = None,
                name: str | None = None) -> Tensor:
    """Log of the softmax along ``axis`` (default: the last) (``tw.nn.log_softmax``).

    Args:
        logits, axis, name: as for ``softmax``.

    Returns:
        A tensor of the same shape and dtype.
    """
    axis = -1 if axis is None else static_int(axis, "log_softmax: axis")
    return bind(LogSoftmax, [_float_arg(logits, "LogSoftmax")], {"axis": axis}, name=name)


def _sigmoid_xent_infer(logits, labels):
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
        sig = exp(negative(softplus(negative(x))))
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


@name_scoped
def softmax_cross_entropy_with_logits(labels: TensorLike, logits: TensorLike, axis: int = -1,
                                      name: str | None = None) -> Tensor:
    """Cross entropy between ``labels`` (distributions) and softmax(``logits``).

    Args:
        labels: a tensor of the logits' shape; each slice along ``axis`` a distribution.
        logits: a float tensor.
        axis: the class dimension.

    Returns:
        The loss, with ``axis`` reduced away.
    """
    logits, labels = convert_pair(logits, labels)
    return negative(reduce_sum(multiply(labels, log_softmax(logits, axis=axis)), axis=axis))


def _sparse_xent_infer(logits, labels):
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
            g = multiply(expand_dims(dloss, -1), backprop)
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
    """``_sparse_xent_nd`` for [batch, classes] logits and 32/64-bit labels, bit for bit.

    Every step works on whole rows, so large batches are cut into runs of rows shared over
    the intra-op threads (``core.parallel``); each row's values are computed as they would be
    in one piece.
    """
    n = logits.shape[-1]
    # Negative labels wrap to huge unsigned values: one maximum checks both bounds.
    if labels.shape != logits.shape[:-1] or labels.size and labels.view(
            _UNSIGNED[labels.dtype.itemsize]).max() >= n:
        return _sparse_xent_nd(logits, labels)  # raises
    loss = np.empty(labels.shape, logits.dtype)
    # one [batch, classes] array becomes z, exp(z), then the softmax, then the gradient: fresh
    # arrays of this size cost page faults on every call
    grad = np.empty_like(logits)

    def rows(s: int, e: int, _scratch) -> None:
        x, y, g = logits[s:e], labels[s:e], grad[s:e]
        z = quietly(np.subtract, x, np.maximum.reduce(x, axis=-1, keepdims=True), g)
        # each row's label as an index into z's flat view (fancy indexing of one axis costs
        # about half that of two)
        flat = z.reshape(-1)
        at = _row_starts(e - s, n) + y
        picked = flat[at]
        np.exp(z, out=z)
        total = np.add.reduce(z, axis=-1, keepdims=True)
        np.negative(picked - np.log(total)[:, 0], out=loss[s:e])
        np.divide(z, total, out=z)
        flat[at] -= 1

    batch = logits.shape[0]
    shared = logits.size >= XENT_PARALLEL_MIN and intra_threads() > 1
    per = max(1, XENT_BLOCK_ELEMENTS // max(n, 1)) if shared else max(batch, 1)
    run_blocks(rows, batch, per, (), shared and batch > per)
    return loss, grad


@functools.lru_cache(maxsize=64)
def _row_starts(rows: int, n: int) -> np.ndarray:
    """``arange(rows) * n``, read-only and shared."""
    starts = np.arange(rows, dtype=np.intp) * n
    starts.flags.writeable = False
    return starts


# Rows of the [batch, classes] kernel per block, and the size from which the blocks are shared
# over the intra-op threads. Blocks small enough to stay in cache gain nothing measurable here
# and cost ~10 µs of calls each: a 512 x 1000 batch is two blocks, one per thread.
XENT_BLOCK_ELEMENTS = 1 << 18
XENT_PARALLEL_MIN = 1 << 18
_UNSIGNED = {4: np.uint32, 8: np.uint64}
# Both results are new arrays no one else holds: generated code may overwrite them in place
# (the gradient's scaling by 1/batch writes into the backprop array).
_sparse_xent_2d.fresh_result = True


def sparse_softmax_cross_entropy_with_logits(labels: TensorLike, logits: TensorLike,
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
    logits = _float_arg(logits, "SparseSoftmaxCrossEntropyWithLogits")
    labels = convert(labels, dtype_hint=dtypes.int32)
    if not labels.dtype.is_integer:
        raise InvalidArgumentError(None, None, f"labels must be int32 or int64, got "
                                               f"{labels.dtype.name} "
                                               f"[Op:SparseSoftmaxCrossEntropyWithLogits]")
    return bind(SparseSoftmaxCrossEntropyWithLogits, [logits, labels], name=name)[0]


@name_scoped
def l2_loss(t: TensorLike, name: str | None = None) -> Tensor:
    """sum(t ** 2) / 2 (``tw.nn.l2_loss``).

    Args:
        t: a float tensor.

    Returns:
        A scalar of ``t``'s dtype.
    """
    t = convert(t)
    return multiply(reduce_sum(multiply(t, t)), 0.5)


# ----- compositions -------------------------------------------------------------------------------

@name_scoped
def weighted_cross_entropy_with_logits(labels: TensorLike, logits: TensorLike,
                                       pos_weight: TensorLike, name: str | None = None) -> Tensor:
    """Logistic loss with positive examples weighted by ``pos_weight``.

    Args:
        labels: a tensor of the logits' shape and dtype.
        logits: a float tensor.
        pos_weight: the weight of positive examples.

    Returns:
        The per-element loss.
    """
    x, z = convert_pair(logits, labels)
    log_weight = add(multiply(subtract(pos_weight, 1.0) if hasattr(pos_weight, "dtype")
                              else pos_weight - 1.0, z), 1.0)
    return add(multiply(subtract(1.0, z), x), multiply(log_weight, softplus(negative(x))))


@name_scoped
def log_poisson_loss(targets: TensorLike, log_input: TensorLike, compute_full_loss: bool = False,
                     name: str | None = None) -> Tensor:
    """Poisson negative log-likelihood from log-rates (``tw.nn.log_poisson_loss``).

    Args:
        targets: a tensor of counts.
        log_input: a float tensor of log-rates, same shape.
        compute_full_loss: add the Stirling approximation of log(targets!).

    Returns:
        The per-element loss.
    """
    c, z = convert_pair(log_input, targets)
    loss = subtract(exp(c), multiply(c, z))
    if not compute_full_loss:
        return loss
    # Stirling's approximation, used only where targets > 1 (as TensorFlow does).
    big = greater(z, 1.0)
    # keep log() off targets <= 1 so neither branch of where() computes NaN
    zs = where(big, z, ones_like(z))
    stirling = add(subtract(multiply(zs, log(zs)), zs),
                   multiply(log(multiply(zs, 2 * np.pi)), 0.5))
    return add(loss, where(big, stirling, zeros_like(z)))


# How many replicas compute each step: 1 until tw.distribute declares its own count (the
# current strategy's num_replicas_in_sync) through register_num_replicas.
_NUM_REPLICAS: list = [lambda: 1]


def register_num_replicas(fn: Callable[[], int]) -> None:
    """Declares how the number of replicas in sync is found (tw.distribute, when imported).

    Args:
        fn: returns the current strategy's ``num_replicas_in_sync``.
    """
    _NUM_REPLICAS[0] = fn


def compute_average_loss(per_example_loss: TensorLike, sample_weight: TensorLike | None = None,
                         global_batch_size=None) -> Tensor:
    """Sums per-example losses and divides by the global batch size.

    Args:
        per_example_loss: a float tensor [batch, ...].
        sample_weight: optional weights broadcastable to ``per_example_loss``.
        global_batch_size: the divisor; defaults to the batch dimension times the number of
            replicas in sync (under a ``tw.distribute`` strategy).

    Returns:
        A scalar loss.
    """
    loss = convert(per_example_loss)
    if sample_weight is not None:
        loss = multiply(loss, convert(sample_weight, dtype_hint=loss.dtype))
    total = reduce_sum(loss)
    if global_batch_size is None:
        n = cast(shape(loss)[0] if loss.shape.rank else 1, loss.dtype)
        replicas = _NUM_REPLICAS[0]()
        if replicas != 1:
            n = multiply(n, cast(replicas, loss.dtype))
        return div_no_nan(total, n)
    return divide(total, cast(global_batch_size, loss.dtype))


def scale_regularization_loss(regularization_loss: TensorLike) -> Tensor:
    """Divides a regularization loss by the number of replicas in sync (summing the replicas'
    gradients then counts it once).

    Args:
        regularization_loss: a scalar loss.

    Returns:
        The scaled loss.
    """
    loss = convert(regularization_loss)
    replicas = _NUM_REPLICAS[0]()
    return loss if replicas == 1 else divide(loss, cast(replicas, loss.dtype))
