"""Layer options that used to be accepted and ignored: activity_regularizer (values checked
against Keras 3.15), Layer(autocast=, dynamic=, weights=), add_weight's keywords, Embedding's
constraint."""
import numpy as np
import pytest

import twinflow as tf

layers = tf.keras.layers
X = (np.arange(8, dtype=np.float32).reshape(4, 2) / 10)
# Keras 3.15: Dense(3, activity_regularizer="l2", kernel_initializer="ones") on X
KERAS_L2_LOSS = 0.02069999650120735


def _dense():
    return layers.Dense(3, activity_regularizer="l2", kernel_initializer="ones")


def test_activity_regularizer_adds_keras3s_batch_scaled_loss_eagerly_and_traced():
    d = _dense()
    d(X)
    np.testing.assert_allclose([float(v) for v in d.losses], [KERAS_L2_LOSS], rtol=1e-6)

    @tf.function
    def losses(x):
        d(x)
        return d.losses
    np.testing.assert_allclose([float(v) for v in losses(X)], [KERAS_L2_LOSS], rtol=1e-6)
    d(X)
    assert len(d.losses) == 1  # cleared on each call


def test_activity_regularizer_joins_the_training_loss_and_round_trips_its_config():
    d = _dense()
    inp = tf.keras.Input((2,))
    m = tf.keras.Model(inp, d(inp))
    m.compile(loss="mse", optimizer="sgd")
    # Keras 3.15 evaluates 0.7106999 (mse 0.69 + the activity loss)
    np.testing.assert_allclose(m.evaluate(X, np.zeros((4, 3)), batch_size=4, verbose=0),
                               0.7106999158859253, rtol=1e-6)
    again = layers.Dense.from_config(d.get_config())
    again(X)
    np.testing.assert_allclose(float(again.losses[0]) > 0, True)
    assert "activity_regularizer" not in layers.Dense(2).get_config()


def test_activity_regularizer_on_every_output_of_any_layer():
    class Two(layers.Layer):
        def call(self, x):
            return [x, 2 * x, tf.cast(x * 10, tf.int32)]

    t = Two(activity_regularizer="l1")
    t(X)
    # Keras 3.15: [0.007, 0.014] (integer outputs are skipped here: no gradient)
    np.testing.assert_allclose([float(v) for v in t.losses], [0.007, 0.014], rtol=1e-5)
    for layer in (layers.Conv1D(2, 1, activity_regularizer="l1"),
                  layers.Embedding(5, 2, activity_regularizer="l1"),
                  layers.LSTM(2, activity_regularizer="l1")):
        layer(np.ones((2, 3, 1), np.float32) if not isinstance(layer, layers.Embedding)
              else np.ones((2, 3), np.int32))
        assert len(layer.losses) == 1, layer


def test_embedding_constraint_projects_after_each_update():
    e = layers.Embedding(3, 2, embeddings_initializer="ones", embeddings_constraint="non_neg")
    e(np.array([0]))
    assert e.embeddings.constraint is not None
    assert e.get_config()["embeddings_constraint"]["class_name"] == "NonNeg"
    opt = tf.keras.optimizers.SGD(10.0)
    opt.apply_gradients([(tf.ones((3, 2)), e.embeddings)])
    assert e.embeddings.numpy().min() == 0.0


def test_layer_weights_keyword_sets_the_initial_weights():
    w = [np.full((2, 3), 2.0, np.float32), np.ones(3, np.float32)]
    d = layers.Dense(3, weights=w)
    np.testing.assert_allclose(d(np.ones((1, 2), np.float32)).numpy(), [[5.0, 5.0, 5.0]])


def test_dynamic_layer_makes_the_model_run_eagerly():
    inp = tf.keras.Input((2,))
    m = tf.keras.Model(inp, layers.Dense(1, dynamic=True)(inp))
    m.compile(loss="mse", optimizer="sgd")
    assert m.dynamic and m.run_eagerly
    m2 = tf.keras.Sequential([inp, layers.Dense(1)])
    m2.compile(loss="mse", optimizer="sgd")
    assert not m2.run_eagerly


def test_layer_autocast_false_keeps_input_dtype():
    class Echo(layers.Layer):
        def call(self, x):
            return x
    x = np.ones((1, 2), np.float32)
    assert Echo(dtype="mixed_float16")(x).dtype == tf.float16
    assert Echo(dtype="mixed_float16", autocast=False)(x).dtype == tf.float32
    assert Echo(autocast=False).get_config()["autocast"] is False


def test_add_weight_autocast_false_reads_in_its_own_dtype():
    class L(layers.Layer):
        def build(self, shape):
            self.a = self.add_weight(shape=(2,), initializer="ones")
            self.b = self.add_weight(shape=(2,), initializer="ones", autocast=False)

        def call(self, x):
            return tf.identity(self.a), tf.identity(self.b)
    a, b = L(dtype="mixed_float16")(np.ones((1, 2), np.float32))
    assert (a.dtype, b.dtype) == (tf.float16, tf.float32)


def test_add_weight_takes_keras3s_positional_form_and_refuses_unknown_keywords():
    layer = layers.Layer()
    v = layer.add_weight((2, 3), "ones")
    assert v.shape.as_list() == [2, 3] and v.numpy().sum() == 6
    assert layer.add_weight("w", (2,)).shape.as_list() == [2]   # tf.keras 2's order
    for kw in ("experimental_autocast", "getter", "partitioner", "caching_device"):
        with pytest.raises(TypeError, match=kw):
            layer.add_weight(shape=(2,), **{kw: None})
    with pytest.raises(ValueError, match="aggregation"):
        layer.add_weight(shape=(2,), aggregation="bogus")
    assert layer.add_weight(shape=(2,), aggregation="sum").aggregation == "sum"


def test_overwrite_with_gradient_weights_take_their_gradient():
    layer = layers.Layer()
    scale = layer.add_weight(shape=(2,), initializer="ones", overwrite_with_gradient=True)
    w = layer.add_weight(shape=(2,), initializer="ones")
    opt = tf.keras.optimizers.SGD(0.5)
    opt.apply_gradients([(tf.constant([3.0, 4.0]), scale), (tf.constant([2.0, 2.0]), w)])
    np.testing.assert_allclose(scale.numpy(), [3.0, 4.0])   # Keras 3: assigned, not stepped
    np.testing.assert_allclose(w.numpy(), [0.0, 0.0])
    assert int(opt.iterations.numpy()) == 1
    accumulating = tf.keras.optimizers.SGD(0.5, gradient_accumulation_steps=2)
    with pytest.raises(NotImplementedError, match="accumulation"):
        accumulating.apply_gradients([(tf.constant([3.0, 4.0]), scale)])
