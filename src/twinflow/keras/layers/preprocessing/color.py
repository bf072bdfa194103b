"""Colour augmentations that act while training (pass-through at inference, as the other
augmentation layers): RandomGrayscale, RandomInvert, RandomPosterization,
RandomColorDegeneration. Images are float, in ``value_range`` where the layer takes one;
draws use the layer's ``seed`` (reproducible, not Keras' numbers)."""
from __future__ import annotations

from ....graph.tensor import Tensor
from ....ops import array_ops, math_ops
from ....ops.image import color as _color
from .augment import Augmentation


def _gray3(x: Tensor) -> Tensor:
    """Luma (ITU-R 601), repeated over the three channels."""
    if x.shape.as_list()[-1] != 3:
        raise ValueError(f"Expected 3 colour channels (RGB), got images of shape {x.shape}")
    return array_ops.tile(_color.rgb_to_grayscale(x), [1] * (x.shape.rank - 1) + [3])


def _probability(factor, name: str) -> float:
    f = float(factor)
    if not 0.0 <= f <= 1.0:
        raise ValueError(f"The `{name}` argument must be in [0, 1]. Received: {name}={factor}")
    return f


def _value_range(value_range) -> tuple:
    lo, hi = (float(v) for v in value_range)
    if lo >= hi:
        raise ValueError(f"value_range must be (low, high) with low < high, got {value_range}")
    return lo, hi


class RandomGrayscale(Augmentation):
    """Turns each image grey (the same luma in all three channels) with probability
    ``factor``.

    Args:
        factor: the probability, in [0, 1].
        data_format: "channels_last" or "channels_first".
        seed: the op seed.
        **kwargs: Layer arguments.
    """

    def __init__(self, factor: float = 0.5, data_format=None, seed=None, **kwargs) -> None:
        super().__init__(seed, data_format, **kwargs)
        self.factor = _probability(factor, "factor")

    def augment(self, x: Tensor) -> Tensor:
        pick = math_ops.less(self._uniform(self._per_image(x), 0.0, 1.0), self.factor)
        return math_ops.where(math_ops.logical_and(pick, array_ops.ones_like(x, dtype="bool")),
                              _gray3(x), x)

    _config_keys = Augmentation._config_keys + ("factor",)


class RandomInvert(Augmentation):
    """Inverts each image (``low + high - x``) with probability ``factor``.

    Args:
        factor: the probability, in [0, 1].
        value_range: the images' (low, high).
        seed: the op seed.
        data_format: "channels_last" or "channels_first".
        **kwargs: Layer arguments.
    """

    def __init__(self, factor: float = 1.0, value_range=(0, 255), seed=None, data_format=None,
                 **kwargs) -> None:
        super().__init__(seed, data_format, **kwargs)
        self.factor = _probability(factor, "factor")
        self.value_range = _value_range(value_range)

    def augment(self, x: Tensor) -> Tensor:
        pick = math_ops.less(self._uniform(self._per_image(x), 0.0, 1.0), self.factor)
        lo, hi = self.value_range
        return math_ops.where(math_ops.logical_and(pick, array_ops.ones_like(x, dtype="bool")),
                              (lo + hi) - x, x)

    _config_keys = Augmentation._config_keys + ("factor", "value_range")


class RandomPosterization(Augmentation):
    """Keeps only the top ``b`` bits of each 8-bit colour value, ``b`` drawn per image in
    ``[factor, 8]``.

    Args:
        factor: the fewest bits kept, in [1, 8].
        value_range: the images' (low, high); values are mapped to [0, 255] and back.
        seed: the op seed.
        data_format: "channels_last" or "channels_first".
        **kwargs: Layer arguments.
    """

    def __init__(self, factor: int, value_range=(0, 255), seed=None, data_format=None,
                 **kwargs) -> None:
        super().__init__(seed, data_format, **kwargs)
        if not 1 <= int(factor) <= 8:
            raise ValueError(f"The `factor` argument must be in [1, 8]. Received: {factor}")
        self.factor = int(factor)
        self.value_range = _value_range(value_range)

    def augment(self, x: Tensor) -> Tensor:
        lo, hi = self.value_range
        bits = math_ops.floor(self._uniform(self._per_image(x), float(self.factor), 9.0))
        step = math_ops.pow(2.0, 8.0 - bits)
        v = math_ops.clip_by_value((x - lo) * (255.0 / (hi - lo)), 0.0, 255.0)
        v = math_ops.floor(v / step) * step
        return v * ((hi - lo) / 255.0) + lo

    _config_keys = Augmentation._config_keys + ("factor", "value_range")


class RandomColorDegeneration(Augmentation):
    """Blends each image toward its greyscale version by a weight drawn in ``factor``.

    Args:
        factor: the upper bound (or a (low, high) pair) of the blend weight, in [0, 1].
        value_range: the images' (low, high), kept.
        data_format: "channels_last" or "channels_first".
        seed: the op seed.
        **kwargs: Layer arguments.
    """

    def __init__(self, factor, value_range=(0, 255), data_format=None, seed=None,
                 **kwargs) -> None:
        super().__init__(seed, data_format, **kwargs)
        lo, hi = (factor if isinstance(factor, (tuple, list)) else (0.0, factor))
        self.factor = (_probability(lo, "factor"), _probability(hi, "factor"))
        self.value_range = _value_range(value_range)

    def augment(self, x: Tensor) -> Tensor:
        w = self._uniform(self._per_image(x), self.factor[0], self.factor[1])
        out = x * (1.0 - w) + _gray3(x) * w
        return math_ops.clip_by_value(out, *self.value_range)

    _config_keys = Augmentation._config_keys + ("factor", "value_range")
