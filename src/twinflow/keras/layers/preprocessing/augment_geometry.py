"""Geometric augmentations of Keras 3: RandomShear, RandomPerspective,
RandomElasticTransform, and the legacy RandomHeight / RandomWidth (output height or width
drawn at random). They act while training and pass images through at inference; random
draws use the layer's ``seed`` (reproducible, not Keras' numbers)."""
from __future__ import annotations

import numpy as np

from ....core import dtypes
from ....graph.tensor import Tensor
from ....ops import array_ops, math_ops, random_ops
from ....ops.image.resize import resize as _resize
from ....ops.script_ops import numpy_function
from ...declare import with_args
from ...ops import image as _kimage
from .affine import _INTERP, affine_transform, check_fill
from .augment import Augmentation, factor_range
from .augment_color import batch_of, gaussian_blur, per_image, unit_factor
from .image import hw


def _where_images(apply: Tensor, new: Tensor, old: Tensor) -> Tensor:
    return math_ops.where(math_ops.logical_and(per_image(apply, old),
                                               array_ops.ones_like(old, dtype="bool")), new, old)


def _batched(x: Tensor, fn) -> Tensor:
    """``fn`` on an NHWC batch (a single image is batched and unbatched around it)."""
    if x.shape.rank == 4:
        return fn(x)
    return fn(array_ops.expand_dims(x, 0))[0]


class RandomShear(Augmentation):
    """Shears each image along x and y by amounts drawn in ``x_factor`` / ``y_factor``
    (with a random sign), sampled as TensorFlow's ``ImageProjectiveTransformV3``.

    Args:
        x_factor: the upper bound (or a pair) of the x shear, in [0, 1].
        y_factor: the upper bound (or a pair) of the y shear, in [0, 1].
        interpolation: "nearest" or "bilinear".
        fill_mode: "reflect", "wrap", "constant" or "nearest".
        fill_value: the value outside the image for "constant".
        data_format: "channels_last" or "channels_first".
        seed: the op seed.
        **kwargs: Layer arguments.
    """

    def __init__(self, x_factor=0.0, y_factor=0.0, interpolation: str = "bilinear",
                 fill_mode: str = "reflect", fill_value: float = 0.0, data_format=None,
                 seed=None, **kwargs) -> None:
        super().__init__(seed, data_format, **kwargs)
        self.x_factor = _shear_factor(x_factor, "x_factor")
        self.y_factor = _shear_factor(y_factor, "y_factor")
        check_fill(self, fill_mode, interpolation, fill_value, NotImplementedError)

    def augment(self, x: Tensor) -> Tensor:
        n = batch_of(x)
        sign = math_ops.where(math_ops.greater(self._uniform(n, 0.0, 1.0), 0.5), -1.0, 1.0)
        sy = self._uniform(n, *self.y_factor) * sign
        sx = self._uniform(n, *self.x_factor) * sign
        one, zero = array_ops.ones_like(sx), array_ops.zeros_like(sx)
        t = array_ops.stack([one, sx, zero, sy, one, zero, zero, zero], 1)
        return _batched(x, lambda b: affine_transform(b, t, self.fill_mode, self.interpolation,
                                                      self.fill_value))

    _config_keys = ("data_format", "x_factor", "y_factor", "fill_mode", "interpolation",
                    "seed", "fill_value")


def _shear_factor(factor, name: str) -> tuple:
    if isinstance(factor, (tuple, list)):
        # a pair is in [0, 1] as given by users; -1 is allowed so that get_config's
        # (-f, f) makes the layer again (Keras 3.15's own round trip refuses it)
        return factor_range(factor, name, -1.0, 1.0)
    f = float(factor)
    if not 0.0 <= f <= 1.0:
        raise ValueError(f"The `factor` argument should be a number (or a list of two "
                         f"numbers) in the range [0, 1.0]. Received: {name}={factor}")
    return (-f, f)


class RandomPerspective(Augmentation):
    """Moves each image's corners by random fractions (up to ``scale / 2`` of the size) and
    warps the image to match, with probability drawn in ``factor``.

    Args:
        factor: the upper bound (or a pair) of the probability, in [0, 1].
        scale: how far the corners may move, in [0, 1].
        interpolation: "nearest" or "bilinear".
        fill_value: the value outside the image.
        seed: the op seed.
        data_format: "channels_last" or "channels_first".
        **kwargs: Layer arguments.
    """

    def __init__(self, factor=1.0, scale: float = 1.0, interpolation: str = "bilinear",
                 fill_value: float = 0.0, seed=None, data_format=None, **kwargs) -> None:
        super().__init__(seed, data_format, **kwargs)
        self.factor = unit_factor(factor, "factor")
        if not 0.0 <= scale <= 1.0:
            raise ValueError(f"The `scale` argument should be a number in the range [0,1]. "
                             f"Received: scale={scale}")
        if interpolation not in _INTERP:
            raise NotImplementedError(f"Unknown `interpolation` {interpolation}. Expected of "
                                      f"one {_INTERP}.")
        self.scale, self.fill_value, self.interpolation = scale, fill_value, interpolation

    def augment(self, x: Tensor) -> Tensor:
        h, w = hw(x, "RandomPerspective")
        n = batch_of(x)
        apply = math_ops.less(self._uniform(n, 0.0, 1.0), self._uniform(n, *self.factor))
        jitter = self._uniform(array_ops.concat([n, [4, 2]], 0), -0.5 * self.scale,
                               0.5 * self.scale)
        start = array_ops.constant([[[0.0, 0.0], [w - 1.0, 0.0], [0.0, h - 1.0],
                                     [w - 1.0, h - 1.0]]], dtypes.float32)
        start = start + array_ops.zeros_like(jitter)
        end = start + start * jitter
        warped = _batched(x, lambda b: _kimage.perspective_transform(
            b, start, end, self.interpolation, self.fill_value))
        return _where_images(apply, warped, x)

    _config_keys = ("data_format", "factor", "scale", "interpolation", "fill_value", "seed")


class RandomElasticTransform(Augmentation):
    """Displaces every pixel by smoothed Gaussian noise (strength ``0.1 * f * max(h, w)``,
    smoothing ``0.05 * f * min(h, w)``, f drawn in ``scale``), with probability drawn in
    ``factor``; then clips to ``value_range``.

    Args:
        factor: the upper bound (or a pair) of the probability, in [0, 1].
        scale: the upper bound (or a pair) of the distortion f, in [0, 1].
        interpolation: "nearest" or "bilinear".
        fill_mode: "constant", "nearest", "wrap", "mirror" or "reflect".
        fill_value: the value outside the image for "constant".
        value_range: the images' (low, high).
        seed: the op seed.
        data_format: "channels_last" or "channels_first".
        **kwargs: Layer arguments.
    """

    _MODES = ("constant", "nearest", "wrap", "mirror", "reflect")

    def __init__(self, factor=1.0, scale=1.0, interpolation: str = "bilinear",
                 fill_mode: str = "reflect", fill_value: float = 0.0, value_range=(0, 255),
                 seed=None, data_format=None, **kwargs) -> None:
        super().__init__(seed, data_format, **kwargs)
        self.factor = unit_factor(factor, "factor")
        self.scale = unit_factor(scale, "scale")
        if interpolation not in _INTERP:
            raise NotImplementedError(f"Unknown `interpolation` {interpolation}. Expected of "
                                      f"one {_INTERP}.")
        if fill_mode not in self._MODES:
            raise NotImplementedError(f"Unknown `fill_mode` {fill_mode}. Expected of one "
                                      f"{self._MODES}.")
        self.interpolation, self.fill_mode = interpolation, fill_mode
        self.fill_value, self.value_range = fill_value, value_range

    def augment(self, x: Tensor) -> Tensor:
        if self.scale[1] == 0 or self.factor[1] == 0:
            return x
        return _batched(x, self._warp)

    def _warp(self, b: Tensor) -> Tensor:
        _, h, w, c = b.shape.as_list()
        n = array_ops.shape(b)[:1]
        apply = math_ops.less(self._uniform(n, 0.0, 1.0), self._uniform(n, *self.factor))
        f = self._uniform([], *self.scale)
        alpha, sigma = max(h, w) * 0.1 * f, min(h, w) * 0.05 * f + 1e-6
        # The kernel size follows the largest sigma the scale allows (it must be static).
        size = int(6 * min(h, w) * 0.05 * self.scale[1]) | 1
        noise_shape = array_ops.concat([n, [h, w, 1]], 0)

        def field():
            d = array_ops.reshape(random_ops.random_normal(noise_shape, seed=self.seed),
                                  [-1, h, w, 1])
            return gaussian_blur(d, (size, size), sigma, sigma)[..., 0]
        dx, dy = field(), field()
        ys, xs = np.meshgrid(np.arange(h, dtype=np.float32), np.arange(w, dtype=np.float32),
                             indexing="ij")
        py = array_ops.constant(ys) + alpha * dy
        px = array_ops.constant(xs) + alpha * dx
        order = 1 if self.interpolation == "bilinear" else 0
        warped = sample(b, py, px, order, self.fill_mode, self.fill_value)
        out = _where_images(apply, warped, b)
        return math_ops.clip_by_value(out, float(self.value_range[0]),
                                      float(self.value_range[1]))

    _config_keys = ("data_format", "factor", "scale", "interpolation", "fill_mode",
                    "fill_value", "value_range", "seed")


def sample(b: Tensor, py: Tensor, px: Tensor, order: int, fill_mode: str,
           fill_value: float) -> Tensor:
    """``b[i, py, px, :]`` for an NHWC batch and [batch, h, w] coordinates: nearest
    (order 0) or bilinear (order 1), out-of-range coordinates folded by ``fill_mode`` as
    ``keras.ops.image.map_coordinates`` does ("constant": ``fill_value`` outside)."""
    _, h, w, _ = b.shape.as_list()
    if fill_mode != "constant":
        py, px = _kimage._fold(py, h, fill_mode), _kimage._fold(px, w, fill_mode)
    n = array_ops.shape(b)[0]
    bi = array_ops.reshape(array_ops.range(n), [-1, 1, 1]) + \
        array_ops.zeros_like(py, dtype="int32")

    def read(y: Tensor, x: Tensor) -> Tensor:
        ok = math_ops.logical_and(
            math_ops.logical_and(math_ops.greater_equal(y, 0.0), math_ops.less(y, float(h))),
            math_ops.logical_and(math_ops.greater_equal(x, 0.0), math_ops.less(x, float(w))))
        yi = math_ops.cast(math_ops.minimum(math_ops.maximum(y, 0.0), h - 1.0), "int32")
        xi = math_ops.cast(math_ops.minimum(math_ops.maximum(x, 0.0), w - 1.0), "int32")
        v = array_ops.gather_nd(b, array_ops.stack([bi, yi, xi], -1))
        return math_ops.where(math_ops.logical_and(array_ops.expand_dims(ok, -1),
                                                   array_ops.ones_like(v, dtype="bool")),
                              v, float(fill_value) + array_ops.zeros_like(v))
    if order == 0:
        return read(math_ops.floor(py + 0.5), math_ops.floor(px + 0.5))
    y0, x0 = math_ops.floor(py), math_ops.floor(px)
    wy, wx = array_ops.expand_dims(py - y0, -1), array_ops.expand_dims(px - x0, -1)
    return (read(y0, x0) * (1 - wy) * (1 - wx) + read(y0, x0 + 1) * (1 - wy) * wx +
            read(y0 + 1, x0) * wy * (1 - wx) + read(y0 + 1, x0 + 1) * wy * wx)


class _RandomSide(Augmentation):
    """Resizes one side of the images by a random factor in ``[1 + lower, 1 + upper]``."""

    _axis = -3

    def __init__(self, factor, interpolation: str = "bilinear", seed=None,
                 **kwargs) -> None:
        super().__init__(seed, None, **kwargs)
        lo, hi = (factor if isinstance(factor, (tuple, list)) else (-factor, factor))
        if hi < lo:
            raise ValueError(f"`factor` argument cannot have an upper bound lesser than the "
                             f"lower bound. Received: factor={factor}")
        if lo < -1.0 or hi < -1.0:
            raise ValueError(f"`factor` argument must have values larger than -1. Received: "
                             f"factor={factor}")
        self.factor, self._range = factor, (float(lo), float(hi))
        self.interpolation = interpolation

    def augment(self, x: Tensor) -> Tensor:
        f = self._uniform([], 1.0 + self._range[0], 1.0 + self._range[1])
        h, w = hw(x, type(self).__name__)
        side = h if self._axis == -3 else w
        new = math_ops.cast(f * float(side), "int32")
        method, dtype = self.interpolation, self._tw_dtype

        def run(images: np.ndarray, size: np.ndarray) -> np.ndarray:
            target = (int(size), w) if self._axis == -3 else (h, int(size))
            return np.asarray(_resize(images, target, method=method).numpy(), dtype.np)
        out = numpy_function(run, [x, new], dtype)
        dims = x.shape.as_list()
        dims[self._axis] = None
        return array_ops.reshape(out, [(-1 if d is None else d) for d in dims]) \
            if dims.count(None) <= 1 else out

    def compute_output_shape(self, input_shape) -> tuple:
        shape = list(input_shape)
        shape[self._axis] = None
        return tuple(shape)

    _config_keys = ("factor", "interpolation", "seed")


_SIDE_ARGS = {"factor": "f (``[-f, f]``) or a (lower, upper) pair, each above -1.",
              "interpolation": "the ``tw.image.resize`` method.", "seed": "the op seed.",
              "**kwargs": "Layer arguments."}


@with_args(_SIDE_ARGS)
class RandomHeight(_RandomSide):
    """Resizes the images' height by a factor drawn in ``[1 + lower, 1 + upper]`` (Keras'
    legacy layer; the output height is unknown until the call)."""


@with_args(_SIDE_ARGS)
class RandomWidth(_RandomSide):
    """Resizes the images' width by a factor drawn in ``[1 + lower, 1 + upper]`` (Keras'
    legacy layer; the output width is unknown until the call)."""

    _axis = -2
