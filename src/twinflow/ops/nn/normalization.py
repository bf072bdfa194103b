"""Normalization and friends: moments, batch_normalization, l2_normalize, dropout, embeddings,
in_top_k."""
from __future__ import annotations

import numpy as np

from ...core import dtypes
from ...core.errors import InvalidArgumentError
from ...core.shapes import TensorShape
from ...eager.execute import bind, constant_value
from ...graph.graph import name_scoped
from ...graph.registry import register_op
from ...graph.tensor import ShapeLike, Tensor, TensorLike
from .. import random_ops
from ..array.create import zeros_like
from ..array.gather import gather
from ..array.layout import stop_gradient
from ..array.shape import shape
from ..core import check_float, convert
from ..math.binary import add, div_no_nan, maximum, minimum, multiply, squared_difference, subtract
from ..math.cast import cast
from ..math.comparison import equal, greater_equal
from ..math.reduce import reduce_mean, reduce_sum
from ..math.unary import negative, reciprocal, rsqrt, sqrt


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

@name_scoped
def moments(x: TensorLike, axes: TensorLike, shift: TensorLike | None = None,
            keepdims: bool = False, name: str | None = None) -> tuple[Tensor, Tensor]:
    """Mean and variance of ``x`` over ``axes`` (``tw.nn.moments``).

    Args:
        x: a float tensor.
        axes: the axes to reduce.
        shift: a hint that changes nothing (TensorFlow does not use it either).
        keepdims: keep the reduced axes with length 1.

    Returns:
        A pair (mean, variance).
    """
    x = convert(x)
    axes = [int(a) for a in np.asarray(constant_value(axes) if not isinstance(axes, (list,
            tuple, int)) else axes).reshape(-1)]
    mean_k = reduce_mean(x, axis=axes, keepdims=True)
    # TensorFlow stops the mean's gradient here: its contribution is zero anyway.
    sq = squared_difference(x, stop_gradient(mean_k))
    variance = reduce_mean(sq, axis=axes, keepdims=keepdims)
    mean = mean_k if keepdims else reduce_mean(x, axis=axes)
    return mean, variance


@name_scoped
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

    Returns:
        The normalized tensor.
    """
    x = convert(x)
    mean = convert(mean, dtype_hint=x.dtype)
    variance = convert(variance, dtype_hint=x.dtype)
    inv = rsqrt(add(variance, variance_epsilon))
    if scale is not None:
        inv = multiply(inv, convert(scale, dtype_hint=x.dtype))
    shift = negative(multiply(mean, inv))
    if offset is not None:
        shift = add(shift, convert(offset, dtype_hint=x.dtype))
    return add(multiply(x, inv), shift)


@name_scoped
def l2_normalize(x: TensorLike, axis: TensorLike | None = None, epsilon: float = 1e-12,
                 name: str | None = None, dim: TensorLike | None = None) -> Tensor:
    """x / sqrt(max(sum(x ** 2, axis), epsilon)) (``tw.nn.l2_normalize``).

    Args:
        x: a float tensor.
        axis: the axis or axes to normalize along (None: all).
        epsilon: lower bound on the squared norm.
        name: op name.
        dim: the deprecated name of ``axis``.

    Returns:
        The normalized tensor.
    """
    if dim is not None:
        if axis is not None:
            raise ValueError("Cannot specify both 'axis' and 'dim'")
        axis = dim
    x = convert(x)
    sq = reduce_sum(multiply(x, x), axis=axis, keepdims=True)
    return multiply(x, rsqrt(maximum(sq, epsilon)))


def static_rate(rate) -> float | None:
    """A dropout ``rate`` as a float when it is known statically (checked: in [0, 1)).

    Args:
        rate: a Python number or a scalar tensor.

    Returns:
        The rate, or None when it is known only when the graph runs.
    """
    r = rate if isinstance(rate, (int, float)) else constant_value(rate)
    if r is None:
        return None
    r = float(r)
    if not 0 <= r < 1:
        raise ValueError(f"rate must be a scalar tensor or a float in the range [0, 1), got {r}")
    return r


@name_scoped
def dropout(x: TensorLike, rate, noise_shape: ShapeLike | None = None, seed: int | None = None,
            name: str | None = None) -> Tensor:
    """Zeroes elements with probability ``rate``, scaling the rest by 1 / (1 - rate).

    Args:
        x: a float tensor.
        rate: the probability of dropping each element, in [0, 1).
        noise_shape: shape of the random keep/drop mask (broadcast against ``x``).
        seed: op seed (see ``tw.random.set_seed``).

    Returns:
        A tensor of ``x``'s shape and dtype.

    Raises:
        ValueError: ``rate`` is outside [0, 1).
    """
    x = convert(x)
    check_float("dropout", x, allow_complex=False)
    r = static_rate(rate)
    if r == 0:
        return x
    shp = shape(x) if noise_shape is None else noise_shape
    u = random_ops.random_uniform(shp, dtype=x.dtype, seed=seed)
    rate_t = cast(rate, x.dtype) if hasattr(rate, "dtype") else rate
    keep = cast(greater_equal(u, rate_t), x.dtype)
    scale = reciprocal(subtract(1.0, rate_t)) if hasattr(rate_t, "dtype") \
        else 1.0 / (1.0 - r)
    return multiply(multiply(x, scale), keep)


# ----- embeddings and statistics ------------------------------------------------------------------

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
    out = gather(params, ids, name=name)
    if max_norm is None:
        return out
    axes = list(range(convert(ids).shape.rank, out.shape.rank))
    norm = sqrt(reduce_sum(multiply(out, out), axis=axes, keepdims=True))
    return multiply(out, minimum(div_no_nan(
        convert(max_norm, dtype_hint=out.dtype), norm), 1.0))


@name_scoped
def zero_fraction(value: TensorLike, name: str | None = None) -> Tensor:
    """The fraction of entries of ``value`` that are zero (``tw.nn.zero_fraction``).

    Args:
        value: a numeric tensor.

    Returns:
        A float32 scalar.
    """
    v = convert(value)
    zeros = cast(equal(v, zeros_like(v)), dtypes.float32)
    return reduce_mean(zeros)


@name_scoped
def normalize_moments(counts: TensorLike, mean_ss: TensorLike, variance_ss: TensorLike,
                      shift: TensorLike | None, name: str | None = None) -> tuple[Tensor, Tensor]:
    """Mean and variance from sufficient statistics (``tw.nn.normalize_moments``).

    Args:
        counts: the number of elements summed.
        mean_ss: the (shifted) sum of the elements.
        variance_ss: the (shifted) sum of squares.
        shift: the shift used, or None.

    Returns:
        A pair (mean, variance).
    """
    mean_ss = convert(mean_ss)
    divisor = reciprocal(convert(counts, dtype_hint=mean_ss.dtype))
    shifted_mean = multiply(mean_ss, divisor)
    mean = shifted_mean if shift is None else add(shifted_mean, shift)
    variance = subtract(multiply(variance_ss, divisor), multiply(shifted_mean, shifted_mean))
    return mean, variance
