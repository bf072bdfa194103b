"""Image augmentation layers that act while training (a direct call counts as training, as in
Keras 3) and pass images through at inference: RandomFlip, RandomCrop, RandomContrast,
RandomBrightness (and, in ``affine.py``, RandomRotation, RandomZoom, RandomTranslation).
Random numbers come from stateful random ops seeded with ``seed``: reproducible with a seed,
not the same numbers as Keras' generator."""
from __future__ import annotations

import numpy as np

from ....graph.tensor import Tensor
from ....ops import array_ops, math_ops, random_ops, reduction_ops
from ....ops.math.comparison import where
from ..reshaping import _data_format as _fmt
from .base import PreprocessingLayer
from .image import aspect_crop, from_last, hw, resize_as_keras, to_last


def factor_range(factor, name: str, low: float = -1.0, high: float = 1.0) -> tuple:
    """``factor`` as a (lower, upper) pair (a number f gives (-f, f)), checked to lie in
    [low, high]."""
    if isinstance(factor, (tuple, list)):
        if len(factor) != 2:
            raise ValueError(f"The `{name}` argument should be a number or a tuple of two "
                             f"numbers. Received: {name}={factor}")
        lo, hi = float(factor[0]), float(factor[1])
    else:
        lo, hi = -abs(float(factor)), abs(float(factor))
    if not (low <= lo <= high and low <= hi <= high) or lo > hi:
        raise ValueError(f"The `{name}` argument should be in [{low}, {high}] with lower <= "
                         f"upper. Received: {name}={factor}")
    return lo, hi


class Augmentation(PreprocessingLayer):
    """An augmentation layer: ``call`` transforms channels_last images while training.

    Args:
        seed: the op seed of the random draws.
        data_format: "channels_last" or "channels_first".
        **kwargs: Layer arguments.
    """

    def __init__(self, seed=None, data_format=None, **kwargs) -> None:
        super().__init__(**kwargs)
        self.seed = seed
        self.data_format = _fmt(data_format)

    def _uniform(self, shape, lo: float, hi: float) -> Tensor:
        """Uniform draws in [lo, hi) with the layer's seed."""
        return random_ops.random_uniform(shape, lo, hi, seed=self.seed)

    def _per_image(self, x: Tensor) -> list:
        """The shape of one draw per image, broadcasting over (h, w, c)."""
        return [1, 1, 1] if x.shape.rank == 3 else \
            array_ops.concat([array_ops.shape(x)[:1], [1, 1, 1]], 0)

    def call(self, inputs, training=True) -> Tensor:
        x = inputs
        if not x.dtype.is_floating or x.dtype != self._tw_dtype:
            x = math_ops.cast(x, self._tw_dtype)
        if not training:
            return x
        hw(to_last(x, self.data_format), type(self).__name__)
        return from_last(self.augment(to_last(x, self.data_format)), self.data_format)

    def augment(self, x: Tensor) -> Tensor:
        """The transformed channels_last images.

        Args:
            x: channels_last images (rank 3 or 4).

        Returns:
            The images.
        """
        raise NotImplementedError

    _config_keys = ("data_format", "seed")


class RandomFlip(Augmentation):
    """Flips each image left-right and/or up-down with probability 1/2.

    Args:
        mode: "horizontal", "vertical" or "horizontal_and_vertical".
        seed: the op seed.
        data_format: "channels_last" or "channels_first".
        **kwargs: Layer arguments.
    """

    def __init__(self, mode: str = "horizontal_and_vertical", seed=None, data_format=None,
                 **kwargs) -> None:
        super().__init__(seed, data_format, **kwargs)
        if mode not in ("horizontal", "vertical", "horizontal_and_vertical"):
            raise ValueError(f"RandomFlip layer {self.name} received an unknown mode "
                             f"argument {mode}")
        self.mode = mode

    def augment(self, x: Tensor) -> Tensor:
        flips = math_ops.less_equal(self._uniform(self._per_image(x), 0.0, 1.0), 0.5)
        flips = math_ops.logical_and(flips, array_ops.ones_like(x, dtype="bool"))
        if self.mode in ("horizontal", "horizontal_and_vertical"):
            x = where(flips, array_ops.reverse(x, [-2]), x)
        if self.mode in ("vertical", "horizontal_and_vertical"):
            x = where(flips, array_ops.reverse(x, [-3]), x)
        return x

    _config_keys = Augmentation._config_keys + ("mode",)


class RandomCrop(Augmentation):
    """Crops a random ``height``×``width`` window while training (one offset per batch); a
    smaller image is cropped to the target aspect ratio and resized (as Keras).

    Args:
        height: the output height.
        width: the output width.
        seed: the op seed.
        data_format: "channels_last" or "channels_first".
        **kwargs: Layer arguments.
    """

    def __init__(self, height: int, width: int, seed=None, data_format=None,
                 **kwargs) -> None:
        super().__init__(seed, data_format, **kwargs)
        self.height, self.width = int(height), int(width)

    def augment(self, x: Tensor) -> Tensor:
        h, w = hw(x, "RandomCrop")
        if h > self.height and w > self.width:
            top = math_ops.cast(self._uniform([], 0.0, float(h - self.height + 1)), "int32")
            left = math_ops.cast(self._uniform([], 0.0, float(w - self.width + 1)), "int32")
            begin = [top, left, 0] if x.shape.rank == 3 else [0, top, left, 0]
            size = [self.height, self.width, -1] if x.shape.rank == 3 else \
                [-1, self.height, self.width, -1]
            return array_ops.slice(x, array_ops.stack(begin), size)
        y = aspect_crop(x, self.height, self.width)
        if hw(y, "RandomCrop") != (self.height, self.width):
            y = resize_as_keras(y, self.height, self.width, "bilinear", False, self._tw_dtype)
        return y

    _config_keys = Augmentation._config_keys + ("height", "width")


class RandomContrast(Augmentation):
    """Scales each image's deviation from its per-channel mean by a random factor in
    ``[1 - lower, 1 + upper]``, then clips to ``value_range``.

    Args:
        factor: a number f (lower = upper = f) or (lower, upper), in [0, 1].
        value_range: the (min, max) pixel range.
        seed: the op seed.
        data_format: "channels_last" or "channels_first".
        **kwargs: Layer arguments.
    """

    def __init__(self, factor, value_range=(0, 255), seed=None, data_format=None,
                 **kwargs) -> None:
        super().__init__(seed, data_format, **kwargs)
        if isinstance(factor, (tuple, list)):
            lo, hi = factor_range(factor, "factor", 0.0, 1.0)
        else:
            lo = hi = float(factor)
            factor_range((lo, hi), "factor", 0.0, 1.0)
        self.factor = factor
        self._range = (lo, hi)
        self.value_range = value_range

    def augment(self, x: Tensor) -> Tensor:
        lo, hi = self._range
        f = self._uniform(self._per_image(x), 1.0 - lo, 1.0 + hi)
        mean = reduction_ops.reduce_mean(x, axis=[-3, -2], keepdims=True)
        out = (x - mean) * f + mean
        return math_ops.clip_by_value(out, float(self.value_range[0]),
                                      float(self.value_range[1]))

    _config_keys = Augmentation._config_keys + ("factor", "value_range")


class RandomBrightness(Augmentation):
    """Adds a random delta in ``factor * (max - min)`` of ``value_range`` to each image, then
    clips to ``value_range``.

    Args:
        factor: a number f in [0, 1] (delta fraction in [-f, f]) or (lower, upper) in [-1, 1].
        value_range: the (min, max) pixel range.
        seed: the op seed.
        data_format: "channels_last" or "channels_first".
        **kwargs: Layer arguments.
    """

    def __init__(self, factor, value_range=(0, 255), seed=None, data_format=None,
                 **kwargs) -> None:
        super().__init__(seed, data_format, **kwargs)
        self._range = factor_range(factor, "factor")
        self.factor = factor
        if len(value_range) != 2:
            raise ValueError(f"The `value_range` argument should be a list of two numbers. "
                             f"Received: value_range={value_range}")
        self.value_range = sorted(value_range)

    def augment(self, x: Tensor) -> Tensor:
        lo, hi = self._range
        span = float(self.value_range[1] - self.value_range[0])
        delta = self._uniform(self._per_image(x), lo, hi) * np.float32(span)
        return math_ops.clip_by_value(x + delta, float(self.value_range[0]),
                                      float(self.value_range[1]))

    _config_keys = Augmentation._config_keys + ("factor", "value_range")
