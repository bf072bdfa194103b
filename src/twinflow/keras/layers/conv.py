"""Convolution and pooling layers (channels-last)."""
from __future__ import annotations

from typing import Any

from ...core.shapes import TensorShape
from ...graph.tensor import Tensor
from ...ops import nn_ops, reduction_ops
from .. import activations as _activations
from .. import initializers as _initializers
from .. import regularizers as _regularizers
from .base import Layer


def _pair(v, name: str) -> tuple:
    if isinstance(v, int):
        return (v, v)
    v = tuple(int(x) for x in v)
    if len(v) != 2:
        raise ValueError(f"The `{name}` argument must be a tuple of 2 integers. Received: {v}")
    return v


def _check_format(data_format: str | None) -> str:
    fmt = data_format or "channels_last"
    if fmt != "channels_last":
        raise NotImplementedError(f"data_format={fmt!r}: twinflow's convolutions are "
                                  "channels_last (NHWC) only")
    return fmt


def _padding(padding: str) -> str:
    p = padding.upper()
    if p not in ("SAME", "VALID"):
        raise ValueError(f"The `padding` argument must be 'valid' or 'same'. Received: "
                         f"{padding!r}")
    return p


class Conv2D(Layer):
    """2-D convolution over NHWC images, with bias and activation.

    Args:
        filters: the number of output channels.
        kernel_size: an int or a pair.
        strides: an int or a pair.
        padding: ``'valid'`` or ``'same'``.
        data_format: ``'channels_last'`` only.
        dilation_rate: an int or a pair.
        groups: must be 1.
        activation: an activation name or function.
        use_bias: whether to add a bias.
        kernel_initializer: initializer of the kernel.
        bias_initializer: initializer of the bias.
        kernel_regularizer: a penalty on the kernel.
        bias_regularizer: a penalty on the bias.
        **kwargs: Layer arguments and ignored constraints.
    """

    def __init__(self, filters: int, kernel_size, strides=(1, 1), padding: str = "valid",
                 data_format: str | None = None, dilation_rate=(1, 1), groups: int = 1,
                 activation=None, use_bias: bool = True, kernel_initializer="glorot_uniform",
                 bias_initializer="zeros", kernel_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, kernel_constraint=None, bias_constraint=None,
                 **kwargs) -> None:
        super().__init__(**kwargs)
        if groups != 1:
            raise NotImplementedError("Conv2D with groups != 1 is not supported")
        self.filters = int(filters)
        self.kernel_size = _pair(kernel_size, "kernel_size")
        self.strides = _pair(strides, "strides")
        self.padding = _padding(padding)
        self.data_format = _check_format(data_format)
        self.dilation_rate = _pair(dilation_rate, "dilation_rate")
        self.activation = _activations.get(activation)
        self.use_bias = use_bias
        self.kernel_initializer = _initializers.get(kernel_initializer)
        self.bias_initializer = _initializers.get(bias_initializer)
        self.kernel_regularizer = _regularizers.get(kernel_regularizer)
        self.bias_regularizer = _regularizers.get(bias_regularizer)

    def build(self, input_shape) -> None:
        dims = TensorShape(input_shape).as_list()
        if len(dims) != 4 or dims[-1] is None:
            raise ValueError(f"Conv2D expects inputs of shape (batch, height, width, channels) "
                             f"with a known channel dimension; received {input_shape}")
        self.kernel = self.add_weight("kernel", self.kernel_size + (dims[-1], self.filters),
                                      initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer)
        self.bias = self.add_weight("bias", (self.filters,), initializer=self.bias_initializer,
                                    regularizer=self.bias_regularizer) if self.use_bias else None
        self.built = True

    def call(self, inputs) -> Tensor:
        y = nn_ops.conv2d(inputs, self.kernel, strides=list(self.strides), padding=self.padding,
                          dilations=list(self.dilation_rate))
        if self.use_bias:
            y = nn_ops.bias_add(y, self.bias)
        act = self.activation
        return y if act is _activations.linear else act(y)

    def get_config(self) -> dict:
        cfg = super().get_config()
        cfg.update(filters=self.filters, kernel_size=self.kernel_size, strides=self.strides,
                   padding=self.padding.lower(), dilation_rate=self.dilation_rate,
                   activation=_activations.serialize(self.activation), use_bias=self.use_bias,
                   kernel_initializer=_initializers.serialize(self.kernel_initializer),
                   bias_initializer=_initializers.serialize(self.bias_initializer),
                   kernel_regularizer=_regularizers.serialize(self.kernel_regularizer),
                   bias_regularizer=_regularizers.serialize(self.bias_regularizer))
        return cfg


class _Pooling2D(Layer):
    _pool = None  # nn_ops.max_pool2d or nn_ops.avg_pool2d

    def __init__(self, pool_size=(2, 2), strides=None, padding: str = "valid",
                 data_format=None, **kwargs) -> None:
        super().__init__(**kwargs)
        self.pool_size = _pair(pool_size, "pool_size")
        self.strides = _pair(strides, "strides") if strides is not None else self.pool_size
        self.padding = _padding(padding)
        self.data_format = _check_format(data_format)

    def call(self, inputs) -> Any:
        return self._pool(inputs, list(self.pool_size), list(self.strides), self.padding)

    def get_config(self) -> dict:
        cfg = super().get_config()
        cfg.update(pool_size=self.pool_size, strides=self.strides,
                   padding=self.padding.lower())
        return cfg


class MaxPooling2D(_Pooling2D):
    """Maximum over ``pool_size`` windows.

    Args:
        pool_size: an int or a pair.
        strides: an int or a pair (default: ``pool_size``).
        padding: ``'valid'`` or ``'same'``.
        data_format: ``'channels_last'`` only.
        **kwargs: Layer arguments.
    """

    _pool = staticmethod(nn_ops.max_pool2d)


class AveragePooling2D(_Pooling2D):
    """Mean over ``pool_size`` windows.

    Args:
        pool_size: an int or a pair.
        strides: an int or a pair (default: ``pool_size``).
        padding: ``'valid'`` or ``'same'``.
        data_format: ``'channels_last'`` only.
        **kwargs: Layer arguments.
    """

    _pool = staticmethod(nn_ops.avg_pool2d)


class GlobalAveragePooling2D(Layer):
    """Mean over height and width: ``(N, H, W, C) -> (N, C)``.

    Args:
        data_format: ``'channels_last'`` only.
        keepdims: keep the spatial dimensions with length 1.
        **kwargs: Layer arguments.
    """

    def __init__(self, data_format: str | None = None, keepdims: bool = False, **kwargs) -> None:
        super().__init__(**kwargs)
        self.data_format = _check_format(data_format)
        self.keepdims = keepdims

    def call(self, inputs) -> Tensor:
        return reduction_ops.reduce_mean(inputs, axis=[1, 2], keepdims=self.keepdims)

    def get_config(self) -> dict:
        cfg = super().get_config()
        cfg.update(data_format=self.data_format, keepdims=self.keepdims)
        return cfg


class GlobalMaxPooling2D(GlobalAveragePooling2D):
    """Maximum over height and width: ``(N, H, W, C) -> (N, C)``."""

    def call(self, inputs) -> Tensor:
        return reduction_ops.reduce_max(inputs, axis=[1, 2], keepdims=self.keepdims)


class GlobalAveragePooling1D(Layer):
    """Mean over the steps axis: ``(N, steps, C) -> (N, C)``.

    Args:
        data_format: ``'channels_last'`` only.
        keepdims: keep the steps axis with length 1.
        **kwargs: Layer arguments.
    """

    def __init__(self, data_format: str | None = None, keepdims: bool = False, **kwargs) -> None:
        super().__init__(**kwargs)
        self.data_format = _check_format(data_format)
        self.keepdims = keepdims

    def call(self, inputs) -> Tensor:
        return reduction_ops.reduce_mean(inputs, axis=1, keepdims=self.keepdims)

    def get_config(self) -> dict:
        cfg = super().get_config()
        cfg.update(data_format=self.data_format, keepdims=self.keepdims)
        return cfg


class GlobalMaxPooling1D(GlobalAveragePooling1D):
    """Maximum over the steps axis: ``(N, steps, C) -> (N, C)``."""

    def call(self, inputs) -> Tensor:
        return reduction_ops.reduce_max(inputs, axis=1, keepdims=self.keepdims)


Convolution2D = Conv2D
MaxPool2D = MaxPooling2D
AvgPool2D = AveragePooling2D
GlobalAvgPool2D = GlobalAveragePooling2D
GlobalMaxPool2D = GlobalMaxPooling2D
GlobalAvgPool1D = GlobalAveragePooling1D
GlobalMaxPool1D = GlobalMaxPooling1D
