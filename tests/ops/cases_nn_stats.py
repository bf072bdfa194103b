"""Cases for the tw.nn compositions: sufficient_statistics, weighted_moments,
batch_norm_with_global_normalization, local_response_normalization, space_to_depth,
depth_to_space."""
import numpy as np

import twinflow as tw

from .harness import Case

rng = np.random.default_rng(9)
X = rng.normal(size=(2, 4, 4, 3))
W = rng.uniform(0.5, 2.0, size=(2, 4, 4, 1))


def _np_lrn(x, r, bias, alpha, beta):
    d = x.shape[-1]
    sq = np.square(x)
    s = np.stack([sq[..., max(0, i - r):i + r + 1].sum(-1) for i in range(d)], -1)
    return x / (bias + alpha * s) ** beta


def _np_space_to_depth(x, bs):
    b, h, w, c = x.shape
    y = x.reshape(b, h // bs, bs, w // bs, bs, c).transpose(0, 1, 3, 2, 4, 5)
    return y.reshape(b, h // bs, w // bs, bs * bs * c)


def _np_weighted(x, w, axes):
    wb = w + 0 * x
    mean = (wb * x).sum(axes) / wb.sum(axes)
    var = (wb * (x - np.expand_dims(mean, axes)) ** 2).sum(axes) / wb.sum(axes)
    return mean, var


CASES = [
    Case(lambda x: tw.nn.sufficient_statistics(x, [0, 1, 2])[:3], [X],
         lambda x: (np.float64(32), x.sum((0, 1, 2)), np.square(x).sum((0, 1, 2))),
         name="sufficient_statistics"),
    Case(lambda x, s: tw.nn.sufficient_statistics(x, [1], shift=s, keepdims=True)[1:3],
         [X, np.float64(0.5)],
         lambda x, s: ((x - s).sum(1, keepdims=True), np.square(x - s).sum(1, keepdims=True)),
         name="sufficient_statistics_shift"),
    Case(lambda x, w: tw.nn.weighted_moments(x, [1, 2], w), [X, W],
         lambda x, w: _np_weighted(x, w, (1, 2)), name="weighted_moments"),
    Case(lambda x, m, v, b, g: tw.nn.batch_norm_with_global_normalization(x, m, v, b, g, 1e-3,
                                                                          True),
         [X, X.mean((0, 1, 2)), X.var((0, 1, 2)), rng.normal(size=3), rng.normal(size=3)],
         lambda x, m, v, b, g: (x - m) / np.sqrt(v + 1e-3) * g + b,
         name="batch_norm_with_global_normalization"),
    Case(lambda x: tw.nn.local_response_normalization(x, depth_radius=1, bias=2.0, alpha=0.5,
                                                      beta=0.75), [X],
         lambda x: _np_lrn(x, 1, 2.0, 0.5, 0.75), name="local_response_normalization"),
    Case(tw.nn.lrn, [X.astype(np.float32)],
         lambda x: _np_lrn(x.astype(np.float64), 5, 1.0, 1.0, 0.5).astype(np.float32),
         name="lrn_defaults_f32", rtol=1e-5),
    Case(lambda x: tw.nn.space_to_depth(x, 2), [X], lambda x: _np_space_to_depth(x, 2),
         name="space_to_depth", unknown_shapes=False),
    Case(lambda x: tw.nn.depth_to_space(x, 2), [rng.normal(size=(1, 2, 3, 8))],
         lambda x: x.reshape(1, 2, 3, 2, 2, 2).transpose(0, 1, 3, 2, 4, 5).reshape(1, 4, 6, 2),
         name="depth_to_space", unknown_shapes=False),
]
