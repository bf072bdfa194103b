import numpy as np
import pytest

import twinflow as tw

from .checks import check_keras_weights, check_layer

L = tw.keras.layers
RNG = np.random.default_rng(6)
X1 = RNG.normal(size=(2, 9, 4)).astype(np.float32)
X2 = RNG.normal(size=(2, 7, 6, 4)).astype(np.float32)


def conv2d_ref(x, k, stride=(1, 1), dilation=(1, 1), padding="valid", groups=1):
    """Direct NHWC convolution; k is (kh, kw, cin/groups, cout)."""
    kh, kw, cg, cout = k.shape
    ekh, ekw = (kh - 1) * dilation[0] + 1, (kw - 1) * dilation[1] + 1
    if padding == "same":
        out_h, out_w = -(-x.shape[1] // stride[0]), -(-x.shape[2] // stride[1])
        ph = max((out_h - 1) * stride[0] + ekh - x.shape[1], 0)
        pw = max((out_w - 1) * stride[1] + ekw - x.shape[2], 0)
        x = np.pad(x, [(0, 0), (ph // 2, ph - ph // 2), (pw // 2, pw - pw // 2), (0, 0)])
    out_h = (x.shape[1] - ekh) // stride[0] + 1
    out_w = (x.shape[2] - ekw) // stride[1] + 1
    out = np.zeros((x.shape[0], out_h, out_w, cout))
    per = cout // groups
    for g in range(groups):
        xs = x[..., g * cg:(g + 1) * cg]
        for i in range(out_h):
            for j in range(out_w):
                patch = xs[:, i * stride[0]:i * stride[0] + ekh:dilation[0],
                           j * stride[1]:j * stride[1] + ekw:dilation[1]]
                out[:, i, j, g * per:(g + 1) * per] = np.einsum(
                    "bhwc,hwco->bo", patch, k[..., g * per:(g + 1) * per])
    return out


def conv_transpose_ref(x, k, stride, out_hw, padding):
    """The adjoint of conv2d_ref: scatter each input pixel times the kernel."""
    kh, kw, cout, cin = k.shape
    big = np.zeros((x.shape[0], (x.shape[1] - 1) * stride[0] + kh,
                    (x.shape[2] - 1) * stride[1] + kw, cout))
    for i in range(x.shape[1]):
        for j in range(x.shape[2]):
            big[:, i * stride[0]:i * stride[0] + kh, j * stride[1]:j * stride[1] + kw] += \
                np.einsum("bc,hwoc->bhwo", x[:, i, j], k)
    if padding == "valid":
        return big[:, :out_hw[0], :out_hw[1]]
    ph = max((x.shape[1] - 1) * stride[0] + kh - out_hw[0], 0)
    pw = max((x.shape[2] - 1) * stride[1] + kw - out_hw[1], 0)
    return big[:, ph // 2:ph // 2 + out_hw[0], pw // 2:pw // 2 + out_hw[1]]


@pytest.mark.parametrize("kw", [
    {}, {"strides": 2, "padding": "same"}, {"dilation_rate": 2}, {"groups": 2},
    {"groups": 4, "strides": 2, "padding": "same"},  # one channel per group: depthwise
])
def test_conv2d(kw):
    def ref(xs, w):
        return conv2d_ref(xs[0], w[0], stride=(kw.get("strides", 1),) * 2,
                          dilation=(kw.get("dilation_rate", 1),) * 2,
                          padding=kw.get("padding", "valid"),
                          groups=kw.get("groups", 1)) + w[1]
    check_layer(lambda **k: L.Conv2D(4, 3, **kw, **k), [X2], ref, fit=kw == {})


@pytest.mark.parametrize("kw", [{}, {"padding": "causal", "dilation_rate": 2},
                                {"groups": 4, "strides": 2}])
def test_conv1d(kw):
    def ref(xs, w):
        x = xs[0]
        if kw.get("padding") == "causal":
            x = np.pad(x, [(0, 0), (2 * kw["dilation_rate"], 0), (0, 0)])
        y = conv2d_ref(x[:, None], w[0][None], stride=(1, kw.get("strides", 1)),
                       dilation=(1, kw.get("dilation_rate", 1)), groups=kw.get("groups", 1))
        return y[:, 0] + w[1]
    check_layer(lambda **k: L.Conv1D(4, 3, **kw, **k), [X1], ref, fit=kw == {})


def test_channels_first_and_keras_weights():
    xf = X2.transpose(0, 3, 1, 2)
    check_layer(lambda **k: L.Conv2D(4, 3, data_format="channels_first", **k), [xf],
                lambda xs, w: (conv2d_ref(X2, w[0]) + w[1]).transpose(0, 3, 1, 2), grad=False,
                fit=False)
    for key, layer, shape in [
        ("Conv1D", L.Conv1D(4, 3), (2, 7, 2)),
        ("Conv1D_groups", L.Conv1D(4, 3, groups=2), (2, 7, 2)),
        ("Conv2D", L.Conv2D(4, 3, dilation_rate=2), (2, 7, 7, 2)),
        ("Conv2DTranspose", L.Conv2DTranspose(4, 3, strides=2), (2, 5, 5, 2)),
        ("Conv1DTranspose", L.Conv1DTranspose(4, 3, strides=2), (2, 5, 2)),
        ("SeparableConv1D", L.SeparableConv1D(4, 3, depth_multiplier=2), (2, 7, 3)),
        ("SeparableConv2D", L.SeparableConv2D(4, 3, depth_multiplier=2), (2, 7, 7, 3)),
        ("DepthwiseConv1D", L.DepthwiseConv1D(3, depth_multiplier=2), (2, 7, 3)),
        ("DepthwiseConv2D", L.DepthwiseConv2D(3, depth_multiplier=2), (2, 7, 7, 3)),
    ]:
        layer(np.zeros(shape, np.float32))
        check_keras_weights(layer, key)


@pytest.mark.parametrize("kw, out_hw", [
    ({"strides": 2}, (15, 13)), ({"strides": 2, "padding": "same"}, (14, 12)),
    ({"strides": 2, "padding": "same", "output_padding": 1}, (14, 12)),
])
def test_conv2d_transpose(kw, out_hw):
    def ref(xs, w):
        return conv_transpose_ref(xs[0], w[0], (2, 2), out_hw, kw.get("padding", "valid")) + w[1]
    layer = check_layer(lambda **k: L.Conv2DTranspose(3, 3, **kw, **k), [X2], ref,
                        fit="output_padding" not in kw)
    assert layer(X2).shape.as_list() == [2, *out_hw, 3]


def test_conv1d_transpose():
    def ref(xs, w):
        return conv_transpose_ref(xs[0][:, None], w[0][None], (1, 2), (1, 19), "valid")[:, 0] \
            + w[1]
    check_layer(lambda **k: L.Conv1DTranspose(3, 3, strides=2, **k), [X1], ref)


def test_depthwise_and_separable():
    def depthwise(x, k):
        c, m = k.shape[-2:]
        full = np.zeros(k.shape[:-2] + (c, c * m))
        for i in range(c):
            full[..., i, i * m:(i + 1) * m] = k[..., i, :]
        return conv2d_ref(x, full)
    check_layer(lambda **k: L.DepthwiseConv2D(3, depth_multiplier=2, **k), [X2],
                lambda xs, w: depthwise(xs[0], w[0]) + w[1])
    check_layer(lambda **k: L.DepthwiseConv1D(3, **k), [X1],
                lambda xs, w: depthwise(xs[0][:, None], w[0][None])[:, 0] + w[1], fit=False)
    check_layer(lambda **k: L.SeparableConv2D(5, 3, depth_multiplier=2, **k), [X2],
                lambda xs, w: conv2d_ref(depthwise(xs[0], w[0]), w[1]) + w[2])
    check_layer(lambda **k: L.SeparableConv1D(5, 3, **k), [X1],
                lambda xs, w: conv2d_ref(depthwise(xs[0][:, None], w[0][None]),
                                         w[1][None])[:, 0] + w[2], fit=False)


def test_bad_arguments():
    with pytest.raises(ValueError, match="groups"):
        L.Conv2D(5, 3, groups=2)
    with pytest.raises(ValueError, match="groups"):
        L.Conv2D(4, 3, groups=3)(X2[..., :2])
    with pytest.raises(ValueError, match="filters"):
        L.Conv1D(0, 3)
    with pytest.raises(ValueError, match="padding"):
        L.Conv2D(4, 3, padding="causal")
    with pytest.raises(ValueError, match="positive"):
        L.Conv2D(4, 3, strides=0)
    with pytest.raises(ValueError, match="output padding"):
        L.Conv2DTranspose(4, 3, strides=2, output_padding=2)


def test_docstrings_carry_their_family_args_for_their_rank():
    conv1d, conv2d = tw.keras.layers.Conv1D.__doc__, tw.keras.layers.Conv2D.__doc__
    assert conv1d.startswith("1-D convolution") and "'causal'" in conv1d
    assert "'causal'" not in conv2d and "an int or a pair" in conv2d
    assert "output_padding:" in tw.keras.layers.Conv2DTranspose.__doc__
    assert "'causal'" not in tw.keras.layers.Conv1DTranspose.__doc__
    assert "pointwise_initializer:" in tw.keras.layers.SeparableConv1D.__doc__
    assert "filters:" not in tw.keras.layers.DepthwiseConv2D.__doc__
    # What the docstring says is what the constructor accepts.
    tw.keras.layers.DepthwiseConv1D(3, padding="causal")
