"""Keras under MirroredStrategy: fit over two replicas gives the weights, logs, evaluation and
predictions of one replica on the same global batches (also with an uneven last batch)."""
from __future__ import annotations

import numpy as np
import pytest

import twinflow as tw

D = tw.distribute


def _data(n=26):
    rng = np.random.default_rng(0)
    return rng.normal(size=(n, 5)).astype(np.float32), rng.integers(0, 3, size=n)


def _model():
    tw.random.set_seed(1)
    m = tw.keras.Sequential([tw.keras.layers.Dense(8, activation="relu", input_shape=(5,)),
                             tw.keras.layers.Dense(3)])
    m.compile(optimizer=tw.keras.optimizers.Adam(0.01),
              loss=tw.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
              metrics=["accuracy"])
    return m


def _max_diff(a, b):
    return max(float(np.abs(u - v).max()) for u, v in zip(a.get_weights(), b.get_weights()))


@pytest.mark.parametrize("eager", [False, True])
def test_fit_two_replicas_equals_one(eager):
    x, y = _data()
    one = _model()
    one.run_eagerly = eager
    h1 = one.fit(x, y, batch_size=8, epochs=2, shuffle=False, verbose=0)
    s = D.MirroredStrategy(["/cpu:0", "/cpu:1"])
    with s.scope():
        two = _model()
    two.run_eagerly = eager
    assert two.distribute_strategy is s
    assert all(isinstance(w, D.MirroredVariable) for w in two.weights)
    h2 = two.fit(x, y, batch_size=8, epochs=2, shuffle=False, verbose=0)
    assert _max_diff(one, two) < 1e-5
    for k in h1.history:
        np.testing.assert_allclose(h1.history[k], h2.history[k], rtol=1e-5)
    np.testing.assert_allclose(one.evaluate(x, y, verbose=0), two.evaluate(x, y, verbose=0),
                               rtol=1e-5)
    np.testing.assert_allclose(one.predict(x, verbose=0), two.predict(x, verbose=0),
                               atol=1e-5)
    for w in two.weights:  # the copies stayed equal
        np.testing.assert_array_equal(w.values[0].numpy(), w.values[1].numpy())


def test_fit_on_a_dataset_under_strategy():
    x, y = _data(24)
    ds = tw.data.Dataset.from_tensor_slices((x, y)).batch(6)
    one = _model()
    one.fit(ds, epochs=1, verbose=0)
    s = D.MirroredStrategy(["/cpu:0", "/cpu:1", "/cpu:2"])
    with s.scope():
        three = _model()
    three.fit(ds, epochs=1, verbose=0)
    assert _max_diff(one, three) < 1e-5


def test_model_built_outside_the_scope_is_refused():
    s = D.MirroredStrategy(["/cpu:0", "/cpu:1"])
    m = tw.keras.Sequential([tw.keras.layers.Dense(2, input_shape=(5,))])
    with s.scope():
        m.compile(optimizer="sgd", loss="mse")
    x, _ = _data(4)
    with pytest.raises(ValueError, match="inside `with strategy.scope"):
        m.fit(x, np.zeros((4, 2), np.float32), verbose=0)


def test_batch_norm_moving_statistics_stay_mirrored():
    s = D.MirroredStrategy(["/cpu:0", "/cpu:1"])
    with s.scope():
        m = tw.keras.Sequential([tw.keras.layers.Dense(4, input_shape=(5,)),
                                 tw.keras.layers.BatchNormalization(), tw.keras.layers.Dense(3)])
        m.compile(optimizer="sgd",
                  loss=tw.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    x, y = _data(16)
    m.fit(x, y, batch_size=8, epochs=1, verbose=0)
    for w in m.weights:
        np.testing.assert_array_equal(w.values[0].numpy(), w.values[1].numpy())


def test_mirrored_model_saves_as_a_saved_model(tmp_path):
    s = D.MirroredStrategy(["/cpu:0", "/cpu:1"])
    with s.scope():
        m = _model()
    x, y = _data(8)
    m.fit(x, y, batch_size=4, verbose=0)
    tw.saved_model.save(m, str(tmp_path / "sm"))
    served = tw.saved_model.load(str(tmp_path / "sm")).signatures["serving_default"]
    out = list(served(tw.constant(x)).values())[0]
    np.testing.assert_allclose(out.numpy(), m.predict(x, verbose=0), atol=1e-6)


def test_mixed_precision_loss_scaling_under_strategy():
    tw.keras.mixed_precision.set_global_policy("mixed_float16")
    try:
        x, y = _data(16)
        one = _model()
        one.fit(x, y, batch_size=8, epochs=2, shuffle=False, verbose=0)
        s = D.MirroredStrategy(["/cpu:0", "/cpu:1"])
        with s.scope():
            two = _model()
        two.fit(x, y, batch_size=8, epochs=2, shuffle=False, verbose=0)
        assert type(two.optimizer).__name__ == "LossScaleOptimizer"
        assert _max_diff(one, two) < 1e-4  # float16 compute
    finally:
        tw.keras.mixed_precision.set_global_policy("float32")
