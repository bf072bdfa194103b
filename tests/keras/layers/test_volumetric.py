"""Conv3D, Conv3DTranspose, 3-D and adaptive pooling, ConvLSTM1D/2D/3D, RMSNormalization:
NumPy references, gradients, eager == graph == fit, configs, Keras 3 weight layouts."""
from __future__ import annotations

import numpy as np
import pytest

import twinflow as tw

from .checks import check_keras_weights, check_layer

L = tw.keras.layers
RNG = np.random.default_rng(11)
V = RNG.normal(size=(2, 4, 4, 4, 2)).astype(np.float32)


def conv3d_ref(x, k, stride=1):
    kd, kh, kw, _, cout = k.shape
    od, oh, ow = [(n - kk) // stride + 1 for n, kk in zip(x.shape[1:4], (kd, kh, kw))]
    out = np.zeros((x.shape[0], od, oh, ow, cout))
    for a in range(od):
        for b in range(oh):
            for c in range(ow):
                p = x[:, a * stride:a * stride + kd, b * stride:b * stride + kh,
                      c * stride:c * stride + kw]
                out[:, a, b, c] = np.einsum("bdhwc,dhwco->bo", p, k)
    return out


def conv3d_transpose_ref(x, k, stride):
    kd, kh, kw, cout, _ = k.shape
    n = x.shape[1:4]
    out = np.zeros((x.shape[0],) + tuple((m - 1) * stride + kk for m, kk in
                                         zip(n, (kd, kh, kw))) + (cout,))
    for a in range(n[0]):
        for b in range(n[1]):
            for c in range(n[2]):
                out[:, a * stride:a * stride + kd, b * stride:b * stride + kh,
                    c * stride:c * stride + kw] += np.einsum("bc,dhwoc->bdhwo", x[:, a, b, c], k)
    return out


def test_conv3d():
    def ref(xs, w):
        return conv3d_ref(xs[0], w[0]) + w[1]
    layer = check_layer(lambda **kw: L.Conv3D(3, 2, **kw), [V], ref, keras_key=None)
    made = L.Conv3D(4, 2)
    made(np.zeros((1, 4, 4, 4, 2), np.float32))
    check_keras_weights(made, "Conv3D")
    assert layer.get_config()["kernel_size"] == (2, 2, 2)


def test_conv3d_strided_same_and_channels_first():
    a = L.Conv3D(2, 3, strides=2, padding="same")
    out = a(V)
    assert out.shape == (2, 2, 2, 2, 2)
    b = L.Conv3D(2, 3, strides=2, padding="same", data_format="channels_first")
    b(np.transpose(V, (0, 4, 1, 2, 3)))
    b.set_weights(a.get_weights())
    np.testing.assert_allclose(np.transpose(b(np.transpose(V, (0, 4, 1, 2, 3))).numpy(),
                                            (0, 2, 3, 4, 1)), out.numpy(), atol=1e-5)


def test_conv3d_transpose():
    x = V[:, :2, :2, :2]

    def ref(xs, w):
        return conv3d_transpose_ref(xs[0], w[0], 2) + w[1]
    check_layer(lambda **kw: L.Conv3DTranspose(3, 2, strides=2, **kw), [x], ref)
    made = L.Conv3DTranspose(3, 2, strides=2)
    made(np.zeros((1, 3, 3, 3, 2), np.float32))
    check_keras_weights(made, "Conv3DTranspose")


@pytest.mark.parametrize("cls,fn", [(L.MaxPooling3D, np.max), (L.AveragePooling3D, np.mean)])
def test_pooling3d(cls, fn):
    def ref(xs, w):
        x = xs[0]
        return fn(x.reshape(2, 2, 2, 2, 2, 2, 2, 2), axis=(2, 4, 6))
    check_layer(lambda **kw: cls(2, **kw), [V], ref, fit=False)


@pytest.mark.parametrize("cls,fn,shape,out", [
    (L.AdaptiveAveragePooling1D, np.mean, (2, 7, 3), 3),
    (L.AdaptiveMaxPooling2D, np.max, (2, 5, 7, 2), (2, 3)),
    (L.AdaptiveAveragePooling3D, np.mean, (1, 3, 4, 5, 2), 2),
])
def test_adaptive_pooling(cls, fn, shape, out):
    x = RNG.normal(size=shape).astype(np.float32)
    rank = len(shape) - 2
    sizes = out if isinstance(out, tuple) else (out,) * rank

    def ref(xs, w):
        y = xs[0]
        for axis, (n, o) in enumerate(zip(shape[1:-1], sizes), start=1):
            parts = [fn(np.take(y, range(i * n // o, -(-(i + 1) * n // o)), axis=axis),
                        axis=axis, keepdims=True) for i in range(o)]
            y = np.concatenate(parts, axis)
        return y
    check_layer(lambda **kw: cls(out, **kw), [x], ref, fit=False)


def _sig(z):
    return 1 / (1 + np.exp(-z))


def conv_lstm2d_ref(x, kernel, rec, bias, filters):
    """'same' padding, stride 1, tanh/sigmoid: the ConvLSTM equations step by step."""
    b, t, h, w, _ = x.shape
    kh, kw = kernel.shape[:2]

    def conv(a, k):
        p = np.pad(a, [(0, 0), (kh // 2, (kh - 1) // 2), (kw // 2, (kw - 1) // 2), (0, 0)])
        out = np.zeros((a.shape[0], h, w, k.shape[-1]))
        for i in range(h):
            for j in range(w):
                out[:, i, j] = np.einsum("bhwc,hwco->bo", p[:, i:i + kh, j:j + kw], k)
        return out
    hs = np.zeros((b, h, w, filters))
    cs = np.zeros_like(hs)
    outs = []
    for s in range(t):
        z = conv(x[:, s], kernel) + conv(hs, rec) + bias
        zi, zf, zc, zo = np.split(z, 4, axis=-1)
        cs = _sig(zf) * cs + _sig(zi) * np.tanh(zc)
        hs = _sig(zo) * np.tanh(cs)
        outs.append(hs)
    return np.stack(outs, 1)


def test_conv_lstm2d():
    x = RNG.normal(size=(2, 3, 4, 4, 2)).astype(np.float32)

    def ref(xs, w):
        return conv_lstm2d_ref(xs[0], w[0], w[1], w[2], 2)
    check_layer(lambda **kw: L.ConvLSTM2D(2, 3, padding="same", return_sequences=True, **kw),
                [x], ref, atol=1e-5)
    made = L.ConvLSTM2D(3, 3)
    made(np.zeros((2, 4, 5, 5, 2), np.float32))
    check_keras_weights(made, "ConvLSTM2D")
    assert made.get_config()["filters"] == 3


def test_conv_lstm1d_and_3d_shapes_states_and_weights():
    one = L.ConvLSTM1D(3, 3)
    assert one(np.zeros((2, 4, 6, 2), np.float32)).shape == (2, 4, 3)
    check_keras_weights(one, "ConvLSTM1D")
    three = L.ConvLSTM3D(2, 2, return_state=True, return_sequences=True)
    seq, h, c = three(RNG.normal(size=(1, 2, 3, 3, 3, 2)).astype(np.float32))
    assert seq.shape == (1, 2, 2, 2, 2, 2) and h.shape == c.shape == (1, 2, 2, 2, 2)
    np.testing.assert_allclose(seq.numpy()[:, -1], h.numpy(), atol=1e-6)
    check_keras_weights(three, "ConvLSTM3D")
    # channels_first gives the same numbers, transposed.
    x = RNG.normal(size=(2, 3, 5, 5, 2)).astype(np.float32)
    last = L.ConvLSTM2D(2, 3)
    first = L.ConvLSTM2D(2, 3, data_format="channels_first")
    want = last(x)
    first(np.transpose(x, (0, 1, 4, 2, 3)))
    first.set_weights(last.get_weights())
    got = first(np.transpose(x, (0, 1, 4, 2, 3)))
    np.testing.assert_allclose(np.transpose(got.numpy(), (0, 2, 3, 1)), want.numpy(), atol=1e-5)


def test_rms_normalization():
    x = RNG.normal(size=(3, 5)).astype(np.float32)

    def ref(xs, w):
        a = xs[0]
        return a / np.sqrt(np.mean(a * a, -1, keepdims=True) + 1e-6) * w[0]
    layer = check_layer(lambda **kw: L.RMSNormalization(**kw), [x], ref)
    check_keras_weights(layer, "RMSNormalization")
