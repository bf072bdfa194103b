"""ONNX export of the model families of issue 14 (MLP, convnet, RNN, transformer block), each
run by onnxruntime at batch sizes other than the traced (None) one."""
from __future__ import annotations

import numpy as np
import pytest

import twinflow as tf

from .helpers import check_same, onnx, run, session

k = tf.keras


def test_mlp_dynamic_batch_and_initializers():
    tf.keras.utils.set_random_seed(1)
    model = k.Sequential([k.Input((8,)), k.layers.Dense(16, activation="relu"),
                          k.layers.Dense(4, activation="softmax")])
    spec = [tf.TensorSpec([None, 8], tf.float32)]
    proto = tf.onnx.export(model, spec)
    dim = proto.graph.input[0].type.tensor_type.shape.dim
    assert dim[0].dim_param == "batch" and dim[1].dim_value == 8
    # the variables are initializers holding their values
    inits = {i.name: onnx.numpy_helper.to_array(i) for i in proto.graph.initializer}
    kernel = model.layers[0].kernel.numpy()
    assert any(v.shape == kernel.shape and np.array_equal(v, kernel) for v in inits.values())
    check_same(model, spec, [[(1, 8)], [(5, 8)], [(17, 8)]])


def test_convnet_conv_pool_batchnorm():
    tf.keras.utils.set_random_seed(2)
    model = k.Sequential([
        k.Input((9, 9, 3)),
        k.layers.Conv2D(4, 3, padding="same", activation="relu"),
        k.layers.BatchNormalization(),
        k.layers.MaxPooling2D(),
        k.layers.Conv2D(5, 2, strides=2, padding="valid"),
        k.layers.AveragePooling2D(padding="same"),
        k.layers.Flatten(), k.layers.Dense(3)])
    # give the batch norm statistics that are not the identity
    bn = model.layers[1]
    bn.moving_mean.assign(np.linspace(-1, 1, 4).astype(np.float32))
    bn.moving_variance.assign(np.linspace(0.5, 2, 4).astype(np.float32))
    check_same(model, [tf.TensorSpec([None, 9, 9, 3], tf.float32)],
               [[(2, 9, 9, 3)], [(6, 9, 9, 3)]], rtol=1e-4, atol=1e-5)


def test_conv_bias_relu_remapped_by_the_compiler_exports_as_conv_with_bias_then_relu():
    tf.keras.utils.set_random_seed(3)
    model = k.Sequential([k.Input((7, 7, 2)),
                          k.layers.Conv2D(16, 3, activation="relu"), k.layers.Flatten()])
    spec = [tf.TensorSpec([None, 7, 7, 2], tf.float32)]
    cf = tf.function(lambda x: model(x)).get_concrete_function(*spec)
    assert cf.pass_stats["remap"] == 1    # (the program ONNX export reads)
    proto = tf.onnx.export(model, spec)
    conv = [n for n in proto.graph.node if n.op_type == "Conv"]
    assert len(conv) == 1 and len(conv[0].input) == 3      # x, w, bias
    assert any(n.op_type == "Relu" for n in proto.graph.node)
    check_same(model, spec, [[(3, 7, 7, 2)]], rtol=1e-4, atol=1e-5)


def test_depthwise_and_dilated_conv_with_odd_same_padding():
    rng = np.random.default_rng(3)
    w = tf.constant(rng.normal(size=(3, 3, 2, 3)).astype(np.float32))
    dw = tf.constant(rng.normal(size=(2, 2, 3, 2)).astype(np.float32))

    def f(x):
        y = tf.nn.conv2d(x, w, strides=2, padding="SAME", dilations=1)
        y = tf.nn.depthwise_conv2d(y, dw, strides=[1, 1, 1, 1], padding="SAME")
        return tf.nn.conv2d(x, w, strides=1, padding="SAME", dilations=2), y
    check_same(f, [tf.TensorSpec([None, 8, 7, 2], tf.float32)], [[(2, 8, 7, 2)]],
               rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("layer", ["LSTM", "GRU"])
def test_rnn_fixed_length_unrolled(layer):
    tf.keras.utils.set_random_seed(4)
    cls = getattr(k.layers, layer)
    model = k.Sequential([k.Input((5, 3)), cls(6, return_sequences=True), cls(4)])
    check_same(model, [tf.TensorSpec([None, 5, 3], tf.float32)], [[(2, 5, 3)], [(9, 5, 3)]])


@pytest.mark.parametrize("layer, opset", [("LSTM", 13), ("GRU", 18)])
def test_rnn_any_length_is_an_onnx_loop(layer, opset):
    tf.keras.utils.set_random_seed(5)
    model = k.Sequential([k.Input((None, 3)), getattr(k.layers, layer)(6,
                                                                       return_sequences=True)])
    spec = [tf.TensorSpec([None, None, 3], tf.float32)]
    proto = tf.onnx.export(model, spec, opset=opset)
    assert "Loop" in {n.op_type for n in proto.graph.node}
    check_same(model, spec, [[(2, 4, 3)], [(3, 11, 3)], [(1, 1, 3)]], opset=opset)


def test_transformer_block():
    tf.keras.utils.set_random_seed(6)
    inp = k.Input((6, 8))
    att = k.layers.MultiHeadAttention(2, 4)(inp, inp)
    x = k.layers.LayerNormalization()(k.layers.Add()([att, inp]))
    y = k.layers.Dense(16, activation="gelu")(x)
    y = k.layers.Dense(8)(y)
    out = k.layers.LayerNormalization()(k.layers.Add()([x, y]))
    model = k.Model(inp, out)
    check_same(model, [tf.TensorSpec([None, 6, 8], tf.float32)], [[(1, 6, 8)], [(4, 6, 8)]],
               rtol=1e-4, atol=1e-5)


def test_hand_written_attention_with_batch_matmul():
    rng = np.random.default_rng(7)
    wq = tf.Variable(rng.normal(size=(8, 8)).astype(np.float32))

    @tf.function
    def attend(x):
        q = tf.reshape(x @ wq, [-1, 6, 2, 4])
        q = tf.transpose(q, [0, 2, 1, 3])
        scores = tf.matmul(q, q, transpose_b=True) / 2.0
        w = tf.nn.softmax(scores, axis=-1)
        out = tf.transpose(tf.matmul(w, q), [0, 2, 1, 3])
        out = tf.reshape(out, [tf.shape(x)[0], 6, 8])
        mean, var = tf.nn.moments(out, axes=[-1], keepdims=True)
        return tf.nn.gelu((out - mean) * tf.math.rsqrt(var + 1e-3), approximate=True)
    check_same(attend, [tf.TensorSpec([None, 6, 8], tf.float32)], [[(3, 6, 8)]],
               rtol=1e-4, atol=1e-5)


def test_export_writes_the_file(tmp_path):
    model = k.Sequential([k.Input((3,)), k.layers.Dense(2)])
    path = tmp_path / "m.onnx"
    proto = tf.onnx.export(model, [tf.TensorSpec([None, 3], tf.float32)], path)
    assert onnx.load(str(path)) == proto
    x = np.ones((4, 3), np.float32)
    np.testing.assert_allclose(run(session(proto), x)[0], model(x).numpy(), rtol=1e-6)


L = k.layers
MORE_LAYERS = {
    "conv_transpose": ([L.Conv2DTranspose(3, 3, strides=2, padding="same"),
                        L.Conv2DTranspose(2, 2, strides=2, padding="valid")], [None, 5, 5, 2]),
    "upsampling_padding": ([L.UpSampling2D(), L.ZeroPadding2D(1), L.Cropping2D(1),
                            L.SeparableConv2D(3, 3), L.GlobalAveragePooling2D()],
                           [None, 4, 4, 2]),
    "conv1d": ([L.Conv1D(4, 3, padding="causal"), L.MaxPooling1D(), L.GlobalMaxPooling1D()],
               [None, 8, 3]),
    "bidirectional_any_length": ([L.Masking(), L.Bidirectional(L.GRU(3, return_sequences=True)),
                                  L.SimpleRNN(2)], [None, None, 3]),
    "norms_activations": ([L.GroupNormalization(2), L.PReLU(), L.Activation("swish"),
                           L.Reshape((8, 2)), L.Permute((2, 1)), L.Flatten()], [None, 4, 4]),
}


@pytest.mark.parametrize("name", sorted(MORE_LAYERS))
def test_more_keras_layers(name):
    tf.keras.utils.set_random_seed(8)
    layers, shape = MORE_LAYERS[name]
    model = k.Sequential([k.Input(shape[1:])] + layers)
    dims = [2 if d is None else d for d in shape]
    dims2 = [5 if d is None else d for d in shape]
    check_same(model, [tf.TensorSpec(shape, tf.float32)], [[tuple(dims)], [tuple(dims2)]],
               rtol=1e-4, atol=1e-5)


def test_embedding_one_hot_where_reverse():
    tf.keras.utils.set_random_seed(9)
    emb = L.Embedding(10, 4)
    emb.build((None,))

    @tf.function
    def f(ids):
        hot = tf.one_hot(ids, 6, on_value=2.0, off_value=-1.0, axis=1)
        pos = tf.cast(tf.where(ids > 4), tf.float32)
        return emb(ids), hot, pos, tf.reverse(emb(ids), axis=[0, 1])
    spec = [tf.TensorSpec([None], tf.int32)]
    sess = session(tf.onnx.export(f, spec))
    ids = np.array([3, 9, 0, 5, 1, 7], np.int32)
    for got, want in zip(run(sess, ids), f(ids)):
        np.testing.assert_allclose(got, want.numpy(), rtol=1e-6)
    ids = np.array([5, 6, 2], np.int32)    # 6 is out of one_hot's depth: all off
    for got, want in zip(run(sess, ids), f(ids)):
        np.testing.assert_allclose(got, want.numpy(), rtol=1e-6)
