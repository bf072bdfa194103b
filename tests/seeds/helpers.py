"""Helpers shared by the seed tests: run a function as a graph and eagerly, and compare."""
from __future__ import annotations

import numpy as np

import twinflow as tf


def graph_and_eager(fn, *args):
    """Runs ``fn`` as a tw.function and eagerly; returns (graph result, eager result).

    ``fn`` may be a plain Python function or a tw.function already. The graph run does not
    depend on the global ``run_functions_eagerly`` setting (several seeds switch it on).
    """
    g = fn if hasattr(fn, "get_concrete_function") else tf.function(fn)
    with tf.config.run_functions_eagerly(False):
        graph = g(*args)
    with tf.config.run_functions_eagerly(True):
        eager = g(*args)
    return graph, eager


def assert_same(a, b):
    """The two (nested) results hold the same dtypes and values."""
    a, b = tf.nest.flatten(a), tf.nest.flatten(b)
    assert len(a) == len(b)
    for x, y in zip(a, b):
        # Eagerly a branch may return a Python number (simple_relu's 0): compare values.
        if isinstance(x, tf.Tensor) and isinstance(y, tf.Tensor):
            assert x.dtype == y.dtype
        np.testing.assert_allclose(np.asarray(x), np.asarray(y), rtol=1e-5, atol=1e-6)


def op_types(fn, *args) -> list:
    """The op types of the graph that the tw.function ``fn`` traces for ``args``."""
    cf = fn.get_concrete_function(*args)
    return [op.type for op in cf.graph.get_operations()]
