"""RandomGrayscale, RandomInvert, RandomPosterization, RandomColorDegeneration (at their
deterministic settings, and pass-through at inference), ReversibleEmbedding."""
from __future__ import annotations

import json

import numpy as np
import pytest

import twinflow as tw

from .checks import check_config, check_gradients

L = tw.keras.layers
X = np.random.default_rng(3).uniform(0, 255, size=(2, 3, 4, 3)).astype(np.float32)
GRAY = (X @ np.array([0.2989, 0.587, 0.114], np.float32))[..., None].repeat(3, -1)


@pytest.mark.parametrize("make,ref", [
    (lambda: L.RandomGrayscale(1.0, seed=1), lambda x: GRAY),
    (lambda: L.RandomInvert(1.0, seed=1), lambda x: 255.0 - x),
    (lambda: L.RandomPosterization(8, seed=1), np.floor),
    (lambda: L.RandomColorDegeneration((1.0, 1.0), seed=1), lambda x: GRAY),
])
def test_colour_augmentations(make, ref):
    layer = make()
    np.testing.assert_allclose(layer(X).numpy(), ref(X), rtol=1e-4, atol=1e-3)
    np.testing.assert_array_equal(layer(X, training=False).numpy(), X)
    graph = tw.function(lambda t: layer(t))(tw.constant(X))
    np.testing.assert_allclose(graph.numpy(), ref(X), rtol=1e-4, atol=1e-3)
    again = type(layer).from_config(json.loads(json.dumps(layer.get_config())))
    assert again.get_config() == layer.get_config()


def test_colour_augmentations_refuse_bad_arguments():
    with pytest.raises(ValueError, match="factor"):
        L.RandomGrayscale(1.5)
    with pytest.raises(ValueError, match="factor"):
        L.RandomPosterization(0)
    with pytest.raises(ValueError, match="value_range"):
        L.RandomInvert(value_range=(1, 0))
    with pytest.raises(ValueError, match="3 colour channels"):
        L.RandomGrayscale(1.0)(np.zeros((1, 2, 2, 4), np.float32))


def test_posterization_keeps_the_top_bits():
    out = L.RandomPosterization(2, seed=3)(X).numpy()
    # 2..8 bits kept: every value is a multiple of 2**(8-b) for the image's b; at least 1.
    assert np.all(np.floor(out) == out) and out.max() <= 255


@pytest.mark.parametrize("tie", [True, False])
def test_reversible_embedding(tie):
    ids = np.array([[1, 4, 0], [2, 2, 3]], np.int32)
    layer = L.ReversibleEmbedding(6, 3, tie_weights=tie)
    out = layer(ids)
    emb = layer.embeddings.numpy()
    np.testing.assert_allclose(out.numpy(), emb[ids])
    h = np.random.default_rng(0).normal(size=(2, 3)).astype(np.float32)
    kernel = emb.T if tie else layer.reverse_embeddings.numpy()
    np.testing.assert_allclose(layer(h, reverse=True).numpy(), h @ kernel, rtol=1e-5)
    check_config(layer, [ids])
    check_gradients(lambda **kw: L.ReversibleEmbedding(6, 3, tie_weights=tie, **kw), [h],
                    {"reverse": True})
    capped = L.ReversibleEmbedding(6, 3, logit_soft_cap=0.5)
    capped(ids)
    assert float(tw.reduce_max(tw.abs(capped(h * 100, reverse=True)))) <= 0.5


def test_spectral_normalization_wrapper_and_pipeline():
    x = np.random.default_rng(0).normal(size=(3, 4)).astype(np.float32)
    sn = L.SpectralNormalization(L.Dense(3), power_iterations=2)
    np.testing.assert_allclose(sn(x).numpy(), x @ sn.layer.kernel.numpy(), atol=1e-6)
    assert [w.name.split(":")[0].split("/")[-1] for w in sn.weights] == [
        "kernel", "bias", "vector_u"]
    for _ in range(20):
        out = sn(x, training=True)
    kernel = sn.layer.kernel.numpy()
    assert abs(np.linalg.svd(kernel, compute_uv=False)[0] - 1.0) < 1e-3
    np.testing.assert_allclose(out.numpy(), x @ kernel, atol=1e-5)
    again = L.SpectralNormalization.from_config(json.loads(json.dumps(sn.get_config())))
    assert again.power_iterations == 2 and isinstance(again.layer, L.Dense)
    with pytest.raises(ValueError, match="kernel"):
        L.SpectralNormalization(L.Rescaling(2.0))(x)
    pipe = L.Pipeline([L.Rescaling(2.0), L.Dense(2)])
    y = pipe(x)
    np.testing.assert_allclose(y.numpy(), (2 * x) @ pipe.layers[1].kernel.numpy() +
                               pipe.layers[1].bias.numpy(), atol=1e-5)
    assert len(pipe.weights) == 2
    check_config(pipe, [x])
    wrapped = L.Wrapper(L.Dense(2))
    assert wrapped(x).shape == (3, 2) and len(wrapped.weights) == 2
    check_config(wrapped, [x])
