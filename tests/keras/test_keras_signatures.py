"""Keras 3.15's constructor arguments that twinflow now takes (values checked against Keras)."""
import inspect

import numpy as np
import pytest

import twinflow as tw

Y = [1, 2, 0]
P = [[.1, .8, .1], [.2, .2, .6], [.3, .3, .4]]


def test_sparse_crossentropy_ignore_class_matches_keras():
    loss = tw.keras.losses.SparseCategoricalCrossentropy(ignore_class=0)
    np.testing.assert_allclose(float(loss(Y, P)), 0.3669845, rtol=1e-5)  # mean over kept
    metric = tw.keras.metrics.SparseCategoricalCrossentropy(ignore_class=0)
    metric.update_state(Y, P)
    np.testing.assert_allclose(float(metric.result()), 0.2446564, rtol=1e-5)


def test_loss_dtype_and_keras_argument_order():
    out = tw.keras.losses.MeanSquaredError(dtype="float64")([1.0], [2.0])
    assert out.dtype == tw.float64 and float(out) == 1.0
    assert list(inspect.signature(tw.keras.losses.Loss).parameters) == \
        ["name", "reduction", "dtype"]
    assert tw.keras.losses.Hinge().reduction == "sum_over_batch_size"
    np.testing.assert_allclose(
        float(tw.keras.losses.CosineSimilarity(0)([[1.0], [0.0]], [[1.0], [0.0]])), -1.0)


def test_top_k_from_sorted_ids_and_config():
    m = tw.keras.metrics.SparseTopKCategoricalAccuracy(k=1, from_sorted_ids=True)
    m.update_state([1, 2], [[1, 0], [0, 1]])
    assert float(m.result()) == 0.5
    m = tw.keras.metrics.TopKCategoricalAccuracy(2)
    assert m.get_config()["k"] == 2
    assert type(m).from_config(m.get_config()).get_config() == m.get_config()
    with pytest.raises(TypeError, match="Hinge"):
        tw.keras.metrics.Hinge(foo=1)


def test_at_metrics_take_all_arguments_positionally():
    m = tw.keras.metrics.PrecisionAtRecall(0.5, 10, None, "p")
    assert m.get_config()["num_thresholds"] == 10 and m.name == "p"
    with pytest.raises(TypeError, match="recall"):
        tw.keras.metrics.PrecisionAtRecall()


def test_initializer_fan_axes():
    init = tw.keras.initializers.GlorotUniform(seed=1, input_axes=[0], output_axes=[1, 2])
    w = init((4, 3, 2)).numpy()
    assert np.abs(w).max() <= np.sqrt(6.0 / (4 + 6))
    assert type(init).from_config(init.get_config()).get_config() == init.get_config()
    with pytest.raises(ValueError, match="output_axes"):
        tw.keras.initializers.HeNormal(input_axes=[0])


def test_backend_wrappers_have_keras_signatures():
    K = tw.keras.backend
    assert list(inspect.signature(K.maximum).parameters) == ["x", "y"]
    assert float(K.softplus(x=0.0)) == pytest.approx(np.log(2.0))
    with pytest.raises(TypeError):
        K.abs(y=1.0)
    assert K.result_type("int32", float) == "float32"
