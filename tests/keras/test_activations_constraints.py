"""New activations against Keras 3's values, and constraints applied by the optimizers."""
import numpy as np
import pytest

import twinflow as tw

keras = tw.keras
X = np.array([-3.0, -1.2, -0.4, 0.0, 0.3, 0.8, 2.5], np.float32)
KERAS3 = {  # keras.activations.<name>(X), Keras 3.15
    "celu": [-0.950213, -0.698806, -0.32968, 0.0, 0.3, 0.8, 2.5],
    "hard_sigmoid": [0.0, 0.3, 0.433333, 0.5, 0.55, 0.633333, 0.916667],
    "hard_silu": [-0.0, -0.36, -0.173333, 0.0, 0.165, 0.506667, 2.291667],
    "log_sigmoid": [-3.048587, -1.463282, -0.913015, -0.693147, -0.554355, -0.371101,
                    -0.07889],
    "mish": [-0.145647, -0.308836, -0.188916, 0.0, 0.208001, 0.6597, 2.471392],
    "hard_shrink": [-3.0, -1.2, 0.0, 0.0, 0.0, 0.8, 2.5],
    "soft_shrink": [-2.5, -0.7, 0.0, 0.0, 0.0, 0.3, 2.0],
    "tanh_shrink": [-2.004945, -0.366345, -0.020051, 0.0, 0.008687, 0.135963, 1.513386],
    "squareplus": [0.302776, 0.56619, 0.819804, 1.0, 1.161187, 1.477033, 2.850781],
    "sparse_plus": [0.0, 0.0, 0.09, 0.25, 0.4225, 0.81, 2.5],
    "sparse_sigmoid": [0.0, 0.0, 0.3, 0.5, 0.65, 0.9, 1.0],
}


@pytest.mark.parametrize("name", sorted(KERAS3))
def test_activations_match_keras_3(name):
    fn = keras.activations.get(name)
    np.testing.assert_allclose(np.asarray(fn(X)), KERAS3[name], atol=2e-6)
    graph = tw.function(lambda t: fn(t))(tw.constant(X))
    np.testing.assert_allclose(graph.numpy(), KERAS3[name], atol=2e-6)


def test_glu_threshold_and_deserialize():
    np.testing.assert_allclose(keras.activations.glu(X[:6]).numpy(),
                               [-1.5, -0.689331, -0.27599], atol=1e-5)
    np.testing.assert_allclose(keras.activations.threshold(X, 0.1, -5.0).numpy(),
                               np.where(X > 0.1, X, -5.0))
    assert keras.activations.deserialize("mish") is keras.activations.mish
    assert keras.activations.get("hard_swish") is keras.activations.hard_silu
    assert keras.layers.Dense(2, activation="mish").activation is keras.activations.mish


@pytest.mark.parametrize("graph", [False, True])
def test_constraints_are_applied_after_updates(graph):
    model = keras.Sequential([keras.Input((3,)),
                              keras.layers.Dense(4, kernel_constraint="non_neg",
                                                 bias_constraint=keras.constraints.MaxNorm(0.1))])
    model.compile(keras.optimizers.SGD(1.0), "mse", run_eagerly=not graph)
    x = np.random.default_rng(0).normal(size=(8, 3)).astype(np.float32)
    model.fit(x, -5.0 * np.ones((8, 4), np.float32), epochs=2, verbose=0)
    kernel, bias = model.get_weights()
    assert (kernel >= 0).all() and np.linalg.norm(bias) <= 0.1 + 1e-5


def test_constraint_math_and_config():
    w = tw.constant(np.array([[3.0, 0.1], [4.0, 0.2]], np.float32))
    np.testing.assert_allclose(keras.constraints.MaxNorm(1.0)(w).numpy()[:, 0], [0.6, 0.8],
                               rtol=1e-5)
    np.testing.assert_allclose(keras.constraints.UnitNorm()(w).numpy()[:, 1],
                               [0.1, 0.2] / np.sqrt(0.05), rtol=1e-5)
    mm = keras.constraints.MinMaxNorm(1.0, 2.0)(w).numpy()
    np.testing.assert_allclose(np.linalg.norm(mm, axis=0), [2.0, 1.0], rtol=1e-5)
    c = keras.constraints.MaxNorm(3.0, axis=1)
    again = keras.constraints.deserialize(keras.constraints.serialize(c))
    assert again.get_config() == c.get_config()
    with pytest.raises(ValueError):
        keras.constraints.get("positive")


def test_backup_and_restore_resumes_an_interrupted_fit(tmp_path):
    x = np.random.default_rng(1).normal(size=(8, 3)).astype(np.float32)
    y = x.sum(1, keepdims=True)

    class Interrupt(keras.callbacks.Callback):
        def on_epoch_end(self, epoch, logs=None):
            if epoch == 1:
                raise RuntimeError("interrupted")

    def make():
        tw.random.set_seed(3)
        model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
        model.compile(keras.optimizers.Adam(0.1), "mse")
        return model

    reference = make()
    reference.fit(x, y, epochs=4, batch_size=4, shuffle=False, verbose=0)
    model = make()
    backup = keras.callbacks.BackupAndRestore(str(tmp_path / "backup"))
    with pytest.raises(RuntimeError, match="interrupted"):
        model.fit(x, y, epochs=4, batch_size=4, shuffle=False, verbose=0,
                  callbacks=[backup, Interrupt()])
    resumed = make()
    hist = resumed.fit(x, y, epochs=4, batch_size=4, shuffle=False, verbose=0,
                       callbacks=[keras.callbacks.BackupAndRestore(str(tmp_path / "backup"))])
    assert len(hist.history["loss"]) == 2  # epochs 3 and 4 only
    for a, b in zip(resumed.get_weights(), reference.get_weights()):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    assert not any(p.suffix in (".npz", ".json") for p in (tmp_path / "backup").iterdir())
    with pytest.raises(NotImplementedError):
        keras.callbacks.BackupAndRestore(str(tmp_path), save_freq=10)
