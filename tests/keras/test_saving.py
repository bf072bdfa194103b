"""Whole-model saving: model.save / load_model, to_json / model_from_json."""
from __future__ import annotations

import json
import os
import pathlib
import zipfile

import numpy as np
import pytest

import twinflow as tw
from twinflow.core.errors import DataLossError
from twinflow.train import checkpoint as _ckpt

K = tw.keras


def _data(n: int = 32, classes: int = 3):
    rng = np.random.default_rng(0)
    return rng.random((n, 4), dtype=np.float32), rng.integers(0, classes, n)


def _sequential():
    tw.random.set_seed(1)
    m = K.Sequential([K.layers.Dense(8, activation="relu", input_shape=(4,),
                                     kernel_regularizer=K.regularizers.l2(1e-3)),
                      K.layers.BatchNormalization(),
                      K.layers.Dense(3)])
    m.compile(optimizer=K.optimizers.Adam(0.01),
              loss=K.losses.SparseCategoricalCrossentropy(from_logits=True),
              metrics=["accuracy"])
    return m


def _functional():
    inp = K.Input((4,), name="x")
    a = K.layers.Dense(5, activation="tanh", name="a")(inp)
    b = K.layers.Dense(5, name="b")(inp)
    shared = K.layers.Dense(5, name="shared")
    s1, s2 = shared(a), shared(b)
    c = K.layers.Concatenate(name="cat")([s1, s2])
    out = K.layers.Dense(2, name="out")(K.layers.Add(name="add")([c, K.layers.Flatten()(c)]))
    return K.Model(inp, out, name="func")


@pytest.mark.parametrize("suffix", ["model.keras", "model_dir"])
def test_sequential_round_trip_and_continued_training(tmp_path, suffix):
    x, y = _data()
    m = _sequential()
    m.fit(x, y, epochs=2, batch_size=8, verbose=0, shuffle=False)
    path = tmp_path / suffix
    m.save(path)
    if suffix.endswith(".keras"):  # Keras 3's layout (tests/keras/test_keras_archive.py)
        assert sorted(zipfile.ZipFile(path).namelist()) == [
            "config.json", "metadata.json", "model.weights.h5"]
    else:
        assert sorted(os.listdir(path)) == ["config.json", "metadata.json", "model.weights.npz"]
    m2 = K.models.load_model(path)
    assert isinstance(m2, K.Sequential)
    assert [layer.name for layer in m2.layers] == [layer.name for layer in m.layers]
    np.testing.assert_array_equal(m.predict(x, verbose=0), m2.predict(x, verbose=0))
    # compiled as saved, optimizer state included: training goes on exactly as without the
    # save/load round trip
    assert type(m2.optimizer) is K.optimizers.Adam
    assert int(m2.optimizer.iterations.numpy()) == int(m.optimizer.iterations.numpy()) == 8
    h1 = m.fit(x, y, epochs=2, batch_size=8, verbose=0, shuffle=False).history
    h2 = m2.fit(x, y, epochs=2, batch_size=8, verbose=0, shuffle=False).history
    assert h1 == h2
    assert set(h2) == {"loss", "accuracy"}


def test_functional_round_trip_with_shared_layer(tmp_path):
    x, _ = _data()
    m = _functional()
    m.save(tmp_path / "f.keras")
    m2 = K.models.load_model(tmp_path / "f.keras")
    assert not m2._tw_compiled
    assert [layer.name for layer in m2.layers] == [layer.name for layer in m.layers]
    np.testing.assert_array_equal(m.predict(x, verbose=0), m2.predict(x, verbose=0))
    assert len(m2.get_layer("shared")._tw_nodes) == 2


def test_to_json_and_model_from_json_rebuild_the_architecture():
    m = _functional()
    text = m.to_json()
    cfg = json.loads(text)
    assert cfg["class_name"] == "Model"
    assert cfg["config"]["input_layers"] == ["x", 0, 0]
    m2 = K.models.model_from_json(text)
    assert [layer.name for layer in m2.layers] == [layer.name for layer in m.layers]
    assert [w.shape.as_list() for w in m2.weights] == [w.shape.as_list() for w in m.weights]
    s = _sequential()
    s2 = K.models.model_from_json(s.to_json())
    assert s2.count_params() == s.count_params()
    assert s2.layers[0].kernel_regularizer.l2 == pytest.approx(1e-3)


def test_every_layer_config_round_trips():
    layers = [K.layers.Dense(3, activation="relu", use_bias=False),
              K.layers.Conv2D(2, 3, padding="same", kernel_initializer="he_normal"),
              K.layers.MaxPooling2D(2), K.layers.AveragePooling2D(2, strides=1),
              K.layers.GlobalAveragePooling2D(keepdims=True), K.layers.GlobalMaxPooling1D(),
              K.layers.Flatten(), K.layers.Dropout(0.3, seed=2), K.layers.Embedding(10, 4),
              K.layers.Activation("tanh"), K.layers.Reshape((2, -1)),
              K.layers.BatchNormalization(momentum=0.9), K.layers.LayerNormalization(),
              K.layers.Concatenate(axis=1), K.layers.Add()]
    for layer in layers:
        cfg = layer.get_config()
        assert json.loads(json.dumps(cfg)) is not None
        clone = type(layer).from_config(json.loads(json.dumps(cfg)))
        again = json.loads(json.dumps(clone.get_config()))
        assert again == json.loads(json.dumps(cfg)), type(layer).__name__


class Scaled(K.Model):
    def __init__(self, units: int = 4, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.d1 = K.layers.Dense(units, activation="relu")
        self.d2 = K.layers.Dense(1)

    def call(self, inputs, training=None):
        return self.d2(self.d1(inputs))

    def get_config(self):
        return {"name": self.name, "units": self.units}


def test_subclassed_model_needs_custom_objects(tmp_path):
    x = np.random.default_rng(1).random((16, 3), dtype=np.float32)
    y = x.sum(axis=1, keepdims=True)
    m = Scaled(6)
    m.compile(optimizer=K.optimizers.SGD(0.1, momentum=0.9), loss="mse")
    m.fit(x, y, epochs=1, batch_size=4, verbose=0, shuffle=False)
    m.save(tmp_path / "s.keras")
    with pytest.raises(ValueError, match="custom_objects.*Scaled"):
        K.models.load_model(tmp_path / "s.keras")
    m2 = K.models.load_model(tmp_path / "s.keras", custom_objects={"Scaled": Scaled})
    assert isinstance(m2, Scaled) and m2.units == 6
    np.testing.assert_array_equal(m.predict(x, verbose=0), m2.predict(x, verbose=0))
    h1 = m.fit(x, y, epochs=2, batch_size=4, verbose=0, shuffle=False).history
    h2 = m2.fit(x, y, epochs=2, batch_size=4, verbose=0, shuffle=False).history
    assert h1 == h2


def test_lambda_and_custom_function_by_name(tmp_path):
    def double(t):
        return t * 2.0

    inp = K.Input((4,))
    out = K.layers.Dense(2)(K.layers.Lambda(double)(inp))
    m = K.Model(inp, out)
    m.save(tmp_path / "l.keras")
    with pytest.raises(ValueError, match="custom_objects"):
        K.models.load_model(tmp_path / "l.keras")
    m2 = K.models.load_model(tmp_path / "l.keras", custom_objects={"double": double})
    x, _ = _data()
    np.testing.assert_array_equal(m.predict(x, verbose=0), m2.predict(x, verbose=0))
    anonymous = K.Sequential([K.layers.Lambda(lambda t: t + 1.0, input_shape=(4,))])
    with pytest.raises(TypeError, match="lambda"):
        anonymous.save(tmp_path / "a.keras")


def test_corrupt_file_raises(tmp_path):
    m = _sequential()
    path = tmp_path / "m.keras"
    m.save(path)
    data = path.read_bytes()
    (tmp_path / "cut.keras").write_bytes(data[: len(data) // 2])
    with pytest.raises(DataLossError, match="corrupt"):
        K.models.load_model(tmp_path / "cut.keras")
    flipped = bytearray(data)
    at = data.index(b"\x89HDF") + 2000  # inside model.weights.h5: its CRC-32 catches it
    flipped[at] ^= 0xFF
    (tmp_path / "flipped.keras").write_bytes(bytes(flipped))
    with pytest.raises(DataLossError, match="corrupt"):
        K.models.load_model(tmp_path / "flipped.keras")
    (tmp_path / "junk.keras").write_bytes(b"not a zip at all")
    with pytest.raises(DataLossError, match="corrupt"):
        K.models.load_model(tmp_path / "junk.keras")
    with pytest.raises(FileNotFoundError):
        K.models.load_model(tmp_path / "missing.keras")


def _rewrite(path: pathlib.Path, out: pathlib.Path, change) -> None:
    with zipfile.ZipFile(path) as z:
        members = {n: z.read(n) for n in z.namelist()}
    members = change(members)
    with zipfile.ZipFile(out, "w") as z:
        for n, b in members.items():
            z.writestr(n, b)


def test_mismatched_weights_name_the_layer_and_shapes_and_restore_nothing(tmp_path):
    m = _sequential()
    path = tmp_path / "m.keras"
    m.save(path)

    def widen(members):
        cfg = json.loads(members["config.json"])
        cfg["config"]["layers"][0]["config"]["units"] = 9
        members["config.json"] = json.dumps(cfg).encode()
        return members
    _rewrite(path, tmp_path / "bad.keras", widen)
    with pytest.raises(ValueError, match=r"nothing was restored:\n.*dense.*\(4, 8\).*kernel.*"
                                         r"\(4, 9\)"):
        K.models.load_model(tmp_path / "bad.keras")


def test_overwrite_false_and_h5_are_refused(tmp_path):
    m = _sequential()
    m.save(tmp_path / "m.keras")
    with pytest.raises(FileExistsError):
        m.save(tmp_path / "m.keras", overwrite=False)
    with pytest.raises(ValueError, match="HDF5"):
        m.save(tmp_path / "m.h5")
    m.save(tmp_path / "d")
    m.save(tmp_path / "d")  # a saved directory is replaced whole
    assert sorted(os.listdir(tmp_path / "d")) == ["config.json", "metadata.json",
                                                   "model.weights.npz"]
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "mine.txt").write_text("keep me")
    with pytest.raises(FileExistsError, match="other files"):
        m.save(tmp_path / "notes")
    assert (tmp_path / "notes" / "mine.txt").read_text() == "keep me"
    assert not [p for p in os.listdir(tmp_path) if ".tw-tmp-" in p or ".tw-old-" in p]
    assert K.models.load_model(tmp_path / "d").count_params() == m.count_params()


def test_saving_never_pickles(tmp_path):
    root = pathlib.Path(tw.__file__).parent
    for rel in ("keras/saving.py", "train/checkpoint.py"):
        src = (root / rel).read_text()
        loads = [line for line in src.splitlines() if "np.load(" in line]
        assert all("allow_pickle=False" in line for line in loads)
        for allowed in ("allow_pickle", "pickled", "unpickling"):
            src = src.replace(allowed, "")
        assert "pickle" not in src
    path = tmp_path / "obj.npz"
    np.savez(path, a=np.array([{"x": 1}], dtype=object))
    with pytest.raises(DataLossError, match="Python objects"):
        _ckpt.load_npz(str(path), "obj.npz")


def test_model_checkpoint_writes_whole_models(tmp_path):
    x, y = _data()
    m = _sequential()
    cb = K.callbacks.ModelCheckpoint(str(tmp_path / "m-{epoch}.keras"))
    m.fit(x, y, epochs=2, batch_size=8, verbose=0, shuffle=False, callbacks=[cb])
    m2 = K.models.load_model(tmp_path / "m-2.keras")
    np.testing.assert_array_equal(m.predict(x, verbose=0), m2.predict(x, verbose=0))


class Scale(K.layers.Layer):
    def __init__(self, factor: float = 2.0, **kwargs):
        super().__init__(**kwargs)
        self.factor = factor

    def build(self, input_shape):
        self.w = self.add_weight("w", (input_shape[-1],), initializer="ones")

    def call(self, inputs):
        return inputs * self.w * self.factor

    def get_config(self):
        cfg = super().get_config()
        cfg["factor"] = self.factor
        return cfg


def test_custom_layer_loss_and_activation_by_name(tmp_path):
    def my_loss(y_true, y_pred):
        return tw.reduce_mean(tw.abs(y_true - y_pred), axis=-1)

    def my_act(t):
        return t * 0.5

    x = np.random.default_rng(2).random((16, 4), dtype=np.float32)
    y = x[:, :1]
    m = K.Sequential([Scale(3.0, input_shape=(4,)), K.layers.Dense(1, activation=my_act)])
    m.compile("sgd", loss=my_loss, metrics=[K.metrics.MeanAbsoluteError()])
    m.fit(x, y, epochs=1, verbose=0)
    m.save(tmp_path / "c.keras")
    with pytest.raises(ValueError, match="Unknown layer: 'Scale'"):
        K.models.load_model(tmp_path / "c.keras")
    objects = {"Scale": Scale, "my_loss": my_loss, "my_act": my_act}
    m2 = K.models.load_model(tmp_path / "c.keras", custom_objects=objects)
    assert m2.layers[0].factor == 3.0 and m2.layers[1].activation is my_act
    assert m2.metrics_names == ["loss", "mean_absolute_error"]
    np.testing.assert_array_equal(m.predict(x, verbose=0), m2.predict(x, verbose=0))
    assert m2.evaluate(x, y, verbose=0) == m.evaluate(x, y, verbose=0)
