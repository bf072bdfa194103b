"""Keras 3 `.keras` archives and legacy `.h5` model files: files written by Keras 3.15
(tests/fixtures/keras_archive, made by its make_fixtures.py) load with Keras' predictions and
optimizer state; twinflow writes Keras 3's layout (Keras 3.15 loads it: checked when the
fixtures were made); loading never runs code."""
from __future__ import annotations

import io
import json
import pathlib
import zipfile

import numpy as np
import pytest

import twinflow as tw

h5py = pytest.importorskip("h5py")
keras = tw.keras
L = keras.layers
FIX = pathlib.Path(__file__).parents[1] / "fixtures" / "keras_archive"
PRED = json.loads((FIX / "predictions.json").read_text())


def _x(name):
    x = PRED[name]["x"]
    if isinstance(x, dict):
        return {k: np.asarray(v, np.float32) for k, v in x.items()}
    return np.asarray(x, np.int32 if name == "rnn" else np.float32)


def _close(got, want):
    if isinstance(want, dict):
        for k in want:
            np.testing.assert_allclose(np.asarray(got[k]), want[k], atol=1e-5)
    else:
        np.testing.assert_allclose(np.asarray(got), want, atol=1e-5)


@pytest.mark.parametrize("name", ["mlp", "cnn", "multi_io", "rnn"])
def test_keras_written_archives_load_with_keras_predictions(name):
    model = keras.models.load_model(FIX / f"{name}.keras")
    _close(model.predict(_x(name), verbose=0), PRED[name]["y"])
    assert int(model.optimizer.iterations.numpy()) == PRED[name]["iterations"]
    assert isinstance(model.optimizer, keras.optimizers.Adam)
    assert abs(float(model.optimizer.learning_rate.numpy()) - 0.01) < 1e-6


def test_legacy_h5_model_file_loads():
    model = keras.models.load_model(FIX / "legacy_cnn.h5")
    _close(model.predict(np.asarray(PRED["legacy_cnn"]["x"], np.float32), verbose=0),
           PRED["legacy_cnn"]["y"])
    assert [type(la).__name__ for la in model.layers] == [
        "Conv2D", "BatchNormalization", "MaxPooling2D", "Flatten", "Dense"]


def _model():
    inp = keras.Input((4,), name="features")
    x = L.Dense(6, activation="relu", name="hidden")(inp)
    return keras.Model(inp, L.Dense(2, name="out")(x), name="mlp")


def test_twinflow_writes_keras3_layout_and_reloads_with_optimizer_state(tmp_path):
    r = np.random.default_rng(1)
    x, y = r.normal(size=(8, 4)).astype(np.float32), r.normal(size=(8, 2)).astype(np.float32)
    model = _model()
    model.compile(keras.optimizers.Adam(0.05), "mse")
    model.fit(x, y, epochs=2, batch_size=4, verbose=0)
    path = tmp_path / "m.keras"
    model.save(path)
    with zipfile.ZipFile(path) as z:
        assert sorted(z.namelist()) == ["config.json", "metadata.json", "model.weights.h5"]
        config = json.loads(z.read("config.json"))
        meta = json.loads(z.read("metadata.json"))
        h5 = h5py.File(io.BytesIO(z.read("model.weights.h5")), "r")
    assert meta["keras_version"].startswith("3.")
    assert config["class_name"] == "Functional" and config["registered_name"] == "Functional"
    hidden = config["config"]["layers"][1]
    assert hidden["module"] == "keras.layers" and hidden["build_config"] == {
        "input_shape": [None, 4]}
    arg = hidden["inbound_nodes"][0]["args"][0]
    assert arg["class_name"] == "__keras_tensor__" and arg["config"]["shape"] == [None, 4]
    assert config["compile_config"]["optimizer"]["module"] == "keras.optimizers"
    with h5:
        assert h5["layers/dense/vars/0"].shape == (4, 6)
        assert h5["layers/dense_1/vars/1"].shape == (2,)
        # Keras' order: iterations, learning rate, then each variable's m and v.
        assert len(h5["optimizer/vars"]) == 2 + 2 * 4
        assert int(h5["optimizer/vars/0"][()]) == 4
    again = keras.models.load_model(path)
    np.testing.assert_allclose(again.predict(x, verbose=0), model.predict(x, verbose=0),
                               atol=1e-6)
    model.fit(x, y, epochs=1, batch_size=4, verbose=0, shuffle=False)
    again.fit(x, y, epochs=1, batch_size=4, verbose=0, shuffle=False)
    for a, b in zip(model.get_weights(), again.get_weights()):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


@pytest.mark.filterwarnings("ignore:overflow:RuntimeWarning")  # loss scaling probes
def test_mixed_precision_model_round_trips(tmp_path):
    keras.mixed_precision.set_global_policy("mixed_float16")
    try:
        model = _model()
        model.compile("adam", "mse")
    finally:
        keras.mixed_precision.set_global_policy("float32")
    model.fit(np.ones((4, 4), np.float32), np.ones((4, 2), np.float32), verbose=0)
    model.save(tmp_path / "mp.keras")
    again = keras.models.load_model(tmp_path / "mp.keras")
    assert again.layers[1].compute_dtype == "float16"
    assert isinstance(again.optimizer, keras.optimizers.LossScaleOptimizer)
    np.testing.assert_allclose(again.predict(np.ones((1, 4), np.float32), verbose=0),
                               model.predict(np.ones((1, 4), np.float32), verbose=0))


def _rewrite(src, dst, change):
    with zipfile.ZipFile(src) as z:
        members = {n: z.read(n) for n in z.namelist()}
    change(members)
    with zipfile.ZipFile(dst, "w") as z:
        for n, data in members.items():
            z.writestr(n, data)


def test_lambda_bytecode_is_never_loaded(tmp_path):
    def add_lambda(members):
        cfg = json.loads(members["config.json"])
        layers = cfg["config"]["layers"]
        lam = {"module": "keras.layers", "class_name": "Lambda", "registered_name": None,
               "config": {"name": "lam", "trainable": True, "dtype": "float32",
                          "function": {"class_name": "__lambda__", "config": {
                              "code": "4wEAAAAAAAAAAAAAAAEAAAADAAAA8wQAAACXAHwAUwApAU6pAKkB2gF4",
                              "defaults": None, "closure": None}},
                          "arguments": {}},
               "name": "lam", "inbound_nodes": [{"args": [{"class_name": "__keras_tensor__",
                                                           "config": {"keras_history": [
                                                               "probs", 0, 0]}}],
                                                 "kwargs": {}}]}
        layers.append(lam)
        cfg["config"]["output_layers"] = ["lam", 0, 0]
        members["config.json"] = json.dumps(cfg).encode()
    _rewrite(FIX / "mlp.keras", tmp_path / "lam.keras", add_lambda)
    with pytest.raises(ValueError, match="bytecode"):
        keras.models.load_model(tmp_path / "lam.keras")


def test_bad_archives_raise_and_restore_nothing(tmp_path):
    def drop_weights(members):
        del members["model.weights.h5"]
        members["other.bin"] = b"x"
    _rewrite(FIX / "mlp.keras", tmp_path / "a.keras", drop_weights)
    with pytest.raises(tw.errors.DataLossError):
        keras.models.load_model(tmp_path / "a.keras")

    def wrong_shape(members):
        buf = io.BytesIO(members["model.weights.h5"])
        with h5py.File(buf, "a") as h5:
            del h5["layers/dense/vars/0"]
            h5["layers/dense/vars"].create_dataset("0", data=np.zeros((3, 6), np.float32))
        members["model.weights.h5"] = buf.getvalue()
    _rewrite(FIX / "mlp.keras", tmp_path / "b.keras", wrong_shape)
    with pytest.raises(ValueError, match="shape"):
        keras.models.load_model(tmp_path / "b.keras")

    def not_h5(members):
        members["model.weights.h5"] = b"not hdf5 at all"
    _rewrite(FIX / "mlp.keras", tmp_path / "c.keras", not_h5)
    with pytest.raises((tw.errors.DataLossError, ValueError)):
        keras.models.load_model(tmp_path / "c.keras")


def test_unknown_keras_arguments_are_refused_not_ignored(tmp_path):
    def add_arg(members):
        cfg = json.loads(members["config.json"])
        cfg["config"]["layers"][1]["config"]["lora_rank"] = 4
        members["config.json"] = json.dumps(cfg).encode()
    _rewrite(FIX / "mlp.keras", tmp_path / "d.keras", add_arg)
    with pytest.raises(ValueError, match="lora_rank"):
        keras.models.load_model(tmp_path / "d.keras")


def test_without_h5py_saving_falls_back_to_twinflows_layout(tmp_path, monkeypatch):
    from twinflow.keras import h5_weights

    def missing():
        raise ImportError("no h5py")
    model = _model()
    model.build((None, 4))
    monkeypatch.setattr(h5_weights, "_h5py", missing)
    with pytest.warns(UserWarning, match="h5py is not installed"):
        model.save(tmp_path / "n.keras")
    monkeypatch.undo()
    with zipfile.ZipFile(tmp_path / "n.keras") as z:
        assert "model.weights.npz" in z.namelist()
    again = keras.models.load_model(tmp_path / "n.keras")
    x = np.ones((1, 4), np.float32)
    np.testing.assert_allclose(again.predict(x, verbose=0), model.predict(x, verbose=0))
