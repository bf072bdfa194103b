"""Operations on KerasTensors (operators, keras.ops, twinflow ops) as functional-graph nodes:
shapes, running eagerly / in tw.function / in fit, configs, .keras files both ways."""
import os

import numpy as np
import pytest

import twinflow as tw
from twinflow import keras

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "fixtures", "keras_ops_nodes")
X = np.linspace(-2.0, 2.0, 12, dtype="float32").reshape(3, 4)


def _issue_model():
    x = keras.Input((4,))
    y = x * 2.0 + 3.0
    z = tw.nn.relu(y) / tw.reduce_sum(y, axis=-1, keepdims=True)
    return keras.Model(x, z)


def _issue_reference(a):
    y = a * 2.0 + 3.0
    return np.maximum(y, 0) / y.sum(-1, keepdims=True)


def test_operators_and_tw_ops_become_nodes():
    model = _issue_model()
    names = [layer.name.split("_")[0] for layer in model.operations]
    assert names[1:] == ["multiply", "add", "relu", "sum", "true"]
    assert len(model.layers) == 1  # the InputLayer: operations are not layers (Keras 3)
    assert model.output.shape.as_list() == [None, 4]
    np.testing.assert_allclose(model(X).numpy(), _issue_reference(X), rtol=1e-6)
    f = tw.function(lambda t: model(t))
    np.testing.assert_allclose(f(X).numpy(), _issue_reference(X), rtol=1e-6)


def test_shapes_dtypes_and_reflected_operators():
    x = keras.Input((4,), dtype="int32")
    assert (1 - x).shape.as_list() == [None, 4]
    assert (x < 2).dtype.name == "bool"
    assert x[:, 1:].shape.as_list() == [None, 3]
    assert keras.ops.sum(x, axis=0).shape.as_list() == [4]
    m = keras.Model(x, [10 - x, -x, abs(x), x[..., :2] ** 2])
    a = np.array([[1, -2, 3, 4]], "int32")
    out = [o.numpy() for o in m(a)]
    for got, want in zip(out, [10 - a, -a, abs(a), a[..., :2] ** 2]):
        np.testing.assert_array_equal(got, want)


def test_keras_ops_on_symbolic_inputs_and_fit():
    x = keras.Input((4,))
    h = keras.layers.Dense(3)(keras.ops.relu(x) - 1.0)
    out = keras.ops.concatenate([h, keras.ops.mean(x, axis=-1, keepdims=True)], axis=-1)
    model = keras.Model(x, out)
    model.compile("sgd", "mse")
    hist = model.fit(X, np.zeros((3, 4), "float32"), epochs=2, verbose=0)
    assert np.isfinite(hist.history["loss"]).all()
    assert model.predict(X, verbose=0).shape == (3, 4)
    assert [type(x).__name__ for x in model.layers] == ["InputLayer", "Dense"]


def test_get_config_from_config_round_trip():
    model = _issue_model()
    clone = keras.Model.from_config(model.get_config())
    np.testing.assert_allclose(clone(X).numpy(), _issue_reference(X), rtol=1e-6)
    ops = [e for e in model.get_config()["layers"] if e["class_name"] == "KerasOperation"]
    assert {e["config"]["op"] for e in ops} == {"multiply", "add", "relu", "sum",
                                                 "true_divide"}


def test_keras_file_round_trip_with_slices(tmp_path):
    x = keras.Input((4,))
    out = keras.layers.Dense(2)(x[..., 1:3] * 0.5) + keras.ops.max(x, axis=1, keepdims=True)
    model = keras.Model(x, out)
    path = str(tmp_path / "m.keras")
    model.save(path)
    back = keras.models.load_model(path)
    np.testing.assert_allclose(back.predict(X, verbose=0), model.predict(X, verbose=0),
                               rtol=1e-6)


def test_loads_keras3_file_with_operation_nodes():
    model = keras.models.load_model(os.path.join(FIXTURES, "ops_nodes.keras"))
    ref = np.load(os.path.join(FIXTURES, "ops_nodes_expected.npz"))
    z, c = model.predict(ref["x"], verbose=0)
    np.testing.assert_allclose(z, ref["z"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(c, ref["c"], rtol=1e-5, atol=1e-6)


def test_twinflow_array_ops_on_keras_tensors(tmp_path):
    x = keras.Input((4,))
    parts = [tw.concat([x, -x], axis=-1), tw.stack([x, x], axis=1)[:, 0],
             tw.expand_dims(x, 1)[:, 0],
             tw.cast(tw.cast(x > 0.0, "int32"), "float32"), tw.abs(x),
             tw.where(x > 0.0, x, 0.0 * x)]
    model = keras.Model(x, parts)
    want = [np.concatenate([X, -X], -1), X, X, (X > 0).astype("float32"), abs(X),
            np.where(X > 0, X, 0)]
    path = str(tmp_path / "a.keras")
    model.save(path)
    for m in (model, keras.models.load_model(path)):
        for got, ref in zip(m.predict(X, verbose=0), want):
            np.testing.assert_allclose(got, ref, rtol=1e-6)


def test_twinflow_op_without_keras_equivalent_is_a_clear_error():
    x = keras.Input((4,))
    with pytest.raises(TypeError, match="KerasTensor"):
        tw.linalg.matmul(x, x)
    with pytest.raises(ValueError, match="does not provide"):
        keras.ops.operation.KerasOperation("no_such_op")(X)


def test_default_input_names_and_inputs_list():
    a, b = keras.Input((1,)), keras.Input((1,))
    assert a.name.startswith("input_layer") and b.name.startswith("input_layer")
    assert a.name != b.name
    model = keras.Model(a, a * 2.0)
    assert model.inputs == [a] and model.input is a
    assert isinstance(model.outputs, list) and len(model.outputs) == 1
    two = keras.Model({"p": a, "q": b}, {"o": a + b})
    assert two.inputs == [a, b] and isinstance(two.input, dict)
    assert isinstance(two.outputs, list)


def _embedding_lstm(mask_zero: bool, through_op: bool):
    keras.utils.set_random_seed(0)
    inp = keras.Input((4,), dtype="int32")
    e = keras.layers.Embedding(5, 3, mask_zero=mask_zero)(inp)
    return keras.Model(inp, keras.layers.LSTM(2)(e * 2.0 if through_op else e))


def test_mask_is_not_carried_through_an_operation_node(tmp_path):
    # Keras 3.15 (checked on its TensorFlow backend): an operation node such as ``x * 2.0``
    # drops the Embedding's mask, so the LSTM after it sees every step; a layer keeps it.
    x = np.array([[1, 2, 0, 0], [3, 0, 0, 0]])
    masked_op = _embedding_lstm(True, True)
    assert getattr(masked_op.layers[-1].input, "_keras_mask", None) is None
    out = masked_op.predict(x, verbose=0)
    np.testing.assert_allclose(out, _embedding_lstm(False, True).predict(x, verbose=0))
    direct = _embedding_lstm(True, False).predict(x, verbose=0)
    assert not np.allclose(direct, _embedding_lstm(False, False).predict(x, verbose=0))
    path = str(tmp_path / "m.keras")
    masked_op.save(path)
    np.testing.assert_allclose(keras.models.load_model(path).predict(x, verbose=0), out,
                               rtol=1e-6)
