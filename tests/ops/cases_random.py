"""Cases for ``tw.random``: shapes and dtypes (values are checked in tests/ops/test_random.py)."""
import numpy as np

import twinflow as tw

from .harness import Case

rng = np.random.default_rng(3)
Z = np.zeros((2, 3))
LOGITS = rng.normal(size=(3, 4))

CASES = [
    Case(lambda s: tw.random.normal(tw.shape(s)), [Z], stateful_random=True,
         name="random_normal"),
    Case(lambda m, sd: tw.random.normal([2, 3], mean=m, stddev=sd, dtype=tw.float64, seed=1),
         [np.array(1.0), np.array(2.0)], stateful_random=True, name="random_normal_mean_std"),
    Case(lambda s: tw.random.normal(tw.shape(s), dtype=tw.float16), [Z], stateful_random=True,
         name="random_normal_f16"),
    Case(lambda s: tw.random.uniform(tw.shape(s)), [Z], stateful_random=True,
         name="random_uniform"),
    Case(lambda s: tw.random.uniform(tw.shape(s), -2.0, 5.0, dtype=tw.float64), [Z],
         stateful_random=True, name="random_uniform_range"),
    Case(lambda s: tw.random.uniform(tw.shape(s), 0, 10, dtype=tw.int32), [Z],
         stateful_random=True, name="random_uniform_int32"),
    Case(lambda s: tw.random.uniform(tw.shape(s), -5, 5, dtype=tw.int64), [Z],
         stateful_random=True, name="random_uniform_int64"),
    Case(lambda s: tw.random.truncated_normal(tw.shape(s), stddev=0.5), [Z],
         stateful_random=True, name="truncated_normal"),
    Case(lambda lg: tw.random.categorical(lg, 7), [LOGITS], stateful_random=True,
         name="categorical"),
    Case(lambda lg: tw.random.categorical(lg, 2, dtype=tw.int32), [LOGITS.astype(np.float32)],
         stateful_random=True, name="categorical_int32"),
    Case(tw.random.shuffle, [np.arange(12.0).reshape(4, 3)], stateful_random=True,
         name="random_shuffle"),
    Case(lambda s: tw.random.stateless_normal(tw.shape(s), seed=[1, 2]), [Z],
         stateful_random=True, name="stateless_normal"),
    Case(lambda s: tw.random.stateless_uniform(tw.shape(s), seed=[1, 2], maxval=3.0), [Z],
         stateful_random=True, name="stateless_uniform"),
    Case(lambda s: tw.random.stateless_truncated_normal(tw.shape(s), seed=[3, 4]), [Z],
         stateful_random=True, name="stateless_truncated_normal"),
    Case(lambda a: tw.random.gamma([5], a), [np.array([0.5, 2.0], np.float32)],
         stateful_random=True, name="random_gamma"),
    Case(lambda a, b: tw.random.gamma([2, 3], a, b, dtype=tw.float64),
         [np.array([[1.0], [3.0]]), np.array([1.0, 2.0])], stateful_random=True,
         name="random_gamma_beta"),
    Case(lambda r: tw.random.poisson([4], r), [np.array([1.0, 5.0], np.float32)],
         stateful_random=True, name="random_poisson"),
    Case(lambda r: tw.random.poisson([3], r, dtype=tw.int32), [np.array(2.0)],
         stateful_random=True, name="random_poisson_int"),
    Case(lambda x: tw.nn.dropout(x, 0.5), [rng.normal(size=(4, 5))], stateful_random=True,
         name="dropout"),
]

# The cases above only check shapes and dtypes; values, seeds and distributions are tested here.
COVERED_ELSEWHERE = {
    "RandomStandardNormal": "tests/ops/test_random.py",
    "RandomUniform": "tests/ops/test_random.py",
    "RandomUniformInt": "tests/ops/test_random.py",
    "TruncatedNormal": "tests/ops/test_random.py",
    "Multinomial": "tests/ops/test_random.py",
    "RandomShuffle": "tests/ops/test_random.py",
    "StatelessRandomNormal": "tests/ops/test_random.py",
    "StatelessRandomUniform": "tests/ops/test_random.py",
    "StatelessTruncatedNormal": "tests/ops/test_random.py",
    "RandomGamma": "tests/ops/test_random.py",
    "RandomPoissonV2": "tests/ops/test_random.py",
}
