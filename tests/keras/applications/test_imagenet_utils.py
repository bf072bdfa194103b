"""keras.applications.imagenet_utils: preprocess_input's three modes (NumPy and tensors, both
data formats) against a NumPy reference, decode_predictions from a class index file,
obtain_input_shape and correct_pad as Keras."""
import json

import numpy as np
import pytest

import twinflow as tw
from twinflow.keras.applications import imagenet_utils as iu

MEAN_BGR = np.array([103.939, 116.779, 123.68], np.float32)
TORCH_MEAN = np.array([0.485, 0.456, 0.406], np.float32)
TORCH_STD = np.array([0.229, 0.224, 0.225], np.float32)


def reference(x, mode):
    x = x.astype(np.float32)
    if mode == "tf":
        return x / 127.5 - 1.0
    if mode == "torch":
        return (x / 255.0 - TORCH_MEAN) / TORCH_STD
    return x[..., ::-1] - MEAN_BGR


@pytest.mark.parametrize("mode", ["caffe", "tf", "torch"])
def test_preprocess_modes_numpy_and_tensor(mode):
    x = np.random.RandomState(0).uniform(0, 255, (2, 3, 4, 3)).astype(np.float32)
    want = reference(x, mode)
    np.testing.assert_allclose(iu.preprocess_input(x.copy(), mode=mode), want, rtol=1e-5)
    got = iu.preprocess_input(tw.constant(x), mode=mode)
    assert isinstance(got, tw.Tensor)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-5, atol=1e-5)
    # channels_first: the same numbers with the channel axis moved
    cf = np.moveaxis(x, -1, 1)
    np.testing.assert_allclose(
        iu.preprocess_input(cf.copy(), data_format="channels_first", mode=mode),
        np.moveaxis(want, -1, 1), rtol=1e-5)
    np.testing.assert_allclose(
        iu.preprocess_input(tw.constant(cf), data_format="channels_first", mode=mode).numpy(),
        np.moveaxis(want, -1, 1), rtol=1e-5, atol=1e-5)
    # one image (3D), channels first
    np.testing.assert_allclose(
        iu.preprocess_input(cf[0].copy(), data_format="channels_first", mode=mode),
        np.moveaxis(want, -1, 1)[0], rtol=1e-5)


def test_preprocess_dtypes_and_in_place():
    x = np.full((1, 2, 2, 3), 255, np.uint8)
    out = iu.preprocess_input(x, mode="tf")
    assert out.dtype == np.float32 and x.dtype == np.uint8 and np.all(out == 1.0)
    f = np.full((1, 2, 2, 3), 255.0)  # float64 stays float64 and is scaled in place (Keras)
    out = iu.preprocess_input(f, mode="tf")
    assert out.dtype == np.float64 and np.all(f == 1.0)
    t = iu.preprocess_input(tw.constant(np.zeros((1, 2, 2, 3), np.int32)), mode="torch")
    assert t.dtype == tw.float32


def test_preprocess_in_functional_model_and_function(tmp_path):
    keras = tw.keras
    inp = keras.Input((4, 4, 3))
    model = keras.Model(inp, iu.preprocess_input(inp, mode="caffe"))
    assert isinstance(model.layers[1], iu.PreprocessInput)
    x = np.random.RandomState(1).uniform(0, 255, (2, 4, 4, 3)).astype(np.float32)
    np.testing.assert_allclose(model(x).numpy(), reference(x, "caffe"), rtol=1e-5)
    model.save(str(tmp_path / "m.keras"))  # the layer saves and loads with the model
    loaded = keras.models.load_model(str(tmp_path / "m.keras"))
    np.testing.assert_allclose(loaded(x).numpy(), reference(x, "caffe"), rtol=1e-5)
    assert loaded.layers[1].get_config()["mode"] == "caffe"
    f = tw.function(lambda t: iu.preprocess_input(t, mode="torch"))
    np.testing.assert_allclose(f(tw.constant(x)).numpy(), reference(x, "torch"), rtol=1e-5,
                               atol=1e-5)


def test_preprocess_errors():
    x = np.zeros((1, 2, 2, 3), np.float32)
    with pytest.raises(ValueError, match="mode"):
        iu.preprocess_input(x, mode="keras")
    with pytest.raises(ValueError, match="data_format"):
        iu.preprocess_input(x, data_format="NHWC")
    with pytest.raises(ValueError, match="3 colour channels"):
        iu.preprocess_input(np.zeros((1, 2, 2, 4), np.float32))
    with pytest.raises(ValueError, match="3 colour channels"):
        iu.preprocess_input(tw.constant(np.zeros((1, 2, 2, 4), np.float32)), mode="torch")


def _index(n=1000):
    return {str(i): [f"n{i:08d}", f"class_{i}"] for i in range(n)}


def test_decode_predictions_from_file_and_dict(tmp_path):
    path = tmp_path / "index.json"
    path.write_text(json.dumps(_index()))
    preds = np.zeros((2, 1000), np.float32)
    preds[0, [3, 7, 9]] = [0.5, 0.3, 0.2]
    preds[1, 999] = 1.0
    got = iu.decode_predictions(preds, top=3, class_index=str(path))
    assert [r[:2] for r in got[0]] == [("n00000003", "class_3"), ("n00000007", "class_7"),
                                       ("n00000009", "class_9")]
    assert got[0][0][2] == pytest.approx(0.5)
    assert got[1][0][:2] == ("n00000999", "class_999") and len(got[1]) == 3
    small = iu.decode_predictions(tw.constant(preds[:, :4]), top=2, class_index=_index(4))
    assert small[0][0][1] == "class_3"


def test_decode_predictions_keras_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("KERAS_HOME", str(tmp_path))
    with pytest.raises(FileNotFoundError, match="downloads nothing"):
        iu.decode_predictions(np.zeros((1, 1000)))
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "imagenet_class_index.json").write_text(json.dumps(_index()))
    preds = np.eye(1000)[[5]]
    assert iu.decode_predictions(preds, top=1)[0][0][:2] == ("n00000005", "class_5")


def test_decode_predictions_errors(tmp_path):
    with pytest.raises(ValueError, match="2D"):
        iu.decode_predictions(np.zeros((1000,)), class_index=_index())
    with pytest.raises(ValueError, match="shape"):
        iu.decode_predictions(np.zeros((1, 10)), class_index=_index())
    with pytest.raises(ValueError, match="numbered"):
        iu.decode_predictions(np.zeros((1, 2)), class_index={"0": ["a", "b"], "5": ["c", "d"]})
    with pytest.raises(ValueError, match="class id, description"):
        iu.decode_predictions(np.zeros((1, 1)), class_index={"0": "tench"})
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(ValueError, match="not a JSON class index"):
        iu.decode_predictions(np.zeros((1, 1)), class_index=str(bad))


def test_obtain_input_shape():
    f = iu.obtain_input_shape
    assert f(None, 224, 32, "channels_last", True) == (224, 224, 3)
    assert f(None, 224, 32, "channels_first", False) == (3, None, None)
    assert f((64, 48, 3), 224, 32, "channels_last", True) == (64, 48, 3)
    assert f(None, 224, 32, "channels_last", True, weights="imagenet") == (224, 224, 3)
    with pytest.raises(ValueError, match="at least 32x32"):
        f((16, 64, 3), 224, 32, "channels_last", False)
    with pytest.raises(ValueError, match="three integers"):
        f((64, 3), 224, 32, "channels_last", False)
    with pytest.raises(ValueError, match="static"):
        f((None, None, 3), 224, 32, "channels_last", True)
    with pytest.raises(ValueError, match="should be"):
        f((64, 64, 3), 224, 32, "channels_last", True, weights="imagenet")
    with pytest.raises(ValueError, match="3 channels"):
        f((64, 64, 1), 224, 32, "channels_last", False, weights="imagenet")
    with pytest.warns(UserWarning, match="1 or 3 input channels"):
        assert f((40, 40, 5), 224, 32, "channels_last", False) == (40, 40, 5)


def test_correct_pad_and_validate_activation():
    assert iu.correct_pad(tw.keras.Input((32, 32, 3)), 3) == ((0, 1), (0, 1))
    assert iu.correct_pad(tw.keras.Input((33, 32, 3)), (5, 3)) == ((2, 2), (0, 1))
    assert iu.correct_pad(tw.keras.Input((None, None, 3)), 3) == ((0, 1), (0, 1))
    iu.validate_activation("relu", None)
    iu.validate_activation("softmax", "imagenet")
    iu.validate_activation(None, "imagenet")
    with pytest.raises(ValueError, match="classifier_activation"):
        iu.validate_activation("relu", "imagenet")
