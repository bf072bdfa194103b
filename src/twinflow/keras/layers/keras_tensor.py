"""Symbolic ``KerasTensor``s, the ``Node`` of a layer call, and Keras masks.

A functional model is a graph of Nodes between KerasTensors. Shapes of a layer's outputs come
from tracing the layer once into a scratch graph with placeholders (``symbolic_call``), so every
layer gets shape inference from the ops' ``infer`` rules.

Masks (``Embedding(mask_zero=True)``, ``Masking``) travel beside the tensors they belong to in
``keras/masks.py``'s side table (re-exported here).
"""
from __future__ import annotations

from collections.abc import Callable

from ...core import dtypes, nest
from ...core.context import graph_mode
from ...core.shapes import TensorShape
from ...framework.type_spec import CompositeTensor, TypeSpec
from ...graph.core_ops import Placeholder
from ...graph.graph import Graph
from ...graph.tensor import Tensor
from ...ops.dispatch import CompositeArgument
from ..masks import _MASKS, get_keras_mask, set_keras_mask  # noqa: F401  (re-exported)


class KerasTensor:
    """A symbolic value in a functional model: a shape, a dtype and the layer that makes it.

    Args:
        shape: the shape, including the batch dimension.
        dtype: the element dtype.
        layer: the layer whose output this is, or None for an Input.
        node: the call of ``layer`` that made it.
        index: which output of that call it is.
        name: its name; the layer's name when None.
        type_spec: the TypeSpec of a composite value (RaggedTensorSpec, SparseTensorSpec);
            None for a dense tensor.
    """

    def __init__(self, shape, dtype=dtypes.float32, layer=None, node=None, index: int = 0,
                 name: str | None = None, type_spec=None) -> None:
        self.shape = shape if isinstance(shape, TensorShape) else TensorShape(shape)
        self.dtype = dtypes.as_dtype(dtype)
        self.type_spec = type_spec
        self._layer = layer
        self._node = node
        self._index = index
        self.name = name or (layer.name if layer is not None else "keras_tensor")

    @property
    def ndim(self) -> int | None:
        return self.shape.rank

    @property
    def ragged(self) -> bool:
        """Whether it stands for a RaggedTensor."""
        return type(self.type_spec).__name__ == "RaggedTensorSpec"

    @property
    def sparse(self) -> bool:
        """Whether it stands for a SparseTensor."""
        return type(self.type_spec).__name__ == "SparseTensorSpec"

    def __repr__(self) -> str:
        kind = " ragged=True" if self.ragged else " sparse=True" if self.sparse else ""
        return (f"<KerasTensor: shape={self.shape} dtype={self.dtype.name}{kind} "
                f"(created by layer '{self._layer.name if self._layer else None}')>")

    def __len__(self) -> int:
        raise TypeError("KerasTensors have no len(): they stand for values not yet computed")

    def _as_tensor(self, dtype=None):
        # A twinflow op given a KerasTensor: its generic entry points (elementwise, reductions,
        # concat...) catch this and ``ops.dispatch`` records the op as a functional node.
        raise KerasTensorArgument(
            f"A KerasTensor ({self.name!r}, shape {self.shape}) stands for a value of a "
            "functional model not yet computed: it cannot be converted to a Tensor. Use "
            "keras.ops functions, operators, or a Lambda layer on it", self)

    __hash__ = object.__hash__  # == stays identity: models look KerasTensors up by id


def _operator(op: str, reflected: bool = False):
    def method(self, other=None):
        args = (self,) if other is None and op in _UNARY else \
            (other, self) if reflected else (self, other)
        return symbolic_op(op, args, {})
    method.__name__ = op
    return method


_UNARY = {"negative", "positive", "absolute", "logical_not"}
# Python's operators on KerasTensors, as Keras 3 declares them (each becomes the keras.ops
# operation of that name, a node of the functional graph).
for _dunder, _op in (("add", "add"), ("sub", "subtract"), ("mul", "multiply"),
                     ("truediv", "true_divide"), ("floordiv", "floor_divide"), ("mod", "mod"),
                     ("pow", "power"), ("matmul", "matmul"), ("and", "logical_and"),
                     ("or", "logical_or"), ("xor", "logical_xor")):
    setattr(KerasTensor, f"__{_dunder}__", _operator(_op))
    setattr(KerasTensor, f"__r{_dunder}__", _operator(_op, reflected=True))
for _dunder, _op in (("lt", "less"), ("le", "less_equal"), ("gt", "greater"),
                     ("ge", "greater_equal"), ("neg", "negative"), ("pos", "positive"),
                     ("abs", "absolute"), ("invert", "logical_not"), ("getitem", "get_item")):
    setattr(KerasTensor, f"__{_dunder}__", _operator(_op))
del _dunder, _op


class KerasTensorArgument(CompositeArgument):
    """A KerasTensor reached a twinflow op (``tw.nn.relu(keras_input)``).

    Args:
        message: what happened.
        value: the KerasTensor.
    """


# The function that records an operation on KerasTensors as a node (``keras.ops`` registers
# it: this module sits below the operations).
_SYMBOLIC: list = []


def register_symbolic_op(fn: Callable) -> None:
    """Declares how an operation on KerasTensors becomes a node of the functional graph.

    Args:
        fn: ``fn(op_name, args, kwargs)`` returning the output KerasTensor(s).
    """
    _SYMBOLIC[:] = [fn]


def symbolic_op(op: str, args: tuple, kwargs: dict):
    """The KerasTensor(s) of ``keras.ops.<op>(*args, **kwargs)`` on KerasTensors: a new
    operation node of the functional graph.

    Args:
        op: the ``keras.ops`` function's name (``'add'``).
        args: its positional arguments (KerasTensors and constants).
        kwargs: its keyword arguments.

    Returns:
        The output KerasTensor(s).
    """
    if not _SYMBOLIC:
        raise TypeError(f"Operation {op!r} on a KerasTensor needs twinflow.keras.ops imported")
    return _SYMBOLIC[0](op, args, kwargs)


def has_keras_tensor(args: tuple, kwargs: dict) -> bool:
    """Whether an argument (or an element of a list/tuple argument) is a KerasTensor.

    Args:
        args: positional arguments.
        kwargs: keyword arguments.

    Returns:
        True if one is.
    """
    for a in (*args, *kwargs.values()):
        if isinstance(a, KerasTensor):
            return True
        if type(a) in (list, tuple) and any(isinstance(b, KerasTensor) for b in a):
            return True
    return False


class Node:
    """One call of a layer on KerasTensors: which inputs, which keyword arguments, which outputs.
    """

    def __init__(self, layer, args: tuple, kwargs: dict, outputs) -> None:
        self.layer = layer
        self.args = args
        self.kwargs = kwargs
        self.outputs = outputs
        self.parents = [t for t in nest.flatten((args, kwargs)) if isinstance(t, KerasTensor)]


def _placeholder(g: Graph, spec: KerasTensor | TensorShape, dtype, name: str):
    shape = spec if isinstance(spec, TensorShape) else TensorShape(spec)
    op = g.create_op(Placeholder, [], {"dtype": dtype, "shape": shape}, [(dtype, shape)], name)
    return op.outputs[0]


def _composite_placeholder(g: Graph, spec: TypeSpec, name: str):
    """A composite value whose components are placeholders of ``spec``'s component specs."""
    comps = [_placeholder(g, c.shape, c.dtype, f"{name}_{i}")
             for i, c in enumerate(nest.flatten(spec._component_specs))]
    return spec._from_components(nest.pack_sequence_as(spec._component_specs, comps))


def symbolic_call(fn: Callable, args: tuple, kwargs: dict):
    """Runs ``fn`` on placeholders standing for the KerasTensors in ``args``/``kwargs``.

    Args:
        fn: the callable (usually a layer's ``__call__``).
        args: positional arguments, with KerasTensors.
        kwargs: keyword arguments, with KerasTensors.

    Returns:
        The outputs as a structure of ``(TensorShape, DType)`` pairs, and TypeSpecs for
        composite outputs (RaggedTensor, SparseTensor).
    """
    g = Graph()
    with graph_mode(g):
        def to_ph(x):
            if isinstance(x, KerasTensor):
                if x.type_spec is not None:
                    return _composite_placeholder(g, x.type_spec, "input")
                return _placeholder(g, x.shape, x.dtype, "input")
            return x
        a, k = nest.map_structure(to_ph, (args, kwargs))
        out = fn(*a, **k)

    def spec_of(t):
        if isinstance(t, CompositeTensor):
            return t._type_spec
        return (t.shape, t.dtype) if isinstance(t, Tensor) else t
    return nest.map_structure(spec_of, out)



def _map_pairs(structure, fn: Callable):
    """Maps ``fn`` over the ``(shape, dtype)`` pairs and TypeSpecs of ``structure`` (leaves)."""
    if isinstance(structure, TypeSpec):
        return fn(structure)
    if isinstance(structure, tuple) and len(structure) == 2 and \
            isinstance(structure[0], TensorShape):
        return fn(structure)
    if isinstance(structure, dict):
        return {k: _map_pairs(v, fn) for k, v in structure.items()}
    if isinstance(structure, (list, tuple)):
        return type(structure)(_map_pairs(v, fn) for v in structure)
    return structure


def _has_keras_tensor(inputs, args, kwargs) -> bool:
    if isinstance(inputs, KerasTensor):
        return True
    if isinstance(inputs, Tensor):
        return False
    return any(isinstance(t, KerasTensor) for t in nest.flatten((inputs, args, kwargs)))
