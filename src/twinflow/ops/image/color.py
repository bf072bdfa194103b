"""Color spaces, adjustments and dtype conversion of tf.image, written with twinflow ops (so
they run in graphs and are differentiable where the math is)."""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ...core import dtypes
from ...graph.graph import name_scoped
from ...graph.tensor import DTypeLike, Tensor, TensorLike
from ..array.join import concat, tile
from ..array.layout import expand_dims, stack, unstack
from ..array.shape import shape
from ..core import convert
from ..linalg_ops import tensordot
from ..math.cast import cast
from ..math.clip import clip_by_value
from ..math.comparison import equal, greater, less, where
from ..math.reduce import reduce_max, reduce_mean, reduce_min, reduce_prod
from ..math.reduce_stats import reduce_std

# Rows: input channel; columns: output channel (as TensorFlow's kernels).
_YUV = [[0.299, -0.14714119, 0.61497538], [0.587, -0.28886916, -0.51496512],
        [0.114, 0.43601035, -0.10001026]]
_YUV_INV = [[1.0, 1.0, 1.0], [0.0, -0.394642334, 2.03206185], [1.13988303, -0.58062185, 0.0]]
_YIQ = [[0.299, 0.59590059, 0.2115], [0.587, -0.27455667, -0.52273617],
        [0.114, -0.32134392, 0.31119955]]
_YIQ_INV = [[1.0, 1.0, 1.0], [0.95598634, -0.27201283, -1.10674021],
            [0.6208248, -0.64720424, 1.70423049]]


def _image(x, what: str, min_rank: int = 3) -> Tensor:
    x = convert(x, name="images")
    if x.shape.rank is not None and x.shape.rank < min_rank:
        raise ValueError(f"{what}: images must have rank >= {min_rank}, got shape {x.shape}")
    return x


def _rgb(x, what: str) -> Tensor:
    x = _image(x, what, 1)
    if x.shape.rank is not None and x.shape[-1] not in (None, 3):
        raise ValueError(f"{what}: the last dimension must be 3 (RGB), got shape {x.shape}")
    if not x.dtype.is_floating:
        raise TypeError(f"{what}: images must be float, got {x.dtype.name}")
    return x


@name_scoped
def convert_image_dtype(image: TensorLike, dtype: DTypeLike, saturate: bool = False,
                        name: str | None = None) -> Tensor:
    """Converts between image dtypes, rescaling values (``tw.image.convert_image_dtype``).

    Floats are in [0, 1]; integers in [0, MAX]. Float to integer rounds by scaling with
    ``MAX + 0.5`` and truncating, as TensorFlow.

    Args:
        image: a tensor.
        dtype: the target dtype.
        saturate: clip before casting, so that values out of range do not wrap.

    Returns:
        The converted image.
    """
    x = convert(image, name="image")
    dt = dtypes.as_dtype(dtype)
    if not (dt.is_floating or dt.is_integer) or not (x.dtype.is_floating or x.dtype.is_integer):
        raise TypeError(f"convert_image_dtype: {x.dtype.name} -> {dt.name} is not an image "
                        f"conversion")
    if x.dtype == dt:
        return x
    if x.dtype.is_integer and dt.is_integer:
        mi, mo = int(np.iinfo(x.dtype.np).max), int(np.iinfo(dt.np).max)
        if mi > mo:
            return cast(x // ((mi + 1) // (mo + 1)), dt)
        return cast(x, dt) * cast((mo + 1) // (mi + 1), dt) if mo != mi else cast(x, dt)
    if x.dtype.is_floating and dt.is_floating:
        return cast(x, dt)
    if x.dtype.is_integer:
        return cast(x, dt) * cast(1.0 / float(np.iinfo(x.dtype.np).max), dt)
    info = np.iinfo(dt.np)
    scaled = x * cast(float(info.max) + 0.5, x.dtype)
    if saturate:
        scaled = clip_by_value(scaled, float(info.min), float(info.max))
    return cast(scaled, dt)


def _float_work(image, what: str):
    """(float image, original dtype): integer images are worked on in float32."""
    x = _image(image, what, 1)
    return (x if x.dtype.is_floating else convert_image_dtype(x, dtypes.float32)), x.dtype


def _back(y, orig):
    return y if orig.is_floating else convert_image_dtype(y, orig, saturate=True)


def adjust_brightness(image: TensorLike, delta) -> Tensor:
    """Adds ``delta`` to every value (``tw.image.adjust_brightness``).

    Args:
        image: an image tensor (integer images are worked on in float, then converted back).
        delta: the amount to add (in [0, 1] units for integer images).

    Returns:
        The adjusted image, of the input's dtype.
    """
    x, orig = _float_work(image, "adjust_brightness")
    return _back(x + cast(delta, x.dtype), orig)


def adjust_contrast(images: TensorLike, contrast_factor) -> Tensor:
    """Scales each channel's distance from its mean over height and width
    (``tw.image.adjust_contrast``).

    Args:
        images: ``[..., height, width, channels]``.
        contrast_factor: the multiplier.

    Returns:
        The adjusted images, of the input's dtype.
    """
    x, orig = _float_work(images, "adjust_contrast")
    if x.shape.rank is not None and x.shape.rank < 3:
        raise ValueError(f"adjust_contrast: images must have rank >= 3, got {x.shape}")
    mean = reduce_mean(x, axis=[-3, -2], keepdims=True)
    return _back((x - mean) * cast(contrast_factor, x.dtype) + mean, orig)


def adjust_gamma(image: TensorLike, gamma=1, gain=1) -> Tensor:
    """``gain * image ** gamma`` (``tw.image.adjust_gamma``).

    Args:
        image: an image tensor.
        gamma: a non-negative exponent.
        gain: the multiplier.

    Returns:
        The adjusted image, of the input's dtype.
    """
    if isinstance(gamma, (int, float)) and gamma < 0:
        raise ValueError(f"adjust_gamma: gamma must be non-negative, got {gamma}")
    x, orig = _float_work(image, "adjust_gamma")
    return _back(cast(gain, x.dtype) * x ** cast(gamma, x.dtype), orig)


def _mix(x, kernel, what: str):
    x = _rgb(x, what)
    return tensordot(x, convert(np.asarray(kernel), dtype=x.dtype), [[-1], [0]])


def _linear_conversion(fn_name: str, kernel, source: str, target: str) -> Callable[..., Tensor]:
    """A color-space conversion that is a 3x3 matrix product over the channels."""
    def fn(images: TensorLike) -> Tensor:
        return _mix(images, kernel, fn_name)
    fn.__name__ = fn.__qualname__ = fn_name
    fn.__doc__ = f"""{source} to {target} (``tw.image.{fn_name}``).

    Args:
        images: float images with 3 channels last.

    Returns:
        The {target} images.
    """
    return fn


rgb_to_yuv = _linear_conversion("rgb_to_yuv", _YUV, "RGB in [0, 1]", "YUV")
yuv_to_rgb = _linear_conversion("yuv_to_rgb", _YUV_INV, "YUV", "RGB")
rgb_to_yiq = _linear_conversion("rgb_to_yiq", _YIQ, "RGB in [0, 1]", "YIQ")
yiq_to_rgb = _linear_conversion("yiq_to_rgb", _YIQ_INV, "YIQ", "RGB")


@name_scoped
def rgb_to_grayscale(images: TensorLike, name: str | None = None) -> Tensor:
    """Luma of RGB images, keeping a channel dim of 1 (``tw.image.rgb_to_grayscale``).

    Args:
        images: images with 3 channels last.

    Returns:
        ``[..., 1]`` images of the input's dtype.
    """
    x, orig = _float_work(images, "rgb_to_grayscale")
    w = convert(np.array([0.2989, 0.5870, 0.1140]), dtype=x.dtype)
    return _back(expand_dims(tensordot(x, w, [[-1], [0]]), -1), orig)


@name_scoped
def grayscale_to_rgb(images: TensorLike, name: str | None = None) -> Tensor:
    """Repeats a single channel three times (``tw.image.grayscale_to_rgb``).

    Args:
        images: images with 1 channel last.

    Returns:
        ``[..., 3]`` images.
    """
    x = _image(images, "grayscale_to_rgb", 2)
    if x.shape.rank is not None and x.shape[-1] not in (None, 1):
        raise ValueError(f"grayscale_to_rgb: the last dimension must be 1, got {x.shape}")
    return tile(x, concat([cast(np.ones(x.shape.rank - 1), dtypes.int32), [3]], 0)) \
        if x.shape.rank is not None else concat([x, x, x], -1)


@name_scoped
def rgb_to_hsv(images: TensorLike, name: str | None = None) -> Tensor:
    """RGB in [0, 1] to hue, saturation, value in [0, 1] (``tw.image.rgb_to_hsv``).

    Args:
        images: float images with 3 channels last.

    Returns:
        The HSV images.
    """
    x = _rgb(images, "rgb_to_hsv")
    r, g, b = unstack(x, 3, axis=-1)
    v = reduce_max(x, axis=-1)
    rng = v - reduce_min(x, axis=-1)
    zero = cast(0.0, x.dtype)
    positive = greater(rng, zero)
    safe_v = where(greater(v, zero), v, cast(1.0, x.dtype))
    s = where(greater(v, zero), rng / safe_v, zero)
    norm = cast(1.0 / 6.0, x.dtype) / where(positive, rng, cast(1.0, x.dtype))
    h = where(equal(r, v), norm * (g - b),
              where(equal(g, v), norm * (b - r) + cast(2.0 / 6.0, x.dtype),
                    norm * (r - g) + cast(4.0 / 6.0, x.dtype)))
    h = where(positive, h, zero)
    h = where(less(h, zero), h + cast(1.0, x.dtype), h)
    return stack([h, s, v], axis=-1)


@name_scoped
def hsv_to_rgb(images: TensorLike, name: str | None = None) -> Tensor:
    """Hue, saturation, value in [0, 1] to RGB (``tw.image.hsv_to_rgb``).

    Args:
        images: float HSV images with 3 channels last.

    Returns:
        The RGB images.
    """
    x = _rgb(images, "hsv_to_rgb")
    h, s, v = unstack(x, 3, axis=-1)
    c = s * v
    m = v - c
    dh = h * cast(6.0, x.dtype)
    cat = cast(cast(dh, dtypes.int32), x.dtype)  # truncation, as TensorFlow's int cast
    fm = dh - cast(2.0, x.dtype) * cast(cast(dh / cast(2.0, x.dtype), dtypes.int32), x.dtype)
    xx = c * (cast(1.0, x.dtype) - abs(fm - cast(1.0, x.dtype)))
    zero = c * cast(0.0, x.dtype)
    table = [(c, xx, zero), (xx, c, zero), (zero, c, xx), (zero, xx, c), (xx, zero, c),
             (c, zero, xx)]
    out = [zero, zero, zero]
    for k in range(5, -1, -1):
        hit = equal(cat, cast(float(k), x.dtype))
        out = [where(hit, t, o) for t, o in zip(table[k], out)]
    return stack([o + m for o in out], axis=-1)


@name_scoped
def adjust_saturation(image: TensorLike, saturation_factor, name: str | None = None) -> Tensor:
    """Scales the saturation, clipped to [0, 1] (``tw.image.adjust_saturation``).

    Args:
        image: RGB images.
        saturation_factor: the multiplier.

    Returns:
        The adjusted images, of the input's dtype.
    """
    x, orig = _float_work(image, "adjust_saturation")
    h, s, v = unstack(rgb_to_hsv(x), 3, axis=-1)
    s = clip_by_value(s * cast(saturation_factor, x.dtype), 0.0, 1.0)
    return _back(hsv_to_rgb(stack([h, s, v], axis=-1)), orig)


@name_scoped
def adjust_hue(image: TensorLike, delta, name: str | None = None) -> Tensor:
    """Rotates the hue by ``delta`` (in [-1, 1]) (``tw.image.adjust_hue``).

    Args:
        image: RGB images.
        delta: the hue shift, in turns.

    Returns:
        The adjusted images, of the input's dtype.
    """
    if isinstance(delta, (int, float)) and not -1.0 <= delta <= 1.0:
        raise ValueError(f"adjust_hue: delta must be in [-1, 1], got {delta}")
    x, orig = _float_work(image, "adjust_hue")
    h, s, v = unstack(rgb_to_hsv(x), 3, axis=-1)
    h = h + cast(delta, x.dtype)
    h = h - cast(cast(h, dtypes.int32), x.dtype)          # fmod(h, 1)
    h = where(less(h, cast(0.0, x.dtype)), h + cast(1.0, x.dtype), h)
    return _back(hsv_to_rgb(stack([h, s, v], axis=-1)), orig)


def per_image_standardization(image: TensorLike) -> Tensor:
    """Scales each image to mean 0 and variance 1 (``tw.image.per_image_standardization``).

    The standard deviation is bounded below by ``1 / sqrt(num_elements)``.

    Args:
        image: ``[..., height, width, channels]``.

    Returns:
        float32 images (float inputs keep their dtype).
    """
    x = _image(image, "per_image_standardization")
    if not x.dtype.is_floating:
        x = cast(x, dtypes.float32)
    mean = reduce_mean(x, axis=[-1, -2, -3], keepdims=True)
    n = cast(reduce_prod(shape(x)[-3:]), x.dtype)
    floor = cast(1.0, x.dtype) / n ** cast(0.5, x.dtype)
    std = reduce_std(x, axis=[-1, -2, -3], keepdims=True)
    std = where(greater(std, floor), std, floor + std * cast(0.0, x.dtype))
    return (x - mean) / std


__all__ = ["convert_image_dtype", "adjust_brightness", "adjust_contrast", "adjust_gamma",
           "rgb_to_yuv", "yuv_to_rgb", "rgb_to_yiq", "yiq_to_rgb", "rgb_to_grayscale",
           "grayscale_to_rgb", "rgb_to_hsv", "hsv_to_rgb", "adjust_saturation", "adjust_hue",
           "per_image_standardization"]

