"""The schemas of the ops declared in ``ops/``: what each accepts, checked by ``bind`` in both
modes (``graph/schema.py`` has the notation).

Input and attr names are twinflow's, with TensorFlow's after ``@`` where they differ; the dtype
lists are TensorFlow 2.21's (``tf-2.21-ops.txt``) restricted to the dtypes twinflow has. An op
whose kernel would accept shapes that ``infer`` refuses is declared with ``check_shapes``: its
``infer`` also runs eagerly, so eager and graph mode refuse the same calls.
"""
from __future__ import annotations

from ..graph.registry import declare_schema

FLOAT = "half,bfloat16,float,double"
FLOAT_NO_BF16 = "half,float,double"  # ops whose TensorFlow definition has no bfloat16
COMPLEX = "complex64,complex128"
FLOAT_C = f"{FLOAT},{COMPLEX}"
SINT = "int8,int16,int32,int64"
UINT = "uint8,uint16,uint32,uint64"
INT = f"{SINT},{UINT}"
REAL = f"{FLOAT},{INT}"
NUM = f"{REAL},{COMPLEX}"
IDX = "int32,int64"

# op name -> schema
# StridedSlice's masks (TensorFlow's attrs; GraphDef/SavedModel export writes them)
_MASKS = "; ".join(f"{m}_mask:int=0" for m in ("begin", "end", "ellipsis", "new_axis",
                                               "shrink_axis"))

SCHEMAS = {
    # elementwise, one input
    **{op: f"x:T -> y:T | T:type in [{FLOAT_C}]" for op in (
        "Acos", "Acosh", "Asin", "Asinh", "Atan", "Atanh", "Cos", "Cosh", "Exp", "Expm1",
        "Log", "Log1p", "Rsqrt", "Sigmoid", "Sin", "Sinh", "Sqrt", "Tan", "Tanh")},
    **{op: f"x:T -> y:T | T:type in [{FLOAT}]" for op in (
        "Erf", "Erfc", "Floor", "Ceil", "Rint", "LogSigmoid")},
    **{op: f"x@features:T -> y@activations:T | T:type in [{FLOAT}]" for op in (
        "Elu", "Selu", "Softsign", "Softplus")},
    **{op: f"x:T -> y:bool | T:type in [{FLOAT}]" for op in ("IsNan", "IsInf", "IsFinite")},
    # special functions
    **{op: f"x:T -> y:T | T:type in [{FLOAT}]" for op in (
        "BesselI0", "BesselI0e", "BesselI1", "BesselI1e", "BesselJ0", "BesselJ1", "BesselK0",
        "BesselK0e", "BesselK1", "BesselK1e", "BesselY0", "BesselY1", "Dawsn", "Digamma",
        "Erfinv", "Expint", "FresnelCos", "FresnelSin", "Lgamma", "Ndtri", "Spence")},
    **{op: f"a:T, x:T -> z:T | T:type in [{FLOAT}]" for op in ("Igamma", "Igammac")},
    "Polygamma": f"a:T, x:T -> z:T | T:type in [{FLOAT_NO_BF16}]",
    "Zeta": f"x:T, q:T -> z:T | T:type in [{FLOAT_NO_BF16}]",
    "Xlog1py": f"x:T, y:T -> z:T | T:type in [{FLOAT_C}]",
    "NextAfter": "x1:T, x2:T -> output:T | T:type in [float,double]",
    # gradients of activations (TensorFlow's ReluGrad takes the features or the outputs)
    **{op: f"dy@gradients:T, y@outputs:T -> backprops:T | T:type in [{FLOAT}]" for op in (
        "EluGrad", "SeluGrad")},
    **{op: f"dy@gradients:T, x@features:T -> backprops:T | T:type in [{REAL}]" for op in (
        "ReluGrad", "Relu6Grad")},
    "SoftsignGrad": f"dy@gradients:T, x@features:T -> backprops:T | T:type in [{FLOAT}]",
    "LeakyReluGrad": f"dy@gradients:T, x@features:T -> backprops:T | T:type in [{FLOAT}]; "
                     "alpha:float",
    "Abs": f"x:T -> y:T | T:type in [{FLOAT},{SINT}]",
    **{op: f"x:T -> y:T | T:type in [{FLOAT},{SINT},{COMPLEX}]" for op in (
        "Neg", "Sign", "Reciprocal", "Round")},
    "Square": f"x:T -> y:T | T:type in [{NUM}]",
    "Relu": f"x@features:T -> y@activations:T | T:type in [{REAL}]",
    "Relu6": f"x@features:T -> y@activations:T | T:type in [{REAL}]",
    "LeakyRelu": f"x@features:T -> y@activations:T | T:type in [{FLOAT}]; alpha:float",
    "Invert": f"x:T -> y:T | T:type in [{INT}]",
    "LogicalNot": "x:bool -> y:bool",
    # elementwise, two inputs of one dtype
    **{op: f"x:T, y:T -> z:T | T:type in [{NUM}]" for op in ("Sub", "RealDiv", "TruncateDiv")},
    # strings: ``+`` on strings joins them (TensorFlow's Add); bools: ``*`` is logical and
    "AddV2": f"x:T, y:T -> z:T | T:type in [{NUM},string]",
    "Mul": f"x:T, y:T -> z:T | T:type in [{NUM},bool]",
    **{op: f"x:T, y:T -> z:T | T:type in [{REAL}]" for op in (
        "Maximum", "Minimum", "FloorDiv", "FloorMod", "TruncateMod")},
    **{op: f"x:T, y:T -> z:T | T:type in [{FLOAT_C}]" for op in (
        "Xdivy", "Xlogy", "DivNoNan", "MulNoNan")},
    "Atan2": f"y:T, x:T -> z:T | T:type in [{FLOAT}]",
    "Pow": f"x:T, y:T -> z:T | T:type in [{FLOAT},{SINT},{COMPLEX}]",
    "SquaredDifference": f"x:T, y:T -> z:T | T:type in [{FLOAT},int32,int64,{COMPLEX}]",
    **{op: "x:T, y:T -> z:bool | T:type" for op in ("Equal", "NotEqual")},
    **{op: f"x:T, y:T -> z:bool | T:type in [{REAL}]" for op in (
        "Less", "LessEqual", "Greater", "GreaterEqual")},
    **{op: f"x:T, y:T -> z:T | T:type in [{INT}]" for op in (
        "BitwiseAnd", "BitwiseOr", "BitwiseXor", "LeftShift", "RightShift")},
    **{op: "x:bool, y:bool -> z:bool" for op in ("LogicalAnd", "LogicalOr")},
    "Complex": "real:T, imag:T -> out:any | T:type in [float,double]",
    "ClipByValue": f"t:T, lo@clip_value_min:T, hi@clip_value_max:T -> output:T | "
                   f"T:type in [{NUM}]",
    "SelectV2": "condition:bool, x@t:T, y@e:T -> output:T | T:type",
    "AddN": f"xs@inputs:N*T -> sum:T | T:type in [{NUM},variant]",
    # reductions
    **{op: f"x@input:T -> output:T | T:type in [{NUM}]; "
           "axis@reduction_indices:list(int)? axis(x); keepdims@keep_dims:bool" for op in (
        "Sum", "Mean", "Prod", "ReduceLogSumExp")},
    **{op: f"x@input:T -> output:T | T:type in [{REAL}]; "
           "axis@reduction_indices:list(int)? axis(x); keepdims@keep_dims:bool" for op in (
        "Max", "Min")},
    **{op: "x@input:bool -> output:bool | "
           "axis@reduction_indices:list(int)? axis(x); keepdims@keep_dims:bool" for op in (
        "All", "Any")},
    **{op: f"x@input:T -> output:output_type | T:type in [{REAL},bool]; "
           f"axis@dimension:int axis(x); output_type:type in [int16,uint16,{IDX}]" for op in (
        "ArgMax", "ArgMin")},
    **{op: f"x:T -> out:T | T:type in [{NUM}]; axis:int axis(x); exclusive:bool; "
           "reverse:bool" for op in ("Cumsum", "Cumprod")},
    # shapes, slicing, joining
    "ConcatV2": "values:N*T -> output:T | T:type; axis:int axis(values)",
    "Pack": "values:N*T -> output:T | T:type; axis:int axis(values)+1",
    "Unpack": "value:T -> output:N*T | T:type; num:int >=0; axis:int axis(value)",
    "ExpandDims": "x@input:T -> output:T | T:type; axis@dim:int axis(x)+1",
    "Squeeze": "x@input:T -> output:T | T:type; squeeze_dims:list(int) axis(x)",
    "ReverseV2": "x@tensor:T -> output:T | T:type; axis:list(int) axis(x)",
    "Transpose": "x:T -> y:T | T:type; perm:list(int)?; conjugate:bool",
    "GatherV2": f"params:Tparams, indices:Tindices -> output:Tparams | Tparams:type; "
                f"Tindices:type in [int16,{IDX}]; axis:int axis(params); batch_dims:int",
    "GatherNd": f"params:Tparams, indices:Tindices -> output:Tparams | Tparams:type; "
                f"Tindices:type in [int16,{IDX}]; batch_dims:int",
    "OneHot": f"indices:TI, depth:int32, on_value:T, off_value:T -> output:T | T:type; "
              f"TI:type in [uint8,int8,{IDX}]; axis:int axis(indices)+1",
    "Split": "value:T -> output:N*T | T:type; num_split:int >=1; axis@split_dim:int axis(value)",
    "SplitV": f"value:T, size_splits:Tlen -> output:N*T | T:type; Tlen:type in [int8,{IDX}]; "
              "num_split:int >=1; axis@split_dim:int axis(value)",
    "Reshape": f"x@tensor:T, shape:Tshape -> output:T | T:type; Tshape:type in [{IDX}]",
    "Fill": f"dims:index_type, value:T -> output:T | T:type; index_type:type in [{IDX}]",
    "Tile": f"x@input:T, multiples:Tmultiples -> output:T | T:type; "
            f"Tmultiples:type in [{IDX}]",
    "BroadcastTo": f"x@input:T, shape:Tidx -> output:T | T:type; Tidx:type in [{IDX}]",
    "PadV2": f"x@input:T, paddings:Tpaddings, constant_values:T -> output:T | T:type; "
             f"Tpaddings:type in [{IDX}]",
    "MirrorPad": f"x@input:T, paddings:Tpaddings -> output:T | T:type; "
                 f"Tpaddings:type in [{IDX}]; mode:string in [REFLECT,SYMMETRIC]",
    "Slice": f"x@input:T, begin:Index, size:Index -> output:T | T:type; Index:type in [{IDX}]",
    "ScatterNd": f"indices:Tindices, updates:T, shape_@shape:Tindices -> output:T | T:type; "
                 f"Tindices:type in [int16,{IDX}]",
    **{op: f"tensor:T, indices:Tindices, updates:T -> output:T | T:type; "
           f"Tindices:type in [int16,{IDX}]" for op in (
        "TensorScatterUpdate", "TensorScatterAdd", "TensorScatterSub", "TensorScatterMax",
        "TensorScatterMin")},
    "Range": f"start:Tidx, limit:Tidx, delta:Tidx -> output:Tidx | "
             f"Tidx:type in [{FLOAT},{SINT},uint16,uint32,uint64]",
    "Shape": f"x@input:T -> output:out_type | T:type; out_type:type in [{IDX}]",
    "Size": f"x@input:T -> output:out_type | T:type; out_type:type in [{IDX}]",
    "Unique": f"x:T -> y:T, idx:out_idx | T:type; out_idx:type in [{IDX}]",
    "Where": "condition@input:any -> index:int64",
    "Roll": f"x@input:T, shift:Tshift, axis:Taxis -> output:T | T:type; "
            f"Tshift:type in [{IDX}]; Taxis:type in [{IDX}]",
    "ReverseSequence": f"x@input:T, seq_lengths:Tlen -> output:T | T:type; "
                       f"Tlen:type in [{IDX}]; seq_dim:int; batch_dim:int",
    "UniqueWithCounts": f"x:T -> y:T, idx:out_idx, count:out_idx | T:type; "
                        f"out_idx:type in [{IDX}]",
    "MirrorPadGrad": f"dy@input:T, paddings:Tpaddings -> output:T | T:type; "
                     f"Tpaddings:type in [{IDX}]; mode:string in [REFLECT,SYMMETRIC]",
    "UnravelIndex": f"indices:Tidx, dims:Tidx -> output:Tidx | Tidx:type in [{IDX}]",
    "BroadcastArgs": f"s0:T, s1:T -> r0:T | T:type in [{IDX}]",
    # nn
    "Softmax": f"x@logits:T -> y@softmax:T | T:type in [{FLOAT}]; axis:int axis(x)",
    "LogSoftmax": f"x@logits:T -> y@logsoftmax:T | T:type in [{FLOAT}]; axis:int axis(x)",
    "BiasAdd": f"value:T, bias:T -> output:T | T:type in [{NUM}]; "
               "data_format:string in [NHWC,NCHW]",
    "MaxPool": f"x@input:T -> output:T | T:type in [{REAL}]; ksize:list(int) each>=1; "
               "strides:list(int) each>=1; padding:string in [SAME,VALID,EXPLICIT]",
    "AvgPool": f"x@value:T -> output:T | T:type in [{FLOAT}]; ksize:list(int) each>=1; "
               "strides:list(int) each>=1; padding:string in [SAME,VALID]",
    # (TensorFlow's Conv2D also takes int32; twinflow's convolutions are float only)
    "Conv2D": f"x@input:T, w@filter:T -> output:T | T:type in [{FLOAT}]; "
              "strides:list(int) each>=1; padding:string in [SAME,VALID,EXPLICIT]; "
              "dilations:list(int) each>=1",
    **{op: f"x@input:T, w@filter:T -> output:T | T:type in [{FLOAT}]; "
           "strides:list(int) each>=1; padding:string in [SAME,VALID,EXPLICIT]; "
           "dilations:list(int) each>=1" for op in ("Conv3D", "DepthwiseConv2dNative")},
    **{op: f"x@input:T -> output:T | T:type in [{FLOAT}]; ksize:list(int) each>=1; "
           "strides:list(int) each>=1; padding:string in [SAME,VALID,EXPLICIT]"
       for op in ("MaxPool3D", "AvgPool3D")},
    "Einsum": "xs@inputs:N*T -> y@output:T | T:type; equation:string",
    "TopKV2": f"x@input:T, k:Tk -> values:T, indices:int32 | T:type in [{REAL}]; "
              f"Tk:type in [int16,{IDX}]; sorted:bool",
    "InTopKV2": f"predictions:float, targets:T, k:T -> precision:bool | T:type in [{IDX}]",
    "SparseSoftmaxCrossEntropyWithLogits": f"logits@features:T, labels:Tlabels -> loss:T, "
                                           f"backprop:T | T:type in [{FLOAT}]; "
                                           f"Tlabels:type in [{INT}]",
    "SigmoidCrossEntropyWithLogits": f"logits:T, labels:T -> loss:T | T:type in [{FLOAT}]",
    # linear algebra
    "MatMul": f"a:T, b:T -> product:T | T:type in [{FLOAT},{IDX},{UINT},{COMPLEX}]; "
              "transpose_a:bool; transpose_b:bool",
    **{op: f"x@input:T -> output:T | T:type in [{FLOAT_NO_BF16},{COMPLEX}]" for op in (
        "MatrixDeterminant", "Cholesky")},
    "MatrixInverse": f"x@input:T -> output:T | T:type in [{FLOAT_NO_BF16},{COMPLEX}]; "
                     "adjoint:bool",
    "MatrixSolve": f"a@matrix:T, b@rhs:T -> output:T | T:type in [{FLOAT_NO_BF16},{COMPLEX}]; "
                   "adjoint:bool",
    "MatrixBandPart": "x@input:T -> band:T | T:type; num_lower:int; num_upper:int",
    # random
    **{op: f"shape:T -> output:dtype | T:type in [{IDX}]; dtype:type in [{FLOAT}]; seed:int; "
           "seed2:int" for op in ("RandomUniform", "RandomStandardNormal", "TruncatedNormal")},
    **{op: f"shape:T, seed:Tseed -> output:dtype | T:type in [{IDX}]; Tseed:type in [{IDX}]; "
           f"dtype:type in [{FLOAT}]" for op in (
        "StatelessRandomUniform", "StatelessRandomNormal", "StatelessTruncatedNormal")},
    "Multinomial": f"logits:T, num_samples:int32 -> output:output_dtype | T:type in [{REAL}]; "
                   f"output_dtype:type in [{IDX}]; seed:int; seed2:int",
    **{op: f"shape:T, {params} -> output:any | T:type in [{IDX}]; seed:int; seed2:int"
       for op, params in (("RandomGamma", "alpha:any"), ("RandomPoissonV2", "rate:any"),
                          ("RandomUniformInt", "minval:any, maxval:any"))},
    "RandomShuffle": "value:T -> output:T | T:type; seed:int; seed2:int",
    "Eye": f"num_rows:T, num_columns:T -> output:dtype | T:type in [{IDX}]; dtype:type; "
           "batch_shape:list(int) each>=0",
    "LinSpace": f"start:T, stop:T, num:Tidx -> output:T | T:type in [{REAL}]; "
                f"Tidx:type in [{IDX}]; axis:int",
    # gradients of pooling and convolution: the same attrs as their forward ops
    "MaxPoolGrad": f"x@orig_input:T, y@orig_output:T, dy@grad:T -> output:T | "
                   f"T:type in [{REAL}]; ksize:list(int) each>=1; strides:list(int) each>=1; "
                   "padding:string in [SAME,VALID,EXPLICIT]",
    "MaxPoolGradGrad": f"x@orig_input:T, y@orig_output:T, g@grad:T -> output:T | "
                       f"T:type in [{REAL}]; ksize:list(int) each>=1; strides:list(int) each>=1; "
                       "padding:string in [SAME,VALID]",
    "AvgPoolGrad": f"orig_input_shape:int32, dy@grad:T -> output:T | T:type in [{FLOAT}]; "
                   "ksize:list(int) each>=1; strides:list(int) each>=1; "
                   "padding:string in [SAME,VALID]",
    "Conv2DBackpropInput": f"input_sizes:int32, w@filter:T, dy@out_backprop:T -> output:T | "
                           f"T:type in [{FLOAT},int32]; strides:list(int) each>=1; "
                           "padding:string in [SAME,VALID,EXPLICIT]; "
                           "dilations:list(int) each>=1",
    "Conv2DBackpropFilter": f"x@input:T, filter_sizes:int32, dy@out_backprop:T -> output:T | "
                            f"T:type in [{FLOAT},int32]; strides:list(int) each>=1; "
                            "padding:string in [SAME,VALID,EXPLICIT]; "
                            "dilations:list(int) each>=1",
    **{op: f"input_sizes:{sizes}, w@filter:T, dy@out_backprop:T -> output:T | "
           f"T:type in [{FLOAT}]; strides:list(int) each>=1; "
           f"padding:string in [SAME,VALID,EXPLICIT]; dilations:list(int) each>=1{more}"
       for op, sizes, more in (("Conv3DBackpropInputV2", "Tshape", f"; Tshape:type in [{IDX}]"),
                               ("DepthwiseConv2dNativeBackpropInput", "int32", ""))},
    **{op: f"x@input:T, filter_sizes:int32, dy@out_backprop:T -> output:T | "
           f"T:type in [{FLOAT}]; strides:list(int) each>=1; "
           "padding:string in [SAME,VALID,EXPLICIT]; dilations:list(int) each>=1"
       for op in ("Conv3DBackpropFilterV2", "DepthwiseConv2dNativeBackpropFilter")},
    "MaxPool3DGrad": f"x@orig_input:TInput, y@orig_output:TInput, dy@grad:T -> output:T | "
                     f"T:type in [{FLOAT}]; TInput:type in [{FLOAT}]; ksize:list(int) each>=1; "
                     "strides:list(int) each>=1; padding:string in [SAME,VALID,EXPLICIT]",
    "MaxPool3DGradGrad": f"x@orig_input:T, y@orig_output:T, g@grad:T -> output:T | "
                         f"T:type in [{FLOAT}]; ksize:list(int) each>=1; "
                         "strides:list(int) each>=1; padding:string in [SAME,VALID,EXPLICIT]",
    "AvgPool3DGrad": f"orig_input_shape:int32, dy@grad:T -> output:T | T:type in [{FLOAT}]; "
                     "ksize:list(int) each>=1; strides:list(int) each>=1; "
                     "padding:string in [SAME,VALID,EXPLICIT]",
    # FFTs (TensorFlow's Tcomplex/Treal of an output: export writes the output's dtype)
    **{op: f"x@input:Tcomplex -> output:Tcomplex | Tcomplex:type in [{COMPLEX}]" for op in (
        "FFT", "FFT2D", "FFT3D", "IFFT", "IFFT2D", "IFFT3D")},
    **{op: "x@input:Treal, fft_length:int32 -> output:any | Treal:type in [float,double]"
       for op in ("RFFT", "RFFT2D", "RFFT3D")},
    **{op: f"x@input:Tcomplex, fft_length:int32 -> output:any | Tcomplex:type in [{COMPLEX}]"
       for op in ("IRFFT", "IRFFT2D", "IRFFT3D")},
    "BiasAddGrad": f"dy@out_backprop:T -> output:T | T:type in [{NUM}]; "
                   "data_format:string in [NHWC,NCHW]",
    # segments, masks, sorting
    **{op: f"data:T, ids@segment_ids:Tindices -> output:T | T:type in [{REAL}]; "
           f"Tindices:type in [{IDX}]" for op in (
        "SegmentSum", "SegmentMean", "SegmentMax", "SegmentMin", "SegmentProd")},
    **{op: f"data:T, ids@segment_ids:Tindices, num_segments:Tnumsegments -> output:T | "
           f"T:type in [{NUM}]; Tindices:type in [{IDX}]; Tnumsegments:type in [{IDX}]"
       for op in ("UnsortedSegmentSum", "UnsortedSegmentMean", "UnsortedSegmentMax",
                  "UnsortedSegmentMin", "UnsortedSegmentProd")},
    "BooleanMask": "tensor:T, mask:bool -> output:T | T:type; axis:int axis(tensor)",
    "Repeat": f"x@input:T, repeats:Trepeats -> output:T | T:type; Trepeats:type in [{IDX}]; "
              "axis:int? axis(x)",
    "Sort": f"x@input:T -> output:T | T:type in [{REAL}]; descending:bool",
    "Bincount": f"arr:Tidx, weights:any -> bins:any | Tidx:type in [{IDX}]; minlength:int?; "
                "maxlength:int?; dtype:type; axis:int?; binary_output:bool",
    "StridedSliceGrad": f"shape_@shape:Index, begin:Index, end:Index, strides:Index, dy:T -> "
                        f"output:T | T:type; Index:type in [{IDX}]; {_MASKS}",
    "EnsureShape": "input:T -> output:T | T:type; shape:shape",
    "HistogramFixedWidth": f"values:T, value_range:T, nbins:int32 -> out:dtype | T:type; "
                           f"dtype:type in [{IDX}]",
    "DrawBoundingBoxesV2": "images:T, boxes:float, colors:float -> output:T | T:type",
    "NonMaxSuppressionV5": "boxes:T, scores:T, max_output_size:int32, iou_threshold:T, "
                           "score_threshold:T, soft_nms_sigma:T -> selected_indices:int32, "
                           "selected_scores:T, valid_outputs:int32 | T:type; "
                           "pad_to_max_output_size:bool",
    "StridedSlice": f"x@input:T, begin:Index, end:Index, strides:Index -> output:T | T:type; "
                    f"Index:type in [{IDX}]; {_MASKS}",
    "Cast": "x:SrcT -> y:DstT | SrcT:type; DstT:type",
    **{op: "x@input:T -> output:T | T:type" for op in ("Identity", "StopGradient")},
    **{op: "x:T -> y:T | T:type" for op in ("ZerosLike", "OnesLike")},
    "Rank": "x@input:T -> output:int32 | T:type",
    # complex numbers (real tensors never reach these ops)
    **{op: f"x@input:T -> output:any | T:type in [{COMPLEX}]" for op in ("Real", "Imag")},
    "ComplexAbs": f"x:T -> y:any | T:type in [{COMPLEX}]",
    "Conj": f"x@input:T -> output:T | T:type in [{COMPLEX},variant]",
    # variables: a resource handle and a value
    **{op: "resource:resource, value:any -> " for op in (
        "AssignVariableOp", "AssignAddVariableOp", "AssignSubVariableOp")},
    "ReadVariableOp": "resource:resource -> value:dtype | dtype:type",
    **{op: f"resource:resource, indices:Tindices, updates:any -> | Tindices:type in [{IDX}]"
       for op in ("ResourceScatterAdd", "ResourceScatterSub", "ResourceScatterMul",
                  "ResourceScatterDiv", "ResourceScatterMin", "ResourceScatterMax",
                  "ResourceScatterUpdate")},
    # (TensorFlow calls the handle of these ``ref``)
    **{op: f"resource@ref:resource, indices:Tindices, updates:any -> | "
           f"Tindices:type in [{IDX}]" for op in (
        "ResourceScatterNdAdd", "ResourceScatterNdSub", "ResourceScatterNdMin",
        "ResourceScatterNdMax", "ResourceScatterNdUpdate")},
    "ResourceStridedSliceAssign": f"resource@ref:resource, begin:Index, end:Index, "
                                  f"strides:Index, value:any -> | Index:type in [{IDX}]; {_MASKS}",
    # graph building blocks
    "Placeholder": "-> output:dtype | dtype:type; shape:any",
    "Const": "-> output:dtype | dtype:type; value:tensor",
    "NoOp": "->",
    # strings and debugging
    **{op: "x@input:string -> output:string | encoding:string in [,utf-8]" for op in (
        "StringLower", "StringUpper")},
    "StringStrip": "x@input:string -> output:string",
    "StaticRegexReplace": "x@input:string -> output:string | pattern:string; rewrite:string; "
                          "replace_global:bool",
    "StringJoin": "inputs:N*string -> output:string | separator:string",
    "StringSplitV2": "x@input:string -> output:any | sep:string?; maxsplit:int",
    "StaticRegexFullMatch": "x@input:string -> output:bool | pattern:string",
    "Substr": f"x@input:string, pos:T, len_@len:T -> output:string | T:type in [{IDX}]; "
              "unit:string in [BYTE,UTF8_CHAR]",
    "ReduceJoin": "x@inputs:string -> output:string | axis@reduction_indices:list(int)? axis(x); "
                  "keepdims@keep_dims:bool; separator:string",
    "StringLength": "x@input:string -> output:int32 | unit:string in [BYTE,UTF8_CHAR]",
    "StringToNumber": f"x@string_tensor:string -> output:out_type | "
                      f"out_type:type in [float,double,{IDX},uint32,uint64]",
    "AsString": f"x@input:T -> output:string | T:type in [{NUM},bool]; precision:int; "
                "scientific:bool; shortest:bool; width:int; fill:string",
    "DecodeBase64": "x@input:string -> output:string",
    "EncodeBase64": "x@input:string -> output:string | pad:bool",
    "ReadFile": "filename:string -> contents:string",
    "WriteFile": "filename:string, contents:string ->",
    "SerializeTensor": "tensor:T -> serialized:string | T:type",
    "ParseTensor": "serialized:string -> output:out_type | out_type:type",
    "Timestamp": "-> ts:double",
    "CheckNumerics": f"tensor:T -> output:T | T:type in [{FLOAT_C}]; message:string",
}

# Ops whose kernel accepts shapes (or shape values) that ``infer`` refuses.
# (Hot ops, such as Reshape, Fill, Slice, PadV2 and Unpack, instead have kernels that refuse
# what their ``infer`` refuses: ``bind`` then reports ``infer``'s message, as in a graph.)
CHECK_SHAPES = {"StatelessRandomUniform", "StatelessRandomNormal", "StatelessTruncatedNormal"}

for _name, _text in SCHEMAS.items():
    declare_schema(_name, _text, check_shapes=_name in CHECK_SHAPES)
