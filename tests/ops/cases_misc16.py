"""Registry cases for Betainc (values against a series reference, gradient in x),
RaggedFillEmptyRows (+ grad) and StatelessParameterizedTruncatedNormal."""
import math

import numpy as np

import twinflow as tw

from .harness import Case


def _betainc_ref(a, b, x):
    """I_x(a, b) by a direct power series (converges for x < 1)."""
    out = np.empty_like(x)
    for i, (aa, bb, xx) in enumerate(zip(a, b, x)):
        term, total = 1.0, 1.0 / aa
        for n in range(1, 2000):
            term *= (n - bb) * xx / n
            total += term / (aa + n)
        out[i] = total * xx ** aa / math.exp(math.lgamma(aa) + math.lgamma(bb) -
                                             math.lgamma(aa + bb))
    return out


A = np.array([0.5, 2.0, 3.5])
B = np.array([1.5, 2.5, 0.7])
X = np.array([0.2, 0.45, 0.3])

CASES = [
    Case(lambda x: tw.math.betainc(A, B, x), [X], lambda x: _betainc_ref(A, B, x),
         name="betainc", rtol=1e-9),
    Case(lambda v, d: tw.ragged_fill_empty_rows([0, 2], v, 4, d)[1],
         [np.array([1.0, 2.0]), np.array(-1.0)],
         lambda v, d: np.array([v[0], d, v[1], d]), name="ragged_fill_empty_rows",
         graph=False),  # the filled length depends on the data
    Case(lambda r, g: tw.ragged_fill_empty_rows_grad(r, g),
         [np.array([0, 2], np.int64), np.array([1.0, 2.0, 3.0, 4.0])],
         lambda r, g: (np.array([1.0, 3.0]), np.float64(6.0)),
         grad=(), name="ragged_fill_empty_rows_grad"),
    Case(lambda m: tw.random.stateless_parameterized_truncated_normal([3, 2], [1, 2], m, 1.0,
                                                                      -1.0, 1.0),
         [np.zeros(2, np.float32)], None, grad=(), stateful_random=True,
         name="stateless_parameterized_truncated_normal"),
]
COVERED_ELSEWHERE = {
    "RaggedFillEmptyRows": "tests/ops/test_misc16.py::test_ragged_fill_in_a_function"}

CASES.append(Case(lambda: tw.math.sobol_sample(2, 4, dtype=tw.float64), [],
                  lambda: np.array([[0.5, 0.5], [0.75, 0.25], [0.25, 0.75], [0.375, 0.375]]),
                  name="sobol_sample"))
