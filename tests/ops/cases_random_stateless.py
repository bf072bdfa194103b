"""Cases for the stateless random ops of ``ops/random/stateless_dist.py``: values are a pure
function of the seed, so eager, graph and compiled runs must agree exactly (the harness checks
that); ``tests/ops/test_random_stateless.py`` checks determinism and the distributions."""
import numpy as np

import twinflow as tw

from .harness import Case

SEED = np.array([3, 4], np.int64)
R = tw.random
E = tw.random.experimental

CASES = [
    Case(lambda s: R.split(s, 3), [SEED], None, name="random_split"),
    Case(lambda s: R.fold_in(s, 7), [SEED], None, name="random_fold_in"),
    Case(lambda s, a: R.stateless_gamma([4, 2], s, a, dtype=tw.float64), [SEED,
         np.array([1.0, 2.5])], None, name="stateless_gamma", grad=()),
    Case(lambda s, lam: R.stateless_poisson([5], s, lam), [SEED, np.float32(3.0)], None,
         name="stateless_poisson", grad=()),
    Case(lambda s, c, p: R.stateless_binomial([2, 3], s, c, p), [SEED, np.float32(10),
         np.array([0.1, 0.5, 0.9], np.float32)], None, name="stateless_binomial", grad=()),
    Case(lambda lg, s: R.stateless_categorical(lg, 6, s), [np.log([[0.2, 0.8], [0.5, 0.5]]),
         SEED], None, name="stateless_categorical", grad=()),
    Case(lambda v, s: E.stateless_shuffle(v, s), [np.arange(12.0).reshape(6, 2), SEED], None,
         name="stateless_shuffle", grad=[0]),
    Case(lambda i, s: E.index_shuffle(i, s, 9), [np.arange(10, dtype=np.int64), SEED], None,
         name="index_shuffle", grad=()),
]
