"""tf.image.resize and friends, as TensorFlow 2 computes them (half-pixel centers).

Every method except nearest is linear and separable: the output is ``Wh @ image @ Ww^T`` per
channel, with interpolation matrices built here in NumPy by TensorFlow's rules (ResizeBilinear,
ResizeBicubic with Keys' a=-0.5 and renormalized borders, ResizeArea, ScaleAndTranslate for
antialiasing and the lanczos/gaussian/mitchellcubic kernels). Applying them with ``einsum``
makes the result differentiable and graph-ready for free. Nearest neighbour is two gathers.
Sizes must be known when the op is built (static height, width and target size).
"""
from __future__ import annotations

import math

import numpy as np

from ...core import dtypes
from ...graph.graph import name_scoped
from ...graph.tensor import Tensor, TensorLike
from ..array.gather import gather
from ..array.join import pad
from ..array.shape import reshape
from ..array.slicing import slice as _slice
from ..core import convert, static_ints
from ..linalg_ops import einsum
from ..math.cast import cast

METHODS = ("bilinear", "nearest", "bicubic", "area", "lanczos3", "lanczos5", "gaussian",
           "mitchellcubic")


class ResizeMethod:
    """The names of ``tf.image.resize`` methods (``tw.image.ResizeMethod.BILINEAR``...)."""

    BILINEAR = "bilinear"
    NEAREST_NEIGHBOR = "nearest"
    BICUBIC = "bicubic"
    AREA = "area"
    LANCZOS3 = "lanczos3"
    LANCZOS5 = "lanczos5"
    GAUSSIAN = "gaussian"
    MITCHELLCUBIC = "mitchellcubic"


# ----- interpolation matrices (out_size x in_size) ------------------------------------------------

def _centers(n_in: int, n_out: int):
    """Yields, per output pixel ``o``: ``o``, its center ``x`` in input pixels, ``floor(x)``."""
    scale = n_in / n_out
    for o in range(n_out):
        x = (o + 0.5) * scale - 0.5
        yield o, x, math.floor(x)


def _bilinear(n_in: int, n_out: int) -> np.ndarray:
    w = np.zeros((n_out, n_in))
    for o, x, f in _centers(n_in, n_out):
        lo, hi, t = max(f, 0), min(math.ceil(x), n_in - 1), x - f
        w[o, lo] += 1 - t
        w[o, hi] += t
    return w


def _keys(x: np.ndarray, a: float = -0.5) -> np.ndarray:
    x = np.abs(x)
    return np.where(x <= 1, ((a + 2) * x - (a + 3)) * x * x + 1,
                    np.where(x < 2, ((a * x - 5 * a) * x + 8 * a) * x - 4 * a, 0.0))


def _bicubic(n_in: int, n_out: int) -> np.ndarray:
    w = np.zeros((n_out, n_in))
    for o, x, f in _centers(n_in, n_out):
        # TensorFlow reads the weights from a table of 1024 steps per pixel.
        t = np.rint((x - f) * 1024) / 1024
        idx = np.arange(f - 1, f + 3)
        k = _keys(t - np.arange(-1, 3))
        inside = (idx >= 0) & (idx < n_in)  # outside samples get no weight (renormalized)
        k = np.where(inside, k, 0.0)
        w[o, idx[inside]] += k[inside] / k.sum()
    return w


def _area(n_in: int, n_out: int) -> np.ndarray:
    w = np.zeros((n_out, n_in))
    scale = n_in / n_out
    for o in range(n_out):
        a, b = o * scale, (o + 1) * scale
        for i in range(math.floor(a), math.ceil(b)):
            lo, hi = max(i, a), min(i + 1, b)
            w[o, min(i, n_in - 1)] += (hi - lo) / scale
    return w


def _lanczos(r):
    return r, lambda x: np.where(np.abs(x) < r, np.sinc(x) * np.sinc(x / r), 0.0)


def _mitchell(x):
    x = np.abs(x)
    b = c = 1.0 / 3.0
    return np.where(
        x < 1, ((12 - 9 * b - 6 * c) * x ** 3 + (-18 + 12 * b + 6 * c) * x ** 2 + 6 - 2 * b) / 6,
        np.where(x < 2, ((-b - 6 * c) * x ** 3 + (6 * b + 30 * c) * x ** 2 +
                         (-12 * b - 48 * c) * x + 8 * b + 24 * c) / 6, 0.0))


# ScaleAndTranslate's kernels: (radius, function).
_KERNELS = {
    "bilinear": (1.0, lambda x: np.maximum(0.0, 1.0 - np.abs(x))),
    "bicubic": (2.0, _keys),
    "lanczos3": _lanczos(3.0),
    "lanczos5": _lanczos(5.0),
    "gaussian": (1.5, lambda x: np.where(np.abs(x) < 1.5, np.exp(-x * x / (2 * 0.5 ** 2)), 0.)),
    "mitchellcubic": (2.0, _mitchell),
}


def _scale_and_translate(n_in: int, n_out: int, method: str, antialias: bool) -> np.ndarray:
    radius, kernel = _KERNELS[method]
    # In float32, step by step as TensorFlow's kernel: kernel edges fall where its rounding
    # puts them.
    f32 = np.float32
    inv_scale = f32(1.0 / float(f32(n_out) / f32(n_in)))
    kscale = max(inv_scale, f32(1.0)) if antialias else f32(1.0)
    inv_k = f32(1.0) / kscale
    reach = f32(radius) * kscale
    w = np.zeros((n_out, n_in))
    for o in range(n_out):
        center = (f32(o) + f32(0.5)) * inv_scale
        if center < 0 or center > n_in:
            continue
        start = min(max(math.ceil(center - reach - f32(0.5)), 0), n_in - 1)
        end = min(max(math.floor(center + reach - f32(0.5)), 0), n_in - 1) + 1
        idx = np.arange(start, end)
        k = kernel(((idx.astype(f32) + f32(0.5) - center) * inv_k).astype(np.float64))
        total = k.sum()
        if abs(total) >= 1000.0 * np.finfo(np.float32).tiny:
            k = k / total
        w[o, idx] = k
    return w


def _matrix(n_in: int, n_out: int, method: str, antialias: bool) -> np.ndarray:
    if method == "area":
        return _area(n_in, n_out)
    if antialias or method not in ("bilinear", "bicubic"):
        return _scale_and_translate(n_in, n_out, method, antialias)
    return _bilinear(n_in, n_out) if method == "bilinear" else _bicubic(n_in, n_out)


def _nearest(n_in: int, n_out: int) -> np.ndarray:
    scale = n_in / n_out
    return np.array([min(max(math.floor((o + 0.5) * scale), 0), n_in - 1)
                     for o in range(n_out)], dtype=np.int32)


# ----- the public functions -----------------------------------------------------------------------

def _as_batch(images: TensorLike, what: str):
    x = convert(images, name="images")
    r = x.shape.rank
    if r not in (3, 4):
        raise ValueError(f"{what}: images must have rank 3 or 4 (got shape {x.shape})")
    squeeze = r == 3
    if squeeze:
        x = reshape(x, [1] + x.shape.as_list()) if x.shape.is_fully_defined() else \
            gather(x[None], [0], axis=0)
    h, w = x.shape[1], x.shape[2]
    if h is None or w is None:
        raise ValueError(f"{what}: twinflow needs the image height and width when the op is "
                         f"built, got shape {x.shape}")
    return x, squeeze, h, w


def _unbatch(x, squeeze: bool):
    return x[0] if squeeze else x


def _target(size, what: str) -> tuple:
    s = static_ints(size, f"{what}: size")
    if len(s) != 2:
        raise ValueError(f"{what}: size must have 2 elements (new_height, new_width), got {s}")
    if min(s) <= 0:
        raise ValueError(f"{what}: size must be positive, got {list(s)}")
    return s


def _resize4(x, h: int, w: int, nh: int, nw: int, method: str, antialias: bool):
    if method == "nearest":
        return gather(gather(x, _nearest(h, nh), axis=1), _nearest(w, nw), axis=2)
    xf = x if x.dtype == dtypes.float32 else cast(x, dtypes.float32)
    mh = convert(_matrix(h, nh, method, antialias).astype(np.float32))
    mw = convert(_matrix(w, nw, method, antialias).astype(np.float32))
    return einsum("jw,biwc->bijc", mw, einsum("ih,bhwc->biwc", mh, xf))


@name_scoped
def resize(images: TensorLike, size, method: str = "bilinear",
           preserve_aspect_ratio: bool = False, antialias: bool = False,
           name: str | None = None) -> Tensor:
    """Resizes images to ``size`` (``tw.image.resize``; TensorFlow 2's half-pixel rules).

    Args:
        images: ``[batch, height, width, channels]`` or ``[height, width, channels]``.
        size: ``(new_height, new_width)``, known when the op is built.
        method: one of ``ResizeMethod``: bilinear, nearest, bicubic, area, lanczos3,
            lanczos5, gaussian, mitchellcubic.
        preserve_aspect_ratio: fit inside ``size`` keeping the aspect ratio.
        antialias: widen the kernel when downsampling (not for nearest and area, as in
            TensorFlow).

    Returns:
        The resized images: float32, except for nearest, which keeps the input dtype.
    """
    if method not in METHODS:
        raise ValueError(f"resize: unknown method {method!r}; expected one of {METHODS}")
    x, squeeze, h, w = _as_batch(images, "resize")
    nh, nw = _target(size, "resize")
    if preserve_aspect_ratio:
        f = min(nh / h, nw / w)
        nh, nw = int(np.round(f * h)), int(np.round(f * w))
    return _unbatch(_resize4(x, h, w, nh, nw, method, antialias), squeeze)


def resize_with_pad(image: TensorLike, target_height: int, target_width: int,
                    method: str = "bilinear", antialias: bool = False) -> Tensor:
    """Resizes keeping the aspect ratio, then pads with zeros to the target size
    (``tw.image.resize_with_pad``).

    Args:
        image: ``[batch, height, width, channels]`` or ``[height, width, channels]``.
        target_height: the output height.
        target_width: the output width.
        method: a ``ResizeMethod``.
        antialias: as in ``resize``.

    Returns:
        The resized, padded images (float32 unless nearest).
    """
    x, squeeze, h, w = _as_batch(image, "resize_with_pad")
    th, tw_ = _target([target_height, target_width], "resize_with_pad")
    ratio = max(w / tw_, h / th)
    nh, nw = max(int(math.floor(h / ratio)), 1), max(int(math.floor(w / ratio)), 1)
    y = resize(x, [nh, nw], method=method, antialias=antialias)
    # TensorFlow centers by the unrounded size: floor((target - size / ratio) / 2).
    top = max(int(math.floor((th - h / ratio) / 2)), 0)
    left = max(int(math.floor((tw_ - w / ratio) / 2)), 0)
    y = pad(y, [[0, 0], [top, th - nh - top], [left, tw_ - nw - left], [0, 0]])
    return _unbatch(y, squeeze)


def _ints(*values) -> tuple:
    return tuple(int(v) for v in values)


def crop_to_bounding_box(image: TensorLike, offset_height: int, offset_width: int,
                         target_height: int, target_width: int) -> Tensor:
    """Crops the box at ``(offset_height, offset_width)`` of the target size
    (``tw.image.crop_to_bounding_box``).

    Args:
        image: ``[batch, height, width, channels]`` or ``[height, width, channels]``.
        offset_height: the box's top row.
        offset_width: the box's left column.
        target_height: the box height.
        target_width: the box width.

    Returns:
        The cropped images.
    """
    x, squeeze, h, w = _as_batch(image, "crop_to_bounding_box")
    oh, ow, th, tw_ = _ints(offset_height, offset_width, target_height, target_width)
    if oh < 0 or ow < 0 or th <= 0 or tw_ <= 0:
        raise ValueError("crop_to_bounding_box: offsets must be >= 0 and sizes > 0")
    if oh + th > h or ow + tw_ > w:
        raise ValueError(f"crop_to_bounding_box: the box {th}x{tw_} at ({oh}, {ow}) does "
                         f"not fit in the {h}x{w} image")
    return _unbatch(_slice(x, [0, oh, ow, 0], [-1, th, tw_, -1]), squeeze)


def pad_to_bounding_box(image: TensorLike, offset_height: int, offset_width: int,
                        target_height: int, target_width: int) -> Tensor:
    """Pads with zeros so that the image sits at the offsets of a target-size canvas
    (``tw.image.pad_to_bounding_box``).

    Args:
        image: as for ``crop_to_bounding_box``.
        offset_height, offset_width: the zero rows added on top, the zero columns on the left.
        target_height, target_width: the output size.

    Returns:
        The padded images.
    """
    x, squeeze, h, w = _as_batch(image, "pad_to_bounding_box")
    oh, ow, th, tw_ = _ints(offset_height, offset_width, target_height, target_width)
    if oh < 0 or ow < 0:
        raise ValueError("pad_to_bounding_box: offsets must be >= 0")
    if th < oh + h or tw_ < ow + w:
        raise ValueError(f"pad_to_bounding_box: a {h}x{w} image at ({oh}, {ow}) does not "
                         f"fit in {th}x{tw_}")
    y = pad(x, [[0, 0], [oh, th - oh - h], [ow, tw_ - ow - w], [0, 0]])
    return _unbatch(y, squeeze)


def resize_with_crop_or_pad(image: TensorLike, target_height: int,
                            target_width: int) -> Tensor:
    """Centrally crops and/or zero-pads to the target size
    (``tw.image.resize_with_crop_or_pad``).

    Args:
        image: ``[batch, height, width, channels]`` or ``[height, width, channels]``.
        target_height: the output height.
        target_width: the output width.

    Returns:
        The cropped/padded images.
    """
    x, squeeze, h, w = _as_batch(image, "resize_with_crop_or_pad")
    th, tw_ = _target([target_height, target_width], "resize_with_crop_or_pad")
    ch, cw = min(h, th), min(w, tw_)
    y = crop_to_bounding_box(x, max((h - th) // 2, 0), max((w - tw_) // 2, 0), ch, cw)
    y = pad_to_bounding_box(y, max((th - h) // 2, 0), max((tw_ - w) // 2, 0), th, tw_)
    return _unbatch(y, squeeze)


def central_crop(image: TensorLike, central_fraction: float) -> Tensor:
    """The central ``central_fraction`` of each image (``tw.image.central_crop``).

    Args:
        image: ``[batch, height, width, channels]`` or ``[height, width, channels]``.
        central_fraction: in (0, 1].

    Returns:
        The cropped images.
    """
    if not 0.0 < central_fraction <= 1.0:
        raise ValueError(f"central_crop: central_fraction must be in (0, 1], got "
                         f"{central_fraction}")
    x, squeeze, h, w = _as_batch(image, "central_crop")
    if central_fraction == 1.0:
        return _unbatch(x, squeeze)
    # TensorFlow's arithmetic: start = int((size - size * fraction) / 2) in float64.
    oh = int((h - h * central_fraction) / 2)
    ow = int((w - w * central_fraction) / 2)
    return _unbatch(_slice(x, [0, oh, ow, 0], [-1, h - 2 * oh, w - 2 * ow, -1]), squeeze)


__all__ = ["ResizeMethod", "resize", "resize_with_pad", "crop_to_bounding_box",
           "pad_to_bounding_box", "resize_with_crop_or_pad", "central_crop"]
