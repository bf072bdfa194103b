import numpy as np
import pytest

import twinflow as tw

from .checks import check_layer

L = tw.keras.layers
RNG = np.random.default_rng(0)
X = RNG.normal(size=(4, 3, 5)).astype(np.float32)


def _relu_ref(x, slope=0.0, max_value=None, threshold=0.0):
    y = np.where(x > threshold, x, 0.0)
    if max_value is not None:
        y = np.clip(y, 0, max_value)
    return y - slope * np.maximum(threshold - x, 0)


@pytest.mark.parametrize("kw", [{}, {"max_value": 0.5}, {"negative_slope": 0.1},
                                {"threshold": 0.3, "negative_slope": 0.2, "max_value": 1.0}])
def test_relu(kw):
    ref_kw = {"slope": kw.get("negative_slope", 0.0), "max_value": kw.get("max_value"),
              "threshold": kw.get("threshold", 0.0)}
    check_layer(lambda **k: L.ReLU(**kw, **k), [X], lambda xs, w: _relu_ref(xs[0], **ref_kw),
                fit=False)


def test_leaky_relu_and_elu():
    check_layer(lambda **k: L.LeakyReLU(**k), [X],
                lambda xs, w: np.where(xs[0] >= 0, xs[0], 0.3 * xs[0]), fit=False)
    assert L.LeakyReLU(alpha=0.1).negative_slope == pytest.approx(0.1)
    check_layer(lambda **k: L.ELU(alpha=0.7, **k), [X],
                lambda xs, w: np.where(xs[0] > 0, xs[0], 0.7 * np.expm1(xs[0])), fit=False)
    with pytest.raises(ValueError, match="negative_slope"):
        L.LeakyReLU(-1.0)
    with pytest.raises(ValueError, match="max_value"):
        L.ReLU(max_value=-1.0)


@pytest.mark.parametrize("shared, key", [(None, None), ([1], None)])
def test_prelu(shared, key):
    def make(**k):
        return L.PReLU(alpha_initializer=tw.keras.initializers.Constant(0.25),
                       shared_axes=shared, **k)
    layer = check_layer(make, [X], lambda xs, w: np.where(xs[0] >= 0, xs[0], w[0] * xs[0]))
    assert layer.alpha.shape.as_list() == ([3, 5] if shared is None else [1, 5])


def test_prelu_weights_match_keras():
    from .checks import check_keras_weights
    layer = L.PReLU()
    layer(np.zeros((2, 3, 4), np.float32))
    check_keras_weights(layer, "PReLU")
    layer = L.PReLU(shared_axes=[1])
    layer(np.zeros((2, 3, 4), np.float32))
    check_keras_weights(layer, "PReLU_shared")


def _softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def test_softmax_axes_and_mask():
    check_layer(lambda **k: L.Softmax(**k), [X], lambda xs, w: _softmax(xs[0]), fit=False)
    check_layer(lambda **k: L.Softmax(axis=[1, 2], **k), [X],
                lambda xs, w: _softmax(xs[0].reshape(4, -1)).reshape(X.shape), fit=False)
    mask = np.array([[1, 1, 0, 0, 1]] * 3, bool)[None].repeat(4, 0)
    out = L.Softmax()(X, mask=tw.constant(mask)).numpy()
    want = _softmax(np.where(mask, X, -1e30)) * mask
    np.testing.assert_allclose(out, want, rtol=1e-5)
    all_masked = L.Softmax()(X, mask=tw.constant(np.zeros_like(mask))).numpy()
    np.testing.assert_array_equal(all_masked, 0.0)
