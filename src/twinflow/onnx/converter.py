"""The graph walk of the ONNX exporter: one ``Context`` per export, one converter per op type.

A converter is registered for TensorFlow op names (``@converts("MatMul")``) and receives the
Context and the twinflow ``Operation``; it returns one ONNX value name per output of the op
(None for an output nothing may use, such as a While's History). Converters read their inputs
with ``cx.name(t)`` and constant inputs with ``cx.value_of(t)``, and add nodes with
``cx.node(...)``. Sub-graphs (While bodies, If branches) are converted into nested node lists
by ``cx.subgraph``; a captured outer tensor is used by its outer name (ONNX sub-graphs see the
enclosing scopes).

Values that are not tensors live in the Context too: a variable handle (a ``Const`` of dtype
``resource``) maps to ``Resource`` and becomes an initializer where ``ReadVariableOp`` reads it.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import numpy as np

from ..core import dtypes
from ..core.errors import UnimplementedError

CONVERTERS: dict = {}


def converts(*op_types: str) -> Callable:
    """Registers the decorated function as the converter of ``op_types``.

    Args:
        *op_types: TensorFlow op names.

    Returns:
        The decorator.
    """
    def deco(fn: Callable) -> Callable:
        for t in op_types:
            CONVERTERS[t] = fn
        return fn
    return deco


@dataclasses.dataclass
class Resource:
    """A variable handle: ``ReadVariableOp`` of it becomes an initializer."""

    variable: Any


def where(op) -> str:
    """``" (created at file:line in f: code)"`` for an op that knows its source line."""
    src = getattr(op, "source", None)
    if src is None:
        return ""
    text = f"{src.filename}:{src.lineno} in {src.function}"
    return f" (created at {text}: {src.line.strip()})" if src.line else f" (created at {text})"


def unsupported(op, why: str = "") -> UnimplementedError:
    """The error for an op (or a use of one) the exporter cannot convert."""
    detail = f": {why}" if why else ""
    return UnimplementedError(
        None, None, f"twinflow.onnx cannot convert op '{op.type}' (named '{op.name}')"
                    f"{where(op)} to ONNX{detail}. twinflow.onnx.supported_ops() lists the "
                    "ops it converts.")


class Context:
    """The state of one export: nodes, initializers, value names and dtypes.

    Args:
        onnx: the imported ``onnx`` module.
        opset: the ONNX opset the nodes are written for.
    """

    def __init__(self, onnx, opset: int) -> None:
        self.onnx = onnx
        self.helper = onnx.helper
        self.opset = opset
        self.initializers: list = []
        self.nodes: list = []            # the node list being filled (a sub-graph's inside one)
        self.env: dict = {}              # id(twinflow tensor) -> ONNX name or Resource
        self.dtypes: dict = {}           # ONNX name -> NumPy dtype (a sequence's elements')
        self.sequences: set = set()      # ONNX names of sequences (TensorLists)
        self.consts: dict = {}           # ONNX name -> NumPy value of constants
        self._taken: set = set()
        self._variables: dict = {}       # id(variable) -> initializer name
        self._scalars: dict = {}         # (dtype, value) -> initializer name

    # ----- names -----
    def fresh(self, hint: str) -> str:
        """A value or node name not used before, close to ``hint``."""
        base = "".join(c if c.isalnum() or c in "_/.:-" else "_" for c in hint) or "v"
        name, k = base, 1
        while name in self._taken:
            name, k = f"{base}_{k}", k + 1
        self._taken.add(name)
        return name

    def name(self, t) -> str:
        """The ONNX name of twinflow tensor ``t`` (converted earlier)."""
        v = self.env.get(id(t))
        if v is None:
            raise unsupported(t.op, f"its output {t.name} is used but was not converted")
        if isinstance(v, Resource):
            raise unsupported(t.op, "a variable handle is used by an op other than "
                                    "ReadVariableOp")
        return v

    def value_of(self, t):
        """The NumPy value of ``t`` when the graph holds it as a constant, else None."""
        v = self.env.get(id(t))
        return self.consts.get(v) if isinstance(v, str) else None

    def dtype(self, name: str):
        """The NumPy dtype of ONNX value ``name``."""
        return self.dtypes[name]

    # ----- building -----
    def node(self, op_type: str, inputs: list, hint: str, n_out: int = 1,
             dtype=None, **attrs) -> Any:
        """Adds one ONNX node.

        Args:
            op_type: the ONNX operator.
            inputs: input value names ("" for an omitted optional input).
            hint: the base of the output names.
            n_out: the number of outputs.
            dtype: the NumPy dtype of the outputs (default: the first input's).
            **attrs: ONNX attributes.

        Returns:
            The output name, or a list of names when ``n_out != 1``.
        """
        outs = [self.fresh(hint if n_out == 1 else f"{hint}:{i}") for i in range(n_out)]
        if dtype is None and inputs:
            dtype = self.dtypes.get(inputs[0])
        for o in outs:
            self.dtypes[o] = np.dtype(dtype) if dtype is not None else None
        self.nodes.append(self.helper.make_node(op_type, inputs, outs,
                                                name=self.fresh(f"{hint}/{op_type}"), **attrs))
        return outs[0] if n_out == 1 else outs

    def const(self, value, hint: str = "const", dtype=None) -> str:
        """An initializer holding ``value`` (scalars of one dtype and value are shared)."""
        arr = np.asarray(value, dtype=dtype)
        key = (arr.dtype.str, arr.tobytes()) if arr.ndim == 0 else None
        if key is not None and key in self._scalars:
            return self._scalars[key]
        name = self.fresh(hint)
        self.initializers.append(self.onnx.numpy_helper.from_array(arr, name))
        self.dtypes[name] = arr.dtype
        self.consts[name] = arr
        if key is not None:
            self._scalars[key] = name
        return name

    def ints(self, values, hint: str = "ints") -> str:
        """An int64 1-D constant (shapes, axes, pads as ONNX takes them)."""
        return self.const(np.asarray(list(values), dtype=np.int64), hint)

    def variable(self, var) -> str:
        """The initializer holding a variable's current value (one per variable)."""
        name = self._variables.get(id(var))
        if name is None:
            hint = str(getattr(var, "name", "variable")).removesuffix(":0")
            name = self.const(np.asarray(var.numpy()), hint)
            self._variables[id(var)] = name
        return name

    def cast(self, name: str, np_dtype, hint: str | None = None) -> str:
        """``name`` cast to ``np_dtype`` (no node when it already has it)."""
        np_dtype = np.dtype(np_dtype)
        if self.dtypes.get(name) == np_dtype:
            return name
        if name in self.consts:
            return self.const(self.consts[name].astype(np_dtype), f"{name}_cast")
        return self.node("Cast", [name], hint or f"{name}_cast", dtype=np_dtype,
                         to=self.helper.np_dtype_to_tensor_dtype(np_dtype))

    def tensor_type(self, np_dtype) -> int:
        """The ONNX element type of a NumPy dtype."""
        return self.helper.np_dtype_to_tensor_dtype(np.dtype(np_dtype))

    # ----- graphs -----
    def convert_ops(self, ops: list) -> None:
        """Converts ``ops`` (in graph order) into the current node list."""
        for op in ops:
            fn = CONVERTERS.get(op.type)
            if fn is None:
                raise unsupported(op)
            outs = fn(self, op)
            for t, name in zip(op.outputs, outs):
                if name is None:
                    continue
                if isinstance(name, str) and name not in self.dtypes:
                    self.dtypes[name] = _np_dtype(t.dtype)
                self.env[id(t)] = name

    def subgraph(self, graph, input_names: list, graph_name: str) -> tuple:
        """Converts a twinflow sub-graph's ops into a fresh node list.

        Args:
            graph: the SubGraph; its ``inputs`` are bound to ``input_names`` (names visible in
                the sub-graph's scope, or Resource values).
            graph_name: the name hint of the ONNX graph.

        Returns:
            (nodes, output names of ``graph.outputs``).
        """
        saved = self.nodes
        self.nodes = []
        try:
            for t, n in zip(graph.inputs, input_names):
                self.env[id(t)] = n
            self.convert_ops([op for op in graph.get_operations() if op.type != "Placeholder"])
            outs = [self.name(t) for t in graph.outputs]
            return self.nodes, outs
        finally:
            self.nodes = saved

    def value_info(self, name: str, shape=None, dtype=None, sequence: bool = False):
        """A ValueInfoProto for ``name`` (a tensor of ``dtype``/``shape`` or a sequence)."""
        dt = self.tensor_type(dtype if dtype is not None else self.dtypes[name])
        if sequence:
            return self.helper.make_tensor_sequence_value_info(name, dt, None)
        return self.helper.make_tensor_value_info(name, dt, shape)


def _np_dtype(dt):
    """The NumPy dtype of a twinflow dtype (None for variant/resource)."""
    if dt in (dtypes.variant, dtypes.resource):
        return None
    return np.dtype(dt.np)
