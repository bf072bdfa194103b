"""ONNX export of single op families (array ops, reductions, control flow, fused groups) and
the exporter's errors."""
from __future__ import annotations

import numpy as np
import pytest

import twinflow as tf

from .helpers import check_same, run, session

F32 = tf.float32


def _spec(*shape, dtype=F32):
    return tf.TensorSpec(list(shape), dtype)


@pytest.mark.parametrize("opset", [13, 17, 18])
def test_reductions_softmax_and_args(opset):
    def f(x):
        return (tf.reduce_mean(x, axis=[1, 2]), tf.reduce_max(x, axis=-1, keepdims=True),
                tf.reduce_sum(x), tf.reduce_min(x, axis=0), tf.reduce_prod(x, axis=1),
                tf.nn.log_softmax(x, axis=1), tf.argmax(x, axis=2), tf.math.cumsum(x, axis=1),
                tf.cast(tf.argmin(x, axis=1, output_type=tf.int32), F32))
    check_same(f, [_spec(None, 3, 4)], [[(2, 3, 4)], [(5, 3, 4)]], opset=opset)


def test_strided_slices_and_shape_ops():
    def f(x):
        b = tf.shape(x)[0]
        return (x[:, 1:, ::2], x[..., -1], x[:, None, 0, ::-1], x[1:, :-1],
                tf.reshape(x, [b, -1]), tf.expand_dims(x, 1), tf.squeeze(x[:, :1], axis=1),
                tf.concat([x, x * 2.0], axis=-1), tf.stack([x, x], axis=1),
                tf.tile(x, [1, 2, 1]), tf.fill(tf.stack([b, 2]), 3.0), tf.zeros_like(x),
                tf.ones_like(x), tf.broadcast_to(x[:, :1, :1], tf.shape(x)),
                tf.slice(x, [0, 1, 0], [-1, 2, 3]), tf.cast(tf.size(x), F32),
                tf.cast(tf.rank(x), F32))
    check_same(f, [_spec(None, 4, 6)], [[(3, 4, 6)], [(1, 4, 6)]])


def test_split_unstack_gather_pad_where():
    def f(x):
        a, b, c = tf.split(x, 3, axis=1)
        d, e = tf.split(x, [2, -1], axis=1)
        rows = tf.unstack(x, axis=1)
        g = tf.gather(x, [2, 0], axis=1)
        p = tf.pad(x, [[0, 0], [1, 2]], constant_values=0.5)
        m = tf.pad(x, [[0, 0], [2, 1]], mode="REFLECT")
        w = tf.where(x > 0.0, x, -x)
        return a + b + c, d, e, rows[3], g, p, m, w, tf.clip_by_value(x, -0.5, 0.5)
    check_same(f, [_spec(None, 6)], [[(4, 6)], [(7, 6)]])


def test_elementwise_table():
    def f(x, y):
        pos = tf.abs(x) + 0.5
        return (tf.math.rsqrt(pos), tf.square(x), tf.math.squared_difference(x, y),
                tf.nn.relu6(x * 4.0), tf.nn.leaky_relu(x, 0.3), tf.math.log1p(pos),
                tf.math.expm1(x), tf.math.log_sigmoid(x), tf.nn.elu(x), tf.nn.selu(x),
                tf.nn.softplus(x), tf.nn.softsign(x), tf.math.floordiv(x, 0.3),
                tf.math.floormod(x, 0.7), tf.cast(tf.not_equal(x, y), F32),
                tf.maximum(x, y) - tf.minimum(x, y), tf.pow(pos, y), tf.math.sign(x),
                tf.round(x * 3.0), tf.add_n([x, y, x]), tf.math.erf(x), tf.sigmoid(y))
    check_same(f, [_spec(None, 5), _spec(None, 5)], [[(3, 5), (3, 5)]])


def test_while_loop_and_cond():
    @tf.function
    def f(x):
        i = tf.constant(0)
        n = tf.shape(x)[0]

        def body(i, acc):
            return i + 1, acc * 0.5 + tf.reduce_sum(x[i])
        _, acc = tf.while_loop(lambda i, acc: i < n, body, [i, tf.constant(1.0)])
        return tf.cond(acc > 0.0, lambda: x * acc, lambda: x - acc)
    check_same(f, [_spec(None, 3)], [[(4, 3)], [(1, 3)], [(6, 3)]], seed=1)
    check_same(f, [_spec(None, 3)], [[(5, 3)]], seed=2)


def test_while_loop_with_maximum_iterations():
    @tf.function
    def f(x):
        return tf.while_loop(lambda v: tf.reduce_sum(v) < 100.0, lambda v: v * 2.0 + 1.0,
                             [x], maximum_iterations=3)[0]
    check_same(f, [_spec(None)], [[(2,)], [(4,)]])


def test_fused_elementwise_groups_expand_into_steps():
    @tf.function
    def f(x):
        return tf.nn.relu(x * 2.0 + 1.0) - tf.sigmoid(x)
    spec = [_spec(64, 512)]
    cf = f.get_concrete_function(*spec)
    assert "FusedElementwise" in {op.type for op in cf.optimized_graph.get_operations()}
    sess = session(tf.onnx.export(cf))
    x = np.random.default_rng(0).normal(size=(64, 512)).astype(np.float32)
    np.testing.assert_allclose(run(sess, x)[0], f(x).numpy(), rtol=1e-6, atol=1e-6)


def test_unsupported_op_names_the_op_and_the_line():
    @tf.function
    def f(x):
        return tf.linalg.det(x)
    with pytest.raises(tf.errors.UnimplementedError) as e:
        tf.onnx.export(f, [_spec(None, 3, 3)])
    msg = str(e.value)
    assert "MatrixDeterminant" in msg and "test_ops.py" in msg and "tf.linalg.det(x)" in msg
    assert "MatrixDeterminant" not in tf.onnx.supported_ops()
    assert "Conv2D" in tf.onnx.supported_ops()


def test_bad_arguments():
    f = tf.function(lambda x: x + 1.0)
    with pytest.raises(ValueError, match="input_signature"):
        tf.onnx.export(f)
    signed = tf.function(lambda x: x + 1.0, input_signature=[_spec(None, 2)])
    x = np.ones((3, 2), np.float32)
    np.testing.assert_array_equal(run(session(tf.onnx.export(signed)), x)[0], x + 1)
    with pytest.raises(TypeError, match="TensorSpec"):
        tf.onnx.export(f, [np.zeros(3)])
    with pytest.raises(tf.errors.InvalidArgumentError, match="opset"):
        tf.onnx.export(f, [_spec(3)], opset=7)
    cf = f.get_concrete_function(_spec(3))
    with pytest.raises(ValueError, match="ConcreteFunction"):
        tf.onnx.export(cf, [_spec(3)])
    with pytest.raises(TypeError, match="converts"):
        tf.onnx.export(42, [_spec(3)])


def test_plain_callable_and_int_inputs():
    def f(i, x):
        return tf.gather(x, i), tf.cast(i * 2, F32)
    sess = session(tf.onnx.export(f, [_spec(None, dtype=tf.int32), _spec(4, 2)]))
    i = np.array([3, 0, 1], np.int32)
    x = np.arange(8, dtype=np.float32).reshape(4, 2)
    got = run(sess, i, x)
    np.testing.assert_array_equal(got[0], x[i])
    np.testing.assert_array_equal(got[1], (i * 2).astype(np.float32))


def test_conv3d_pool3d_and_switch_case():
    rng = np.random.default_rng(5)
    w = tf.constant(rng.normal(size=(2, 2, 2, 2, 3)).astype(np.float32))

    @tf.function
    def f(x, i):
        y = tf.nn.conv3d(x, w, strides=[1, 1, 2, 1, 1], padding="SAME")
        branches = [lambda: y * 1.0, lambda: y * 2.0, lambda: -y]
        return (tf.nn.max_pool3d(y, 2, 2, "VALID"), tf.nn.avg_pool3d(y, 2, 1, "SAME"),
                tf.switch_case(i, branches))
    sess = session(tf.onnx.export(f, [_spec(None, 4, 4, 4, 2), _spec(dtype=tf.int32)]))
    x = rng.normal(size=(2, 4, 4, 4, 2)).astype(np.float32)
    for i in (-1, 0, 1, 2, 7):      # out of range runs the last branch
        i = np.array(i, np.int32)
        for got, want in zip(run(sess, x, i), f(tf.constant(x), tf.constant(i))):
            np.testing.assert_allclose(got, want.numpy(), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("opset", [13, 14])
def test_reshape_and_output_names_at_old_and_new_opsets(opset):
    @tf.function
    def f(x):
        output_0 = tf.identity(x, name="output_0")   # an op named like the graph output
        return tf.reshape(output_0, [-1, 2]), tf.reshape(x, [tf.shape(x)[0], 3, 2])
    sess = check_same(f, [_spec(None, 6)], [[(2, 6)], [(3, 6)]], opset=opset)
    assert [o.name for o in sess.get_outputs()] == ["output_0", "output_1"]
    if opset == 13:
        g = tf.function(lambda x: tf.reshape(x, [0, 2, 2]))
        with pytest.raises(tf.errors.UnimplementedError, match="opset 14"):
            tf.onnx.export(g, [_spec(0, 4)], opset=13)


def test_split_of_an_unknown_dim_at_opset_18():
    def f(x):
        a, b = tf.split(x, 2, axis=1)
        return a - b
    check_same(f, [_spec(2, None)], [[(2, 4)], [(2, 10)]], opset=18)
    with pytest.raises(tf.errors.UnimplementedError, match="unknown"):
        tf.onnx.export(f, [_spec(2, None)], opset=17)
