"""Functional models: the graph of layer calls between ``Input``s and outputs, and running it."""
from __future__ import annotations

from ...core import nest
from ...ops import array_ops
from ..layers.base import _call_accepts
from ..layers.input_layer import InputLayer
from ..layers.keras_tensor import KerasTensor


def keras_layer_order(flat_in: list, flat_out: list) -> list:
    """The layers of the graph between ``flat_in`` and ``flat_out`` in Keras 3's order.

    Keras orders a functional model's layers by depth (the longest path to an output, deepest
    first), ties broken by when a depth-first walk from the outputs first meets them; the
    ``.layers`` list, the config and the weight files all follow it.

    Args:
        flat_in: the model's input KerasTensors.
        flat_out: the model's output KerasTensors.

    Returns:
        The layers (InputLayers included), each once.
    """
    post: list = []          # node keys, inputs before the nodes that use them
    first_seen: dict = {}    # id(layer) -> index of the walk's first visit
    layer_of: dict = {}      # node key -> layer
    parents: dict = {}       # node key -> parent node keys
    done: set = set()

    def key(t: KerasTensor):
        return ("input", id(t)) if t._node is None else id(t._node)

    def walk(t: KerasTensor) -> None:
        k = key(t)
        if k in done:
            return
        first_seen.setdefault(id(t._layer), len(first_seen))
        layer_of[k] = t._layer
        parents[k] = [] if t._node is None else [key(p) for p in t._node.parents]
        if t._node is not None:
            for p in t._node.parents:
                walk(p)
        done.add(k)
        post.append(k)
    for t in flat_out:
        walk(t)
    node_depth: dict = {}
    layer_depth: dict = {}
    for k in reversed(post):
        lid = id(layer_of[k])
        depth = max(node_depth.setdefault(k, 0), layer_depth.get(lid, 0))
        layer_depth[lid] = node_depth[k] = depth
        for p in parents[k]:
            node_depth[p] = max(depth + 1, node_depth.get(p, 0))
    by_id = {id(x): x for x in layer_of.values()}
    for t in flat_in:
        if isinstance(t._layer, InputLayer) and id(t._layer) not in layer_depth:
            layer_depth[id(t._layer)] = 0
            first_seen[id(t._layer)] = -1
            by_id[id(t._layer)] = t._layer
    order = sorted(layer_depth, key=lambda lid: (-layer_depth[lid], first_seen[lid]))
    return [by_id[lid] for lid in order]


class FunctionalMixin:
    """Builds (``Model(inputs, outputs)``) and runs a functional model's graph of nodes."""

    def _init_functional(self, inputs, outputs) -> None:
        self._tw_inputs = inputs
        self._tw_outputs = outputs
        flat_in = nest.flatten(inputs)
        flat_out = nest.flatten(outputs)
        for t in flat_in + flat_out:
            if not isinstance(t, KerasTensor):
                raise TypeError(f"Model(inputs, outputs) needs KerasTensors (from "
                                f"tw.keras.Input and layers called on them), got {t!r}")
        nodes: list = []
        seen: set = set()

        def visit(t: KerasTensor) -> None:
            node = t._node
            if node is None or id(node) in seen:
                return
            for p in node.parents:
                visit(p)
            seen.add(id(node))
            nodes.append(node)
        for t in flat_out:
            visit(t)
        input_ids = {id(t) for t in flat_in}
        for node in nodes:
            for p in node.parents:
                if p._node is None and id(p) not in input_ids:
                    raise ValueError(f"Graph disconnected: cannot obtain value for tensor {p} "
                                     f"at layer {node.layer.name!r}. It is not among the "
                                     "model's inputs.")
        self._tw_nodes_order = nodes
        self._tw_layer_list = keras_layer_order(flat_in, flat_out)
        self.built = True
        self._tw_output_shape = nest.map_structure(
            lambda t: tuple(t.shape.as_list()), outputs)

    def _check_input(self, x, expected: KerasTensor):
        """``x`` checked against the ``Input`` it feeds: same rank (a trailing dimension of 1
        is added or dropped, as Keras does) and the same size in every fixed dimension."""
        shape = getattr(x, "shape", None)
        want = expected.shape
        if shape is None or shape.rank is None or want.rank is None:
            return x
        dims, ref = shape.as_list(), want.as_list()
        if len(dims) == len(ref) + 1 and dims[-1] == 1:
            x = array_ops.squeeze(x, axis=-1)
            dims = dims[:-1]
        elif len(dims) == len(ref) - 1 and ref[-1] == 1:
            x = array_ops.expand_dims(x, -1)
            dims = dims + [1]
        if len(dims) != len(ref) or any(a is not None and b is not None and a != b
                                        for a, b in zip(dims, ref)):
            raise ValueError(f"Invalid input shape for input {expected.name!r} of model "
                             f"{self.name!r}: expected shape {tuple(ref)}, but the input has "
                             f"incompatible shape {tuple(dims)}.")
        return x

    def _match_dict(self, inputs: dict, flat_in: list) -> list:
        """The values of a dict of inputs in the order of the model's inputs: by key for a
        model built on a dict of Inputs, else by each ``Input``'s name (Keras)."""
        if isinstance(self._tw_inputs, dict):
            keys = list(self._tw_inputs)
            order = nest.flatten({k: k for k in keys})
        else:
            order = [t.name for t in flat_in]
        missing = [k for k in order if k not in inputs]
        if missing:
            raise ValueError(f"Model {self.name!r}: the input dict has keys "
                             f"{sorted(inputs)}, but the model's inputs are named {order} "
                             f"(missing: {missing}).")
        return [inputs[k] for k in order]

    def _run_functional(self, inputs, training):
        flat_in = nest.flatten(self._tw_inputs)
        values = self._match_dict(inputs, flat_in) if isinstance(inputs, dict) \
            else nest.flatten(inputs)
        if len(values) != len(flat_in):
            raise ValueError(f"Model {self.name!r} expects {len(flat_in)} input(s), but it "
                             f"received {len(values)} input tensors.")
        env = {id(k): self._check_input(v, k) for k, v in zip(flat_in, values)}

        def lookup(x):
            return env[id(x)] if isinstance(x, KerasTensor) else x
        for node in self._tw_nodes_order:
            args, kwargs = nest.map_structure(lookup, (node.args, node.kwargs))
            kwargs = dict(kwargs)
            if "training" not in kwargs and _call_accepts(type(node.layer), "training"):
                kwargs["training"] = training
            out = node.layer(*args, **kwargs)
            for k, v in zip(nest.flatten(node.outputs), nest.flatten(out)):
                env[id(k)] = v
        return nest.map_structure(lookup, self._tw_outputs)
