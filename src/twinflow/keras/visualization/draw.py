"""``keras.visualization.draw_bounding_boxes`` and ``draw_segmentation_masks``: NumPy
drawing (Keras draws boxes with OpenCV; twinflow draws the rectangles itself and writes class
labels with Pillow, the optional ``[image]`` extra)."""
from __future__ import annotations

import numpy as np

from ..settings import image_data_format
from ..utils.bounding_boxes import convert_format
from ..utils.image_utils import pil_image


def _numpy(x) -> np.ndarray:
    return np.asarray(x.numpy() if hasattr(x, "numpy") else x)


def batch_of_images(images, data_format) -> np.ndarray:
    """A rank-4 NumPy batch in channels_last layout (ValueError otherwise)."""
    arr = _numpy(images)
    if arr.ndim != 4:
        raise ValueError(f"`images` must be batched 4D tensor. Received: images.shape="
                         f"{arr.shape}")
    return arr.transpose(0, 2, 3, 1) if (data_format or image_data_format()) == \
        "channels_first" else arr


def _hline(img: np.ndarray, y: int, x1: int, x2: int, color, t: int) -> None:
    h, w = img.shape[:2]
    lo, hi = max(y - (t - 1) // 2, 0), min(y + t // 2 + 1, h)
    a, b = max(min(x1, x2) - (t - 1) // 2, 0), min(max(x1, x2) + t // 2 + 1, w)
    if lo < hi and a < b:
        img[lo:hi, a:b] = color


def _vline(img: np.ndarray, x: int, y1: int, y2: int, color, t: int) -> None:
    _hline(img.swapaxes(0, 1), x, y1, y2, color, t)


def _label(img: np.ndarray, text: str, x: int, y: int, color, font_scale: float) -> np.ndarray:
    image = pil_image()
    from PIL import ImageDraw  # noqa: PLC0415  (optional dependency, imported on use)
    pil = image.fromarray(img)
    font_h = int(font_scale * 12)
    pos = (x, y - 8 - 2 * font_h) if y - 8 - 2 * font_h > 0 else (x + 3, y + 3)
    ImageDraw.Draw(pil).text(pos, text, fill=tuple(int(c) for c in color))
    return np.asarray(pil).copy()


def draw_bounding_boxes(images, bounding_boxes: dict, bounding_box_format: str,
                        class_mapping: dict | None = None, color=(128, 128, 128),
                        line_thickness: int = 2, text_thickness: int = 1,
                        font_scale: float = 1.0, data_format=None) -> np.ndarray:
    """Draws boxes (and class names from ``class_mapping``) on a batch of images.

    Args:
        images: ``[batch, h, w, 3]`` images (floats in [0, 1] or [0, 255], or uint8).
        bounding_boxes: ``{"boxes": [batch, n, 4], "labels": [batch, n]}`` (label -1: none),
            optionally "confidences".
        bounding_box_format: the boxes' format.
        class_mapping: label -> name, written above each box (needs Pillow).
        color: the RGB colour.
        line_thickness: the rectangle line width, in pixels.
        text_thickness: accepted for Keras compatibility (Pillow's default font is used).
        font_scale: places the label above the box as Keras does.
        data_format: "channels_last" or "channels_first".

    Returns:
        A uint8 NumPy array ``[batch, h, w, 3]`` (channels last).
    """
    arr = batch_of_images(images, data_format)
    if not isinstance(bounding_boxes, dict):
        raise TypeError(f"`bounding_boxes` should be a dict. Received: bounding_boxes="
                        f"{bounding_boxes} of type {type(bounding_boxes)}")
    if "boxes" not in bounding_boxes or "labels" not in bounding_boxes:
        raise ValueError(f"`bounding_boxes` should be a dict containing 'boxes' and 'labels' "
                         f"keys. Received: bounding_boxes={bounding_boxes}")
    h, w = arr.shape[1:3]
    boxes = _numpy(convert_format(bounding_boxes["boxes"], bounding_box_format, "xyxy", h, w))
    labels = _numpy(bounding_boxes["labels"])
    conf = bounding_boxes.get("confidences")
    conf = None if conf is None else _numpy(conf)
    if arr.dtype.kind == "f" and arr.size:
        arr = np.clip(arr, 0, 1) * 255 if arr.max() <= 1.0 else np.clip(arr, 0, 255)
    out = arr.astype("uint8").copy()
    mapping = class_mapping or {}
    for i in range(out.shape[0]):
        img = out[i]
        for k in range(boxes.shape[1]):
            c = int(labels[i][k])
            if c == -1:
                continue
            x1, y1, x2, y2 = (int(v) for v in boxes[i][k].astype("int32"))
            for y in (y1, y2):
                _hline(img, y, x1, x2, color, line_thickness)
            for x in (x1, x2):
                _vline(img, x, y1, y2, color, line_thickness)
            if c in mapping:
                text = mapping[c] if conf is None else f"{mapping[c]} | {conf[i][k]:.2f}"
                img = _label(img, text, x1, y1, color, font_scale)
        out[i] = img
    return out


def _palette(num_classes: int) -> list:
    base = np.array([2 ** 25 - 1, 2 ** 15 - 1, 2 ** 21 - 1])
    return [((i * base) % 255).tolist() for i in range(num_classes)]


def draw_segmentation_masks(images, segmentation_masks, num_classes: int | None = None,
                            color_mapping: dict | None = None, alpha: float = 0.8,
                            blend: bool = True, ignore_index: int = -1,
                            data_format=None) -> np.ndarray:
    """Colours each pixel by its class in ``segmentation_masks``, blended with the image.

    Args:
        images: ``[batch, h, w, 3]`` images.
        segmentation_masks: ``[batch, h, w, 1]`` integer class ids.
        num_classes: the number of classes (default: the largest id, as Keras).
        color_mapping: class -> RGB colour (default: Keras' palette).
        alpha: the mask's weight when blending.
        blend: blend with the image (else the mask colours alone, as float32).
        ignore_index: the id left uncoloured.
        data_format: "channels_last" or "channels_first".

    Returns:
        uint8 (``blend``) or float32 NumPy images.
    """
    imgs = _numpy(images).astype("float32")
    masks = _numpy(segmentation_masks)
    if imgs.ndim != 4:
        raise ValueError(f"`images` must be batched 4D tensor. Received: images.shape="
                         f"{imgs.shape}")
    if (data_format or image_data_format()) == "channels_first":
        imgs, masks = imgs.transpose(0, 2, 3, 1), masks.transpose(0, 2, 3, 1)
    if masks.dtype.kind not in "iu":
        raise TypeError(f"`segmentation_masks` must be in integer dtype. Received: "
                        f"segmentation_masks.dtype={masks.dtype}")
    if num_classes is None:
        num_classes = int(masks.max())
    colors = _palette(num_classes) if color_mapping is None else \
        [color_mapping[i] for i in range(num_classes)]
    ids = masks[..., 0]
    drawn = imgs.copy()
    for k, col in enumerate(colors):
        drawn[ids == k] = np.asarray(col, "float32")
    if not blend:
        return drawn
    out = imgs * (1 - alpha) + drawn * alpha
    out = np.where((ids != ignore_index)[..., None], out, imgs)
    return out.astype("uint8")
