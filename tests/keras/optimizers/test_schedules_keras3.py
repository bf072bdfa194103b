"""Learning-rate schedules against Keras 3.15: PolynomialDecay's cycle, CosineDecay's warmup,
eagerly and in tw.function (numbers from tests/fixtures/schedules/make_fixtures.py)."""
import numpy as np
import pytest

import twinflow as tw

S = tw.keras.optimizers.schedules
STEPS = [0, 1, 3, 5, 7, 10, 12, 20, 25, 40]
SCHEDULES = {
    "poly_cycle": lambda: S.PolynomialDecay(0.1, 10, end_learning_rate=0.01, power=2.0,
                                            cycle=True),
    "poly": lambda: S.PolynomialDecay(0.1, 10, end_learning_rate=0.01, power=2.0),
    "cosine": lambda: S.CosineDecay(0.1, 10, alpha=0.1),
    "cosine_warmup": lambda: S.CosineDecay(0.0, 10, alpha=0.1, warmup_target=0.2,
                                           warmup_steps=5),
    "cosine_warmup_from": lambda: S.CosineDecay(0.05, 20, warmup_target=0.1, warmup_steps=4),
}
KERAS = {  # printed by make_fixtures.py with Keras 3.15
    'poly_cycle': [0.1, 0.0829, 0.0541, 0.0325, 0.0181, 0.01, 0.0244, 0.01, 0.0125, 0.01],
    'poly': [0.1, 0.0829, 0.0541, 0.0325, 0.0181, 0.01, 0.01, 0.01, 0.01, 0.01],
    'cosine': [0.1, 0.0977975, 0.0814503, 0.055, 0.0285497, 0.01, 0.01, 0.01, 0.01, 0.01],
    'cosine_warmup': [0.0, 0.04, 0.12, 0.2, 0.1828115, 0.11, 0.0570993, 0.02, 0.02, 0.02],
    'cosine_warmup_from': [0.05, 0.0625, 0.0875, 0.0993844, 0.0945503, 0.0793893, 0.0654508,
                           0.0095491, 0.0, 0.0],
}


@pytest.mark.parametrize("name", sorted(SCHEDULES))
def test_schedule_matches_keras(name):
    schedule = SCHEDULES[name]()
    eager = [float(schedule(s)) for s in STEPS]
    np.testing.assert_allclose(eager, KERAS[name], rtol=1e-5, atol=1e-7)
    graph = tw.function(lambda s: schedule(s))
    traced = [float(graph(tw.constant(s, tw.int64))) for s in STEPS]
    np.testing.assert_allclose(traced, KERAS[name], rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("name", sorted(SCHEDULES))
def test_config_round_trip_keeps_the_new_arguments(name):
    schedule = SCHEDULES[name]()
    again = S.deserialize(S.serialize(schedule))
    np.testing.assert_allclose([float(again(s)) for s in STEPS], KERAS[name], rtol=1e-5,
                               atol=1e-7)


def test_config_keys_are_keras_3s():
    assert S.PolynomialDecay(0.1, 10, cycle=True).get_config() == {
        "initial_learning_rate": 0.1, "decay_steps": 10, "end_learning_rate": 0.0001,
        "power": 1.0, "cycle": True, "name": "PolynomialDecay"}
    assert S.CosineDecay(0.1, 10, warmup_target=0.2, warmup_steps=3).get_config() == {
        "initial_learning_rate": 0.1, "decay_steps": 10, "alpha": 0.0, "name": "CosineDecay",
        "warmup_target": 0.2, "warmup_steps": 3}
    assert S.ExponentialDecay(0.1, 10, 0.5).get_config()["name"] == "ExponentialDecay"
    assert S.InverseTimeDecay(0.1, 10, 0.5).get_config()["name"] == "InverseTimeDecay"
    assert S.PiecewiseConstantDecay([1], [0.1, 0.2]).get_config()["name"] == "PiecewiseConstant"


def test_unknown_and_invalid_arguments_raise():
    with pytest.raises(TypeError):
        S.CosineDecay(0.1, 10, warmup=5)
    with pytest.raises(TypeError):
        S.PolynomialDecay(0.1, 10, staircase=True)
    for make in (lambda: S.PolynomialDecay(0.1, 0), lambda: S.CosineDecay(0.1, -1),
                 lambda: S.ExponentialDecay(0.1, 0, 0.5), lambda: S.InverseTimeDecay(0.1, 0, 0.5)):
        with pytest.raises(ValueError, match="decay_steps"):
            make()


def test_optimizers_refuse_jit_compile_as_keras_3_does():
    with pytest.raises(TypeError, match="jit_compile"):
        tw.keras.optimizers.Adam(jit_compile=True)
    with pytest.raises(TypeError, match="jit_compile"):
        tw.keras.optimizers.SGD(0.1, jit_compile=False)
