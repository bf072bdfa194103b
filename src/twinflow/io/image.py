"""Image coding ops (PNG, JPEG, GIF, BMP) through Pillow, the optional ``[image]`` extra.

Decoders give uint8 ``[height, width, channels]`` tensors (GIF: ``[frames, h, w, 3]``);
``channels=0`` keeps the file's own. Without Pillow they raise ImportError saying how to
install it.
"""
from __future__ import annotations

import io as _pyio
from typing import Any

import numpy as np

from ..core import dtypes, errors
from ..core.shapes import TensorShape
from ..eager.execute import bind, convert_to_tensor
from ..graph.graph import name_scoped
from ..graph.registry import register_op
from .codecs import bytes_of as _bytes
from .codecs import string_tensor

_MODES = {1: "L", 2: "LA", 3: "RGB", 4: "RGBA"}


def _pil():
    try:
        from PIL import Image  # noqa: PLC0415  (optional dependency, imported on use)
    except ImportError:
        raise ImportError("tw.io image coding needs Pillow: pip install 'twinflow[image]' "
                          "(or pip install pillow)") from None
    return Image


def _open(data: bytes, what: str, formats: tuple | None):
    image = _pil()
    try:
        img = image.open(_pyio.BytesIO(data))
        img.load()
    except Exception as e:  # noqa: BLE001  (Pillow raises many kinds; re-raised as TF's)
        raise errors.InvalidArgumentError(None, None, f"{what}: the data is not a valid "
                                          f"image ({e})") from None
    if formats is not None and img.format not in formats:
        raise errors.InvalidArgumentError(None, None, f"{what}: expected {'/'.join(formats)} "
                                          f"data, got {img.format}")
    return img


def _to_array(img, channels: int) -> np.ndarray:
    if channels == 0:
        mode = img.mode if img.mode in ("L", "LA", "RGB", "RGBA") else (
            "RGBA" if "A" in img.getbands() else "RGB")
    else:
        mode = _MODES[channels]
    a = np.asarray(img.convert(mode), dtype=np.uint8)
    return a[:, :, None] if a.ndim == 2 else a


@register_op("DecodeImage")
class DecodeImage:
    """Decodes PNG/JPEG/GIF/BMP bytes to uint8 pixels."""

    def infer(contents, *, channels, formats, what, expand_animations):
        if contents.dtype is not dtypes.string:
            raise errors.InvalidArgumentError(None, None, f"{what} needs a string scalar")
        rank = 4 if formats == ("GIF",) else None if expand_animations else 3
        return dtypes.uint8, TensorShape(None if rank is None else [None] * (rank - 1) + [
            channels or (3 if formats == ("GIF",) else None)])

    def kernel(contents, *, channels, formats, what, expand_animations):
        img = _open(_bytes(contents), what, formats)
        n = getattr(img, "n_frames", 1)
        if formats == ("GIF",) or (expand_animations and img.format == "GIF"):
            frames = []
            for i in range(n):
                img.seek(i)
                frames.append(_to_array(img, channels or 3))
            return np.stack(frames)
        return _to_array(img, channels)


def _decode(contents, channels: int, formats, what: str, expand: bool = False):
    if channels not in (0, 1, 2, 3, 4):
        raise ValueError(f"{what}: channels must be 0, 1, 3 or 4, got {channels}")
    t = string_tensor(contents)
    return bind(DecodeImage, [t], {"channels": int(channels), "formats": formats,
                                   "what": what, "expand_animations": expand})


@name_scoped
def decode_png(contents, channels: int = 0, dtype=dtypes.uint8, name=None) -> Any:
    """Decodes a PNG image.

    Args:
        contents: a string scalar of PNG bytes.
        channels: 0 (as stored), 1, 3 or 4.
        dtype: must be uint8.

    Returns:
        A uint8 tensor [height, width, channels].
    """
    if dtypes.as_dtype(dtype) is not dtypes.uint8:
        raise NotImplementedError("decode_png: only dtype=uint8 is supported")
    return _decode(contents, channels, ("PNG",), "decode_png")


@name_scoped
def decode_jpeg(contents, channels: int = 0, ratio: int = 1, fancy_upscaling: bool = True,
                try_recover_truncated: bool = False, acceptable_fraction: float = 1,
                dct_method: str = "", name=None) -> Any:
    """Decodes a JPEG image.

    Args:
        contents: a string scalar of JPEG bytes.
        channels: 0, 1 or 3.
        ratio: must be 1 (no downscaling).
        fancy_upscaling: accepted (Pillow's decoder).
        try_recover_truncated: must be False.
        acceptable_fraction: must be 1.
        dct_method: accepted (Pillow's decoder).

    Returns:
        A uint8 tensor [height, width, channels].
    """
    check_jpeg_options("decode_jpeg", ratio, try_recover_truncated, acceptable_fraction)
    return _decode(contents, channels, ("JPEG",), "decode_jpeg")


def check_jpeg_options(what: str, ratio: int, try_recover_truncated: bool,
                       acceptable_fraction: float) -> None:
    """NotImplementedError for the JPEG decoding options Pillow's decoder does not offer.

    Args:
        what: the function's name.
        ratio: must be 1.
        try_recover_truncated: must be False.
        acceptable_fraction: must be 1.
    """
    if ratio != 1 or try_recover_truncated or acceptable_fraction != 1:
        raise NotImplementedError(f"{what}: ratio, try_recover_truncated and "
                                  "acceptable_fraction are not supported")


@name_scoped
def decode_gif(contents, name=None) -> Any:
    """Decodes a GIF to its frames.

    Args:
        contents: a string scalar of GIF bytes.

    Returns:
        A uint8 tensor [frames, height, width, 3].
    """
    return _decode(contents, 3, ("GIF",), "decode_gif")


@name_scoped
def decode_bmp(contents, channels: int = 0, name=None) -> Any:
    """Decodes a BMP image.

    Args:
        contents: a string scalar of BMP bytes.
        channels: 0, 3 or 4.

    Returns:
        A uint8 tensor [height, width, channels].
    """
    return _decode(contents, channels, ("BMP",), "decode_bmp")


@name_scoped
def decode_image(contents, channels=None, dtype=dtypes.uint8, name=None,
                 expand_animations: bool = True) -> Any:
    """Decodes a PNG, JPEG, GIF or BMP image (the format is detected).

    Args:
        contents: a string scalar.
        channels: None/0 (as stored), 1, 3 or 4.
        dtype: must be uint8.
        expand_animations: GIFs give [frames, h, w, 3] (else the first frame).

    Returns:
        A uint8 tensor.
    """
    if dtypes.as_dtype(dtype) is not dtypes.uint8:
        raise NotImplementedError("decode_image: only dtype=uint8 is supported")
    return _decode(contents, channels or 0, ("PNG", "JPEG", "GIF", "BMP"), "decode_image",
                   expand_animations)


@register_op("EncodeImage")
class EncodeImage:
    """Encodes uint8 pixels [h, w, c] to PNG or JPEG bytes."""

    def infer(image, *, fmt, quality):
        if image.dtype is not dtypes.uint8 or image.shape.rank not in (None, 3):
            raise errors.InvalidArgumentError(
                None, None, f"encode_{fmt.lower()}: image must be uint8 [height, width, "
                f"channels], got {image.dtype.name} {image.shape}")
        return dtypes.string, TensorShape([])

    def kernel(image, *, fmt, quality):
        a = np.asarray(image)
        c = a.shape[2]
        if c not in _MODES or (fmt == "JPEG" and c not in (1, 3)):
            raise errors.InvalidArgumentError(None, None, f"encode_{fmt.lower()}: {c} "
                                              "channels are not supported")
        img = _pil().fromarray(a[:, :, 0] if c == 1 else a, _MODES[c])
        buf = _pyio.BytesIO()
        img.save(buf, fmt, **({"quality": quality} if fmt == "JPEG" else {}))
        return np.asarray(buf.getvalue(), dtype=object)


@name_scoped
def encode_png(image, compression: int = -1, name=None) -> Any:
    """Encodes a uint8 image [h, w, c] as PNG.

    Args:
        image: the pixels.
        compression: accepted (Pillow's default level).

    Returns:
        A string scalar.
    """
    return bind(EncodeImage, [convert_to_tensor(image)], {"fmt": "PNG", "quality": 0})


@name_scoped
def encode_jpeg(image, format: str = "", quality: int = 95, progressive: bool = False,  # noqa: A002
                optimize_size: bool = False, chroma_downsampling: bool = True,
                density_unit: str = "in", x_density: int = 300, y_density: int = 300,
                xmp_metadata: str = "", name=None) -> Any:
    """Encodes a uint8 image [h, w, 1 or 3] as JPEG.

    Args:
        image: the pixels.
        format: accepted ('' , 'grayscale' or 'rgb' follow the channels).
        quality: 0-100.
        progressive: accepted.
        optimize_size: accepted.
        chroma_downsampling: accepted.
        density_unit: accepted.
        x_density: accepted.
        y_density: accepted.
        xmp_metadata: accepted.

    Returns:
        A string scalar.
    """
    return bind(EncodeImage, [convert_to_tensor(image)], {"fmt": "JPEG",
                                                          "quality": int(quality)})


@name_scoped
def is_jpeg(contents, name=None) -> Any:
    """Whether the bytes start like a JPEG file.

    Args:
        contents: a string scalar.

    Returns:
        A bool scalar tensor.
    """
    return convert_to_tensor(np.bool_(_bytes(string_tensor(contents)._value)[:3]
                                      == b"\xff\xd8\xff"))
