"""The ``RNN`` layer (any cell over the time axis) and SimpleRNN, LSTM, GRU.

The time loop is plain Python over the steps when the sequence length is known (eagerly, and
in traced graphs where it usually is: the graph then holds the unrolled steps), and a ``scan``
(a While loop in the graph) when it is not. Masked steps (from ``Embedding(mask_zero=True)``,
``Masking`` or ``mask=``) keep the previous state and repeat the previous output, as in Keras.
"""
from __future__ import annotations

from typing import Any

from ....control.map_fn import scan
from ....core import dtypes, nest
from ....core.context import eager_mode
from ....graph.tensor import Tensor
from ....ops import array_ops, math_ops
from ....ops.variables import Variable
from ...declare import with_args
from ..base import Layer
from .cells import (
    GRUCell,
    LSTMCell,
    SimpleRNNCell,
    StackedRNNCells,
    _call_cell,
    _HoldsLayers,
    _initial_state,
    _placeholder_like,
)


def _blend(keep, new, old):
    """``new`` where ``keep`` (a (batch, 1) float mask) is 1, else ``old``."""
    return new * keep + old * (1.0 - keep)


# RNN's options (bools), in its constructor's order.
_RNN_FLAGS = ("return_sequences", "return_state", "go_backwards", "stateful", "unroll",
              "zero_output_for_mask")


class RNN(_HoldsLayers):
    """Runs a cell over the time axis of ``(batch, time, features)`` inputs.

    Args:
        cell: a cell (``state_size`` and ``call(x, states) -> (output, new_states)``), or a
            list of cells (stacked).
        return_sequences: return every step's output ``(batch, time, units)``, not the last.
        return_state: also return the final states (``[output, *states]``).
        go_backwards: process the sequence in reverse (and return the reversed sequence).
        stateful: keep the final states of a batch as the initial states of the next (needs
            a fixed batch size); ``reset_states()`` zeroes them.
        unroll: accepted (twinflow unrolls whenever the length is known).
        zero_output_for_mask: output zeros (not the previous output) at masked steps.
        **kwargs: Layer arguments.
    """

    _config_layer_keys = ("cell",)

    def __init__(self, cell, return_sequences: bool = False, return_state: bool = False,
                 go_backwards: bool = False, stateful: bool = False, unroll: bool = False,
                 zero_output_for_mask: bool = False, **kwargs) -> None:
        if isinstance(cell, (list, tuple)):
            cell = StackedRNNCells(list(cell), dtype=kwargs.get("dtype"))
        if not hasattr(cell, "call") or not hasattr(cell, "state_size"):
            raise ValueError(f"Argument `cell` should have a `call` method and a `state_size` "
                             f"attribute. Received: cell={cell}")
        super().__init__(**kwargs)
        self.cell = cell
        flags = (return_sequences, return_state, go_backwards, stateful, unroll,
                 zero_output_for_mask)
        for name, value in zip(_RNN_FLAGS, flags):
            setattr(self, name, bool(value))
        self.supports_masking = True
        self._tw_states = None

    @property
    def state_size(self) -> Any:
        return self.cell.state_size

    @property
    def states(self) -> list | None:
        """The kept states of a stateful RNN (None otherwise)."""
        return self._tw_states

    def build(self, input_shape) -> None:
        shape = input_shape
        if shape.rank is not None and shape.rank < 3:
            raise ValueError(f"{type(self).__name__} expects inputs of shape (batch, time, "
                             f"features); got {shape}")
        step = shape[:1].concatenate(shape[2:])
        if isinstance(self.cell, Layer) and not self.cell.built:
            self.cell._maybe_build(_placeholder_like(step))
        if self.stateful:
            batch = shape.as_list()[0]
            if batch is None:
                raise ValueError("When using `stateful=True` in a RNN, the batch size must be "
                                 f"static. Found dynamic batch size: sequence.shape={shape}")
            with eager_mode():
                self._tw_states = [Variable(s, trainable=False, name=f"{self.name}/rnn_state")
                                   for s in nest.flatten(_initial_state(self.cell, batch))]
        self.built = True

    def reset_states(self, states=None) -> None:
        """Zeroes (or sets) the kept states of a stateful RNN.

        Args:
            states: new values (default zeros).
        """
        if not self.stateful:
            raise AttributeError("Layer must be stateful to reset its states.")
        values = [None] * len(self._tw_states) if states is None else nest.flatten(states)
        for v, s in zip(self._tw_states, values):
            v.assign(array_ops.zeros_like(v.read_value()) if s is None else s)

    reset_state = reset_states

    def get_initial_state(self, batch_size) -> list:
        """The cell's zero states for ``batch_size``.

        Args:
            batch_size: the batch size.

        Returns:
            The list of states.
        """
        return _initial_state(self.cell, batch_size)

    def call(self, inputs, initial_state=None, mask=None, training=None) -> Any:
        x = inputs
        batch = array_ops.shape(x)[0]
        template = _initial_state(self.cell, batch)
        if initial_state is None:
            if self.stateful:
                initial_state = nest.pack_sequence_as(
                    template, [v.read_value() for v in self._tw_states])
            else:
                initial_state = template
        else:
            flat = nest.flatten(initial_state)
            if len(flat) != len(nest.flatten(template)):
                raise ValueError(f"{self.name}: the RNN has {len(nest.flatten(template))} "
                                 f"state tensor(s), but initial_state has {len(flat)}.")
            initial_state = nest.pack_sequence_as(
                template, [math_ops.cast(s, x.dtype) if isinstance(s, Tensor) and
                           s.dtype is not x.dtype else s for s in flat])
        if self.go_backwards:
            x = array_ops.reverse(x, [1])
            if mask is not None:
                mask = array_ops.reverse(mask, [1])
        last, outputs, states = self._loop(x, initial_state, mask, training)
        if hasattr(self.cell, "reset_dropout_mask"):
            self.cell.reset_dropout_mask()
        if self.stateful:
            for v, s in zip(self._tw_states, nest.flatten(states)):
                v.assign(s)
        out = outputs if self.return_sequences else last
        if self.return_state:
            return [out] + list(states)
        return out

    def _step(self, xt, states, training):
        if isinstance(self.cell, StackedRNNCells):
            return self.cell(xt, states, training=training) if training is not None \
                else self.cell(xt, states)
        return _call_cell(self.cell, xt, list(states), training)

    def _loop(self, x, states, mask, training):
        steps = x.shape.as_list()[1]
        keep_dtype = x.dtype if x.dtype.is_floating else dtypes.float32
        if steps is not None:
            xs = array_ops.unstack(x, num=steps, axis=1)
            ms = array_ops.unstack(mask, num=steps, axis=1) if mask is not None else None
            outputs, prev = [], None
            for t, xt in enumerate(xs):
                out, new = self._step(xt, states, training)
                if ms is not None:
                    keep = array_ops.expand_dims(math_ops.cast(ms[t], keep_dtype), -1)
                    new = nest.map_structure(lambda n, o, k=keep: _blend(k, n, o), new,
                                             _like(new, states))
                    if prev is None:
                        prev = array_ops.zeros_like(out)
                    base = array_ops.zeros_like(out) if self.zero_output_for_mask else prev
                    out = _blend(keep, out, base)
                prev = out
                outputs.append(out)
                states = new
            return outputs[-1], array_ops.stack(outputs, axis=1), states
        return self._scan(x, states, mask, training, keep_dtype)

    def _scan(self, x, states, mask, training, keep_dtype):
        xt = array_ops.transpose(x, [1, 0] + list(range(2, x.shape.rank)))
        keep = None if mask is None else array_ops.expand_dims(
            math_ops.cast(array_ops.transpose(mask, [1, 0]), keep_dtype), -1)
        first, _ = self._step(xt[0], states, training)
        zero = array_ops.zeros_like(first)
        flat0 = nest.flatten(states)

        def fn(acc, elem):
            prev, flat = acc[0], list(acc[1:])
            cur = nest.pack_sequence_as(states, flat)
            x_t, k = elem if keep is not None else (elem, None)
            out, new = self._step(x_t, cur, training)
            new_flat = nest.flatten(new)
            if k is not None:
                new_flat = [_blend(k, n, o) for n, o in zip(new_flat, flat)]
                out = _blend(k, out, zero if self.zero_output_for_mask else prev)
            return tuple([out] + new_flat)
        elems = (xt, keep) if keep is not None else xt
        result = scan(fn, elems, initializer=tuple([zero] + flat0))
        outs = result[0]
        final = nest.pack_sequence_as(states, [r[-1] for r in result[1:]])
        seq = array_ops.transpose(outs, [1, 0] + list(range(2, outs.shape.rank)))
        return outs[-1], seq, final

    def compute_mask(self, inputs, mask=None) -> Any:
        out_mask = mask if self.return_sequences else None
        if self.return_state:
            n = len(nest.flatten(_state_sizes(self.cell)))
            return [out_mask] + [None] * n
        return out_mask

    def _rnn_config(self) -> dict:
        return {name: getattr(self, name) for name in _RNN_FLAGS}

    def get_config(self) -> dict:
        cfg = super().get_config()
        cfg.update(self._rnn_config())
        return cfg


def _like(new, old):
    """``old`` in the structure of ``new`` (cells may return lists where tuples came in)."""
    return nest.pack_sequence_as(new, nest.flatten(old))


def _state_sizes(cell):
    s = cell.state_size
    return s if isinstance(s, (list, tuple)) else [s]


_RNN_ARGS = (*_RNN_FLAGS, "time_major")
_LAYER_ARGS = ("name", "trainable", "dtype", "input_shape", "batch_input_shape", "input_dim",
               "batch_size", "activity_regularizer", "autocast", "weights")


class _CellRNN(RNN):
    """An RNN that builds its own cell from the cell's arguments (SimpleRNN, LSTM, GRU).

    Args:
        units: the state size.
        **kwargs: the cell's, RNN's and Layer's arguments.
    """

    _cell_class: type = SimpleRNNCell

    _config_layer_keys = ()  # the cell's arguments are inlined

    def __init__(self, units: int, **kwargs) -> None:
        rnn_kwargs = {k: kwargs.pop(k) for k in list(kwargs) if k in _RNN_ARGS}
        if rnn_kwargs.pop("time_major", False):
            raise NotImplementedError("time_major=True is not supported; transpose the inputs")
        layer_kwargs = {k: kwargs.pop(k) for k in list(kwargs) if k in _LAYER_ARGS}
        kwargs.pop("use_cudnn", None)
        kwargs.pop("implementation", None)
        cell = self._cell_class(units, name=f"{self._cell_name}", dtype=layer_kwargs.get("dtype"),
                                **kwargs)
        super().__init__(cell, **rnn_kwargs, **layer_kwargs)

    def __getattr__(self, name: str):
        # units, activation, dropout... are the cell's (Keras exposes them on the layer).
        if name.startswith("_") or name == "cell":
            raise AttributeError(name)
        return getattr(self.__dict__["cell"], name)

    def get_config(self) -> dict:
        cfg = Layer.get_config(self)
        cell_cfg = self.cell.get_config()
        for k in ("name", "trainable", "dtype", "batch_input_shape"):
            cell_cfg.pop(k, None)
        cfg.update(cell_cfg)
        cfg.update(self._rnn_config())
        return cfg


_CELL_RNN_ARGS = {
    "units": "the state size.",
    "**kwargs": "the cell's arguments (``activation``, ``dropout``...) and RNN's "
                "(``return_sequences``, ``return_state``, ``go_backwards``, ``stateful``...).",
}


@with_args(_CELL_RNN_ARGS)
class SimpleRNN(_CellRNN):
    """A fully-connected RNN: ``h_t = activation(x_t @ kernel + h_{t-1} @ recurrent_kernel +
    bias)``. Takes SimpleRNNCell's arguments and RNN's."""

    _cell_class = SimpleRNNCell
    _cell_name = "simple_rnn_cell"


@with_args(_CELL_RNN_ARGS)
class LSTM(_CellRNN):
    """Long short-term memory over the time axis (LSTMCell's arguments, such as
    ``recurrent_activation`` and ``unit_forget_bias``, and RNN's)."""

    _cell_class = LSTMCell
    _cell_name = "lstm_cell"


@with_args(_CELL_RNN_ARGS)
class GRU(_CellRNN):
    """Gated recurrent unit over the time axis (GRUCell's arguments, such as ``reset_after``,
    and RNN's)."""

    _cell_class = GRUCell
    _cell_name = "gru_cell"
