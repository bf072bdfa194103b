"""Wrappers: ``Bidirectional`` (an RNN run forwards and backwards) and ``TimeDistributed`` (a
layer applied to every time step)."""
from __future__ import annotations

from typing import Any

from ....core import nest
from ....graph.tensor import Tensor
from ....ops import array_ops
from ... import saving as _saving
from ..base import Layer, _call_accepts
from .cells import _HoldsLayers
from .layer_wrappers import Wrapper


def _strip(name: str, prefix: str) -> str:
    return name[len(prefix):] if name.startswith(prefix) else name


class Bidirectional(_HoldsLayers):
    """Runs a copy of an RNN layer forwards and another backwards, and merges their outputs.

    Args:
        layer: the RNN layer (copied from its config; its own weights are not used).
        merge_mode: ``'concat'``, ``'sum'``, ``'mul'``, ``'ave'`` or None (a list of both).
        weights: unsupported (must be None).
        backward_layer: the backward RNN layer (default: ``layer`` with ``go_backwards``).
        **kwargs: Layer arguments.
    """

    _config_layer_keys = ("layer", "backward_layer")

    def __init__(self, layer, merge_mode: str | None = "concat", weights=None,
                 backward_layer=None, **kwargs) -> None:
        if not isinstance(layer, Layer) or not hasattr(layer, "go_backwards"):
            raise ValueError(f"Please initialize `Bidirectional` layer with a RNN layer "
                             f"instance. Received: {layer}")
        if merge_mode not in ("sum", "mul", "ave", "concat", None):
            raise ValueError(f"Invalid merge mode. Received: {merge_mode}. Merge mode should "
                             "be one of {'sum', 'mul', 'ave', 'concat', None}")
        if weights is not None:
            raise NotImplementedError("Bidirectional(weights=...) is not supported; call "
                                      "set_weights after building")
        super().__init__(**kwargs)
        cfg = _saving.serialize_layer(layer)
        cfg["config"]["name"] = "forward_" + _strip(layer.name, "forward_")
        self.forward_layer = _saving.deserialize_layer(cfg)
        if backward_layer is None:
            cfg = _saving.serialize_layer(layer)
            cfg["config"]["go_backwards"] = not layer.go_backwards
            cfg["config"]["name"] = "backward_" + _strip(layer.name, "backward_")
            self.backward_layer = _saving.deserialize_layer(cfg)
            self._tw_own_backward = False
        else:
            self.backward_layer = backward_layer
            self._tw_own_backward = True
        if self.forward_layer.return_sequences != self.backward_layer.return_sequences or \
                self.forward_layer.return_state != self.backward_layer.return_state:
            raise ValueError("Forward layer and backward layer should have the same "
                             "`return_sequences` and `return_state`.")
        self.merge_mode = merge_mode
        self.return_sequences = self.forward_layer.return_sequences
        self.return_state = self.forward_layer.return_state
        self.supports_masking = True

    def call(self, inputs, initial_state=None, mask=None, training=None) -> Any:
        kw: dict = {}
        if mask is not None:
            kw["mask"] = mask
        if training is not None:
            kw["training"] = training
        f_kw, b_kw = dict(kw), dict(kw)
        if initial_state is not None:
            states = nest.flatten(initial_state)
            half = len(states) // 2
            f_kw["initial_state"] = states[:half]
            b_kw["initial_state"] = states[half:]
        y = self.forward_layer(inputs, **f_kw)
        y_rev = self.backward_layer(inputs, **b_kw)
        f_states = b_states = []
        if self.return_state:
            y, f_states = y[0], list(y[1:])
            y_rev, b_states = y_rev[0], list(y_rev[1:])
        if self.return_sequences:
            y_rev = array_ops.reverse(y_rev, [1])
        if self.merge_mode == "concat":
            out: Any = array_ops.concat([y, y_rev], axis=-1)
        elif self.merge_mode == "sum":
            out = y + y_rev
        elif self.merge_mode == "ave":
            out = (y + y_rev) * 0.5
        elif self.merge_mode == "mul":
            out = y * y_rev
        else:
            out = [y, y_rev]
        if self.return_state:
            return (out if isinstance(out, list) else [out]) + f_states + b_states
        return out

    def compute_mask(self, inputs, mask=None) -> Any:
        out_mask = mask if self.return_sequences else None
        if self.merge_mode is None:
            out_mask = [out_mask, out_mask]
        if self.return_state:
            n = len(self.forward_layer.compute_mask(inputs, mask)) - 1 \
                if self.forward_layer.return_state else 0
            masks = out_mask if isinstance(out_mask, list) else [out_mask]
            return masks + [None] * (2 * n)
        return out_mask

    def reset_states(self) -> None:
        """Resets both directions' kept states (stateful RNNs)."""
        self.forward_layer.reset_states()
        self.backward_layer.reset_states()

    def get_config(self) -> dict:
        cfg = Layer.get_config(self)   # (its layers are saved as Keras does: see below)
        cfg["layer"] = _saving.serialize_layer(self.forward_layer)
        cfg["merge_mode"] = self.merge_mode
        if self._tw_own_backward:
            cfg["backward_layer"] = _saving.serialize_layer(self.backward_layer)
        return cfg


class TimeDistributed(Wrapper):
    """Applies ``layer`` to every time step of ``(batch, time, ...)`` inputs (one set of
    weights for all steps).

    Args:
        layer: the layer.
        **kwargs: Layer arguments.
    """

    build = Layer.build   # the wrapped layer builds on its first call, with one step's shape

    def __init__(self, layer, **kwargs) -> None:
        super().__init__(layer, **kwargs)
        self.supports_masking = True

    def call(self, inputs, training=None, mask=None) -> Tensor:
        dims = inputs.shape.as_list()
        if len(dims) < 3:
            raise ValueError(f"`TimeDistributed` Layer should be passed an `input_shape` with "
                             f"at least 3 dimensions, received: {inputs.shape}")
        shape = array_ops.shape(inputs)
        # Static shapes where known, so the inner layer can build (Dense needs its last dim).
        inner = dims[2:]
        flat = array_ops.reshape(inputs, [-1] + inner) if None not in inner else \
            array_ops.reshape(inputs, array_ops.concat([[-1], shape[2:]], axis=0))
        kw = {"training": training} if training is not None and \
            _call_accepts(type(self.layer), "training") else {}
        out = self.layer(flat, **kw)
        out_dims = out.shape.as_list()[1:]
        if dims[1] is not None and None not in out_dims:
            return array_ops.reshape(out, [-1, dims[1]] + out_dims)
        return array_ops.reshape(out, array_ops.concat([shape[:2], array_ops.shape(out)[1:]],
                                                       axis=0))
