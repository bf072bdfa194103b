import numpy as np
import pytest

import twinflow as tw

from .checks import check_keras_weights, check_layer

L = tw.keras.layers
RNG = np.random.default_rng(8)
X = RNG.normal(size=(3, 5, 4)).astype(np.float32) * 2 + 1


def test_layer_normalization():
    def ref(xs, w):
        x = xs[0]
        m, v = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
        return (x - m) / np.sqrt(v + 1e-3) * w[0] + w[1]
    check_layer(lambda **k: L.LayerNormalization(
        gamma_initializer=tw.keras.initializers.RandomNormal(seed=1), **k), [X], ref)
    layer = L.LayerNormalization(gamma_regularizer="l2")
    layer(np.zeros((2, 3, 4), np.float32))
    check_keras_weights(layer, "LayerNormalization")
    assert len(layer.losses) == 1


@pytest.mark.parametrize("groups", [1, 2, 4])
def test_group_normalization(groups):
    def ref(xs, w):
        x = xs[0]
        g = x.reshape(3, 5, groups, 4 // groups)
        m, v = g.mean((1, 3), keepdims=True), g.var((1, 3), keepdims=True)
        return ((g - m) / np.sqrt(v + 1e-3)).reshape(x.shape) * w[0] + w[1]
    check_layer(lambda **k: L.GroupNormalization(
        groups, gamma_initializer=tw.keras.initializers.RandomNormal(seed=2), **k), [X], ref)


def test_group_normalization_weights_and_errors():
    layer = L.GroupNormalization(2)
    layer(np.zeros((2, 3, 4), np.float32))
    check_keras_weights(layer, "GroupNormalization")
    with pytest.raises(ValueError, match="multiple"):
        L.GroupNormalization(3)(X)
    with pytest.raises(ValueError, match="more than"):
        L.GroupNormalization(8)(X)


def test_unit_normalization():
    check_layer(lambda **k: L.UnitNormalization(**k), [X],
                lambda xs, w: xs[0] / np.linalg.norm(xs[0], axis=-1, keepdims=True), fit=False)
    check_layer(lambda **k: L.UnitNormalization(axis=[1, 2], **k), [X],
                lambda xs, w: xs[0] / np.linalg.norm(xs[0].reshape(3, -1), axis=-1)[:, None,
                                                                                     None],
                fit=False)


def test_batch_normalization_regularizers():
    layer = L.BatchNormalization(beta_regularizer="l2", gamma_regularizer="l1")
    layer(X)
    assert len(layer.losses) == 2
    with pytest.raises(NotImplementedError):
        L.BatchNormalization(synchronized=True)
