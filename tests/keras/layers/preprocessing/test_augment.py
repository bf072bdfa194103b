"""Image augmentation layers: the transforms against NumPy (and TensorFlow's projective
transform fixture), training-only behaviour, seeds, tw.function and Dataset.map."""
import os

import numpy as np
import pytest

import twinflow as tw
from twinflow.keras.layers.preprocessing.affine import project

from .helpers import round_trip

L = tw.keras.layers
IMG = np.arange(2 * 4 * 5 * 3, dtype=np.float32).reshape(2, 4, 5, 3)
IPT = np.load(os.path.join(os.path.dirname(__file__), "..", "..", "..", "fixtures",
                           "keras_pre", "ipt.npz"))


@pytest.mark.parametrize("mode", ["reflect", "wrap", "constant", "nearest"])
@pytest.mark.parametrize("interp", ["bilinear", "nearest"])
def test_projective_transform_matches_tensorflow(mode, interp):
    got = project(IPT["images"], IPT["transforms"], (5, 6), -1.0, interp, mode)
    np.testing.assert_allclose(got, IPT[f"{mode}_{interp}"], rtol=1e-5, atol=1e-4)


def test_inference_passes_through():
    layers = [L.RandomFlip(), L.RandomRotation(0.2), L.RandomZoom(0.2),
              L.RandomTranslation(0.2, 0.2), L.RandomCrop(4, 5), L.RandomContrast(0.3),
              L.RandomBrightness(0.2)]
    for layer in layers:
        np.testing.assert_array_equal(layer(IMG, training=False).numpy(), IMG)
        round_trip(layer)
    inp = tw.keras.Input((4, 5, 3))
    model = tw.keras.Model(inp, L.RandomRotation(0.3)(L.RandomFlip()(inp)))
    np.testing.assert_array_equal(model.predict(IMG, verbose=0), IMG)


def test_flip_crop_contrast_brightness_against_numpy():
    out = L.RandomFlip("horizontal", seed=3)(IMG).numpy()
    for o, x in zip(out, IMG):
        assert np.array_equal(o, x) or np.array_equal(o, x[:, ::-1])
    both = L.RandomFlip(seed=5)(IMG).numpy()
    for o, x in zip(both, IMG):
        assert np.array_equal(o, x) or np.array_equal(o, x[::-1, ::-1])
    crop = L.RandomCrop(2, 3, seed=1)(IMG).numpy()
    found = [(i, j) for i in range(3) for j in range(3)
             if np.array_equal(crop, IMG[:, i:i + 2, j:j + 3])]
    assert len(found) == 1
    assert L.RandomCrop(8, 5)(IMG).shape == (2, 8, 5, 3)  # smaller: resized up
    con = L.RandomContrast(0.5, value_range=(-1000, 1000), seed=2)(IMG).numpy()
    mean = IMG.mean(axis=(1, 2), keepdims=True)
    f = ((con - mean) / (IMG - mean)).reshape(2, -1)
    np.testing.assert_allclose(f, f[:, :1] * np.ones_like(f), rtol=1e-4)
    assert np.all((f >= 0.5) & (f <= 1.5))
    br = L.RandomBrightness((0.1, 0.2), value_range=(0, 1000), seed=2)(IMG).numpy()
    delta = (br - IMG).reshape(2, -1)
    np.testing.assert_allclose(delta, delta[:, :1] * np.ones_like(delta), rtol=1e-4)
    assert np.all((delta >= 100 - 1e-3) & (delta <= 200 + 1e-3))
    clipped = L.RandomBrightness((0.5, 0.5), value_range=(0, 100))(IMG).numpy()
    assert clipped.max() == 100.0


def test_affine_layers_against_numpy():
    x = IMG[:1]
    rot = L.RandomRotation((0.25, 0.25), fill_mode="constant", interpolation="nearest")
    got = rot(np.ones((1, 3, 3, 1), np.float32) * np.arange(9.0).reshape(1, 3, 3, 1)).numpy()
    # a quarter turn counter-clockwise, as Keras 3 gives for factor 0.25
    np.testing.assert_allclose(got[0, ..., 0], np.rot90(np.arange(9.0).reshape(3, 3)),
                               atol=1e-5)
    tr = L.RandomTranslation((0.5, 0.5), (0.2, 0.2), fill_mode="constant", fill_value=-1.0)
    want = project(x, np.array([[1, 0, -1.0, 0, 1, -2.0, 0, 0]]), (4, 5), -1.0, "bilinear",
                   "constant")
    np.testing.assert_allclose(tr(x).numpy(), want, rtol=1e-5)
    zoom = L.RandomZoom((0.5, 0.5), interpolation="nearest")
    want = project(x, np.array([[1.5, 0, -1.0, 0, 1.5, -0.75, 0, 0]]), (4, 5), 0.0,
                   "nearest", "reflect")
    np.testing.assert_allclose(zoom(x).numpy(), want, rtol=1e-5)
    single = L.RandomRotation(0.1, seed=4)(IMG[0])
    assert single.shape == (4, 5, 3)
    first = L.RandomZoom(0.2, data_format="channels_first", seed=1)(np.transpose(IMG,
                                                                               (0, 3, 1, 2)))
    assert first.shape == (2, 3, 4, 5)


def test_seeded_and_traced():
    tw.random.set_seed(11)
    first = L.RandomRotation(0.2, seed=7)(IMG).numpy()
    tw.random.set_seed(11)
    np.testing.assert_allclose(L.RandomRotation(0.2, seed=7)(IMG).numpy(), first)
    fn = tw.function(lambda t: L.RandomZoom(0.3, seed=1)(t))
    assert fn(tw.constant(IMG)).shape == (2, 4, 5, 3)
    aug = L.RandomFlip(seed=1)
    ds = tw.data.Dataset.from_tensor_slices(IMG).batch(2).map(lambda t: aug(t, training=True))
    out = next(iter(ds)).numpy()
    for o, x in zip(out, IMG):
        assert np.array_equal(o, x) or np.array_equal(o, x[::-1, ::-1])
    with pytest.raises(ValueError, match="fill_mode"):
        L.RandomZoom(0.1, fill_mode="mirror")
