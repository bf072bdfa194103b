"""Model options that used to be accepted and ignored: call(mask=), save_weights(overwrite=,
options=), load_weights(by_name=)."""
import os

import numpy as np
import pytest

import twinflow as tf

X = np.array([[1.0, 2.0, 3.0]], np.float32)[..., None]
MASK = np.array([[True, True, False]])


def _lstm_model():
    inp = tf.keras.Input((3, 1))
    lstm = tf.keras.layers.LSTM(2, kernel_initializer="ones", recurrent_initializer="ones")
    return tf.keras.Model(inp, lstm(inp)), lstm


def test_functional_call_passes_the_mask_to_its_layers_eagerly_and_traced():
    model, lstm = _lstm_model()
    want = lstm(X, mask=MASK).numpy()
    assert not np.allclose(model(X).numpy(), want)
    np.testing.assert_allclose(model(X, mask=MASK).numpy(), want, rtol=1e-6)
    traced = tf.function(lambda x: model(x, mask=tf.constant(MASK)))
    np.testing.assert_allclose(traced(tf.constant(X)).numpy(), want, rtol=1e-6)


def _saved(tmp_path):
    model, _ = _lstm_model()
    path = os.path.join(tmp_path, "w")
    model.save_weights(path)
    return model, path


def test_save_weights_honours_overwrite_and_options(tmp_path):
    model, path = _saved(tmp_path)
    with pytest.raises(FileExistsError, match="overwrite=False"):
        model.save_weights(path, overwrite=False)
    written = []
    opts = tf.train.CheckpointOptions(experimental_write_callbacks=[written.append])
    model.save_weights(path, options=opts)
    assert written == [path]
    with pytest.raises(TypeError, match="CheckpointOptions"):
        model.save_weights(path, options="fast")


def test_load_weights_refuses_by_name(tmp_path):
    model, path = _saved(tmp_path)
    with pytest.raises(NotImplementedError, match="by_name"):
        model.load_weights(path, by_name=True)


def test_keras_function_passes_the_mask_on():
    inp = tf.keras.Input((3, 1))
    lstm = tf.keras.layers.LSTM(2, kernel_initializer="ones", recurrent_initializer="ones")
    fn = tf.keras.Function(inp, lstm(inp))
    np.testing.assert_allclose(fn(X, mask=MASK).numpy(), lstm(X, mask=MASK).numpy(), rtol=1e-6)
