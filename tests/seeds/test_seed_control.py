"""Control flow near the seeds' examples, as graphs (AutoGraph) and eagerly.

The articles' own control-flow examples (simple_relu, my_function, dynamic_function,
fizzbuzz, the line search, the hybrid model's while_loop) are tested once, with their
graph-vs-eager checks, in test_seed_verbatim.py. What stays here is framework behaviour those
examples lean on, on functions of its own: seed 002's map_fn over a data-dependent branch
under a tape, a data-dependent Python while, and while_loop's handling of a loop variable that
grows without shape_invariants.
"""
from __future__ import annotations

import numpy as np
import pytest

import twinflow as tf

from .helpers import assert_same, graph_and_eager, op_types

# ----- seed 002: map_fn with a data-dependent branch, under a tape ---------------------------

def custom_operation(tensor):
    mean_val = tf.reduce_mean(tensor)
    if mean_val > 0:
        return tf.sin(tensor) * 0.5
    else:
        return tf.cos(tensor) * 0.3


def test_map_fn_with_branch_and_gradient():
    # Seed 002's custom_operation, at module level (the next test defines it inside the
    # method, as the article does).
    def run(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            h2 = tf.map_fn(custom_operation, x)
            loss = tf.reduce_sum(h2)
        return h2, tape.gradient(loss, x)
    x = tf.constant(np.random.default_rng(2).normal(size=(4, 3)).astype(np.float32))
    assert_same(*graph_and_eager(run, x))


def test_nested_def_returning_from_if_else_in_graph():
    # Seed 002 defines custom_operation inside the method it runs in. AutoGraph once left the
    # `return`s in its if/else unconverted (the if_stmt's value was dropped and the function
    # returned None): a function defined in converted code must be converted completely.
    def run(x):
        def op(t):
            if tf.reduce_mean(t) > 0:
                return tf.sin(t) * 0.5
            else:
                return tf.cos(t) * 0.3
        return tf.map_fn(op, x)
    x = tf.constant(np.random.default_rng(2).normal(size=(4, 3)).astype(np.float32))
    graph, eager = graph_and_eager(run, x)
    assert_same(graph, eager)
    mean = np.asarray(x).mean(axis=1, keepdims=True)
    np.testing.assert_allclose(np.asarray(graph), np.where(
        mean > 0, np.sin(np.asarray(x)) * 0.5, np.cos(np.asarray(x)) * 0.3), rtol=1e-5)


def test_nested_def_in_method_under_tape_as_seed_002():
    class Model:
        def complex_forward_pass(self, x):
            def custom_operation(tensor):
                mean_val = tf.reduce_mean(tensor)
                if mean_val > 0:
                    return tf.sin(tensor) * 0.5
                else:
                    return tf.cos(tensor) * 0.3
            with tf.GradientTape() as tape:
                tape.watch(x)
                h2 = tf.map_fn(custom_operation, x)
                loss = tf.reduce_sum(h2)
            return h2, tape.gradient(loss, x)
    x = tf.constant(np.random.default_rng(3).normal(size=(5, 3)).astype(np.float32))
    assert_same(*graph_and_eager(Model().complex_forward_pass, x))


# ----- data-dependent Python while -------------------------------------------------------------

def test_data_dependent_while_traces_once_one_while_op():
    @tf.function
    def collatz_steps(n):
        steps = 0
        while n != 1:
            if n % 2 == 0:
                n = n // 2
            else:
                n = 3 * n + 1
            steps += 1
        return steps
    assert int(collatz_steps(tf.constant(6))) == 8
    assert int(collatz_steps(tf.constant(27))) == 111
    assert int(collatz_steps(tf.constant(1))) == 0
    assert collatz_steps.experimental_get_tracing_count() == 1
    types = op_types(collatz_steps, tf.constant(6))
    assert types.count("While") + types.count("StatelessWhile") == 1


# ----- seed 002: a while_loop variable that grows without shape_invariants ---------------------

def test_while_loop_relaxes_a_dim_the_body_leaves_unknown():
    # Seed 002 grows a loop variable along a dynamic dim without shape_invariants: TensorFlow
    # raises; twinflow relaxes the dim (the static shape must not claim the entry's 0) and
    # traces again. A known dim that changes still raises, as in TensorFlow.
    @tf.function(input_signature=[tf.TensorSpec([None, None])])
    def grow(x):
        def body(i, out):
            return i + 1, tf.concat([out, x[:, i:i + 1] * 2.0], axis=1)
        _, out = tf.while_loop(lambda i, _: i < tf.shape(x)[1], body,
                               [0, tf.zeros([tf.shape(x)[0], 0])])
        return out

    x = tf.constant(np.arange(6, dtype=np.float32).reshape(2, 3))
    np.testing.assert_array_equal(grow(x).numpy(), x.numpy() * 2.0)
    assert grow.get_concrete_function().structured_outputs.shape.as_list() == [None, None]
    with tf.config.run_functions_eagerly(True):
        np.testing.assert_array_equal(grow(x).numpy(), x.numpy() * 2.0)

    @tf.function
    def doubling(v):
        return tf.while_loop(lambda v: tf.size(v) < 8, lambda v: [tf.concat([v, v], 0)], [v])

    with pytest.raises(ValueError, match=r"shape \(2,\) but has shape \(4,\).*shape_invariants"):
        doubling(tf.constant([1.0, 2.0]))
