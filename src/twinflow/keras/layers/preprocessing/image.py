"""Image preprocessing layers: Resizing, CenterCrop (channels_last or channels_first images,
one image or a batch; built on ``tw.image``)."""
from __future__ import annotations

from ....graph.tensor import Tensor
from ....ops import array_ops, math_ops
from ....ops.image.resize import resize as _resize
from ..reshaping import _data_format as _fmt
from .base import PreprocessingLayer

_METHODS = ("bilinear", "nearest", "bicubic", "area", "lanczos3", "lanczos5", "gaussian",
            "mitchellcubic")


def to_last(x: Tensor, fmt: str) -> Tensor:
    """``x`` in channels_last layout."""
    if fmt == "channels_last":
        return x
    perm = [1, 2, 0] if x.shape.rank == 3 else [0, 2, 3, 1]
    return array_ops.transpose(x, perm)


def from_last(x: Tensor, fmt: str) -> Tensor:
    """``x`` (channels_last) back in ``fmt``."""
    if fmt == "channels_last":
        return x
    perm = [2, 0, 1] if x.shape.rank == 3 else [0, 3, 1, 2]
    return array_ops.transpose(x, perm)


def hw(x: Tensor, what: str) -> tuple:
    """The static (height, width) of a channels_last image or batch."""
    if x.shape.rank not in (3, 4):
        raise ValueError(f"{what} expects images of rank 3 or 4; got shape {x.shape}")
    h, w = x.shape[-3], x.shape[-2]
    if h is None or w is None:
        raise ValueError(f"{what} needs images of known height and width; got {x.shape}")
    return int(h), int(w)


def crop(x: Tensor, top: int, left: int, h: int, w: int) -> Tensor:
    """The ``h``×``w`` window at (top, left) of a channels_last image or batch."""
    if x.shape.rank == 3:
        return x[top:top + h, left:left + w, :]
    return x[:, top:top + h, left:left + w, :]


def aspect_crop(x: Tensor, th: int, tw_: int) -> Tensor:
    """The largest centred window of ``x`` with the aspect ratio ``th:tw_`` (Keras' rule)."""
    h, w = hw(x, "crop_to_aspect_ratio")
    ch = max(min(h, int(float(w * th) / tw_)), 1)
    cw = max(min(w, int(float(h * tw_) / th)), 1)
    return crop(x, int(float(h - ch) / 2), int(float(w - cw) / 2), ch, cw)


def resize_as_keras(x: Tensor, th: int, tw_: int, method: str, antialias: bool,
                    dtype) -> Tensor:
    """``tw.image.resize`` in float, cast back to the input's dtype when it was an integer
    (as Keras 3 does) and to ``dtype`` otherwise."""
    orig = x.dtype
    if not orig.is_floating:
        x = math_ops.cast(x, dtype)
    y = _resize(x, (th, tw_), method=method, antialias=antialias)
    return math_ops.cast(y, orig if not orig.is_floating else dtype)


class Resizing(PreprocessingLayer):
    """Resizes images to ``(height, width)``.

    Args:
        height: the output height.
        width: the output width.
        interpolation: a ``tw.image.resize`` method.
        crop_to_aspect_ratio: first crop the largest centred window of the target ratio.
        pad_to_aspect_ratio: first pad (with ``fill_value``) to the target ratio.
        fill_mode: "constant" (the padding).
        fill_value: the padding value.
        antialias: antialias when downsampling.
        data_format: "channels_last" or "channels_first".
        **kwargs: Layer arguments.
    """

    def __init__(self, height: int, width: int, interpolation: str = "bilinear",
                 crop_to_aspect_ratio: bool = False, pad_to_aspect_ratio: bool = False,
                 fill_mode: str = "constant", fill_value: float = 0.0, antialias: bool = False,
                 data_format=None, **kwargs) -> None:
        super().__init__(**kwargs)
        if interpolation not in _METHODS:
            raise ValueError(f"Invalid interpolation {interpolation!r}; expected one of "
                             f"{list(_METHODS)}")
        if crop_to_aspect_ratio and pad_to_aspect_ratio:
            raise ValueError("Only one of `crop_to_aspect_ratio` and `pad_to_aspect_ratio` can "
                             "be True.")
        if fill_mode != "constant":
            raise ValueError(f"Resizing supports fill_mode='constant' only; got {fill_mode!r}")
        self.height, self.width = int(height), int(width)
        self.interpolation = interpolation
        self.crop_to_aspect_ratio = crop_to_aspect_ratio
        self.pad_to_aspect_ratio = pad_to_aspect_ratio
        self.fill_mode, self.fill_value = fill_mode, fill_value
        self.antialias = antialias
        self.data_format = _fmt(data_format)

    def call(self, inputs) -> Tensor:
        x = to_last(inputs, self.data_format)
        if self.crop_to_aspect_ratio:
            x = aspect_crop(x, self.height, self.width)
        elif self.pad_to_aspect_ratio:
            x = self._pad(x)
        y = resize_as_keras(x, self.height, self.width, self.interpolation, self.antialias,
                            self._tw_dtype)
        return from_last(y, self.data_format)

    def _pad(self, x: Tensor) -> Tensor:
        h, w = hw(x, "Resizing")
        ph = max(h, int(w * self.height / self.width))
        pw = max(w, int(h * self.width / self.height))
        top, left = (ph - h) // 2, (pw - w) // 2
        pads = [[top, ph - h - top], [left, pw - w - left], [0, 0]]
        if x.shape.rank == 4:
            pads = [[0, 0]] + pads
        return array_ops.pad(x, pads, constant_values=self.fill_value)

    _config_keys = ("data_format", "height", "width", "interpolation", "crop_to_aspect_ratio",
                    "pad_to_aspect_ratio", "fill_mode", "fill_value", "antialias")


class CenterCrop(PreprocessingLayer):
    """Crops the centre ``height``×``width`` window; a smaller image is first cropped to the
    target aspect ratio and resized up (as Keras).

    Args:
        height: the output height.
        width: the output width.
        data_format: "channels_last" or "channels_first".
        **kwargs: Layer arguments.
    """

    def __init__(self, height: int, width: int, data_format=None, **kwargs) -> None:
        super().__init__(**kwargs)
        self.height, self.width = int(height), int(width)
        self.data_format = _fmt(data_format)

    def call(self, inputs) -> Tensor:
        x = to_last(inputs, self.data_format)
        h, w = hw(x, "CenterCrop")
        if h >= self.height and w >= self.width:
            y = crop(x, (h - self.height) // 2, (w - self.width) // 2, self.height, self.width)
            if y.dtype.is_floating and y.dtype != self._tw_dtype:
                y = math_ops.cast(y, self._tw_dtype)
        else:
            y = resize_as_keras(aspect_crop(x, self.height, self.width), self.height,
                                self.width, "bilinear", False, self._tw_dtype)
        return from_last(y, self.data_format)

    _config_keys = ("data_format", "height", "width")
