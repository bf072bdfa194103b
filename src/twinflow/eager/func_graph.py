"""FuncGraph: the graph a Python function is traced into, and ``trace_func_graph``.

A ``FuncGraph`` is a ``Graph`` whose inputs are placeholders. Tensors from outside it that the
traced code uses (eager constants, variable handles, symbolic tensors of an enclosing graph) are
*captured*: each becomes one more placeholder, remembered in ``graph.captures`` as
``(outer_tensor, placeholder)`` and appended to ``graph.inputs``. Whoever runs the graph feeds
each capture placeholder the current value of its outer tensor (for a variable handle, the
Variable object itself, so reads see the variable's value at call time).

API used by ``tw.function`` and by control flow (``cond``/``while_loop`` bodies)::

    fg = trace_func_graph(fn, args, kwargs, name="f")
    fg.inputs              # placeholders: one per TensorSpec/tensor leaf of args, then captures
    fg.outputs             # flat list of symbolic output tensors
    fg.structured_outputs  # fn's return value with symbolic tensors in it
    fg.captures            # [(outer_tensor, placeholder)]
    fg.variables           # variables created while tracing

Leaves of ``args``/``kwargs`` that are ``TensorSpec`` s or tensors become placeholders (a tensor
leaf gets a placeholder of its exact dtype and shape); every other leaf (Python numbers, strings,
objects, ``tw.Variable`` s) is passed to ``fn`` unchanged.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..core import dtypes, nest
from ..core.context import ctx, graph_mode
from ..core.shapes import TensorShape
from ..framework.type_spec import TypeSpec
from ..graph.core_ops import Placeholder
from ..graph.graph import Graph
from ..graph.tensor import SymbolicTensor, Tensor
from .execute import convert_to_tensor
from .tensor import EagerTensor


class TensorSpec(TypeSpec):
    """Describes a tensor: shape (dims may be None), dtype and an optional name.

    Args:
        shape: a TensorShape, list/tuple of dims (None for unknown) or None (unknown rank).
        dtype: the dtype (default float32).
        name: the placeholder's name when traced.
    """

    __slots__ = ("shape", "dtype", "name")
    _tw_expands = False  # a tensor is its own single component: a leaf for tw.nest

    @property
    def value_type(self) -> type:
        return Tensor

    def _serialize(self) -> tuple:
        return (self.shape, self.dtype, self.name)

    @property
    def _component_specs(self) -> TensorSpec:
        return self

    def _to_components(self, value):
        return value

    def _from_components(self, components):
        return components

    def __init__(self, shape, dtype=dtypes.float32, name: str | None = None) -> None:
        self.shape = shape if isinstance(shape, TensorShape) else TensorShape(shape)
        self.dtype = dtypes.as_dtype(dtype)
        self.name = name

    @classmethod
    def from_tensor(cls, tensor, name: str | None = None) -> TensorSpec:
        """The spec of a tensor (or NumPy array): its dtype and static shape.

        Args:
            tensor: a tensor or NumPy array.
            name: the spec's name.

        Returns:
            The TensorSpec.
        """
        if isinstance(tensor, np.ndarray):
            return cls(TensorShape._from_tuple(tensor.shape), dtypes.from_numpy(tensor.dtype),
                       name)
        return cls(tensor.shape, tensor.dtype, name)

    def is_compatible_with(self, other) -> bool:
        """True if ``other`` (a spec or tensor) has this dtype and a compatible shape.

        Args:
            other: a TensorSpec or tensor.

        Returns:
            Whether ``other`` fits this spec.
        """
        return other.dtype is self.dtype and self.shape.is_compatible_with(other.shape)

    def __eq__(self, other) -> bool:
        return (isinstance(other, TensorSpec) and other.dtype is self.dtype
                and other.shape == self.shape and other.name == self.name)

    def __hash__(self) -> int:
        return hash((self.dtype, self.shape.as_tuple(), self.name))

    def __repr__(self) -> str:
        dims = self.shape.as_tuple()
        shape = "<unknown>" if dims is None else (
            f"({dims[0]},)" if len(dims) == 1 else f"({', '.join(str(d) for d in dims)})")
        name = repr(self.name) if self.name is not None else "None"
        return f"TensorSpec(shape={shape}, dtype={self.dtype!r}, name={name})"


class FuncGraph(Graph):
    """A Graph traced from a Python function; foreign tensors are captured as placeholders.

    Args:
        name: the function's name (shown in errors and signatures).
        outer_graph: the graph that was being built when tracing started (None if eager); a
            symbolic tensor of an enclosing graph is first captured there, then here.
    """

    def __init__(self, name: str, outer_graph: Graph | None = None) -> None:
        super().__init__()
        self.name = name
        # Tensors of a function being traced are unhashable (TensorFlow's rule).
        self.building_function = True
        self.outer_graph = outer_graph
        self.inputs: list = []
        self.outputs: list = []
        self.structured_outputs = None
        self.structured_input_signature = None
        self.captures: list = []
        self._capture_map: dict = {}
        # The function's Python signature, for ``signature`` / pretty printing.
        self.python_signature = None

    def add_input(self, spec: TensorSpec, name: str | None = None) -> SymbolicTensor:
        """Adds a placeholder input (an argument of the function) and returns it."""
        pname = name or spec.name or "input"
        op = self.create_op(Placeholder, [], {"dtype": spec.dtype, "shape": spec.shape,
                                              "_user_specified_name": pname},
                            [(spec.dtype, spec.shape)], name=pname)
        t = op.outputs[0]
        self.inputs.append(t)
        return t

    def capture(self, tensor: Tensor, name: str | None = None) -> SymbolicTensor:
        """The placeholder standing for ``tensor`` (created once per outer tensor).

        Args:
            tensor: an EagerTensor (incl. a variable's resource handle) or a SymbolicTensor
                of an enclosing graph.
            name: the placeholder's name.

        Returns:
            The placeholder of this graph that the outer tensor is fed into.
        """
        key = id(tensor)
        hit = self._capture_map.get(key)
        if hit is not None:
            return hit
        if isinstance(tensor, SymbolicTensor) and tensor.graph is not self.outer_graph \
                and isinstance(self.outer_graph, FuncGraph):
            tensor_outer = self.outer_graph.capture(tensor)
        else:
            tensor_outer = tensor
        if isinstance(tensor, EagerTensor):
            shape = TensorShape._from_tuple(tuple(np.shape(tensor._value))) \
                if tensor.dtype is not dtypes.resource else TensorShape._from_tuple(())
        else:
            shape = tensor.shape
        op = self.create_op(Placeholder, [], {"dtype": tensor.dtype, "shape": shape},
                            [(tensor.dtype, shape)], name=name or "capture")
        ph = op.outputs[0]
        self._capture_map[key] = ph
        # Keeping the outer tensor in ``captures`` also keeps its id unique.
        self.captures.append((tensor_outer, ph))
        self.inputs.append(ph)
        return ph

    @property
    def external_captures(self) -> list:
        return [outer for outer, _ in self.captures]

    @property
    def internal_captures(self) -> list:
        return [ph for _, ph in self.captures]

    @property
    def signature(self) -> str:
        """A readable signature: ``name(x: TensorSpec(...)) -> TensorSpec(...)``."""
        return format_signature(self)

    def __repr__(self) -> str:
        return f"<tw.FuncGraph '{self.name}' with {len(self._ops)} ops>"


def _spec_of(x):
    if isinstance(x, SymbolicTensor):
        return TensorSpec(x.shape, x.dtype, None)
    if getattr(type(x), "_tw_expands", False):
        return x._type_spec
    return x


def format_signature(fg: FuncGraph) -> str:
    """``name(arg: spec, ...) -> output structure`` for a traced FuncGraph."""
    sig = fg.structured_input_signature
    parts = []
    if sig is not None:
        args, kwargs = sig
        names = fg.python_signature or [f"arg{i}" for i in range(len(args))]
        for i, a in enumerate(args):
            pname = names[i] if i < len(names) else f"arg{i}"
            parts.append(f"{pname}: {a!r}")
        for k, v in kwargs.items():
            parts.append(f"{k}: {v!r}")
    outs = nest.map_structure(_spec_of, fg.structured_outputs) \
        if fg.structured_outputs is not None else None
    return f"{fg.name}({', '.join(parts)}) -> {outs}"


def _output_tensor(fg: FuncGraph, x):
    """A function output as a symbolic tensor of ``fg`` (None and non-tensors pass through)."""
    if x is None:
        return None
    if isinstance(x, SymbolicTensor):
        return x if x.graph is fg else fg.capture(x)
    if isinstance(x, EagerTensor):
        return fg.capture(x)
    if isinstance(x, Tensor) or hasattr(x, "_as_tensor"):
        return convert_to_tensor(x)
    if isinstance(x, (int, float, bool, complex, str, bytes, np.ndarray, np.generic)):
        return convert_to_tensor(x)  # as TensorFlow: a returned 'a' is a string tensor
    return x


def trace_func_graph(fn: Callable, args: tuple = (), kwargs: dict | None = None,
                     name: str | None = None, outer_graph: Graph | None = None,
                     arg_names: list | None = None,
                     graph: FuncGraph | None = None) -> FuncGraph:
    """Traces ``fn(*args, **kwargs)`` into a new FuncGraph.

    Args:
        fn: the Python function.
        args: positional arguments; TensorSpec and tensor leaves become placeholders.
        kwargs: keyword arguments, treated like ``args``.
        name: the graph's name (default: fn's ``__name__``).
        outer_graph: the enclosing graph (default: the graph being built, if any).
        arg_names: names for the positional arguments' placeholders (else from specs).
        graph: an empty FuncGraph to trace into instead of a new one.

    Returns:
        The FuncGraph with ``inputs``, ``outputs``, ``structured_outputs`` and ``captures``.
    """
    kwargs = dict(kwargs or {})
    name = name or getattr(fn, "__name__", "function")
    fg = graph if graph is not None else FuncGraph(name, outer_graph if outer_graph is not None
                                                   else ctx.graph)
    names = list(arg_names or [])

    def placeholder_for(leaf, pname: str):
        if isinstance(leaf, TensorSpec):
            return fg.add_input(leaf, leaf.name or pname)
        if isinstance(leaf, (EagerTensor, SymbolicTensor)) and leaf.dtype is not dtypes.resource:
            return fg.add_input(TensorSpec.from_tensor(leaf), pname)
        if isinstance(leaf, np.ndarray):
            return fg.add_input(TensorSpec.from_tensor(leaf), pname)
        return leaf

    with graph_mode(fg):
        new_args = []
        for i, a in enumerate(args):
            pname = names[i] if i < len(names) else f"arg{i}"
            leaves = nest.flatten(a, expand_composites=True)
            conv = [placeholder_for(x, pname if j == 0 else f"{pname}_{j}")
                    for j, x in enumerate(leaves)]
            new_args.append(nest.pack_sequence_as(a, conv, expand_composites=True))
        new_kwargs = {}
        for k in sorted(kwargs):
            leaves = nest.flatten(kwargs[k], expand_composites=True)
            conv = [placeholder_for(x, k if j == 0 else f"{k}_{j}") for j, x in enumerate(leaves)]
            new_kwargs[k] = nest.pack_sequence_as(kwargs[k], conv, expand_composites=True)
        fg.structured_input_signature = (
            tuple(nest.map_structure(_input_spec, a) for a in new_args),
            {k: nest.map_structure(_input_spec, v) for k, v in new_kwargs.items()})
        result = fn(*new_args, **new_kwargs)
        structured = nest.map_structure(lambda x: _output_tensor(fg, x), result,
                                        expand_composites=True)
    fg.structured_outputs = structured
    fg.outputs = [t for t in nest.flatten(structured, expand_composites=True)
                  if isinstance(t, SymbolicTensor)]
    return fg


def _input_spec(x):
    if getattr(type(x), "_tw_expands", False):
        return x._type_spec  # a composite argument: its spec
    if isinstance(x, SymbolicTensor) and x.op.type == "Placeholder":
        return TensorSpec(x.shape, x.dtype, x.op.attrs.get("_user_specified_name"))
    return x
