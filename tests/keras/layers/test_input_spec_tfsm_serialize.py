"""keras.layers.InputSpec (checked on every call), TFSMLayer over an exported SavedModel,
and layers.serialize / deserialize."""
import numpy as np
import pytest

import twinflow as tw

keras = tw.keras
L = keras.layers


class _Checked(L.Layer):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.input_spec = L.InputSpec(ndim=2, axes={-1: 3}, dtype="float32")

    def call(self, x):
        return x * 2.0


def test_input_spec_checks_calls():
    layer = _Checked()
    np.testing.assert_array_equal(layer(np.ones((2, 3), np.float32)).numpy(), 2.0)
    with pytest.raises(ValueError, match="axis -1"):
        layer(np.ones((2, 4), np.float32))
    with pytest.raises(ValueError, match="ndim=2"):
        layer(np.ones((2, 3, 1), np.float32))
    with pytest.raises(ValueError, match="dtype"):
        layer(np.ones((2, 3), np.int32))  # floats are cast first, as in Keras
    with pytest.raises(ValueError, match="axis -1"):
        layer(keras.Input((4,)))  # checked on symbolic inputs too
    spec = L.InputSpec(shape=(None, 3), allow_last_axis_squeeze=True)
    assert L.InputSpec.from_config(spec.get_config()).shape == (None, 3)
    with pytest.raises(ValueError, match="maximum allowed"):
        L.InputSpec(ndim=2, axes={3: 1})


def test_tfsm_layer_wraps_an_exported_model(tmp_path):
    model = keras.Sequential([keras.Input((3,)), L.Dense(2)])
    model.export(str(tmp_path / "sm"))
    layer = L.TFSMLayer(str(tmp_path / "sm"))
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    np.testing.assert_allclose(layer(x).numpy(), model(x).numpy(), rtol=1e-6)
    assert len(layer.trainable_weights) == 2
    inp = keras.Input((3,))
    outer = keras.Model(inp, L.Dense(1)(layer(inp)))
    assert outer.predict(x, verbose=0).shape == (4, 1) and len(outer.trainable_weights) == 4
    graph = tw.function(lambda v: layer(v))(tw.constant(x)).numpy()
    np.testing.assert_allclose(graph, model(x).numpy(), rtol=1e-6)
    again = L.TFSMLayer.from_config(layer.get_config())
    np.testing.assert_allclose(again(x).numpy(), model(x).numpy(), rtol=1e-6)
    frozen = L.TFSMLayer(str(tmp_path / "sm"), call_endpoint="serving_default",
                         trainable=False)
    assert not frozen.trainable_weights and len(frozen.non_trainable_weights) == 2
    assert frozen(x).shape == (4, 2)
    # no training endpoint: training=True calls the inference one, as Keras
    np.testing.assert_allclose(layer(x, training=True).numpy(), model(x).numpy(), rtol=1e-6)
    y = np.ones((4, 1), np.float32)
    outer.compile("sgd", "mse")
    with pytest.raises(NotImplementedError, match="run_eagerly"):
        outer.fit(x, y, epochs=1, verbose=0)
    outer.compile("sgd", "mse", run_eagerly=True)
    before = layer.trainable_weights[0].numpy().copy()
    outer.fit(x, y, epochs=1, verbose=0)
    assert not np.allclose(layer.trainable_weights[0].numpy(), before)  # trained eagerly
    kept = L.TFSMLayer(str(tmp_path / "sm"), trainable=False)
    fixed = keras.Model(inp, L.Dense(1)(kept(inp)))
    fixed.compile("sgd", "mse")
    assert len(fixed.fit(x, y, epochs=1, verbose=0).history["loss"]) == 1
    with pytest.raises(ValueError, match="endpoint 'nope'"):
        L.TFSMLayer(str(tmp_path / "sm"), call_endpoint="nope")


def test_layers_serialize_round_trip():
    dense = L.Dense(3, activation="relu", name="d")
    cfg = L.serialize(dense)
    assert cfg["module"] == "keras.layers" and cfg["class_name"] == "Dense"
    back = L.deserialize(cfg)
    assert isinstance(back, L.Dense) and back.get_config() == dense.get_config()
    assert isinstance(L.deserialize({"class_name": "Dropout", "config": {"rate": 0.2}}),
                      L.Dropout)
    with pytest.raises(ValueError, match="not a layer"):
        L.deserialize({"class_name": "Adam", "config": {}, "module": "keras.optimizers"})
    with pytest.raises(TypeError, match="Layer"):
        L.serialize("dense")
    legacy = keras.legacy.saving.serialize_keras_object(dense)
    assert legacy["class_name"] == "Dense" and "module" not in legacy
    assert keras.utils.legacy.deserialize_keras_object(legacy).get_config() == \
        dense.get_config()
    assert keras.legacy.saving.deserialize_keras_object(
        "relu", module_objects={"relu": keras.activations.relu}) is keras.activations.relu
    with pytest.raises(ValueError, match="Unknown object"):
        keras.legacy.saving.deserialize_keras_object("nope", module_objects={})
