"""Functional models: the graph of layer calls between ``Input``s and outputs, and running it."""
from __future__ import annotations

from ...core import nest
from ...ops import array_ops
from ..layers.base import _call_accepts
from ..layers.keras_tensor import KerasTensor


def keras_layer_order(flat_in: list, flat_out: list) -> list:
    """A functional model's layers in Keras' order (``model.layers``, and so the order of
    weights in ``.weights.h5`` and legacy ``.h5`` files): grouped by depth (distance from the
    outputs, deepest first), and within one depth in the order a depth-first walk from the
    outputs first meets them (Keras' ``map_graph``).

    Args:
        flat_in: the model's input KerasTensors.
        flat_out: its output KerasTensors.

    Returns:
        The layers, InputLayers included, each once.
    """
    input_ids = {id(t) for t in flat_in}

    def node_of(t: KerasTensor):  # an Input's tensor stands for its (input) node
        return t._node if t._node is not None else t

    def layer_of(node):
        return node.layer if not isinstance(node, KerasTensor) else node._layer

    def parents_of(node) -> list:
        return [] if isinstance(node, KerasTensor) else node.parents

    index: dict = {}     # id(layer) -> order of first meeting, depth first from the outputs
    finished: set = set()
    post: list = []      # nodes, each after the nodes it depends on
    layer_by_id: dict = {}
    for out in flat_out:
        stack = [(out, False)]  # a loop, not recursion: deep models (DenseNet201) are deep
        while stack:
            t, done = stack.pop()
            node = node_of(t)
            if id(node) in finished:
                continue
            if done:
                finished.add(id(node))
                post.append(node)
                continue
            layer = layer_of(node)
            layer_by_id.setdefault(id(layer), layer)
            index.setdefault(id(layer), len(index))
            stack.append((t, True))
            if id(t) not in input_ids:
                stack.extend((p, False) for p in reversed(parents_of(node)))
    node_depth: dict = {}
    layer_depth: dict = {}
    for node in reversed(post):
        lid = id(layer_of(node))
        depth = max(node_depth.setdefault(id(node), 0), layer_depth.get(lid, 0))
        layer_depth[lid] = node_depth[id(node)] = depth
        for p in parents_of(node):
            pid = id(node_of(p))
            node_depth[pid] = max(depth + 1, node_depth.get(pid, 0))
    for t in flat_in:
        lid = id(t._layer)
        if t._layer is not None and lid not in layer_depth:
            layer_by_id[lid] = t._layer
            layer_depth[lid], index[lid] = 0, -1
    return [layer_by_id[lid] for lid in sorted(layer_depth,
                                               key=lambda i: (-layer_depth[i], index[i]))]


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
