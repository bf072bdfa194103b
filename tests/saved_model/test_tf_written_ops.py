"""SavedModels TensorFlow 2.21 wrote whose functions use TensorFlow's forms of ops: 4-element
conv/pool window attrs and explicit paddings, reductions with scalar axes, and the TensorList
ops of a Keras LSTM (fixtures: tests/fixtures/saved_model/make_fixtures.py)."""
import os

import numpy as np
import pytest

import twinflow as tw

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "fixtures", "saved_model")


@pytest.fixture(scope="module")
def expected():
    return np.load(os.path.join(FIXTURES, "expected_ops.npz"))


@pytest.fixture(scope="module")
def ops():
    return tw.saved_model.load(os.path.join(FIXTURES, "tf_ops"))


def test_conv_and_pool_with_tensorflows_window_attrs(ops, expected):
    out = ops.conv(expected["x_conv"])
    assert sorted(out) == ["avg_pool", "depthwise", "dilated", "explicit", "max_pool",
                           "strided"]
    for k, v in out.items():
        np.testing.assert_allclose(v.numpy(), expected[f"conv_{k}"], rtol=1e-4, atol=1e-5,
                                   err_msg=k)


def test_conv_gradient_through_the_loaded_function(ops, expected):
    x = tw.constant(expected["x_conv"])
    with tw.GradientTape() as tape:
        tape.watch(x)
        y = tw.reduce_sum(ops.conv(x)["explicit"])
    dx, dk = tape.gradient(y, [x, ops.k])
    assert dx.shape == x.shape and dk.shape == ops.k.shape
    # d(sum of the conv)/dk[i, j, c, o] = sum of the padded input under tap (i, j), channel c
    padded = np.pad(expected["x_conv"], [(0, 0), (1, 2), (0, 1), (0, 0)])
    ref = np.stack([np.stack([padded[:, i:i + 9, j:j + 7].sum((0, 1, 2)) for j in range(3)])
                    for i in range(3)])
    np.testing.assert_allclose(dk.numpy(), np.repeat(ref[..., None], 3, -1), rtol=1e-4)


def test_reductions_take_scalar_and_vector_axes(ops, expected):
    out = ops.reduce(expected["x_reduce"])
    assert len(out) == 11
    for k, v in out.items():
        np.testing.assert_allclose(v.numpy(), expected[f"reduce_{k}"], rtol=1e-5, atol=1e-6,
                                   err_msg=k)
        assert v.dtype.as_numpy_dtype == expected[f"reduce_{k}"].dtype, k


def test_a_keras_lstm_tensorflow_wrote_loads(expected):
    m = tw.saved_model.load(os.path.join(FIXTURES, "tf_lstm"))
    y = m(expected["x_lstm"])
    np.testing.assert_allclose(y.numpy(), expected["lstm"], rtol=1e-5, atol=1e-6)
    assert len(m.trainable_variables) == 3
    x = tw.constant(expected["x_lstm"])
    with tw.GradientTape() as tape:
        loss = tw.reduce_sum(m(x) ** 2)
    grads = tape.gradient(loss, m.trainable_variables)
    for v, g in zip(m.trainable_variables, grads):  # TensorFlow's gradients, by shape
        ref = expected["dlstm_" + "x".join(map(str, v.shape.as_list()))]
        np.testing.assert_allclose(g.numpy(), ref, rtol=1e-4, atol=1e-6)


def test_a_keras_export_tensorflow_wrote_has_its_variables():
    k = tw.saved_model.load(os.path.join(FIXTURES, "tf_keras"))
    assert len(k.variables) == 4 and len(k.trainable_variables) == 4
    assert not k.non_trainable_variables
    assert sorted(v.shape.as_list() for v in k.variables) == [[2], [3, 4], [4], [4, 2]]


def test_explicit_paddings_and_depthwise_attrs_are_written_as_tensorflows(tmp_path):
    class Conv(tw.Module):
        def __init__(self):
            super().__init__()
            self.w = tw.Variable(np.linspace(-1, 1, 36, dtype=np.float32).reshape(3, 3, 2, 2))

        @tw.function(input_signature=[tw.TensorSpec([None, 6, 6, 2], tw.float32)])
        def __call__(self, x):
            y = tw.nn.conv2d(x, self.w, 1, [[0, 0], [1, 2], [0, 1], [0, 0]])
            return tw.nn.depthwise_conv2d(y, self.w, [1, 2, 2, 1], "SAME")

    m, d = Conv(), str(tmp_path / "conv")
    tw.saved_model.save(m, d)
    from twinflow.saved_model.load import read_saved_model
    lib = read_saved_model(d).meta_graphs[0].graph_def.library
    nodes = {n.op: n for f in lib.function for n in f.node_def}
    conv, dw = nodes["Conv2D"], nodes["DepthwiseConv2dNative"]
    assert conv.attr["padding"].s == b"EXPLICIT"
    assert list(conv.attr["explicit_paddings"].list.i) == [0, 0, 1, 2, 0, 1, 0, 0]
    assert list(dw.attr["strides"].list.i) == [1, 2, 2, 1] and dw.attr["padding"].s == b"SAME"
    assert "explicit_paddings" not in dw.attr and "N" not in dw.attr
    x = np.random.default_rng(2).normal(size=(2, 6, 6, 2)).astype(np.float32)
    np.testing.assert_allclose(tw.saved_model.load(d)(x).numpy(), m(x).numpy(), rtol=1e-6)
