"""keras.applications models: the small configurations match Keras 3 layer for layer (names,
counts, weight shapes, parameters: tests/fixtures/applications), run forward and train a
step, load weights saved by Keras (same predictions), and refuse bad arguments clearly. The
full-size models are checked in test_models_slow.py (marker ``slow``)."""
import json
import os

import numpy as np
import pytest

import twinflow as tw

from .fixture_check import FIXTURES, MODELS, check

A = tw.keras.applications
SMALL = sorted(k for k in MODELS if k.endswith("_small") and not k.startswith(
    ("ResNet", "VGG", "DenseNet")))
# float32 through 27 normalized layers, summed in another order than TensorFlow's (values
# up to 6)
ATOL = 1e-3
TINY = {"alpha": 0.25, "include_top": False, "input_shape": (32, 32, 3), "pooling": "avg"}


@pytest.mark.parametrize("key", SMALL + ["MobileNet", "MobileNetV2", "MobileNetV3Small"])
def test_matches_keras(key):
    check(key)


@pytest.mark.parametrize("ctor, kwargs", [
    (A.MobileNetV2, {"alpha": 0.35, "input_shape": (32, 32, 3), "classes": 4}),
    (A.MobileNetV3Small, {"alpha": 0.75, "input_shape": (32, 32, 3), "classes": 4}),
    (A.MobileNet, {"alpha": 0.25, "input_shape": (32, 32, 3), "classes": 4}),
])
def test_forward_and_fit_step(ctor, kwargs):
    model = ctor(weights=None, **kwargs)
    x = np.random.RandomState(0).uniform(0, 255, (2, 32, 32, 3)).astype(np.float32)
    y = model.predict(x, verbose=0)
    assert y.shape == (2, 4)
    np.testing.assert_allclose(y.sum(axis=1), 1.0, rtol=1e-5)  # softmax classifier
    model.compile(tw.keras.optimizers.SGD(0.01), "sparse_categorical_crossentropy")
    before = [w.numpy().copy() for w in model.trainable_weights]
    history = model.fit(x, np.array([0, 3]), epochs=1, batch_size=2, verbose=0)
    assert np.isfinite(history.history["loss"][0])
    changed = [not np.allclose(a, w.numpy()) for a, w in zip(before, model.trainable_weights)]
    # the first and last layers learn; a few batch-norm offsets followed by a convolution and
    # a (training-mode) batch norm rightly get no gradient, so not every weight moves
    assert changed[0] and changed[-1] and sum(changed) > 0.9 * len(changed)


def _tiny_fixture():
    data = json.loads((FIXTURES / "mobilenet_tiny.json").read_text())
    return np.array(data["x"], np.float32), np.array(data["y"], np.float32)


def test_keras_weights_file_gives_keras_predictions():
    path = FIXTURES / "mobilenet_tiny.weights.h5"
    model = A.MobileNet(weights=str(path), **TINY)
    x, want = _tiny_fixture()
    np.testing.assert_allclose(model.predict(x, verbose=0), want, atol=ATOL)
    again = A.MobileNet(weights=None, **TINY)
    again.load_weights(str(path))
    np.testing.assert_allclose(again(x).numpy(), want, atol=ATOL)


def _write_legacy_h5(model, path):
    """Keras 2's weights layout (what the ImageNet files use): layer groups listed in the
    ``layer_names`` attribute, each with its ``weight_names``."""
    h5py = pytest.importorskip("h5py")
    with h5py.File(path, "w") as f:
        names = [layer.name for layer in model.layers]
        f.attrs["layer_names"] = [n.encode() for n in names]
        for layer in model.layers:
            g = f.create_group(layer.name)
            wn = [f"{layer.name}/{w.name}_{i}:0" for i, w in enumerate(layer.weights)]
            g.attrs["weight_names"] = [n.encode() for n in wn]
            for n, w in zip(wn, layer.weights):
                g[n] = w.numpy()


def test_legacy_h5_and_the_keras_cache(tmp_path, monkeypatch):
    keras_model = A.MobileNet(weights=str(FIXTURES / "mobilenet_tiny.weights.h5"), **TINY)
    x, want = _tiny_fixture()
    legacy = tmp_path / "legacy.h5"
    _write_legacy_h5(keras_model, legacy)
    model = A.MobileNet(weights=str(legacy), **TINY)
    np.testing.assert_allclose(model(x).numpy(), want, atol=ATOL)
    # weights="imagenet" reads the file Keras would have downloaded, from its cache
    monkeypatch.setenv("KERAS_HOME", str(tmp_path))
    with pytest.raises(ValueError, match="cannot download"), pytest.warns(UserWarning):
        A.MobileNet(weights="imagenet", **TINY)
    os.makedirs(tmp_path / "models")
    os.replace(legacy, tmp_path / "models" / "mobilenet_2_5_224_tf_no_top.h5")
    with pytest.warns(UserWarning, match="224"):
        model = A.MobileNet(weights="imagenet", **TINY)
    np.testing.assert_allclose(model(x).numpy(), want, atol=ATOL)


@pytest.mark.filterwarnings("ignore:`input_shape` is undefined")
@pytest.mark.parametrize("ctor, file_name", [
    (A.ResNet50, "resnet50_weights_tf_dim_ordering_tf_kernels.h5"),
    (A.ResNet101V2, "resnet101v2_weights_tf_dim_ordering_tf_kernels.h5"),
    (A.VGG19, "vgg19_weights_tf_dim_ordering_tf_kernels.h5"),
    (A.DenseNet169, "densenet169_weights_tf_dim_ordering_tf_kernels.h5"),
    (A.MobileNetV2, "mobilenet_v2_weights_tf_dim_ordering_tf_kernels_1.0_224.h5"),
    (A.MobileNetV3Large, "weights_mobilenet_v3_large_224_1.0_float.h5"),
])
def test_imagenet_weights_are_never_downloaded(ctor, file_name, tmp_path, monkeypatch):
    monkeypatch.setenv("KERAS_HOME", str(tmp_path))
    with pytest.raises(ValueError, match=f"cannot download.*{file_name}"):
        ctor()  # weights="imagenet" is Keras' default
    with pytest.raises(ValueError, match="`classes` should be 1000"):
        ctor(weights="imagenet", classes=10)


def test_bad_arguments():
    with pytest.raises(ValueError, match="`weights` argument"):
        A.ResNet50(weights="no/such/file.h5")
    with pytest.raises(ValueError, match="pooling"):
        A.MobileNetV2(weights=None, include_top=False, pooling="sum", input_shape=(32, 32, 3))
    with pytest.raises(ValueError, match="at least 32x32"):
        A.MobileNetV3Small(weights=None, input_shape=(16, 16, 3))
    with pytest.raises(ValueError, match="static"):
        A.VGG16(weights=None, input_shape=(None, None, 3))
    with pytest.raises(ValueError, match="Keras tensor"):
        A.MobileNet(weights=None, input_tensor=np.zeros((1, 32, 32, 3)))
    with pytest.raises(ValueError, match="does not match"):
        A.MobileNetV2(weights=None, input_tensor=tw.keras.Input((64, 64, 3)),
                      input_shape=(32, 32, 3))
    with pytest.raises(ValueError, match="Only `None` and `softmax`"):
        A.MobileNet(weights=str(FIXTURES / "mobilenet_tiny.weights.h5"), alpha=0.25,
                    input_shape=(32, 32, 3), classifier_activation="relu")
    tw.keras.backend.set_image_data_format("channels_first")
    try:
        with pytest.raises(ValueError, match="channels_first"):
            A.DenseNet121(weights=None)
    finally:
        tw.keras.backend.set_image_data_format("channels_last")


def test_input_tensor_and_feature_extraction():
    inp = tw.keras.Input((32, 32, 3), name="image")
    base = A.MobileNetV2(weights=None, include_top=False, input_tensor=inp, alpha=0.35)
    assert base.input is inp and base.output_shape == (None, 1, 1, 1280)
    assert base.name == "mobilenetv2_0.35_None"
    base.trainable = False
    x = tw.keras.layers.GlobalAveragePooling2D()(base.output)
    head = tw.keras.Model(inp, tw.keras.layers.Dense(3)(x))
    assert len(head.trainable_weights) == 2
    assert head(np.zeros((1, 32, 32, 3), np.float32)).shape == (1, 3)
    # a model as a layer, on free-sized images
    feats = A.MobileNetV3Small(weights=None, include_top=False, pooling="max",
                               input_shape=(None, None, 3), minimalistic=True)
    assert feats(np.zeros((1, 40, 48, 3), np.float32)).shape == (1, 576)


def test_mobilenet_v3_hard_sigmoid_as_keras_and_save(tmp_path):
    # Keras 3: ReLU(6.0)(x + 3.0) * (1.0 / 6.0), a ReLU layer between two operation nodes
    tw.keras.backend.clear_session()  # names as in a fresh Keras session
    model = A.MobileNetV3Small(weights=None, alpha=0.75, input_shape=(32, 32, 3), classes=3,
                               dropout_rate=0.0)
    ops = [(type(o).__name__, o.name) for o in model.operations]
    i = ops.index(("Conv2D", "expanded_conv_squeeze_excite_conv_1"))
    assert ops[i + 1:i + 5] == [("KerasOperation", "add"), ("ReLU", "re_lu_1"),
                                ("KerasOperation", "multiply"),
                                ("Multiply", "expanded_conv_squeeze_excite_mul")]
    hs = model.get_layer("re_lu_1")
    assert hs.max_value == 6.0 and "KerasOperation" not in {type(la).__name__
                                                             for la in model.layers}
    x = np.random.RandomState(0).uniform(0, 255, (2, 32, 32, 3)).astype(np.float32)
    path = str(tmp_path / "m.keras")
    model.save(path)
    loaded = tw.keras.models.load_model(path)
    np.testing.assert_allclose(loaded(x).numpy(), model(x).numpy(), rtol=1e-5, atol=1e-6)
    assert [o.name for o in loaded.operations] == [o.name for o in model.operations]


def test_mobilenet_v3_saved_by_keras_loads_with_equal_predictions():
    # made by tests/fixtures/applications/make_fixtures_v3.py with Keras 3.15
    want = json.loads((FIXTURES / "mobilenet_v3_keras.json").read_text())
    model = tw.keras.models.load_model(str(FIXTURES / "mobilenet_v3_keras.keras"))
    x = np.arange(2 * 32 * 32 * 3, dtype=np.float32).reshape(2, 32, 32, 3) * 7 % 255
    np.testing.assert_allclose(model.predict(x, verbose=0), want["output"], rtol=1e-4,
                               atol=1e-5)
    assert [la.name for la in model.layers] == want["layers"]


def test_module_functions():
    x = np.full((1, 2, 2, 3), 255.0, np.float32)
    assert A.mobilenet_v3.preprocess_input(x) is x
    np.testing.assert_allclose(A.mobilenet_v2.preprocess_input(x.copy()), 1.0)
    np.testing.assert_allclose(A.resnet_v2.preprocess_input(x.copy()), 1.0)
    np.testing.assert_allclose(A.densenet.preprocess_input(x.copy())[..., 0],
                               (1 - 0.485) / 0.229, rtol=1e-5)
    np.testing.assert_allclose(A.vgg16.preprocess_input(x.copy())[..., 0], 255 - 103.939,
                               rtol=1e-5)
    assert A.resnet50.ResNet50 is A.resnet.ResNet50 is A.ResNet50
    for module in (A.resnet, A.resnet50, A.resnet_v2, A.vgg16, A.vgg19, A.densenet,
                   A.mobilenet, A.mobilenet_v2, A.mobilenet_v3):
        assert module.decode_predictions is A.imagenet_utils.decode_predictions


def test_channels_first():
    keras_model = A.MobileNet(weights=str(FIXTURES / "mobilenet_tiny.weights.h5"), **TINY)
    x, want = _tiny_fixture()
    tw.keras.backend.set_image_data_format("channels_first")
    try:
        assert tw.keras.layers.Conv2D(2, 3).data_format == "channels_first"
        tiny = dict(TINY, input_shape=(3, 32, 32))
        model = A.MobileNet(weights=None, **tiny)
        model.set_weights(keras_model.get_weights())
        np.testing.assert_allclose(model(np.moveaxis(x, -1, 1)).numpy(), want, atol=ATOL)
        # parameter counts as Keras 3 with channels_first
        v2 = A.MobileNetV2(weights=None, alpha=0.35, input_shape=(3, 32, 32), classes=4)
        v3 = A.MobileNetV3Small(weights=None, input_shape=(3, 32, 32), classes=4)
        assert (v2.count_params(), v3.count_params()) == (415332, 1534068)
        assert v3(np.zeros((1, 3, 32, 32), np.float32)).shape == (1, 4)
    finally:
        tw.keras.backend.set_image_data_format("channels_last")
    assert tw.keras.layers.Conv2D(2, 3).data_format == "channels_last"


def test_eager_and_graph_agree():
    model = A.MobileNetV3Small(weights=None, alpha=0.75, input_shape=(32, 32, 3), classes=4)
    x = np.random.RandomState(2).uniform(0, 255, (2, 32, 32, 3)).astype(np.float32)
    graph = tw.function(lambda t: model(t, training=False))
    np.testing.assert_allclose(graph(tw.constant(x)).numpy(), model(x).numpy(), rtol=1e-5,
                               atol=1e-6)
