"""``tw.raw_ops`` calls with TensorFlow's keywords (``tf.raw_ops``' own), eagerly and inside
``tw.function``, against NumPy: convolutions and pools (TensorFlow's per-dimension window
lists, defaulted attrs), reductions, arg-max, gathers, joins and splits, and the errors of a
call TensorFlow's keywords do not describe."""
from __future__ import annotations

import numpy as np
import pytest

import twinflow as tw

RNG = np.random.default_rng(0)
X4 = RNG.standard_normal((2, 5, 6, 3)).astype(np.float32)
W4 = RNG.standard_normal((2, 3, 3, 4)).astype(np.float32)
X5 = RNG.standard_normal((1, 4, 5, 4, 2)).astype(np.float32)
W5 = RNG.standard_normal((2, 2, 2, 2, 3)).astype(np.float32)
M = RNG.standard_normal((3, 4)).astype(np.float32)


def _windows(x, k, strides, dil=None):
    """x[n, *out, *k, c]: the windows of an already padded channels-last ``x``."""
    dil = dil or (1,) * len(k)
    sp = x.shape[1:-1]
    out = [(n - (kk - 1) * d - 1) // s + 1 for n, kk, s, d in zip(sp, k, strides, dil)]
    idx = np.indices(out + list(k)).reshape(2 * len(k), -1)
    pos = [idx[i] * strides[i] + idx[len(k) + i] * dil[i] for i in range(len(k))]
    return x[(slice(None), *pos)].reshape(x.shape[0], *out, *k, x.shape[-1])


def _pad(x, pads, value=0.0):
    return np.pad(x, [(0, 0), *pads, (0, 0)], constant_values=value)


def _same_pads(sp, k, strides):
    pads = []
    for n, kk, s in zip(sp, k, strides):
        total = max((-(-n // s) - 1) * s + kk - n, 0)
        pads.append((total // 2, total - total // 2))
    return pads


def conv_ref(x, w, strides, pads, dil=None):
    k = w.shape[:-2]
    win = _windows(_pad(x, pads), k, strides, dil)
    r = len(k)
    return np.tensordot(win, w, axes=(list(range(1 + r, 2 + 2 * r)), list(range(r + 1))))


def depthwise_ref(x, w, strides, pads):
    win = _windows(_pad(x, pads), w.shape[:2], strides)  # n, oh, ow, kh, kw, c
    out = np.einsum("nhwijc,ijcm->nhwcm", win, w)
    return out.reshape(*out.shape[:3], -1)


def pool_ref(x, k, strides, pads, op):
    fill = -np.inf if op is np.max else np.nan
    win = _windows(_pad(x, pads, fill), k, strides)
    axes = tuple(range(1 + len(k), 1 + 2 * len(k)))
    return np.max(win, axis=axes) if op is np.max else np.nanmean(win, axis=axes)


SAME4 = _same_pads((5, 6), (3, 3), (2, 2))
SAME_CONV = _same_pads((5, 6), (2, 3), (2, 2))  # the 2x3 filter W4

# (label, call, the arrays it takes as tensors, NumPy's result)
CASES = [
    ("Conv2D VALID", lambda x, w: tw.raw_ops.Conv2D(
        input=x, filter=w, strides=[1, 1, 1, 1], padding="VALID"),
     (X4, W4[..., :3, :]), conv_ref(X4, W4[..., :3, :], (1, 1), [(0, 0), (0, 0)])),
    ("Conv2D SAME strided, TensorFlow's defaults spelled out", lambda x, w: tw.raw_ops.Conv2D(
        input=x, filter=w, strides=[1, 2, 2, 1], padding="SAME", use_cudnn_on_gpu=True,
        explicit_paddings=[], data_format="NHWC", dilations=[1, 1, 1, 1]),
     (X4, W4[..., :3, :]), conv_ref(X4, W4[..., :3, :], (2, 2), SAME_CONV)),
    ("Conv2D EXPLICIT", lambda x, w: tw.raw_ops.Conv2D(
        input=x, filter=w, strides=[1, 1, 1, 1], padding="EXPLICIT",
        explicit_paddings=[0, 0, 1, 2, 0, 1, 0, 0]),
     (X4, W4[..., :3, :]), conv_ref(X4, W4[..., :3, :], (1, 1), [(1, 2), (0, 1)])),
    ("Conv2D dilated", lambda x, w: tw.raw_ops.Conv2D(
        input=x, filter=w, strides=[1, 1, 1, 1], padding="VALID", dilations=[1, 2, 2, 1]),
     (X4, W4[:2, :2, :3, :]), conv_ref(X4, W4[:2, :2, :3, :], (1, 1), [(0, 0)] * 2, (2, 2))),
    ("DepthwiseConv2dNative", lambda x, w: tw.raw_ops.DepthwiseConv2dNative(
        input=x, filter=w, strides=[1, 1, 1, 1], padding="VALID"),
     (X4, W4[..., :3, :2]), depthwise_ref(X4, W4[..., :3, :2], (1, 1), [(0, 0)] * 2)),
    ("Conv3D", lambda x, w: tw.raw_ops.Conv3D(
        input=x, filter=w, strides=[1, 1, 2, 1, 1], padding="VALID", data_format="NDHWC"),
     (X5, W5), conv_ref(X5, W5, (1, 2, 1), [(0, 0)] * 3)),
    ("MaxPool", lambda x: tw.raw_ops.MaxPool(
        input=x, ksize=[1, 2, 2, 1], strides=[1, 1, 1, 1], padding="VALID"),
     (X4,), pool_ref(X4, (2, 2), (1, 1), [(0, 0)] * 2, np.max)),
    ("MaxPool EXPLICIT", lambda x: tw.raw_ops.MaxPool(
        input=x, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="EXPLICIT",
        explicit_paddings=[0, 0, 1, 0, 0, 1, 0, 0]),
     (X4,), pool_ref(X4, (2, 2), (2, 2), [(1, 0), (0, 1)], np.max)),
    ("AvgPool SAME", lambda x: tw.raw_ops.AvgPool(
        value=x, ksize=[1, 3, 3, 1], strides=[1, 2, 2, 1], padding="SAME", data_format="NHWC"),
     (X4,), pool_ref(X4, (3, 3), (2, 2), SAME4, np.mean)),
    ("MaxPool3D", lambda x: tw.raw_ops.MaxPool3D(
        input=x, ksize=[1, 2, 2, 2, 1], strides=[1, 2, 2, 2, 1], padding="VALID"),
     (X5,), pool_ref(X5, (2, 2, 2), (2, 2, 2), [(0, 0)] * 3, np.max)),
    ("AvgPool3D", lambda x: tw.raw_ops.AvgPool3D(
        input=x, ksize=[1, 2, 2, 2, 1], strides=[1, 1, 1, 1, 1], padding="VALID"),
     (X5,), pool_ref(X5, (2, 2, 2), (1, 1, 1), [(0, 0)] * 3, np.mean)),
    ("Sum", lambda x: tw.raw_ops.Sum(input=x, axis=[0, 2], keep_dims=True),
     (X4,), X4.sum(axis=(0, 2), keepdims=True)),
    ("Max", lambda x: tw.raw_ops.Max(input=x, axis=1), (M,), M.max(axis=1)),
    ("Mean", lambda x: tw.raw_ops.Mean(input=x, axis=-1, keep_dims=False), (M,), M.mean(-1)),
    ("All", lambda x: tw.raw_ops.All(input=x, axis=0), (M > -1,), (M > -1).all(0)),
    ("ArgMax default output_type", lambda x: tw.raw_ops.ArgMax(input=x, dimension=1),
     (M,), M.argmax(1).astype(np.int64)),
    ("ArgMin int32", lambda x: tw.raw_ops.ArgMin(input=x, dimension=0, output_type=tw.int32),
     (M,), M.argmin(0).astype(np.int32)),
    ("GatherV2", lambda p, i: tw.raw_ops.GatherV2(params=p, indices=i, axis=1),
     (M, np.array([3, 0, 3], np.int32)), M[:, [3, 0, 3]]),
    ("GatherV2 batch_dims", lambda p, i: tw.raw_ops.GatherV2(
        params=p, indices=i, axis=1, batch_dims=1),
     (M, np.array([[1], [2], [0]], np.int64)), np.take_along_axis(M, np.array([[1], [2], [0]]),
                                                                  1)),
    ("GatherNd", lambda p, i: tw.raw_ops.GatherNd(params=p, indices=i),
     (M, np.array([[0, 1], [2, 3]], np.int32)), M[[0, 2], [1, 3]]),
    ("ConcatV2", lambda a, b: tw.raw_ops.ConcatV2(values=[a, b], axis=1),
     (M, M[:, :2]), np.concatenate([M, M[:, :2]], 1)),
    ("ExpandDims", lambda x: tw.raw_ops.ExpandDims(input=x, axis=-1), (M,), M[..., None]),
    ("Squeeze", lambda x: tw.raw_ops.Squeeze(input=x, axis=[0]), (M[None],), M),
    ("Transpose", lambda x: tw.raw_ops.Transpose(x=x, perm=[1, 0]), (M,), M.T),
    ("Cumsum", lambda x: tw.raw_ops.Cumsum(x=x, axis=1, exclusive=True),
     (M,), np.cumsum(M, 1) - M),
    ("TopKV2", lambda x: tw.raw_ops.TopKV2(input=x, k=2)[0], (M,), -np.sort(-M, 1)[:, :2]),
    ("OneHot", lambda i: tw.raw_ops.OneHot(indices=i, depth=4, on_value=1.0, off_value=0.0),
     (np.array([0, 3, 1], np.int32),), np.eye(4, dtype=np.float32)[[0, 3, 1]]),
    ("MatMul", lambda a, b: tw.raw_ops.MatMul(a=a, b=b, transpose_b=True, grad_a=False),
     (M, M), M @ M.T),
    ("Cast", lambda x: tw.raw_ops.Cast(x=x, DstT=tw.int32, Truncate=False),
     (np.array([1.7, -2.2], np.float32),), np.array([1, -2], np.int32)),
    ("Range", lambda s, lim, d: tw.raw_ops.Range(start=s, limit=lim, delta=d),
     (np.int32(1), np.int32(9), np.int32(3)), np.array([1, 4, 7], np.int32)),
    ("Complex", lambda r, i: tw.raw_ops.Complex(real=r, imag=i, Tout=tw.complex64),
     (M, -M), (M - 1j * M).astype(np.complex64)),
]


def _run(call, arrays, in_function: bool):
    if not in_function:
        return call(*arrays)

    @tw.function
    def f(*tensors):
        return call(*tensors)
    return f(*[tw.constant(a) for a in arrays])


@pytest.mark.parametrize("in_function", [False, True], ids=["eager", "function"])
@pytest.mark.parametrize("label,call,arrays,expected", CASES, ids=[c[0] for c in CASES])
def test_raw_op_call_with_tensorflow_keywords(label, call, arrays, expected, in_function):
    out = _run(call, arrays, in_function)
    assert out.dtype.as_numpy_dtype == expected.dtype, label
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-5, atol=1e-5)


def test_a_tensor_axis_must_be_known_when_the_graph_is_built():
    # eager, and a constant in a function: the value is known; a function argument is not
    np.testing.assert_allclose(tw.raw_ops.Sum(input=M, axis=tw.constant(1)), M.sum(1),
                               rtol=1e-6)

    @tw.function
    def const_axis(x):
        return tw.raw_ops.ArgMax(input=x, dimension=tw.constant(0))
    np.testing.assert_array_equal(const_axis(tw.constant(M)), M.argmax(0))

    @tw.function
    def const_block(x):  # BatchToSpaceND's block_shape and crops: attrs here, inputs in TF
        return tw.raw_ops.BatchToSpaceND(input=x, block_shape=tw.constant([2, 2]),
                                         crops=tw.constant([[0, 0], [0, 1]]))
    x = np.arange(16, dtype=np.float32).reshape(4, 2, 2, 1)
    expected = x.reshape(2, 2, 1, 2, 2, 1).transpose(2, 3, 0, 4, 1, 5).reshape(1, 4, 4, 1)
    np.testing.assert_array_equal(const_block(tw.constant(x)), expected[:, :, :3])

    @tw.function
    def fed_axis(x, axis):
        return tw.raw_ops.Sum(input=x, axis=axis)
    with pytest.raises(tw.errors.UnimplementedError, match="axis must be known"):
        fed_axis(tw.constant(M), tw.constant(1))


def test_exported_graph_uses_tensorflows_names():
    @tw.function
    def f(x, w):
        return tw.raw_ops.Conv2D(input=x, filter=w, strides=[1, 2, 2, 1], padding="SAME")
    gd = f.get_concrete_function(tw.constant(X4), tw.constant(W4[..., :3, :])).graph
    node = next(n for n in gd.as_graph_def().node if n.op == "Conv2D")
    assert list(node.attr["strides"].list.i) == [1, 2, 2, 1]
    assert node.attr["padding"].s == b"SAME"
    assert list(node.attr["dilations"].list.i) == [1, 1, 1, 1]


@pytest.mark.parametrize("call,error,match", [
    (lambda: tw.raw_ops.Conv2D(input=X4, filter=W4, padding="VALID"), TypeError,
     "missing required argument.*strides"),
    (lambda: tw.raw_ops.MaxPool(input=X4, ksize=[1, 2, 2, 1], strides=[1, 1, 1, 1],
                                padding="VALID", pool="max"), TypeError,
     "unexpected keyword argument 'pool'.*ksize"),
    (lambda: tw.raw_ops.Conv2D(input=X4, filter=W4[..., :3, :], strides=[1, 1, 1, 1],
                               padding="VALID", data_format="NCHW"),
     tw.errors.UnimplementedError, "data_format='NCHW' is not supported"),
    (lambda: tw.raw_ops.Conv2D(input=X4, filter=W4[..., :3, :], strides=[1, 1, 1, 1],
                               padding="VALID", use_cudnn_on_gpu=False),
     tw.errors.UnimplementedError, "use_cudnn_on_gpu"),
    (lambda: tw.raw_ops.Complex(real=M, imag=M, Tout=tw.complex128), TypeError,
     "returns complex64"),
    (lambda: tw.raw_ops.ArgMax(input=M, dimension=0, Tidx=tw.int32), TypeError,
     "unexpected keyword argument 'Tidx'"),
    # window lists as TensorFlow checks them (a stride over the batch was silently dropped)
    (lambda: tw.raw_ops.Conv2D(input=X4, filter=W4[..., :3, :], strides=[2, 1, 1, 1],
                               padding="VALID"),
     tw.errors.UnimplementedError, "strides must be 1 in the batch and channel"),
    (lambda: tw.raw_ops.MaxPool(input=X4, ksize=[1, 2, 2, 2], strides=[1, 1, 1, 1],
                                padding="VALID"),
     tw.errors.UnimplementedError, "ksize must be 1 in the batch and channel"),
    (lambda: tw.raw_ops.Conv2D(input=X4, filter=W4[..., :3, :], strides=[1, 1],
                               padding="VALID"),
     tw.errors.InvalidArgumentError, "strides must list 4 values"),
    (lambda: tw.raw_ops.Conv2D(input=X4, filter=W4[..., :3, :], strides=[1, 1, 1, 1],
                               padding="EXPLICIT"),
     tw.errors.InvalidArgumentError, "explicit_paddings must list 8 values"),
    (lambda: tw.raw_ops.MaxPool(input=X4, ksize=[1, 2, 2, 1], strides=[1, 1, 1, 1],
                                padding="VALID", explicit_paddings=[0, 0, 1, 1, 1, 1, 0, 0]),
     tw.errors.InvalidArgumentError, "be empty otherwise"),
])
def test_calls_tensorflows_keywords_do_not_describe(call, error, match):
    with pytest.raises(error, match=match):
        call()


@pytest.mark.parametrize("in_function", [False, True], ids=["eager", "function"])
def test_conv_gradient_ops_are_the_adjoints_of_conv2d(in_function):
    # <Conv2D(x, w), dy> == <x, Conv2DBackpropInput(dy)> == <w, Conv2DBackpropFilter(dy)>
    w = W4[..., :3, :]
    window = {"strides": [1, 2, 2, 1], "padding": "SAME"}
    dy = RNG.standard_normal((2, 3, 3, 4)).astype(np.float32)

    def grads(x, w, dy):
        dx = tw.raw_ops.Conv2DBackpropInput(input_sizes=[2, 5, 6, 3], filter=w,
                                            out_backprop=dy, **window)
        dw = tw.raw_ops.Conv2DBackpropFilter(input=x, filter_sizes=[2, 3, 3, 4],
                                             out_backprop=dy, use_cudnn_on_gpu=True, **window)
        return dx, dw
    dx, dw = _run(grads, (X4, w, dy), in_function)
    forward = (conv_ref(X4, w, (2, 2), SAME_CONV) * dy).sum()
    np.testing.assert_allclose((X4 * dx.numpy()).sum(), forward, rtol=1e-4)
    np.testing.assert_allclose((w * dw.numpy()).sum(), forward, rtol=1e-4)


def test_read_variable_op_takes_tensorflows_keywords():
    v = tw.Variable([[1.0, 2.0]])
    np.testing.assert_array_equal(tw.raw_ops.ReadVariableOp(resource=v.handle,
                                                            dtype=tw.float32), [[1.0, 2.0]])

    @tw.function
    def read():
        return tw.raw_ops.ReadVariableOp(resource=v.handle, dtype=tw.float32)
    assert read.get_concrete_function().structured_outputs.shape == (1, 2)  # the variable's
    v.assign([[3.0, 4.0]])
    np.testing.assert_array_equal(read(), [[3.0, 4.0]])
