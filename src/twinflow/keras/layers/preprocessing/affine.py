"""Affine augmentation: TensorFlow's ``ImageProjectiveTransformV3`` kernel (its coordinate
mapping for the reflect / wrap / constant / nearest fill modes, its bilinear and nearest
sampling), and RandomRotation, RandomZoom, RandomTranslation with Keras 3's matrices."""
from __future__ import annotations

import math

import numpy as np

from ....core import dtypes
from ....core.errors import InvalidArgumentError
from ....core.shapes import TensorShape
from ....eager.execute import bind, constant_value
from ....graph.registry import register_op
from ....graph.tensor import Tensor
from ....ops import array_ops, math_ops
from .augment import Augmentation, factor_range
from .image import hw

_FILL = ("reflect", "wrap", "constant", "nearest")
_INTERP = ("nearest", "bilinear")


def check_fill(layer, fill_mode: str, interpolation: str, fill_value: float,
               error: type = ValueError) -> None:
    """Sets ``layer``'s ``fill_mode``, ``interpolation`` and ``fill_value`` for
    ``affine_transform``, refusing modes it lacks with ``error`` (Keras raises ValueError,
    NotImplementedError in RandomShear)."""
    if fill_mode not in _FILL:
        raise error(f"Unknown `fill_mode` {fill_mode}. Expected of one {list(_FILL)}.")
    if interpolation not in _INTERP:
        raise error(f"Unknown `interpolation` {interpolation}. Expected of one "
                    f"{list(_INTERP)}.")
    layer.fill_mode, layer.interpolation, layer.fill_value = fill_mode, interpolation, fill_value


def _map_coord(c: np.ndarray, n: int, mode: str) -> np.ndarray:
    """TensorFlow's MapCoordinate: out-of-range input coordinates folded back by ``mode``."""
    if mode == "constant":
        return c
    if n <= 1:
        return np.zeros_like(c)
    if mode == "nearest":
        return np.clip(c, 0, n - 1)
    c = c.copy()
    if mode == "reflect":
        sz2 = 2 * n
        lo, hi = c < 0, c > n - 1
        v = c[lo]
        v = np.where(v < -sz2, sz2 * np.trunc(-v / sz2) + v, v)
        c[lo] = np.where(v < -n, v + sz2, -v - 1)
        v = c[hi]
        v = np.where(v >= sz2, v - sz2 * np.trunc(v / sz2), v)
        c[hi] = np.where(v >= n, sz2 - v - 1, v)
    else:  # wrap
        sz = n - 1
        lo, hi = c < 0, c > n - 1  # one or the other, from the original coordinate
        c[lo] += n * (np.trunc(-c[lo] / sz) + 1)
        c[hi] -= n * np.trunc(c[hi] / sz)
    return np.clip(c, 0, n - 1)


def _read(img: np.ndarray, y: np.ndarray, x: np.ndarray, fill: float) -> np.ndarray:
    """``img[y, x]`` (per channel), ``fill`` where (y, x) is outside the image."""
    h, w = img.shape[:2]
    yi, xi = y.astype(np.int64), x.astype(np.int64)
    ok = (yi >= 0) & (yi < h) & (xi >= 0) & (xi < w)
    out = img[np.clip(yi, 0, h - 1), np.clip(xi, 0, w - 1)].astype(np.float64)
    out[~ok] = fill
    return out


def project(images: np.ndarray, transforms: np.ndarray, out_hw, fill: float,
            interpolation: str, fill_mode: str) -> np.ndarray:
    """The NumPy kernel: each output pixel (x, y) samples the input at the transform's
    ``((a0 x + a1 y + a2) / k, (b0 x + b1 y + b2) / k)``, ``k = c0 x + c1 y + 1``."""
    n, h, w, ch = images.shape
    oh, ow = out_hw
    ys, xs = np.meshgrid(np.arange(oh, dtype=np.float64), np.arange(ow, dtype=np.float64),
                         indexing="ij")
    out = np.empty((n, oh, ow, ch), np.float64)
    for b in range(n):
        t = transforms[b if len(transforms) > 1 else 0].astype(np.float64)
        k = t[6] * xs + t[7] * ys + 1.0
        zero = k == 0
        k = np.where(zero, 1.0, k)
        x = _map_coord((t[0] * xs + t[1] * ys + t[2]) / k, w, fill_mode)
        y = _map_coord((t[3] * xs + t[4] * ys + t[5]) / k, h, fill_mode)
        img = images[b]
        if interpolation == "nearest":
            # std::round: halves away from zero
            v = _read(img, np.sign(y) * np.floor(np.abs(y) + 0.5),
                      np.sign(x) * np.floor(np.abs(x) + 0.5), fill)
        else:
            y0, x0 = np.floor(y), np.floor(x)
            y1, x1 = y0 + 1, x0 + 1
            top = (x1 - x)[..., None] * _read(img, y0, x0, fill) + \
                (x - x0)[..., None] * _read(img, y0, x1, fill)
            bot = (x1 - x)[..., None] * _read(img, y1, x0, fill) + \
                (x - x0)[..., None] * _read(img, y1, x1, fill)
            v = (y1 - y)[..., None] * top + (y - y0)[..., None] * bot
        v[zero] = fill
        out[b] = v
    if np.issubdtype(images.dtype, np.integer):
        out = np.round(out)
    return out.astype(images.dtype)


@register_op("ImageProjectiveTransformV3")
class ImageProjectiveTransformV3:
    """Applies one projective transform (8 numbers) per image of an NHWC batch."""

    def infer(images, transforms, output_shape, fill_value, *, interpolation, fill_mode):
        if images.shape.rank not in (None, 4):
            raise ValueError(f"ImageProjectiveTransformV3 needs NHWC images; got "
                             f"{images.shape}")
        dims = images.shape.dims
        if dims is None:
            return images.dtype, images.shape
        size = constant_value(output_shape)
        h, w = (None, None) if size is None else (int(size[0]), int(size[1]))
        return images.dtype, TensorShape([dims[0], h, w, dims[3]])

    def kernel(images, transforms, output_shape, fill_value, *, interpolation, fill_mode):
        transforms = np.asarray(transforms)
        if transforms.ndim != 2 or transforms.shape[1] != 8 or \
                transforms.shape[0] not in (1, images.shape[0]):
            raise InvalidArgumentError(
                None, None, f"ImageProjectiveTransformV3: transforms must be [1 or batch, 8]; "
                f"got {transforms.shape} for {images.shape[0]} images")
        return project(np.asarray(images), transforms, tuple(int(v) for v in output_shape),
                       float(fill_value), interpolation, fill_mode)

    def grad(op, dy):
        return (None, None, None, None)


def affine_transform(images: Tensor, transforms: Tensor, fill_mode: str = "reflect",
                     interpolation: str = "bilinear", fill_value: float = 0.0) -> Tensor:
    """Transforms NHWC ``images`` (output of the same size) as TensorFlow's
    ``ImageProjectiveTransformV3``.

    Args:
        images: a float NHWC batch.
        transforms: ``[batch or 1, 8]`` float32 transforms (output → input coordinates).
        fill_mode: "reflect", "wrap", "constant" or "nearest".
        interpolation: "nearest" or "bilinear".
        fill_value: the value outside the image in "constant" mode.

    Returns:
        The transformed batch.
    """
    if fill_mode not in _FILL:
        raise ValueError(f"Unknown `fill_mode` {fill_mode}. Expected one of {list(_FILL)}")
    if interpolation not in _INTERP:
        raise ValueError(f"Unknown `interpolation` {interpolation}. Expected one of "
                         f"{list(_INTERP)}")
    dims = images.shape.dims
    if dims is not None and dims[1] is not None and dims[2] is not None:
        shape = array_ops.constant([dims[1], dims[2]], dtypes.int32)  # keeps h, w static
    else:
        shape = array_ops.shape(images)[1:3]
    return bind(ImageProjectiveTransformV3,
                [images, math_ops.cast(transforms, dtypes.float32), shape,
                 array_ops.constant(float(fill_value), dtypes.float32)],
                {"interpolation": interpolation, "fill_mode": fill_mode})


class _Affine(Augmentation):
    def __init__(self, fill_mode: str, interpolation: str, fill_value: float, seed,
                 data_format, **kwargs) -> None:
        super().__init__(seed, data_format, **kwargs)
        check_fill(self, fill_mode, interpolation, fill_value)

    def augment(self, x: Tensor) -> Tensor:
        single = x.shape.rank == 3
        batch = x[None] if single else x
        n = 1 if single else array_ops.shape(x)[0]
        h, w = hw(x, type(self).__name__)
        t = self._matrices(n, h, w)
        out = affine_transform(batch, t, self.fill_mode, self.interpolation, self.fill_value)
        return out[0] if single else out

    def _matrices(self, n, h: int, w: int) -> Tensor:
        """``[n, 8]`` transforms for ``n`` images of ``h``×``w`` (random draws)."""
        raise NotImplementedError

    _config_keys = Augmentation._config_keys + ("fill_mode", "interpolation", "fill_value")


def _col(v) -> Tensor:
    return array_ops.reshape(v, [-1, 1])


class RandomRotation(_Affine):
    """Rotates each image by a random angle of ``factor`` × 2π about its centre.

    Args:
        factor: a fraction f of a full turn (angles in [-f, f]) or (lower, upper).
        fill_mode: "reflect", "wrap", "constant" or "nearest".
        interpolation: "bilinear" or "nearest".
        seed: the op seed.
        fill_value: the "constant" fill value.
        data_format: "channels_last" or "channels_first".
        **kwargs: Layer arguments.
    """

    def __init__(self, factor, fill_mode: str = "reflect", interpolation: str = "bilinear",
                 seed=None, fill_value: float = 0.0, data_format=None, **kwargs) -> None:
        super().__init__(fill_mode, interpolation, fill_value, seed, data_format, **kwargs)
        self.factor = factor_range(factor, "factor", -math.inf, math.inf)

    def _matrices(self, n, h: int, w: int) -> Tensor:
        lo, hi = self.factor
        angle = self._uniform(array_ops.reshape(n, [1]), lo * 360.0, hi * 360.0) * \
            np.float32(math.pi / 180.0)
        c, s = math_ops.cos(angle), math_ops.sin(angle)
        cx, cy = 0.5 * (w - 1), 0.5 * (h - 1)
        zeros = array_ops.zeros_like(c)
        cols = [c, -s, cx - cx * c + cy * s, s, c, cy - cx * s - cy * c, zeros, zeros]
        return array_ops.concat([_col(v) for v in cols], axis=1)

    _config_keys = _Affine._config_keys + ("factor",)


class RandomZoom(_Affine):
    """Zooms each image by a random factor (positive factors zoom out, as Keras).

    Args:
        height_factor: a fraction f (zoom in [1 - f, 1 + f]) or (lower, upper).
        width_factor: the same for the width; None keeps the aspect ratio.
        fill_mode: "reflect", "wrap", "constant" or "nearest".
        interpolation: "bilinear" or "nearest".
        seed: the op seed.
        fill_value: the "constant" fill value.
        data_format: "channels_last" or "channels_first".
        **kwargs: Layer arguments.
    """

    def __init__(self, height_factor, width_factor=None, fill_mode: str = "reflect",
                 interpolation: str = "bilinear", seed=None, fill_value: float = 0.0,
                 data_format=None, **kwargs) -> None:
        super().__init__(fill_mode, interpolation, fill_value, seed, data_format, **kwargs)
        self.height_factor, self.width_factor = height_factor, width_factor
        self._h = factor_range(height_factor, "height_factor", -1.0, math.inf)
        self._w = None if width_factor is None else \
            factor_range(width_factor, "width_factor", -1.0, math.inf)

    def _matrices(self, n, h: int, w: int) -> Tensor:
        shape = array_ops.stack([n, 1])
        zy = self._uniform(shape, 1.0 + self._h[0], 1.0 + self._h[1])
        zx = zy if self._w is None else self._uniform(shape, 1.0 + self._w[0], 1.0 + self._w[1])
        zeros = array_ops.zeros_like(zy)
        cols = [zx, zeros, (w - 1.0) / 2.0 * (1.0 - zx), zeros, zy,
                (h - 1.0) / 2.0 * (1.0 - zy), zeros, zeros]
        return array_ops.concat(cols, axis=1)

    _config_keys = _Affine._config_keys + ("height_factor", "width_factor")


class RandomTranslation(_Affine):
    """Shifts each image by a random fraction of its height and width.

    Args:
        height_factor: a fraction f (shifts in [-f, f] × height) or (lower, upper).
        width_factor: the same for the width.
        fill_mode: "reflect", "wrap", "constant" or "nearest".
        interpolation: "bilinear" or "nearest".
        seed: the op seed.
        fill_value: the "constant" fill value.
        data_format: "channels_last" or "channels_first".
        **kwargs: Layer arguments.
    """

    def __init__(self, height_factor, width_factor, fill_mode: str = "reflect",
                 interpolation: str = "bilinear", seed=None, fill_value: float = 0.0,
                 data_format=None, **kwargs) -> None:
        super().__init__(fill_mode, interpolation, fill_value, seed, data_format, **kwargs)
        self.height_factor, self.width_factor = height_factor, width_factor
        self._h = factor_range(height_factor, "height_factor")
        self._w = factor_range(width_factor, "width_factor")

    def _matrices(self, n, h: int, w: int) -> Tensor:
        shape = array_ops.stack([n, 1])
        dy = self._uniform(shape, self._h[0], self._h[1]) * np.float32(h)
        dx = self._uniform(shape, self._w[0], self._w[1]) * np.float32(w)
        ones, zeros = array_ops.ones_like(dy), array_ops.zeros_like(dy)
        return array_ops.concat([ones, zeros, -dx, zeros, ones, -dy, zeros, zeros], axis=1)

    _config_keys = _Affine._config_keys + ("height_factor", "width_factor")
