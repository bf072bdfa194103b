"""Cases for candidate sampling and the sampled losses (fixed ``sampled_values``, so the
losses are deterministic and finite differences apply)."""
import numpy as np

import twinflow as tw

from .harness import Case

rng = np.random.default_rng(4)
W = rng.normal(size=(8, 3))
B = rng.normal(size=8)
X = rng.normal(size=(2, 3))
LABELS = np.array([[1, 4], [3, 0]], np.int64)
SAMPLED = np.array([4, 6, 2], np.int64)
TRUE_EC = np.full((2, 2), 0.3, np.float32)
SAMPLED_EC = np.array([0.3, 0.2, 0.4], np.float32)
SV = (SAMPLED, TRUE_EC, SAMPLED_EC)


def _np_logits(w, b, x, remove_hits):
    true_logits = np.einsum("bd,btd->bt", x, w[LABELS]) + b[LABELS] - np.log(TRUE_EC)
    sampled_logits = x @ w[SAMPLED].T + b[SAMPLED] - np.log(SAMPLED_EC)
    if remove_hits:
        hit = (LABELS[:, :, None] == SAMPLED[None, None, :]).any(1)
        sampled_logits = sampled_logits + hit * -np.finfo(np.float32).max
    logits = np.concatenate([true_logits, sampled_logits], 1)
    labels = np.concatenate([np.full((2, 2), 0.5), np.zeros((2, 3))], 1)
    return logits, labels


def _np_nce(w, b, x):
    z, y = _np_logits(w, b, x, False)
    return (np.maximum(z, 0) - z * y + np.log1p(np.exp(-np.abs(z)))).sum(1)


def _np_sampled_softmax(w, b, x):
    z, y = _np_logits(w, b, x, True)
    z = z - z.max(1, keepdims=True)
    return -(y * (z - np.log(np.exp(z).sum(1, keepdims=True)))).sum(1)


CASES = [
    Case(lambda w, b, x: tw.nn.nce_loss(w, b, LABELS, x, 3, 8, num_true=2, sampled_values=SV),
         [W, B, X], _np_nce, name="nce_loss"),
    Case(lambda w, b, x: tw.nn.sampled_softmax_loss(w, b, LABELS, x, 3, 8, num_true=2,
                                                    sampled_values=SV),
         [W, B, X], _np_sampled_softmax, name="sampled_softmax_loss_accidental_hits"),
    Case(lambda t: tw.nn.compute_accidental_hits(t, SAMPLED, 2), [LABELS],
         lambda t: (np.array([0], np.int32), np.array([0], np.int64),
                    np.array([-np.finfo(np.float32).max], np.float32)),
         name="compute_accidental_hits", graph=False),  # hits: a data-dependent shape
    Case(lambda t: tw.random.uniform_candidate_sampler(t, 2, 3, True, 8), [LABELS], None,
         name="uniform_candidate_sampler", stateful_random=True),
    Case(lambda t: tw.random.log_uniform_candidate_sampler(t, 2, 5, False, 8), [LABELS], None,
         name="log_uniform_candidate_sampler", stateful_random=True),
    Case(lambda t: tw.random.fixed_unigram_candidate_sampler(t, 2, 2, True, 8,
                                                             unigrams=[1.0] * 7,
                                                             num_reserved_ids=1),
         [LABELS], None, name="fixed_unigram_candidate_sampler", stateful_random=True),
    Case(lambda t: tw.random.all_candidate_sampler(t, 2, 4, True), [LABELS],
         lambda t: (np.arange(4), np.ones((2, 2), np.float32), np.ones(4, np.float32)),
         name="all_candidate_sampler"),
]

COVERED_ELSEWHERE = {
    "AccidentalHits": "compute_accidental_hits (eager: its output shape depends on the data) "
                      "and tests/ops/test_nn_sampled.py (inside tw.function)",
}
