"""Cases for ``tw.nn``: activations, softmax and losses, conv2d, pooling, normalization.

The references are written independently of the kernels (explicit loops for convolutions and
pools). Inputs of kinked functions stay away from the kinks so finite differences are exact.
"""
import math

import numpy as np

import twinflow as tw
from twinflow.ops import nn_ops

from .harness import Case, bind

rng = np.random.default_rng(7)


def _away_from(x, points, gap=0.1):
    """Moves entries of x that are within ``gap`` of any of ``points`` out by ``gap``."""
    x = x.copy()
    for p in points:
        near = np.abs(x - p) < gap
        x[near] = p + np.where(x[near] >= p, gap, -gap) * 2
    return x


X = _away_from(rng.normal(size=(3, 4)) * 2, [0.0])
X6 = _away_from(rng.uniform(-2, 8, size=(3, 4)), [0.0, 6.0])
DY = rng.normal(size=(3, 4))
LOGITS = rng.normal(size=(4, 5))
LABELS = rng.dirichlet(np.ones(5), size=4)
SPARSE = np.array([0, 3, 4, 1], dtype=np.int32)
BIAS = rng.normal(size=(4,))
IMG = rng.normal(size=(1, 5, 5, 2))
IMG6 = rng.normal(size=(2, 6, 7, 2))
FILT = rng.normal(size=(3, 3, 2, 3))
FILT2 = rng.normal(size=(2, 2, 2, 3))
SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946
_erf = np.vectorize(math.erf)


# ----- NumPy references -------------------------------------------------------------------------

def np_softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def np_log_softmax(x, axis=-1):
    return np.log(np_softmax(x, axis))


def _same_pads(size, k, s, d):
    eff = (k - 1) * d + 1
    out = -(-size // s)
    total = max((out - 1) * s + eff - size, 0)
    return out, total // 2, total - total // 2


def _geometry(h, w, kh, kw, strides, padding, dil=(1, 1)):
    if padding == "SAME":
        oh, pt, pb = _same_pads(h, kh, strides[0], dil[0])
        ow, pl, pr = _same_pads(w, kw, strides[1], dil[1])
    else:
        (pt, pb), (pl, pr) = ((0, 0), (0, 0)) if padding == "VALID" else padding
        oh = (h + pt + pb - (kh - 1) * dil[0] - 1) // strides[0] + 1
        ow = (w + pl + pr - (kw - 1) * dil[1] - 1) // strides[1] + 1
    return oh, ow, pt, pl, pb, pr


def np_conv2d(x, f, strides=(1, 1), padding="VALID", dil=(1, 1)):
    n, h, w, c = x.shape
    kh, kw, _, o = f.shape
    oh, ow, pt, pl, pb, pr = _geometry(h, w, kh, kw, strides, padding, dil)
    xp = np.pad(x, ((0, 0), (pt, pb), (pl, pr), (0, 0)))
    out = np.zeros((n, oh, ow, o), dtype=x.dtype)
    for i in range(oh):
        for j in range(ow):
            for a in range(kh):
                for b in range(kw):
                    r, q = i * strides[0] + a * dil[0], j * strides[1] + b * dil[1]
                    out[:, i, j, :] += xp[:, r, q, :] @ f[a, b]
    return out


def np_conv2d_transpose(dy, f, in_shape, strides=(1, 1), padding="VALID"):
    n, h, w, c = in_shape
    kh, kw = f.shape[:2]
    oh, ow, pt, pl, pb, pr = _geometry(h, w, kh, kw, strides, padding)
    dxp = np.zeros((n, h + pt + pb, w + pl + pr, c), dtype=dy.dtype)
    for i in range(oh):
        for j in range(ow):
            for a in range(kh):
                for b in range(kw):
                    dxp[:, i * strides[0] + a, j * strides[1] + b, :] += dy[:, i, j, :] @ f[a, b].T
    return dxp[:, pt:pt + h, pl:pl + w, :]


def np_conv2d_filter_grad(x, dy, fshape, strides=(1, 1), padding="VALID"):
    n, h, w, c = x.shape
    kh, kw = fshape[:2]
    oh, ow, pt, pl, pb, pr = _geometry(h, w, kh, kw, strides, padding)
    xp = np.pad(x, ((0, 0), (pt, pb), (pl, pr), (0, 0)))
    g = np.zeros(fshape, dtype=x.dtype)
    for i in range(oh):
        for j in range(ow):
            for a in range(kh):
                for b in range(kw):
                    g[a, b] += xp[:, i * strides[0] + a, j * strides[1] + b, :].T @ dy[:, i, j, :]
    return g


def _pool_windows(x, k, s, padding):
    """Yields (i, j, rows, cols) of each output window, clipped to the real input."""
    n, h, w, c = x.shape
    oh, ow, pt, pl, _, _ = _geometry(h, w, k[0], k[1], s, padding)
    for i in range(oh):
        for j in range(ow):
            r0, c0 = i * s[0] - pt, j * s[1] - pl
            yield i, j, slice(max(r0, 0), min(r0 + k[0], h)), slice(max(c0, 0), min(c0 + k[1], w))


def np_pool(x, k, s, padding, reduce):
    n, h, w, c = x.shape
    oh, ow = _geometry(h, w, k[0], k[1], s, padding)[:2]
    out = np.zeros((n, oh, ow, c), dtype=x.dtype)
    for i, j, rs, cs in _pool_windows(x, k, s, padding):
        out[:, i, j, :] = reduce(x[:, rs, cs, :], axis=(1, 2))
    return out


def np_max_pool_grad(x, dy, k, s, padding):
    dx = np.zeros_like(x)
    for i, j, rs, cs in _pool_windows(x, k, s, padding):
        win = x[:, rs, cs, :]
        for b in range(x.shape[0]):
            for ch in range(x.shape[3]):
                a = np.unravel_index(np.argmax(win[b, :, :, ch]), win.shape[1:3])
                dx[b, rs.start + a[0], cs.start + a[1], ch] += dy[b, i, j, ch]
    return dx


def np_max_pool_grad_grad(x, g, k, s, padding):
    out = np_pool(x, k, s, padding, np.max) * 0
    for i, j, rs, cs in _pool_windows(x, k, s, padding):
        win = x[:, rs, cs, :]
        for b in range(x.shape[0]):
            for ch in range(x.shape[3]):
                a = np.unravel_index(np.argmax(win[b, :, :, ch]), win.shape[1:3])
                out[b, i, j, ch] = g[b, rs.start + a[0], cs.start + a[1], ch]
    return out


def np_avg_pool_grad(in_shape, dy, k, s, padding):
    dx = np.zeros(in_shape, dtype=dy.dtype)
    for i, j, rs, cs in _pool_windows(dx, k, s, padding):
        cnt = (rs.stop - rs.start) * (cs.stop - cs.start)
        dx[:, rs, cs, :] += dy[:, i:i + 1, j:j + 1, :] / cnt
    return dx


def np_gelu(x, approximate=False):
    if approximate:
        return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))
    return 0.5 * x * (1 + _erf(x / np.sqrt(2)))


def np_sparse_xent(labels, logits):
    return -np_log_softmax(logits)[np.arange(len(labels)), labels]


def _mp(x):
    return tw.nn.max_pool2d(x, 2, 2, "SAME")


_MP_ATTRS = {"ksize": (2, 2), "strides": (2, 2), "padding": "SAME"}
_AP_ATTRS = {"ksize": (3, 3), "strides": (2, 2), "padding": "SAME"}
_CONV_ATTRS = nn_ops._conv_attrs(2, "SAME", None, "NHWC")
POOL_DY = rng.normal(size=(1, 3, 3, 2))
CONV_DY = rng.normal(size=(1, 3, 3, 3))


def np_depthwise(x, f, strides=(1, 1), padding="VALID"):
    c, m = f.shape[2:]
    outs = [np_conv2d(x[..., i:i + 1], f[:, :, i:i + 1, k:k + 1], strides, padding)
            for i in range(c) for k in range(m)]
    return np.concatenate(outs, axis=-1)


def np_log_poisson(z, c, full=False):
    loss = np.exp(c) - c * z
    if full:
        with np.errstate(divide="ignore", invalid="ignore"):
            st = z * np.log(z) - z + 0.5 * np.log(2 * np.pi * z)
        loss = loss + np.where(z > 1, st, 0)
    return loss


SEQ = rng.normal(size=(2, 7, 3))
EMB = rng.normal(size=(6, 3))


CASES = [
    # activations
    Case(tw.nn.relu, [X], lambda x: np.maximum(x, 0), name="relu"),
    Case(tw.nn.relu, [X.astype(np.float32)], lambda x: np.maximum(x, 0), name="relu_f32"),
    Case(tw.nn.relu, [np.array([-2, 0, 3], np.int32)], lambda x: np.maximum(x, 0),
         name="relu_int"),
    Case(tw.nn.relu6, [X6], lambda x: np.clip(x, 0, 6), name="relu6"),
    Case(tw.nn.leaky_relu, [X], lambda x: np.where(x > 0, x, 0.2 * x), name="leaky_relu"),
    Case(lambda x: tw.nn.leaky_relu(x, alpha=0.01), [X], lambda x: np.where(x > 0, x, 0.01 * x),
         name="leaky_relu_alpha"),
    Case(tw.nn.elu, [X], lambda x: np.where(x > 0, x, np.expm1(x)), name="elu"),
    Case(tw.nn.selu, [X], lambda x: SELU_SCALE * np.where(x > 0, x, SELU_ALPHA * np.expm1(x)),
         name="selu"),
    Case(tw.nn.softplus, [X * 10], lambda x: np.logaddexp(0, x), name="softplus"),
    Case(tw.nn.softplus, [np.array([-100.0, 0.0, 100.0], np.float32)],
         lambda x: np.logaddexp(0, x), name="softplus_f32_extreme"),
    Case(tw.nn.softsign, [X], lambda x: x / (1 + np.abs(x)), name="softsign"),
    Case(tw.nn.silu, [X], lambda x: x / (1 + np.exp(-x)), name="silu"),
    Case(lambda x: tw.nn.silu(x, beta=2.0), [X], lambda x: x / (1 + np.exp(-2 * x)),
         name="silu_beta"),
    Case(tw.nn.gelu, [X], np_gelu, name="gelu_exact"),
    Case(lambda x: tw.nn.gelu(x, approximate=True), [X], lambda x: np_gelu(x, True),
         name="gelu_tanh"),
    # gradient ops of the activations (their own gradients are the second-order rules)
    Case(lambda dy, y: bind(nn_ops.ReluGrad, [dy, y]), [DY, X],
         lambda dy, y: dy * (y > 0), name="ReluGrad"),
    Case(lambda dy, x: bind(nn_ops.Relu6Grad, [dy, x]), [DY, X6],
         lambda dy, x: dy * ((x > 0) & (x < 6)), name="Relu6Grad"),
    Case(lambda dy, x: bind(nn_ops.LeakyReluGrad, [dy, x], {"alpha": 0.3}), [DY, X],
         lambda dy, x: np.where(x > 0, dy, 0.3 * dy), name="LeakyReluGrad"),
    Case(lambda dy, y: bind(nn_ops.EluGrad, [dy, y]), [DY, np.maximum(X, -0.9)],
         lambda dy, y: np.where(y > 0, dy, dy * (y + 1)), name="EluGrad"),
    Case(lambda dy, y: bind(nn_ops.SeluGrad, [dy, y]), [DY, np.maximum(X, -1.5)],
         lambda dy, y: np.where(y > 0, SELU_SCALE * dy, dy * (y + SELU_SCALE * SELU_ALPHA)),
         name="SeluGrad"),
    Case(lambda dy, x: bind(nn_ops.SoftsignGrad, [dy, x]), [DY, X],
         lambda dy, x: dy / (1 + np.abs(x)) ** 2, name="SoftsignGrad"),
    # softmax and losses
    Case(tw.nn.softmax, [LOGITS], np_softmax, name="softmax"),
    Case(lambda x: tw.nn.softmax(x, axis=0), [LOGITS], lambda x: np_softmax(x, 0),
         name="softmax_axis0"),
    Case(tw.nn.softmax, [LOGITS.astype(np.float32)], np_softmax, name="softmax_f32"),
    Case(tw.nn.log_softmax, [LOGITS], np_log_softmax, name="log_softmax"),
    Case(lambda x: tw.nn.log_softmax(x, axis=0), [LOGITS], lambda x: np_log_softmax(x, 0),
         name="log_softmax_axis0"),
    Case(lambda z, x: tw.nn.sigmoid_cross_entropy_with_logits(labels=z, logits=x),
         [rng.uniform(size=(3, 4)), X * 3],
         lambda z, x: z * np.logaddexp(0, -x) + (1 - z) * np.logaddexp(0, x),
         name="sigmoid_cross_entropy_with_logits"),
    Case(lambda z, x: tw.nn.softmax_cross_entropy_with_logits(z, x), [LABELS, LOGITS],
         lambda z, x: -(z * np_log_softmax(x)).sum(-1), name="softmax_cross_entropy"),
    Case(lambda z, x: tw.nn.softmax_cross_entropy_with_logits(z, x, axis=0),
         [LABELS.T.copy(), LOGITS.T.copy()],
         lambda z, x: -(z * np_log_softmax(x, 0)).sum(0), name="softmax_cross_entropy_axis0"),
    Case(lambda y, x: tw.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=x),
         [SPARSE, LOGITS], np_sparse_xent, name="sparse_softmax_cross_entropy"),
    Case(lambda y, x: tw.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=x),
         [SPARSE.astype(np.int64), LOGITS.astype(np.float32)],
         lambda y, x: np_sparse_xent(y, x).astype(np.float32), rtol=1e-5,
         name="sparse_softmax_cross_entropy_f32"),
    Case(lambda y, x: bind(nn_ops.SparseSoftmaxCrossEntropyWithLogits, [x, y])[1],
         [SPARSE, LOGITS], lambda y, x: np_softmax(x) - np.eye(5)[y],
         name="sparse_softmax_cross_entropy_backprop"),
    Case(tw.nn.l2_loss, [X], lambda x: np.sum(x * x) / 2, name="l2_loss"),
    Case(tw.nn.bias_add, [X, BIAS], lambda x, b: x + b, name="bias_add"),
    Case(tw.nn.bias_add, [IMG6, rng.normal(size=(2,))], lambda x, b: x + b, name="bias_add_4d"),
    Case(lambda x, b: tw.nn.bias_add(x, b, data_format="NCHW"),
         [rng.normal(size=(2, 3, 2, 2)), rng.normal(size=(3,))],
         lambda x, b: x + b[:, None, None], name="bias_add_nchw"),
    # convolution
    Case(lambda x, f: tw.nn.conv2d(x, f, 1, "VALID"), [IMG, FILT], np_conv2d,
         name="conv2d_valid"),
    Case(lambda x, f: tw.nn.conv2d(x, f, [1, 1, 1, 1], "SAME"), [IMG, FILT],
         lambda x, f: np_conv2d(x, f, padding="SAME"), name="conv2d_same"),
    Case(lambda x, f: tw.nn.conv2d(x, f, 2, "SAME"), [IMG, FILT],
         lambda x, f: np_conv2d(x, f, (2, 2), "SAME"), name="conv2d_same_stride2"),
    Case(lambda x, f: tw.nn.conv2d(x, f, [2, 3], "VALID"), [IMG6, FILT2],
         lambda x, f: np_conv2d(x, f, (2, 3), "VALID"), name="conv2d_valid_strides23"),
    Case(lambda x, f: tw.nn.conv2d(x, f, 1, "SAME", dilations=2), [IMG, FILT2],
         lambda x, f: np_conv2d(x, f, padding="SAME", dil=(2, 2)), name="conv2d_dilated_same"),
    Case(lambda x, f: tw.nn.conv2d(x, f, 1, "VALID", dilations=[1, 2]), [IMG, FILT2],
         lambda x, f: np_conv2d(x, f, dil=(1, 2)), name="conv2d_dilated_valid"),
    Case(lambda x, f: tw.nn.conv2d(x, f, 1, [[0, 0], [1, 0], [2, 1], [0, 0]]), [IMG, FILT],
         lambda x, f: np_conv2d(x, f, padding=((1, 0), (2, 1))), name="conv2d_explicit_pad"),
    Case(lambda x, f: tw.nn.conv2d(x, f, 1, "SAME"), [IMG, rng.normal(size=(1, 1, 2, 3))],
         lambda x, f: np_conv2d(x, f, padding="SAME"), name="conv2d_1x1"),
    Case(lambda x, f: tw.nn.conv2d(x, f, 2, "SAME"),
         [IMG6.astype(np.float32), FILT.astype(np.float32)],
         lambda x, f: np_conv2d(x, f, (2, 2), "SAME"), rtol=1e-4, atol=1e-5,
         name="conv2d_f32"),
    Case(lambda dy, f: tw.nn.conv2d_transpose(dy, f, [1, 5, 5, 2], 2, "SAME"),
         [CONV_DY, FILT], lambda dy, f: np_conv2d_transpose(dy, f, (1, 5, 5, 2), (2, 2), "SAME"),
         name="conv2d_transpose"),
    Case(lambda dy, f: tw.nn.conv2d_transpose(dy, f, [1, 5, 5, 2], 1, "VALID"),
         [rng.normal(size=(1, 3, 3, 3)), FILT],
         lambda dy, f: np_conv2d_transpose(dy, f, (1, 5, 5, 2)), name="conv2d_transpose_valid"),
    Case(lambda x, dy: bind(nn_ops.Conv2DBackpropFilter, [x, tw.constant([3, 3, 2, 3]), dy],
                            _CONV_ATTRS),
         [IMG, CONV_DY], lambda x, dy: np_conv2d_filter_grad(x, dy, (3, 3, 2, 3), (2, 2), "SAME"),
         name="Conv2DBackpropFilter"),
    # pooling
    Case(_mp, [IMG], lambda x: np_pool(x, (2, 2), (2, 2), "SAME", np.max), name="max_pool_same"),
    Case(lambda x: tw.nn.max_pool2d(x, 3, 1, "VALID"), [IMG],
         lambda x: np_pool(x, (3, 3), (1, 1), "VALID", np.max), name="max_pool_valid"),
    Case(lambda x: tw.nn.max_pool(x, [1, 2, 3, 1], [1, 2, 2, 1], "SAME"), [IMG6],
         lambda x: np_pool(x, (2, 3), (2, 2), "SAME", np.max), name="max_pool_alias"),
    Case(lambda x: tw.nn.max_pool2d(x, 2, 2, "VALID"), [IMG6.astype(np.float32)],
         lambda x: np_pool(x, (2, 2), (2, 2), "VALID", np.max), name="max_pool_f32"),
    Case(lambda x: tw.nn.avg_pool2d(x, 3, 2, "SAME"), [IMG],
         lambda x: np_pool(x, (3, 3), (2, 2), "SAME", np.mean), name="avg_pool_same"),
    Case(lambda x: tw.nn.avg_pool(x, 2, [1, 2], "VALID"), [IMG6],
         lambda x: np_pool(x, (2, 2), (1, 2), "VALID", np.mean), name="avg_pool_valid"),
    Case(lambda x, dy: bind(nn_ops.MaxPoolGrad, [x, _mp(x), dy], _MP_ATTRS), [IMG, POOL_DY],
         lambda x, dy: np_max_pool_grad(x, dy, (2, 2), (2, 2), "SAME"), name="MaxPoolGrad"),
    Case(lambda x, g: bind(nn_ops.MaxPoolGradGrad, [x, _mp(x), g], _MP_ATTRS),
         [IMG, rng.normal(size=IMG.shape)],
         lambda x, g: np_max_pool_grad_grad(x, g, (2, 2), (2, 2), "SAME"),
         name="MaxPoolGradGrad"),
    Case(lambda dy: bind(nn_ops.AvgPoolGrad, [tw.constant([1, 5, 5, 2]), dy], _AP_ATTRS),
         [POOL_DY], lambda dy: np_avg_pool_grad((1, 5, 5, 2), dy, (3, 3), (2, 2), "SAME"),
         name="AvgPoolGrad"),
    Case(lambda dy: bind(nn_ops.BiasAddGrad, [dy], {"data_format": "NHWC"}), [IMG6],
         lambda dy: dy.sum((0, 1, 2)), name="BiasAddGrad"),
    # normalization
    Case(lambda x: tw.nn.moments(x, axes=[0]), [X], lambda x: (x.mean(0), x.var(0)),
         name="moments"),
    Case(lambda x: tw.nn.moments(x, axes=[0, 1, 2], keepdims=True), [IMG6],
         lambda x: (x.mean((0, 1, 2), keepdims=True), x.var((0, 1, 2), keepdims=True)),
         name="moments_keepdims"),
    Case(lambda x, m, v, o, s: tw.nn.batch_normalization(x, m, v, o, s, 1e-3),
         [X, BIAS, np.abs(BIAS) + 0.5, rng.normal(size=(4,)), rng.normal(size=(4,))],
         lambda x, m, v, o, s: (x - m) * s / np.sqrt(v + 1e-3) + o,
         name="batch_normalization"),
    Case(lambda x: tw.nn.l2_normalize(x, axis=1), [X],
         lambda x: x / np.sqrt((x * x).sum(1, keepdims=True)), name="l2_normalize"),
]

CASES += [
    Case(lambda x, f: tw.nn.conv1d(x, f, 2, "SAME"), [SEQ, rng.normal(size=(3, 3, 2))],
         lambda x, f: np_conv2d(x[:, None], f[None], (1, 2), "SAME")[:, 0], name="conv1d"),
    Case(lambda x, f: tw.nn.conv1d(x, f, [1, 1, 1], "VALID", dilations=2),
         [SEQ, rng.normal(size=(2, 3, 2))],
         lambda x, f: np_conv2d(x[:, None], f[None], dil=(1, 2))[:, 0], name="conv1d_dilated"),
    Case(lambda x, f: tw.nn.convolution(x, f, padding="SAME"), [IMG, FILT],
         lambda x, f: np_conv2d(x, f, padding="SAME"), name="convolution_2d"),
    Case(lambda x, f: tw.nn.atrous_conv2d(x, f, 2, "VALID"), [IMG, FILT2],
         lambda x, f: np_conv2d(x, f, dil=(2, 2)), name="atrous_conv2d"),
    Case(lambda x: tw.nn.max_pool1d(x, 2, 2, "SAME"), [SEQ],
         lambda x: np_pool(x[:, None], (1, 2), (1, 2), "SAME", np.max)[:, 0], name="max_pool1d"),
    Case(lambda x: tw.nn.avg_pool1d(x, 3, 1, "VALID"), [SEQ],
         lambda x: np_pool(x[:, None], (1, 3), (1, 1), "VALID", np.mean)[:, 0],
         name="avg_pool1d"),
    Case(lambda x, f: tw.nn.depthwise_conv2d(x, f, [1, 1, 1, 1], "SAME"),
         [IMG, rng.normal(size=(3, 3, 2, 2))], lambda x, f: np_depthwise(x, f, padding="SAME"),
         name="depthwise_conv2d"),
    Case(lambda x, d, p: tw.nn.separable_conv2d(x, d, p, [1, 2, 2, 1], "VALID"),
         [IMG, rng.normal(size=(2, 2, 2, 2)), rng.normal(size=(1, 1, 4, 3))],
         lambda x, d, p: np_conv2d(np_depthwise(x, d, (2, 2)), p), name="separable_conv2d"),
    Case(tw.nn.crelu, [X], lambda x: np.concatenate([np.maximum(x, 0), np.maximum(-x, 0)], -1),
         name="crelu"),
    Case(lambda z, x: tw.nn.weighted_cross_entropy_with_logits(z, x, 2.5),
         [rng.uniform(size=(3, 4)), X],
         lambda z, x: 2.5 * z * np.logaddexp(0, -x) + (1 - z) * np.logaddexp(0, x),
         name="weighted_cross_entropy_with_logits"),
    Case(tw.nn.log_poisson_loss, [rng.uniform(0, 3, size=(3, 4)), X], np_log_poisson,
         name="log_poisson_loss"),
    Case(lambda z, c: tw.nn.log_poisson_loss(z, c, compute_full_loss=True),
         [np.array([0.0, 1.0, 2.5, 4.0]), rng.normal(size=(4,))],
         lambda z, c: np_log_poisson(z, c, True), grad=[1], name="log_poisson_loss_full"),
    Case(lambda p: tw.nn.embedding_lookup(p, tw.constant([[0, 5], [2, 2]])), [EMB],
         lambda p: p[[[0, 5], [2, 2]]], name="embedding_lookup"),
    Case(lambda p: tw.nn.embedding_lookup(p, tw.constant([1, 3, 4]), max_norm=1.0), [EMB],
         lambda p: p[[1, 3, 4]] * np.minimum(
             1.0 / np.linalg.norm(p[[1, 3, 4]], axis=1, keepdims=True), 1.0),
         name="embedding_lookup_max_norm"),
    Case(tw.nn.compute_average_loss, [X], lambda x: x.sum() / x.shape[0],
         name="compute_average_loss"),
    Case(lambda x: tw.nn.compute_average_loss(x, global_batch_size=8), [X],
         lambda x: x.sum() / 8, name="compute_average_loss_global"),
    Case(tw.nn.zero_fraction, [np.array([0.0, 1.0, 0.0, 3.0])],
         lambda x: np.float32(0.5), name="zero_fraction"),
    Case(lambda x: tw.nn.max_pool(x, 2, 2, "VALID"), [SEQ],
         lambda x: np_pool(x[:, None], (1, 2), (1, 2), "VALID", np.max)[:, 0],
         name="max_pool_1d_dispatch"),
    Case(lambda x: tw.nn.avg_pool(x, 2, 1, "SAME"), [SEQ],
         lambda x: np_pool(x[:, None], (1, 2), (1, 1), "SAME", np.mean)[:, 0],
         name="avg_pool_1d_dispatch"),
    Case(lambda t, p: tw.nn.in_top_k(t, p, 2),
         [np.array([0, 1, 2, 3, 7], np.int32),
          np.array([[0.1, 0.9, 0.5, 0.0], [0.3, 0.3, 0.3, 0.1], [1.0, 2.0, 3.0, 4.0],
                    [4.0, 3.0, 2.0, 1.0], [1.0, 2.0, 3.0, 4.0]], np.float32)],
         lambda t, p: np.array([False, True, True, False, False]), name="in_top_k"),
    Case(lambda c, m, v: tw.nn.normalize_moments(c, m, v, None),
         [np.array(4.0), np.array([2.0, 4.0]), np.array([5.0, 9.0])],
         lambda c, m, v: (m / c, v / c - (m / c) ** 2), name="normalize_moments"),
]

COVERED_ELSEWHERE = {}
