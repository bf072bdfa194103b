"""``tw.nn`` compositions: sufficient_statistics, weighted_moments,
batch_norm_with_global_normalization, local_response_normalization (lrn), space_to_depth and
depth_to_space (NHWC). Their gradients come from the ops they are made of."""
from __future__ import annotations

import numpy as np

from ...core.errors import InvalidArgumentError
from ...eager.execute import constant_value
from ...graph.graph import name_scoped
from ...graph.tensor import Tensor, TensorLike
from ..array.join import pad
from ..array.layout import squeeze, transpose
from ..array.shape import reshape, shape
from ..core import convert
from ..math.binary import div_no_nan, multiply, pow, squared_difference, subtract
from ..math.cast import cast
from ..math.reduce import reduce_sum
from ..math.scan import cumsum
from ..math.unary import square
from .normalization import batch_normalization


def _axes(axes) -> list:
    v = axes if isinstance(axes, (list, tuple, int)) else constant_value(axes)
    if v is None:
        raise InvalidArgumentError(None, None, "axes must be known when the graph is built")
    return [int(a) for a in np.asarray(v).reshape(-1)]


@name_scoped
def sufficient_statistics(x: TensorLike, axes: TensorLike, shift: TensorLike | None = None,
                          keepdims: bool = False, name: str | None = None) -> tuple:
    """Count, sum and sum of squares of ``x`` over ``axes`` (``tw.nn.sufficient_statistics``).

    Args:
        x: a float tensor.
        axes: the axes to reduce.
        shift: subtracted from ``x`` first (numerical stability), or None.
        keepdims: keep the reduced axes with length 1.

    Returns:
        ``(count, mean_ss, variance_ss, shift)``: the number of reduced elements (``x``'s
        dtype), ``sum(x - shift)``, ``sum((x - shift)**2)`` and ``shift`` as given.
    """
    x = convert(x)
    ax = _axes(axes)
    dims = shape(x)
    count = cast(1, x.dtype)
    for a in ax:
        count = multiply(count, cast(dims[a], x.dtype))
    centered = x if shift is None else subtract(x, convert(shift, dtype_hint=x.dtype))
    m_ss = reduce_sum(centered, axis=ax, keepdims=keepdims)
    v_ss = reduce_sum(square(centered), axis=ax, keepdims=keepdims)
    return count, m_ss, v_ss, shift


@name_scoped
def weighted_moments(x: TensorLike, axes: TensorLike, frequency_weights: TensorLike,
                     keepdims: bool = False, name: str | None = None) -> tuple:
    """Frequency-weighted mean and variance over ``axes`` (``tw.nn.weighted_moments``).

    Args:
        x: a float tensor.
        axes: the axes to reduce.
        frequency_weights: weights broadcastable to ``x``.
        keepdims: keep the reduced axes with length 1.

    Returns:
        ``(mean, variance)``; 0 where the weights sum to 0.
    """
    x = convert(x)
    w = convert(frequency_weights, dtype_hint=x.dtype)
    ax = _axes(axes)
    total = reduce_sum(w + x * 0, axis=ax, keepdims=True)
    mean = div_no_nan(reduce_sum(w * x, axis=ax, keepdims=True), total)
    var = div_no_nan(reduce_sum(w * squared_difference(x, mean), axis=ax, keepdims=True), total)
    if not keepdims:
        mean, var = squeeze(mean, ax), squeeze(var, ax)
    return mean, var


@name_scoped
def batch_norm_with_global_normalization(input: TensorLike, mean: TensorLike,
                                         variance: TensorLike, beta: TensorLike,
                                         gamma: TensorLike, variance_epsilon: float,
                                         scale_after_normalization: bool,
                                         name: str | None = None) -> Tensor:
    """``batch_normalization`` with TensorFlow 1's argument order
    (``tw.nn.batch_norm_with_global_normalization``).

    Args:
        input: a float tensor.
        mean: the mean, broadcastable to ``input``.
        variance: the variance, broadcastable to ``input``.
        beta: the offset.
        gamma: the scale, applied only when ``scale_after_normalization``.
        variance_epsilon: a small float added to the variance.
        scale_after_normalization: whether to multiply by ``gamma``.

    Returns:
        The normalized tensor.
    """
    return batch_normalization(input, mean, variance, beta,
                               gamma if scale_after_normalization else None, variance_epsilon)


@name_scoped
def local_response_normalization(input: TensorLike, depth_radius: int = 5, bias: float = 1,
                                 alpha: float = 1, beta: float = 0.5,
                                 name: str | None = None) -> Tensor:
    """Normalizes each value by the squares of its neighbours along the last axis
    (``tw.nn.local_response_normalization``, ``tw.nn.lrn``).

    Args:
        input: a rank-4 float tensor.
        depth_radius: the half-width of the window over the last axis.
        bias: the offset.
        alpha: the scale of the sum of squares.
        beta: the exponent.

    Returns:
        ``input / (bias + alpha * sum(input[..., d-r:d+r+1] ** 2)) ** beta``.
    """
    x = convert(input)
    if x.shape.rank not in (None, 4):
        raise InvalidArgumentError(None, None, f"local_response_normalization: input must be "
                                               f"4-dimensional, got shape {x.shape} [Op:LRN]")
    r = int(depth_radius)
    if r < 0:
        raise InvalidArgumentError(None, None, f"depth_radius must be >= 0, got {r} [Op:LRN]")
    # Window sums from one cumulative sum over zero padding: c[d + 2r + 1] - c[d].
    c = cumsum(pad(square(x), [[0, 0]] * 3 + [[r + 1, r]]), axis=-1)
    window = c[..., 2 * r + 1:] - c[..., :-(2 * r + 1)]
    denom = pow(window * cast(alpha, x.dtype) + cast(bias, x.dtype), cast(beta, x.dtype))
    return x / denom


lrn = local_response_normalization


def _static_nhwc(x, op: str, data_format: str) -> list:
    if data_format != "NHWC":
        raise NotImplementedError(f"tw.nn.{op} supports only data_format='NHWC', got "
                                  f"{data_format!r}")
    if x.shape.rank != 4 or None in x.shape.as_list()[1:]:
        raise InvalidArgumentError(None, None, f"{op}: input must be 4-D with static height, "
                                               f"width and depth, got shape {x.shape}")
    return x.shape.as_list()


@name_scoped
def space_to_depth(input: TensorLike, block_size: int, data_format: str = "NHWC",
                   name: str | None = None) -> Tensor:
    """Moves ``block_size x block_size`` spatial blocks into the depth
    (``tw.nn.space_to_depth``).

    Args:
        input: ``[batch, height, width, depth]``, height and width divisible by
            ``block_size``.
        block_size: an int >= 2.
        data_format: only ``"NHWC"``.

    Returns:
        ``[batch, height / bs, width / bs, depth * bs * bs]``.
    """
    x = convert(input)
    _, h, w, c = _static_nhwc(x, "space_to_depth", data_format)
    bs = int(block_size)
    if bs < 2 or h % bs or w % bs:
        raise InvalidArgumentError(None, None, f"space_to_depth: block_size ({bs}) must be >= 2 "
                                               f"and divide height {h} and width {w}")
    y = reshape(x, [-1, h // bs, bs, w // bs, bs, c])
    return reshape(transpose(y, [0, 1, 3, 2, 4, 5]), [-1, h // bs, w // bs, bs * bs * c])


@name_scoped
def depth_to_space(input: TensorLike, block_size: int, data_format: str = "NHWC",
                   name: str | None = None) -> Tensor:
    """Moves depth into ``block_size x block_size`` spatial blocks (``tw.nn.depth_to_space``).

    Args:
        input: ``[batch, height, width, depth]``, depth divisible by ``block_size ** 2``.
        block_size: an int >= 2.
        data_format: only ``"NHWC"``.

    Returns:
        ``[batch, height * bs, width * bs, depth / bs**2]``.
    """
    x = convert(input)
    _, h, w, c = _static_nhwc(x, "depth_to_space", data_format)
    bs = int(block_size)
    if bs < 2 or c % (bs * bs):
        raise InvalidArgumentError(None, None, f"depth_to_space: block_size ({bs}) must be >= 2 "
                                               f"and its square divide the depth {c}")
    y = reshape(x, [-1, h, w, bs, bs, c // (bs * bs)])
    return reshape(transpose(y, [0, 1, 3, 2, 4, 5]), [-1, h * bs, w * bs, c // (bs * bs)])
