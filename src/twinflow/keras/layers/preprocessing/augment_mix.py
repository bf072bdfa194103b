"""Augmentations that mix images of a batch or erase parts of them (Keras 3): MixUp,
CutMix (both also mix ``labels`` when called with ``{"images": ..., "labels": ...}``),
RandomErasing, and MaxNumBoundingBoxes (pads or cuts a dict's ``bounding_boxes`` to a fixed
count). Random draws use the layer's ``seed`` (reproducible, not Keras' numbers)."""
from __future__ import annotations

from typing import Any

from ....core import dtypes
from ....graph.tensor import Tensor
from ....ops import array_ops, math_ops, random_ops
from .augment import Augmentation
from .augment_color import batch_of, per_image, unit_factor
from .image import from_last, hw, to_last


class _Mixing(Augmentation):
    """An augmentation whose call also accepts ``{"images", "labels", ...}`` dicts."""

    def call(self, inputs, training=True) -> Any:
        if not isinstance(inputs, dict):
            return super().call(inputs, training)
        unknown = set(inputs) - {"images", "labels", "segmentation_masks"}
        if unknown:
            raise NotImplementedError(f"{type(self).__name__}: inputs {sorted(unknown)} are not "
                                      "supported by twinflow (images, labels and "
                                      "segmentation_masks are)")
        out = dict(inputs)
        x = math_ops.cast(inputs["images"], self._tw_dtype)
        if not training:
            out["images"] = x
            return out
        x = to_last(x, self.data_format)
        hw(x, type(self).__name__)
        mixed = self.mix(x, {k: v for k, v in inputs.items() if k != "images"})
        out.update(mixed)
        out["images"] = from_last(mixed["images"], self.data_format)
        return out

    def augment(self, x: Tensor) -> Tensor:
        return self.mix(x, {})["images"]

    def mix(self, x: Tensor, extra: dict) -> dict:
        """The mixed images (and labels / masks).

        Args:
            x: channels_last images.
            extra: "labels" / "segmentation_masks" to transform along.

        Returns:
            A dict with "images" and the transformed extras.
        """
        raise NotImplementedError

    def _beta(self, n: Tensor, alpha) -> Tensor:
        """Beta(alpha, alpha) draws (as the ratio of two Gamma draws)."""
        g1 = random_ops.random_gamma(n, alpha, seed=self.seed)
        g2 = random_ops.random_gamma(n, alpha, seed=self.seed)
        return g1 / (g1 + g2)

    def _permutation(self, n: Tensor) -> Tensor:
        return random_ops.random_shuffle(array_ops.range(n[0]), seed=self.seed)


class MixUp(_Mixing):
    """Blends each image (and label) with another of the batch: ``w x + (1 - w) x[perm]``,
    w drawn from Beta(alpha, alpha).

    Args:
        alpha: the Beta distribution's parameter.
        data_format: "channels_last" or "channels_first".
        seed: the op seed.
        **kwargs: Layer arguments.
    """

    def __init__(self, alpha: float = 0.2, data_format=None, seed=None, **kwargs) -> None:
        super().__init__(seed, data_format, **kwargs)
        self.alpha = alpha

    def mix(self, x: Tensor, extra: dict) -> dict:
        if x.shape.rank == 3:
            return {"images": x, **extra}
        n = batch_of(x)
        perm = self._permutation(n)
        w = self._beta(n, float(self.alpha))
        out = {"images": per_image(w, x) * x + (1.0 - per_image(w, x)) *
               array_ops.gather(x, perm)}
        if "labels" in extra:
            y = math_ops.cast(extra["labels"], self._tw_dtype)
            wl = array_ops.reshape(w, [-1, 1])
            out["labels"] = wl * y + (1.0 - wl) * array_ops.gather(y, perm)
        if "segmentation_masks" in extra:
            m = math_ops.cast(extra["segmentation_masks"], self._tw_dtype)
            wm = array_ops.reshape(w, [-1, 1, 1, 1])
            out["segmentation_masks"] = wm * m + (1.0 - wm) * array_ops.gather(m, perm)
        return out

    _config_keys = ("data_format", "alpha", "seed")


def _box_mask(x: Tensor, x0: Tensor, x1: Tensor, y0: Tensor, y1: Tensor) -> Tensor:
    """The [batch, h, w, c] mask of each image's box ``x0 <= col < x1, y0 <= row < y1``."""
    h, w = hw(x, "box")
    rows = array_ops.reshape(math_ops.cast(array_ops.range(h), "float32"), [1, h, 1, 1])
    cols = array_ops.reshape(math_ops.cast(array_ops.range(w), "float32"), [1, 1, w, 1])
    r = lambda v: array_ops.reshape(v, [-1, 1, 1, 1])  # noqa: E731
    inside = math_ops.logical_and(
        math_ops.logical_and(math_ops.greater_equal(cols, r(x0)), math_ops.less(cols, r(x1))),
        math_ops.logical_and(math_ops.greater_equal(rows, r(y0)), math_ops.less(rows, r(y1))))
    return math_ops.logical_and(inside, array_ops.ones_like(x, dtype="bool"))


class CutMix(_Mixing):
    """Pastes a random box of another image of the batch into each image; labels are mixed
    by the pasted area.

    Args:
        factor: the upper bound (or a pair) of the Beta parameter, in [0, 1].
        seed: the op seed.
        data_format: "channels_last" or "channels_first".
        **kwargs: Layer arguments.
    """

    def __init__(self, factor=1.0, seed=None, data_format=None, **kwargs) -> None:
        super().__init__(seed, data_format, **kwargs)
        self.factor = unit_factor(factor, "factor")

    def _bounds(self, n: Tensor, length: int, ratio: Tensor) -> tuple:
        crop = ratio * float(length)
        start = self._uniform(n, 0.0, 1.0) * (float(length) - crop)
        return start, start + crop

    def mix(self, x: Tensor, extra: dict) -> dict:
        if x.shape.rank == 3:
            return {"images": x, **extra}
        h, w = hw(x, "CutMix")
        n = batch_of(x)
        alpha = self._uniform([], *self.factor) + 1e-6
        g1 = random_ops.random_gamma(n, alpha, seed=self.seed)
        g2 = random_ops.random_gamma(n, alpha, seed=self.seed)
        ratio = math_ops.sqrt(1.0 - g1 / (g1 + g2))
        x0, x1 = self._bounds(n, w, ratio)
        y0, y1 = self._bounds(n, h, ratio)
        perm = self._permutation(n)
        out = {"images": math_ops.where(_box_mask(x, x0, x1, y0, y1),
                                        array_ops.gather(x, perm), x)}
        if "labels" in extra:
            y = math_ops.cast(extra["labels"], self._tw_dtype)
            keep = array_ops.reshape(1.0 - (x1 - x0) * (y1 - y0) / float(w * h), [-1, 1])
            out["labels"] = keep * y + (1.0 - keep) * array_ops.gather(y, perm)
        if "segmentation_masks" in extra:
            out["segmentation_masks"] = extra["segmentation_masks"]
        return out

    _config_keys = ("data_format", "factor", "seed")


class RandomErasing(Augmentation):
    """Replaces a random box of each image (area fraction drawn in ``scale``, with
    probability drawn in ``factor``) by ``fill_value`` (default: Gaussian noise scaled to
    ``value_range``), clipped to ``value_range``.

    Args:
        factor: the upper bound (or a pair) of the probability, in [0, 1].
        scale: the (low, high) fraction of the side lengths' squares.
        fill_value: a number, three numbers (one per channel), or None for noise.
        value_range: the images' (low, high).
        seed: the op seed.
        data_format: "channels_last" or "channels_first".
        **kwargs: Layer arguments.
    """

    def __init__(self, factor=1.0, scale=(0.02, 0.33), fill_value=None, value_range=(0, 255),
                 seed=None, data_format=None, **kwargs) -> None:
        super().__init__(seed, data_format, **kwargs)
        self.factor = unit_factor(factor, "factor")
        self.scale = unit_factor(scale, "scale")
        if fill_value is not None and not isinstance(fill_value, (int, float)) and not (
                isinstance(fill_value, (tuple, list)) and len(fill_value) == 3):
            raise ValueError(f"The `fill_value` argument should be a number (or a list of "
                             f"three numbers) Received: fill_value={fill_value}")
        self.fill_value, self.value_range = fill_value, value_range

    def augment(self, x: Tensor) -> Tensor:
        single = x.shape.rank == 3
        b = array_ops.expand_dims(x, 0) if single else x
        h, w = hw(b, "RandomErasing")
        n = batch_of(b)
        frac = math_ops.sqrt(self._uniform(array_ops.concat([n, [2]], 0), *self.scale))
        x0 = self._uniform(n, 0.0, 1.0) * (float(w) - frac[:, 0] * w)
        y0 = self._uniform(n, 0.0, 1.0) * (float(h) - frac[:, 1] * h)
        mask = _box_mask(b, x0, x0 + frac[:, 0] * w, y0, y0 + frac[:, 1] * h)
        apply = math_ops.less(self._uniform(n, 0.0, 1.0), self._uniform(n, *self.factor))
        lo, hi = float(self.value_range[0]), float(self.value_range[1])
        if self.fill_value is None:
            fill = random_ops.random_normal(array_ops.shape(b), seed=self.seed) * hi
        else:
            fill = array_ops.zeros_like(b) + array_ops.constant(self.fill_value,
                                                               dtypes.float32)
        fill = math_ops.clip_by_value(math_ops.cast(fill, b.dtype), lo, hi)
        erased = math_ops.where(mask, fill, b)
        out = math_ops.where(math_ops.logical_and(per_image(apply, b), mask), erased, b)
        return out[0] if single else out

    _config_keys = ("data_format", "factor", "scale", "fill_value", "value_range", "seed")


class MaxNumBoundingBoxes(Augmentation):
    """Pads (with ``fill_value``) or cuts the ``bounding_boxes`` of a
    ``{"images", "bounding_boxes": {"boxes", "labels"}}`` batch to ``max_number`` boxes;
    images pass through.

    Args:
        max_number: the number of boxes per image.
        fill_value: the padding value of boxes and labels.
        **kwargs: Layer arguments.
    """

    def __init__(self, max_number: int, fill_value: int = -1, **kwargs) -> None:
        super().__init__(None, kwargs.pop("data_format", None), **kwargs)
        self.max_number = int(max_number)
        self.fill_value = int(fill_value)

    def call(self, inputs, training=True) -> Any:
        if not isinstance(inputs, dict):
            return math_ops.cast(inputs, self._tw_dtype)
        out = dict(inputs)
        if "bounding_boxes" in inputs:
            bb = dict(inputs["bounding_boxes"])
            boxes, labels = bb["boxes"], bb["labels"]
            k = self.max_number
            pad = math_ops.maximum(k - array_ops.shape(boxes)[1], 0)
            boxes = array_ops.pad(boxes[:, :k], array_ops.stack([[0, 0], [0, pad], [0, 0]]),
                                  constant_values=self.fill_value)
            labels = array_ops.pad(labels[:, :k], array_ops.stack([[0, 0], [0, pad]]),
                                   constant_values=self.fill_value)
            bb["boxes"] = array_ops.reshape(boxes, [-1, k, 4])
            bb["labels"] = array_ops.reshape(labels, [-1, k])
            out["bounding_boxes"] = bb
        return out

    def augment(self, x: Tensor) -> Tensor:
        return x

    _config_keys = ("data_format", "max_number", "fill_value")
