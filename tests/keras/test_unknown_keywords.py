"""fit/evaluate/predict/compile/apply_gradients refuse keywords they do not take, as Keras 3."""
import numpy as np
import pytest

import twinflow as tf


def _model():
    m = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1)])
    m.compile(optimizer="sgd", loss="mse")
    return m


X, Y = np.ones((4, 3), np.float32), np.ones((4, 1), np.float32)


def test_fit_refuses_keras2_keywords():
    with pytest.raises(TypeError, match="unexpected keyword argument 'workers'"):
        _model().fit(X, Y, epochs=1, verbose=0, workers=4)


def test_evaluate_refuses_unknown_keywords_with_keras3s_message():
    with pytest.raises(ValueError, match="Arguments not recognized"):
        _model().evaluate(X, Y, verbose=0, use_multiprocessing=True)


def test_predict_and_compile_refuse_unknown_keywords():
    m = _model()
    with pytest.raises(TypeError, match="'max_queue_size'"):
        m.predict(X, verbose=0, max_queue_size=3)
    with pytest.raises(TypeError, match="'sample_weight_mode'"):
        m.compile(optimizer="sgd", loss="mse", sample_weight_mode="temporal")


def test_apply_gradients_takes_tf_keras2s_aggregate_flag_and_refuses_others():
    v = tf.Variable([1.0, 2.0])
    opt = tf.keras.optimizers.SGD(0.5)
    opt.apply_gradients([(tf.constant([1.0, 1.0]), v)], experimental_aggregate_gradients=False)
    np.testing.assert_allclose(v.numpy(), [0.5, 1.5])
    with pytest.raises(TypeError, match="'colocate'"):
        opt.apply_gradients([(tf.constant([1.0, 1.0]), v)], colocate=True)


def test_save_refuses_what_it_would_ignore(tmp_path):
    m = _model()
    with pytest.raises(ValueError, match="not supported: \\['signatures'\\]"):
        m.save(str(tmp_path / "m.keras"), signatures=None)
    with pytest.raises(ValueError, match="save_format"):
        m.save(str(tmp_path / "dir"), save_format="tf")
    with pytest.raises(NotImplementedError, match="include_optimizer"):
        m.save(str(tmp_path / "m.keras"), include_optimizer=False)
    m.save(str(tmp_path / "m.keras"), save_format="keras", include_optimizer=True)
    assert (tmp_path / "m.keras").exists()


def test_keras_initializers_refuse_keywords_keras3_does_not_take():
    # Keras 3.15: Initializer.__call__(self, shape, dtype=None); TypeError for the rest
    for init in (tf.keras.initializers.Zeros(), tf.keras.initializers.GlorotUniform()):
        with pytest.raises(TypeError, match="partition_info"):
            init((2, 2), partition_info=None)
