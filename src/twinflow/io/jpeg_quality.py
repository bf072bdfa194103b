"""JPEG re-compression of images (``tw.image.adjust_jpeg_quality`` and its random forms):
``EncodeJpegVariableQuality`` (the quality a tensor) through Pillow, then decoding.

Pillow's JPEG codec is not TensorFlow's libjpeg-turbo build: pixels after a round trip can
differ from TensorFlow's by a few levels (see docs/tf_differences.md).
"""
from __future__ import annotations

import io as _pyio

import numpy as np

from ..core import dtypes, errors
from ..core.shapes import TensorShape
from ..eager.execute import bind, convert_to_tensor
from ..graph.graph import name_scoped
from ..graph.registry import register_op
from ..graph.tensor import Tensor, TensorLike
from ..ops.image.color import convert_image_dtype
from ..ops.math_ops import cast, floor
from ..ops.random.stateful import random_uniform
from ..ops.random.stateless import stateless_random_uniform
from .image import _MODES, DecodeImage, _pil


@register_op("EncodeJpegVariableQuality", schema=(
    "images:uint8, quality:int32 -> contents:string"))
class EncodeJpegVariableQuality:
    """Encodes uint8 ``[h, w, 1 or 3]`` pixels as JPEG at a quality given as a tensor."""

    def infer(images, quality):
        if images.shape.rank not in (None, 3):
            raise errors.InvalidArgumentError(None, None, f"image must be 3-dimensional "
                                              f"[height, width, channels], got {images.shape}")
        if quality.shape.rank not in (None, 0):
            raise errors.InvalidArgumentError(None, None, f"quality must be a scalar, got "
                                              f"{quality.shape}")
        return dtypes.string, TensorShape([])

    def kernel(images, quality):
        q = int(quality)
        if not 0 <= q <= 100:
            raise errors.InvalidArgumentError(None, None, f"quality must be in [0,100], got "
                                              f"{q}")
        c = images.shape[2]
        if c not in (1, 3):
            raise errors.InvalidArgumentError(None, None, f"image must have 1 or 3 channels, "
                                              f"got {c}")
        img = _pil().fromarray(images[:, :, 0] if c == 1 else images, _MODES[c])
        buf = _pyio.BytesIO()
        img.save(buf, "JPEG", quality=max(q, 1))
        return np.asarray(buf.getvalue(), dtype=object)


@name_scoped
def adjust_jpeg_quality(image: TensorLike, jpeg_quality, dct_method: str = "",
                        name: str | None = None) -> Tensor:
    """Re-encodes an image as JPEG at ``jpeg_quality`` and decodes it (the compression
    artifacts as augmentation).

    Args:
        image: ``[height, width, 1 or 3]`` (any dtype ``convert_image_dtype`` takes).
        jpeg_quality: int quality in [0, 100] (a Python int or int32 tensor).
        dct_method: "" or "INTEGER_ACCURATE" (Pillow has one decoder; others raise).
        name: op name.

    Returns:
        The image in its original dtype.
    """
    if dct_method not in ("", "INTEGER_ACCURATE"):
        raise ValueError(f"adjust_jpeg_quality: dct_method {dct_method!r} is not supported "
                         "(Pillow decodes with one method)")
    image = convert_to_tensor(image)
    if image.shape.rank != 3:
        raise ValueError(f"adjust_jpeg_quality needs a 3-D image [height, width, channels], "
                         f"got shape {image.shape}")
    channels = image.shape[-1]
    if channels not in (None, 1, 3):
        raise ValueError(f"adjust_jpeg_quality: the image must have 1 or 3 channels, got "
                         f"{channels}")
    orig = image.dtype
    pixels = convert_image_dtype(image, dtypes.uint8, saturate=True)
    q = convert_to_tensor(jpeg_quality, dtype=dtypes.int32)
    data = bind(EncodeJpegVariableQuality, [pixels, q])
    out = bind(DecodeImage, [data], {"channels": int(channels or 0), "formats": ("JPEG",),
                                     "what": "adjust_jpeg_quality",
                                     "expand_animations": False})
    return convert_image_dtype(out, orig, saturate=True)


def _check_range(lo, hi) -> None:
    if not 0 <= lo < hi <= 100:
        raise ValueError(f"jpeg quality must be 0 <= min_jpeg_quality < max_jpeg_quality <= "
                         f"100, got {lo} and {hi}")


def random_jpeg_quality(image: TensorLike, min_jpeg_quality: int, max_jpeg_quality: int,
                        seed: int | None = None) -> Tensor:
    """``adjust_jpeg_quality`` at a quality drawn uniformly from
    ``[min_jpeg_quality, max_jpeg_quality)``.

    Args:
        image: ``[height, width, 1 or 3]``.
        min_jpeg_quality: the lowest quality.
        max_jpeg_quality: the bound above the highest quality.
        seed: the op seed.

    Returns:
        The re-compressed image.
    """
    _check_range(min_jpeg_quality, max_jpeg_quality)
    q = random_uniform([], min_jpeg_quality, max_jpeg_quality, dtype=dtypes.int32, seed=seed)
    return adjust_jpeg_quality(image, q)


def stateless_random_jpeg_quality(image: TensorLike, min_jpeg_quality: int,
                                  max_jpeg_quality: int, seed) -> Tensor:
    """``random_jpeg_quality`` with the quality a pure function of ``seed``.

    Args:
        image: ``[height, width, 1 or 3]``.
        min_jpeg_quality: the lowest quality.
        max_jpeg_quality: the bound above the highest quality.
        seed: shape ``[2]`` int seed.

    Returns:
        The re-compressed image.
    """
    _check_range(min_jpeg_quality, max_jpeg_quality)
    u = stateless_random_uniform([], seed, float(min_jpeg_quality), float(max_jpeg_quality),
                                 dtype=dtypes.float64)
    q = cast(floor(u), dtypes.int32)                  # an integer in [min, max)
    return adjust_jpeg_quality(image, q)
