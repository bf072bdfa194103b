"""Smaller ``tw.io`` functions: decode_json_example, match_filenames_once,
JPEG shape and crop helpers, WebP decoding."""
from __future__ import annotations

from typing import Any

import numpy as np

from ..core import dtypes, errors
from ..eager.execute import convert_to_tensor
from ..graph.graph import name_scoped
from .codecs import bytes_of as _bytes
from .codecs import matching_files
from .image import _decode, _open, check_jpeg_options
from .protos import message_class


@name_scoped
def decode_json_example(json_examples, name=None) -> Any:
    """Converts Examples written as JSON (protobuf's JSON mapping) to serialized Examples.

    Args:
        json_examples: a string tensor of JSON texts.

    Returns:
        A string tensor of the same shape.
    """
    from google.protobuf import json_format  # noqa: PLC0415  (protobuf is imported on use)
    t = convert_to_tensor(json_examples)
    flat = []
    for s in np.asarray(t._value, dtype=object).reshape(-1):
        try:
            flat.append(json_format.Parse(_bytes(s).decode(), message_class("Example")())
                        .SerializeToString())
        except json_format.ParseError as e:
            raise errors.InvalidArgumentError(None, None, f"decode_json_example: {e}") \
                from None
    return convert_to_tensor(np.asarray(flat + [None], dtype=object)[:-1]
                             .reshape(np.shape(t._value)))


@name_scoped
def match_filenames_once(pattern, name=None) -> Any:
    """The files matching ``pattern``, looked up once (now).

    Args:
        pattern: a glob pattern or a list of them.

    Returns:
        A string vector.
    """
    return matching_files(pattern)


@name_scoped
def extract_jpeg_shape(contents, output_type=dtypes.int32, name=None) -> Any:
    """``[height, width, channels]`` of a JPEG image, without decoding its pixels.

    Args:
        contents: a string scalar of JPEG bytes.
        output_type: int32 or int64.

    Returns:
        A vector of 3 values.
    """
    img = _open(_bytes(convert_to_tensor(contents)._value), "extract_jpeg_shape", ("JPEG",))
    c = len(img.getbands())
    dt = dtypes.as_dtype(output_type)
    return convert_to_tensor(np.asarray([img.height, img.width, c], dtype=dt.np))


@name_scoped
def decode_and_crop_jpeg(contents, crop_window, channels: int = 0, ratio: int = 1,
                         fancy_upscaling: bool = True, try_recover_truncated: bool = False,
                         acceptable_fraction: float = 1, dct_method: str = "", name=None) -> Any:
    """Decodes the window ``[y, x, height, width]`` of a JPEG image.

    Args:
        contents: a string scalar of JPEG bytes.
        crop_window: ``[crop_y, crop_x, crop_height, crop_width]``.
        channels: 0, 1 or 3.
        ratio: must be 1.
        fancy_upscaling: accepted.
        try_recover_truncated: must be False.
        acceptable_fraction: must be 1.
        dct_method: accepted.

    Returns:
        A uint8 tensor [crop_height, crop_width, channels].
    """
    check_jpeg_options("decode_and_crop_jpeg", ratio, try_recover_truncated,
                       acceptable_fraction)
    img = _decode(contents, channels, ("JPEG",), "decode_and_crop_jpeg").numpy()
    y, x, h, w = (int(v) for v in np.asarray(convert_to_tensor(crop_window)._value))
    if y < 0 or x < 0 or h <= 0 or w <= 0 or y + h > img.shape[0] or x + w > img.shape[1]:
        raise errors.InvalidArgumentError(
            None, None, f"crop_window {[y, x, h, w]} is outside the image of shape "
            f"{list(img.shape[:2])}")
    return convert_to_tensor(img[y:y + h, x:x + w])


@name_scoped
def decode_webp(contents, channels: int = 0, name=None) -> Any:
    """Decodes a WebP image (through Pillow).

    Args:
        contents, channels: as for ``decode_bmp``, with WebP bytes.

    Returns:
        A uint8 tensor [height, width, channels].
    """
    return _decode(contents, channels, ("WEBP",), "decode_webp")
