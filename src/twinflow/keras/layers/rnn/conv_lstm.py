"""ConvLSTM1D/2D/3D: an LSTM whose input and recurrent transforms are convolutions.

Inputs are ``(batch, time, *spatial, channels)`` (or ``(batch, time, channels, *spatial)``
with ``data_format='channels_first'``); the states are ``(batch, *spatial_out, filters)``.
The cell's weights are Keras 3's (``conv_lstm_cell/kernel`` ``(*kernel_size, channels,
4 * filters)``, ``recurrent_kernel`` ``(*kernel_size, filters, 4 * filters)``, ``bias``).
"""
from __future__ import annotations

from ....graph.tensor import Tensor
from ....ops import array_ops, nn_ops
from ....ops.nn import conv_nd
from ... import activations as _activations
from ..reshaping import _data_format, _tuple
from .cells import _Cell, forget_bias_init, lstm_update
from .rnn import _CellRNN


def _conv(x, kernel, rank: int, strides, padding: str, dilations):
    if rank == 3:
        return conv_nd.conv3d(x, kernel, [1] + list(strides) + [1], padding,
                              dilations=[1] + list(dilations) + [1])
    return nn_ops.convolution(x, kernel, strides=list(strides), padding=padding,
                              dilations=list(dilations))


def _out_length(n: int, k: int, s: int, d: int, padding: str) -> int:
    if padding == "same":
        return -(-n // s)
    return (n - (k - 1) * d - 1) // s + 1


class ConvLSTMCell(_Cell):
    """One step of a ConvLSTM (channels-last).

    Args:
        units: the number of filters.
        kernel_size: an int or a tuple (one per spatial axis).
        rank: the number of spatial axes (1, 2 or 3).
        strides: the input convolution's strides.
        padding: ``'valid'`` or ``'same'`` (the recurrent convolution is always ``'same'``).
        dilation_rate: the input convolution's dilation.
        recurrent_activation: the gates' activation.
        unit_forget_bias: start the forget gate's bias at 1.
        **kwargs: _Cell arguments (activation, initializers, dropout...).
    """

    _gates = 4

    def __init__(self, units: int, kernel_size=3, rank: int = 2, strides=1,
                 padding: str = "valid", dilation_rate=1, recurrent_activation="sigmoid",
                 unit_forget_bias: bool = True, **kwargs) -> None:
        kwargs.pop("data_format", None)  # the layer transposes channels-first inputs
        super().__init__(units, **kwargs)
        self.rank = int(rank)
        self.kernel_size = _tuple(kernel_size, self.rank, "kernel_size")
        self.strides = _tuple(strides, self.rank, "strides")
        self.dilation_rate = _tuple(dilation_rate, self.rank, "dilation_rate")
        self.padding = str(padding).lower()
        if self.padding not in ("valid", "same"):
            raise ValueError(f"ConvLSTM padding must be 'valid' or 'same', got {padding!r}")
        self.recurrent_activation = _activations.get(recurrent_activation)
        self.unit_forget_bias = bool(unit_forget_bias)
        self._tw_spatial = None

    @property
    def state_size(self) -> list:
        return [self.units, self.units]

    def build(self, input_shape) -> None:
        dims = input_shape.as_list()
        if len(dims) != self.rank + 2:
            raise ValueError(f"ConvLSTM{self.rank}D expects steps of rank {self.rank + 2}; got "
                             f"{input_shape}")
        sp = dims[1:-1]
        if any(d is None for d in sp):
            raise ValueError(f"ConvLSTM{self.rank}D needs known spatial sizes; got "
                             f"{input_shape}")
        self._tw_spatial = [_out_length(n, k, s, d, self.padding) for n, k, s, d in
                            zip(sp, self.kernel_size, self.strides, self.dilation_rate)]
        n = 4 * self.units
        self.kernel = self._add_weight_for("kernel", "kernel",
                                           self.kernel_size + (dims[-1], n))
        self.recurrent_kernel = self._add_weight_for("recurrent", "recurrent_kernel",
                                                     self.kernel_size + (self.units, n))
        self.bias = self._add_weight_for("bias", "bias", (n,), forget_bias_init(self)) \
            if self.use_bias else None
        self.built = True

    def get_initial_state(self, batch_size=None) -> list:
        """Zero hidden and cell states of shape ``(batch, *spatial_out, filters)``.

        Args:
            batch_size: the batch size.

        Returns:
            ``[h, c]``.
        """
        shape = array_ops.stack([batch_size] + list(self._tw_spatial) + [self.units])
        return [array_ops.zeros(shape, dtype=self.compute_dtype) for _ in range(2)]

    def call(self, inputs, states, training=None) -> tuple:
        h_prev, c_prev = states
        x, h_in = self._dropped_pair(inputs, h_prev, training)
        pad = self.padding.upper()
        z = _conv(x, self.kernel, self.rank, self.strides, pad, self.dilation_rate)
        z = z + _conv(h_in, self.recurrent_kernel, self.rank, (1,) * self.rank, "SAME",
                      (1,) * self.rank)
        return lstm_update(self, z, c_prev)

    def get_config(self) -> dict:
        cfg = super().get_config()
        cfg.update(kernel_size=self.kernel_size, rank=self.rank, strides=self.strides,
                   padding=self.padding, dilation_rate=self.dilation_rate,
                   recurrent_activation=_activations.serialize(self.recurrent_activation),
                   unit_forget_bias=self.unit_forget_bias)
        return cfg


class _ConvLSTM(_CellRNN):
    _cell_class = ConvLSTMCell
    _cell_name = "conv_lstm_cell"
    _rank = 2

    def __init__(self, filters: int, kernel_size, data_format=None, **kwargs) -> None:
        self.__dict__["data_format"] = _data_format(data_format)
        super().__init__(filters, kernel_size=kernel_size, rank=self._rank, **kwargs)

    def _channels_last(self, x):
        r = self._rank
        return array_ops.transpose(x, [0, 1] + list(range(3, r + 3)) + [2])

    def build(self, input_shape) -> None:
        if self.data_format == "channels_first":
            dims = input_shape.as_list()
            input_shape = type(input_shape)(dims[:2] + dims[3:] + dims[2:3])
        super().build(input_shape)

    def call(self, inputs, initial_state=None, mask=None, training=None):
        first = self.data_format == "channels_first"
        x = self._channels_last(inputs) if first else inputs
        out = super().call(x, initial_state=initial_state, mask=mask, training=training)
        if not first:
            return out
        r = self._rank

        def back(t: Tensor, seq: bool) -> Tensor:
            lead = [0, 1] if seq else [0]
            k = len(lead)
            return array_ops.transpose(t, lead + [k + r] + list(range(k, k + r)))
        if self.return_state:
            return [back(out[0], self.return_sequences)] + [back(s, False) for s in out[1:]]
        return back(out, self.return_sequences)

    def get_config(self) -> dict:
        cfg = super().get_config()
        cfg["filters"] = cfg.pop("units")
        cfg.pop("rank", None)
        cfg["data_format"] = self.data_format
        return cfg


def _convlstm(rank: int) -> type:
    doc = (f"A {rank}-D convolutional LSTM over ``(batch, time, *{rank} spatial dims, "
           "channels)``.\n\n    Args:\n        filters: the number of output channels.\n"
           "        kernel_size: an int or a tuple.\n"
           "        data_format: ``'channels_last'`` or ``'channels_first'``.\n"
           "        **kwargs: strides, padding ('valid'/'same'), dilation_rate, activation,\n"
           "            recurrent_activation, use_bias, initializers, unit_forget_bias,\n"
           "            regularizers, constraints, dropout, recurrent_dropout, seed and RNN\n"
           "            arguments (return_sequences, return_state, go_backwards, stateful).\n    ")
    return type(f"ConvLSTM{rank}D", (_ConvLSTM,), {"_rank": rank, "__doc__": doc,
                                                    "__module__": __name__})


ConvLSTM1D = _convlstm(1)
ConvLSTM2D = _convlstm(2)
ConvLSTM3D = _convlstm(3)
