"""3-D convolution and pooling (Conv3D, Conv3DTranspose, Max/AveragePooling3D) and the
adaptive pools over 1-3 spatial dimensions. Inputs are ``(batch, d1, d2, d3, channels)``
(``channels_first`` inputs are transposed to channels-last and back); weight layouts and
names are Keras 3's."""
from __future__ import annotations

from ...graph.tensor import Tensor
from ...ops import array_ops, reduction_ops
from ...ops.nn import conv_nd
from .base import Layer
from .convolutional import _BaseConv, _ConvTranspose, _transpose_length
from .pooling import _Pooling
from .reshaping import _data_format, _tuple


class Conv3D(_BaseConv):
    """3-D convolution over ``(batch, depth, height, width, channels)`` volumes.

    Args:
        filters: the number of output channels.
        kernel_size: an int or a triple.
        strides: an int or a triple.
        padding: ``'valid'`` or ``'same'``.
        data_format: ``'channels_last'`` or ``'channels_first'``.
        dilation_rate: an int or a triple.
        groups: split the channels into this many independent groups.
        activation: an activation.
        use_bias: whether to add a bias.
        kernel_initializer: initializer of the kernel.
        bias_initializer: initializer of the bias.
        kernel_regularizer: a penalty on the kernel.
        bias_regularizer: a penalty on the bias.
        activity_regularizer: a penalty on the output, added to ``losses``.
        kernel_constraint: stored on the kernel.
        bias_constraint: stored on the bias.
        **kwargs: Layer arguments.
    """

    _rank = 3

    def _conv(self, x):
        strides = [1] + list(self.strides) + [1]
        dilations = [1] + list(self.dilation_rate) + [1]
        pad = self._op_padding()
        if self.groups == 1:
            return conv_nd.conv3d(x, self.kernel, strides, pad, dilations=dilations)
        xs = array_ops.split(x, self.groups, axis=-1)
        ks = array_ops.split(self.kernel, self.groups, axis=-1)
        return array_ops.concat([conv_nd.conv3d(a, b, strides, pad, dilations=dilations)
                                 for a, b in zip(xs, ks)], axis=-1)


class Conv3DTranspose(_ConvTranspose):
    """Transposed 3-D convolution (the gradient of Conv3D; upsamples volumes).

    Args:
        filters: the number of output channels.
        kernel_size: an int or a triple.
        strides: an int or a triple (the upsampling factors).
        padding: ``'valid'`` or ``'same'``.
        output_padding: extra planes/rows/columns at the end (less than the strides).
        data_format: ``'channels_last'`` or ``'channels_first'``.
        dilation_rate: an int or a triple.
        **kwargs: activation, use_bias, initializers, regularizers, constraints and Layer
            arguments.
    """

    _rank = 3

    def _conv(self, x):
        dims = x.shape.as_list()
        shape = array_ops.shape(x)
        pads = [None] * 3 if self.output_padding is None else list(self.output_padding)
        sizes = [_transpose_length(dims[1 + i] if dims[1 + i] is not None else shape[1 + i],
                                   self.kernel_size[i], self.strides[i],
                                   self.dilation_rate[i], self.padding, pads[i])
                 for i in range(3)]
        out_shape = array_ops.stack([shape[0]] + sizes + [self.filters])
        y = conv_nd.conv3d_transpose(x, self.kernel, out_shape, [1] + list(self.strides) + [1],
                                     self._op_padding(),
                                     dilations=[1] + list(self.dilation_rate) + [1])
        if all(isinstance(s, int) for s in sizes):
            y = array_ops.reshape(y, [-1] + sizes + [self.filters])
        return y


class _Pooling3D(_Pooling):
    _rank = 3

    def call(self, inputs) -> Tensor:
        x = inputs
        first = self.data_format == "channels_first"
        if first:
            x = array_ops.transpose(x, [0, 2, 3, 4, 1])
        pool = conv_nd.max_pool3d if self._max else conv_nd.avg_pool3d
        y = pool(x, [1] + list(self.pool_size) + [1], [1] + list(self.strides) + [1],
                 self.padding.upper())
        return array_ops.transpose(y, [0, 4, 1, 2, 3]) if first else y


class MaxPooling3D(_Pooling3D, rank=3, op="max"):
    """Maximum over ``pool_size`` windows of volumes."""


class AveragePooling3D(_Pooling3D, rank=3, op="mean"):
    """Mean over ``pool_size`` windows of volumes."""


class _AdaptivePooling(Layer):
    """Pools each spatial axis into ``output_size`` bins: bin ``i`` of an axis of length
    ``n`` covers ``[floor(i n / out), ceil((i + 1) n / out))`` (PyTorch's and Keras' bins)."""

    _rank = 2
    _max = False

    def __init__(self, output_size, data_format=None, **kwargs) -> None:
        super().__init__(**kwargs)
        self.output_size = _tuple(output_size, self._rank, "output_size")
        if any(s <= 0 for s in self.output_size):
            raise ValueError(f"output_size must be positive, got {output_size}")
        self.data_format = _data_format(data_format)

    def call(self, inputs) -> Tensor:
        x = inputs
        n = self._rank
        if x.shape.rank != n + 2:
            raise ValueError(f"{type(self).__name__} expects inputs of rank {n + 2}; got "
                             f"shape {x.shape}")
        first = self.data_format == "channels_first"
        axes = list(range(2, n + 2)) if first else list(range(1, n + 1))
        reduce = reduction_ops.reduce_max if self._max else reduction_ops.reduce_mean
        for axis, out in zip(axes, self.output_size):
            length = x.shape.as_list()[axis]
            if length is None:
                raise ValueError(f"{type(self).__name__} needs known spatial sizes; got "
                                 f"{x.shape}")
            parts = []
            for i in range(out):
                lo, hi = (i * length) // out, -(-((i + 1) * length) // out)
                index = [slice(None)] * (n + 2)
                index[axis] = slice(lo, hi)
                parts.append(reduce(x[tuple(index)], axis=axis, keepdims=True))
            x = array_ops.concat(parts, axis)
        return x

    def get_config(self) -> dict:
        cfg = super().get_config()
        cfg.update(output_size=self.output_size, data_format=self.data_format)
        return cfg


def _adaptive(name: str, rank: int, is_max: bool) -> type:
    kind = "Maximum" if is_max else "Mean"
    doc = (f"{kind} over ``output_size`` adaptive bins of each of the {rank} spatial axes.\n\n"
           "    Args:\n        output_size: an int or a tuple of the number of bins per axis.\n"
           "        data_format: ``'channels_last'`` or ``'channels_first'``.\n"
           "        **kwargs: Layer arguments.\n    ")
    return type(name, (_AdaptivePooling,), {"_rank": rank, "_max": is_max, "__doc__": doc,
                                             "__module__": __name__})


AdaptiveAveragePooling1D = _adaptive("AdaptiveAveragePooling1D", 1, False)
AdaptiveAveragePooling2D = _adaptive("AdaptiveAveragePooling2D", 2, False)
AdaptiveAveragePooling3D = _adaptive("AdaptiveAveragePooling3D", 3, False)
AdaptiveMaxPooling1D = _adaptive("AdaptiveMaxPooling1D", 1, True)
AdaptiveMaxPooling2D = _adaptive("AdaptiveMaxPooling2D", 2, True)
AdaptiveMaxPooling3D = _adaptive("AdaptiveMaxPooling3D", 3, True)
Convolution3D = Conv3D
Convolution3DTranspose = Conv3DTranspose
MaxPool3D = MaxPooling3D
AvgPool3D = AveragePooling3D
