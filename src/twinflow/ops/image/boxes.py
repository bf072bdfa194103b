"""Boxes in tf.image: crop_and_resize (twinflow ops, so differentiable in the image and the
boxes), non-max suppression and draw_bounding_boxes (NumPy kernels; not differentiable, as in
TensorFlow)."""
from __future__ import annotations

from collections import namedtuple

import numpy as np

from ...core import dtypes
from ...core.shapes import TensorShape
from ...eager.execute import bind, constant_value
from ...graph.graph import name_scoped
from ...graph.registry import register_op
from ...graph.tensor import Tensor, TensorLike
from ..array.gather import gather, gather_nd
from ..array.layout import unstack
from ..core import _fmt, convert, static_ints
from ..core import invalid_argument as _err
from ..math.cast import cast
from ..math.clip import clip_by_value
from ..math.comparison import greater, less, logical_or, where
from ..math.unary import floor

# ----- crop_and_resize ----------------------------------------------------------------------------

def _coords(lo, hi, n_out: int, n_in: int):
    """Sampling coordinates [N, n_out] of each box along one axis (TensorFlow's rule)."""
    size = float(n_in - 1)
    if n_out > 1:
        step = (hi - lo) * (size / (n_out - 1))
        return lo[:, None] * size + np.arange(n_out, dtype=np.float32)[None] * step[:, None]
    return ((lo + hi) * (0.5 * size))[:, None]


def _axis_taps(c, n_in: int, method: str):
    """(low index, high index, weight of high) along one axis; indices clamped for gathering."""
    if method == "nearest":
        i = cast(clip_by_value(floor(c + 0.5), 0.0, n_in - 1.0), dtypes.int32)
        return i, i, None
    f = floor(c)
    lo = cast(clip_by_value(f, 0.0, n_in - 1.0), dtypes.int32)
    hi = cast(clip_by_value(f + 1.0, 0.0, n_in - 1.0), dtypes.int32)
    return lo, hi, c - f


@name_scoped
def crop_and_resize(image: TensorLike, boxes: TensorLike, box_indices: TensorLike, crop_size,
                    method: str = "bilinear", extrapolation_value=0.0,
                    name: str | None = None) -> Tensor:
    """Crops normalized boxes out of a batch of images and resizes them
    (``tw.image.crop_and_resize``).

    Args:
        image: ``[batch, height, width, channels]`` with known height and width.
        boxes: float ``[num_boxes, 4]``: ``[y1, x1, y2, x2]`` in [0, 1] image coordinates
            (y1 > y2 flips the crop).
        box_indices: int32 ``[num_boxes]``: the image of each box.
        crop_size: ``[crop_height, crop_width]``, known when the op is built.
        method: "bilinear" or "nearest".
        extrapolation_value: the value of samples outside the image.

    Returns:
        float32 ``[num_boxes, crop_height, crop_width, channels]``.
    """
    if method not in ("bilinear", "nearest"):
        raise ValueError(f"crop_and_resize: method must be 'bilinear' or 'nearest', got "
                         f"{method!r}")
    x = convert(image, name="image")
    if x.shape.rank != 4 or x.shape[1] is None or x.shape[2] is None:
        raise ValueError(f"crop_and_resize: image must be [batch, height, width, channels] "
                         f"with known height and width, got {x.shape}")
    x = cast(x, dtypes.float32)
    b = cast(convert(boxes, name="boxes"), dtypes.float32)
    if b.shape.rank != 2 or b.shape[1] not in (None, 4):
        raise ValueError(f"crop_and_resize: boxes must be [num_boxes, 4], got {b.shape}")
    idx = convert(box_indices, dtype=dtypes.int32)
    ch, cw = static_ints(crop_size, "crop_and_resize: crop_size")
    if ch <= 0 or cw <= 0:
        raise ValueError(f"crop_and_resize: crop_size must be positive, got {[ch, cw]}")
    h, w = x.shape[1], x.shape[2]
    y1, x1, y2, x2 = unstack(b, 4, axis=1)
    ys, xs = _coords(y1, y2, ch, h), _coords(x1, x2, cw, w)          # [N, ch], [N, cw]
    outside = logical_or(
        logical_or(less(ys, 0.0), greater(ys, h - 1.0))[:, :, None],
        logical_or(less(xs, 0.0), greater(xs, w - 1.0))[:, None, :])  # [N, ch, cw]
    img = gather_nd(x, idx[:, None])  # [N, H, W, C] (gather_nd: a dense image gradient)
    top, bottom, ly = _axis_taps(ys, h, method)
    left, right, lx = _axis_taps(xs, w, method)

    def sample(rows, cols):
        r = gather(img, rows, axis=1, batch_dims=1)                   # [N, ch, W, C]
        return gather(r, cols, axis=2, batch_dims=1)                  # [N, ch, cw, C]

    if method == "nearest":
        out = sample(top, left)
    else:
        ly, lx = ly[:, :, None, None], lx[:, None, :, None]
        t = sample(top, left) + (sample(top, right) - sample(top, left)) * lx
        btm = sample(bottom, left) + (sample(bottom, right) - sample(bottom, left)) * lx
        out = t + (btm - t) * ly
    fill = cast(extrapolation_value, dtypes.float32)
    return where(outside[:, :, :, None], fill + out * 0.0, out)


# ----- non-max suppression ------------------------------------------------------------------------

def _iou(a: np.ndarray, b: np.ndarray) -> float:
    ay0, ay1 = sorted((a[0], a[2]))
    ax0, ax1 = sorted((a[1], a[3]))
    by0, by1 = sorted((b[0], b[2]))
    bx0, bx1 = sorted((b[1], b[3]))
    area_a, area_b = (ay1 - ay0) * (ax1 - ax0), (by1 - by0) * (bx1 - bx0)
    if area_a <= 0 or area_b <= 0:
        return 0.0
    ih = max(min(ay1, by1) - max(ay0, by0), 0.0)
    iw = max(min(ax1, bx1) - max(ax0, bx0), 0.0)
    inter = ih * iw
    return float(inter / (area_a + area_b - inter))


def _nms(boxes, scores, max_out: int, iou_t: float, score_t: float, sigma: float):
    """TensorFlow's greedy (soft-)NMS: (indices, scores) of the selected boxes."""
    scale = -0.5 / sigma if sigma > 0 else 0.0
    # Candidates: (score, index, boxes already compared against); ties by lower index.
    queue = [(float(s), i, 0) for i, s in enumerate(scores) if s > score_t]
    sel, sel_scores = [], []
    while len(sel) < max_out and queue:
        queue.sort(key=lambda c: (-c[0], c[1]))
        score, i, begin = queue.pop(0)
        original, hard = score, False
        for j in range(len(sel) - 1, begin - 1, -1):
            sim = _iou(boxes[i], boxes[sel[j]])
            # Soft-NMS only decays scores; hard NMS drops overlaps above the threshold.
            score *= np.exp(scale * sim * sim) if sigma > 0 or sim <= iou_t else 0.0
            if sigma <= 0 and sim > iou_t:
                hard = True
                break
            if score <= score_t:
                break
        if hard:
            continue
        if score == original:
            sel.append(i)
            sel_scores.append(score)
        elif score > score_t:
            queue.append((score, i, len(sel)))
    return sel, sel_scores


@register_op("NonMaxSuppressionV5", multi_output=True)
class NonMaxSuppressionV5:
    """Greedy (soft-)NMS: indices and scores of the kept boxes, and how many were kept."""

    def infer(boxes, scores, max_output_size, iou_threshold, score_threshold, soft_nms_sigma,
              *, pad_to_max_output_size=False):
        if boxes.shape.rank not in (None, 2) or boxes.shape.rank == 2 and \
                boxes.shape[1] not in (None, 4):
            raise _err(f"non_max_suppression: boxes must be [num_boxes, 4], got "
                       f"{_fmt(boxes.shape)}")
        if scores.shape.rank not in (None, 1):
            raise _err(f"non_max_suppression: scores must be 1-D, got {_fmt(scores.shape)}")
        m = constant_value(max_output_size)
        n = None if not pad_to_max_output_size or m is None else int(m)
        return [(dtypes.int32, TensorShape([n])), (scores.dtype, TensorShape([n])),
                (dtypes.int32, TensorShape([]))]

    def kernel(boxes, scores, max_output_size, iou_threshold, score_threshold, soft_nms_sigma,
               *, pad_to_max_output_size=False):
        if boxes.ndim != 2 or boxes.shape[1] != 4 or scores.shape != boxes.shape[:1]:
            raise _err(f"non_max_suppression: boxes {list(boxes.shape)} must be [n, 4] and "
                       f"scores {list(scores.shape)} [n]")
        m = int(max_output_size)
        if m < 0:
            raise _err(f"non_max_suppression: max_output_size must be >= 0, got {m}")
        if not 0.0 <= float(iou_threshold) <= 1.0:
            raise _err(f"non_max_suppression: iou_threshold must be in [0, 1], got "
                       f"{float(iou_threshold)}")
        sel, sc = _nms(boxes.astype(np.float64), scores, m, float(iou_threshold),
                       float(score_threshold), float(soft_nms_sigma))
        k = len(sel)
        if pad_to_max_output_size:
            sel, sc = sel + [0] * (m - k), sc + [0.0] * (m - k)
        return (np.asarray(sel, np.int32), np.asarray(sc, scores.dtype), np.int32(k))

    def grad(op, *dys):
        return None, None, None, None, None, None


_NMSWithScores = namedtuple("NonMaxSuppressionV5", ["selected_indices", "selected_scores"])


def _nms_call(boxes, scores, max_output_size, iou_threshold, score_threshold, sigma, pad):
    b = convert(boxes, name="boxes")
    s = convert(scores, dtype=b.dtype)
    args = [b, s, convert(max_output_size, dtype=dtypes.int32),
            convert(iou_threshold, dtype=b.dtype), convert(score_threshold, dtype=b.dtype),
            convert(sigma, dtype=b.dtype)]
    return bind(NonMaxSuppressionV5, args, {"pad_to_max_output_size": bool(pad)})


@name_scoped
def non_max_suppression(boxes: TensorLike, scores: TensorLike, max_output_size,
                        iou_threshold=0.5, score_threshold=float("-inf"),
                        name: str | None = None) -> Tensor:
    """Greedily keeps the highest-scoring boxes that overlap no kept box by more than
    ``iou_threshold`` (``tw.image.non_max_suppression``).

    Args:
        boxes: ``[num_boxes, 4]`` corners ``[y1, x1, y2, x2]`` (any corner order).
        scores: ``[num_boxes]``.
        max_output_size: the most boxes to keep.
        iou_threshold: boxes overlapping a kept one by more than this are dropped.
        score_threshold: boxes scoring at most this are dropped.

    Returns:
        int32 indices of the kept boxes, best first.
    """
    return _nms_call(boxes, scores, max_output_size, iou_threshold, score_threshold, 0.0,
                     False)[0]


@name_scoped
def non_max_suppression_with_scores(boxes: TensorLike, scores: TensorLike, max_output_size,
                                    iou_threshold=0.5, score_threshold=float("-inf"),
                                    soft_nms_sigma=0.0, name: str | None = None) -> tuple:
    """NMS that also returns the (soft-NMS decayed) scores
    (``tw.image.non_max_suppression_with_scores``).

    Args:
        boxes: ``[num_boxes, 4]``.
        scores: ``[num_boxes]``.
        max_output_size: the most boxes to keep.
        iou_threshold: the overlap above which a box is dropped.
        score_threshold: boxes scoring at most this are dropped.
        soft_nms_sigma: > 0 decays overlapping scores by ``exp(-iou^2 / (2 sigma))``
            instead of dropping them (Soft-NMS).

    Returns:
        (selected_indices, selected_scores).
    """
    sel, sc, _ = _nms_call(boxes, scores, max_output_size, iou_threshold, score_threshold,
                           soft_nms_sigma, False)
    return _NMSWithScores(sel, sc)


@name_scoped
def non_max_suppression_padded(boxes: TensorLike, scores: TensorLike, max_output_size,
                               iou_threshold=0.5, score_threshold=float("-inf"),
                               pad_to_max_output_size=False, name: str | None = None,
                               sorted_input=False, canonicalized_coordinates=False,
                               tile_size=512) -> tuple:
    """NMS with the number of kept boxes, optionally zero-padded to ``max_output_size``
    (``tw.image.non_max_suppression_padded``).

    Args:
        boxes, scores, max_output_size, iou_threshold, score_threshold: as for
            ``non_max_suppression_with_scores``.
        pad_to_max_output_size: pad the indices with zeros to ``max_output_size``.
        sorted_input: a speed hint of TensorFlow's (the result does not depend on it).
        canonicalized_coordinates: a speed hint (any corner order is handled).
        tile_size: a speed hint of TensorFlow's tiled kernel.

    Returns:
        (selected_indices, valid_outputs).
    """
    sel, _, valid = _nms_call(boxes, scores, max_output_size, iou_threshold, score_threshold,
                              0.0, pad_to_max_output_size)
    return sel, valid


# ----- draw_bounding_boxes ------------------------------------------------------------------------

@register_op("DrawBoundingBoxesV2")
class DrawBoundingBoxesV2:
    """Draws one-pixel box outlines into images, cycling through ``colors``."""

    def infer(images, boxes, colors):
        if images.shape.rank not in (None, 4) or boxes.shape.rank not in (None, 3):
            raise _err(f"draw_bounding_boxes: images must be 4-D and boxes [batch, n, 4], got "
                       f"{_fmt(images.shape)} and {_fmt(boxes.shape)}")
        return images.dtype, images.shape

    def kernel(images, boxes, colors):
        if boxes.shape[0] != images.shape[0] or boxes.shape[-1] != 4:
            raise _err(f"draw_bounding_boxes: boxes {list(boxes.shape)} must be "
                       f"[{images.shape[0]}, n, 4]")
        depth = images.shape[3]
        if colors.ndim != 2 or colors.shape[0] == 0 or colors.shape[1] < depth:
            raise _err(f"draw_bounding_boxes: colors must be [k, >= {depth}], got "
                       f"{list(colors.shape)}")
        out = images.copy()
        h, w = images.shape[1:3]
        for b in range(images.shape[0]):
            for k, box in enumerate(boxes[b]):
                color = colors[k % colors.shape[0], :depth].astype(images.dtype)
                r0, r1 = int(box[0] * (h - 1)), int(box[2] * (h - 1))
                c0, c1 = int(box[1] * (w - 1)), int(box[3] * (w - 1))
                if r0 > r1 or c0 > c1 or r0 >= h or r1 < 0 or c0 >= w or c1 < 0:
                    continue
                rr0, rr1, cc0, cc1 = max(r0, 0), min(r1, h - 1), max(c0, 0), min(c1, w - 1)
                if r0 >= 0:
                    out[b, r0, cc0:cc1 + 1] = color
                if r1 < h:
                    out[b, r1, cc0:cc1 + 1] = color
                if c0 >= 0:
                    out[b, rr0:rr1 + 1, c0] = color
                if c1 < w:
                    out[b, rr0:rr1 + 1, c1] = color
        return out

    def grad(op, dy):
        return None, None, None


def draw_bounding_boxes(images: TensorLike, boxes: TensorLike, colors: TensorLike,
                        name: str | None = None) -> Tensor:
    """Draws box outlines (``tw.image.draw_bounding_boxes``).

    Args:
        images: ``[batch, height, width, depth]`` float images.
        boxes: ``[batch, num_boxes, 4]`` normalized ``[y_min, x_min, y_max, x_max]``.
        colors: ``[num_colors, >= depth]``: box k gets color ``k % num_colors``.
        name: op name.

    Returns:
        The images with the boxes drawn.
    """
    x = convert(images, name="images")
    if not x.dtype.is_floating:
        raise TypeError(f"draw_bounding_boxes: images must be float, got {x.dtype.name}")
    return bind(DrawBoundingBoxesV2, [x, convert(boxes, dtype=dtypes.float32),
                                      convert(colors, dtype=dtypes.float32)], name=name)


__all__ = ["crop_and_resize", "non_max_suppression", "non_max_suppression_with_scores",
           "non_max_suppression_padded", "draw_bounding_boxes"]

