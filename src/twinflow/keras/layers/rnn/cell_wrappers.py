"""``tw.nn.RNNCellDropoutWrapper``, ``RNNCellResidualWrapper`` and ``RNNCellDeviceWrapper``:
cells that wrap a cell (``cell(inputs, states) -> (output, new_states)``), as TensorFlow 2's
``tf.nn`` wrappers of Keras cells. They hold the cell as a sub-layer, so its weights are
theirs, and forward ``state_size``, ``output_size`` and ``get_initial_state``.

The dropout wrapper applies dropout whenever it is called (TensorFlow's wrapper ignores the
``training`` flag too), to the inputs, the new states (those ``dropout_state_filter_visitor``
selects) and the output, each with its keep probability.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ....core import nest
from ....core.devices import device as _device
from ....ops import math_ops, nn_ops
from .cells import _HoldsLayers


class _RNNCellWrapper(_HoldsLayers):
    _config_layer_keys = ("cell",)

    def __init__(self, cell, **kwargs) -> None:
        if not callable(cell) or not hasattr(cell, "state_size"):
            raise TypeError(f"The parameter cell is not an RNN cell (it needs `call` and "
                            f"`state_size`): {cell!r}")
        super().__init__(**kwargs)
        self.cell = cell

    @property
    def state_size(self) -> Any:
        return self.cell.state_size

    @property
    def output_size(self) -> Any:
        return getattr(self.cell, "output_size", self.cell.state_size)

    def get_initial_state(self, batch_size=None, **kwargs) -> list:
        """The wrapped cell's initial state.

        Args:
            batch_size: the batch size.
            **kwargs: passed on (``inputs``/``dtype`` for TensorFlow-style cells).

        Returns:
            The initial states.
        """
        return self.cell.get_initial_state(batch_size=batch_size, **kwargs)

    def build(self, input_shape) -> None:
        if not self.cell.built:
            self.cell.build(input_shape)
        super().build(input_shape)

    def _wrapped(self, inputs, states, **kwargs) -> tuple:
        return self.cell(inputs, states, **kwargs)


def _keep(name: str, value: float) -> float:
    value = float(value)
    if not 0.0 < value <= 1.0:
        raise ValueError(f"Parameter {name} must be between 0 and 1: {value}")
    return value


class RNNCellDropoutWrapper(_RNNCellWrapper):
    """Applies dropout to a cell's inputs, states and outputs.

    Args:
        cell: the wrapped cell.
        input_keep_prob: the probability of keeping each input unit.
        output_keep_prob: the probability of keeping each output unit.
        state_keep_prob: the probability of keeping each unit of the new states.
        variational_recurrent: must be False (per-sequence masks are not supported).
        input_size: unused without ``variational_recurrent``.
        dtype: unused without ``variational_recurrent``.
        seed: the dropout seed.
        dropout_state_filter_visitor: ``f(state) -> bool``: which states get dropout
            (default: all).
        **kwargs: Layer arguments.
    """

    def __init__(self, cell, input_keep_prob: float = 1.0, output_keep_prob: float = 1.0,
                 state_keep_prob: float = 1.0, variational_recurrent: bool = False,
                 input_size=None, dtype=None, seed=None,
                 dropout_state_filter_visitor: Callable | None = None, **kwargs) -> None:
        if variational_recurrent:
            raise NotImplementedError("RNNCellDropoutWrapper(variational_recurrent=True) is "
                                      "not supported")
        super().__init__(cell, **kwargs)
        self.input_keep_prob = _keep("input_keep_prob", input_keep_prob)
        self.output_keep_prob = _keep("output_keep_prob", output_keep_prob)
        self.state_keep_prob = _keep("state_keep_prob", state_keep_prob)
        self.seed = seed
        self._visitor = dropout_state_filter_visitor or (lambda s: True)

    def _drop(self, x, keep: float):
        return x if keep == 1.0 else nn_ops.dropout(x, rate=1.0 - keep, seed=self.seed)

    def call(self, inputs, states, **kwargs) -> tuple:
        inputs = nest.map_structure(lambda t: self._drop(t, self.input_keep_prob), inputs)
        output, new_states = self._wrapped(inputs, states, **kwargs)
        if self.state_keep_prob < 1.0:
            new_states = nest.map_structure(
                lambda s: self._drop(s, self.state_keep_prob) if self._visitor(s) else s,
                new_states)
        output = nest.map_structure(lambda t: self._drop(t, self.output_keep_prob), output)
        return output, new_states

    def get_config(self) -> dict:
        cfg = super().get_config()
        cfg.update(input_keep_prob=self.input_keep_prob,
                   output_keep_prob=self.output_keep_prob,
                   state_keep_prob=self.state_keep_prob, seed=self.seed)
        return cfg


class RNNCellResidualWrapper(_RNNCellWrapper):
    """Adds the cell's inputs to its outputs (``residual_fn(inputs, outputs)``).

    Args:
        cell: the wrapped cell (its output shaped like its input).
        residual_fn: ``f(inputs, outputs)``; default: their sum.
        **kwargs: Layer arguments.
    """

    def __init__(self, cell, residual_fn: Callable | None = None, **kwargs) -> None:
        super().__init__(cell, **kwargs)
        self.residual_fn = residual_fn

    def call(self, inputs, states, **kwargs) -> tuple:
        output, new_states = self._wrapped(inputs, states, **kwargs)
        if self.residual_fn is not None:
            return self.residual_fn(inputs, output), new_states
        nest.assert_same_structure(inputs, output)
        return nest.map_structure(math_ops.add, inputs, output), new_states


class RNNCellDeviceWrapper(_RNNCellWrapper):
    """Runs the cell under ``tw.device(device)``.

    Args:
        cell: the wrapped cell.
        device: the device string.
        **kwargs: Layer arguments.
    """

    def __init__(self, cell, device: str, **kwargs) -> None:
        super().__init__(cell, **kwargs)
        self.device = device

    def call(self, inputs, states, **kwargs) -> tuple:
        with _device(self.device):
            return self._wrapped(inputs, states, **kwargs)

    def get_initial_state(self, batch_size=None, **kwargs) -> list:
        """The wrapped cell's initial state, made on ``device``.

        Args:
            batch_size: the batch size.
            **kwargs: passed on.

        Returns:
            The initial states.
        """
        with _device(self.device):
            return self.cell.get_initial_state(batch_size=batch_size, **kwargs)

    def get_config(self) -> dict:
        cfg = super().get_config()
        cfg["device"] = self.device
        return cfg
