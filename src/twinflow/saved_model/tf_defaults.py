"""TensorFlow's default values of op attrs that twinflow's schemas leave required: TensorFlow
strips an attr at its default when it saves a graph (``stripped_default_attrs``), so a
SavedModel it wrote omits them. Taken from TensorFlow 2.21's op definitions (facts of its
format).
"""
from ..core import dtypes


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
    ("StatelessRandomUniformFullInt", "dtype"): "uint64",
    ("StatelessTruncatedNormal", "dtype"): dtypes.float32,
    ("StringSplitV2", "maxsplit"): -1,
    ("StringToNumber", "out_type"): dtypes.float32,
    ("TopKV2", "sorted"): True,
    ("Unique", "out_idx"): dtypes.int32,
}
