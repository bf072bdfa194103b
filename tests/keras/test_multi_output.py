"""Models with several outputs: per-output losses, loss weights and metrics, Keras' names."""
from __future__ import annotations

import numpy as np
import pytest

import twinflow as tw

K = tw.keras


def _data(n: int = 64):
    rng = np.random.default_rng(0)
    x = rng.random((n, 4), dtype=np.float32)
    return x, rng.integers(0, 3, n), x.sum(axis=1, keepdims=True)


def _model(seed: int = 3):
    tw.random.set_seed(seed)
    inp = K.Input((4,))
    h = K.layers.Dense(8, activation="relu")(inp)
    cls = K.layers.Dense(3, name="cls")(h)
    reg = K.layers.Dense(1, name="reg")(h)
    return K.Model(inp, [cls, reg])


def _compile(m, run_eagerly: bool = False) -> None:
    m.compile(optimizer=K.optimizers.SGD(0.05),
              loss=[K.losses.SparseCategoricalCrossentropy(from_logits=True), "mse"],
              loss_weights=[1.0, 0.5], metrics={"cls": "accuracy", "reg": ["mae"]},
              run_eagerly=run_eagerly)


def test_names_and_weighted_total_loss():
    x, yc, yr = _data()
    m = _model()
    _compile(m)
    assert m.output_names == ["cls", "reg"]
    assert m.metrics_names == ["loss", "cls_loss", "reg_loss", "cls_accuracy", "reg_mae"]
    logs = m.evaluate(x, [yc, yr], batch_size=64, verbose=0, return_dict=True)
    cls_pred, reg_pred = m.predict(x, verbose=0)
    ce = K.losses.SparseCategoricalCrossentropy(from_logits=True)(yc, cls_pred)
    mse = np.mean((reg_pred - yr) ** 2)
    assert logs["cls_loss"] == pytest.approx(float(ce), rel=1e-5)
    assert logs["reg_loss"] == pytest.approx(mse, rel=1e-5)
    assert logs["loss"] == pytest.approx(float(ce) + 0.5 * mse, rel=1e-5)
    acc = np.mean(np.argmax(cls_pred, axis=1) == yc)
    assert logs["cls_accuracy"] == pytest.approx(acc)
    assert logs["reg_mae"] == pytest.approx(np.mean(np.abs(reg_pred - yr)), rel=1e-5)
    # a dict of targets by output name is the same
    same = m.evaluate(x, {"cls": yc, "reg": yr}, batch_size=64, verbose=0, return_dict=True)
    assert same == logs
    values = m.evaluate(x, [yc, yr], batch_size=64, verbose=0)
    assert values == [logs[k] for k in m.metrics_names]


def test_fit_reports_per_output_logs_and_graph_equals_eager():
    x, yc, yr = _data()
    histories = []
    for eager in (False, True):
        m = _model()
        _compile(m, run_eagerly=eager)
        h = m.fit(x, [yc, yr], epochs=3, batch_size=16, verbose=0, shuffle=False,
                  validation_data=(x[:16], [yc[:16], yr[:16]]))
        histories.append(h.history)
    graph, eager = histories
    assert set(graph) == {"loss", "cls_loss", "reg_loss", "cls_accuracy", "reg_mae",
                          "val_loss", "val_cls_loss", "val_reg_loss", "val_cls_accuracy",
                          "val_reg_mae"}
    for k in graph:
        np.testing.assert_allclose(graph[k], eager[k], rtol=1e-5, atol=1e-6)
    assert graph["loss"][-1] < graph["loss"][0]


def test_one_loss_and_flat_metrics_apply_to_every_output():
    x, yc, yr = _data()
    m = _model()
    m.compile("sgd", loss="mse", metrics=["mae"])
    assert m.metrics_names == ["loss", "cls_loss", "reg_loss", "cls_mae", "reg_mae"]
    one_hot = np.eye(3, dtype=np.float32)[yc]
    logs = m.evaluate(x, [one_hot, yr], verbose=0, return_dict=True)
    assert logs["loss"] == pytest.approx(logs["cls_loss"] + logs["reg_loss"], rel=1e-5)


def test_dict_loss_with_none_output_and_bad_arguments():
    x, yc, yr = _data()
    m = _model()
    m.compile("sgd", loss={"reg": "mse"}, loss_weights={"reg": 2.0})
    assert m.metrics_names == ["loss", "reg_loss"]
    logs = m.evaluate(x, [yc, yr], verbose=0, return_dict=True)
    assert logs["loss"] == pytest.approx(2.0 * logs["reg_loss"], rel=1e-5)
    with pytest.raises(ValueError, match="one entry per model output"):
        m.compile("sgd", loss=["mse"] * 3)
    with pytest.raises(ValueError, match="Unknown entries in loss dictionary"):
        m.compile("sgd", loss={"nope": "mse"})
    m.compile("sgd", loss="mse")
    with pytest.raises(ValueError, match="2 outputs"):
        m.evaluate(x, yr, verbose=0)


class TwoHeads(K.Model):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.body = K.layers.Dense(8, activation="relu")
        self.a = K.layers.Dense(3)
        self.b = K.layers.Dense(1)

    def call(self, inputs, training=None):
        h = self.body(inputs)
        return self.a(h), self.b(h)


def test_subclassed_model_with_two_outputs():
    x, yc, yr = _data()
    m = TwoHeads()
    m.compile("adam", loss=[K.losses.SparseCategoricalCrossentropy(from_logits=True), "mse"],
              metrics=[["accuracy"], []])
    h = m.fit(x, (yc, yr), epochs=2, batch_size=32, verbose=0)
    assert set(h.history) == {"loss", "output_1_loss", "output_2_loss", "output_1_accuracy"}


def test_single_output_accepts_one_entry_lists_and_dicts():
    x, yc, _ = _data()
    inp = K.Input((4,))
    out = K.layers.Dense(3, name="probs")(inp)
    m = K.Model(inp, out)
    m.compile("sgd", loss={"probs": K.losses.SparseCategoricalCrossentropy(from_logits=True)},
              metrics={"probs": "accuracy"})
    assert m.metrics_names == ["loss", "accuracy"]
    m.fit(x, yc, epochs=1, verbose=0)


def test_multi_output_model_saves_and_loads_compiled(tmp_path):
    x, yc, yr = _data()
    m = _model()
    _compile(m)
    m.fit(x, [yc, yr], epochs=1, batch_size=16, verbose=0, shuffle=False)
    m.save(tmp_path / "two.keras")
    m2 = K.models.load_model(tmp_path / "two.keras")
    assert m2.metrics_names == m.metrics_names
    for a, b in zip(m.predict(x, verbose=0), m2.predict(x, verbose=0)):
        np.testing.assert_array_equal(a, b)
    h1 = m.fit(x, [yc, yr], epochs=2, batch_size=16, verbose=0, shuffle=False).history
    h2 = m2.fit(x, [yc, yr], epochs=2, batch_size=16, verbose=0, shuffle=False).history
    assert h1 == h2
