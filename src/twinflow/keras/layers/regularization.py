"""Regularization layers: SpatialDropout1D/2D/3D, GaussianNoise, GaussianDropout, AlphaDropout,
ActivityRegularization. The random ones act only while training."""
from __future__ import annotations

import math

from ...graph.tensor import Tensor
from ...ops import array_ops, math_ops, nn_ops, random_ops
from .. import regularizers as _regularizers
from .base import Layer
from .core import fraction
from .ranked import Ranked
from .reshaping import _data_format


class _SpatialDropout(Ranked, Layer):
    _args_doc = """rate: the fraction of channels dropped.
data_format: ``'channels_last'`` or ``'channels_first'``.
seed: the op seed.
**kwargs: Layer arguments."""

    def __init__(self, rate: float, data_format=None, seed=None, **kwargs) -> None:
        super().__init__(**kwargs)
        self.rate = fraction("rate", rate, one_allowed=False)
        self.seed = seed
        self.data_format = _data_format(data_format) if self._rank > 1 else "channels_last"
        self.supports_masking = True

    def call(self, inputs, training=None) -> Tensor:
        if not training or self.rate == 0:
            return array_ops.identity(inputs)
        if inputs.shape.rank != self._rank + 2:
            raise ValueError(f"{type(self).__name__} expects inputs of rank "
                             f"{self._rank + 2}; got shape {inputs.shape}")
        shape = array_ops.shape(inputs)
        ones = [1] * self._rank
        if self.data_format == "channels_last":
            noise = array_ops.concat([shape[:1], ones, shape[-1:]], axis=0)
        else:
            noise = array_ops.concat([shape[:2], ones], axis=0)
        return nn_ops.dropout(inputs, rate=self.rate, noise_shape=noise, seed=self.seed)

    def get_config(self) -> dict:
        cfg = super().get_config()
        cfg.update(rate=self.rate, seed=self.seed)
        if self._rank > 1:
            cfg["data_format"] = self.data_format
        return cfg


class SpatialDropout1D(_SpatialDropout, rank=1):
    """Drops whole channels of ``(N, steps, C)`` inputs while training."""

    def __init__(self, rate: float, seed=None, **kwargs) -> None:
        super().__init__(rate, seed=seed, **kwargs)


class SpatialDropout2D(_SpatialDropout, rank=2):
    """Drops whole feature maps of ``(N, H, W, C)`` inputs while training."""


class SpatialDropout3D(_SpatialDropout, rank=3):
    """Drops whole feature volumes of ``(N, D, H, W, C)`` inputs while training."""


class GaussianNoise(Layer):
    """Adds zero-mean Gaussian noise of standard deviation ``stddev`` while training.

    Args:
        stddev: the noise's standard deviation.
        seed: the op seed.
        **kwargs: Layer arguments.
    """

    def __init__(self, stddev: float, seed=None, **kwargs) -> None:
        super().__init__(**kwargs)
        if stddev < 0:
            raise ValueError(f"Invalid value received for argument `stddev`. Expected a float "
                             f"value >= 0. Received: stddev={stddev}")
        self.stddev = float(stddev)
        self.seed = seed
        self.supports_masking = True

    def call(self, inputs, training=None) -> Tensor:
        if not training or self.stddev == 0:
            return array_ops.identity(inputs)
        return inputs + random_ops.random_normal(array_ops.shape(inputs), stddev=self.stddev,
                                                 dtype=inputs.dtype, seed=self.seed)

    _config_keys = ("stddev", "seed")


class GaussianDropout(Layer):
    """Multiplies by Gaussian noise of mean 1 and variance ``rate / (1 - rate)`` while training.

    Args:
        rate: the equivalent drop probability.
        seed: the op seed.
        **kwargs: Layer arguments.
    """

    def __init__(self, rate: float, seed=None, **kwargs) -> None:
        super().__init__(**kwargs)
        self.rate = fraction("rate", rate, one_allowed=False)
        self.seed = seed
        self.supports_masking = True

    def call(self, inputs, training=None) -> Tensor:
        if not training or self.rate == 0:
            return array_ops.identity(inputs)
        stddev = math.sqrt(self.rate / (1.0 - self.rate))
        return inputs * random_ops.random_normal(array_ops.shape(inputs), mean=1.0,
                                                 stddev=stddev, dtype=inputs.dtype,
                                                 seed=self.seed)

    _config_keys = ("rate", "seed")


class AlphaDropout(Layer):
    """Dropout that keeps SELU's self-normalization: dropped units are set to SELU's negative
    saturation, then an affine map restores the mean and variance (while training).

    Args:
        rate: the drop probability.
        noise_shape: the shape of the keep mask (broadcast to the input).
        seed: the op seed.
        **kwargs: Layer arguments.
    """

    def __init__(self, rate: float, noise_shape=None, seed=None, **kwargs) -> None:
        super().__init__(**kwargs)
        self.rate = fraction("rate", rate, one_allowed=False)
        self.noise_shape = noise_shape
        self.seed = seed
        self.supports_masking = True

    def call(self, inputs, training=None) -> Tensor:
        if not training or self.rate == 0:
            return array_ops.identity(inputs)
        alpha_p = -1.6732632423543772848170429916717 * 1.0507009873554804934193349852946
        shape = array_ops.shape(inputs) if self.noise_shape is None else self.noise_shape
        kept = math_ops.cast(math_ops.greater_equal(
            random_ops.random_uniform(shape, dtype=inputs.dtype, seed=self.seed), self.rate),
            inputs.dtype)
        a = ((1 - self.rate) * (1 + self.rate * alpha_p ** 2)) ** -0.5
        b = -a * alpha_p * self.rate
        return a * (inputs * kept + alpha_p * (1 - kept)) + b

    _config_keys = ("rate", "noise_shape", "seed")


class ActivityRegularization(Layer):
    """Passes its input through and adds ``l1 * sum|x| + l2 * sum x^2`` to the losses.

    Args:
        l1: the L1 factor.
        l2: the L2 factor.
        **kwargs: Layer arguments.
    """

    def __init__(self, l1: float = 0.0, l2: float = 0.0, **kwargs) -> None:
        super().__init__(**kwargs)
        self.l1 = float(l1)
        self.l2 = float(l2)
        self.supports_masking = True

    def call(self, inputs) -> Tensor:
        if self.l1 or self.l2:
            penalty = _regularizers.L1L2(self.l1, self.l2)(inputs)
            batch = math_ops.cast(array_ops.shape(inputs)[0], inputs.dtype)
            self.add_loss(penalty / batch)
        return array_ops.identity(inputs)

    _config_keys = ("l1", "l2")
