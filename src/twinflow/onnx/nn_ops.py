"""Converters of convolutions and pooling: twinflow's are NHWC (TensorFlow's default), ONNX's
are NCHW, so each becomes Transpose -> Conv/MaxPool/AveragePool -> Transpose (onnxruntime
removes the back-to-back pairs between consecutive layers).
"""
from __future__ import annotations

from ..ops.nn.conv_kernels import out_size
from .converter import converts, unsupported

_TO_NCHW = [0, 3, 1, 2]
_TO_NHWC = [0, 2, 3, 1]


def _pads(op, x, ksize, strides, dilations) -> dict:
    """ONNX padding attributes of a TensorFlow padding: explicit ``pads`` when the spatial
    sizes are known (SAME splits them as TensorFlow does), else ``auto_pad``."""
    padding = op.attrs["padding"]
    explicit = op.attrs.get("explicit_paddings")
    if padding == "VALID":
        return {"pads": [0] * (2 * len(ksize))}
    if padding == "EXPLICIT":
        pairs = [tuple(int(v) for v in p) for p in explicit]
        return {"pads": [p[0] for p in pairs] + [p[1] for p in pairs]}
    sizes = x.shape[1:-1] if x.shape.rank is not None else [None] * len(ksize)
    if any(s is None for s in sizes):
        return {"auto_pad": "SAME_UPPER"}   # TensorFlow's SAME puts the odd pad at the end
    befores, afters = [], []
    for n, k, s, d in zip(sizes, ksize, strides, dilations):
        _, b, a = out_size(int(n), int(k), int(s), int(d), "SAME")
        befores.append(b)
        afters.append(a)
    return {"pads": befores + afters}


def _nchw(cx, op, t) -> str:
    if t.shape.rank not in (4, None):
        raise unsupported(op, "only 4-D (NHWC) inputs convert")
    return cx.node("Transpose", [cx.name(t)], f"{op.name}/to_nchw", perm=_TO_NCHW)


@converts("Conv2D", "DepthwiseConv2dNative")
def _conv2d(cx, op):
    x, w = op.inputs
    strides = [int(s) for s in op.attrs["strides"]]
    dil = [int(d) for d in op.attrs.get("dilations") or (1, 1)]
    if w.shape.rank != 4 or w.shape[0] is None or w.shape[1] is None:
        raise unsupported(op, "the filter's shape must be known")
    ksize = [int(w.shape[0]), int(w.shape[1])]
    attrs = dict(kernel_shape=ksize, strides=strides, dilations=dil,
                 **_pads(op, x, ksize, strides, dil))
    wn = cx.name(w)
    if op.type == "DepthwiseConv2dNative":
        # [h, w, c, m] -> [h, w, 1, c*m]: one group per input channel
        c, m = w.shape[2], w.shape[3]
        if c is None or m is None:
            raise unsupported(op, "the filter's shape must be known")
        wn = cx.node("Reshape", [wn, cx.ints(ksize + [1, int(c) * int(m)])],
                     f"{op.name}/filter_groups")
        attrs["group"] = int(c)
    wn = cx.node("Transpose", [wn], f"{op.name}/filter_oihw", perm=[3, 2, 0, 1])
    y = cx.node("Conv", [_nchw(cx, op, x), wn], f"{op.name}/nchw", **attrs)
    return [cx.node("Transpose", [y], op.name, perm=_TO_NHWC)]


@converts("MaxPool", "AvgPool")
def _pool(cx, op):
    x = op.inputs[0]
    ksize = [int(k) for k in op.attrs["ksize"]]
    strides = [int(s) for s in op.attrs["strides"]]
    if len(ksize) != 2:
        raise unsupported(op, "only 2-D pooling converts")
    attrs = dict(kernel_shape=ksize, strides=strides,
                 **_pads(op, x, ksize, strides, [1] * len(ksize)))
    onnx_type = "MaxPool" if op.type == "MaxPool" else "AveragePool"
    if onnx_type == "AveragePool":
        attrs["count_include_pad"] = 0   # TensorFlow averages over the valid cells only
    y = cx.node(onnx_type, [_nchw(cx, op, x)], f"{op.name}/nchw", **attrs)
    return [cx.node("Transpose", [y], op.name, perm=_TO_NHWC)]


@converts("Conv2DBackpropInput")
def _conv2d_transpose(cx, op):
    """The transposed convolution (Keras Conv2DTranspose): ONNX ConvTranspose with the pads of
    the forward convolution whose input has this op's output size."""
    _, w, dy = op.inputs
    out = op.outputs[0].shape
    if w.shape.rank != 4 or not w.shape.is_fully_defined() or out.rank != 4 or \
            out[1] is None or out[2] is None or dy.shape.rank != 4 or None in dy.shape[1:3]:
        raise unsupported(op, "the filter's and the spatial sizes must be known")
    ksize = [int(w.shape[0]), int(w.shape[1])]
    strides = [int(s) for s in op.attrs["strides"]]
    dil = [int(d) for d in op.attrs.get("dilations") or (1, 1)]
    explicit = op.attrs.get("explicit_paddings")
    befores, afters, extra = [], [], []
    for i, (k, s, d) in enumerate(zip(ksize, strides, dil)):
        n_out, n_in = int(out[1 + i]), int(dy.shape[1 + i])
        _, b, a = out_size(n_out, k, s, d, op.attrs["padding"],
                           tuple(explicit[i]) if explicit else None)
        full = s * (n_in - 1) + (k - 1) * d + 1 - b - a
        if not 0 <= n_out - full < s:
            raise unsupported(op, f"output size {n_out} does not fit the input size {n_in}")
        befores.append(b)
        afters.append(a)
        extra.append(n_out - full)
    wn = cx.node("Transpose", [cx.name(w)], f"{op.name}/filter_iohw", perm=[3, 2, 0, 1])
    y = cx.node("ConvTranspose", [_nchw(cx, op, dy), wn], f"{op.name}/nchw",
                kernel_shape=ksize, strides=strides, dilations=dil, pads=befores + afters,
                output_padding=extra)
    return [cx.node("Transpose", [y], op.name, perm=_TO_NHWC)]
