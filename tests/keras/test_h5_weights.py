"""Keras 3 `.weights.h5` files: a file written by Keras 3 (tests/fixtures/keras, made by
make_fixtures.py) loads into the same architecture built with twinflow and predicts the same;
twinflow's own files round-trip; bad files change nothing."""
import json
from pathlib import Path

import numpy as np
import pytest

import twinflow as tw

h5py = pytest.importorskip("h5py")
keras = tw.keras
L = keras.layers
FIX = Path(__file__).resolve().parents[1] / "fixtures" / "keras"


def h5_model():
    inp = keras.Input((5, 4), name="seq")
    x = L.Bidirectional(L.LSTM(3, return_sequences=True))(inp)
    x = L.MultiHeadAttention(2, 3)(x, x)
    x = L.RNN([L.SimpleRNNCell(3), L.GRUCell(2)])(x)
    return keras.Model(inp, L.Dense(2)(x))


def test_keras_3_file_loads_and_predicts_the_same():
    keras.backend.clear_session()
    model = h5_model()
    model.load_weights(FIX / "model.weights.h5")
    data = json.loads((FIX / "h5_predictions.json").read_text())
    np.testing.assert_allclose(model.predict(np.array(data["x"], np.float32), verbose=0),
                               data["y"], rtol=1e-4, atol=1e-5)


def test_round_trip_and_layout(tmp_path):
    keras.backend.clear_session()
    model = h5_model()
    x = np.random.default_rng(1).normal(size=(3, 5, 4)).astype(np.float32)
    path = tmp_path / "w.weights.h5"
    model.save_weights(path)
    with h5py.File(path) as f:
        names = []
        f.visit(names.append)
    assert "layers/bidirectional/forward_layer/cell/vars/0" in names
    assert "layers/multi_head_attention/output_dense/vars/1" in names
    assert "layers/rnn/cell/cells/gru_cell/vars/2" in names
    other = h5_model()
    other.load_weights(path)
    np.testing.assert_allclose(other.predict(x, verbose=0), model.predict(x, verbose=0),
                               rtol=1e-6)
    assert [p.name for p in tmp_path.iterdir()] == ["w.weights.h5"]  # no temporary left


def test_mismatched_and_hostile_files_change_nothing(tmp_path):
    small = keras.Sequential([keras.Input((3,)), L.Dense(2)])
    big = keras.Sequential([keras.Input((3,)), L.Dense(4)])
    small.save_weights(tmp_path / "s.weights.h5")
    before = big.get_weights()
    with pytest.raises(ValueError, match="shape"):
        big.load_weights(tmp_path / "s.weights.h5")
    for a, b in zip(big.get_weights(), before):
        np.testing.assert_array_equal(a, b)
    (tmp_path / "junk.weights.h5").write_bytes(b"not hdf5")
    with pytest.raises(tw.errors.DataLossError, match="junk"):
        big.load_weights(tmp_path / "junk.weights.h5")
    with pytest.raises(ValueError, match=".weights.h5"):
        small.save_weights(tmp_path / "x.h5")


def test_model_checkpoint_save_weights_only_writes_the_h5_file(tmp_path):
    model = keras.Sequential([keras.Input((3,)), L.Dense(1)])
    model.compile("sgd", "mse")
    path = tmp_path / "best.weights.h5"
    model.fit(np.ones((4, 3)), np.ones((4, 1)), epochs=1, verbose=0,
              callbacks=[keras.callbacks.ModelCheckpoint(str(path), save_weights_only=True,
                                                         monitor="loss")])
    assert path.exists()
    again = keras.Sequential([keras.Input((3,)), L.Dense(1)])
    again.load_weights(path)
    np.testing.assert_allclose(again.get_weights()[0], model.get_weights()[0])


def _replace(name, make):
    def change(f):
        del f[name]
        make(f, name)
    return change


HOSTILE_H5 = [  # (what, change to the file, words of the error)
    ("a dataset declaring 2**41 elements", _replace(
        "layers/dense/vars/0", lambda f, n: f.create_dataset(
            n, shape=(2 ** 40, 2), dtype="f4", chunks=(1024, 2))), "1099511627776"),
    ("vars is a dataset", _replace(
        "layers/dense/vars", lambda f, n: f.create_dataset(n, data=np.zeros(3))),
     "not a group"),
    ("layers is a dataset", _replace(
        "layers", lambda f, n: f.create_dataset(n, data=[1, 2])), "no weights"),
    ("strings", _replace(
        "layers/dense/vars/0", lambda f, n: f.create_dataset(
            n, data=np.array([[b"a", b"b"]] * 3))), "not numbers"),
    ("compound records", _replace(
        "layers/dense/vars/0", lambda f, n: f.create_dataset(
            n, data=np.zeros((3, 2), [("a", "f4"), ("b", "i4")]))), "not numbers"),
    ("a variable missing", lambda f: f.__delitem__("layers/dense/vars/1"), "1 variables"),
    ("an external link to another file", _replace(
        "layers/dense/vars/0", lambda f, n: f.__setitem__(n, h5py.ExternalLink(
            "/etc/passwd", "/x"))), "missing"),
    ("a soft link loop", _replace(
        "layers/dense/vars/0", lambda f, n: f.__setitem__(n, h5py.SoftLink(
            "/layers/dense/vars"))), "missing"),
]


@pytest.mark.parametrize("what,change,words", HOSTILE_H5, ids=[h[0] for h in HOSTILE_H5])
def test_hostile_h5_is_a_clear_error_naming_the_file_and_changes_nothing(
        tmp_path, what, change, words):
    def model():
        return keras.Sequential([keras.Input((3,)), L.Dense(2, name="dense")])
    path = tmp_path / "h.weights.h5"
    model().save_weights(path)
    with h5py.File(path, "a") as f:
        change(f)
    m = model()
    before = m.get_weights()
    with pytest.raises(ValueError, match=words) as info:
        m.load_weights(path)
    assert str(path) in str(info.value)
    for a, b in zip(m.get_weights(), before):
        np.testing.assert_array_equal(a, b)


def test_a_nested_sequential_model_saves_its_layers_as_keras_does(tmp_path):
    # Keras 3 writes a model used as a layer under layers/<class>/layers/<class>/vars
    def build():
        inp = keras.Input((4,))
        stem = keras.Sequential([L.Dense(3, name="d1"), L.LayerNormalization(name="ln")],
                                name="stem")
        return keras.Model(inp, L.Dense(2, name="out")(stem(inp)))
    model = build()
    path = str(tmp_path / "nested.weights.h5")
    model.save_weights(path)
    with h5py.File(path, "r") as f:
        assert "layers/sequential/layers/dense/vars/1" in f
        assert "layers/sequential/layers/layer_normalization/vars/1" in f
    copy = build()
    copy.load_weights(path)
    x = np.ones((2, 4), np.float32)
    np.testing.assert_allclose(copy(x).numpy(), model(x).numpy(), rtol=1e-6)
