"""``tw.image.generate_bounding_box_proposals``: region proposals (Faster R-CNN, arXiv
1506.01497 eq. 2) from per-anchor scores and box deltas, as TensorFlow's (GPU-only) kernel
computes them: the ``pre_nms_topn`` best scores, decoded against their anchors (``dh``/``dw``
clipped at log(1000/16)), clipped to the image, boxes shorter than ``min_size * scale``
dropped, then greedy NMS keeping ``post_nms_topn`` (zero padded)."""
from __future__ import annotations

import math

import numpy as np

from ...core import dtypes
from ...core.errors import InvalidArgumentError
from ...core.shapes import TensorShape
from ...eager.execute import bind
from ...graph.registry import register_op
from ...graph.tensor import TensorLike
from ..core import convert
from .boxes import _iou

_XFORM_CLIP = math.log(1000.0 / 16.0)


def _err(msg: str) -> InvalidArgumentError:
    return InvalidArgumentError(None, None, msg)


def _decode(anchors: np.ndarray, deltas: np.ndarray, info: np.ndarray, min_size: float):
    """Boxes ``[n, 4]`` (y1, x1, y2, x2) and a keep mask."""
    y1, x1, y2, x2 = (anchors[:, i] for i in range(4))
    dy, dx = deltas[:, 0], deltas[:, 1]
    dh, dw = np.minimum(deltas[:, 2], _XFORM_CLIP), np.minimum(deltas[:, 3], _XFORM_CLIP)
    w, h = x2 - x1, y2 - y1
    cx, cy = x1 + 0.5 * w + w * dx, y1 + 0.5 * h + h * dy
    pw, ph = w * np.exp(dw), h * np.exp(dh)
    img_h, img_w, scale = float(info[0]), float(info[1]), float(info[2])
    box = np.stack([np.clip(cy - 0.5 * ph, 0, img_h), np.clip(cx - 0.5 * pw, 0, img_w),
                    np.clip(cy + 0.5 * ph, 0, img_h), np.clip(cx + 0.5 * pw, 0, img_w)], 1)
    keep = np.minimum(box[:, 2] - box[:, 0], box[:, 3] - box[:, 1]) >= min_size * scale
    return box, keep


@register_op("GenerateBoundingBoxProposals", multi_output=True, schema=(
    "scores:float, bbox_deltas:float, image_info:float, anchors:float, nms_threshold:float, "
    "pre_nms_topn:int32, min_size:float -> rois:float, roi_probabilities:float | "
    "post_nms_topn:int=300"))
class GenerateBoundingBoxProposals:
    """The best non-overlapping decoded anchor boxes of each image."""

    def infer(scores, bbox_deltas, image_info, anchors, nms_threshold, pre_nms_topn, min_size,
              *, post_nms_topn=300):
        if scores.shape.rank not in (None, 4):
            raise _err(f"scores must be 4-D [images, height, width, anchors], got "
                       f"{scores.shape}")
        if post_nms_topn <= 0:
            raise _err("post_nms_topn can't be 0 or less")
        n = scores.shape[0] if scores.shape.rank == 4 else None
        return [(dtypes.float32, TensorShape([n, post_nms_topn, 4])),
                (dtypes.float32, TensorShape([n, post_nms_topn]))]

    def kernel(scores, bbox_deltas, image_info, anchors, nms_threshold, pre_nms_topn,
               min_size, *, post_nms_topn=300):
        n, h, w, a = scores.shape
        if bbox_deltas.shape != (n, h, w, 4 * a):
            raise _err(f"bbox_deltas must be [{n}, {h}, {w}, {4 * a}], got "
                       f"{list(bbox_deltas.shape)}")
        if image_info.shape != (n, 5):
            raise _err(f"image_info must be [{n}, 5], got {list(image_info.shape)}")
        if anchors.size != h * w * a * 4:
            raise _err(f"anchors must hold one box per position and anchor ([{h}, {w}, "
                       f"{4 * a}] or [{h * w * a}, 4]), got {list(anchors.shape)}")
        t, top = float(nms_threshold), int(pre_nms_topn)
        if not 0 <= t <= 1:
            raise _err(f"nms_threshold should be between 0 and 1. Got {t}")
        if top <= 0:
            raise _err(f"pre_nms_topn should be greater than 0, got {top}")
        anc = anchors.reshape(-1, 4).astype(np.float64)
        rois = np.zeros((n, post_nms_topn, 4), np.float32)
        probs = np.zeros((n, post_nms_topn), np.float32)
        for i in range(n):
            s = scores[i].reshape(-1)
            order = np.argsort(-s, kind="stable")[:top]
            box, keep = _decode(anc[order], bbox_deltas[i].reshape(-1, 4)[order]
                                .astype(np.float64), image_info[i], float(min_size))
            box, sc = box[keep], s[order][keep]
            kept: list = []
            for j in range(len(box)):
                if len(kept) >= post_nms_topn:
                    break
                if all(_iou(box[j], box[k]) <= t for k in kept):
                    kept.append(j)
            rois[i, :len(kept)] = box[kept]
            probs[i, :len(kept)] = sc[kept]
        return rois, probs

    def grad(op, *dys):
        return (None,) * len(op.inputs)


def generate_bounding_box_proposals(scores: TensorLike, bbox_deltas: TensorLike,
                                    image_info: TensorLike, anchors: TensorLike,
                                    nms_threshold=0.7, pre_nms_topn=6000, min_size=16,
                                    post_nms_topn: int = 300, name: str | None = None) -> tuple:
    """Region proposals from anchor scores and box deltas.

    Args:
        scores: ``[images, height, width, anchors]``.
        bbox_deltas: ``[images, height, width, 4 * anchors]`` as ``(dy, dx, dh, dw)``.
        image_info: ``[images, 5]``: height, width, scale (and two unused entries).
        anchors: the anchor box ``[y1, x1, y2, x2]`` of every position and anchor:
            ``[height, width, 4 * anchors]`` (or ``[height * width * anchors, 4]``).
        nms_threshold: IoU above which a proposal is suppressed.
        pre_nms_topn: the best scores decoded per image.
        min_size: boxes with a side below ``min_size * scale`` are dropped.
        post_nms_topn: the most proposals returned per image.
        name: op name.

    Returns:
        ``(rois [images, post_nms_topn, 4], roi_probabilities [images, post_nms_topn])``,
        by decreasing score, zero padded.
    """
    f32 = dtypes.float32
    return tuple(bind(GenerateBoundingBoxProposals, [
        convert(scores, dtype_hint=f32), convert(bbox_deltas, dtype_hint=f32),
        convert(image_info, dtype_hint=f32), convert(anchors, dtype_hint=f32),
        convert(nms_threshold, dtype_hint=f32), convert(pre_nms_topn, dtype=dtypes.int32),
        convert(min_size, dtype_hint=f32)], {"post_nms_topn": int(post_nms_topn)},
        name=name))
