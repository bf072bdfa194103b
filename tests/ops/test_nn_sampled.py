"""Candidate samplers' properties, accidental hits in a tw.function, bad input."""
import numpy as np
import pytest

import twinflow as tw


def test_unique_sampler_draws_distinct_classes_and_expected_counts():
    tw.random.set_seed(3)
    s, te, se = tw.random.log_uniform_candidate_sampler([[0], [5]], 1, 6, True, 8)
    assert len(set(s.numpy().tolist())) == 6 and s.dtype == tw.int64
    assert te.shape == (2, 1) and se.shape == (6,)
    assert np.all((se.numpy() > 0) & (se.numpy() <= 1))
    _, _, se2 = tw.random.uniform_candidate_sampler([[0]], 1, 4, False, 8)
    np.testing.assert_allclose(se2, np.full(4, 0.5))  # num_sampled * 1/8


def test_accidental_hits_in_function():
    @tw.function
    def f(t, s):
        return tw.nn.compute_accidental_hits(t, s, 2)

    idx, ids, w = f(tw.constant([[1, 4], [3, 0]], tw.int64), tw.constant([4, 3, 9], tw.int64))
    assert idx.numpy().tolist() == [0, 1] and ids.numpy().tolist() == [0, 1]
    assert np.all(w.numpy() == -np.finfo(np.float32).max)


def test_bad_sampler_input():
    with pytest.raises(tw.errors.InvalidArgumentError, match="range_max"):
        tw.random.uniform_candidate_sampler([[0]], 1, 9, True, 8)
    with pytest.raises(tw.errors.InvalidArgumentError, match="num_true"):
        tw.random.uniform_candidate_sampler([[0, 1]], 1, 2, True, 8)
    with pytest.raises(NotImplementedError, match="vocab_file"):
        tw.random.fixed_unigram_candidate_sampler([[0]], 1, 2, True, 8, vocab_file="v.txt")
