"""Colour augmentations of Keras 3 (its arguments, factor ranges and ``get_config`` keys):
Solarization, AutoContrast, Equalization, RandomHue, RandomSaturation, RandomSharpness,
RandomGaussianBlur, RandomColorJitter. They act while training (a direct call counts as
training) and pass images through at inference, except AutoContrast, which Keras applies
always. Random draws use the layer's ``seed`` (reproducible, not Keras' numbers)."""
from __future__ import annotations

from ....core import dtypes
from ....graph.tensor import Tensor
from ....ops import array_ops, math_ops, nn_ops, reduction_ops
from ....ops.image import color as _color
from ....ops.segment_ops import bincount
from ...declare import with_args
from .augment import Augmentation, RandomBrightness, RandomContrast


def unit_factor(factor, name: str, bounds=(0.0, 1.0)) -> tuple:
    """Keras' ``_set_factor``: a number f gives ``(max(-f, low), f)``, a pair is sorted; both
    must meet ``bounds``."""
    msg = (f"The `{name}` argument should be a number (or a list of two numbers) in the range "
           f"[{bounds[0]}, {bounds[1]}]. Received: {name}={factor}")
    if isinstance(factor, (tuple, list)):
        if len(factor) != 2 or factor[0] > bounds[1] or factor[1] < bounds[0]:
            raise ValueError(msg)
        return tuple(sorted(factor))
    if isinstance(factor, (int, float)) and not isinstance(factor, bool):
        if factor < bounds[0] or factor > bounds[1]:
            raise ValueError(msg)
        f = abs(factor)
        return (max(-f, bounds[0]), f)
    raise ValueError(msg)


def value_range_of(value_range) -> list:
    """A checked, sorted ``[low, high]``."""
    if not isinstance(value_range, (tuple, list)) or len(value_range) != 2:
        raise ValueError(f"The `value_range` argument should be a list of two numbers. "
                         f"Received: value_range={value_range}")
    return sorted(value_range)


def rescale(x: Tensor, src, dst) -> Tensor:
    """Maps values linearly from the range ``src`` to ``dst``."""
    if tuple(src) == tuple(dst):
        return x
    x = (x - float(src[0])) / (float(src[1]) - float(src[0]))
    return x * (float(dst[1]) - float(dst[0])) + float(dst[0])


def batch_of(x: Tensor) -> Tensor:
    """The batch size of a rank-4 batch (1 for one image) as a 1-vector."""
    return array_ops.shape(x)[:1] if x.shape.rank == 4 else array_ops.constant([1])


def per_image(v: Tensor, x: Tensor) -> Tensor:
    """A [batch] vector shaped to broadcast over ``x``'s (h, w, c)."""
    return array_ops.reshape(v, [-1, 1, 1, 1] if x.shape.rank == 4 else [1, 1, 1])


class Solarization(Augmentation):
    """Adds a random amount, then inverts values above a random threshold (both in
    [0, 255] units).

    Args:
        addition_factor: the upper bound (or a pair) of the addition, as a fraction of 255.
        threshold_factor: the upper bound (or a pair) of the threshold, as a fraction of 255.
        value_range: the images' (low, high).
        seed: the op seed.
        **kwargs: Layer arguments.
    """

    def __init__(self, addition_factor=0.0, threshold_factor=0.0, value_range=(0, 255),
                 seed=None, **kwargs) -> None:
        super().__init__(seed, kwargs.pop("data_format", None), **kwargs)
        self.addition_factor = _solar_factor(addition_factor, "addition_factor")
        self.threshold_factor = _solar_factor(threshold_factor, "threshold_factor")
        self.value_range = value_range_of(value_range)

    def augment(self, x: Tensor) -> Tensor:
        add = self._uniform(self._per_image(x), self.addition_factor[0],
                            self.addition_factor[1] * 255)
        thr = self._uniform(self._per_image(x), self.threshold_factor[0],
                            self.threshold_factor[1] * 255)
        v = math_ops.clip_by_value(rescale(x, self.value_range, (0, 255)) + add, 0.0, 255.0)
        v = math_ops.where(math_ops.less(v, thr), v, 255.0 - v)
        return rescale(v, (0, 255), self.value_range)

    _config_keys = ("data_format", "value_range", "addition_factor", "threshold_factor",
                    "seed")


def _solar_factor(factor, name: str) -> tuple:
    bad = ValueError(f"The `addition_factor` and `threshold_factor` arguments should be a "
                     f"number (or a list of two numbers) in the range [0, 1]. Received: "
                     f"{name}={factor}")
    vals = factor if isinstance(factor, (tuple, list)) else [factor]
    if len(vals) not in (1, 2) or any(not 0 <= float(v) <= 1 for v in vals):
        raise bad
    return tuple(sorted(vals)) if len(vals) == 2 else (0, factor)


class AutoContrast(Augmentation):
    """Stretches each image's channels to the full ``value_range`` (per image and channel:
    min to low, max to high). Applied at inference too, as in Keras.

    Args:
        value_range: the images' (low, high).
        **kwargs: Layer arguments.
    """

    def __init__(self, value_range=(0, 255), **kwargs) -> None:
        super().__init__(None, kwargs.pop("data_format", None), **kwargs)
        self.value_range = value_range_of(value_range)

    def call(self, inputs, training=True) -> Tensor:
        return super().call(inputs, training=True)

    def augment(self, x: Tensor) -> Tensor:
        v = rescale(x, self.value_range, (0, 255))
        low = reduction_ops.reduce_min(v, axis=[-3, -2], keepdims=True)
        high = reduction_ops.reduce_max(v, axis=[-3, -2], keepdims=True)
        scale = 255.0 / (high - low)
        out = math_ops.clip_by_value(v * scale - low * scale, 0.0, 255.0)
        out = rescale(out, (0, 255), self.value_range)
        return math_ops.where(math_ops.is_nan(out), x, out)

    _config_keys = ("data_format", "value_range")


class Equalization(Augmentation):
    """Histogram equalization of each channel (the histogram of a channel is taken over the
    whole batch, as in Keras).

    Args:
        value_range: the images' (low, high).
        bins: histogram bins.
        data_format: "channels_last" or "channels_first".
        **kwargs: Layer arguments.
    """

    def __init__(self, value_range=(0, 255), bins: int = 256, data_format=None,
                 **kwargs) -> None:
        super().__init__(None, data_format, **kwargs)
        self.bins = int(bins)
        self.value_range = value_range_of(value_range)

    def augment(self, x: Tensor) -> Tensor:
        chans = x.shape.as_list()[-1]
        return array_ops.stack([self._channel(x[..., i]) for i in range(chans)], -1)

    def _channel(self, c: Tensor) -> Tensor:
        c = rescale(c, self.value_range, (0, 255))
        nb = self.bins
        idx = math_ops.cast(c * ((nb - 1) / 255.0), "int32")
        idx = math_ops.minimum(math_ops.maximum(idx, 0), nb - 1)
        hist = bincount(array_ops.reshape(idx, [-1]), minlength=nb, maxlength=nb,
                        dtype=dtypes.int32)
        cdf = math_ops.cumsum(hist)
        nonzero = math_ops.cast(math_ops.greater(cdf, 0), "int32")
        cdf_min = array_ops.gather(cdf, reduction_ops.argmax(nonzero, 0))
        denom = cdf[-1] - cdf_min
        denom = math_ops.where(math_ops.equal(denom, 0), array_ops.ones_like(denom), denom)
        table = math_ops.cast((cdf - cdf_min) * 255, "float32") / math_ops.cast(denom,
                                                                              "float32")
        table = math_ops.clip_by_value(math_ops.round(table), 0.0, 255.0)
        pick = math_ops.cast(math_ops.clip_by_value(c / 255.0 * (nb - 1), 0.0, nb - 1.0),
                             "int32")
        eq = math_ops.cast(array_ops.gather(table, pick), c.dtype)
        few = math_ops.less_equal(reduction_ops.reduce_sum(
            math_ops.cast(math_ops.greater(hist, 0), "int32")), 1)
        return rescale(math_ops.where(few, c, eq), (0, 255), self.value_range)

    _config_keys = ("data_format", "bins", "value_range")


_COLOR_ARGS = {
    "value_range": "the images' (low, high).",
    "data_format": '"channels_last" or "channels_first".',
    "seed": "the op seed.",
    "**kwargs": "Layer arguments.",
}


class _ColorFactor(Augmentation):
    """A color augmentation of a strength drawn in ``factor`` (bounded by ``_bounds``), for
    images of ``value_range``."""

    _bounds = (0.0, 1.0)

    def __init__(self, factor, value_range=(0, 255), data_format=None, seed=None,
                 **kwargs) -> None:
        super().__init__(seed, data_format, **kwargs)
        self.factor = unit_factor(factor, "factor", self._bounds)
        self.value_range = value_range_of(value_range)

    _config_keys = ("data_format", "factor", "value_range", "seed")


@with_args(_COLOR_ARGS, factor="the upper bound (or a pair) of the shift, in [0, 1].")
class RandomHue(_ColorFactor):
    """Shifts the hue of each image by a random amount (half of a draw in ``factor``, with a
    random sign), in HSV space."""

    def augment(self, x: Tensor) -> Tensor:
        n = batch_of(x)
        sign = math_ops.where(math_ops.greater(self._uniform(n, 0.0, 1.0), 0.5), -1.0, 1.0)
        shift = per_image(sign * self._uniform(n, *self.factor) * 0.5, x)[..., 0]
        hsv = _color.rgb_to_hsv(rescale(x, self.value_range, (0, 1)))
        h = hsv[..., 0] + shift
        h = math_ops.where(math_ops.greater(h, 1.0), h - 1.0, h)
        h = math_ops.where(math_ops.less(h, 0.0), h + 1.0, h)
        rgb = _color.hsv_to_rgb(array_ops.stack([h, hsv[..., 1], hsv[..., 2]], -1))
        return rescale(math_ops.clip_by_value(rgb, 0.0, 1.0), (0, 1), self.value_range)


@with_args(_COLOR_ARGS, factor="a number f (range [-f, f]) or a pair, in [-1, 1].")
class RandomSaturation(_ColorFactor):
    """Scales the HSV saturation of each image by ``f / (1 - f)``, f drawn in ``factor``
    (f = 0.5 keeps the image; below, towards grey)."""

    _bounds = (-1.0, 1.0)

    def augment(self, x: Tensor) -> Tensor:
        f = self._uniform(batch_of(x), *self.factor)
        f = per_image(f / (1.0 - f + 1e-7), x)[..., 0]
        hsv = _color.rgb_to_hsv(x)
        s = math_ops.clip_by_value(hsv[..., 1] * f, float(self.value_range[0]),
                                   float(self.value_range[1]))
        return _color.hsv_to_rgb(array_ops.stack([hsv[..., 0], s, hsv[..., 2]], -1))


def _depthwise(x: Tensor, kernel: Tensor) -> Tensor:
    """A [kh, kw] kernel applied to every channel of an NHWC batch ('same' padding)."""
    chans = x.shape.as_list()[-1]
    k = array_ops.tile(array_ops.expand_dims(array_ops.expand_dims(kernel, -1), -1),
                       [1, 1, chans, 1])
    batched = x.shape.rank == 4
    y = nn_ops.depthwise_conv2d(x if batched else array_ops.expand_dims(x, 0),
                                math_ops.cast(k, x.dtype), [1, 1, 1, 1], "SAME")
    return y if batched else y[0]


@with_args(_COLOR_ARGS, factor="the upper bound (or a pair) of f, in [0, 1].")
class RandomSharpness(_ColorFactor):
    """Blends each image with a smoothed copy: weight ``1 - 2f`` on the difference, f drawn
    in ``factor`` (f = 0.5 keeps the image, larger sharpens)."""

    def augment(self, x: Tensor) -> Tensor:
        f = per_image(self._uniform(batch_of(x), *self.factor) * 2.0, x)
        a, b = 1.0 / 13.0, 5.0 / 13.0
        smooth = _depthwise(x, array_ops.constant([[a, a, a], [a, b, a], [a, a, a]],
                                                  dtypes.float32))
        out = x + (1.0 - f) * (smooth - x)
        return math_ops.clip_by_value(out, float(self.value_range[0]),
                                      float(self.value_range[1]))


def gaussian_kernel(size: int, sigma: Tensor) -> Tensor:
    """A normalized 1-D Gaussian of ``size`` taps with a tensor ``sigma``."""
    r = array_ops.constant([i - (size - 1) / 2.0 for i in range(size)], dtypes.float32)
    v = math_ops.exp(-(r * r) / (2.0 * sigma * sigma))
    return v / reduction_ops.reduce_sum(v)


def gaussian_blur(x: Tensor, kernel_size: tuple, sigma_y: Tensor, sigma_x: Tensor) -> Tensor:
    """Blurs an NHWC batch with a Gaussian of tensor sigmas (static kernel size)."""
    ky = gaussian_kernel(int(kernel_size[0]), sigma_y)
    kx = gaussian_kernel(int(kernel_size[1]), sigma_x)
    return _depthwise(x, array_ops.expand_dims(ky, 1) * array_ops.expand_dims(kx, 0))


class RandomGaussianBlur(Augmentation):
    """Blurs each image with probability drawn in ``factor`` (a Gaussian with sigmas drawn in
    ``sigma``, one pair per batch), then clips to ``value_range``.

    Args:
        factor: the upper bound (or a pair) of the blur probability, in [0, 1].
        kernel_size: an odd size (or a (height, width) pair of odd sizes).
        sigma: the upper bound (or a pair) of sigma.
        value_range: the images' (low, high).
        data_format: "channels_last" or "channels_first".
        seed: the op seed.
        **kwargs: Layer arguments.
    """

    def __init__(self, factor=1.0, kernel_size=3, sigma=1.0, value_range=(0, 255),
                 data_format=None, seed=None, **kwargs) -> None:
        super().__init__(seed, data_format, **kwargs)
        self.factor = unit_factor(factor, "factor")
        ks = tuple(kernel_size) if isinstance(kernel_size, (tuple, list)) else \
            (kernel_size, kernel_size)
        if len(ks) != 2 or any(int(k) % 2 == 0 for k in ks):
            raise ValueError(f"kernel_size must be an odd number. Received: "
                             f"kernel_size={kernel_size}")
        self.kernel_size = (int(ks[0]), int(ks[1]))
        self.sigma = unit_factor(sigma, "sigma")
        self.value_range = value_range

    def augment(self, x: Tensor) -> Tensor:
        n = batch_of(x)
        apply = math_ops.less(self._uniform(n, 0.0, 1.0), self._uniform(n, *self.factor))
        s = self._uniform([2], *self.sigma) + 1e-6
        blurred = gaussian_blur(x, self.kernel_size, s[0], s[1])
        out = math_ops.where(math_ops.logical_and(
            per_image(apply, x), array_ops.ones_like(x, dtype="bool")), blurred, x)
        return math_ops.clip_by_value(out, float(self.value_range[0]),
                                      float(self.value_range[1]))

    _config_keys = ("data_format", "factor", "kernel_size", "sigma", "value_range", "seed")


class RandomColorJitter(Augmentation):
    """RandomBrightness, RandomContrast, RandomSaturation and RandomHue in turn (each only
    when its factor is given).

    Args:
        value_range: the images' (low, high).
        brightness_factor: RandomBrightness' factor, or None.
        contrast_factor: RandomContrast's factor, or None.
        saturation_factor: RandomSaturation's factor, or None.
        hue_factor: RandomHue's factor, or None.
        seed: the op seed.
        data_format: "channels_last" or "channels_first".
        **kwargs: Layer arguments.
    """

    def __init__(self, value_range=(0, 255), brightness_factor=None, contrast_factor=None,
                 saturation_factor=None, hue_factor=None, seed=None, data_format=None,
                 **kwargs) -> None:
        super().__init__(seed, data_format, **kwargs)
        self.value_range = value_range
        self.brightness_factor, self.contrast_factor = brightness_factor, contrast_factor
        self.saturation_factor, self.hue_factor = saturation_factor, hue_factor
        self._parts = [cls(f, value_range=value_range, seed=seed)
                       for cls, f in ((RandomBrightness, brightness_factor),
                                      (RandomContrast, contrast_factor),
                                      (RandomSaturation, saturation_factor),
                                      (RandomHue, hue_factor)) if f is not None]

    def augment(self, x: Tensor) -> Tensor:
        for part in self._parts:
            x = part.augment(x)
        return x

    _config_keys = ("data_format", "value_range", "brightness_factor", "contrast_factor",
                    "saturation_factor", "hue_factor", "seed")
