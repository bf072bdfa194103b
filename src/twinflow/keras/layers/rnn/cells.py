"""Recurrent cells: SimpleRNNCell, LSTMCell, GRUCell and StackedRNNCells.

A cell maps one time step: ``cell(x_t, states) -> (output, new_states)`` with ``states`` a list
of ``(batch, size)`` tensors (``state_size`` gives the sizes). Weights, their names, layouts
and gate orders are Keras 3's (``kernel``, ``recurrent_kernel``, ``bias``; LSTM gates
i, f, c, o; GRU gates z, r, h with a ``(2, 3*units)`` bias when ``reset_after``), so weights
interchange with Keras files.
"""
from __future__ import annotations

import inspect

import numpy as np

from ....core import nest
from ....core.props import readonly
from ....graph.tensor import Tensor
from ....ops import array_ops, linalg_ops, nn_ops
from ... import activations as _activations
from ... import initializers as _initializers
from ... import regularizers as _regularizers
from ... import saving as _saving
from ...declare import with_args
from ..base import Layer


def _units(units) -> int:
    if isinstance(units, bool) or not isinstance(units, (int, np.integer)) or units <= 0:
        raise ValueError(f"Received an invalid value for argument `units`, expected a positive "
                         f"integer, got {units}.")
    return int(units)


def _rate(name: str, value) -> float:
    if not 0 <= value <= 1:
        raise ValueError(f"Invalid value received for argument `{name}`. Expected a float "
                         f"value between 0 and 1. Received: {name}={value}")
    return float(min(1.0, max(0.0, value)))


class _HoldsLayers(Layer):
    """A layer whose config holds other layers (an RNN's cell, a wrapper's layer, a stack's
    cells): ``get_config`` saves the attributes named in ``_config_layer_keys`` and
    ``from_config`` rebuilds them (a list under such a key is a list of layers; None stays
    None)."""

    _config_layer_keys: tuple[str, ...] = ()

    def get_config(self) -> dict:
        cfg = super().get_config()
        for key in self._config_layer_keys:
            value = getattr(self, key)
            cfg[key] = [_saving.serialize_layer(v) for v in value] \
                if isinstance(value, (list, tuple)) else _saving.serialize_layer(value)
        return cfg

    @classmethod
    def from_config(cls, config: dict) -> Layer:
        config = dict(config)
        for key in cls._config_layer_keys:
            value = config.get(key)
            if isinstance(value, list):
                config[key] = [_saving.deserialize_layer(v) for v in value]
            elif value is not None:
                config[key] = _saving.deserialize_layer(value)
        return cls(**config)


_CELL_ARGS = {
    "units": "the state size.",
    "activation": "the activation (tanh).",
    "use_bias": "whether to add a bias.",
    "kernel_initializer": "initializer of the input kernel.",
    "recurrent_initializer": "initializer of the recurrent kernel (orthogonal).",
    "bias_initializer": "initializer of the bias.",
    "kernel_regularizer": "a penalty on the input kernel.",
    "recurrent_regularizer": "a penalty on the recurrent kernel.",
    "bias_regularizer": "a penalty on the bias.",
    "kernel_constraint": "stored on the input kernel.",
    "recurrent_constraint": "stored on the recurrent kernel.",
    "bias_constraint": "stored on the bias.",
    "dropout": "the input dropout rate (while training).",
    "recurrent_dropout": "the state dropout rate (while training).",
    "seed": "the dropout seed.",
    "**kwargs": "Layer arguments.",
}


@with_args(_CELL_ARGS)
class _Cell(Layer):
    """Shared arguments of the built-in cells: initializers, regularizers, constraints,
    dropout on the inputs and on the recurrent state (one mask per sequence)."""

    _gates = 1

    def __init__(self, units: int, activation="tanh", use_bias: bool = True,
                 kernel_initializer="glorot_uniform", recurrent_initializer="orthogonal",
                 bias_initializer="zeros", kernel_regularizer=None, recurrent_regularizer=None,
                 bias_regularizer=None, kernel_constraint=None, recurrent_constraint=None,
                 bias_constraint=None, dropout: float = 0.0, recurrent_dropout: float = 0.0,
                 seed=None, **kwargs) -> None:
        super().__init__(**kwargs)
        self.units = _units(units)
        self.activation = _activations.get(activation)
        self.use_bias = bool(use_bias)
        self._set_weight_args("kernel", kernel_initializer, kernel_regularizer, kernel_constraint)
        self._set_weight_args("recurrent", recurrent_initializer, recurrent_regularizer,
                              recurrent_constraint)
        self._set_weight_args("bias", bias_initializer, bias_regularizer, bias_constraint)
        self.dropout = _rate("dropout", dropout)
        self.recurrent_dropout = _rate("recurrent_dropout", recurrent_dropout)
        self.seed = seed
        self._tw_masks: dict = {}

    state_size = readonly("units", "The state's size (``units``).")
    output_size = readonly("units", "The output's size (``units``).")

    def _kernels(self, input_dim: int, bias_shape: tuple, bias_init=None) -> None:
        n = self._gates * self.units
        self.kernel = self._add_weight_for("kernel", "kernel", (input_dim, n))
        self.recurrent_kernel = self._add_weight_for("recurrent", "recurrent_kernel",
                                                     (self.units, n))
        self.bias = self._add_weight_for("bias", "bias", bias_shape, bias_init) \
            if self.use_bias else None

    def get_initial_state(self, batch_size=None) -> list:
        """Zero states.

        Args:
            batch_size: the batch size (an int or a scalar tensor).

        Returns:
            A list of ``(batch_size, size)`` zero tensors.
        """
        sizes = self.state_size if isinstance(self.state_size, (list, tuple)) \
            else [self.state_size]
        return [array_ops.zeros(array_ops.stack([batch_size, s]), dtype=self.compute_dtype)
                for s in sizes]

    def reset_dropout_mask(self) -> None:
        """Forgets the dropout masks (the RNN layer calls it after each sequence)."""
        self._tw_masks = {}

    def _dropped_pair(self, inputs, h_prev, training) -> tuple:
        """The inputs and the previous state, each with its dropout mask (while training)."""
        return (self._dropped("x", inputs, self.dropout, training),
                self._dropped("h", h_prev, self.recurrent_dropout, training))

    def _dropped(self, kind: str, x, rate: float, training):
        if not training or rate == 0:
            return x
        mask = self._tw_masks.get(kind)
        if mask is None:
            mask = nn_ops.dropout(array_ops.ones_like(x), rate=rate, seed=self.seed)
            self._tw_masks[kind] = mask
        return x * mask

    def get_config(self) -> dict:
        cfg = super().get_config()
        cfg.update(units=self.units, activation=_activations.serialize(self.activation),
                   use_bias=self.use_bias,
                   kernel_initializer=_initializers.serialize(self.kernel_initializer),
                   recurrent_initializer=_initializers.serialize(self.recurrent_initializer),
                   bias_initializer=_initializers.serialize(self.bias_initializer),
                   kernel_regularizer=_regularizers.serialize(self.kernel_regularizer),
                   recurrent_regularizer=_regularizers.serialize(self.recurrent_regularizer),
                   bias_regularizer=_regularizers.serialize(self.bias_regularizer),
                   dropout=self.dropout, recurrent_dropout=self.recurrent_dropout,
                   seed=self.seed)
        return cfg


def _state(states):
    return states[0] if isinstance(states, (list, tuple)) else states


class _GatedCell(_Cell):
    """A cell with gates (LSTM, GRU): ``recurrent_activation`` is theirs."""

    def __init__(self, units: int, activation="tanh", recurrent_activation="sigmoid",
                 use_bias: bool = True, **kwargs) -> None:
        super().__init__(units, activation=activation, use_bias=use_bias, **kwargs)
        self.recurrent_activation = _activations.get(recurrent_activation)

    def get_config(self) -> dict:
        return {**super().get_config(),
                "recurrent_activation": _activations.serialize(self.recurrent_activation)}


@with_args(_CELL_ARGS)
class SimpleRNNCell(_Cell):
    """``h = activation(x @ kernel + h_prev @ recurrent_kernel + bias)``."""

    def build(self, input_shape) -> None:
        self._kernels(input_shape.as_list()[-1], (self.units,))
        self.built = True

    def call(self, inputs, states, training=None) -> tuple:
        h_prev = _state(states)
        x, h_in = self._dropped_pair(inputs, h_prev, training)
        z = linalg_ops.matmul(x, self.kernel)
        if self.use_bias:
            z = z + self.bias
        h = self.activation(z + linalg_ops.matmul(h_in, self.recurrent_kernel))
        return h, [h]


@with_args(_CELL_ARGS, activation="the cell activation (tanh).",
           recurrent_activation="the gate activation (sigmoid).",
           unit_forget_bias="start the forget gate's bias at 1.")
class LSTMCell(_GatedCell):
    """Long short-term memory: gates ``i, f, o = recurrent_activation(...)``,
    ``c = f * c_prev + i * activation(...)``, ``h = o * activation(c)``."""

    _gates = 4

    def __init__(self, units: int, activation="tanh", recurrent_activation="sigmoid",
                 use_bias: bool = True, kernel_initializer="glorot_uniform",
                 recurrent_initializer="orthogonal", bias_initializer="zeros",
                 unit_forget_bias: bool = True, **kwargs) -> None:
        super().__init__(units, activation=activation, recurrent_activation=recurrent_activation,
                         use_bias=use_bias, kernel_initializer=kernel_initializer,
                         recurrent_initializer=recurrent_initializer,
                         bias_initializer=bias_initializer, **kwargs)
        self.unit_forget_bias = bool(unit_forget_bias)

    @property
    def state_size(self) -> list:
        return [self.units, self.units]

    def build(self, input_shape) -> None:
        self._kernels(input_shape.as_list()[-1], (4 * self.units,), forget_bias_init(self))
        self.built = True

    def call(self, inputs, states, training=None) -> tuple:
        h_prev, c_prev = states
        x, h_in = self._dropped_pair(inputs, h_prev, training)
        z = linalg_ops.matmul(x, self.kernel) + linalg_ops.matmul(h_in, self.recurrent_kernel)
        return lstm_update(self, z, c_prev)

    def get_config(self) -> dict:
        return {**super().get_config(), "unit_forget_bias": self.unit_forget_bias}


def forget_bias_init(cell):
    """With ``unit_forget_bias``: an initializer of an LSTM bias whose forget part is 1
    (the rest from ``bias_initializer``); None otherwise."""
    if not cell.unit_forget_bias:
        return None
    base, u = cell.bias_initializer, cell.units

    def init(shape, dtype=None):
        parts = [np.asarray(base((u,), dtype=dtype)), np.ones(u),
                 np.asarray(base((2 * u,), dtype=dtype))]
        return np.concatenate(parts).astype(np.dtype(getattr(dtype, "np", dtype)))
    return init


def lstm_update(cell, z, c_prev) -> tuple:
    """The LSTM gates from the pre-activations ``z`` (input, forget, cell, output, with the
    bias added when the cell has one): ``(h, [h, c])``."""
    if cell.use_bias:
        z = z + cell.bias
    zi, zf, zc, zo = array_ops.split(z, 4, axis=-1)
    i = cell.recurrent_activation(zi)
    f = cell.recurrent_activation(zf)
    c = f * c_prev + i * cell.activation(zc)
    h = cell.recurrent_activation(zo) * cell.activation(c)
    return h, [h, c]


@with_args(_CELL_ARGS, activation="the candidate's activation (tanh).",
           recurrent_activation="the gates' activation (sigmoid).",
           use_bias="whether to add biases.",
           reset_after="apply the reset gate after the recurrent matmul.")
class GRUCell(_GatedCell):
    """Gated recurrent unit: update gate ``z``, reset gate ``r``, candidate ``hh``;
    ``h = z * h_prev + (1 - z) * hh``. ``reset_after`` (Keras 3's and cuDNN's default) applies
    the reset gate after the recurrent matmul and keeps separate input and recurrent biases."""

    _gates = 3

    def __init__(self, units: int, activation="tanh", recurrent_activation="sigmoid",
                 use_bias: bool = True, reset_after: bool = True, **kwargs) -> None:
        super().__init__(units, activation=activation, recurrent_activation=recurrent_activation,
                         use_bias=use_bias, **kwargs)
        self.reset_after = bool(reset_after)

    def build(self, input_shape) -> None:
        shape = (2, 3 * self.units) if self.reset_after else (3 * self.units,)
        self._kernels(input_shape.as_list()[-1], shape)
        self.built = True

    def call(self, inputs, states, training=None) -> tuple:
        h_prev = _state(states)
        u = self.units
        x, h_in = self._dropped_pair(inputs, h_prev, training)
        if self.use_bias:
            input_bias, rec_bias = (self.bias[0], self.bias[1]) if self.reset_after \
                else (self.bias, None)
        else:
            input_bias = rec_bias = None
        mx = linalg_ops.matmul(x, self.kernel)
        if input_bias is not None:
            mx = mx + input_bias
        xz, xr, xh = array_ops.split(mx, 3, axis=-1)
        if self.reset_after:
            mh = linalg_ops.matmul(h_in, self.recurrent_kernel)
            if rec_bias is not None:
                mh = mh + rec_bias
            hz, hr, hh = array_ops.split(mh, 3, axis=-1)
            z = self.recurrent_activation(xz + hz)
            r = self.recurrent_activation(xr + hr)
            cand = self.activation(xh + r * hh)
        else:
            rk = self.recurrent_kernel
            hz = linalg_ops.matmul(h_in, rk[:, :u])
            hr = linalg_ops.matmul(h_in, rk[:, u:2 * u])
            z = self.recurrent_activation(xz + hz)
            r = self.recurrent_activation(xr + hr)
            cand = self.activation(xh + linalg_ops.matmul(r * h_in, rk[:, 2 * u:]))
        h = z * h_prev + (1.0 - z) * cand
        return h, [h]

    def get_config(self) -> dict:
        return {**super().get_config(), "reset_after": self.reset_after}


class StackedRNNCells(_HoldsLayers):
    """Several cells run as one: each step feeds the previous cell's output to the next.

    Args:
        cells: the cells, bottom first.
        **kwargs: Layer arguments.
    """

    _config_layer_keys = ("cells",)

    def __init__(self, cells: list, **kwargs) -> None:
        super().__init__(**kwargs)
        for cell in cells:
            if "call" not in dir(cell) or not hasattr(cell, "state_size"):
                raise ValueError(f"All cells must have a `call` method and a `state_size` "
                                 f"attribute. Received cell without: {cell}")
        self.cells = list(cells)

    @property
    def state_size(self) -> list:
        return [c.state_size for c in self.cells]

    @property
    def output_size(self) -> int:
        last = self.cells[-1]
        size = getattr(last, "output_size", None)
        if size is not None:
            return size
        s = last.state_size
        return s[0] if isinstance(s, (list, tuple)) else s

    def get_initial_state(self, batch_size=None) -> list:
        """Each cell's zero states.

        Args:
            batch_size: the batch size.

        Returns:
            A list (one entry per cell) of state lists.
        """
        return [_initial_state(c, batch_size) for c in self.cells]

    def build(self, input_shape) -> None:
        shape = input_shape
        for cell in self.cells:
            if isinstance(cell, Layer) and not cell.built:
                cell._maybe_build(_placeholder_like(shape))
            out = getattr(cell, "output_size", None)
            if out is None:
                s = cell.state_size
                out = s[0] if isinstance(s, (list, tuple)) else s
            shape = shape[:-1].concatenate([out])
        self.built = True

    def call(self, inputs, states, training=None) -> tuple:
        x = inputs
        new_states = []
        for cell, s in zip(self.cells, states):
            s = list(s) if isinstance(s, (list, tuple)) else [s]
            x, ns = _call_cell(cell, x, s, training)
            new_states.append(ns)
        return x, new_states

    def reset_dropout_mask(self) -> None:
        """Forgets the cells' dropout masks."""
        for c in self.cells:
            if hasattr(c, "reset_dropout_mask"):
                c.reset_dropout_mask()


class _ShapeOnly:
    """Stands for an input of a known shape when a cell is built outside a call."""

    def __init__(self, shape) -> None:
        self.shape = shape


def _placeholder_like(shape):
    return _ShapeOnly(shape)


def _initial_state(cell, batch_size) -> list:
    fn = getattr(cell, "get_initial_state", None)
    if fn is not None:
        state = fn(batch_size=batch_size)
        return list(state) if isinstance(state, (list, tuple)) else [state]
    sizes = cell.state_size if isinstance(cell.state_size, (list, tuple)) else [cell.state_size]
    dtype = getattr(cell, "compute_dtype", "float32")
    return [array_ops.zeros(array_ops.stack([batch_size, s]), dtype=dtype) for s in sizes]


def _call_cell(cell, x, states: list, training) -> tuple:
    if isinstance(cell, Layer) and "training" in _call_params(cell):
        out, new = cell(x, states, training=training)
    else:
        out, new = cell(x, states)
    new = list(new) if isinstance(new, (list, tuple)) else [new]
    return out, new


def _call_params(cell) -> tuple:
    return tuple(inspect.signature(type(cell).call).parameters)


def flat_states(states) -> list:
    """The leaves of a (possibly nested) state structure.

    Args:
        states: the states.

    Returns:
        A flat list of tensors.
    """
    return [s for s in nest.flatten(states) if isinstance(s, Tensor)]
