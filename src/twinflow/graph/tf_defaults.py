"""TensorFlow's default values of op attrs that twinflow's schemas leave required: TensorFlow
strips an attr at its default when it saves a graph (``stripped_default_attrs``), so a
SavedModel it wrote omits them (``saved_model/function_import.py`` fills them in), and
``tw.raw_ops`` calls may leave them out as ``tf.raw_ops`` calls do. Taken from TensorFlow
2.21's op definitions (facts of its format). ``TF_ONLY_AT``: TensorFlow attrs that twinflow
implements only at their default.
"""
from ..core import dtypes
from ..core.shapes import TensorShape
from .graph_def import TF_WINDOW_ATTRS


def _each(attr: str, value, *ops: str) -> dict:
    """The same default of ``attr`` for each of ``ops``."""
    return {(op, attr): value for op in ops}


_RANDOM = ("Multinomial", "RandomGamma", "RandomPoissonV2", "RandomShuffle",
           "RandomStandardNormal", "RandomUniform", "RandomUniformInt", "TruncatedNormal")

TF_DEFAULTS = {
    **_each("keep_dims", False, "All", "Any", "Max", "Mean", "Min", "Prod", "ReduceJoin", "Sum"),
    **_each("seed", 0, *_RANDOM),
    **_each("seed2", 0, *_RANDOM),
    **_each("dilations", (1, 1, 1, 1), "Conv2D", "Conv2DBackpropFilter", "Conv2DBackpropInput",
            "DepthwiseConv2dNative", "DepthwiseConv2dNativeBackpropFilter",
            "DepthwiseConv2dNativeBackpropInput"),
    **_each("exclusive", False, "Cumprod", "Cumsum"),
    **_each("reverse", False, "Cumprod", "Cumsum"),
    **_each("data_format", "NHWC", "BiasAdd", "BiasAddGrad"),
    **_each("output_type", dtypes.int64, "ArgMax", "ArgMin"),
    **_each("out_type", dtypes.int32, "Shape", "Size"),
    **_each("output_dtype", dtypes.int64, "Multinomial", "StatelessMultinomial"),
    **_each("axis", 0, "Pack", "Unpack"),
    **_each("separator", "", "ReduceJoin", "StringJoin"),
    **_each("unit", "BYTE", "StringLength", "Substr"),
    **_each("full_matrices", False, "Qr", "Svd"),
    ("Eig", "compute_v"): True,
    ("GatherV2", "batch_dims"): 0,
    ("LeakyRelu", "alpha"): 0.20000000298023224,
    ("Lu", "output_idx_type"): dtypes.int32,
    ("MatMul", "transpose_a"): False,
    ("MatMul", "transpose_b"): False,
    ("MatrixSolve", "adjoint"): False,
    ("MatrixTriangularSolve", "lower"): True,
    ("MatrixTriangularSolve", "adjoint"): False,
    ("OneHot", "axis"): -1,
    ("Squeeze", "squeeze_dims"): (),
    ("StatelessRandomBinomial", "dtype"): dtypes.int64,
    ("StatelessRandomNormal", "dtype"): dtypes.float32,
    ("StatelessRandomUniform", "dtype"): dtypes.float32,
    ("StatelessRandomUniformFullInt", "dtype"): dtypes.uint64,
    ("StatelessTruncatedNormal", "dtype"): dtypes.float32,
    ("StringSplitV2", "maxsplit"): -1,
    ("StringToNumber", "out_type"): dtypes.float32,
    ("TopKV2", "sorted"): True,
    ("Unique", "out_idx"): dtypes.int32,
}
TF_DEFAULTS.update({
    **_each("precision", -1, "AsString"), **_each("width", -1, "AsString"),
    **_each("scientific", False, "AsString"), **_each("shortest", False, "AsString"),
    ("AsString", "fill"): "",
    **_each("mode", "MIN_COMBINED", "Dequantize", "QuantizeV2"),
    **_each("narrow_range", False, "Dequantize", "QuantizeV2", "QuantizeAndDequantizeV2",
            "QuantizeAndDequantizeV4"),
    **_each("axis", -1, "Dequantize", "QuantizeV2", "QuantizeAndDequantizeV2",
            "QuantizeAndDequantizeV4"),
    ("Dequantize", "dtype"): dtypes.float32,
    **_each("signed_input", True, "QuantizeAndDequantizeV2", "QuantizeAndDequantizeV4"),
    **_each("num_bits", 8, "QuantizeAndDequantizeV2", "QuantizeAndDequantizeV4"),
    **_each("range_given", False, "QuantizeAndDequantizeV2", "QuantizeAndDequantizeV4"),
    **_each("round_mode", "HALF_TO_EVEN", "QuantizeAndDequantizeV2", "QuantizeAndDequantizeV4"),
    ("QuantizeV2", "round_mode"): "HALF_AWAY_FROM_ZERO",
    ("QuantizeV2", "ensure_minimum_range"): 0.009999999776482582,
    ("ImageProjectiveTransformV3", "fill_mode"): "CONSTANT",
    ("ReverseSequence", "batch_dim"): 0,
    **_each("dilations", (1, 1, 1, 1, 1), "Conv3D", "Conv3DBackpropInputV2",
            "Conv3DBackpropFilterV2"),
    **_each("validate_indices", True, "DenseToDenseSetOperation", "DenseToSparseSetOperation",
            "SparseToSparseSetOperation", "SetSize"),
    ("EditDistance", "normalize"): True,
    ("EncodeBase64", "pad"): False,
    ("FakeQuantWithMinMaxArgs", "min"): -6.0, ("FakeQuantWithMinMaxArgs", "max"): 6.0,
    **_each("num_bits", 8, "FakeQuantWithMinMaxArgs", "FakeQuantWithMinMaxVars",
            "FakeQuantWithMinMaxVarsPerChannel"),
    **_each("narrow_range", False, "FakeQuantWithMinMaxArgs", "FakeQuantWithMinMaxVars",
            "FakeQuantWithMinMaxVarsPerChannel"),
    ("LeakyReluGrad", "alpha"): 0.20000000298023224,
    **_each("seed", 0, "LearnedUnigramCandidateSampler"),
    **_each("seed2", 0, "LearnedUnigramCandidateSampler"),
    ("MatrixInverse", "adjoint"): False,
    ("StaticRegexReplace", "replace_global"): True,
    **_each("encoding", "", "StringLower", "StringUpper"),
    ("StringFormat", "template"): "%s", ("StringFormat", "placeholder"): "%s",
    ("StringFormat", "summarize"): 3,
    ("RandomPoissonV2", "dtype"): dtypes.int64,
    ("Placeholder", "shape"): TensorShape(None),
    ("DecodeCompressed", "compression_type"): "",
})

# TensorFlow attrs that twinflow's op implements only at TensorFlow's default (``tw.raw_ops``
# accepts them at that value and refuses any other): (op, attr) -> the default.
TF_ONLY_AT = {
    **_each("use_cudnn_on_gpu", True, "Conv2D", "Conv2DBackpropFilter", "Conv2DBackpropInput"),
    **_each("grad_a", False, "MatMul"), **_each("grad_b", False, "MatMul"),
    ("AssignVariableOp", "validate_shape"): False,
    ("Cast", "Truncate"): False,
    **_each("incompatible_shape_error", True, "Equal", "NotEqual"),
    **_each("bad_indices_policy", "", "GatherNd", "ScatterNd", *(
        f"TensorScatter{k}" for k in ("Add", "Sub", "Max", "Min", "Update")), *(
        f"ResourceScatterNd{k}" for k in ("Add", "Sub", "Max", "Min", "Update"))),
    # (updates are atomic per call, locking or not)
    **_each("use_locking", True, *(f"ResourceScatterNd{k}" for k in (
        "Add", "Sub", "Max", "Min", "Update"))),
    ("Svd", "compute_uv"): True,
    ("SelfAdjointEigV2", "compute_v"): True,
    ("TopKV2", "index_type"): dtypes.int32,
}


def tf_only_attrs(op: str) -> dict:
    """The TensorFlow attrs of ``op`` that twinflow's op implements only at TensorFlow's
    default (``TF_ONLY_AT``; a conv/pool op's ``data_format`` is channels-last): GraphDef
    import and ``tw.raw_ops`` accept them at that value.

    Args:
        op: the op type.

    Returns:
        attr name -> TensorFlow's default.
    """
    out = {k: v for (o, k), v in TF_ONLY_AT.items() if o == op}
    if op in TF_WINDOW_ATTRS:
        out["data_format"] = "NDHWC" if "3D" in op else "NHWC"
    return out
