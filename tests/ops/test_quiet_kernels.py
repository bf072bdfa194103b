"""Kernels return inf / nan silently, as TensorFlow does: no NumPy RuntimeWarning escapes.

(``eager/execute.py`` also ignores RuntimeWarnings raised from twinflow's own frames; pytest
drops that filter, so these kernels must be quiet by themselves through ``ops.core.quietly``.)
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import twinflow as tw

INF = np.inf
MIX = [INF, -INF, 1.0]
BIG = [3e38, 3e38, 1.0]

CASES = {
    "sparse_xent": lambda: tw.nn.sparse_softmax_cross_entropy_with_logits(
        tw.constant([0, 1]), tw.constant([[INF, -INF], [1.0, 2.0]])),
    "sparse_xent_3d": lambda: tw.nn.sparse_softmax_cross_entropy_with_logits(
        tw.constant([[0, 1]]), tw.constant([[[INF, 1.0], [-INF, -INF]]])),
    "softmax": lambda: tw.nn.softmax(tw.constant([[INF, 1.0]])),
    "log_softmax": lambda: tw.nn.log_softmax(tw.constant([[INF, 1.0]])),
    "reduce_sum": lambda: tw.reduce_sum(tw.constant(BIG)),
    "reduce_sum_nan": lambda: tw.reduce_sum(tw.constant(MIX)),
    "reduce_prod": lambda: tw.reduce_prod(tw.constant(BIG)),
    "cumsum": lambda: tw.math.cumsum(tw.constant(MIX)),
    "cumprod": lambda: tw.math.cumprod(tw.constant(BIG)),
    "function_sum": lambda: tw.function(tw.reduce_sum)(tw.constant(BIG)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_no_runtime_warning(name):
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        out = CASES[name]()
    assert not np.isfinite(np.asarray(tw.nest.flatten(out)[0])).all()
