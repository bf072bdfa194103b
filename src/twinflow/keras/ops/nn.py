"""``keras.ops.nn``: activations, convolutions and pooling, normalization, losses, attention.

Images are ``channels_last`` unless ``data_format='channels_first'`` (or
``keras.config.image_data_format()`` says so); kernels have Keras' layouts (spatial dims,
then input channels, then output channels; ``conv_transpose``: spatial, output, input).
"""
from __future__ import annotations

import math as _pymath

import numpy as np

from ...core import dtypes
from ...ops import array_ops as A
from ...ops import linalg_ops as L
from ...ops import math_ops as MO
from ...ops import nn_ops as N
from ...ops import reduction_ops as R
from ...ops import segment_ops as SG
from ...ops.nn import conv as _conv
from ...ops.nn import conv_nd as _conv_nd
from ...ops.nn import pool as _pool
from ...ops.nn import statistics as _stats_nn
from .. import activations as _act
from .. import settings as _backend
from ._array import _ax, _dims
from ._common import as_float, floatx, promote, publish, tensor
from ._stats import polar
from .ctc import ctc_decode, ctc_loss  # noqa: F401  (keras.ops.nn names)

__all__: list = []


def _f(fn):
    return lambda x: fn(as_float(x))


def _leaky_relu(x, negative_slope: float = 0.2):
    return N.leaky_relu(as_float(x), negative_slope)


def _elu(x, alpha: float = 1.0):
    return _act.elu(as_float(x), alpha)


def _celu(x, alpha: float = 1.0):
    return _act.celu(as_float(x), alpha)


def _gelu(x, approximate: bool = True):
    return N.gelu(as_float(x), approximate=approximate)


def _glu(x, axis: int = -1):
    return _act.glu(as_float(x), axis)


def _hard_shrink(x, threshold: float = 0.5):
    return _act.hard_shrink(as_float(x), threshold)


def _soft_shrink(x, threshold: float = 0.5):
    return _act.soft_shrink(as_float(x), threshold)


def _squareplus(x, b=4):
    return _act.squareplus(as_float(x), b)


def _threshold(x, threshold, default_value):
    return _act.threshold(as_float(x), threshold, default_value)


def _softmax(x, axis: int = -1):
    x = as_float(x)
    if axis is None:
        return A.reshape(N.softmax(A.reshape(x, [-1])), A.shape(x))
    return N.softmax(x, axis=axis)


def _log_softmax(x, axis: int = -1):
    x = as_float(x)
    if axis is None:
        return A.reshape(N.log_softmax(A.reshape(x, [-1])), A.shape(x))
    return N.log_softmax(x, axis=axis)


def _sparsemax(x, axis: int = -1):
    return _act.sparsemax(as_float(x), axis)


ACTIVATIONS = {
    "relu": (_f(N.relu), "``max(x, 0)``."),
    "relu6": (_f(N.relu6), "``min(max(x, 0), 6)``."),
    "sigmoid": (_f(MO.sigmoid), "``1 / (1 + exp(-x))``."),
    "softplus": (_f(N.softplus), "``log(1 + exp(x))``."),
    "softsign": (_f(N.softsign), "``x / (1 + |x|)``."),
    "silu": (_f(N.silu), "``x * sigmoid(x)``."),
    "swish": (_f(N.silu), "``x * sigmoid(x)``."),
    "log_sigmoid": (_f(MO.log_sigmoid), "``log(sigmoid(x))``, stably."),
    "hard_sigmoid": (_f(_act.hard_sigmoid), "``relu6(x + 3) / 6``."),
    "hard_silu": (_f(_act.hard_silu), "``x * hard_sigmoid(x)``."),
    "hard_swish": (_f(_act.hard_silu), "``x * hard_sigmoid(x)``."),
    "selu": (_f(N.selu), "Scaled exponential linear unit."),
    "tanh_shrink": (_f(_act.tanh_shrink), "``x - tanh(x)``."),
    "sparse_plus": (_f(_act.sparse_plus), "0 below -1, x above 1, ``(x+1)**2/4`` between."),
    "sparse_sigmoid": (_f(_act.sparse_sigmoid), "0 below -1, 1 above 1, ``(x+1)/2`` between."),
    "hard_tanh": (_f(_act.hard_tanh), "``x`` clipped to [-1, 1]."),
    "leaky_relu": (_leaky_relu, "``x`` for x >= 0, ``negative_slope * x`` below."),
    "elu": (_elu, "``x`` for x > 0, ``alpha * (exp(x) - 1)`` below."),
    "celu": (_celu, "``max(x, 0) + min(0, alpha * (exp(x / alpha) - 1))``."),
    "gelu": (_gelu, "Gaussian error linear unit (tanh approximation by default)."),
    "glu": (_glu, "Gated linear unit: ``a * sigmoid(b)`` of the halves of ``axis``."),
    "hard_shrink": (_hard_shrink, "``x`` where ``|x| > threshold``, else 0."),
    "soft_shrink": (_soft_shrink, "``x - threshold * sign(x)`` where ``|x| > threshold``."),
    "squareplus": (_squareplus, "``(x + sqrt(x**2 + b)) / 2``."),
    "threshold": (_threshold, "``x`` where ``x > threshold``, else ``default_value``."),
    "softmax": (_softmax, "``exp(x) / sum(exp(x))`` along ``axis``."),
    "log_softmax": (_log_softmax, "``x - logsumexp(x)`` along ``axis``."),
    "sparsemax": (_sparsemax, "Euclidean projection of ``x`` onto the simplex along ``axis``."),
}


# -- normalization and encodings --------------------------------------------------------------

def one_hot(x, num_classes, axis: int = -1, dtype=None, sparse: bool = False):
    if sparse:
        raise ValueError("keras.ops.one_hot: sparse=True is not supported by twinflow")
    return A.one_hot(MO.cast(tensor(x), dtypes.int32), num_classes, axis=axis,
                     dtype=dtypes.as_dtype(dtype) if dtype else floatx())


def multi_hot(inputs, num_classes=None, axis: int = -1, dtype=None, sparse: bool = False,
              **kwargs):
    num_classes = kwargs.pop("num_tokens", num_classes)
    if kwargs:
        raise TypeError(f"keras.ops.multi_hot: unexpected arguments {sorted(kwargs)}")
    x = tensor(inputs)
    if x.shape.rank == 1:
        x = A.expand_dims(x, 0)
        out = R.reduce_max(one_hot(x, num_classes, axis, dtype, sparse), axis=1 if axis == -1
                           else 2)
        return out[0]
    reduce_axis = x.shape.rank - 1 if axis == -1 else x.shape.rank
    return R.reduce_max(one_hot(x, num_classes, axis, dtype, sparse), axis=reduce_axis)


def moments(x, axes, keepdims: bool = False, synchronized: bool = False):
    x = tensor(x)
    xf = MO.cast(x, dtypes.float32) if x.dtype in (dtypes.float16, dtypes.bfloat16) \
        else as_float(x)
    axes = list(axes) if isinstance(axes, (list, tuple)) else [axes]
    mean, var = N.moments(xf, axes, keepdims=keepdims)
    if xf.dtype is not x.dtype and x.dtype.is_floating:
        mean, var = MO.cast(mean, x.dtype), MO.cast(var, x.dtype)
    return mean, var


def batch_normalization(x, mean, variance, axis, offset=None, scale=None, epsilon=1e-3):
    x = as_float(x)
    rank = x.shape.rank
    shape = [1] * rank
    shape[_ax(axis, rank)] = -1

    def b(t):
        return None if t is None else A.reshape(tensor(t, x.dtype), shape)
    return N.batch_normalization(x, b(mean), b(variance), b(offset), b(scale), epsilon)


def normalize(x, axis: int = -1, order: int = 2, epsilon=None):
    x = as_float(x)
    eps = _backend.epsilon() if epsilon is None else epsilon
    if order == 2:
        sq = R.reduce_sum(MO.square(x), axis=axis, keepdims=True)
        return x * MO.rsqrt(MO.maximum(sq, eps * eps))
    norm = R.reduce_sum(MO.pow(MO.abs(x), float(order)), axis=axis, keepdims=True)
    return x / MO.maximum(MO.pow(norm, 1.0 / order), eps)


def layer_normalization(x, gamma=None, beta=None, axis: int = -1, epsilon=None, **kwargs):
    if kwargs.pop("rms_scaling", False):
        return rms_normalization(x, gamma, axis, epsilon)
    if kwargs:
        raise TypeError(f"keras.ops.layer_normalization: unexpected arguments {sorted(kwargs)}")
    x = as_float(x)
    eps = _backend.epsilon() if epsilon is None else epsilon
    axes = list(axis) if isinstance(axis, (list, tuple)) else [axis]
    mean, var = N.moments(x, axes, keepdims=True)
    out = (x - mean) * MO.rsqrt(var + eps)
    if gamma is not None:
        out = out * tensor(gamma, x.dtype)
    if beta is not None:
        out = out + tensor(beta, x.dtype)
    return out


def rms_normalization(x, scale=None, axis: int = -1, epsilon=None):
    x = as_float(x)
    eps = _backend.epsilon() if epsilon is None else epsilon
    out = x * MO.rsqrt(R.reduce_mean(MO.square(x), axis=axis, keepdims=True) + eps)
    return out if scale is None else out * tensor(scale, x.dtype)


# -- losses (element-wise, no reduction: Keras' backend functions) -----------------------------

def _clip_probs(p):
    eps = _backend.epsilon()
    return MO.clip_by_value(p, eps, 1.0 - eps)


def binary_crossentropy(target, output, from_logits: bool = False):
    t, o = promote(as_float(target), as_float(output))
    if from_logits:
        return N.sigmoid_cross_entropy_with_logits(labels=t, logits=o)
    o = _clip_probs(o)
    return -(t * MO.log(o) + (1.0 - t) * MO.log(1.0 - o))


def categorical_crossentropy(target, output, from_logits: bool = False, axis: int = -1):
    t, o = promote(as_float(target), as_float(output))
    if from_logits:
        return -R.reduce_sum(t * N.log_softmax(o, axis=axis), axis=axis)
    o = o / R.reduce_sum(o, axis=axis, keepdims=True)
    return -R.reduce_sum(t * MO.log(_clip_probs(o)), axis=axis)


def sparse_categorical_crossentropy(target, output, from_logits: bool = False,
                                    axis: int = -1):
    o = as_float(output)
    t = MO.cast(tensor(target), dtypes.int32)
    if t.shape.rank == o.shape.rank:
        t = A.squeeze(t, [-1])
    logits = o if from_logits else MO.log(_clip_probs(o))
    onehot = A.one_hot(t, A.shape(o)[axis], axis=axis, dtype=o.dtype)
    return -R.reduce_sum(onehot * N.log_softmax(logits, axis=axis), axis=axis)


def psnr(x1, x2, max_val):
    a, b = promote(as_float(x1), as_float(x2))
    mse = R.reduce_mean(MO.square(a - b))
    return 20.0 * MO.log(tensor(max_val, a.dtype)) / _pymath.log(10.0) - \
        10.0 * MO.log(mse) / _pymath.log(10.0)


# -- convolution and pooling ----------------------------------------------------------------

def _channels_first(data_format) -> bool:
    fmt = data_format or _backend.image_data_format()
    if fmt not in ("channels_first", "channels_last"):
        raise ValueError(f"data_format must be 'channels_first' or 'channels_last', got {fmt!r}")
    return fmt == "channels_first"


def _to_last(x, first: bool):
    return A.transpose(x, [0] + list(range(2, x.shape.rank)) + [1]) if first else x


def _to_first(x, first: bool):
    r = x.shape.rank
    return A.transpose(x, [0, r - 1] + list(range(1, r - 1))) if first else x


def _tuple(v, n: int) -> list:
    return [int(v)] * n if isinstance(v, (int, np.integer)) else [int(a) for a in v]


def _padding(padding: str) -> str:
    p = padding.upper()
    if p not in ("VALID", "SAME"):
        raise ValueError(f"padding must be 'valid' or 'same', got {padding!r}")
    return p


def conv(inputs, kernel, strides=1, padding: str = "valid", data_format=None,
         dilation_rate=1):
    first = _channels_first(data_format)
    x = _to_last(as_float(inputs), first)
    n = x.shape.rank - 2
    k = tensor(kernel, x.dtype)
    s, d = _tuple(strides, n), _tuple(dilation_rate, n)
    if n == 3:
        out = _conv_nd.conv3d(x, k, [1] + s + [1], _padding(padding),
                              dilations=[1] + d + [1])
    else:
        out = N.convolution(x, k, strides=s, padding=_padding(padding), dilations=d)
    return _to_first(out, first)


def _deconv_length(n, k, s, padding, output_padding, d):
    k = (k - 1) * d + 1
    if output_padding is None:
        return n * s if padding == "SAME" else n * s + max(k - s, 0)
    pad = k // 2 if padding == "SAME" else 0
    return (n - 1) * s + k - 2 * pad + output_padding


def conv_transpose(inputs, kernel, strides=1, padding: str = "valid", output_padding=None,
                   data_format=None, dilation_rate=1):
    first = _channels_first(data_format)
    x = _to_last(as_float(inputs), first)
    k = tensor(kernel, x.dtype)
    n = x.shape.rank - 2
    s, d = _tuple(strides, n), _tuple(dilation_rate, n)
    op = [None] * n if output_padding is None else _tuple(output_padding, n)
    pad = _padding(padding)
    ks = _dims(k, "conv_transpose")[:n]
    shape = A.shape(x)
    sp = [_deconv_length(v, kk, ss, pad, o, dd) for v, kk, ss, o, dd in
          zip(_dims(x, "conv_transpose")[1:-1], ks, s, op, d)]
    out_shape = A.stack([shape[0]] + sp + [A.shape(k)[-2]])
    if n == 1:
        y = _conv.conv2d_transpose(A.expand_dims(x, 1), A.expand_dims(k, 0),
                                   A.stack([shape[0], 1, sp[0], A.shape(k)[-2]]),
                                   [1, 1, s[0], 1], pad, dilations=[1, 1, d[0], 1])
        y = A.squeeze(y, [1])
    elif n == 2:
        y = _conv.conv2d_transpose(x, k, out_shape, [1] + s + [1], pad,
                                   dilations=[1] + d + [1])
    elif n == 3:
        y = _conv_nd.conv3d_transpose(x, k, out_shape, [1] + s + [1], pad,
                                      dilations=[1] + d + [1])
    else:
        raise ValueError(f"keras.ops.conv_transpose supports 1-3 spatial dims, got {n}")
    return _to_first(y, first)


def depthwise_conv(inputs, kernel, strides=1, padding: str = "valid", data_format=None,
                   dilation_rate=1):
    first = _channels_first(data_format)
    x = _to_last(as_float(inputs), first)
    k = tensor(kernel, x.dtype)
    n = x.shape.rank - 2
    s, d = _tuple(strides, n), _tuple(dilation_rate, n)
    if n == 1:
        y = N.depthwise_conv2d(A.expand_dims(x, 1), A.expand_dims(k, 0), [1, 1, s[0], 1],
                               _padding(padding), dilations=[1, d[0]])
        y = A.squeeze(y, [1])
    elif n == 2:
        y = N.depthwise_conv2d(x, k, [1] + s + [1], _padding(padding), dilations=d)
    else:
        raise ValueError(f"keras.ops.depthwise_conv supports 1 or 2 spatial dims, got {n}")
    return _to_first(y, first)


def separable_conv(inputs, depthwise_kernel, pointwise_kernel, strides=1, padding="valid",
                   data_format=None, dilation_rate=1):
    y = depthwise_conv(inputs, depthwise_kernel, strides, padding, data_format, dilation_rate)
    return conv(y, pointwise_kernel, 1, "valid", data_format, 1)


def _pooling(kind: str):
    def f(inputs, pool_size, strides=None, padding: str = "valid", data_format=None):
        first = _channels_first(data_format)
        x = _to_last(as_float(inputs), first)
        n = x.shape.rank - 2
        ks = _tuple(pool_size, n)
        st = ks if strides is None else _tuple(strides, n)
        fns = {"max": (_pool.max_pool1d, _pool.max_pool2d, _conv_nd.max_pool3d),
               "avg": (_pool.avg_pool1d, _pool.avg_pool2d, _conv_nd.avg_pool3d)}[kind]
        if not 1 <= n <= 3:
            raise ValueError(f"keras.ops pooling supports 1-3 spatial dims, got {n}")
        y = fns[n - 1](x, ks, st, _padding(padding))
        return _to_first(y, first)
    return f


max_pool = _pooling("max")
average_pool = _pooling("avg")


def _adaptive(reduce):
    def f(inputs, output_size, data_format=None):
        first = _channels_first(data_format)
        x = _to_last(as_float(inputs), first)
        n = x.shape.rank - 2
        sizes = _tuple(output_size, n)
        dims = _dims(x, "adaptive pooling")[1:-1]
        for axis, (length, out) in enumerate(zip(dims, sizes), start=1):
            parts = []
            for i in range(out):
                lo, hi = (i * length) // out, -(-((i + 1) * length) // out)
                sl = [slice(None)] * x.shape.rank
                sl[axis] = slice(lo, hi)
                parts.append(reduce(x[tuple(sl)], axis=axis, keepdims=True))
            x = A.concat(parts, axis)
        return _to_first(x, first)
    return f


adaptive_max_pool = _adaptive(R.reduce_max)
adaptive_average_pool = _adaptive(R.reduce_mean)


def depth_to_space(x, block_size: int, data_format: str = "channels_last"):
    fmt = "NCHW" if data_format == "channels_first" else "NHWC"
    return _stats_nn.depth_to_space(tensor(x), block_size, data_format=fmt)


def space_to_depth(x, block_size: int, data_format: str = "channels_last"):
    fmt = "NCHW" if data_format == "channels_first" else "NHWC"
    return _stats_nn.space_to_depth(tensor(x), block_size, data_format=fmt)


def _unfold_index(c, h, w, k, dil, pad, stride):
    """For (N, C, H, W) -> (N, C*kh*kw, L): the flat padded-image position of each entry."""
    hp, wp = h + 2 * pad[0], w + 2 * pad[1]
    oh = (hp - dil[0] * (k[0] - 1) - 1) // stride[0] + 1
    ow = (wp - dil[1] * (k[1] - 1) - 1) // stride[1] + 1
    ci, ki, kj, oi, oj = np.meshgrid(np.arange(c), np.arange(k[0]), np.arange(k[1]),
                                     np.arange(oh), np.arange(ow), indexing="ij")
    y = oi * stride[0] + ki * dil[0]
    xx = oj * stride[1] + kj * dil[1]
    flat = (ci * hp + y) * wp + xx
    return flat.reshape(c * k[0] * k[1], oh * ow), hp, wp


def unfold(x, kernel_size, dilation=1, padding=0, stride=1):
    x = as_float(x)
    nb, c, h, w = _dims(x, "unfold")
    k, d, p, s = (_tuple(v, 2) for v in (kernel_size, dilation, padding, stride))
    idx, hp, wp = _unfold_index(c, h, w, k, d, p, s)
    xp = A.pad(x, [[0, 0], [0, 0], [p[0], p[0]], [p[1], p[1]]])
    flat = A.reshape(xp, [nb, c * hp * wp])
    return A.gather(flat, tensor(idx.astype(np.int32)), axis=1)


def fold(x, output_size, kernel_size, dilation=1, padding=0, stride=1):
    x = as_float(x)
    nb, ckk, _ = _dims(x, "fold")
    k, d, p, s = (_tuple(v, 2) for v in (kernel_size, dilation, padding, stride))
    h, w = _tuple(output_size, 2)
    c = ckk // (k[0] * k[1])
    idx, hp, wp = _unfold_index(c, h, w, k, d, p, s)
    vals = A.transpose(A.reshape(x, [nb, -1]))
    out = SG.unsorted_segment_sum(vals, tensor(idx.reshape(-1).astype(np.int32)), c * hp * wp)
    out = A.reshape(A.transpose(out), [nb, c, hp, wp])
    return out[:, :, p[0]:p[0] + h, p[1]:p[1] + w]


# -- attention --------------------------------------------------------------------------------

def dot_product_attention(query, key, value, bias=None, mask=None, scale=None,
                          is_causal: bool = False, flash_attention=None,
                          attn_logits_soft_cap=None):
    if flash_attention:
        raise ValueError("keras.ops.dot_product_attention: flash_attention is not available "
                         "in twinflow (NumPy backend)")
    q, k, v = promote(as_float(query), as_float(key), as_float(value))
    heads, kv_heads = _dims(q, "dot_product_attention")[-2], k.shape.as_list()[-2]
    if kv_heads is not None and heads != kv_heads:
        if heads % kv_heads:
            raise ValueError(f"dot_product_attention: {heads} query heads are not a multiple "
                             f"of {kv_heads} key heads")
        k = A.repeat(k, heads // kv_heads, axis=2)
        v = A.repeat(v, heads // kv_heads, axis=2)
    h = q.shape.as_list()[-1]
    sc = (1.0 / _pymath.sqrt(h)) if scale is None else scale
    logits = L.einsum("btnh,bsnh->bnts", q, k) * sc
    if attn_logits_soft_cap is not None:
        logits = MO.tanh(logits / attn_logits_soft_cap) * attn_logits_soft_cap
    if bias is not None:
        logits = logits + tensor(bias, logits.dtype)
    big = float(np.finfo(logits.dtype.np).max) * -0.7 if logits.dtype.is_floating else -1e9
    keep = None
    if mask is not None:
        keep = MO.cast(tensor(mask), dtypes.bool_)
    if is_causal:
        t, s = A.shape(logits)[-2], A.shape(logits)[-1]
        causal = MO.greater_equal(A.expand_dims(A.range(t), 1), A.expand_dims(A.range(s), 0))
        keep = causal if keep is None else MO.logical_and(keep, causal)
    if keep is not None:
        fill = tensor(np.asarray(big, logits.dtype.np))
        logits = MO.where(keep, logits, fill + A.zeros_like(logits))
    weights = N.softmax(logits, axis=-1)
    return L.einsum("bnts,bsnh->btnh", weights, v)


__all__ = publish(globals(), ACTIVATIONS, __name__) + [
    "one_hot", "multi_hot", "moments", "batch_normalization", "normalize",
    "layer_normalization", "rms_normalization", "binary_crossentropy",
    "categorical_crossentropy", "sparse_categorical_crossentropy", "psnr", "conv",
    "conv_transpose", "depthwise_conv", "separable_conv", "max_pool", "average_pool",
    "adaptive_max_pool", "adaptive_average_pool", "depth_to_space", "space_to_depth", "unfold",
    "fold", "dot_product_attention", "polar", "ctc_loss", "ctc_decode"]
