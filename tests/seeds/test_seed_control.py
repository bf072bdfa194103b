"""The seeds' control-flow examples, run eagerly and as graphs (AutoGraph), must agree."""
from __future__ import annotations

import numpy as np
import pytest

import twinflow as tf


def _graph_and_eager(fn, *args):
    """Runs ``fn`` as a tw.function and eagerly; returns (graph result, eager result)."""
    g = tf.function(fn)
    graph = g(*args)
    with tf.config.run_functions_eagerly(True):
        eager = g(*args)
    return graph, eager


def _assert_same(a, b):
    a, b = tf.nest.flatten(a), tf.nest.flatten(b)
    assert len(a) == len(b)
    for x, y in zip(a, b):
        # Eagerly a branch may return a Python number (simple_relu's 0): compare values.
        if isinstance(x, tf.Tensor) and isinstance(y, tf.Tensor):
            assert x.dtype == y.dtype
        np.testing.assert_allclose(np.asarray(x), np.asarray(y), rtol=1e-5, atol=1e-6)


def _op_types(fn, *args) -> list:
    cf = fn.get_concrete_function(*args)
    return [op.type for op in cf.graph.get_operations()]


# ----- seed 001: simple_relu, to_code, as_graph_def -----------------------------------------

def simple_relu(x):
    if tf.greater(x, 0):
        return x
    else:
        return 0


def test_simple_relu_graph_matches_eager():
    for v in (1, -3, 0):
        graph, eager = _graph_and_eager(simple_relu, tf.constant(v))
        _assert_same(graph, eager)
    tf_simple_relu = tf.function(simple_relu)
    assert "StatelessIf" in _op_types(tf_simple_relu, tf.constant(1))
    code = tf.autograph.to_code(simple_relu)
    assert "ag__.if_stmt" in code and "def if_body" in code
    gd = str(tf_simple_relu.get_concrete_function(tf.constant(1)).graph.as_graph_def())
    assert 'op: "StatelessIf"' in gd


# ----- seed 003: my_function (reduce_sum > 0) ------------------------------------------------

def my_function(x):
    if tf.reduce_sum(x) > 0:
        return x * x
    else:
        return -x


def test_my_function():
    f = tf.function(my_function)
    np.testing.assert_allclose(f(tf.constant([1.0, 2.0, 3.0])).numpy(), [1, 4, 9])
    np.testing.assert_allclose(f(tf.constant([-1.0, -2.0, -3.0])).numpy(), [1, 2, 3])
    assert f.experimental_get_tracing_count() == 1
    for v in ([1.0, 2.0, 3.0], [-1.0, -2.0, -3.0]):
        _assert_same(*_graph_and_eager(my_function, tf.constant(v)))


# ----- seed 000: dynamic_function --------------------------------------------------------------

def dynamic_function(x):
    if tf.reduce_sum(x) > 0:
        return x * 2
    else:
        return x / 2


def test_dynamic_function_float_agrees():
    for v in ([1.0, 2.0, 3.0], [-1.0, -2.0, -3.0]):
        _assert_same(*_graph_and_eager(dynamic_function, tf.constant(v)))


def test_dynamic_function_int_explains_dtype_mismatch():
    # The seed calls it on int32 tensors: eagerly the branches return int32 (x * 2) and
    # float64 (x / 2). One graph cannot return either dtype, so (like TensorFlow) the graph
    # version refuses, and the error names both dtypes and says how to fix it.
    assert dynamic_function(tf.constant([1, 2, 3])).dtype == tf.int32
    assert dynamic_function(tf.constant([-1, -2, -3])).dtype == tf.float64
    with pytest.raises(TypeError) as e:
        tf.function(dynamic_function)(tf.constant([1, 2, 3]))
    msg = str(e.value)
    assert "return value" in msg and "int32" in msg and "float64" in msg and "tw.cast" in msg


# ----- seed 004: fizzbuzz over tf.range --------------------------------------------------------

def fizzbuzz(max_num):
    counter = tf.constant(0)
    max_num = tf.convert_to_tensor(max_num)
    for num in tf.range(1, max_num + 1):
        if num % 3 == 0 and num % 5 == 0:
            tf.print("FizzBuzz")
        elif num % 3 == 0:
            tf.print("Fizz")
        elif num % 5 == 0:
            tf.print("Buzz")
        else:
            tf.print(num)
        counter += 1
    return counter


def test_fizzbuzz_graph(capsys):
    f = tf.function(fizzbuzz)
    assert int(f(tf.constant(15))) == 15
    out = capsys.readouterr()
    text = (out.out + out.err).split()
    assert text == "1 2 Fizz 4 Buzz Fizz 7 8 Fizz Buzz 11 Fizz 13 14 FizzBuzz".split()
    assert int(f(tf.constant(5))) == 5
    assert f.experimental_get_tracing_count() == 1
    types = _op_types(f, tf.constant(15))
    assert types.count("While") + types.count("StatelessWhile") == 1


# ----- seed 004: backtracking line search -----------------------------------------------------

def line_search_step(fn, init_x, rate=1.0):
    with tf.GradientTape() as tape:
        tape.watch(init_x)
        value = fn(init_x)
    grad = tape.gradient(value, init_x)
    grad_norm = tf.reduce_sum(grad * grad)
    init_value = value
    while value > init_value - rate * grad_norm:
        x = init_x - rate * grad
        value = fn(x)
        rate /= 2.0
    return x, value


def _quadratic(x):
    return tf.reduce_sum((x - 3.0) * (x - 3.0))


def test_line_search_graph_matches_eager():
    def step(x):
        return line_search_step(_quadratic, x)
    for v in ([0.0, 1.0], [10.0, -4.0]):
        _assert_same(*_graph_and_eager(step, tf.constant(v)))


# ----- seed 002: dynamic model with while_loop / TensorArray, input_signature -----------------

class _Model:
    """The seed's HybridModel, without Keras: dense layers as variables.

    The seed is not valid TensorFlow as written (it slices a 2-D tensor with three indices and
    grows a loop variable without shape_invariants); this is what it plainly means: process
    each column i of the first layer's output with dense2 and concatenate the results.
    """

    def __init__(self, units=3):
        rng = np.random.default_rng(0)
        self.w1 = tf.Variable(rng.normal(size=(4, 5)).astype(np.float32))
        self.w2 = tf.Variable(rng.normal(size=(1, units)).astype(np.float32))
        self.units = units

    @tf.function(input_signature=[tf.TensorSpec(shape=[None, None], dtype=tf.float32),
                                  tf.TensorSpec(shape=[], dtype=tf.bool)])
    def dynamic_shape_model(self, x, training=True):
        batch_size = tf.shape(x)[0]
        if training:
            x = tf.matmul(x, self.w1) * 2.0
        else:
            x = tf.matmul(x, self.w1)
        seq_length = tf.shape(x)[1]

        def body(i, output):
            slice_i = x[:, i:i + 1]
            processed = tf.matmul(slice_i, self.w2)
            return i + 1, tf.concat([output, processed], axis=1)

        output_ta = tf.TensorArray(dtype=tf.float32, size=0, dynamic_size=True)
        _, final_output = tf.while_loop(
            cond=lambda i, _: i < seq_length, body=body,
            loop_vars=[0, tf.zeros([batch_size, 0])],
            shape_invariants=[tf.TensorShape([]), tf.TensorShape([None, None])])
        output_ta = output_ta.write(0, final_output)
        return output_ta.stack()[0]


def test_seed_002_dynamic_model():
    m = _Model()
    x = tf.constant(np.random.default_rng(1).normal(size=(2, 4)).astype(np.float32))
    for training in (True, False):
        out = m.dynamic_shape_model(x, tf.constant(training))
        h = x.numpy() @ m.w1.numpy() * (2.0 if training else 1.0)
        ref = np.concatenate([h[:, i:i + 1] @ m.w2.numpy() for i in range(5)], axis=1)
        np.testing.assert_allclose(out.numpy(), ref, rtol=1e-5, atol=1e-5)
    x3 = tf.constant(np.ones((3, 4), np.float32))
    assert m.dynamic_shape_model(x3, tf.constant(False)).shape == (3, 15)
    assert m.dynamic_shape_model.experimental_get_tracing_count() == 1


# ----- seed 002: map_fn with a data-dependent branch, under a tape ---------------------------

def custom_operation(tensor):
    mean_val = tf.reduce_mean(tensor)
    if mean_val > 0:
        return tf.sin(tensor) * 0.5
    else:
        return tf.cos(tensor) * 0.3


def test_map_fn_with_branch_and_gradient():
    def run(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            h2 = tf.map_fn(custom_operation, x)
            loss = tf.reduce_sum(h2)
        return h2, tape.gradient(loss, x)
    x = tf.constant(np.random.default_rng(2).normal(size=(4, 3)).astype(np.float32))
    _assert_same(*_graph_and_eager(run, x))


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
    types = _op_types(collatz_steps, tf.constant(6))
    assert types.count("While") + types.count("StatelessWhile") == 1


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
