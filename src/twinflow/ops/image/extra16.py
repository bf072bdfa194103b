"""More of tf.image: ``non_max_suppression_overlaps``, ``combined_non_max_suppression``,
``extract_glimpse`` and ``sample_distorted_bounding_box`` (stateful and stateless).

The suppression ops are TensorFlow's greedy algorithms (highest score first, ties by lower
index). ``sample_distorted_bounding_box`` follows TensorFlow's sampler step for step (aspect
ratio, then a crop height in the allowed area range, then a position; up to ``max_attempts``
tries, else the whole image) but draws from twinflow's generators, so the crops differ from
TensorFlow's for the same seed.
"""
from __future__ import annotations

import math

import numpy as np

from ...core import dtypes
from ...core.errors import InvalidArgumentError
from ...core.shapes import TensorShape
from ...eager.execute import bind, constant_value
from ...graph.registry import register_op
from ...graph.tensor import Tensor, TensorLike
from ..core import convert
from ..random.seeds import _seed_attrs, _stream
from .boxes import _iou


def _err(msg: str) -> InvalidArgumentError:
    return InvalidArgumentError(None, None, msg)


def _no_grad(op, *dys):
    return (None,) * len(op.inputs)


def _greedy(scores, max_out: int, score_t: float, overlap) -> list:
    """Indices kept by greedy suppression: ``overlap(i, j) > threshold`` suppresses."""
    order = sorted((i for i in range(len(scores)) if scores[i] > score_t),
                   key=lambda i: (-scores[i], i))
    kept: list = []
    for i in order:
        if len(kept) >= max_out:
            break
        if not any(overlap(i, j) for j in kept):
            kept.append(i)
    return kept


@register_op("NonMaxSuppressionWithOverlaps", schema=(
    "overlaps:float, scores:float, max_output_size:int32, overlap_threshold:float, "
    "score_threshold:float -> selected_indices:int32"))
class NonMaxSuppressionWithOverlaps:
    """Greedy suppression by a precomputed ``[n, n]`` overlap matrix."""

    def infer(overlaps, scores, max_output_size, overlap_threshold, score_threshold):
        if overlaps.shape.rank not in (None, 2):
            raise _err(f"overlaps must be 2-D [num_boxes, num_boxes], got {overlaps.shape}")
        if scores.shape.rank not in (None, 1):
            raise _err(f"scores must be 1-D [num_boxes], got {scores.shape}")
        return dtypes.int32, TensorShape([None])

    def kernel(overlaps, scores, max_output_size, overlap_threshold, score_threshold):
        n = scores.shape[0]
        if overlaps.shape != (n, n):
            raise _err(f"overlaps must be [{n}, {n}] for {n} scores, got "
                       f"{list(overlaps.shape)}")
        if int(max_output_size) < 0:
            raise _err(f"max_output_size must be >= 0, got {int(max_output_size)}")
        t = float(overlap_threshold)
        kept = _greedy(scores, int(max_output_size), float(score_threshold),
                       lambda i, j: overlaps[i, j] > t)
        return np.asarray(kept, np.int32)

    grad = _no_grad


def non_max_suppression_overlaps(overlaps: TensorLike, scores: TensorLike, max_output_size,
                                 overlap_threshold: float = 0.5,
                                 score_threshold: float = float("-inf"),
                                 name: str | None = None) -> Tensor:
    """Greedily selects boxes by score, dropping those overlapping a selected one by more than
    ``overlap_threshold`` (overlaps given as a matrix).

    Args:
        overlaps: float ``[num_boxes, num_boxes]`` pairwise overlaps.
        scores: float ``[num_boxes]``.
        max_output_size: the most boxes selected.
        overlap_threshold: the overlap above which a box is suppressed.
        score_threshold: boxes scoring at most this are dropped.
        name: op name.

    Returns:
        int32 indices of the selected boxes, by decreasing score.
    """
    f32 = dtypes.float32
    return bind(NonMaxSuppressionWithOverlaps, [
        convert(overlaps, dtype_hint=f32), convert(scores, dtype_hint=f32),
        convert(max_output_size, dtype=dtypes.int32), convert(overlap_threshold, dtype_hint=f32),
        convert(score_threshold, dtype_hint=f32)], name=name)


def _combined_infer(boxes, scores, max_output_size_per_class, max_total_size, iou_threshold,
                    score_threshold, *, pad_per_class=False, clip_boxes=True):
    if boxes.shape.rank not in (None, 4):
        raise _err(f"boxes must be 4-D [batch, num_boxes, q, 4], got {boxes.shape}")
    if scores.shape.rank not in (None, 3):
        raise _err(f"scores must be 3-D [batch, num_boxes, num_classes], got {scores.shape}")
    total = constant_value(max_total_size)
    per = constant_value(max_output_size_per_class)
    classes = scores.shape[2] if scores.shape.rank == 3 else None
    k = None if total is None else int(total)
    if pad_per_class and k is not None:
        k = None if per is None or classes is None else min(k, int(per) * classes)
    batch = scores.shape[0] if scores.shape.rank == 3 else None
    f = dtypes.float32
    return [(f, TensorShape([batch, k, 4])), (f, TensorShape([batch, k])),
            (f, TensorShape([batch, k])), (dtypes.int32, TensorShape([batch]))]


@register_op("CombinedNonMaxSuppression", multi_output=True, schema=(
    "boxes:float, scores:float, max_output_size_per_class:int32, max_total_size:int32, "
    "iou_threshold:float, score_threshold:float -> nmsed_boxes:float, nmsed_scores:float, "
    "nmsed_classes:float, valid_detections:int32 | pad_per_class:bool=False; "
    "clip_boxes:bool=True"))
class CombinedNonMaxSuppression:
    """Per image and class greedy NMS, then the best ``max_total_size`` over all classes."""

    infer = _combined_infer

    def kernel(boxes, scores, max_output_size_per_class, max_total_size, iou_threshold,
               score_threshold, *, pad_per_class=False, clip_boxes=True):
        batch, n, q, _ = boxes.shape
        classes = scores.shape[2]
        if scores.shape[:2] != (batch, n) or q not in (1, classes):
            raise _err(f"boxes {list(boxes.shape)} must be [batch, num_boxes, 1 or "
                       f"num_classes, 4] for scores {list(scores.shape)}")
        per, total = int(max_output_size_per_class), int(max_total_size)
        if per <= 0 or total <= 0:
            raise _err("max_output_size_per_class and max_total_size must be > 0")
        iou_t, score_t = float(iou_threshold), float(score_threshold)
        k = min(total, per * classes) if pad_per_class else total
        out_b = np.zeros((batch, k, 4), np.float32)
        out_s = np.zeros((batch, k), np.float32)
        out_c = np.zeros((batch, k), np.float32)
        valid = np.zeros(batch, np.int32)
        for b in range(batch):
            found = []
            for c in range(classes):
                bx = boxes[b, :, 0 if q == 1 else c].astype(np.float64)
                sc = scores[b, :, c]
                kept = _greedy(sc, per, score_t, lambda i, j, bx=bx: _iou(bx[i], bx[j]) > iou_t)
                found += [(float(sc[i]), c, bx[i]) for i in kept]
            found.sort(key=lambda t: -t[0])
            found = found[:k]
            valid[b] = len(found)
            for i, (s, c, box) in enumerate(found):
                out_b[b, i] = np.clip(box, 0.0, 1.0) if clip_boxes else box
                out_s[b, i], out_c[b, i] = s, c
        return out_b, out_s, out_c, valid

    grad = _no_grad


def combined_non_max_suppression(boxes: TensorLike, scores: TensorLike,
                                 max_output_size_per_class, max_total_size,
                                 iou_threshold: float = 0.5,
                                 score_threshold: float = float("-inf"),
                                 pad_per_class: bool = False, clip_boxes: bool = True,
                                 name: str | None = None) -> tuple:
    """Greedy NMS per image and per class, merged into the best detections of each image.

    Args:
        boxes: ``[batch, num_boxes, q, 4]`` (q = 1: one box for all classes).
        scores: ``[batch, num_boxes, num_classes]``.
        max_output_size_per_class: the most boxes kept per class.
        max_total_size: the most detections per image.
        iou_threshold: IoU above which a box is suppressed.
        score_threshold: boxes scoring at most this are dropped.
        pad_per_class: pad to ``min(max_total_size, max_output_size_per_class *
            num_classes)`` instead of ``max_total_size``.
        clip_boxes: clip the returned boxes to [0, 1].
        name: op name.

    Returns:
        ``(nmsed_boxes, nmsed_scores, nmsed_classes, valid_detections)`` (zero padded).
    """
    f32 = dtypes.float32
    return tuple(bind(CombinedNonMaxSuppression, [
        convert(boxes, dtype_hint=f32), convert(scores, dtype_hint=f32),
        convert(max_output_size_per_class, dtype=dtypes.int32),
        convert(max_total_size, dtype=dtypes.int32), convert(iou_threshold, dtype_hint=f32),
        convert(score_threshold, dtype_hint=f32)],
        {"pad_per_class": bool(pad_per_class), "clip_boxes": bool(clip_boxes)}, name=name))


# ----- extract_glimpse ------------------------------------------------------------------------

@register_op("ExtractGlimpseV2", stateful=True, schema=(
    "input:float, size:int32, offsets:float -> glimpse:float | centered:bool=True; "
    "normalized:bool=True; uniform_noise:bool=True; noise:string='uniform'"))
class ExtractGlimpseV2:
    """Windows of ``size`` at ``offsets`` of each image; outside pixels are noise."""

    def infer(input, size, offsets, **attrs):
        if input.shape.rank not in (None, 4):
            raise _err(f"input must be 4-D [batch, height, width, channels], got "
                       f"{input.shape}")
        s = constant_value(size)
        hw = [None, None] if s is None else [int(v) for v in np.asarray(s).reshape(-1)]
        dims = input.shape.as_list() if input.shape.rank == 4 else [None] * 4
        return dtypes.float32, TensorShape([dims[0]] + hw + [dims[3]])

    def kernel(input, size, offsets, *, centered=True, normalized=True, uniform_noise=True,
               noise="uniform"):
        if noise not in ("uniform", "gaussian", "zero", ""):
            raise _err(f"noise must be 'uniform', 'gaussian' or 'zero', got {noise!r}")
        n, h, w, c = input.shape
        gh, gw = (int(v) for v in np.asarray(size).reshape(-1))
        if offsets.shape != (n, 2):
            raise _err(f"offsets must be [batch={n}, 2], got {list(offsets.shape)}")
        out = np.empty((n, gh, gw, c), np.float32)
        gen = _stream("extract_glimpse", np.float32, 0, 0)
        for b in range(n):
            y, x = float(offsets[b, 0]), float(offsets[b, 1])
            if normalized:
                y, x = y * h, x * w
                if centered:      # the image centre is (0, 0); then the window's corner
                    y, x = y / 2 + h / 2 - gh / 2, x / 2 + w / 2 - gw / 2
            elif centered:
                y, x = y + h / 2, x + w / 2
            top, left = math.trunc(y), math.trunc(x)
            img = input[b]
            kind = noise or ("uniform" if uniform_noise else "gaussian")
            if kind == "uniform":
                lo, hi = float(img.min()), float(img.max())
                out[b] = gen.uniform(0, 1, (gh, gw, c)) * (hi - lo) + lo
            elif kind == "gaussian":
                out[b] = gen.normal(size=(gh, gw, c)) * float(img.std()) + float(img.mean())
            else:
                out[b] = 0
            ys = slice(max(top, 0), min(top + gh, h))
            xs = slice(max(left, 0), min(left + gw, w))
            if ys.start < ys.stop and xs.start < xs.stop:
                out[b, ys.start - top:ys.stop - top, xs.start - left:xs.stop - left] = \
                    img[ys, xs]
        return out

    grad = _no_grad


def extract_glimpse(input: TensorLike, size, offsets: TensorLike, centered: bool = True,
                    normalized: bool = True, noise: str = "uniform",
                    name: str | None = None) -> Tensor:
    """Extracts a window of ``size`` from each image at ``offsets``.

    Args:
        input: float ``[batch, height, width, channels]``.
        size: ``[glimpse_height, glimpse_width]``.
        offsets: float ``[batch, 2]`` (y, x): with ``centered`` and ``normalized``, window
            centres in [-1, 1] around the image centre; ``normalized`` alone: the window's
            upper-left corner as a fraction of the image; neither: its corner in pixels
            (``centered`` alone: pixels from the image centre).
        centered: offsets relative to the image centre.
        normalized: offsets as fractions of the image size.
        noise: fill for pixels outside the image: "uniform" (between the image's min and
            max), "gaussian" (the image's mean and deviation) or "zero".
        name: op name.

    Returns:
        ``[batch, glimpse_height, glimpse_width, channels]``.
    """
    return bind(ExtractGlimpseV2, [convert(input, dtype_hint=dtypes.float32),
                                   convert(size, dtype=dtypes.int32),
                                   convert(offsets, dtype_hint=dtypes.float32)],
                {"centered": bool(centered), "normalized": bool(normalized),
                 "uniform_noise": noise == "uniform", "noise": noise}, name=name)


# ----- sample_distorted_bounding_box -----------------------------------------------------------

def _random_crop(gen, width: int, height: int, min_area: float, max_area: float,
                 ratio: float):
    """TensorFlow's GenerateRandomCrop: (x, y, w, h) or None."""
    if max_area <= 0 or ratio <= 0 or width <= 0 or height <= 0 or min_area > max_area:
        return None
    lo, hi = min_area * width * height, max_area * width * height
    h = int(round(math.sqrt(lo / ratio)))
    max_h = int(round(math.sqrt(hi / ratio)))
    if round(max_h * ratio) > width:
        max_h = int((width + 0.5 - 1e-7) / ratio)
        if round(max_h * ratio) > width:
            max_h -= 1
    max_h = min(max_h, height)
    h = min(h, max_h)
    if h < max_h:
        h += int(gen.integers(0, max_h - h + 1))
    w = int(round(h * ratio))
    area = w * h
    if area < lo:
        h += 1
        w = int(round(h * ratio))
        area = w * h
    if area > hi:
        h -= 1
        w = int(round(h * ratio))
        area = w * h
    if area < lo or area > hi or w > width or h > height or w <= 0 or h <= 0:
        return None
    y = int(gen.integers(0, height - h)) if h < height else 0
    x = int(gen.integers(0, width - w)) if w < width else 0
    return x, y, w, h


def _covers(crop, boxes, min_covered: float) -> bool:
    x, y, w, h = crop
    for bx0, by0, bx1, by1 in boxes:
        area = (bx1 - bx0) * (by1 - by0)
        if area <= 0:
            continue
        iw = max(0, min(x + w, bx1) - max(x, bx0))
        ih = max(0, min(y + h, by1) - max(y, by0))
        if iw * ih / area >= min_covered:
            return True
    return False


def _sample_box(gen, image_size, bounding_boxes, min_object_covered, aspect_ratio_range,
                area_range, max_attempts, use_image_if_no_bounding_boxes):
    size = np.asarray(image_size).reshape(-1)
    if size.shape != (3,):
        raise _err(f"image_size must be [height, width, channels], got {size.tolist()}")
    height, width = int(size[0]), int(size[1])
    bb = np.asarray(bounding_boxes, np.float64).reshape(-1, 4)
    if np.asarray(bounding_boxes).ndim != 3 or np.asarray(bounding_boxes).shape[-1] != 4:
        raise _err(f"bounding_boxes must be [batch, N, 4], got "
                   f"{list(np.asarray(bounding_boxes).shape)}")
    if ((bb < 0) | (bb > 1)).any():
        raise _err("All bounding box coordinates must be in [0.0, 1.0]")
    boxes = [(int(b[1] * width), int(b[0] * height), int(b[3] * width), int(b[2] * height))
             for b in bb]
    if not boxes:
        if not use_image_if_no_bounding_boxes:
            raise _err("No bounding boxes provided as input. One must enable "
                       "use_image_if_no_bounding_boxes if you wish to not provide any "
                       "bounding boxes.")
        boxes = [(0, 0, width, height)]
    crop = None
    for _ in range(max_attempts):
        ratio = gen.uniform() * (aspect_ratio_range[1] - aspect_ratio_range[0]) + \
            aspect_ratio_range[0]
        c = _random_crop(gen, width, height, area_range[0], area_range[1], ratio)
        if c is not None and _covers(c, boxes, float(min_object_covered)):
            crop = c
            break
    x, y, w, h = crop if crop is not None else (0, 0, width, height)
    dt = np.asarray(image_size).dtype
    box = np.array([[[y / height, x / width, (y + h) / height, (x + w) / width]]], np.float32)
    return np.array([y, x, 0], dt), np.array([h, w, -1], dt), box


_SDBB_ATTRS = ("aspect_ratio_range:list(float)=[0.75,1.33]; area_range:list(float)="
               "[0.05,1.0]; max_attempts:int=100; use_image_if_no_bounding_boxes:bool=False")


def _sdbb_infer(image_size, bounding_boxes, min_object_covered, *rest, **attrs):
    return [(image_size.dtype, TensorShape([3])), (image_size.dtype, TensorShape([3])),
            (dtypes.float32, TensorShape([1, 1, 4]))]


def _attrs_of(attrs: dict) -> tuple:
    return (attrs["aspect_ratio_range"], attrs["area_range"], attrs["max_attempts"],
            attrs["use_image_if_no_bounding_boxes"])


@register_op("SampleDistortedBoundingBoxV2", multi_output=True, stateful=True, schema=(
    "image_size:T, bounding_boxes:float, min_object_covered:float -> begin:T, size:T, "
    "bboxes:float | T:type in [uint8,int8,int16,int32,int64]; seed:int=0; seed2:int=0; "
    + _SDBB_ATTRS))
class SampleDistortedBoundingBoxV2:
    """A random crop covering enough of some bounding box (TensorFlow's sampler)."""

    infer = _sdbb_infer

    def kernel(image_size, bounding_boxes, min_object_covered, *, seed=0, seed2=0, **attrs):
        gen = _stream("sample_distorted_bounding_box", np.float32, seed, seed2)
        return _sample_box(gen, image_size, bounding_boxes, min_object_covered,
                           *_attrs_of(attrs))

    grad = _no_grad


@register_op("StatelessSampleDistortedBoundingBox", multi_output=True, schema=(
    "image_size:T, bounding_boxes:float, min_object_covered:float, seed:Tseed -> begin:T, "
    "size:T, bboxes:float | T:type in [uint8,int8,int16,int32,int64]; "
    "Tseed:type in [int32,int64]; " + _SDBB_ATTRS))
class StatelessSampleDistortedBoundingBox:
    """``SampleDistortedBoundingBoxV2`` as a pure function of ``seed``."""

    infer = _sdbb_infer

    def kernel(image_size, bounding_boxes, min_object_covered, seed, **attrs):
        s = np.asarray(seed).reshape(-1)
        if s.shape != (2,):
            raise _err(f"seed must have shape [2], got {list(np.shape(seed))}")
        gen = np.random.Generator(np.random.PCG64(np.random.SeedSequence(
            [int(s[0]) % 2**64, int(s[1]) % 2**64, 0x5DBB])))
        return _sample_box(gen, image_size, bounding_boxes, min_object_covered,
                           *_attrs_of(attrs))

    grad = _no_grad


def _sdbb_args(image_size, bounding_boxes, min_object_covered, aspect_ratio_range,
               area_range, max_attempts, use_image_if_no_bounding_boxes) -> tuple:
    size = convert(image_size)
    attrs = {"aspect_ratio_range": [float(v) for v in (aspect_ratio_range or (0.75, 1.33))],
             "area_range": [float(v) for v in (area_range or (0.05, 1.0))],
             "max_attempts": int(100 if max_attempts is None else max_attempts),
             "use_image_if_no_bounding_boxes": bool(use_image_if_no_bounding_boxes)}
    if attrs["max_attempts"] < 1:
        raise ValueError(f"max_attempts must be positive, got {attrs['max_attempts']}")
    return [size, convert(bounding_boxes, dtype_hint=dtypes.float32),
            convert(min_object_covered, dtype_hint=dtypes.float32)], attrs


_SDBB_DOC_ARGS = """        image_size: ``[height, width, channels]`` (an integer tensor).
        bounding_boxes: float ``[batch, N, 4]`` boxes ``[ymin, xmin, ymax, xmax]`` in [0, 1].
        {seed}
        min_object_covered: the fraction of some box the crop must cover.
        aspect_ratio_range: allowed crop width / height (default ``(0.75, 1.33)``).
        area_range: allowed crop area as a fraction of the image (default ``(0.05, 1)``).
        max_attempts: tries before returning the whole image (default 100).
        use_image_if_no_bounding_boxes: with no boxes, cover the whole image.
        name: op name.

    Returns:
        ``(begin [3], size [3], bboxes [1, 1, 4])``, for ``tw.slice`` and drawing."""


def sample_distorted_bounding_box(image_size: TensorLike, bounding_boxes: TensorLike,
                                  seed: int = 0, min_object_covered=0.1,
                                  aspect_ratio_range=None, area_range=None, max_attempts=None,
                                  use_image_if_no_bounding_boxes=None,
                                  name: str | None = None) -> tuple:
    args, attrs = _sdbb_args(image_size, bounding_boxes, min_object_covered,
                             aspect_ratio_range, area_range, max_attempts,
                             use_image_if_no_bounding_boxes)
    return tuple(bind(SampleDistortedBoundingBoxV2, args,
                      {**attrs, **_seed_attrs(seed or None)}, name=name))


def stateless_sample_distorted_bounding_box(image_size: TensorLike, bounding_boxes: TensorLike,
                                            seed: TensorLike, min_object_covered=0.1,
                                            aspect_ratio_range=None, area_range=None,
                                            max_attempts=None,
                                            use_image_if_no_bounding_boxes=None,
                                            name: str | None = None) -> tuple:
    args, attrs = _sdbb_args(image_size, bounding_boxes, min_object_covered,
                             aspect_ratio_range, area_range, max_attempts,
                             use_image_if_no_bounding_boxes)
    s = convert(seed)
    if not s.dtype.is_integer:
        raise TypeError(f"seed must be an int32/int64 tensor, got {s.dtype.name}")
    return tuple(bind(StatelessSampleDistortedBoundingBox, args + [s], attrs, name=name))


sample_distorted_bounding_box.__doc__ = (
    "A random crop of an image covering at least ``min_object_covered`` of some bounding box"
    "\n    (TensorFlow's sampler; twinflow's random draws).\n\n    Args:\n" +
    _SDBB_DOC_ARGS.format(seed="seed: the op seed (0: unseeded)."))
stateless_sample_distorted_bounding_box.__doc__ = (
    "``sample_distorted_bounding_box`` as a pure function of ``seed``.\n\n    Args:\n" +
    _SDBB_DOC_ARGS.format(seed="seed: shape ``[2]`` int seed."))
