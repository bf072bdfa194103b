"""Converters of convolutions and pooling: twinflow's are channels-last (NHWC, NDHWC: TensorFlow's
default), ONNX's channels-first, so each becomes Transpose -> Conv/MaxPool/AveragePool ->
Transpose (onnxruntime removes the back-to-back pairs between consecutive layers).
"""
from __future__ import annotations

from ..ops.nn.conv_kernels import out_size
from .converter import converts, unsupported


def _to_first(rank: int) -> list:
    return [0, rank - 1] + list(range(1, rank - 1))


def _to_last(rank: int) -> list:
    return [0] + list(range(2, rank)) + [1]


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


def _nchw(cx, op, t, rank: int) -> str:
    if t.shape.rank not in (rank, None):
        raise unsupported(op, f"only {rank}-D channels-last inputs convert")
    return cx.node("Transpose", [cx.name(t)], f"{op.name}/to_nchw", perm=_to_first(rank))


def _back(cx, op, y: str, rank: int) -> list:
    return [cx.node("Transpose", [y], op.name, perm=_to_last(rank))]


@converts("Conv2D", "Conv3D", "DepthwiseConv2dNative", "_FusedConv2D")
def _conv(cx, op):
    """A convolution; the compiler's ``_FusedConv2D`` (with its bias and relu) is ONNX's Conv
    with a bias input, then Relu."""
    x, w = op.inputs[:2]
    rank = 5 if op.type == "Conv3D" else 4
    strides = [int(s) for s in op.attrs["strides"]]
    dil = [int(d) for d in op.attrs.get("dilations") or (1,) * (rank - 2)]
    if w.shape.rank != rank or None in w.shape.as_list()[:rank - 2]:
        raise unsupported(op, "the filter's shape must be known")
    ksize = [int(d) for d in w.shape.as_list()[:rank - 2]]
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
    # [spatial..., in, out] -> [out, in, spatial...]
    wn = cx.node("Transpose", [wn], f"{op.name}/filter_oihw",
                 perm=[rank - 1, rank - 2] + list(range(rank - 2)))
    fused = op.type == "_FusedConv2D"
    bias = [cx.name(op.inputs[2])] if fused else []
    y = cx.node("Conv", [_nchw(cx, op, x, rank), wn, *bias], f"{op.name}/nchw", **attrs)
    if fused:
        y = cx.node("Relu", [y], f"{op.name}/relu")
    return _back(cx, op, y, rank)


@converts("MaxPool", "AvgPool", "MaxPool3D", "AvgPool3D")
def _pool(cx, op):
    x = op.inputs[0]
    ksize = [int(k) for k in op.attrs["ksize"]]
    strides = [int(s) for s in op.attrs["strides"]]
    rank = len(ksize) + 2
    attrs = dict(kernel_shape=ksize, strides=strides,
                 **_pads(op, x, ksize, strides, [1] * len(ksize)))
    onnx_type = "MaxPool" if op.type.startswith("MaxPool") else "AveragePool"
    if onnx_type == "AveragePool":
        attrs["count_include_pad"] = 0   # TensorFlow averages over the valid cells only
    y = cx.node(onnx_type, [_nchw(cx, op, x, rank)], f"{op.name}/nchw", **attrs)
    return _back(cx, op, y, rank)


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
    y = cx.node("ConvTranspose", [_nchw(cx, op, dy, 4), wn], f"{op.name}/nchw",
                kernel_shape=ksize, strides=strides, dilations=dil, pads=befores + afters,
                output_padding=extra)
    return _back(cx, op, y, 4)
