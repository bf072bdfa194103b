"""compile/fit/evaluate/predict/train_on_batch, eager vs graph, callbacks, Dataset inputs."""
from __future__ import annotations

import inspect
import os

import numpy as np
import pytest

import twinflow as tw

K = tw.keras
L = tw.keras.layers


def _data(n: int = 96, seed: int = 0):
    rng = np.random.RandomState(seed)
    x = rng.normal(size=(n, 4)).astype(np.float32)
    y = (x[:, 0] + x[:, 1] > 0).astype(np.int64)
    return x, y


def _model():
    tw.random.set_seed(1)
    return K.Sequential([L.Dense(8, activation="relu", input_shape=(4,)), L.Dense(2)])


def _fit(run_eagerly: bool, epochs: int = 3):
    x, y = _data()
    model = _model()
    model.compile(optimizer=K.optimizers.Adam(0.05),
                  loss=K.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"], run_eagerly=run_eagerly)
    np.random.seed(0)
    history = model.fit(x, y, batch_size=16, epochs=epochs, verbose=0)
    return model, history


def test_fit_eager_and_graph_give_the_same_losses():
    m_eager, h_eager = _fit(True)
    m_graph, h_graph = _fit(False)
    np.testing.assert_allclose(h_eager.history["loss"], h_graph.history["loss"], atol=1e-5)
    np.testing.assert_allclose(h_eager.history["accuracy"], h_graph.history["accuracy"])
    for a, b in zip(m_eager.get_weights(), m_graph.get_weights()):
        np.testing.assert_allclose(a, b, atol=1e-5)
    assert h_graph.history["loss"][-1] < h_graph.history["loss"][0]
    assert m_graph.make_train_function() is not m_graph.train_step  # a tw.function
    assert isinstance(m_graph.make_train_function(), tw.Function)
    assert not isinstance(m_eager.make_train_function(), tw.Function)


def test_evaluate_predict_and_batches():
    model, _ = _fit(False, epochs=5)
    x, y = _data()
    loss, acc = model.evaluate(x, y, verbose=0)
    assert acc > 0.8
    logs = model.evaluate(x, y, verbose=0, return_dict=True)
    assert set(logs) == {"loss", "accuracy"}
    preds = model.predict(x, batch_size=20)
    assert preds.shape == (96, 2)
    np.testing.assert_allclose(preds, model(x).numpy(), rtol=1e-5, atol=1e-6)
    out = model.train_on_batch(x[:16], y[:16])
    assert len(out) == 2
    assert model.predict_on_batch(x[:3]).shape == (3, 2)
    assert isinstance(model.test_on_batch(x[:16], y[:16], return_dict=True), dict)


def test_fit_with_validation_and_callbacks(tmp_path):
    x, y = _data(128)
    model = _model()
    model.compile("sgd", "sparse_categorical_crossentropy", metrics=["accuracy"])
    seen: list = []
    stopper = K.callbacks.EarlyStopping(monitor="loss", patience=0, min_delta=100.0)
    saver = K.callbacks.ModelCheckpoint(str(tmp_path / "w-{epoch:02d}"))
    lam = K.callbacks.LambdaCallback(on_epoch_end=lambda e, logs: seen.append(e))
    hist = model.fit(x, y, epochs=10, batch_size=32, validation_split=0.25,
                     callbacks=[stopper, saver, lam], verbose=0)
    assert "val_loss" in hist.history and "val_accuracy" in hist.history
    assert len(seen) == 2 and stopper.stopped_epoch == 1   # no 100.0 improvement: stop
    assert os.path.exists(tmp_path / "w-01.npz") and os.path.exists(tmp_path / "w-02.npz")
    assert model.history is hist


def test_model_checkpoint_best_only_and_hook_signatures(tmp_path):
    saver = K.callbacks.ModelCheckpoint(str(tmp_path / "w-{epoch}"), monitor="loss",
                                        save_best_only=True, initial_value_threshold=1.0)
    saved: list = []

    class _Model:
        def save_weights(self, path):
            saved.append(path)

    saver.set_model(_Model())
    for epoch, loss in enumerate([2.0, 0.5, 0.7, 0.4]):
        saver.on_epoch_end(epoch, {"loss": loss})
    # 2.0 does not beat the threshold; 0.7 does not beat 0.5.
    assert [os.path.basename(p) for p in saved] == ["w-2", "w-4"] and saver.best == 0.4
    hooks = K.callbacks.Callback
    assert list(inspect.signature(hooks.on_epoch_end).parameters) == ["self", "epoch", "logs"]
    assert list(inspect.signature(hooks.on_test_batch_end).parameters) == [
        "self", "batch", "logs"]
    assert "Args:" in hooks.on_train_begin.__doc__
    hooks().on_epoch_begin(epoch=0, logs={})


def test_fit_on_dataset_and_progress_bar(capsys):
    x, y = _data(64)
    ds = tw.data.Dataset.from_tensor_slices((x, y)).shuffle(64, seed=1).batch(16)
    model = _model()
    model.compile(K.optimizers.SGD(0.1), K.losses.SparseCategoricalCrossentropy(True))
    hist = model.fit(ds, epochs=2, verbose=1, validation_data=ds)
    out = capsys.readouterr().out
    assert "Epoch 2/2" in out and "4/4 [" in out and "loss:" in out
    assert len(hist.history["loss"]) == 2


def test_regression_with_mse_and_functional_model():
    rng = np.random.RandomState(0)
    x = rng.normal(size=(200, 1)).astype(np.float32)
    y = 3 * x + 2
    inputs = K.Input(shape=(1,))
    model = K.Model(inputs, L.Dense(1)(inputs))
    model.compile(K.optimizers.SGD(0.1), "mse", metrics=["mae"])
    model.fit(x, y, epochs=20, batch_size=50, verbose=0)
    w, b = model.get_weights()
    assert abs(float(w[0, 0]) - 3) < 0.05 and abs(float(b[0]) - 2) < 0.05


def test_uncompiled_fit_raises():
    with pytest.raises(RuntimeError, match="compile"):
        _model().fit(*_data(), verbose=0)


def test_custom_train_step_override():
    class Custom(K.Model):
        def __init__(self):
            super().__init__()
            self.d = L.Dense(1)
            self.tracker = K.metrics.Mean(name="custom_loss")

        def call(self, x):
            return self.d(x)

        def train_step(self, data):
            x, y = data
            with tw.GradientTape() as tape:
                loss = tw.reduce_mean(tw.square(self(x) - y))
            grads = tape.gradient(loss, self.trainable_variables)
            self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
            self.tracker.update_state(loss)
            return {"custom_loss": self.tracker.result()}

    m = Custom()
    m.compile(K.optimizers.SGD(0.1))
    x = np.ones((8, 2), np.float32)
    hist = m.fit(x, np.ones((8, 1), np.float32), epochs=3, verbose=0)
    assert hist.history["custom_loss"][-1] < hist.history["custom_loss"][0]


def test_seed_custom_loop_in_graph_mode():
    x, y = _data(32)
    model = _model()
    opt = K.optimizers.Adam()
    loss_object = K.losses.SparseCategoricalCrossentropy(from_logits=True)

    @tw.function
    def step(images, labels):
        with tw.GradientTape() as tape:
            loss = loss_object(labels, model(images, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    first = float(step(x, y))
    for _ in range(5):
        last = float(step(x, y))
    assert last < first
    assert int(opt.iterations.numpy()) == 6


def test_embedding_text_model_trains_in_graph_mode():
    rng = np.random.RandomState(0)
    x = rng.randint(0, 20, (64, 5))
    y = (x[:, 0] > 10).astype(np.int32)
    model = K.Sequential([L.Embedding(20, 4), L.GlobalAveragePooling1D(), L.Dense(2)])
    model.compile(K.optimizers.Adam(0.05), K.losses.SparseCategoricalCrossentropy(True))
    hist = model.fit(x, y, epochs=4, batch_size=16, verbose=0)
    assert hist.history["loss"][-1] < hist.history["loss"][0]


def test_class_weight_csv_logger_reduce_lr(tmp_path):
    x, y = _data(64)
    model = _model()
    model.compile(K.optimizers.SGD(0.1), K.losses.SparseCategoricalCrossentropy(True),
                  metrics=["accuracy"])
    csv = str(tmp_path / "log.csv")
    reducer = K.callbacks.ReduceLROnPlateau(monitor="loss", factor=0.5, patience=0,
                                            min_delta=10.0)
    hist = model.fit(x, y, epochs=3, batch_size=16, verbose=0, class_weight={0: 1.0, 1: 3.0},
                     callbacks=[K.callbacks.CSVLogger(csv), reducer])
    rows = open(csv).read().strip().splitlines()
    assert rows[0].split(",")[0] == "epoch" and len(rows) == 4
    assert "accuracy" in hist.history
    # The first epoch sets the best loss; the next two fail to improve by 10 and halve it.
    assert float(model.optimizer.learning_rate.numpy()) == pytest.approx(0.1 * 0.5 ** 2)


def test_precision_recall_auc_metrics():
    pr, rc = K.metrics.Precision(), K.metrics.Recall()
    pr.update_state([0, 1, 1, 1], [1, 0, 1, 1])
    rc.update_state([0, 1, 1, 1], [1, 0, 1, 1])
    assert float(pr.result()) == pytest.approx(2 / 3)
    assert float(rc.result()) == pytest.approx(2 / 3)
    rng = np.random.RandomState(0)
    truth = rng.randint(0, 2, 500)
    scores = np.clip(truth * 0.3 + rng.rand(500) * 0.7, 0, 1).astype(np.float32)
    auc = K.metrics.AUC()
    auc.update_state(truth, scores)
    exact = (scores[truth == 1][:, None] > scores[truth == 0][None, :]).mean()
    assert float(auc.result()) == pytest.approx(exact, abs=0.01)
