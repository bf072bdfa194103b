"""``keras.utils.bounding_boxes``: Keras 3's box utilities over twinflow ops (tensors or
arrays in, tensors out): format conversion between the nine Keras formats, clipping,
cropping, padding, affine transforms, IoU / CIoU and anchor delta encoding."""
from __future__ import annotations

import math
from typing import Any

from ...eager.execute import convert_to_tensor
from ...ops import array_ops, math_ops, reduction_ops

__all__ = ["affine_transform", "clip_to_image_size", "compute_ciou", "compute_iou",
           "convert_format", "crop", "decode_deltas_to_boxes", "encode_box_to_deltas",
           "pad"]

FORMATS = ("xyxy", "yxyx", "xywh", "center_xywh", "center_yxhw", "rel_xyxy", "rel_yxyx",
           "rel_xywh", "rel_center_xywh")
_EPS = 1e-7


def _parts(boxes) -> list:
    return [boxes[..., i:i + 1] for i in range(4)]


def _join(parts: list):
    return array_ops.concat(parts, -1)


def _to_xyxy(fmt: str, b, h, w):
    p, q, r, s = _parts(b)
    if fmt == "xyxy":
        return b
    if fmt == "yxyx":
        return _join([q, p, s, r])
    if fmt == "xywh":
        return _join([p, q, p + r, q + s])
    if fmt == "center_xywh":
        return _join([p - r / 2.0, q - s / 2.0, p + r / 2.0, q + s / 2.0])
    if fmt == "center_yxhw":
        return _join([q - s / 2.0, p - r / 2.0, q + s / 2.0, p + r / 2.0])
    if fmt == "rel_xyxy":
        return _join([p * w, q * h, r * w, s * h])
    if fmt == "rel_yxyx":
        return _join([q * w, p * h, s * w, r * h])
    if fmt == "rel_xywh":
        return _join([p * w, q * h, (p + r) * w, (q + s) * h])
    return _join([(p - r / 2.0) * w, (q - s / 2.0) * h, (p + r / 2.0) * w,
                  (q + s / 2.0) * h])  # rel_center_xywh


def _from_xyxy(fmt: str, b, h, w):
    x1, y1, x2, y2 = _parts(b)
    bw, bh = x2 - x1, y2 - y1
    cx, cy = x1 + bw / 2.0, y1 + bh / 2.0
    table = {"xyxy": lambda: b, "yxyx": lambda: _join([y1, x1, y2, x2]),
             "xywh": lambda: _join([x1, y1, bw, bh]),
             "center_xywh": lambda: _join([cx, cy, bw, bh]),
             "center_yxhw": lambda: _join([cy, cx, bh, bw]),
             "rel_xyxy": lambda: _join([x1 / w, y1 / h, x2 / w, y2 / h]),
             "rel_yxyx": lambda: _join([y1 / h, x1 / w, y2 / h, x2 / w]),
             "rel_xywh": lambda: _join([x1 / w, y1 / h, bw / w, bh / h]),
             "rel_center_xywh": lambda: _join([cx / w, cy / h, bw / w, bh / h])}
    return table[fmt]()


def convert_format(boxes, source: str, target: str, height=None, width=None,
                   dtype: str = "float32") -> Any:
    """Converts boxes between Keras' formats (a dict's ``"boxes"`` entry too).

    Args:
        boxes: ``[..., 4]`` boxes, or a dict with "boxes".
        source: the boxes' format (one of ``FORMATS``).
        target: the wanted format.
        height: the image height (needed for the relative formats).
        width: the image width.
        dtype: the result dtype.

    Returns:
        The converted boxes (or the dict with them replaced).
    """
    if isinstance(boxes, dict):
        out = dict(boxes)
        out["boxes"] = convert_format(boxes["boxes"], source, target, height, width, dtype)
        return out
    b = math_ops.cast(convert_to_tensor(boxes), dtype)
    if b.shape.rank is not None and b.shape.as_list()[-1] != 4:
        raise ValueError(f"`boxes` must be a tensor with the last dimension of 4. Received: "
                         f"boxes.shape={tuple(b.shape.as_list())}")
    source, target = source.lower(), target.lower()
    if source not in FORMATS or target not in FORMATS:
        raise ValueError(f"Invalid source or target format. Supported formats: {FORMATS}")
    if (source.startswith("rel_") or target.startswith("rel_")) and (height is None or
                                                                     width is None):
        raise ValueError(f"convert_format() must receive `height` and `width` transforming "
                         f"between relative and absolute formats.convert_format() received "
                         f"source=`{source}`, target=`{target}, but height={height} and "
                         f"width={width}.")
    if source == target:
        return b
    h = None if height is None else math_ops.cast(height, dtype)
    w = None if width is None else math_ops.cast(width, dtype)
    if source.startswith("rel_") and target.startswith("rel_"):
        source, target = source[4:], target[4:]
    return _from_xyxy(target, _to_xyxy(source, b, h, w), h, w)


def _area(b):
    x1, y1, x2, y2 = _parts(b)
    return (x2 - x1) * (y2 - y1)


def clip_to_image_size(bounding_boxes: dict, height=None, width=None,
                       bounding_box_format: str = "xyxy") -> dict:
    """Clips ``{"boxes", "labels"}`` to the image; boxes left with no area get label -1.

    Args:
        bounding_boxes: the dict.
        height: the image height ("xyxy").
        width: the image width ("xyxy").
        bounding_box_format: "xyxy" or "rel_xyxy".

    Returns:
        A new dict.
    """
    if bounding_box_format not in ("xyxy", "rel_xyxy"):
        raise NotImplementedError(f"clip_to_image_size: format {bounding_box_format!r} is not "
                                  "supported (use 'xyxy' or 'rel_xyxy')")
    if bounding_box_format == "xyxy" and (height is None or width is None):
        raise ValueError("`height` and `width` must be set if `format='xyxy'`.")
    boxes = convert_to_tensor(bounding_boxes["boxes"])
    hi_w, hi_h = (1.0, 1.0) if bounding_box_format == "rel_xyxy" else \
        (math_ops.cast(width, boxes.dtype), math_ops.cast(height, boxes.dtype))
    x1, y1, x2, y2 = _parts(boxes)
    clip = lambda v, top: math_ops.minimum(math_ops.maximum(v, 0.0), top)  # noqa: E731
    boxes = _join([clip(x1, hi_w), clip(y1, hi_h), clip(x2, hi_w), clip(y2, hi_h)])
    out = dict(bounding_boxes)
    out["boxes"] = boxes
    if bounding_boxes.get("labels") is not None:
        labels = convert_to_tensor(bounding_boxes["labels"])
        keep = math_ops.greater(_area(boxes)[..., 0], 0.0)
        out["labels"] = math_ops.where(keep, labels, -array_ops.ones_like(labels))
    return out


def _xyxy_only(fmt: str, what: str) -> None:
    if fmt != "xyxy":
        raise NotImplementedError(f"{what}: only bounding_box_format='xyxy' is supported "
                                  f"(as in Keras); got {fmt!r}")


def crop(boxes, top, left, height, width, bounding_box_format: str = "xyxy") -> Any:
    """Boxes in the frame of the crop ``[top, top + height) x [left, left + width)``.

    Args:
        boxes: ``[..., 4]`` xyxy boxes.
        top: the crop's top.
        left: the crop's left.
        height: the crop's height.
        width: the crop's width.
        bounding_box_format: "xyxy".

    Returns:
        The clipped boxes.
    """
    _xyxy_only(bounding_box_format, "crop")
    x1, y1, x2, y2 = _parts(convert_to_tensor(boxes))
    clip = lambda v, top_: math_ops.minimum(math_ops.maximum(v, 0.0), top_)  # noqa: E731
    return _join([clip(x1 - left, width), clip(y1 - top, height), clip(x2 - left, width),
                  clip(y2 - top, height)])


def pad(boxes, top, left, height=None, width=None, bounding_box_format: str = "xyxy") -> Any:
    """Boxes moved by padding ``top`` rows and ``left`` columns.

    Args:
        boxes: ``[..., 4]`` xyxy boxes.
        top: rows added above.
        left: columns added to the left.
        height: unused (Keras' signature).
        width: unused (Keras' signature).
        bounding_box_format: "xyxy".

    Returns:
        The shifted boxes.
    """
    _xyxy_only(bounding_box_format, "pad")
    x1, y1, x2, y2 = _parts(convert_to_tensor(boxes))
    return _join([x1 + left, y1 + top, x2 + left, y2 + top])


def affine_transform(boxes, angle, translate_x, translate_y, scale, shear_x, shear_y, height,
                     width, center_x=None, center_y=None,
                     bounding_box_format: str = "xyxy") -> Any:
    """The bounding boxes of ``[batch, n, 4]`` boxes after Keras' per-image affine transform
    (angle and shears in degrees, translations as fractions of the size).

    Args:
        boxes: ``[batch, n, 4]`` xyxy boxes.
        angle: ``[batch]`` rotations.
        translate_x: ``[batch]`` horizontal shifts.
        translate_y: ``[batch]`` vertical shifts.
        scale: ``[batch]`` scales.
        shear_x: ``[batch]`` x shears.
        shear_y: ``[batch]`` y shears.
        height: the image height.
        width: the image width.
        center_x: the relative centre (default 0.5).
        center_y: the relative centre (default 0.5).
        bounding_box_format: "xyxy".

    Returns:
        ``[batch, n, 4]`` boxes.
    """
    _xyxy_only(bounding_box_format, "affine_transform")
    t = lambda v: math_ops.cast(convert_to_tensor(v), "float32")  # noqa: E731
    angle, sx, sy = -t(angle), -t(shear_x), -t(shear_y)
    cx = (0.5 if center_x is None else center_x) * (width - 1)
    cy = (0.5 if center_y is None else center_y) * (height - 1)
    rot = angle * (math.pi / 180.0)
    tx, ty = -t(translate_x) * (width - 1), -t(translate_y) * (height - 1)
    sxr, syr = sx * (math.pi / 180.0), sy * (math.pi / 180.0)
    a = math_ops.cos(rot - syr) / math_ops.cos(syr)
    b = a * math_ops.tan(sxr) + math_ops.sin(rot)
    c = -math_ops.sin(rot - syr) / math_ops.cos(syr)
    d = math_ops.cos(rot) - c * math_ops.tan(sxr)
    s = t(scale)
    a0, a1, b0, b1 = d * s, -b * s, -c * s, a * s
    a2 = cx - a0 * (cx + tx) - a1 * (cy + ty)
    b2 = cy - b0 * (cx + tx) - b1 * (cy + ty)
    bx = t(boxes)
    corners = [(bx[..., 0], bx[..., 1]), (bx[..., 2], bx[..., 1]), (bx[..., 2], bx[..., 3]),
               (bx[..., 0], bx[..., 3])]
    col = lambda v: array_ops.reshape(v, [-1, 1])  # noqa: E731
    xs = array_ops.stack([px * col(a0) + py * col(a1) + col(a2) for px, py in corners], -1)
    ys = array_ops.stack([px * col(b0) + py * col(b1) + col(b2) for px, py in corners], -1)
    return array_ops.stack([reduction_ops.reduce_min(xs, -1), reduction_ops.reduce_min(ys, -1),
                            reduction_ops.reduce_max(xs, -1), reduction_ops.reduce_max(ys, -1)],
                           -1)


def _image_hw(fmt: str, image_shape) -> tuple:
    if "rel" in fmt and image_shape is None:
        raise ValueError(f"When using relative bounding box formats (e.g. `rel_yxyx`) the "
                         f"`image_shape` argument must be provided.Received `image_shape`: "
                         f"{image_shape}")
    return (None, None) if image_shape is None else (image_shape[0], image_shape[1])


def compute_iou(boxes1, boxes2, bounding_box_format: str, use_masking: bool = False,
                mask_val=-1, image_shape=None) -> Any:
    """Pairwise IoU of two sets of boxes: ``[n, 4] x [m, 4] -> [n, m]`` (or batched).

    Args:
        boxes1: ``[n, 4]`` or ``[batch, n, 4]``.
        boxes2: ``[m, 4]`` or ``[batch, m, 4]``.
        bounding_box_format: their format.
        use_masking: give ``mask_val`` where either box is padding (all coordinates < 0).
        mask_val: the value for masked pairs.
        image_shape: ``(height, width, channels)`` for relative formats.

    Returns:
        The IoU matrix.
    """
    h, w = _image_hw(bounding_box_format, image_shape)
    b1 = convert_format(boxes1, bounding_box_format, "yxyx", h, w)
    b2 = convert_format(boxes2, bounding_box_format, "yxyx", h, w)
    for name, b in (("boxes1", b1), ("boxes2", b2)):
        if b.shape.rank not in (2, 3):
            raise ValueError(f"compute_iou() expects {name} to be batched, or to be "
                             f"unbatched. Received len({name}.shape)={b.shape.rank}.")
    perm = [1, 0] if b2.shape.rank == 2 else [0, 2, 1]
    y1a, x1a, y2a, x2a = _parts(b1)
    y1b, x1b, y2b, x2b = (array_ops.transpose(v, perm) for v in _parts(b2))
    ih = math_ops.maximum(math_ops.minimum(y2a, y2b) - math_ops.maximum(y1a, y1b), 0.0)
    iw = math_ops.maximum(math_ops.minimum(x2a, x2b) - math_ops.maximum(x1a, x1b), 0.0)
    inter = ih * iw
    area1 = (y2a - y1a) * (x2a - x1a)
    area2 = (y2b - y1b) * (x2b - x1b)
    res = inter / (area1 + area2 - inter + _EPS)
    if not use_masking:
        return res
    m1 = math_ops.less(reduction_ops.reduce_max(b1, -1, keepdims=True), 0.0)
    m2 = math_ops.less(reduction_ops.reduce_max(b2, -1, keepdims=True), 0.0)
    masked = math_ops.logical_or(m1, array_ops.transpose(m2, perm))
    return math_ops.where(masked, math_ops.cast(mask_val, res.dtype) +
                          array_ops.zeros_like(res), res)


def compute_ciou(boxes1, boxes2, bounding_box_format: str, image_shape=None) -> Any:
    """Complete IoU of aligned box pairs (IoU minus centre-distance and aspect penalties).

    Args:
        boxes1: ``[..., 4]`` boxes.
        boxes2: ``[..., 4]`` boxes (same leading shape).
        bounding_box_format: their format.
        image_shape: ``(height, width, channels)`` for relative formats.

    Returns:
        ``[...]`` CIoU values.
    """
    h, w = _image_hw(bounding_box_format, image_shape)
    x1a, y1a, x2a, y2a = _parts(convert_format(boxes1, bounding_box_format, "xyxy", h, w))
    x1b, y1b, x2b, y2b = _parts(convert_format(boxes2, bounding_box_format, "xyxy", h, w))
    wa, ha = x2a - x1a, y2a - y1a + _EPS
    wb, hb = x2b - x1b, y2b - y1b + _EPS
    inter = math_ops.maximum(math_ops.minimum(x2a, x2b) - math_ops.maximum(x1a, x1b), 0.0) * \
        math_ops.maximum(math_ops.minimum(y2a, y2b) - math_ops.maximum(y1a, y1b), 0.0)
    union = wa * ha + wb * hb - inter + _EPS
    iou = (inter / (union + _EPS))[..., 0]
    cw = math_ops.maximum(x2a, x2b) - math_ops.minimum(x1a, x1b)
    ch = math_ops.maximum(y2a, y2b) - math_ops.minimum(y1a, y1b)
    diag = (cw * cw + ch * ch + _EPS)[..., 0]
    dist = (((x1a + x2a) / 2 - (x1b + x2b) / 2) ** 2 +
            ((y1a + y2a) / 2 - (y1b + y2b) / 2) ** 2)[..., 0]
    v = ((4 / math.pi ** 2) * (math_ops.atan(wb / hb) - math_ops.atan(wa / ha)) ** 2)[..., 0]
    alpha = v / (v - iou + (1 + _EPS))
    return iou - (dist / diag + v * alpha)


def _variance(variance):
    if variance is None:
        return None
    v = math_ops.cast(convert_to_tensor(variance), "float32")
    if v.shape.as_list()[-1] != 4:
        raise ValueError(f"`variance` must be length 4, got {variance}")
    return v


def encode_box_to_deltas(anchors, boxes, anchor_format: str, box_format: str,
                         encoding_format: str = "center_yxhw", variance=None,
                         image_shape=None) -> Any:
    """Box regression targets relative to anchors: centre offsets over anchor sizes and log
    size ratios (divided by ``variance``).

    Args:
        anchors: ``[..., 4]`` anchors.
        boxes: ``[..., 4]`` boxes.
        anchor_format: the anchors' format.
        box_format: the boxes' format.
        encoding_format: "center_yxhw" or "center_xywh".
        variance: four scale factors, or None.
        image_shape: ``(height, width, channels)`` for relative formats.

    Returns:
        ``[..., 4]`` deltas.
    """
    var = _variance(variance)
    if encoding_format not in ("center_xywh", "center_yxhw"):
        raise ValueError(f"`encoding_format` should be one of 'center_xywh' or "
                         f"'center_yxhw', got {encoding_format}")
    h, w = (None, None) if image_shape is None else (image_shape[0], image_shape[1])
    a = convert_format(anchors, anchor_format, encoding_format, h, w)
    b = convert_format(boxes, box_format, encoding_format, h, w)
    asize = math_ops.maximum(a[..., 2:], _EPS)
    bsize = math_ops.maximum(b[..., 2:], _EPS)
    delta = array_ops.concat([(b[..., :2] - a[..., :2]) / asize,
                              math_ops.log(bsize / asize)], -1)
    return delta if var is None else delta / var


def decode_deltas_to_boxes(anchors, boxes_delta, anchor_format: str, box_format: str,
                           encoded_format: str = "center_yxhw", variance=None,
                           image_shape=None) -> Any:
    """Boxes from ``encode_box_to_deltas`` deltas (dicts of levels are decoded per level).

    Args:
        anchors: ``[..., 4]`` anchors, or a dict of them per level.
        boxes_delta: the deltas (the same structure).
        anchor_format: the anchors' format.
        box_format: the wanted box format.
        encoded_format: "center_yxhw" or "center_xywh".
        variance: four scale factors, or None.
        image_shape: ``(height, width, channels)`` for relative formats.

    Returns:
        The boxes (or a dict of them).
    """
    var = _variance(variance)
    if encoded_format not in ("center_xywh", "center_yxhw"):
        raise ValueError(f"`encoded_format` should be 'center_xywh' or 'center_yxhw', but got "
                         f"'{encoded_format}'.")
    h, w = (None, None) if image_shape is None else (image_shape[0], image_shape[1])

    def one(anchor, delta):
        a = convert_format(anchor, anchor_format, encoded_format, h, w)
        d = math_ops.cast(convert_to_tensor(delta), "float32")
        d = d if var is None else d * var
        box = array_ops.concat([d[..., :2] * a[..., 2:] + a[..., :2],
                                math_ops.exp(d[..., 2:]) * a[..., 2:]], -1)
        return convert_format(box, encoded_format, box_format, h, w)

    if isinstance(anchors, dict) and isinstance(boxes_delta, dict):
        return {k: one(v, boxes_delta[k]) for k, v in anchors.items()}
    return one(anchors, boxes_delta)


