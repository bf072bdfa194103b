"""Reshaping layers: UpSampling1D/2D/3D, ZeroPadding1D/2D/3D, Cropping1D/2D/3D, RepeatVector,
Permute (channels-last, or channels-first where Keras takes ``data_format``)."""
from __future__ import annotations

from ...graph.tensor import Tensor
from ...ops import array_ops
from ..settings import image_data_format
from .base import Layer
from .ranked import Ranked


def _tuple(value, n: int, name: str) -> tuple:
    if isinstance(value, int):
        return (value,) * n
    value = tuple(value)
    if len(value) != n or not all(isinstance(v, int) for v in value):
        raise ValueError(f"The `{name}` argument must be an integer or a tuple of {n} "
                         f"integers. Received: {name}={value}")
    return value


def _pairs(value, n: int, name: str) -> tuple:
    """``value`` as n (before, after) pairs: an int, n ints, or n pairs."""
    if isinstance(value, int):
        return ((value, value),) * n
    value = tuple(value)
    if n == 1 and len(value) == 2 and all(isinstance(v, int) for v in value):
        return (tuple(value),)
    if len(value) != n:
        raise ValueError(f"`{name}` should have {n} elements. Received: {name}={value}")
    out = []
    for v in value:
        pair = (v, v) if isinstance(v, int) else tuple(v)
        if len(pair) != 2 or not all(isinstance(p, int) and p >= 0 for p in pair):
            raise ValueError(f"`{name}` must hold non-negative integers or pairs of them. "
                             f"Received: {name}={value}")
        out.append(pair)
    return tuple(out)


def _data_format(value) -> str:
    value = value or image_data_format()  # None: keras.backend.image_data_format()
    if value not in ("channels_last", "channels_first"):
        raise ValueError(f"The `data_format` argument must be one of 'channels_first', "
                         f"'channels_last'. Received: data_format={value}")
    return value


def _spatial_axes(n: int, data_format: str) -> list:
    return list(range(1, n + 1)) if data_format == "channels_last" else list(range(2, n + 2))


class _UpSampling(Ranked, Layer):
    _args_doc = """size: the repeat factor of each spatial axis, {size}.
data_format: ``'channels_last'`` or ``'channels_first'``.
interpolation: ``'nearest'`` (bilinear is not supported).
**kwargs: Layer arguments."""

    def __init__(self, size=2, data_format=None, interpolation: str = "nearest",
                 **kwargs) -> None:
        super().__init__(**kwargs)
        self.size = _tuple(size, self._rank, "size")
        self.data_format = _data_format(data_format) if self._rank > 1 else "channels_last"
        if interpolation != "nearest":
            raise NotImplementedError(f"{type(self).__name__}: only interpolation='nearest' "
                                      f"is supported by twinflow (got {interpolation!r})")
        self.interpolation = interpolation

    def call(self, inputs) -> Tensor:
        x = inputs
        for axis, s in zip(_spatial_axes(self._rank, self.data_format), self.size):
            if s != 1:
                x = array_ops.repeat(x, s, axis=axis)
        return x

    def get_config(self) -> dict:
        cfg = super().get_config()
        if self._rank == 1:
            cfg["size"] = self.size[0]
        else:
            cfg.update(size=self.size, data_format=self.data_format)
        if self._rank == 2:
            cfg["interpolation"] = self.interpolation
        return cfg


class UpSampling1D(_UpSampling, rank=1):
    """Repeats each step ``size`` times: ``(N, T, C) -> (N, T*size, C)``."""

    def __init__(self, size: int = 2, **kwargs) -> None:
        super().__init__(size=size, **kwargs)


class UpSampling2D(_UpSampling, rank=2):
    """Repeats rows and columns (nearest-neighbour upsampling)."""


class UpSampling3D(_UpSampling, rank=3):
    """Repeats the three spatial dimensions."""


class _EdgePairs(Ranked, Layer):
    """ZeroPadding and Cropping: a (before, after) pair of each spatial axis, stored under the
    argument's name (``_arg``); 1-D layers take no ``data_format``."""

    _arg = "padding"

    def __init__(self, pairs, data_format=None, **kwargs) -> None:
        super().__init__(**kwargs)
        setattr(self, self._arg, _pairs(pairs, self._rank, self._arg))
        self.data_format = _data_format(data_format) if self._rank > 1 else "channels_last"

    def _axis_pairs(self) -> zip:
        """(axis, (before, after)) of each spatial axis."""
        return zip(_spatial_axes(self._rank, self.data_format), getattr(self, self._arg))

    def get_config(self) -> dict:
        cfg = super().get_config()
        pairs = getattr(self, self._arg)
        cfg[self._arg] = pairs[0] if self._rank == 1 else pairs
        if self._rank > 1:
            cfg["data_format"] = self.data_format
        return cfg


class _ZeroPadding(_EdgePairs):
    _args_doc = """padding: zeros before and after each spatial axis: {size}, or {pairs}.
data_format: ``'channels_last'`` or ``'channels_first'``.
**kwargs: Layer arguments."""

    def __init__(self, padding=1, data_format=None, **kwargs) -> None:
        super().__init__(padding, data_format, **kwargs)

    def call(self, inputs) -> Tensor:
        pads = [[0, 0]] * inputs.shape.rank
        for axis, p in self._axis_pairs():
            pads[axis] = list(p)
        return array_ops.pad(inputs, pads)


class ZeroPadding1D(_ZeroPadding, rank=1):
    """Pads the steps axis with zeros."""

    def __init__(self, padding=1, **kwargs) -> None:
        super().__init__(padding=padding, **kwargs)


class ZeroPadding2D(_ZeroPadding, rank=2):
    """Pads rows and columns with zeros."""


class ZeroPadding3D(_ZeroPadding, rank=3):
    """Pads the three spatial dimensions with zeros."""


class _Cropping(_EdgePairs):
    _arg = "cropping"
    _args_doc = """cropping: what is cut before and after each spatial axis: {size}, or {pairs}.
data_format: ``'channels_last'`` or ``'channels_first'``.
**kwargs: Layer arguments."""

    def __init__(self, cropping=1, data_format=None, **kwargs) -> None:
        super().__init__(cropping, data_format, **kwargs)

    def call(self, inputs) -> Tensor:
        dims = inputs.shape.as_list()
        index = [slice(None)] * len(dims)
        for axis, (a, b) in self._axis_pairs():
            if dims[axis] is not None and a + b >= dims[axis]:
                raise ValueError(f"{type(self).__name__}: cropping {self.cropping} leaves "
                                 f"nothing of inputs of shape {tuple(dims)}.")
            index[axis] = slice(a, -b if b else None)
        return inputs[tuple(index)]


class Cropping1D(_Cropping, rank=1):
    """Crops the steps axis."""

    def __init__(self, cropping=(1, 1), **kwargs) -> None:
        super().__init__(cropping=cropping, **kwargs)


class Cropping2D(_Cropping, rank=2):
    """Crops rows and columns."""

    def __init__(self, cropping=((0, 0), (0, 0)), data_format=None, **kwargs) -> None:
        super().__init__(cropping=cropping, data_format=data_format, **kwargs)


class Cropping3D(_Cropping, rank=3):
    """Crops the three spatial dimensions."""

    def __init__(self, cropping=((1, 1), (1, 1), (1, 1)), data_format=None, **kwargs) -> None:
        super().__init__(cropping=cropping, data_format=data_format, **kwargs)


class RepeatVector(Layer):
    """Repeats each sample ``n`` times: ``(N, F) -> (N, n, F)``.

    Args:
        n: the repeat count.
        **kwargs: Layer arguments.
    """

    def __init__(self, n: int, **kwargs) -> None:
        super().__init__(**kwargs)
        if isinstance(n, bool) or not isinstance(n, int):
            raise TypeError(f"Expected an integer value for `n`, got {type(n)}.")
        self.n = n

    def call(self, inputs) -> Tensor:
        if inputs.shape.rank != 2:
            raise ValueError(f"RepeatVector expects inputs of rank 2 (batch, features); got "
                             f"shape {inputs.shape}")
        return array_ops.tile(array_ops.expand_dims(inputs, 1), [1, self.n, 1])

    _config_keys = ("n",)


class Permute(Layer):
    """Permutes the non-batch axes: ``dims`` is 1-based (``(2, 1)`` swaps the first two).

    Args:
        dims: a permutation of ``1..rank-1``.
        **kwargs: Layer arguments.
    """

    def __init__(self, dims, **kwargs) -> None:
        super().__init__(**kwargs)
        self.dims = tuple(int(d) for d in dims)
        if sorted(self.dims) != list(range(1, len(self.dims) + 1)):
            raise ValueError(f"Invalid permutation argument `dims` for Permute Layer. The set "
                             f"of indices in `dims` must be consecutive and start from 1. "
                             f"Received dims={dims}")
        self.supports_masking = True

    def call(self, inputs) -> Tensor:
        if inputs.shape.rank is not None and inputs.shape.rank != len(self.dims) + 1:
            raise ValueError(f"Permute{self.dims} expects inputs of rank {len(self.dims) + 1};"
                             f" got shape {inputs.shape}")
        return array_ops.transpose(inputs, (0,) + self.dims)

    _config_keys = ("dims",)
