"""tw.nn's errors name the op and the offending values or shapes; plus second-order checks."""
import numpy as np
import pytest

import twinflow as tw

LOGITS = np.zeros((2, 3), np.float32)


def test_sparse_label_out_of_range():
    with pytest.raises(tw.errors.InvalidArgumentError) as e:
        tw.nn.sparse_softmax_cross_entropy_with_logits(labels=[0, 5], logits=LOGITS)
    msg = str(e.value)
    assert "label value of 5" in msg and "[0, 3)" in msg
    assert "SparseSoftmaxCrossEntropyWithLogits" in msg


def test_sparse_negative_label():
    with pytest.raises(tw.errors.InvalidArgumentError, match="label value of -1"):
        tw.nn.sparse_softmax_cross_entropy_with_logits(labels=[-1, 0], logits=LOGITS)


def test_sparse_label_shape_mismatch():
    with pytest.raises(tw.errors.InvalidArgumentError, match=r"logits shape \[2, 3\]"):
        tw.nn.sparse_softmax_cross_entropy_with_logits(labels=[0, 1, 2], logits=LOGITS)


def test_sparse_float_labels():
    with pytest.raises(tw.errors.InvalidArgumentError, match="int32 or int64"):
        tw.nn.sparse_softmax_cross_entropy_with_logits(labels=tw.constant([0.0, 1.0]),
                                                      logits=LOGITS)


def test_conv2d_channel_mismatch_eager():
    x = tw.zeros([1, 5, 5, 3])
    w = tw.zeros([3, 3, 2, 4])
    with pytest.raises(tw.errors.InvalidArgumentError) as e:
        tw.nn.conv2d(x, w, 1, "SAME")
    msg = str(e.value)
    assert "Conv2D" in msg and "[1, 5, 5, 3]" in msg and "[3, 3, 2, 4]" in msg


def test_conv2d_channel_mismatch_graph():
    g = tw.Graph()
    with g.as_default():
        x = tw.zeros([1, 5, 5, 3])
        w = tw.zeros([3, 3, 2, 4])
        with pytest.raises(tw.errors.InvalidArgumentError) as e:
            tw.nn.conv2d(x, w, 1, "VALID")
    assert "[Op:Conv2D]" in str(e.value) and "[3, 3, 2, 4]" in str(e.value)


def test_conv2d_kernel_larger_than_input():
    with pytest.raises(tw.errors.InvalidArgumentError, match="negative"):
        tw.nn.conv2d(tw.zeros([1, 2, 2, 1]), tw.zeros([3, 3, 1, 1]), 1, "VALID")


def test_conv2d_rank():
    with pytest.raises(tw.errors.InvalidArgumentError, match="4-dimensional"):
        tw.nn.conv2d(tw.zeros([5, 5, 1]), tw.zeros([3, 3, 1, 1]), 1, "SAME")


def test_conv2d_bad_padding_and_strides():
    with pytest.raises(ValueError, match="padding"):
        tw.nn.conv2d(tw.zeros([1, 5, 5, 1]), tw.zeros([3, 3, 1, 1]), 1, "FULL")
    with pytest.raises(tw.errors.InvalidArgumentError, match="batch and depth"):
        tw.nn.conv2d(tw.zeros([1, 5, 5, 1]), tw.zeros([3, 3, 1, 1]), [2, 1, 1, 1], "SAME")


def test_conv2d_dtype_mismatch():
    with pytest.raises(tw.errors.InvalidArgumentError, match="float64"):
        tw.nn.conv2d(tw.zeros([1, 5, 5, 1]), tw.zeros([3, 3, 1, 1], tw.float64), 1, "SAME")


def test_pool_rank():
    with pytest.raises(tw.errors.InvalidArgumentError, match="MaxPool"):
        tw.nn.max_pool2d(tw.zeros([5, 5, 1]), 2, 2, "VALID")


def test_bias_add_mismatch():
    with pytest.raises(tw.errors.InvalidArgumentError, match="biases"):
        tw.nn.bias_add(tw.zeros([2, 3]), tw.zeros([4]))


def test_no_silent_broadcasting():
    with pytest.raises(tw.errors.InvalidArgumentError, match="biases"):
        tw.nn.bias_add(tw.zeros([2, 3]), tw.zeros([1]))
    with pytest.raises(tw.errors.InvalidArgumentError, match="labels shape"):
        tw.nn.sparse_softmax_cross_entropy_with_logits(labels=[1], logits=LOGITS)
    with pytest.raises(tw.errors.InvalidArgumentError, match="same shape"):
        tw.nn.sigmoid_cross_entropy_with_logits(labels=[1.0, 0.0, 1.0],
                                                logits=tw.constant([0.5, -0.5]))


def test_softmax_int_input():
    with pytest.raises(tw.errors.InvalidArgumentError, match="Softmax"):
        tw.nn.softmax(tw.constant([1, 2]))


def test_second_order_relu_and_softmax():
    x = tw.constant([[1.0, -2.0, 0.5]], tw.float64)
    with tw.GradientTape() as t2:
        t2.watch(x)
        with tw.GradientTape() as t1:
            t1.watch(x)
            y = tw.reduce_sum(tw.nn.softmax(x) * tw.constant([[1.0, 2.0, 3.0]], tw.float64))
        g = t1.gradient(y, x)
        gs = tw.reduce_sum(g * g)
    h = t2.gradient(gs, x)
    assert h.shape == (1, 3) and np.isfinite(h.numpy()).all()


def _conv_net_grad_x(xv, wv):
    x, w = tw.constant(xv), tw.constant(wv)
    with tw.GradientTape() as t:
        t.watch(x)
        h = tw.nn.elu(tw.nn.conv2d(x, w, 2, "SAME"))
        y = tw.reduce_sum(tw.nn.max_pool2d(h, 2, 1, "SAME") ** 2)
    return t.gradient(y, x).numpy()


def test_second_order_through_conv_elu_max_pool():
    rng = np.random.default_rng(0)
    x0, w0 = rng.normal(size=(1, 5, 5, 2)), rng.normal(size=(3, 3, 2, 2))
    v = rng.normal(size=x0.shape)
    x, w = tw.constant(x0), tw.constant(w0)
    with tw.GradientTape() as t2:
        t2.watch([x, w])
        with tw.GradientTape() as t1:
            t1.watch(x)
            h = tw.nn.elu(tw.nn.conv2d(x, w, 2, "SAME"))
            y = tw.reduce_sum(tw.nn.max_pool2d(h, 2, 1, "SAME") ** 2)
        gv = tw.reduce_sum(t1.gradient(y, x) * tw.constant(v))
    hx, hw = t2.gradient(gv, [x, w])
    eps = 1e-6
    num_x = (_conv_net_grad_x(x0 + eps * v, w0) - _conv_net_grad_x(x0 - eps * v, w0)) / (2 * eps)
    np.testing.assert_allclose(hx.numpy(), num_x, rtol=1e-5, atol=1e-6)
    dw = rng.normal(size=w0.shape)
    num_w = ((_conv_net_grad_x(x0, w0 + eps * dw) - _conv_net_grad_x(x0, w0 - eps * dw)) * v
             ).sum() / (2 * eps)
    np.testing.assert_allclose((hw.numpy() * dw).sum(), num_w, rtol=1e-5)
