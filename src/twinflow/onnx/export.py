"""``twinflow.onnx.export``: a concrete function's optimized graph as an ONNX ModelProto."""
from __future__ import annotations

import os
from typing import Any

import numpy as np

from ..core import nest
from ..core.errors import InvalidArgumentError
from ..core.files import atomic_write
from ..eager.func_graph import TensorSpec
from ..function.function import ConcreteFunction, Function, function
from . import array_ops, control_ops, math_ops, nn_ops  # noqa: F401  (register converters)
from .converter import CONVERTERS, Context, unsupported

DEFAULT_OPSET = 17
MIN_OPSET = 13


def load_onnx():
    """The ``onnx`` module, or an ImportError saying how to install it."""
    try:
        import onnx  # noqa: PLC0415  (optional dependency, imported on use)
    except ImportError as e:
        raise ImportError("twinflow.onnx needs the 'onnx' package: pip install "
                          "'twinflow[onnx]' (or pip install onnx onnxruntime)") from e
    return onnx


def supported_ops() -> list:
    """The TensorFlow op names the exporter converts.

    Returns:
        A sorted list of op names.
    """
    return sorted(CONVERTERS)


def _is_keras(obj) -> bool:
    return hasattr(obj, "call") and hasattr(obj, "trainable_weights") and callable(obj)


def _concrete(fn_or_model, input_signature):
    """The ConcreteFunction to export, or (it, the ONNX names of its inputs)."""
    if isinstance(fn_or_model, ConcreteFunction):
        if input_signature is not None:
            raise ValueError("twinflow.onnx.export: a ConcreteFunction has its signature "
                             "already; pass input_signature=None")
        return fn_or_model
    if input_signature is None and isinstance(fn_or_model, Function):
        input_signature = fn_or_model.input_signature   # tw.function(input_signature=...)
    if input_signature is None:
        raise ValueError("twinflow.onnx.export needs an input_signature (a list of "
                         "tw.TensorSpec, one per argument) for a Function, model or callable")
    specs = list(input_signature)
    if not all(isinstance(s, TensorSpec) for s in nest.flatten(specs)):
        raise TypeError("twinflow.onnx.export: input_signature must hold tw.TensorSpec "
                        f"values, got {input_signature!r}")
    if isinstance(fn_or_model, Function):
        return fn_or_model.get_concrete_function(*specs)
    if _is_keras(fn_or_model):
        model = fn_or_model
        if len(specs) == 1:   # the ONNX input is named x (input_0, input_1... for several)
            return function(lambda x: model(x, training=False)).get_concrete_function(*specs)
        call = function(lambda *xs: model(list(xs), training=False))
        return call.get_concrete_function(*specs), [f"input_{i}" for i in range(len(specs))]
    if callable(fn_or_model):
        return function(fn_or_model).get_concrete_function(*specs)
    raise TypeError("twinflow.onnx.export converts a tw.function, a ConcreteFunction, a Keras "
                    f"model or a Python callable, got {type(fn_or_model).__name__}")


def _input_info(cx, t, name: str):
    dims = t.shape.as_list() if t.shape.rank is not None else None
    if dims is not None:   # unknown dims become symbolic: the batch, or name_dimN
        dims = [d if d is not None else ("batch" if i == 0 else f"{name}_dim{i}")
                for i, d in enumerate(dims)]
    return cx.value_info(name, dims, t.dtype.np)


def _output_info(cx, name: str, t):
    dims = t.shape.as_list() if t.shape.rank is not None else None
    return cx.value_info(name, dims, t.dtype.np)


def _output_names(cf: ConcreteFunction, n: int) -> list:
    so = cf.structured_outputs
    if isinstance(so, dict) and len(so) == n and all(isinstance(k, str) for k in so):
        return sorted(so)        # nest.flatten orders a dict by key
    return ["output_0"] if n == 1 else [f"output_{i}" for i in range(n)]


def to_model(cf: ConcreteFunction, opset: int = DEFAULT_OPSET, onnx=None,
             input_names: list | None = None):
    """Converts a ConcreteFunction's optimized graph into an ONNX ModelProto (unchecked).

    Args:
        cf: the ConcreteFunction.
        opset: the ONNX opset of the nodes.
        onnx: the ``onnx`` module (imported when None).
        input_names: the ONNX names of the inputs (default: the function's parameter names).

    Returns:
        The ModelProto.
    """
    onnx = onnx or load_onnx()
    prog = cf.optimized_program
    cx = Context(onnx, opset)
    args = prog.inputs[:len(prog.inputs) - _symbolic_captures(cf)]
    if len(args) != len(prog.inputs):
        raise unsupported(prog.inputs[-1].op, "it captures a symbolic tensor of an outer graph")
    inputs = []
    for i, t in enumerate(args):
        hint = input_names[i] if input_names else \
            str(t.op.attrs.get("_user_specified_name") or t.op.name or f"input_{i}")
        name = cx.fresh(hint)
        cx.env[id(t)] = name
        cx.dtypes[name] = np.dtype(t.dtype.np)
        inputs.append(_input_info(cx, t, name))
    out_names = [cx.fresh(n) for n in _output_names(cf, len(prog.outputs))]  # taken first
    cx.convert_ops([op for op in prog.graph.get_operations() if op.type != "Placeholder"])
    outputs = []
    for out, t in zip(out_names, prog.outputs):
        cx.nodes.append(onnx.helper.make_node("Identity", [cx.name(t)], [out],
                                              name=cx.fresh(f"{out}/Identity")))
        outputs.append(_output_info(cx, out, t))
    used = _used_names(cx.nodes)
    graph = onnx.helper.make_graph(cx.nodes, cf.name or "twinflow", inputs, outputs,
                                   initializer=[i for i in cx.initializers if i.name in used])
    opsets = [onnx.helper.make_opsetid("", opset)]
    model = onnx.helper.make_model(graph, opset_imports=opsets, producer_name="twinflow",
                                   ir_version=_ir_version(onnx, opset))
    return model


def _used_names(nodes) -> set:
    """The value names ``nodes`` read, in sub-graphs too (constants a converter read at
    conversion time, such as a StridedSlice's bounds, are left out of the model)."""
    used: set = set()
    for node in nodes:
        used.update(node.input)
        for attr in node.attribute:
            if attr.HasField("g"):
                used |= _used_names(attr.g.node)
                used.update(o.name for o in attr.g.output)
    return used


def _symbolic_captures(cf: ConcreteFunction) -> int:
    return len(cf.optimized_program.inputs) - len(cf._arg_inputs)


def _ir_version(onnx, opset: int) -> int:
    """The lowest IR version that carries ``opset`` (what runtimes of that era read)."""
    for _release, ir, ai_onnx, *_ in onnx.helper.VERSION_TABLE:
        if ai_onnx >= opset:
            return ir
    return onnx.IR_VERSION


def export(fn_or_model: Any, input_signature=None, path: str | os.PathLike | None = None,
           opset: int = DEFAULT_OPSET) -> Any:
    """Exports the optimized graph of a function or Keras model as an ONNX model.

    The graph is the one ``tw.function`` runs after the compiler's passes; variables become
    initializers holding their current values; a ``None`` dim of the signature becomes a
    symbolic dim (``batch`` for the first one), so the model runs on any size there.

    Args:
        fn_or_model: a ``ConcreteFunction`` (its signature is used), a ``tw.function``, a
            Keras model or layer (called with ``training=False``), or a Python callable.
        input_signature: a list of ``tw.TensorSpec``, one per positional argument (None for
            a ConcreteFunction, or a ``tw.function`` that has its own input_signature).
        path: where to write the serialized model (atomically), or None.
        opset: the ONNX opset (13 or newer; default 17).

    Returns:
        The ``onnx.ModelProto``, checked with ``onnx.checker.check_model``.

    Raises:
        ImportError: the ``onnx`` package is not installed.
        UnimplementedError: the graph holds an op the exporter cannot convert (the message
            names it and the line that created it).
    """
    onnx = load_onnx()
    top = onnx.defs.onnx_opset_version()
    if isinstance(opset, bool) or not isinstance(opset, (int, np.integer)) or \
            not MIN_OPSET <= int(opset) <= top:
        raise InvalidArgumentError(None, None, f"twinflow.onnx.export: opset must be an int "
                                               f"from {MIN_OPSET} to {top}, got {opset!r}")
    cf = _concrete(fn_or_model, input_signature)
    cf, names = cf if isinstance(cf, tuple) else (cf, None)
    model = to_model(cf, int(opset), onnx, names)
    onnx.checker.check_model(model)
    if path is not None:
        atomic_write(os.fspath(path), model.SerializeToString())
    return model
