"""EfficientNet, EfficientNetV2, ConvNeXt, InceptionV3, InceptionResNetV2, Xception, NASNet:
layer names, layer counts and parameter counts against Keras 3.15 (``models_b.json``, made by
``tests/fixtures/applications/make_fixtures_b.py``), forward passes and a fit step."""
from __future__ import annotations

import hashlib
import json
import os
import sys

import numpy as np
import pytest

import twinflow as tw

keras = tw.keras
A = keras.applications
FIXTURE = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "applications",
                       "models_b.json")
with open(FIXTURE, encoding="utf-8") as f:
    EXPECTED = json.load(f)
sys.path.insert(0, os.path.dirname(FIXTURE))
from fill_b import fill  # noqa: E402  (the weights formula make_fixtures_b.py used)

# fixture key -> (constructor, keyword arguments); the same as make_fixtures_b.py's CASES
SMALL = {
    "EfficientNetB0_small": ("EfficientNetB0", dict(input_shape=(32, 32, 3), classes=10)),
    "EfficientNetB0_notop_max": ("EfficientNetB0",
                                 dict(include_top=False, input_shape=(32, 32, 3), pooling="max")),
    "EfficientNetV2B0_nopre": ("EfficientNetV2B0",
                               dict(include_top=False, input_shape=(32, 32, 3),
                                    include_preprocessing=False)),
    "ConvNeXtTiny_small": ("ConvNeXtTiny", dict(input_shape=(32, 32, 3), classes=10)),
    "ConvNeXtTiny_notop": ("ConvNeXtTiny",
                           dict(include_top=False, input_shape=(32, 32, 3),
                                include_preprocessing=False, pooling="avg")),
    "InceptionV3_notop": ("InceptionV3", dict(include_top=False, input_shape=(75, 75, 3))),
    "Xception_notop": ("Xception", dict(include_top=False, input_shape=(71, 71, 3))),
    "NASNetMobile_notop": ("NASNetMobile",
                           dict(include_top=False, input_shape=(32, 32, 3), pooling="avg")),
}
FULL_FAST = ["EfficientNetB0", "EfficientNetV2B0", "ConvNeXtTiny", "InceptionV3", "Xception",
             "NASNetMobile"]
FULL_SLOW = sorted(k for k in EXPECTED if "_" not in k and k not in FULL_FAST)


def check_against_keras(key: str, ctor: str, kwargs: dict) -> None:
    keras.backend.clear_session()  # automatic names (conv2d_7...) count from zero, as Keras'
    model = getattr(A, ctor)(weights=None, **kwargs)
    want = EXPECTED[key]
    names = [layer.name for layer in model.layers]
    assert len(names) == want["layers"], key
    assert names[:6] == want["first"] and names[-6:] == want["last"], key
    assert names[::50] == want["every_50th"], key
    assert hashlib.sha256("\n".join(names).encode()).hexdigest() == want["names_sha256"], key
    assert model.count_params() == want["total"], key
    assert sum(int(np.prod(w.shape)) for w in model.trainable_weights) == want["trainable"]
    assert list(model.output_shape) == want["output_shape"] and model.name == want["name"]


@pytest.mark.parametrize("key", sorted(SMALL))
def test_small_variants_match_keras(key):
    check_against_keras(key, *SMALL[key])


@pytest.mark.parametrize("name", FULL_FAST)
def test_default_models_match_keras(name):
    check_against_keras(name, name, {})


@pytest.mark.slow
@pytest.mark.parametrize("name", FULL_SLOW)
def test_large_models_match_keras(name):
    check_against_keras(name, name, {})


def test_every_model_of_the_fixture_is_tested():
    assert set(FULL_FAST) | set(FULL_SLOW) | set(SMALL) == set(EXPECTED)
    assert len(FULL_FAST) + len(FULL_SLOW) == 25


@pytest.mark.parametrize("ctor", ["EfficientNetB0", "ConvNeXtTiny"])
def test_forward_and_fit_step(ctor):
    model = getattr(A, ctor)(weights=None, input_shape=(32, 32, 3), classes=3)
    x = np.random.RandomState(0).uniform(0, 255, (4, 32, 32, 3)).astype("float32")
    probs = model.predict(x, verbose=0)
    assert probs.shape == (4, 3)
    np.testing.assert_allclose(probs.sum(axis=1), 1.0, rtol=1e-5)
    # inference is deterministic (dropout and stochastic depth off)
    np.testing.assert_allclose(model(x, training=False).numpy(), probs, rtol=1e-5, atol=1e-6)
    before = [w.numpy().copy() for w in model.trainable_weights]
    model.compile(keras.optimizers.SGD(0.01), "sparse_categorical_crossentropy")
    history = model.fit(x, np.array([0, 2, 1, 1]), epochs=1, batch_size=4, verbose=0)
    assert np.isfinite(history.history["loss"][0])
    after = [w.numpy() for w in model.trainable_weights]
    assert all(np.isfinite(w).all() for w in after)
    changed = [not np.array_equal(b, w) for b, w in zip(before, after)]
    # the first convolution and the classifier learn (ConvNeXt's LayerNorms behind a 1e-6
    # LayerScale get updates below float32 resolution, as in Keras)
    assert changed[0] and changed[-1] and changed[-2] and sum(changed) > len(changed) // 2


def test_logits_pooling_and_input_tensor():
    inp = keras.Input((32, 32, 3), name="image")
    model = A.EfficientNetV2B0(weights=None, input_tensor=inp, include_top=False,
                               pooling="avg")
    assert model.input is inp and model.output_shape == (None, 1280)
    logits = A.ConvNeXtTiny(weights=None, input_shape=(32, 32, 3), classes=2,
                            classifier_activation=None)
    out = logits.predict(np.zeros((1, 32, 32, 3), np.float32), verbose=0)
    assert not np.isclose(out.sum(), 1.0)
    # a model built on an intermediate tensor has the source Input as its input
    x = keras.layers.Rescaling(1.0)(inp)
    stacked = A.Xception(weights=None, input_tensor=x, include_top=False, pooling="max")
    assert stacked.input is inp and stacked.output_shape == (None, 2048)


def test_bad_arguments_raise_clearly(tmp_path, monkeypatch):
    monkeypatch.setenv("KERAS_HOME", str(tmp_path))
    with pytest.raises(ValueError, match="cannot download"):
        A.EfficientNetB0()  # weights="imagenet" is Keras' default
    with pytest.raises(ValueError, match="weights"):
        A.InceptionV3(weights=str(tmp_path / "missing.h5"))
    with pytest.raises(ValueError, match="pooling"):
        A.Xception(weights=None, include_top=False, pooling="mean")
    with pytest.raises(ValueError, match="at least 75x75"):
        A.InceptionResNetV2(weights=None, input_shape=(64, 64, 3), include_top=False)
    with pytest.raises(ValueError, match="static"):
        A.NASNetMobile(weights=None, input_shape=(None, None, 3))
    keras.backend.set_image_data_format("channels_first")
    try:
        with pytest.raises(ValueError, match="channels_first"):
            A.ConvNeXtTiny(weights=None)
        with pytest.raises(ValueError, match="channels_first"):
            A.NASNetLarge(weights=None)
    finally:
        keras.backend.set_image_data_format("channels_last")


def test_weights_from_a_local_file(tmp_path):
    model = A.EfficientNetB0(weights=None, input_shape=(32, 32, 3), classes=4)
    path = str(tmp_path / "b0.weights.h5")
    model.save_weights(path)
    again = A.EfficientNetB0(weights=path, input_shape=(32, 32, 3), classes=4)
    x = np.random.RandomState(1).uniform(0, 255, (1, 32, 32, 3)).astype("float32")
    np.testing.assert_allclose(again.predict(x, verbose=0), model.predict(x, verbose=0),
                               rtol=1e-5, atol=1e-6)


def test_keras_archive_round_trip_with_nested_models_and_custom_layers(tmp_path):
    # ConvNeXt: Sequential stems inside, LayerScale, residual operations
    model = A.ConvNeXtTiny(weights=None, include_top=False, input_shape=(32, 32, 3),
                           pooling="avg")
    path = str(tmp_path / "convnext.keras")
    model.save(path)
    copy = keras.models.load_model(path)
    x = np.random.RandomState(2).uniform(0, 255, (1, 32, 32, 3)).astype("float32")
    assert [w.name for w in copy.layers] == [w.name for w in model.layers]
    np.testing.assert_allclose(copy.predict(x, verbose=0), model.predict(x, verbose=0),
                               rtol=1e-4, atol=1e-5)


def test_preprocess_input_and_module_functions():
    x = np.array([[[[0.0, 127.5, 255.0]]]], np.float32)
    for module in (A.inception_v3, A.inception_resnet_v2, A.xception, A.nasnet):
        np.testing.assert_allclose(module.preprocess_input(x.copy()), [[[[-1.0, 0.0, 1.0]]]])
    for module in (A.efficientnet, A.efficientnet_v2, A.convnext):
        assert module.preprocess_input(x) is x  # the models preprocess inside
    index = {str(i): [f"n{i:08d}", f"class{i}"] for i in range(1000)}
    preds = np.zeros((1, 1000), np.float32)
    preds[0, 7] = 1.0
    for module in (A.efficientnet, A.convnext, A.nasnet, A.xception):
        assert hasattr(module, "decode_predictions")
    assert A.imagenet_utils.decode_predictions(preds, top=1, class_index=index)[0][0][:2] == \
        ("n00000007", "class7")


def test_stochastic_depth_and_layer_scale():
    from twinflow.keras.applications.convnext import LayerScale, StochasticDepth
    x = np.ones((64, 2, 2, 3), np.float32)
    layer = StochasticDepth(0.5)
    np.testing.assert_array_equal(layer(x).numpy(), x)  # inference: identity
    y = layer(x, training=True).numpy()
    per_sample = y.reshape(64, -1)
    assert set(np.unique(per_sample)) <= {0.0, 2.0}  # dropped, or kept and scaled by 1/0.5
    assert (per_sample.min(axis=1) == per_sample.max(axis=1)).all()  # whole samples
    assert 0 < (per_sample[:, 0] == 0).sum() < 64
    scale = LayerScale(0.25, 3)
    np.testing.assert_allclose(scale(x).numpy(), 0.25 * x)
    assert [w.shape for w in scale.trainable_weights] == [(3,)]
    copy = LayerScale.from_config(scale.get_config())
    assert (copy.init_values, copy.projection_dim) == (0.25, 3)
    with pytest.raises(ValueError, match="drop_path_rate"):
        StochasticDepth(1.0)


def test_convnext_residual_additions_are_operations_not_layers():
    model = A.ConvNeXtTiny(weights=None, include_top=False, input_shape=(32, 32, 3))
    assert not any(type(layer).__name__ == "ResidualAdd" for layer in model.layers)
    # but the model still runs them: a zero branch leaves the input of each block unchanged
    assert len(model._tw_nodes_order) > len(model.layers)


# --- the same numbers as Keras, with weights set by a formula of their names --------------

with open(FIXTURE.replace("models_b", "outputs_b"), encoding="utf-8") as f:
    OUTPUTS = json.load(f)


@pytest.mark.parametrize("key", sorted(OUTPUTS))
def test_outputs_match_keras_with_the_same_weights(key):
    ctor, kwargs = SMALL[key]
    keras.backend.clear_session()  # the formula uses the names, automatic ones included
    model = getattr(A, ctor)(weights=None, **kwargs)
    fill(model)
    shape = (2,) + tuple(kwargs["input_shape"])
    x = (127.5 + 127.5 * np.sin(np.arange(int(np.prod(shape))) * 0.05)).reshape(shape)
    x = x.astype("float32")
    if ctor in ("InceptionV3", "Xception", "NASNetMobile"):
        x = x / 127.5 - 1.0
    y = model(x, training=False).numpy()
    want = OUTPUTS[key]
    assert list(y.shape) == want["shape"]
    y = y.astype(np.float64).reshape(2, -1)
    np.testing.assert_allclose(y[:, :8], want["first"], rtol=2e-3, atol=2e-4 * np.abs(y).max())
    np.testing.assert_allclose(y[:, -8:], want["last"], rtol=2e-3, atol=2e-4 * np.abs(y).max())
    np.testing.assert_allclose(np.abs(y).sum(axis=1), want["abs_sum"], rtol=1e-3)
