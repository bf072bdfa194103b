"""Image files and arrays as Keras' ``utils`` handles them: ``load_img``, ``img_to_array``,
``array_to_img``, ``save_img`` (through Pillow, the optional ``[image]`` extra) and
``smart_resize`` (twinflow ops)."""
from __future__ import annotations

import io
import os
import warnings
from typing import Any

import numpy as np

from ...core.files import atomic_write
from ...eager.execute import convert_to_tensor
from ...ops import array_ops
from ..layers.preprocessing.image import aspect_crop, resize_as_keras
from ..settings import image_data_format

__all__ = ["array_to_img", "img_to_array", "load_img", "save_img", "smart_resize"]

_RESAMPLE = {"nearest": "NEAREST", "bilinear": "BILINEAR", "bicubic": "BICUBIC",
             "hamming": "HAMMING", "box": "BOX", "lanczos": "LANCZOS"}


def pil_image():
    """Pillow's ``Image`` module, or an ImportError saying how to install it.

    Returns:
        The module.
    """
    try:
        from PIL import Image  # noqa: PLC0415  (optional dependency, imported on use)
    except ImportError:
        raise ImportError("Keras image utilities need Pillow: pip install 'twinflow[image]' "
                          "(or pip install pillow)") from None
    return Image


def _data_format(data_format) -> str:
    fmt = data_format or image_data_format()  # keras.config.image_data_format()
    if fmt not in ("channels_last", "channels_first"):
        raise ValueError(f"Invalid data_format: {data_format}")
    return fmt


def array_to_img(x, data_format: str | None = None, scale: bool = True,
                 dtype: str | None = None) -> Any:
    """A 3D array (height, width, channels) as a PIL image.

    Args:
        x: the array (1, 3 or 4 channels; also a tensor).
        data_format: "channels_last" (default) or "channels_first".
        scale: rescale the values to [0, 255] (min to 0, max to 255).
        dtype: the working float dtype (default float32).

    Returns:
        A ``PIL.Image.Image``.
    """
    image = pil_image()
    x = np.asarray(x.numpy() if hasattr(x, "numpy") else x, dtype=dtype or "float32")
    if x.ndim != 3:
        raise ValueError(f"Expected image array to have rank 3 (single image). Got array "
                         f"with shape: {x.shape}")
    if _data_format(data_format) == "channels_first":
        x = x.transpose(1, 2, 0)
    if scale:
        x = x - np.min(x)
        top = np.max(x)
        if top != 0:
            x = x / top
        x = x * 255
    c = x.shape[2]
    if c == 4:
        return image.fromarray(x.astype("uint8"), "RGBA")
    if c == 3:
        return image.fromarray(x.astype("uint8"), "RGB")
    if c == 1:
        if np.max(x) > 255:  # 32-bit signed integer greyscale
            return image.fromarray(x[:, :, 0].astype("int32"), "I")
        return image.fromarray(x[:, :, 0].astype("uint8"), "L")
    raise ValueError(f"Unsupported channel number: {c}")


def img_to_array(img, data_format: str | None = None, dtype: str | None = None) -> np.ndarray:
    """A PIL image as a 3D NumPy array.

    Args:
        img: the image.
        data_format: "channels_last" (default) or "channels_first".
        dtype: the array dtype (default float32).

    Returns:
        ``(height, width, channels)`` (or channels first).
    """
    x = np.asarray(img, dtype=dtype or "float32")
    if x.ndim == 2:
        x = x[:, :, None]
    elif x.ndim != 3:
        raise ValueError(f"Unsupported image shape: {x.shape}")
    return x.transpose(2, 0, 1) if _data_format(data_format) == "channels_first" else x


def save_img(path, x, data_format: str | None = None, file_format: str | None = None,
             scale: bool = True, **kwargs) -> None:
    """Writes an image array to a file (atomically: a temporary file, then a rename).

    Args:
        path: the file path (or a writable file object).
        x: the array.
        data_format: "channels_last" or "channels_first".
        file_format: the format (default: from the file extension).
        scale: rescale the values to [0, 255].
        **kwargs: passed to ``PIL.Image.save``.

    Returns:
        None.
    """
    img = array_to_img(x, data_format=data_format, scale=scale)
    if img.mode == "RGBA" and (file_format == "jpg" or file_format == "jpeg" or (
            file_format is None and isinstance(path, (str, os.PathLike)) and
            str(path).lower().endswith((".jpg", ".jpeg")))):
        warnings.warn("The JPG format does not support RGBA images, converting to RGB.",
                      stacklevel=2)
        img = img.convert("RGB")
    if file_format in ("jpg",):
        file_format = "jpeg"
    if not isinstance(path, (str, os.PathLike)):
        img.save(path, format=file_format, **kwargs)
        return
    path = os.fspath(path)
    fmt = file_format or _format_of(path)
    buf = io.BytesIO()
    img.save(buf, format=fmt, **kwargs)
    atomic_write(path, buf.getvalue())


def _format_of(path: str) -> str:
    ext = os.path.splitext(path)[1].lower().lstrip(".")
    image = pil_image()
    image.init()
    fmt = image.registered_extensions().get("." + ext)
    if fmt is None:
        raise ValueError(f"save_img: cannot tell the image format of {path!r}; pass "
                         "file_format")
    return fmt


def load_img(path, color_mode: str = "rgb", target_size=None, interpolation: str = "nearest",
             keep_aspect_ratio: bool = False) -> Any:
    """Loads an image file as a PIL image.

    Args:
        path: the file path, or a file-like object / ``io.BytesIO``.
        color_mode: "grayscale", "rgb" or "rgba".
        target_size: ``(height, width)`` to resize to, or None.
        interpolation: "nearest", "bilinear", "bicubic", "hamming", "box" or "lanczos".
        keep_aspect_ratio: crop the centre to the target aspect ratio before resizing.

    Returns:
        A ``PIL.Image.Image``.
    """
    image = pil_image()
    if isinstance(path, io.BytesIO) or hasattr(path, "read"):
        img = image.open(path)
    elif isinstance(path, (str, os.PathLike, bytes)):
        with open(path, "rb") as f:
            img = image.open(io.BytesIO(f.read()))
    else:
        raise TypeError(f"path should be path-like or io.BytesIO, not {type(path)}")
    modes = {"grayscale": ("L", "I;16", "I"), "rgba": ("RGBA",), "rgb": ("RGB",)}
    if color_mode not in modes:
        raise ValueError('color_mode must be "grayscale", "rgb", or "rgba"')
    if img.mode not in modes[color_mode]:
        img = img.convert({"grayscale": "L", "rgba": "RGBA", "rgb": "RGB"}[color_mode])
    if target_size is not None:
        width_height = (int(target_size[1]), int(target_size[0]))
        if img.size != width_height:
            if interpolation not in _RESAMPLE:
                raise ValueError(f"Invalid interpolation method {interpolation} specified. "
                                 f"Supported methods are {', '.join(_RESAMPLE)}")
            resample = getattr(image.Resampling, _RESAMPLE[interpolation])
            if keep_aspect_ratio:
                w, h = img.size
                tw_, th = width_height
                crop_h = (w * th) // tw_
                crop_w = (h * tw_) // th
                crop_h, crop_w = min(h, crop_h), min(w, crop_w)
                top, left = (h - crop_h) // 2, (w - crop_w) // 2
                img = img.crop((left, top, left + crop_w, top + crop_h))
            img = img.resize(width_height, resample)
    return img


def smart_resize(x, size, interpolation: str = "bilinear",
                 data_format: str = "channels_last", **kwargs) -> Any:
    """Resizes an image (or batch) to ``size`` without distorting it: the largest centred
    window with the target aspect ratio is cropped, then resized.

    Args:
        x: a rank-3 image or rank-4 batch (array or tensor).
        size: ``(height, width)``.
        interpolation: a ``tw.image.resize`` method ("bilinear", "nearest", "bicubic"...).
        data_format: "channels_last" or "channels_first".
        **kwargs: ``backend_module`` (Keras' backend choice; twinflow has one, so only None
            is accepted).

    Returns:
        A NumPy array for a NumPy input, else a tensor (integer images keep their dtype).
    """
    if kwargs.pop("backend_module", None) is not None:
        raise ValueError("smart_resize: twinflow has one backend; pass backend_module=None")
    if kwargs:
        raise TypeError(f"smart_resize() got unexpected keyword arguments: {list(kwargs)}")
    if len(size) != 2:
        raise ValueError(f"Expected `size` to be a tuple of 2 integers, but got: {size}.")
    img = convert_to_tensor(x)
    rank = img.shape.rank
    if rank not in (3, 4):
        raise ValueError(f"Expected an image array with shape `(height, width, channels)`, "
                         f"or `(batch_size, height, width, channels)`, but got input with "
                         f"incorrect rank, of shape {img.shape}.")
    first = _data_format(data_format) == "channels_first"
    if first:
        img = array_ops.transpose(img, [1, 2, 0] if rank == 3 else [0, 2, 3, 1])
    th, tw_ = int(size[0]), int(size[1])
    y = resize_as_keras(aspect_crop(img, th, tw_), th, tw_, interpolation, False, "float32")
    if first:
        y = array_ops.transpose(y, [2, 0, 1] if rank == 3 else [0, 3, 1, 2])
    return y.numpy() if isinstance(x, np.ndarray) else y
