"""Keras layers, Sequential, functional and subclassed models, summary, initializers."""
from __future__ import annotations

import numpy as np
import pytest

import twinflow as tw

K = tw.keras
L = tw.keras.layers


def test_dense_matches_numpy_and_names_weights():
    d = L.Dense(3, activation="relu", kernel_initializer="ones", bias_initializer="zeros")
    x = np.arange(8, dtype=np.float32).reshape(2, 4) - 3
    y = d(x)
    np.testing.assert_allclose(y.numpy(), np.maximum(x @ np.ones((4, 3)), 0), rtol=1e-6)
    assert [v.name for v in d.weights] == [f"{d.name}/kernel:0", f"{d.name}/bias:0"]
    assert d.count_params() == 15


def test_dense_on_rank3_inputs():
    d = L.Dense(5)
    assert d(np.ones((2, 3, 4), np.float32)).shape == (2, 3, 5)


def test_conv_pool_flatten_shapes():
    x = np.random.rand(2, 8, 8, 1).astype(np.float32)
    c = L.Conv2D(16, [3, 3], activation="relu")
    y = c(x)
    assert y.shape == (2, 6, 6, 16)
    assert c.kernel.shape == (3, 3, 1, 16)
    assert L.Conv2D(4, 3, padding="same", strides=2)(x).shape == (2, 4, 4, 4)
    assert L.MaxPooling2D()(y).shape == (2, 3, 3, 16)
    assert L.AveragePooling2D(3)(y).shape == (2, 2, 2, 16)
    assert L.GlobalAveragePooling2D()(y).shape == (2, 16)
    np.testing.assert_allclose(L.GlobalAveragePooling2D()(y).numpy(),
                               y.numpy().mean(axis=(1, 2)), rtol=1e-5)
    assert L.Flatten()(y).shape == (2, 576)
    assert L.Reshape((36, 16))(y).shape == (2, 36, 16)
    assert L.Reshape((-1, 4))(y).shape == (2, 144, 4)


def test_batch_norm_training_vs_inference():
    bn = L.BatchNormalization(momentum=0.5)
    x = np.random.RandomState(0).normal(3.0, 2.0, (64, 4)).astype(np.float32)
    y = bn(x, training=True).numpy()
    np.testing.assert_allclose(y.mean(0), 0, atol=1e-4)
    np.testing.assert_allclose(y.std(0), 1, atol=1e-2)
    np.testing.assert_allclose(bn.moving_mean.numpy(), 0.5 * x.mean(0), rtol=1e-4)
    y_inf = bn(x, training=False).numpy()
    expected = (x - bn.moving_mean.numpy()) / np.sqrt(bn.moving_variance.numpy() + 1e-3)
    np.testing.assert_allclose(y_inf, expected, rtol=1e-4, atol=1e-4)
    assert len(bn.trainable_weights) == 2 and len(bn.non_trainable_weights) == 2


def test_dropout_only_while_training():
    d = L.Dropout(0.5, seed=1)
    x = np.ones((100, 10), np.float32)
    np.testing.assert_array_equal(d(x).numpy(), x)
    y = d(x, training=True).numpy()
    assert set(np.unique(y)) <= {0.0, 2.0}
    assert 0.3 < (y == 0).mean() < 0.7


def test_dropout_noise_shape_with_none_entries_takes_them_from_the_input():
    d = L.Dropout(0.5, noise_shape=(None, 1, 1), seed=3)  # one decision per sample (Keras)
    x = np.ones((64, 3, 2), np.float32)
    for y in (d(x, training=True).numpy(),
              tw.function(lambda v: d(v, training=True))(tw.constant(x)).numpy(),
              tw.function(lambda v: d(v, training=True),
                          input_signature=[tw.TensorSpec([None, 3, 2])])(x).numpy()):
        per_sample = y.reshape(64, -1)
        assert (per_sample.min(axis=1) == per_sample.max(axis=1)).all()
        assert 0 < (per_sample[:, 0] == 0).sum() < 64


def test_embedding_activation():
    e = L.Embedding(10, 3)
    out = e(np.array([[1, 2], [3, 4]]))
    assert out.shape == (2, 2, 3)
    np.testing.assert_array_equal(out.numpy()[0, 0], e.embeddings.numpy()[1])
    np.testing.assert_allclose(L.Activation("tanh")(np.array([0.5], np.float32)).numpy(),
                               np.tanh([0.5]), rtol=1e-6)


def test_sequential_lazy_build_and_summary():
    model = K.Sequential([L.Dense(4, activation="relu"), L.Dense(2)])
    assert not model.weights
    model(np.ones((3, 5), np.float32))
    assert model.built and len(model.trainable_variables) == 4
    lines: list = []
    model.summary(print_fn=lines.append)
    text = "\n".join(lines)
    assert "Total params: 34" in text and "Trainable params: 34" in text


def test_sequential_with_input_shape_builds_at_once():
    model = K.Sequential([L.Conv2D(16, [3, 3], activation="relu", input_shape=(None, None, 1)),
                          L.Conv2D(16, [3, 3], activation="relu"),
                          L.GlobalAveragePooling2D(), L.Dense(10)])
    assert model.built
    lines: list = []
    model.summary(print_fn=lines.append)
    assert "(None, None, None, 16)" in "\n".join(lines)
    assert model(np.ones((1, 8, 8, 1), np.float32)).shape == (1, 10)
    assert model.count_params() == 160 + 2320 + 170


def test_functional_model():
    inputs = K.Input(shape=(4,))
    h = L.Dense(8, activation="relu")(inputs)
    outputs = L.Dense(2)(h)
    model = K.Model(inputs=inputs, outputs=outputs)
    assert outputs.shape.as_list() == [None, 2]
    assert len(model.layers) == 3
    x = np.ones((5, 4), np.float32)
    expected = model.layers[2](model.layers[1](x))
    np.testing.assert_allclose(model(x).numpy(), expected.numpy(), rtol=1e-6)
    lines: list = []
    model.summary(print_fn=lines.append)
    assert "(None, 8)" in "\n".join(lines)


def test_functional_layers_in_keras_order_and_input_layer_name():
    # Keras 3 lists layers by depth from the outputs (deepest first), then by first visit
    # of a walk from the outputs; an unnamed Input is "input_layer" (checked with Keras 3.15)
    K.backend.clear_session()
    inp = K.Input((4,))
    a = L.Dense(3, name="a")(inp)
    b2 = L.Dense(3, name="b2")(L.Dense(3, name="b")(inp))
    s = L.Add(name="s")([a, b2])
    shared = L.Dense(3, name="shared")
    model = K.Model(inp, L.Concatenate(name="cat")([shared(s), shared(a)]))
    assert [x.name for x in model.layers] == ["input_layer", "b", "a", "b2", "s", "shared",
                                               "cat"]
    x = np.ones((2, 4), np.float32)
    want = shared(s_ref := model.get_layer("s")([model.get_layer("a")(x), model.get_layer("b2")(
        model.get_layer("b")(x))]))
    np.testing.assert_allclose(model(x).numpy()[:, :3], want.numpy(), rtol=1e-6)
    assert s_ref.shape == (2, 3)


def test_functional_two_inputs():
    a, b = K.Input(shape=(3,)), K.Input(shape=(3,))
    out = L.Dense(1)(L.Add()([a, b]))
    model = K.Model([a, b], out)
    y = model([np.ones((2, 3), np.float32), np.ones((2, 3), np.float32)])
    assert y.shape == (2, 1)


def test_subclassed_model_with_training_arg():
    class Net(K.Model):
        def __init__(self):
            super().__init__()
            self.d1 = L.Dense(4)
            self.drop = L.Dropout(0.99, seed=3)
            self.d2 = L.Dense(1)

        def call(self, inputs, training=None):
            return self.d2(self.drop(self.d1(inputs), training=training))

    net = Net()
    x = np.ones((2, 3), np.float32)
    y1, y2 = net(x).numpy(), net(x, training=False).numpy()
    np.testing.assert_array_equal(y1, y2)
    assert len(net.trainable_variables) == 4
    assert [type(s).__name__ for s in net.layers] == ["Dense", "Dropout", "Dense"]


def test_subclassed_model_tracks_plain_variables():
    class Linear(K.Model):
        def __init__(self):
            super().__init__()
            self.W = tw.Variable(5., name="weight")
            self.B = tw.Variable(10., name="bias")

        def call(self, inputs):
            return inputs * self.W + self.B

    m = Linear()
    assert [v.name for v in m.trainable_variables] == ["weight:0", "bias:0"]
    assert float(m(tw.constant(2.0))) == 20.0


def test_layer_names_are_unique():
    K.backend.clear_session()
    assert [L.Dense(1).name for _ in range(3)] == ["dense", "dense_1", "dense_2"]
    assert L.Conv2D(1, 1).name == "conv2d"


def test_set_and_get_weights():
    a, b = L.Dense(2), L.Dense(2)
    a.build((None, 3))
    b.build((None, 3))
    b.set_weights(a.get_weights())
    np.testing.assert_array_equal(a.kernel.numpy(), b.kernel.numpy())
    with pytest.raises(ValueError, match="shape"):
        b.set_weights([np.zeros((4, 2)), np.zeros(2)])


def test_initializers_seeded_and_scaled():
    g = K.initializers.GlorotUniform(seed=3)
    a, b = g((100, 50)).numpy(), g((100, 50)).numpy()
    np.testing.assert_array_equal(a, b)
    limit = np.sqrt(6 / 150)
    assert np.abs(a).max() <= limit and np.abs(a).max() > 0.9 * limit
    h = K.initializers.HeNormal(seed=1)((400, 400)).numpy()
    assert abs(h.std() - np.sqrt(2 / 400)) < 0.01
    assert K.initializers.get("zeros")((2,)).numpy().tolist() == [0, 0]
    assert K.initializers.get("ones")((2,)).numpy().tolist() == [1, 1]
    r = K.initializers.RandomNormal(mean=1.0, stddev=0.1, seed=2)((1000,)).numpy()
    assert abs(r.mean() - 1.0) < 0.02
    tw.random.set_seed(5)
    x1 = L.Dense(3)
    x1.build((None, 2))
    tw.random.set_seed(5)
    x2 = L.Dense(3)
    x2.build((None, 2))
    np.testing.assert_array_equal(x1.kernel.numpy(), x2.kernel.numpy())
    # A seeded initializer ignores the global seed (a stateless op of seed [seed, 0], as Keras).
    tw.random.set_seed(6)
    np.testing.assert_array_equal(g((100, 50)).numpy(), a)
    tw.random.set_seed(None)


def test_unseeded_initializers_take_eager_op_seeds_while_a_graph_is_built():
    tw.random.set_seed(7)
    eager = K.initializers.GlorotUniform()((3, 3)).numpy()
    tw.random.set_seed(7)
    traced = []
    tw.function(lambda: traced.append(K.initializers.GlorotUniform()((3, 3)).numpy()))()
    tw.random.set_seed(None)
    np.testing.assert_array_equal(traced[0], eager)


def test_digits_dataset():
    (x, y), (xt, yt) = K.datasets.digits.load_data()
    assert x.shape == (1437, 8, 8) and xt.shape == (360, 8, 8)
    assert len(x) + len(xt) == 1797
    assert x.max() == 16 and set(np.unique(y)) == set(range(10))


def test_layer_normalization_and_merge_layers():
    x = np.random.RandomState(0).rand(4, 6).astype(np.float32) * 5
    y = L.LayerNormalization(epsilon=1e-6)(x).numpy()
    np.testing.assert_allclose(y.mean(-1), 0, atol=1e-5)
    np.testing.assert_allclose(y.std(-1), 1, atol=1e-3)
    a, b = K.Input((3,)), K.Input((3,))
    two, three = np.full((1, 3), 2, np.float32), np.full((1, 3), 3, np.float32)
    for layer, expected in ((L.Multiply(), 6), (L.Subtract(), -1), (L.Average(), 2.5),
                            (L.Maximum(), 3), (L.Concatenate(), None)):
        out = K.Model([a, b], layer([a, b]))([two, three]).numpy()
        if expected is None:
            assert out.shape == (1, 6)
        else:
            np.testing.assert_allclose(out, np.full((1, 3), expected))


def test_regularizers_add_to_model_losses():
    d = L.Dense(2, kernel_initializer="ones", kernel_regularizer=K.regularizers.l2(0.5))
    model = K.Sequential([d])
    model(np.ones((1, 3), np.float32))
    assert [float(x) for x in model.losses] == [3.0]
    l1 = K.regularizers.get("l1")
    assert float(l1(tw.constant([-1.0, 2.0]))) == pytest.approx(0.03)
    model.compile(K.optimizers.SGD(0.0), "mse")
    logs = model.train_on_batch(np.zeros((2, 3), np.float32), np.zeros((2, 2), np.float32))
    assert logs == pytest.approx(3.0)


def test_mixed_precision_policy_is_recorded():
    K.mixed_precision.set_global_policy("mixed_float16")
    try:
        policy = K.mixed_precision.global_policy()
        assert policy.compute_dtype == "float16" and policy.variable_dtype == "float32"
    finally:
        K.mixed_precision.set_global_policy("float32")
    with pytest.raises(ValueError):
        K.mixed_precision.Policy("float8")
