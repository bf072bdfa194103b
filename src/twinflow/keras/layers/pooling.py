"""Pooling layers: Max/AveragePooling1D/2D and the Global pools over 1-3 spatial dimensions.
``channels_first`` inputs are transposed to channels-last for the window pools. A masked
GlobalAveragePooling1D averages the unmasked steps only, as in Keras."""
from __future__ import annotations

from typing import Any

from ...graph.tensor import Tensor
from ...ops import array_ops, math_ops, nn_ops, reduction_ops
from .base import Layer
from .ranked import Ranked
from .reshaping import _data_format, _tuple


def _pool_padding(padding: str) -> str:
    p = str(padding).lower()
    if p not in ("valid", "same"):
        raise ValueError(f"The `padding` argument must be 'valid' or 'same'. Received: "
                         f"padding={padding!r}")
    return p


class _Pool(Ranked, Layer):
    """A pooling family: each member names its rank and reduction, ``class
    MaxPooling2D(_Pooling, rank=2, op="max")``."""

    _max = True

    def __init_subclass__(cls, op: str | None = None, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        if op is not None:
            cls._max = op == "max"


class _Pooling(_Pool):
    _args_doc = """pool_size: the window size, {size}.
strides: the step, {size} (default: ``pool_size``).
padding: ``'valid'`` or ``'same'``.
data_format: ``'channels_last'`` or ``'channels_first'``.
**kwargs: Layer arguments."""

    def __init__(self, pool_size=2, strides=None, padding: str = "valid", data_format=None,
                 **kwargs) -> None:
        super().__init__(**kwargs)
        n = self._rank
        self.pool_size = _tuple(pool_size, n, "pool_size")
        self.strides = _tuple(strides, n, "strides") if strides is not None else self.pool_size
        # Zero or negative windows and strides are refused by the pool op when called
        # (InvalidArgumentError), as in Keras 3.
        self.padding = _pool_padding(padding)
        self.data_format = _data_format(data_format)

    def call(self, inputs) -> Tensor:
        n = self._rank
        x = inputs
        if self.data_format == "channels_first":
            x = array_ops.transpose(x, [0] + list(range(2, n + 2)) + [1])
        ksize, strides = list(self.pool_size), list(self.strides)
        if n == 1:
            x = array_ops.expand_dims(x, 1)
            ksize, strides = [1] + ksize, [1] + strides
        pool = nn_ops.max_pool2d if self._max else nn_ops.avg_pool2d
        y = pool(x, ksize, strides, self.padding.upper())
        if n == 1:
            y = array_ops.squeeze(y, axis=[1])
        if self.data_format == "channels_first":
            y = array_ops.transpose(y, [0, n + 1] + list(range(1, n + 1)))
        return y

    _config_keys = ("pool_size", "strides", "padding", "data_format")


class MaxPooling1D(_Pooling, rank=1, op="max"):
    """Maximum over windows of steps."""


class AveragePooling1D(_Pooling, rank=1, op="mean"):
    """Mean over windows of steps."""


class MaxPooling2D(_Pooling, rank=2, op="max"):
    """Maximum over ``pool_size`` windows."""


class AveragePooling2D(_Pooling, rank=2, op="mean"):
    """Mean over ``pool_size`` windows."""


class _GlobalPooling(_Pool):
    _args_doc = """data_format: ``'channels_last'`` or ``'channels_first'``.
keepdims: keep the pooled axes with length 1.
**kwargs: Layer arguments."""

    def __init__(self, data_format=None, keepdims: bool = False, **kwargs) -> None:
        super().__init__(**kwargs)
        self.data_format = _data_format(data_format)
        self.keepdims = bool(keepdims)

    def _axes(self, inputs) -> list:
        if inputs.shape.rank is not None and inputs.shape.rank != self._rank + 2:
            raise ValueError(f"{type(self).__name__} expects inputs of rank {self._rank + 2}; "
                             f"got shape {inputs.shape}")
        start = 1 if self.data_format == "channels_last" else 2
        return list(range(start, start + self._rank))

    def call(self, inputs) -> Tensor:
        reduce = reduction_ops.reduce_max if self._max else reduction_ops.reduce_mean
        return reduce(inputs, axis=self._axes(inputs), keepdims=self.keepdims)

    def compute_mask(self, inputs, mask=None) -> Any:
        return None

    _config_keys = ("data_format", "keepdims")


class GlobalAveragePooling1D(_GlobalPooling, rank=1, op="mean"):
    """Mean over the steps axis: ``(N, steps, C) -> (N, C)`` (masked steps left out)."""

    def __init__(self, data_format=None, keepdims: bool = False, **kwargs) -> None:
        super().__init__(data_format=data_format, keepdims=keepdims, **kwargs)
        self.supports_masking = True

    def call(self, inputs, mask=None) -> Tensor:
        axis = self._axes(inputs)
        if mask is None:
            return reduction_ops.reduce_mean(inputs, axis=axis, keepdims=self.keepdims)
        m = math_ops.cast(mask, inputs.dtype)
        m = array_ops.expand_dims(m, 2 if self.data_format == "channels_last" else 1)
        total = reduction_ops.reduce_sum(inputs * m, axis=axis, keepdims=self.keepdims)
        count = reduction_ops.reduce_sum(m, axis=axis, keepdims=self.keepdims)
        return math_ops.div_no_nan(total, count)


class GlobalMaxPooling1D(_GlobalPooling, rank=1, op="max"):
    """Maximum over the steps axis: ``(N, steps, C) -> (N, C)``."""


class GlobalAveragePooling2D(_GlobalPooling, rank=2, op="mean"):
    """Mean over height and width: ``(N, H, W, C) -> (N, C)``."""


class GlobalMaxPooling2D(_GlobalPooling, rank=2, op="max"):
    """Maximum over height and width: ``(N, H, W, C) -> (N, C)``."""


class GlobalAveragePooling3D(_GlobalPooling, rank=3, op="mean"):
    """Mean over the three spatial dimensions: ``(N, D, H, W, C) -> (N, C)``."""


class GlobalMaxPooling3D(_GlobalPooling, rank=3, op="max"):
    """Maximum over the three spatial dimensions: ``(N, D, H, W, C) -> (N, C)``."""
