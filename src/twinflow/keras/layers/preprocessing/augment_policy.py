"""Augmentation policies of Keras 3 built from the other augmentation layers: AugMix and
RandAugment; and ContrastLimitedAdaptiveHistogramEqualization (CLAHE, a NumPy kernel of
Keras' tiled-histogram algorithm, applied at inference too, as in Keras)."""
from __future__ import annotations

import random as _pyrandom

import numpy as np

from ....graph.tensor import Tensor
from ....ops import array_ops, math_ops, random_ops, reduction_ops
from ....ops.script_ops import numpy_function
from .affine import RandomRotation, RandomTranslation
from .augment import Augmentation, RandomBrightness, RandomContrast
from .augment_color import (
    AutoContrast,
    Equalization,
    RandomSharpness,
    Solarization,
    rescale,
    unit_factor,
)
from .augment_geometry import RandomShear
from .color import RandomColorDegeneration, RandomPosterization

_GEOMETRY = ("random_shear", "random_translation", "random_rotation")
_COLOR = ("random_posterization", "solarization", "auto_contrast", "equalization")
_EXTRA = ("random_brightness", "random_color_degeneration", "random_contrast",
          "random_sharpness")


def _policy_layers(owner: Augmentation, names: tuple) -> dict:
    """The sub-layers Keras' AugMix / RandAugment build, by Keras' attribute name."""
    f, vr, interp, seed = owner.factor, owner.value_range, owner.interpolation, owner.seed
    make = {
        "random_shear": lambda: RandomShear(f, f, interpolation=interp, seed=seed),
        "random_translation": lambda: RandomTranslation(f, f, interpolation=interp,
                                                        seed=seed),
        "random_rotation": lambda: RandomRotation(f, interpolation=interp, seed=seed),
        "random_posterization": lambda: RandomPosterization(max(1, int(8 * f[1])), vr,
                                                            seed=seed),
        "solarization": lambda: Solarization(f, f, vr, seed=seed),
        "auto_contrast": lambda: AutoContrast(vr),
        "equalization": lambda: Equalization(vr),
        "random_brightness": lambda: RandomBrightness(f, vr, seed=seed),
        "random_color_degeneration": lambda: RandomColorDegeneration(f, vr, seed=seed),
        "random_contrast": lambda: RandomContrast(f, vr, seed=seed),
        "random_sharpness": lambda: RandomSharpness(f, vr, seed=seed),
    }
    return {n: make[n]() for n in names}


def _select(flag: Tensor, new: Tensor, old: Tensor) -> Tensor:
    return math_ops.where(math_ops.logical_and(flag, array_ops.ones_like(old, dtype="bool")),
                          new, old)


class RandAugment(Augmentation):
    """Applies ``num_ops`` augmentations, each picked at random among eleven (shear,
    translation, rotation, brightness, colour degeneration, contrast, sharpness,
    posterization, solarization, auto-contrast, equalization) with strength ``factor``.

    Args:
        value_range: the images' (low, high).
        num_ops: how many augmentations to apply.
        factor: the upper bound (or a pair) of every augmentation's strength, in [0, 1].
        interpolation: "nearest" or "bilinear" for the geometric ones.
        seed: the op seed.
        data_format: "channels_last" or "channels_first".
        **kwargs: Layer arguments.
    """

    _ORDER = ("random_shear", "random_translation", "random_rotation", "random_brightness",
              "random_color_degeneration", "random_contrast", "random_sharpness",
              "random_posterization", "solarization", "auto_contrast", "equalization")

    def __init__(self, value_range=(0, 255), num_ops: int = 2, factor=0.5,
                 interpolation: str = "bilinear", seed=None, data_format=None,
                 **kwargs) -> None:
        super().__init__(seed, data_format, **kwargs)
        self.value_range, self.num_ops = value_range, int(num_ops)
        self.factor = unit_factor(factor, "factor")
        self.interpolation = interpolation
        self._layers = _policy_layers(self, self._ORDER)

    def augment(self, x: Tensor) -> Tensor:
        picks = random_ops.random_uniform([self.num_ops], 0, len(self._ORDER), dtype="int32",
                                          seed=self.seed)
        for i in range(self.num_ops):
            for k, name in enumerate(self._ORDER):
                x = _select(math_ops.equal(picks[i], k), self._layers[name].augment(x), x)
        return x

    _config_keys = ("data_format", "value_range", "num_ops", "factor", "interpolation",
                    "seed")


class AugMix(Augmentation):
    """AugMix: ``num_chains`` chains of up to ``chain_depth`` random augmentations, mixed
    with Dirichlet(alpha) weights, then blended with the image by a Beta(alpha, alpha)
    weight. The chains' structure is drawn with Python's ``random.Random(seed)`` when the
    layer is called (or traced), as Keras draws it with Python's generator.

    Args:
        value_range: the images' (low, high).
        num_chains: the number of chains.
        chain_depth: the most augmentations per chain.
        factor: the upper bound (or a pair) of every augmentation's strength, in [0, 1].
        alpha: the Dirichlet / Beta parameter.
        all_ops: also use brightness, colour degeneration, contrast and sharpness.
        interpolation: "nearest" or "bilinear" for the geometric ones.
        seed: the op seed.
        data_format: "channels_last" or "channels_first".
        **kwargs: Layer arguments.
    """

    def __init__(self, value_range=(0, 255), num_chains: int = 3, chain_depth: int = 3,
                 factor=0.3, alpha: float = 1.0, all_ops: bool = True,
                 interpolation: str = "bilinear", seed=None, data_format=None,
                 **kwargs) -> None:
        super().__init__(seed, data_format, **kwargs)
        self.value_range = value_range
        self.num_chains, self.chain_depth = int(num_chains), int(chain_depth)
        self.factor = unit_factor(factor, "factor")
        self.alpha, self.all_ops = alpha, all_ops
        self.interpolation = interpolation
        self._names = _GEOMETRY + _COLOR + (_EXTRA if all_ops else ())
        self._layers = _policy_layers(self, self._names)
        self._rng = _pyrandom.Random(seed)

    def augment(self, x: Tensor) -> Tensor:
        g = random_ops.random_gamma([self.num_chains], float(self.alpha), seed=self.seed)
        weights = g / reduction_ops.reduce_sum(g)
        # shape [1]: RandomGamma's kernel fails on a scalar shape (a twinflow bug)
        b1 = random_ops.random_gamma([1], float(self.alpha), seed=self.seed)[0]
        b2 = random_ops.random_gamma([1], float(self.alpha), seed=self.seed)[0]
        keep = b1 / (b1 + b2)
        mixed = array_ops.zeros_like(x)
        for c in range(self.num_chains):
            y = x
            for _ in range(self.chain_depth):
                name = self._rng.choice(list(self._names) + [None])
                if name is not None:
                    y = self._layers[name].augment(y)
            mixed = mixed + y * weights[c]
        out = keep * x + (1.0 - keep) * mixed
        return math_ops.clip_by_value(out, float(self.value_range[0]),
                                      float(self.value_range[1]))

    _config_keys = ("data_format", "value_range", "num_chains", "chain_depth", "factor",
                    "alpha", "all_ops", "interpolation", "seed")


def clahe(images: np.ndarray, clip_limit: float, grid: tuple) -> np.ndarray:
    """Keras' CLAHE on an NHWC float batch in [0, 255]: per-tile clipped histograms, their
    normalized CDFs bilinearly interpolated between tile centres.

    Args:
        images: the batch.
        clip_limit: the histogram clip limit (relative to a flat histogram); 0: none.
        grid: (rows, columns) of tiles.

    Returns:
        The equalized batch (float32).
    """
    n, h, w, c = images.shape
    gh, gw = grid
    th, tw_ = -(-h // gh), -(-w // gw)
    padded = np.pad(images, ((0, 0), (0, th * gh - h), (0, tw_ * gw - w), (0, 0)),
                    mode="symmetric")
    tiles = padded.reshape(n, gh, th, gw, tw_, c).transpose(0, 1, 3, 5, 2, 4)
    vals = np.clip(tiles.reshape(n, gh, gw, c, th * tw_).astype(np.int32), 0, 255)
    flat = vals.reshape(-1, th * tw_)
    hist = np.zeros((len(flat), 256), np.float32)
    np.add.at(hist, (np.arange(len(flat))[:, None], flat), 1.0)  # a bincount per tile
    hist = hist.reshape(n, gh, gw, c, 256)
    if clip_limit > 0:
        limit = np.float32(clip_limit * (th * tw_) / 256.0)
        clipped = np.clip(hist, 0, limit)
        hist = clipped + (hist - clipped).sum(-1, keepdims=True) / 256.0
    cdf = np.cumsum(hist, -1)
    cmin = cdf.min(-1, keepdims=True)
    den = np.float32(th * tw_) - cmin
    den = np.where(den == 0, np.ones_like(den), den)
    cdf = np.clip((cdf - cmin) * 255.0 / den, 0, 255)
    cdf = np.concatenate([cdf[:, :1], cdf, cdf[:, -1:]], 1)
    cdf = np.concatenate([cdf[:, :, :1], cdf, cdf[:, :, -1:]], 2)
    yg = (np.arange(th * gh, dtype=np.float32) - th / 2.0) / th + 1.0
    xg = (np.arange(tw_ * gw, dtype=np.float32) - tw_ / 2.0) / tw_ + 1.0
    y0, x0 = np.floor(yg), np.floor(xg)
    wy, wx = (yg - y0)[None, :, None, None], (xg - x0)[None, None, :, None]
    y0i, y1i = (np.clip(v, 0, gh + 1).astype(int) for v in (y0, y0 + 1))
    x0i, x1i = (np.clip(v, 0, gw + 1).astype(int) for v in (x0, x0 + 1))
    pix = np.clip(padded, 0, 255).astype(np.int32)
    bi = np.arange(n)[:, None, None, None]
    ci = np.arange(c)[None, None, None, :]

    def at(ys, xs):
        return cdf[bi, ys[None, :, None, None], xs[None, None, :, None], ci, pix]
    top = at(y0i, x0i) * (1 - wx) + at(y0i, x1i) * wx
    bottom = at(y1i, x0i) * (1 - wx) + at(y1i, x1i) * wx
    return (top * (1 - wy) + bottom * wy)[:, :h, :w, :].astype(np.float32)


class ContrastLimitedAdaptiveHistogramEqualization(Augmentation):
    """CLAHE: histogram equalization per tile of a ``tile_grid_size`` grid, with histograms
    clipped at ``clip_limit`` and tiles blended bilinearly. Applied at inference too.

    Args:
        value_range: the images' (low, high).
        clip_limit: the clip limit (0: plain adaptive equalization).
        tile_grid_size: (rows, columns) of tiles.
        data_format: "channels_last" or "channels_first".
        **kwargs: Layer arguments.
    """

    def __init__(self, value_range=(0, 255), clip_limit: float = 4.0, tile_grid_size=(8, 8),
                 data_format=None, **kwargs) -> None:
        super().__init__(None, data_format, **kwargs)
        self.value_range, self.clip_limit = value_range, clip_limit
        self.tile_grid_size = tuple(int(v) for v in tile_grid_size)

    def call(self, inputs, training=True) -> Tensor:
        return super().call(inputs, training=True)

    def augment(self, x: Tensor) -> Tensor:
        single = x.shape.rank == 3
        b = array_ops.expand_dims(x, 0) if single else x
        v = math_ops.cast(rescale(b, self.value_range, (0, 255)), "float32")
        limit, grid = float(self.clip_limit), self.tile_grid_size
        out = numpy_function(lambda a: clahe(a, limit, grid), [v], "float32")
        out = array_ops.reshape(out, array_ops.shape(b))
        out = math_ops.cast(rescale(out, (0, 255), self.value_range), x.dtype)
        return out[0] if single else out

    _config_keys = ("data_format", "value_range", "clip_limit", "tile_grid_size")
