"""keras.random, keras.tree, serialize/deserialize helpers, ThresholdedReLU, models.save_model,
keras.config."""
from __future__ import annotations

import numpy as np
import pytest

import twinflow as tw

from .layers.checks import check_layer

keras = tw.keras
R = keras.random


def test_integer_seeds_repeat_and_seed_generators_advance():
    np.testing.assert_array_equal(R.normal((3,), seed=4).numpy(), R.normal((3,), seed=4).numpy())
    g = R.SeedGenerator(7)
    a, b = R.uniform((3,), seed=g).numpy(), R.uniform((3,), seed=g).numpy()
    assert not np.array_equal(a, b)
    g2 = R.SeedGenerator(7)
    np.testing.assert_array_equal(R.uniform((3,), seed=g2).numpy(), a)
    f = tw.function(lambda: R.normal((2,), seed=g))
    assert not np.array_equal(f().numpy(), f().numpy())    # the state advances in a graph too
    with pytest.raises(ValueError, match="seed"):
        R.normal((2,), seed="x")


def test_distributions_have_the_right_support_and_moments():
    n = (4000,)
    u = R.uniform(n, 2.0, 5.0, seed=1).numpy()
    assert u.min() >= 2.0 and u.max() < 5.0 and abs(u.mean() - 3.5) < 0.1
    z = R.normal(n, 1.0, 2.0, seed=2).numpy()
    assert abs(z.mean() - 1.0) < 0.15 and abs(z.std() - 2.0) < 0.15
    t = R.truncated_normal(n, seed=3).numpy()
    assert np.abs(t).max() <= 2.0
    i = R.randint(n, 3, 7, seed=4).numpy()
    assert i.dtype == np.int32 and set(np.unique(i)) == {3, 4, 5, 6}
    gm = R.gamma(n, 3.0, seed=5).numpy()
    assert abs(gm.mean() - 3.0) < 0.2
    bt = R.beta(n, 2.0, 6.0, seed=6).numpy()
    assert abs(bt.mean() - 0.25) < 0.02 and bt.min() > 0 and bt.max() < 1
    bn = R.binomial(n, 10, 0.3, seed=7).numpy()
    assert abs(bn.mean() - 3.0) < 0.15
    c = R.categorical(np.log([[0.1, 0.9]]), 2000, seed=8).numpy()
    assert abs(c.mean() - 0.9) < 0.05
    d = R.dropout(tw.ones([4000]), 0.25, seed=9).numpy()
    np.testing.assert_allclose(np.unique(d), [0.0, 1.0 / 0.75], rtol=1e-6)
    assert abs((d == 0).mean() - 0.25) < 0.03
    s = R.shuffle(np.arange(10), seed=10).numpy()
    assert sorted(s) == list(range(10)) and list(s) != list(range(10))


def test_tree():
    T = keras.tree
    s = {"b": [1, (2, 3)], "a": 4}
    assert T.flatten(s) == [4, 1, 2, 3]
    assert T.flatten_with_path(s)[1] == (("b", 0), 1)
    assert T.map_structure(lambda v: v * 10, s) == {"b": [10, (20, 30)], "a": 40}
    assert T.pack_sequence_as(s, [0, 1, 2, 3]) == {"a": 0, "b": [1, (2, 3)]}
    assert T.lists_to_tuples([1, [2]]) == (1, (2,))
    assert T.is_nested([1]) and not T.is_nested(1)
    assert T.traverse(lambda v: T.MAP_TO_NONE if v == 2 else None, [1, [2, 3]]) == [1, [None, 3]]
    assert T.map_shape_structure(lambda sh: len(sh), {"x": (None, 3), "y": [(1, 2, 3)]}) == \
        {"x": 2, "y": [3]}
    T.assert_same_paths({"a": 1}, {"a": 2})
    with pytest.raises(ValueError):
        T.assert_same_paths({"a": 1}, {"b": 1})
    with pytest.raises((ValueError, TypeError)):
        T.assert_same_structure([1, 2], [1])


def test_serialize_round_trips_and_new_activations():
    m = keras.metrics.deserialize(keras.metrics.serialize(keras.metrics.Mean(name="avg")))
    assert isinstance(m, keras.metrics.Mean) and m.name == "avg"
    loss = keras.losses.deserialize(keras.losses.serialize(keras.losses.Huber(delta=2.0)))
    assert isinstance(loss, keras.losses.Huber) and loss.get_config()["delta"] == 2.0
    assert keras.losses.deserialize("mse") is keras.losses.mean_squared_error
    init = keras.initializers.deserialize(keras.initializers.serialize(
        keras.initializers.RandomNormal(stddev=0.5)))
    assert init.get_config()["stddev"] == 0.5
    reg = keras.regularizers.deserialize({"class_name": "L2", "config": {"l2": 0.1}})
    assert abs(float(reg(tw.ones([2]))) - 0.2) < 1e-6
    out = keras.activations.get("sparsemax")(tw.constant([[2.0, 0.0, 0.0]]))
    np.testing.assert_allclose(out.numpy(), [[1.0, 0.0, 0.0]])
    np.testing.assert_allclose(keras.activations.hard_tanh(tw.constant([-3.0, 0.5])).numpy(),
                               [-1.0, 0.5])


def test_thresholded_relu():
    x = np.random.default_rng(0).normal(size=(3, 4)).astype(np.float32)
    check_layer(lambda **kw: keras.layers.ThresholdedReLU(0.3, **kw), [x],
                lambda xs, w: np.where(xs[0] > 0.3, xs[0], 0.0), grad=False, fit=False)


def test_models_save_model_and_config(tmp_path):
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
    keras.models.save_model(model, tmp_path / "s.keras")
    assert keras.models.load_model(tmp_path / "s.keras").count_params() == 8
    with pytest.raises(ValueError, match="unsupported"):
        keras.models.save_model(model, tmp_path / "t.keras", include_optimizer=False)
    assert keras.config.backend() == "tensorflow" and keras.config.floatx() == "float32"
    assert not keras.config.is_flash_attention_enabled()
    with pytest.raises(ValueError, match="Flash attention"):
        keras.config.enable_flash_attention()
    with pytest.raises(ValueError, match="jax"):
        keras.config.set_backend("jax")


def test_utils_dtype_names_and_session():
    u = keras.utils
    assert u.standardize_dtype("float16") == "float16"
    assert u.standardize_dtype(np.float64) == "float64"
    assert u.standardize_dtype(tw.constant([1])) == "int32"
    assert u.is_keras_tensor(keras.Input((2,))) and not u.is_keras_tensor(tw.ones([2]))
    u.clear_session()
    assert keras.layers.Dense(1).name == "dense"


def test_config_caps_epochs_and_steps():
    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
    model.compile("sgd", "mse")
    keras.config.set_max_epochs(2)
    keras.config.set_max_steps_per_epoch(3)
    try:
        hist = model.fit(np.ones((40, 2), np.float32), np.ones((40, 1), np.float32),
                         batch_size=4, epochs=10, verbose=0)
        assert keras.config.max_epochs() == 2 and keras.config.max_steps_per_epoch() == 3
    finally:
        keras.config.set_max_epochs(None)
        keras.config.set_max_steps_per_epoch(None)
    assert len(hist.history["loss"]) == 2 and int(model.optimizer.iterations.numpy()) == 6
    with pytest.raises(ValueError, match="positive"):
        keras.config.set_max_epochs(0)


def test_serialize_keras_object_round_trips():
    u = keras.utils
    for obj in [keras.layers.Dense(3, name="d"), keras.optimizers.Adam(0.25),
                keras.losses.Huber(delta=3.0), keras.metrics.Mean(name="m"),
                keras.initializers.Constant(2.0), keras.regularizers.L2(0.5),
                keras.DTypePolicy("mixed_float16")]:
        s = u.serialize_keras_object(obj)
        assert s["class_name"] == type(obj).__name__ and "module" in s
        again = u.deserialize_keras_object(s)
        assert type(again) is type(obj)
        if hasattr(obj, "get_config"):
            assert again.get_config() == obj.get_config()
    assert u.serialize_keras_object("relu") == "relu"
    with pytest.raises(TypeError, match="serialize"):
        u.serialize_keras_object(lambda t: t)
    with pytest.raises(ValueError, match="Unknown layer"):
        u.deserialize_keras_object({"class_name": "NoSuchThing", "config": {}})


def test_tf_keras_2_backend_functions():
    K = keras.backend
    v = tw.Variable([1.0, 2.0])
    K.update_add(v, [1.0, 1.0])
    K.update_sub(v, [0.5, 0.5])
    K.moving_average_update(v, [0.0, 0.0], 0.5)
    np.testing.assert_allclose(v.numpy(), [0.75, 1.25])
    K.update(v, [3.0, 4.0])
    np.testing.assert_allclose(v.numpy(), [3.0, 4.0])
    assert float(K.switch(tw.constant(False), lambda: 1.0, lambda: 2.0)) == 2.0
    np.testing.assert_array_equal(K.switch(tw.constant([True, False]), tw.constant([1.0, 2.0]),
                                           tw.constant([3.0, 4.0])).numpy(), [1.0, 4.0])
    assert float(K.foldl(lambda a, x: a + x, tw.constant([1.0, 2.0, 3.0]))) == 6.0
    assert float(K.foldr(lambda a, x: a * 2 + x, tw.constant([1.0, 2.0]))) == 5.0
    np.testing.assert_array_equal(K.map_fn(lambda x: x * 2, tw.constant([1.0, 2.0])).numpy(),
                                  [2.0, 4.0])
    assert K.cast_to_floatx([1, 2]).dtype == tw.float32
    assert K.is_float_dtype("float16") and K.is_int_dtype("int8")
    assert K.standardize_dtype(None) == "float32"
    assert K.temporal_padding(tw.ones([1, 2, 1]), (1, 2)).shape == (1, 5, 1)
    b = K.random_bernoulli((2000,), 0.3, seed=1).numpy()
    assert set(np.unique(b)) <= {0.0, 1.0} and abs(b.mean() - 0.3) < 0.05
    assert np.abs(K.truncated_normal((100,), seed=2).numpy()).max() <= 2.0
    g = tw.function(lambda x: K.gradients(tw.reduce_sum(x * x), [x])[0])(tw.constant([1.0, 3.0]))
    np.testing.assert_allclose(g.numpy(), [2.0, 6.0])
