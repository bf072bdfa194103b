"""The new optimizers and Keras 3 optimizer features step for step as Keras 3 (fixture made by
tests/fixtures/keras/make_fixtures.py), eagerly and inside tw.function."""
import json
from pathlib import Path

import numpy as np
import pytest

import twinflow as tw

keras = tw.keras
FIX = json.loads((Path(__file__).resolve().parents[2] / "fixtures" / "keras" /
                  "optimizer_steps.json").read_text())


@pytest.mark.parametrize("name", sorted(FIX["optimizers"]))
@pytest.mark.parametrize("graph", [False, True])
def test_optimizer_matches_keras_3(name, graph):
    entry = FIX["optimizers"][name]
    v = tw.Variable(np.array(FIX["start"], np.float32))
    opt = getattr(keras.optimizers, name)(**entry["kwargs"])

    def step(g):
        opt.apply([g], [v])
    run = tw.function(step) if graph else step
    got = []
    for g in FIX["grads"]:
        run(tw.constant(g, tw.float32))
        got.append(v.numpy().copy())
    if entry["kwargs"].get("use_ema"):
        opt.finalize_variable_values([v])
        got.append(v.numpy())
    np.testing.assert_allclose(got, entry["steps"], rtol=2e-5, atol=2e-6)
    assert int(opt.iterations.numpy()) == 3


def test_apply_build_and_names():
    v = tw.Variable([1.0, 2.0])
    opt = keras.optimizers.Lion(0.1)
    with pytest.raises(ValueError, match="build"):
        opt.apply([tw.constant([1.0, 1.0])])
    opt.build([v])
    opt.apply([tw.constant([1.0, -1.0])])
    np.testing.assert_allclose(v.numpy(), [0.9, 2.1])
    for name in ("adadelta", "adamax", "nadam", "ftrl", "lion", "adafactor"):
        assert keras.optimizers.get(name).__class__.__name__.lower() == name
    cfg = keras.optimizers.Nadam(use_ema=True).get_config()
    assert keras.optimizers.Nadam.from_config(cfg).get_config() == cfg
    with pytest.raises(ValueError, match="gradient_accumulation_steps"):
        keras.optimizers.SGD(gradient_accumulation_steps=1)
    with pytest.raises(ValueError, match="learning_rate_power"):
        keras.optimizers.Ftrl(learning_rate_power=0.5)


def test_fit_with_ema_and_accumulation():
    x = np.random.default_rng(0).normal(size=(16, 3)).astype(np.float32)
    y = x.sum(1, keepdims=True)
    for opt in (keras.optimizers.Adam(0.05, use_ema=True),
                keras.optimizers.SGD(0.05, gradient_accumulation_steps=2),
                "lion", "nadam", "adamax", "adadelta", "ftrl"):
        model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
        model.compile(opt, "mse")
        hist = model.fit(x, y, epochs=3, batch_size=4, verbose=0)
        assert np.isfinite(hist.history["loss"]).all()


def test_top_level_aliases():
    assert tw.optimizers is keras.optimizers and tw.losses is keras.losses
    assert tw.metrics is keras.metrics and tw.initializers is keras.initializers


@pytest.mark.parametrize("graph", [False, True])
def test_adafactor_factored_matrix_matches_keras_3(graph):
    entry = FIX["adafactor_matrix"]
    v = tw.Variable(np.array(entry["start"], np.float32))
    opt = keras.optimizers.Adafactor(learning_rate=0.1)

    def step(g):
        opt.apply([g], [v])
    run = tw.function(step) if graph else step
    got = []
    for g in entry["grads"]:
        run(tw.constant(g, tw.float32))
        got.append(v.numpy().copy())
    np.testing.assert_allclose(got, entry["steps"], rtol=2e-5, atol=2e-6)
    assert opt.get_slot(v, "r").shape.as_list() == [3]
    assert opt.get_slot(v, "c").shape.as_list() == [2]
