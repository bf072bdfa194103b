"""Mixed precision: float16 compute with float32 variables, and dynamic loss scaling."""
from __future__ import annotations

import numpy as np
import pytest

import twinflow as tw

keras = tw.keras
mp = keras.mixed_precision


@pytest.fixture
def mixed():
    mp.set_global_policy("mixed_float16")
    try:
        yield
    finally:
        mp.set_global_policy("float32")


class Probe(keras.layers.Layer):
    """Records the dtypes it sees inside call."""

    def build(self, input_shape):
        self.w = self.add_weight("w", (input_shape[-1], 2), initializer="ones")

    def call(self, x):
        self.seen = (x.dtype, (x @ self.w).dtype, self.w.dtype)
        return x @ self.w


def test_layers_compute_in_float16_with_float32_variables(mixed):
    layer = Probe()
    assert layer.compute_dtype == "float16" and layer.variable_dtype == "float32"
    assert layer.dtype_policy.name == "mixed_float16" and layer.dtype == "float32"
    out = layer(np.ones((3, 4), np.float32))
    assert layer.seen == (tw.float16, tw.float16, tw.float32)
    assert out.dtype == tw.float16
    with tw.GradientTape() as tape:
        loss = tw.reduce_sum(tw.cast(layer(np.ones((3, 4), np.float32)), tw.float32))
    (g,) = tape.gradient(loss, [layer.w])
    assert g.dtype == tw.float32
    np.testing.assert_allclose(g.numpy(), np.full((4, 2), 3.0))
    # In a graph too.
    out = tw.function(lambda x: layer(x))(tw.ones((2, 4)))
    assert out.dtype == tw.float16
    # A float32 layer inside a mixed model reads its variables as float32.
    dense32 = keras.layers.Dense(2, dtype="float32")
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3), dense32])
    assert model(np.ones((1, 4), np.float32)).dtype == tw.float32
    assert model.layers[0].compute_dtype == "float16"


def test_mixed_bfloat16_computes_in_bfloat16_with_float32_variables():
    mp.set_global_policy("mixed_bfloat16")
    try:
        layer = Probe()
        assert (layer.compute_dtype, layer.variable_dtype) == ("bfloat16", "float32")
        out = layer(np.ones((3, 4), np.float32))
        assert layer.seen == (tw.bfloat16, tw.bfloat16, tw.float32)
        assert out.dtype == tw.bfloat16
        with tw.GradientTape() as tape:
            loss = tw.reduce_sum(tw.cast(layer(np.ones((3, 4), np.float32)), tw.float32))
        (g,) = tape.gradient(loss, [layer.w])
        assert g.dtype == tw.float32
        np.testing.assert_allclose(g.numpy(), np.full((4, 2), 3.0))
        assert tw.function(lambda x: layer(x))(tw.ones((2, 4))).dtype == tw.bfloat16
        # A whole model trains: bfloat16 inside (normalization in float32 as Keras does),
        # float32 variables and outputs of the float32 head; no loss scaling for bfloat16.
        keras.utils.set_random_seed(0)  # seeded weights: "the loss went down" must not be luck
        inp = keras.Input((4,))
        h = keras.layers.Dense(8, activation="relu")(inp)
        h = keras.layers.LayerNormalization()(h)
        probe = Probe()
        out = keras.layers.Dense(2, activation="softmax", dtype="float32")(probe(h))
        model = keras.Model(inp, out)
        model.compile(keras.optimizers.Adam(0.05), "sparse_categorical_crossentropy")
        rng = np.random.default_rng(0)
        x = rng.random((64, 4), dtype=np.float32)
        y = (x.sum(1) > 2).astype(np.int32)
        losses = model.fit(x, y, epochs=4, verbose=0, shuffle=False).history["loss"]
        assert losses[-1] < losses[0]
        assert probe.seen[0] == tw.bfloat16
        assert not isinstance(model.optimizer, mp.LossScaleOptimizer)
        assert {w.dtype for w in model.weights} == {tw.float32}
        assert model.predict(x[:2], verbose=0).dtype == np.float32
    finally:
        mp.set_global_policy("float32")


def test_policy_objects_and_config_round_trip(mixed):
    assert mp.global_policy().name == "mixed_float16"
    assert keras.config.dtype_policy() == keras.DTypePolicy("mixed_float16")
    layer = keras.layers.Dense(2)
    cfg = layer.get_config()
    assert cfg["dtype"] == "mixed_float16"
    mp.set_global_policy("float32")
    again = keras.layers.Dense.from_config(cfg)
    assert again.compute_dtype == "float16"
    d = keras.dtype_policies.serialize(again.dtype_policy)
    assert keras.dtype_policies.deserialize(d).name == "mixed_float16"
    assert keras.DTypePolicy("mixed_bfloat16").compute_dtype == "bfloat16"
    with pytest.raises(ValueError, match="dtype policy"):
        keras.DTypePolicy("mixed_int3")


def test_loss_scale_optimizer_skips_overflow_and_adapts_the_scale():
    v = tw.Variable([1.0, 2.0])
    opt = mp.LossScaleOptimizer(keras.optimizers.SGD(0.5), initial_scale=8.0,
                                dynamic_growth_steps=2)
    opt.apply([tw.constant([np.inf, 1.0])], [v])          # overflow: skipped, scale halves
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])
    assert float(opt.dynamic_scale.numpy()) == 4.0 and int(opt.iterations.numpy()) == 0
    opt.apply([tw.constant([4.0, 8.0])], [v])             # unscaled: [1, 2]
    np.testing.assert_allclose(v.numpy(), [0.5, 1.0])
    assert float(opt.dynamic_scale.numpy()) == 4.0 and int(opt.iterations.numpy()) == 1
    opt.apply([tw.constant([4.0, 8.0])], [v])             # 2 finite steps: scale doubles
    assert float(opt.dynamic_scale.numpy()) == 8.0 and int(opt.step_counter.numpy()) == 0
    np.testing.assert_allclose(v.numpy(), [0.0, 0.0])
    assert float(opt.scale_loss(tw.constant(2.0))) == 16.0


@pytest.mark.filterwarnings("ignore:overflow:RuntimeWarning")  # float16 overflow on purpose
def test_loss_scale_optimizer_in_a_tw_function_matches_eager():
    def run(graph):
        v = tw.Variable([3.0])
        opt = mp.LossScaleOptimizer(keras.optimizers.Adam(0.1), initial_scale=2.0 ** 20,
                                    dynamic_growth_steps=3)

        def step(x):
            with tw.GradientTape() as tape:
                loss = tw.reduce_sum(tw.square(tw.cast(v * x, tw.float16)))
                scaled = opt.scale_loss(tw.cast(loss, tw.float32))
            opt.apply_gradients(zip(tape.gradient(scaled, [v]), [v]))
        f = tw.function(step) if graph else step
        for _ in range(8):
            f(tw.constant([1.0]))
        return v.numpy(), float(opt.dynamic_scale.numpy()), int(opt.iterations.numpy())
    eager, graph = run(False), run(True)
    np.testing.assert_allclose(eager[0], graph[0], rtol=1e-6)
    assert eager[1:] == graph[1:]
    # The float16 gradient of the scaled loss overflows at 2**20: those steps were skipped.
    assert eager[2] < 8 and eager[1] < 2.0 ** 20


@pytest.mark.filterwarnings("ignore:overflow:RuntimeWarning")  # loss scaling probes
@pytest.mark.parametrize("run_eagerly", [False, True])
def test_fit_mixed_float16_wraps_the_optimizer_and_learns(mixed, run_eagerly):
    r = np.random.default_rng(0)
    x = r.normal(size=(64, 4)).astype(np.float32)
    y = (x @ np.array([[1.0], [-2.0], [0.5], [1.5]], np.float32))
    keras.utils.set_random_seed(1)
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(16, activation="relu"),
                              keras.layers.Dense(1, dtype="float32")])
    model.compile(keras.optimizers.Adam(0.01), "mse", run_eagerly=run_eagerly)
    assert isinstance(model.optimizer, mp.LossScaleOptimizer)
    hist = model.fit(x, y, epochs=15, batch_size=16, verbose=0).history["loss"]
    assert hist[-1] < hist[0] * 0.5
    assert model.layers[0].kernel.dtype == tw.float32


def test_loss_scale_optimizer_config_round_trip():
    opt = mp.LossScaleOptimizer(keras.optimizers.Adam(0.25), initial_scale=64.0,
                                dynamic_growth_steps=10)
    again = mp.LossScaleOptimizer.from_config(opt.get_config())
    assert again.initial_scale == 64.0 and again.dynamic_growth_steps == 10
    assert isinstance(again.inner_optimizer, keras.optimizers.Adam)
    assert abs(float(again.learning_rate.numpy()) - 0.25) < 1e-7
    with pytest.raises(TypeError, match="Optimizer"):
        mp.LossScaleOptimizer("adam")
