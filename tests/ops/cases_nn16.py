"""Registry cases for max_pool_with_argmax, dilation2d/erosion2d (and their backprop ops),
isotonic_regression, approx_top_k and the learned unigram sampler, against small NumPy
references (window loops)."""
import numpy as np

import twinflow as tw
from twinflow.ops.nn.morphology import (
    Dilation2DBackpropFilter,
    Dilation2DBackpropInput,
    MaxPoolGradWithArgmax,
)

from .harness import Case, bind

rng = np.random.default_rng(8)
X = rng.permutation(2 * 4 * 5 * 2).reshape(2, 4, 5, 2).astype(np.float64) / 7  # no ties
FILT = rng.normal(size=(2, 2, 2)) * 0.01
DY = rng.normal(size=(2, 4, 5, 2))
ATTRS = {"strides": [1, 1, 1, 1], "rates": [1, 1, 1, 1], "padding": "SAME"}


def _np_pool(x):
    """2x2 max pool, stride 2, VALID, with TensorFlow's flattened argmax."""
    n, h, w, c = x.shape
    out = np.zeros((n, h // 2, w // 2, c))
    arg = np.zeros(out.shape, np.int64)
    for b in range(n):
        for i in range(h // 2):
            for j in range(w // 2):
                for ch in range(c):
                    win = x[b, 2 * i:2 * i + 2, 2 * j:2 * j + 2, ch]
                    k = np.argmax(win)
                    out[b, i, j, ch] = win.flat[k]
                    arg[b, i, j, ch] = ((2 * i + k // 2) * w + 2 * j + k % 2) * c + ch
    return out, arg


def _np_dilation(x, f):
    """SAME dilation with stride 1 (window 2x2: pads 0 before, 1 after)."""
    n, h, w, c = x.shape
    xp = np.pad(x, ((0, 0), (0, 1), (0, 1), (0, 0)), constant_values=-np.inf)
    out = np.full(x.shape, -np.inf)
    for dy in range(2):
        for dx in range(2):
            out = np.maximum(out, xp[:, dy:dy + h, dx:dx + w] + f[dy, dx])
    return out


def _np_isotonic(x):
    out = np.empty_like(x)
    for i, row in enumerate(x):
        blocks = []
        for v in row:
            blocks.append([v, 1])
            while len(blocks) > 1 and blocks[-2][0] < blocks[-1][0]:
                m, c = blocks.pop()
                blocks[-1] = [(blocks[-1][0] * blocks[-1][1] + m * c) / (blocks[-1][1] + c),
                              blocks[-1][1] + c]
        out[i] = np.repeat([b[0] for b in blocks], [b[1] for b in blocks])
    return out


CASES = [
    Case(lambda x: tw.nn.max_pool_with_argmax(x, 2, 2, "VALID"), [X], _np_pool,
         name="max_pool_with_argmax"),
    Case(lambda x, g: bind(MaxPoolGradWithArgmax, [x, g, tw.constant(_np_pool(X)[1])],
                           {"ksize": [1, 2, 2, 1], "strides": [1, 2, 2, 1],
                            "padding": "VALID"}),
         [X, rng.normal(size=(2, 2, 2, 2))], None, grad=(1,), name="max_pool_grad_with_argmax"),
    Case(lambda x, f: tw.nn.dilation2d(x, f, [1, 1, 1, 1], "SAME", "NHWC", [1, 1, 1, 1]),
         [X, FILT], _np_dilation, name="dilation2d"),
    Case(lambda x, f: tw.nn.erosion2d(x, f, [1, 1, 1, 1], "SAME", "NHWC", [1, 1, 1, 1]),
         [X, FILT], None, name="erosion2d"),
    Case(lambda x, f, d: bind(Dilation2DBackpropInput, [x, f, d], ATTRS), [X, FILT, DY], None,
         grad=(), name="dilation2d_backprop_input"),
    Case(lambda x, f, d: bind(Dilation2DBackpropFilter, [x, f, d], ATTRS), [X, FILT, DY],
         None, grad=(), name="dilation2d_backprop_filter"),
    Case(lambda x: tw.nn.isotonic_regression(x)[0], [rng.normal(size=(3, 6))], _np_isotonic,
         name="isotonic_regression"),
    Case(lambda x: tw.approx_top_k(x, 2), [rng.normal(size=(3, 5)).astype(np.float32)],
         lambda x: (-np.sort(-x, -1)[:, :2], np.argsort(-x, -1)[:, :2].astype(np.int32)),
         grad=(), name="approx_top_k"),
    Case(lambda x: tw.nn.approx_min_k(x, 2)[0], [rng.normal(size=(3, 5)).astype(np.float32)],
         lambda x: np.sort(x, -1)[:, :2], name="approx_min_k_grad", grad_rtol=1e-2,
         grad_atol=1e-2, eps=1e-3),
    Case(lambda t: tw.random.learned_unigram_candidate_sampler(t, 1, 3, True, 5), [
        np.array([[1], [2]], np.int64)], None, name="learned_unigram_candidate_sampler",
        stateful_random=True),
]
