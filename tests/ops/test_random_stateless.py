"""Determinism and distribution checks for the stateless random ops and RNG helpers."""
import numpy as np
import pytest

import twinflow as tw


def test_same_seed_same_numbers_other_seed_other_numbers():
    a = tw.random.stateless_gamma([1000], [1, 2], 3.0, dtype=tw.float64)
    b = tw.random.stateless_gamma([1000], [1, 2], 3.0, dtype=tw.float64)
    c = tw.random.stateless_gamma([1000], [1, 3], 3.0, dtype=tw.float64)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)
    assert abs(float(np.mean(a)) - 3.0) < 0.2  # Gamma(3, 1): mean 3


def test_distribution_means():
    lam = tw.random.stateless_poisson([4000], [5, 6], 4.0, dtype=tw.float32)
    assert abs(float(np.mean(lam)) - 4.0) < 0.15
    binom = tw.random.stateless_binomial([4000], [5, 6], 20.0, 0.25)
    assert abs(float(np.mean(binom)) - 5.0) < 0.15
    gamma = tw.random.stateless_gamma([4000], [5, 6], 2.0, beta=4.0)
    assert abs(float(np.mean(gamma)) - 0.5) < 0.03
    cat = tw.random.stateless_categorical(np.log([[0.25, 0.75]]), 4000, [5, 6])
    assert abs(float(np.mean(cat)) - 0.75) < 0.03


def test_split_and_fold_in_give_distinct_seeds():
    seeds = tw.random.split([1, 2], 4).numpy()
    assert seeds.shape == (4, 2) and len({tuple(s) for s in seeds}) == 4
    folded = tw.random.fold_in([1, 2], 5).numpy()
    assert folded[1] == 5 and folded.dtype == np.int32
    assert not np.array_equal(folded, tw.random.fold_in([1, 2], 6).numpy())


def test_shuffle_and_index_shuffle_are_permutations():
    v = tw.random.experimental.stateless_shuffle(tw.range(50), [7, 8]).numpy()
    assert sorted(v.tolist()) == list(range(50)) and v.tolist() != list(range(50))
    idx = tw.random.experimental.index_shuffle(np.arange(20), [1, 2, 3], 19).numpy()
    assert sorted(idx.tolist()) == list(range(20))


def test_rng_state_and_algorithm():
    assert tw.random.create_rng_state(5, "philox").tolist() == [5, 0, 0]
    assert tw.random.create_rng_state(5, tw.random.Algorithm.THREEFRY).tolist() == [5, 0]
    g = tw.random.experimental.Generator(state=tw.random.create_rng_state(5, 1))
    assert g.normal([3]).shape == (3,)
    with pytest.raises(ValueError, match="unknown RNG algorithm"):
        tw.random.create_rng_state(1, "mersenne")


def test_bad_inputs():
    with pytest.raises(tw.errors.InvalidArgumentError, match="seed must have shape"):
        tw.random.stateless_poisson([2], [1, 2, 3], 1.0)
    with pytest.raises(tw.errors.InvalidArgumentError, match="probs in"):
        tw.random.stateless_binomial([2], [1, 2], 5.0, 1.5)
    with pytest.raises(NotImplementedError, match="alpha"):
        a = tw.constant(2.0)
        with tw.GradientTape() as tape:
            tape.watch(a)
            y = tw.random.stateless_gamma([3], [1, 2], a)
        tape.gradient(y, a)


def test_rng_algorithm_names_are_checked_as_tensorflow_does():
    # TensorFlow raises ValueError for an unknown `alg`; a known one changes nothing here
    for call in (lambda a: tw.random.Generator.from_seed(1, alg=a),
                 lambda a: tw.random.split([1, 2], alg=a),
                 lambda a: tw.random.fold_in([1, 2], 3, alg=a),
                 lambda a: tw.random.experimental.stateless_shuffle([1, 2], [1, 2], alg=a)):
        with pytest.raises(ValueError):
            call("bogus")
        call("philox")
