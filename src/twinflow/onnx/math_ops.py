"""Converters of constants, variables, elementwise math, reductions and matrix products.

Elementwise ops are table rows: TensorFlow's name -> the ONNX operator computing the same
function. ``elementwise`` also serves the steps of a ``FusedElementwise`` (the compiler's
fused groups expand back into one ONNX node per step).
"""
from __future__ import annotations

import numpy as np

from ..core import dtypes
from .converter import Resource, converts, unsupported

# TensorFlow unary op -> ONNX operator computing the same function
UNARY = {
    "Abs": "Abs", "Neg": "Neg", "Exp": "Exp", "Log": "Log", "Sqrt": "Sqrt", "Tanh": "Tanh",
    "Sigmoid": "Sigmoid", "Relu": "Relu", "Erf": "Erf", "Floor": "Floor", "Ceil": "Ceil",
    "Sin": "Sin", "Cos": "Cos", "Tan": "Tan", "Asin": "Asin", "Acos": "Acos", "Atan": "Atan",
    "Sinh": "Sinh", "Cosh": "Cosh", "Asinh": "Asinh", "Acosh": "Acosh", "Atanh": "Atanh",
    "Reciprocal": "Reciprocal", "Sign": "Sign", "Round": "Round", "Rint": "Round",
    "Softplus": "Softplus", "Softsign": "Softsign", "Elu": "Elu", "Selu": "Selu",
    "IsNan": "IsNaN", "IsInf": "IsInf", "LogicalNot": "Not", "Identity": "Identity",
    "StopGradient": "Identity", "Snapshot": "Identity",
}
# TensorFlow binary op -> ONNX operator (both broadcast the NumPy way)
BINARY = {
    "AddV2": "Add", "Add": "Add", "BiasAdd": "Add", "Sub": "Sub", "Mul": "Mul",
    "RealDiv": "Div", "Maximum": "Max", "Minimum": "Min", "Pow": "Pow", "Equal": "Equal",
    "Less": "Less", "LessEqual": "LessOrEqual", "Greater": "Greater",
    "GreaterEqual": "GreaterOrEqual", "LogicalAnd": "And", "LogicalOr": "Or",
}
_BOOL_RESULT = {"Equal", "NotEqual", "Less", "LessEqual", "Greater", "GreaterEqual",
                "IsNan", "IsInf"}


def elementwise(cx, tf_type: str, names: list, hint: str, attrs: dict | None = None) -> str:
    """The ONNX nodes computing elementwise op ``tf_type`` on values ``names``.

    Args:
        cx: the Context.
        tf_type: the TensorFlow op name.
        names: its input value names.
        hint: the output name hint.
        attrs: the op's attrs (LeakyRelu's alpha).

    Returns:
        The result's name, or None when ``tf_type`` is not elementwise.
    """
    attrs = attrs or {}
    dt = np.dtype(bool) if tf_type in _BOOL_RESULT else None
    if tf_type in UNARY:
        return cx.node(UNARY[tf_type], names[:1], hint, dtype=dt)
    if tf_type in BINARY:
        return cx.node(BINARY[tf_type], names[:2], hint, dtype=dt)
    x = names[0]
    xdt = cx.dtype(x)
    one = lambda: cx.const(np.asarray(1, xdt))  # noqa: E731
    if tf_type == "Rsqrt":
        return cx.node("Reciprocal", [cx.node("Sqrt", [x], f"{hint}/sqrt")], hint)
    if tf_type == "Square":
        return cx.node("Mul", [x, x], hint)
    if tf_type == "SquaredDifference":
        d = cx.node("Sub", names[:2], f"{hint}/diff")
        return cx.node("Mul", [d, d], hint)
    if tf_type == "Relu6":
        return cx.node("Min", [cx.node("Relu", [x], f"{hint}/relu"),
                               cx.const(np.asarray(6, xdt))], hint)
    if tf_type == "LeakyRelu":
        return cx.node("LeakyRelu", [x], hint, alpha=float(attrs.get("alpha", 0.2)))
    if tf_type == "Log1p":
        return cx.node("Log", [cx.node("Add", [x, one()], f"{hint}/plus1")], hint)
    if tf_type == "Expm1":
        return cx.node("Sub", [cx.node("Exp", [x], f"{hint}/exp"), one()], hint)
    if tf_type == "LogSigmoid":   # -softplus(-x)
        sp = cx.node("Softplus", [cx.node("Neg", [x], f"{hint}/neg")], f"{hint}/softplus")
        return cx.node("Neg", [sp], hint)
    if tf_type == "NotEqual":
        return cx.node("Not", [cx.node("Equal", names[:2], f"{hint}/eq", dtype=bool)], hint,
                       dtype=bool)
    if tf_type == "FloorDiv" and xdt.kind == "f":
        return cx.node("Floor", [cx.node("Div", names[:2], f"{hint}/div")], hint)
    if tf_type == "FloorMod":
        # x - floor(x / y) * y for floats; ONNX Mod with fmod=0 is Python's % for integers
        if xdt.kind != "f":
            return cx.node("Mod", names[:2], hint, fmod=0)
        q = cx.node("Floor", [cx.node("Div", names[:2], f"{hint}/div")], f"{hint}/floor")
        return cx.node("Sub", [x, cx.node("Mul", [q, names[1]], f"{hint}/mul")], hint)
    if tf_type == "SelectV2":
        return cx.node("Where", names[:3], hint, dtype=cx.dtype(names[1]))
    if tf_type == "ClipByValue":   # the kernel's np.clip: min(max(x, lo), hi)
        return cx.node("Min", [cx.node("Max", [x, names[1]], f"{hint}/max"), names[2]], hint)
    if tf_type == "AddN":
        return names[0] if len(names) == 1 else cx.node("Sum", list(names), hint)
    return None


_OTHER_ELEMENTWISE = ("Rsqrt", "Square", "SquaredDifference", "Relu6", "LeakyRelu", "Log1p",
                      "Expm1", "LogSigmoid", "NotEqual", "FloorDiv", "FloorMod", "SelectV2",
                      "ClipByValue", "AddN")


@converts(*UNARY, *BINARY, *_OTHER_ELEMENTWISE)
def _elementwise_op(cx, op):
    if op.type == "BiasAdd" and op.attrs.get("data_format", "NHWC") == "NCHW" and \
            op.inputs[0].shape.rank != 2:
        rank = op.inputs[0].shape.rank
        if rank is None:
            raise unsupported(op, "an NCHW BiasAdd needs the input's rank")
        bias = cx.node("Unsqueeze", [cx.name(op.inputs[1]), cx.ints(range(1, rank - 1))],
                       f"{op.name}/bias")
        return [cx.node("Add", [cx.name(op.inputs[0]), bias], op.name)]
    if op.type == "FloorDiv" and op.inputs[0].dtype.np.kind != "f":
        raise unsupported(op, "ONNX divides integers rounding toward zero, TensorFlow's "
                              "FloorDiv rounds down; only floating-point FloorDiv converts")
    names = [cx.name(t) for t in op.inputs]
    return [elementwise(cx, op.type, names, op.name, op.attrs)]


@converts("Const")
def _const(cx, op):
    if op.outputs[0].dtype is dtypes.resource:
        return [Resource(op.attrs["value"])]
    value = op.attrs["value"]
    arr = np.asarray(value)
    if arr.dtype.kind in "OSU":
        raise unsupported(op, "ONNX export supports numeric and bool tensors only")
    return [cx.const(arr.astype(op.outputs[0].dtype.np, copy=False), op.name)]


@converts("NoOp")
def _no_op(cx, op):
    return []   # a control dependency's anchor: nothing to compute


@converts("ReadVariableOp")
def _read_variable(cx, op):
    handle = cx.env.get(id(op.inputs[0]))
    if not isinstance(handle, Resource):
        raise unsupported(op, "it reads a variable handle computed at run time")
    return [cx.variable(handle.variable)]


@converts("Cast")
def _cast(cx, op):
    return [cx.cast(cx.name(op.inputs[0]), op.outputs[0].dtype.np, op.name)]


@converts("Softmax", "LogSoftmax")
def _softmax(cx, op):
    return [cx.node(op.type, [cx.name(op.inputs[0])], op.name, axis=int(op.attrs["axis"]))]


_REDUCE = {"Sum": "ReduceSum", "Mean": "ReduceMean", "Max": "ReduceMax", "Min": "ReduceMin",
           "Prod": "ReduceProd"}


@converts(*_REDUCE)
def _reduce(cx, op):
    x = cx.name(op.inputs[0])
    axis = op.attrs.get("axis")
    if axis is not None and len(axis) == 0:   # TensorFlow reduces nothing over no axes
        return [cx.node("Identity", [x], op.name)]
    keep = int(bool(op.attrs.get("keepdims", False)))
    onnx_type = _REDUCE[op.type]
    if axis is None:
        return [cx.node(onnx_type, [x], op.name, keepdims=keep)]
    axes = [int(a) for a in axis]
    if onnx_type == "ReduceSum" or cx.opset >= 18:
        return [cx.node(onnx_type, [x, cx.ints(axes)], op.name, keepdims=keep)]
    return [cx.node(onnx_type, [x], op.name, keepdims=keep, axes=axes)]


@converts("Any", "All")
def _any_all(cx, op):
    """ReduceMax / ReduceMin over the bools as int32 (ONNX reduces bools from opset 20 on)."""
    x = cx.cast(cx.name(op.inputs[0]), np.int32, f"{op.name}/int")
    axis = op.attrs.get("axis")
    keep = int(bool(op.attrs.get("keepdims", False)))
    if axis is not None and len(axis) == 0:
        r = x
    else:
        onnx_type = "ReduceMax" if op.type == "Any" else "ReduceMin"
        if axis is None:
            r = cx.node(onnx_type, [x], f"{op.name}/reduce", keepdims=keep)
        elif cx.opset >= 18:
            r = cx.node(onnx_type, [x, cx.ints(axis)], f"{op.name}/reduce", keepdims=keep)
        else:
            r = cx.node(onnx_type, [x], f"{op.name}/reduce", keepdims=keep,
                        axes=[int(a) for a in axis])
    return [cx.cast(r, np.bool_, op.name)]


@converts("ArgMax", "ArgMin")
def _arg(cx, op):
    r = cx.node(op.type, [cx.name(op.inputs[0])], f"{op.name}/i64", dtype=np.int64,
                axis=int(op.attrs["axis"]), keepdims=0)
    return [cx.cast(r, op.outputs[0].dtype.np, op.name)]


def _swap_last(cx, x: str, rank: int | None, op) -> str:
    if rank is None:
        raise unsupported(op, "a transposed operand needs a known rank")
    perm = list(range(rank - 2)) + [rank - 1, rank - 2]
    return cx.node("Transpose", [x], f"{op.name}/T", perm=perm)


@converts("MatMul", "BatchMatMulV2", "BatchMatMul")
def _matmul(cx, op):
    a, b = (cx.name(t) for t in op.inputs)
    at = op.attrs.get("transpose_a") or op.attrs.get("adj_x")
    bt = op.attrs.get("transpose_b") or op.attrs.get("adj_y")
    if at:
        a = _swap_last(cx, a, op.inputs[0].shape.rank, op)
    if bt:
        b = _swap_last(cx, b, op.inputs[1].shape.rank, op)
    return [cx.node("MatMul", [a, b], op.name)]


@converts("Einsum")
def _einsum(cx, op):
    eq = str(op.attrs["equation"]).replace(" ", "")
    return [cx.node("Einsum", [cx.name(t) for t in op.inputs], op.name, equation=eq)]


@converts("Cumsum")
def _cumsum(cx, op):
    axis = cx.const(np.asarray(int(op.attrs["axis"]), np.int64))
    return [cx.node("CumSum", [cx.name(op.inputs[0]), axis], op.name,
                    exclusive=int(bool(op.attrs.get("exclusive"))),
                    reverse=int(bool(op.attrs.get("reverse"))))]
