"""Cases for the 3-D convolutions and pools and the depthwise convolution op
(``ops/conv_nd_ops.py``). References are explicit loops over output positions, written
independently of the strided-view kernels."""
from __future__ import annotations

import itertools

import numpy as np

import twinflow as tw
from twinflow.ops.nn import conv_kernels as ck
from twinflow.ops.nn import conv_nd as cn

from .harness import Case, bind

rng = np.random.default_rng(10)


def _pads(in_sp, k, s, d, padding):
    return ck.geometry(in_sp, k, s, d, padding)


def np_conv(x, f, strides, padding, dil=None):
    """Cross-correlation over every spatial dim, one output position at a time."""
    r = x.ndim - 2
    dil = dil or (1,) * r
    out_sp, pads = _pads(x.shape[1:-1], f.shape[:r], strides, dil, padding)
    xp = np.pad(x, ((0, 0), *pads, (0, 0)))
    out = np.zeros((x.shape[0], *out_sp, f.shape[-1]))
    for pos in itertools.product(*(range(n) for n in out_sp)):
        for offs in itertools.product(*(range(k) for k in f.shape[:r])):
            idx = tuple(p * s + o * d for p, s, o, d in zip(pos, strides, offs, dil))
            out[(slice(None), *pos)] += xp[(slice(None), *idx)] @ f[offs]
    return out


def np_conv_input_grad(dy, f, in_shape, strides, padding):
    r = len(in_shape) - 2
    out_sp, pads = _pads(in_shape[1:-1], f.shape[:r], strides, (1,) * r, padding)
    dxp = np.zeros((in_shape[0], *(n + b + a for n, (b, a) in zip(in_shape[1:-1], pads)),
                    in_shape[-1]))
    for pos in itertools.product(*(range(n) for n in out_sp)):
        for offs in itertools.product(*(range(k) for k in f.shape[:r])):
            idx = tuple(p * s + o for p, s, o in zip(pos, strides, offs))
            dxp[(slice(None), *idx)] += dy[(slice(None), *pos)] @ f[offs].T
    crop = tuple(slice(b, b + n) for n, (b, _) in zip(in_shape[1:-1], pads))
    return dxp[(slice(None), *crop)]


def np_pool(x, k, s, padding, reduce):
    r = x.ndim - 2
    out_sp, pads = _pads(x.shape[1:-1], k, s, (1,) * r, padding)
    out = np.zeros((x.shape[0], *out_sp, x.shape[-1]))
    for pos in itertools.product(*(range(n) for n in out_sp)):
        sl = tuple(slice(max(p * st - b, 0), min(p * st - b + kk, n))
                   for p, st, kk, (b, _), n in zip(pos, s, k, pads, x.shape[1:-1]))
        win = x[(slice(None), *sl)].reshape(x.shape[0], -1, x.shape[-1])
        out[(slice(None), *pos)] = reduce(win, axis=1)
    return out


def np_depthwise(x, f, strides, padding, dil=(1, 1)):
    c, m = f.shape[2:]
    outs = [np_conv(x[..., i:i + 1], f[:, :, i:i + 1, k:k + 1], strides, padding, dil)
            for i in range(c) for k in range(m)]
    return np.concatenate(outs, axis=-1)


VOL = rng.normal(size=(2, 4, 5, 4, 2))
FILT3 = rng.normal(size=(2, 3, 2, 2, 3))
IMG = rng.normal(size=(2, 6, 5, 3))
DWF = rng.normal(size=(3, 2, 3, 2))
_C3 = {"strides": (1, 2, 1), "padding": "SAME", "explicit_paddings": None,
       "dilations": (1, 1, 1)}
_DW = {"strides": (2, 1), "padding": "SAME", "explicit_paddings": None, "dilations": (1, 1)}
_MP3 = {"ksize": (2, 2, 2), "strides": (2, 2, 2), "padding": "SAME"}
POOL_DY = rng.normal(size=(2, 2, 3, 2, 2))
DY3 = rng.normal(size=(2, 4, 3, 4, 3))
DYW = rng.normal(size=(2, 3, 5, 6))
# distinct values, so a max-pool window never has a tie within finite-difference steps
POOLVOL = rng.permutation(2 * 4 * 5 * 4 * 2).reshape(2, 4, 5, 4, 2) / 7.0

CASES = [
    Case(lambda x, f: tw.nn.conv3d(x, f, 1, "VALID"), [VOL, FILT3],
         lambda x, f: np_conv(x, f, (1, 1, 1), "VALID"), name="conv3d_valid"),
    Case(lambda x, f: tw.nn.conv3d(x, f, [1, 1, 2, 1, 1], "SAME"), [VOL, FILT3],
         lambda x, f: np_conv(x, f, (1, 2, 1), "SAME"), name="conv3d_same_strided"),
    Case(lambda x, f: tw.nn.conv3d(x, f, 1, "SAME", dilations=[1, 1, 2]), [VOL, FILT3],
         lambda x, f: np_conv(x, f, (1, 1, 1), "SAME", (1, 1, 2)), name="conv3d_dilated"),
    Case(lambda x, f: tw.nn.conv3d(x, f, 1, "VALID", data_format="NCDHW"),
         [VOL.transpose(0, 4, 1, 2, 3), FILT3],
         lambda x, f: np_conv(x.transpose(0, 2, 3, 4, 1), f, (1, 1, 1), "VALID").transpose(
             0, 4, 1, 2, 3), name="conv3d_ncdhw"),
    Case(lambda x, f: tw.nn.conv3d(x, f, 1, "VALID"),
         [VOL.astype(np.float32), FILT3.astype(np.float32)],
         lambda x, f: np_conv(x, f, (1, 1, 1), "VALID").astype(np.float32), rtol=1e-5,
         atol=1e-5, grad=(), name="conv3d_f32"),
    Case(lambda dy, f: tw.nn.conv3d_transpose(dy, f, [2, 4, 5, 4, 2], [1, 2, 1], "SAME"),
         [DY3, FILT3], lambda dy, f: np_conv_input_grad(dy, f, (2, 4, 5, 4, 2), (1, 2, 1),
                                                        "SAME"), name="conv3d_transpose"),
    Case(lambda x, dy: bind(cn.Conv3DBackpropFilterV2, [x, tw.constant(FILT3.shape), dy],
                            _C3), [VOL, DY3], None, name="conv3d_backprop_filter"),
    Case(lambda x, f: cn.depthwise_conv2d_native(x, f, [1, 2, 1, 1], "SAME"), [IMG, DWF],
         lambda x, f: np_depthwise(x, f, (2, 1), "SAME"), name="depthwise_native_same"),
    Case(lambda x, f: cn.depthwise_conv2d_native(x, f, 1, "VALID", dilations=[2, 1]),
         [IMG, DWF], lambda x, f: np_depthwise(x, f, (1, 1), "VALID", (2, 1)),
         name="depthwise_native_dilated"),
    Case(lambda x, f: cn.depthwise_conv2d_native(x, f, 1, "VALID", data_format="NCHW"),
         [IMG.transpose(0, 3, 1, 2), DWF],
         lambda x, f: np_depthwise(x.transpose(0, 2, 3, 1), f, (1, 1), "VALID").transpose(
             0, 3, 1, 2), name="depthwise_native_nchw"),
    Case(lambda f, dy: tw.nn.depthwise_conv2d_backprop_input(IMG.shape, f, dy, [2, 1],
                                                             "SAME"),
         [DWF, DYW], None, name="depthwise_backprop_input"),
    Case(lambda x, dy: tw.nn.depthwise_conv2d_backprop_filter(x, DWF.shape, dy, [2, 1],
                                                              "SAME"),
         [IMG, DYW], None, name="depthwise_backprop_filter"),
    Case(lambda x, f: tw.nn.conv2d(x, f, [1, 1, 2, 1], "SAME", data_format="NCHW"),
         [IMG.transpose(0, 3, 1, 2), rng.normal(size=(2, 3, 3, 2))],
         lambda x, f: np_conv(x.transpose(0, 2, 3, 1), f, (2, 1), "SAME").transpose(0, 3, 1, 2),
         name="conv2d_nchw"),
    Case(lambda dy, f: tw.nn.conv2d_transpose(dy, f, [2, 3, 6, 5], 1, "VALID",
                                              data_format="NCHW"),
         [rng.normal(size=(2, 2, 4, 4)), rng.normal(size=(3, 2, 3, 2))],
         lambda dy, f: np_conv_input_grad(dy.transpose(0, 2, 3, 1), f, (2, 6, 5, 3), (1, 1),
                                          "VALID").transpose(0, 3, 1, 2),
         name="conv2d_transpose_nchw"),
    Case(lambda x: tw.nn.max_pool2d(x, [1, 1, 2, 2], [1, 1, 2, 1], "SAME", data_format="NCHW"),
         [POOLVOL[:, 0].transpose(0, 3, 1, 2)],
         lambda x: np_pool(x.transpose(0, 2, 3, 1), (2, 2), (2, 1), "SAME", np.max).transpose(
             0, 3, 1, 2), name="max_pool2d_nchw"),
    Case(lambda x: tw.nn.avg_pool2d(x, 2, 1, "VALID", data_format="NCHW"),
         [IMG.transpose(0, 3, 1, 2)],
         lambda x: np_pool(x.transpose(0, 2, 3, 1), (2, 2), (1, 1), "VALID", np.mean).transpose(
             0, 3, 1, 2), name="avg_pool2d_nchw"),
    Case(lambda x, f: tw.nn.depthwise_conv2d(x, f, [1, 1, 1, 1], "SAME"), [IMG, DWF],
         lambda x, f: np_depthwise(x, f, (1, 1), "SAME"), name="depthwise_conv2d_public"),
    Case(lambda x: tw.nn.max_pool3d(x, 2, 2, "SAME"), [POOLVOL],
         lambda x: np_pool(x, (2, 2, 2), (2, 2, 2), "SAME", np.max), name="max_pool3d"),
    Case(lambda x: tw.nn.max_pool3d(x, [1, 3, 2, 2, 1], 1, "VALID"), [POOLVOL],
         lambda x: np_pool(x, (3, 2, 2), (1, 1, 1), "VALID", np.max),
         name="max_pool3d_overlapping"),
    Case(lambda x: tw.nn.max_pool3d(x, 2, 1, "SAME", data_format="NCDHW"),
         [POOLVOL.transpose(0, 4, 1, 2, 3)],
         lambda x: np_pool(x.transpose(0, 2, 3, 4, 1), (2, 2, 2), (1, 1, 1), "SAME",
                           np.max).transpose(0, 4, 1, 2, 3), name="max_pool3d_ncdhw"),
    Case(lambda x: tw.nn.avg_pool3d(x, [2, 3, 2], [1, 2, 2], "SAME"), [VOL],
         lambda x: np_pool(x, (2, 3, 2), (1, 2, 2), "SAME", np.mean), name="avg_pool3d"),
    Case(lambda x: tw.nn.avg_pool3d(x, 2, 2, "VALID"), [VOL.astype(np.float32)],
         lambda x: np_pool(x, (2, 2, 2), (2, 2, 2), "VALID", np.mean).astype(np.float32),
         rtol=1e-5, grad=(), name="avg_pool3d_f32"),
    Case(lambda x, dy: bind(cn.MaxPool3DGrad, [x, tw.nn.max_pool3d(x, 2, 2, "SAME"), dy],
                            _MP3), [POOLVOL, POOL_DY], None, name="max_pool3d_grad"),
    Case(lambda x, g: bind(cn.MaxPool3DGradGrad, [x, tw.nn.max_pool3d(x, 2, 2, "SAME"), g],
                           _MP3), [POOLVOL, VOL], None, name="max_pool3d_grad_grad"),
    Case(lambda dy: bind(cn.AvgPool3DGrad, [tw.constant(VOL.shape), dy], _MP3), [POOL_DY],
         None, name="avg_pool3d_grad"),
]

# FusedElementwise and the _Fused ops are made by the compiler, never by a public function.
COVERED_ELSEWHERE = {
    "FusedElementwise": "tests/compiler/test_fusion.py::test_every_case_fused_equals_unfused",
    "_FusedConv2D": "tests/compiler/test_remap.py::test_the_chain_becomes_one_op_with_the_"
                    "same_bits",
    "_FusedConv2DBackprop": "tests/compiler/test_remap_backprop.py::test_the_pair_becomes_one_"
                            "op_with_the_same_bits",
    **{op: "tests/compiler/test_remap_columns.py::test_the_matrix_is_made_once_with_the_same_"
           "bits" for op in ("_Conv2DColumns", "_Conv2DFromColumns",
                             "_Conv2DBackpropFilterFromColumns")},
}
