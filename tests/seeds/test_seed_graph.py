"""tw.function behaviour the seed articles rely on but do not show as an example.

Seed 001 says a Function keeps one graph per input signature and that a concrete function's
graph prints as a GraphDef; these tests check both on functions of their own. The articles'
examples themselves (tf.function, tracing, AutoGraph's simple_relu, power, tf.Session) are
tested once, in test_seed_verbatim.py.
"""
from __future__ import annotations

import twinflow as tf


def test_001_polymorphism_one_graph_per_signature():
    @tf.function
    def double(a):
        return a + a

    double(tf.constant(1))
    double(tf.constant(1.1))
    double(tf.constant("a"))
    double(tf.constant(2))
    assert double.experimental_get_tracing_count() == 3
    cf = double.get_concrete_function(tf.constant(1.0))
    assert cf(tf.constant(2.5)).numpy() == 5.0


def test_001_graph_def_of_a_concrete_function():
    def simple_relu(x):
        return tf.maximum(x, 0)

    tf_simple_relu = tf.function(simple_relu)
    text = str(tf_simple_relu.get_concrete_function(tf.constant(1)).graph.as_graph_def())
    assert text.startswith('node {\n  name: "x"\n  op: "Placeholder"')
    assert 'op: "Maximum"' in text and "versions {" in text
