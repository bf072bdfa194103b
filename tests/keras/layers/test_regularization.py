import numpy as np
import pytest

import twinflow as tw

from .checks import check_layer

L = tw.keras.layers
RNG = np.random.default_rng(3)
X = RNG.normal(size=(64, 6, 8)).astype(np.float32) + 3.0


@pytest.mark.parametrize("make", [
    lambda **k: L.SpatialDropout1D(0.5, **k), lambda **k: L.GaussianNoise(0.5, **k),
    lambda **k: L.GaussianDropout(0.5, **k), lambda **k: L.AlphaDropout(0.5, **k),
])
def test_identity_at_inference(make):
    check_layer(make, [X], lambda xs, w: xs[0], fit=False)


def test_spatial_dropout_drops_whole_channels():
    out = L.SpatialDropout1D(0.5, seed=1)(X, training=True).numpy()
    dropped = (out == 0).all(axis=1)
    assert dropped.any() and not dropped.all()
    np.testing.assert_allclose(out[~(out == 0)], (X * 2)[~(out == 0)], rtol=1e-6)
    x4 = np.ones((8, 4, 4, 6), np.float32)
    out = L.SpatialDropout2D(0.5, seed=1)(x4, training=True).numpy()
    assert set(np.unique(out.reshape(8, 16, 6).std(axis=1))) == {0.0}
    out = L.SpatialDropout2D(0.5, data_format="channels_first", seed=2)(x4, training=True)
    assert set(np.unique(out.numpy().reshape(8, 4, 24).std(axis=2))) == {0.0}


def test_noise_statistics_while_training():
    big = np.full((200, 100), 2.0, np.float32)
    noisy = L.GaussianNoise(0.5, seed=3)(big, training=True).numpy()
    assert abs(noisy.mean() - 2.0) < 0.02 and abs(noisy.std() - 0.5) < 0.02
    drop = L.GaussianDropout(0.2, seed=3)(big, training=True).numpy()
    assert abs(drop.mean() - 2.0) < 0.02 and abs(drop.std() - 2.0 * 0.5) < 0.03
    z = RNG.normal(size=(400, 100)).astype(np.float32)
    alpha = L.AlphaDropout(0.3, seed=3)(z, training=True).numpy()
    assert abs(alpha.mean()) < 0.03 and abs(alpha.std() - 1.0) < 0.03
    assert len(np.unique(alpha[np.abs(alpha - alpha.min()) < 1e-6])) == 1


def test_activity_regularization_adds_a_loss():
    layer = L.ActivityRegularization(l1=0.1, l2=0.01)
    x = X[:4]
    out = layer(x)
    np.testing.assert_array_equal(out.numpy(), x)
    want = (0.1 * np.abs(x).sum() + 0.01 * (x ** 2).sum()) / 4
    np.testing.assert_allclose(float(layer.losses[0]), want, rtol=1e-5)
    check_layer(lambda **k: L.ActivityRegularization(l2=0.5, **k), [x], lambda xs, w: xs[0],
                fit=False)


def test_bad_rates():
    for cls in (L.SpatialDropout1D, L.GaussianDropout, L.AlphaDropout):
        with pytest.raises(ValueError, match="rate"):
            cls(1.5)
    with pytest.raises(ValueError, match="stddev"):
        L.GaussianNoise(-1.0)
