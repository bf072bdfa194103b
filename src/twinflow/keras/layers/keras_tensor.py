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
