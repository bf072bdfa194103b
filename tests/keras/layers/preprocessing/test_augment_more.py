"""The Keras 3 augmentation layers added for issue 11: values against Keras 3.15 where the
arguments fix the result (tests/fixtures/keras_augment, made by make_fixtures.py there),
config round trips, inference behaviour, graph/Dataset.map use and seeding."""
import pathlib

import numpy as np
import pytest

import twinflow as tw

L = tw.keras.layers
FIX = np.load(pathlib.Path(__file__).parents[3] / "fixtures" / "keras_augment" /
              "expected.npz")
X = FIX["x"]
FIXED = {
    "auto_contrast": lambda: L.AutoContrast(),
    "equalization": lambda: L.Equalization(),
    "equalization_64": lambda: L.Equalization(bins=64, value_range=(0, 255)),
    "clahe": lambda: L.ContrastLimitedAdaptiveHistogramEqualization(
        clip_limit=2.0, tile_grid_size=(3, 2)),
    "sharpness": lambda: L.RandomSharpness(factor=(0.3, 0.3)),
    "saturation": lambda: L.RandomSaturation(factor=(0.3, 0.3)),
    "saturation_grey": lambda: L.RandomSaturation(factor=(-0.4, -0.4)),
    "blur": lambda: L.RandomGaussianBlur(factor=(1.0, 1.0), kernel_size=3, sigma=(0.8, 0.8)),
    "blur_5": lambda: L.RandomGaussianBlur(factor=(1.0, 1.0), kernel_size=5,
                                           sigma=(0.6, 0.6)),
    "height": lambda: L.RandomHeight(factor=(0.5, 0.5)),
    "width": lambda: L.RandomWidth(factor=(-0.3, -0.3)),
}


@pytest.mark.parametrize("name", sorted(FIXED))
def test_matches_keras_and_graph(name):
    layer = FIXED[name]()
    eager = layer(X).numpy()
    np.testing.assert_allclose(eager, FIX[name], atol=2e-3, rtol=1e-5)
    graph = tw.function(lambda v: layer(v, training=True))(tw.constant(X)).numpy()
    np.testing.assert_allclose(graph, eager, atol=1e-4)


RANDOM = [
    lambda: L.Solarization(0.2, 0.5, seed=1),
    lambda: L.RandomHue(0.3, seed=1),
    lambda: L.RandomColorJitter(brightness_factor=0.2, contrast_factor=0.3,
                                saturation_factor=0.5, hue_factor=0.2, seed=4),
    lambda: L.RandomShear(0.3, 0.2, seed=1),
    lambda: L.RandomPerspective(factor=(1, 1), scale=0.5, seed=1),
    lambda: L.RandomElasticTransform(factor=(1, 1), seed=2),
    lambda: L.MixUp(seed=1),
    lambda: L.CutMix(seed=2),
    lambda: L.RandomErasing(factor=(1, 1), seed=3),
    lambda: L.RandomErasing((1, 1), fill_value=(1, 2, 3), seed=3, scale=(0.2, 0.3)),
    lambda: L.RandAugment(seed=1, num_ops=1),
    lambda: L.AugMix(seed=2, num_chains=2, chain_depth=2),
]


@pytest.mark.parametrize("make", RANDOM)
def test_random_layers(make):
    layer = make()
    again = type(layer).from_config(layer.get_config())
    assert again.get_config() == layer.get_config()
    out = layer(X).numpy()
    assert out.shape == X.shape and out.dtype == np.float32
    assert out.min() >= -1e-3 and out.max() <= 255.001 and not np.array_equal(out, X)
    np.testing.assert_array_equal(layer(X, training=False).numpy(), X)  # inference: identity
    ds = tw.data.Dataset.from_tensor_slices(X).batch(2).map(lambda v: layer(v, training=True))
    assert next(iter(ds)).shape == X.shape
    assert layer(X[0]).shape == X.shape[1:]
    tw.random.set_seed(5)
    first = make()(X).numpy()
    tw.random.set_seed(5)
    np.testing.assert_array_equal(make()(X).numpy(), first)  # seeded: reproducible


def test_deterministic_layers_at_inference_and_in_models():
    # AutoContrast and CLAHE act at inference too (as Keras); Equalization does not
    assert not np.array_equal(L.AutoContrast()(X, training=False).numpy(), X)
    assert not np.array_equal(FIXED["clahe"]()(X, training=False).numpy(), X)
    np.testing.assert_array_equal(L.Equalization()(X, training=False).numpy(), X)
    inp = tw.keras.Input((12, 10, 3))
    model = tw.keras.Model(inp, L.GlobalAveragePooling2D()(L.RandomShear(0.2, seed=1)(inp)))
    np.testing.assert_allclose(model.predict(X, verbose=0), X.mean((1, 2)), rtol=1e-5)


def test_mixing_labels_and_boxes():
    y = np.eye(4, dtype=np.float32)
    x4 = np.concatenate([X, X[::-1]])
    for layer in (L.MixUp(alpha=0.5, seed=1), L.CutMix(seed=1)):
        out = layer({"images": x4, "labels": y})
        np.testing.assert_allclose(out["labels"].numpy().sum(1), 1.0, rtol=1e-5)
        assert out["images"].shape == x4.shape
    with pytest.raises(NotImplementedError, match="bounding_boxes"):
        L.MixUp()({"images": x4, "bounding_boxes": {}})
    boxes = {"boxes": np.ones((2, 5, 4), np.float32), "labels": np.ones((2, 5), np.int32)}
    out = L.MaxNumBoundingBoxes(7)({"images": X, "bounding_boxes": boxes})["bounding_boxes"]
    assert out["boxes"].shape == (2, 7, 4)
    assert out["labels"].numpy()[0].tolist() == [1] * 5 + [-1] * 2
    cut = L.MaxNumBoundingBoxes(2, fill_value=0)({"images": X, "bounding_boxes": boxes})
    assert cut["bounding_boxes"]["labels"].shape == (2, 2)


def test_argument_checks():
    with pytest.raises(ValueError, match="odd"):
        L.RandomGaussianBlur(kernel_size=4)
    with pytest.raises(ValueError, match="factor"):
        L.RandomHue(1.5)
    with pytest.raises(NotImplementedError, match="fill_mode"):
        L.RandomShear(0.1, fill_mode="mirror")
    with pytest.raises(ValueError, match="scale"):
        L.RandomPerspective(scale=2.0)
    with pytest.raises(ValueError, match="larger than -1"):
        L.RandomHeight((-2.0, 0.5))
