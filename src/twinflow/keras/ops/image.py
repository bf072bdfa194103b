"""``keras.ops.image``: resizing, color conversion, cropping and padding, patches, blurs,
projective transforms and SSIM, over ``tw.image`` (images ``channels_last`` by default).

``extract_patches_3d`` and ``scale_and_translate`` are in ``image_more.py``.
"""
from __future__ import annotations

import numpy as np

from ...ops import array_ops as A
from ...ops import linalg_ops as L
from ...ops import math_ops as MO
from ...ops import nn_ops as N
from ...ops.image import color as _color
from ...ops.image import quality as _quality
from ...ops.image import resize as _resize
from .. import random as _random
from ..layers.preprocessing import affine as _affine
from ._common import as_float, tensor
from .image_more import extract_patches_3d, scale_and_translate  # noqa: F401
from .nn import _channels_first

__all__ = ["resize", "rgb_to_grayscale", "rgb_to_hsv", "hsv_to_rgb", "crop_images",
           "pad_images", "extract_patches", "gaussian_blur", "affine_transform",
           "perspective_transform", "map_coordinates", "sobel_edges", "ssim",
           "elastic_transform", "extract_patches_3d", "scale_and_translate"]


def _nhwc(images, data_format):
    """(images as a 4-D NHWC batch, a function that undoes the layout change)."""
    x = tensor(images)
    first = _channels_first(data_format)
    single = x.shape.rank == 3
    if single:
        x = A.expand_dims(x, 0)
    if first:
        x = A.transpose(x, [0, 2, 3, 1])

    def back(y):
        if first:
            y = A.transpose(y, [0, 3, 1, 2])
        return y[0] if single else y
    return x, back


def resize(images, size, interpolation: str = "bilinear", antialias: bool = False,
           crop_to_aspect_ratio: bool = False, pad_to_aspect_ratio: bool = False,
           fill_mode: str = "constant", fill_value=0.0, data_format=None):
    if crop_to_aspect_ratio or pad_to_aspect_ratio:
        raise ValueError("keras.ops.image.resize: crop_to_aspect_ratio/pad_to_aspect_ratio "
                         "are not supported by twinflow; crop or pad first")
    x, back = _nhwc(images, data_format)
    dt = x.dtype
    out = _resize.resize(as_float(x), list(size), method=interpolation, antialias=antialias)
    return back(out if not dt.is_floating else MO.cast(out, dt))


def rgb_to_grayscale(images, data_format=None):
    x, back = _nhwc(images, data_format)
    return back(_color.rgb_to_grayscale(x))


def rgb_to_hsv(images, data_format=None):
    x, back = _nhwc(images, data_format)
    return back(_color.rgb_to_hsv(as_float(x)))


def hsv_to_rgb(images, data_format=None):
    x, back = _nhwc(images, data_format)
    return back(_color.hsv_to_rgb(as_float(x)))


def _box(h, w, top, left, bottom, right, target_h, target_w, what: str):
    if top is None:
        top = h - target_h - (bottom or 0) if target_h is not None and bottom is not None \
            else 0
    if left is None:
        left = w - target_w - (right or 0) if target_w is not None and right is not None \
            else 0
    if target_h is None:
        target_h = h - top - (bottom or 0) if what == "crop" else h + top + (bottom or 0)
    if target_w is None:
        target_w = w - left - (right or 0) if what == "crop" else w + left + (right or 0)
    if min(top, left, target_h, target_w) < 0:
        raise ValueError(f"keras.ops.image.{what}_images: the sizes give a negative box "
                         f"(top={top}, left={left}, height={target_h}, width={target_w})")
    return top, left, target_h, target_w


def crop_images(images, top_cropping=None, left_cropping=None, bottom_cropping=None,
                right_cropping=None, target_height=None, target_width=None, data_format=None):
    x, back = _nhwc(images, data_format)
    h, w = x.shape.as_list()[1:3]
    top, left, th, tw = _box(h, w, top_cropping, left_cropping, bottom_cropping,
                             right_cropping, target_height, target_width, "crop")
    return back(x[:, top:top + th, left:left + tw, :])


def pad_images(images, top_padding=None, left_padding=None, bottom_padding=None,
               right_padding=None, target_height=None, target_width=None, data_format=None):
    x, back = _nhwc(images, data_format)
    h, w = x.shape.as_list()[1:3]
    top, left, th, tw = _box(h, w, top_padding, left_padding, bottom_padding, right_padding,
                             target_height, target_width, "pad")
    return back(A.pad(x, [[0, 0], [top, th - h - top], [left, tw - w - left], [0, 0]]))


def extract_patches(images, size, strides=None, dilation_rate=1, padding: str = "valid",
                    data_format=None):
    x, back = _nhwc(images, data_format)
    size = [size, size] if isinstance(size, int) else list(size)
    strides = size if strides is None else ([strides] * 2 if isinstance(strides, int)
                                           else list(strides))
    rates = [dilation_rate] * 2 if isinstance(dilation_rate, int) else list(dilation_rate)
    out = _quality.extract_patches(x, [1] + size + [1], [1] + strides + [1],
                                   [1] + rates + [1], padding.upper())
    return back(out)


def gaussian_blur(images, kernel_size=(3, 3), sigma=(1.0, 1.0), data_format=None):
    x, back = _nhwc(images, data_format)
    xf = as_float(x)
    ks = [kernel_size] * 2 if isinstance(kernel_size, int) else list(kernel_size)
    sg = [sigma] * 2 if isinstance(sigma, (int, float)) else list(sigma)

    def g(n, s):
        r = np.arange(n) - (n - 1) / 2.0
        v = np.exp(-(r ** 2) / (2.0 * s * s))
        return v / v.sum()
    k2 = np.outer(g(ks[0], sg[0]), g(ks[1], sg[1]))
    c = x.shape.as_list()[-1]
    kernel = np.tile(k2[:, :, None, None], (1, 1, c, 1)).astype(xf.dtype.np)
    out = N.depthwise_conv2d(xf, tensor(kernel), [1, 1, 1, 1], "SAME")
    return back(out if x.dtype.is_floating else MO.cast(out, x.dtype))


def affine_transform(images, transform, interpolation: str = "bilinear",
                     fill_mode: str = "constant", fill_value=0, data_format=None):
    x, back = _nhwc(images, data_format)
    t = as_float(transform)
    if t.shape.rank == 1:
        t = A.expand_dims(t, 0)
    return back(_affine.affine_transform(as_float(x), t, fill_mode, interpolation,
                                         float(fill_value)))


def _homography(start, end):
    """The 8 transform numbers mapping output (end) points to input (start) points."""
    s, e = as_float(start), as_float(end)
    single = s.shape.rank == 2
    if single:
        s, e = A.expand_dims(s, 0), A.expand_dims(e, 0)
    rows = []
    rhs = []
    for i in range(4):
        xe, ye = e[:, i, 0], e[:, i, 1]
        xs, ys = s[:, i, 0], s[:, i, 1]
        z, o = A.zeros_like(xe), A.ones_like(xe)
        rows.append(A.stack([xe, ye, o, z, z, z, -xe * xs, -ye * xs], -1))
        rows.append(A.stack([z, z, z, xe, ye, o, -xe * ys, -ye * ys], -1))
        rhs += [xs, ys]
    m = A.stack(rows, 1)
    b = A.expand_dims(A.stack(rhs, 1), -1)
    return A.squeeze(L.solve(m, b), [-1])


def perspective_transform(images, start_points, end_points, interpolation: str = "bilinear",
                          fill_value=0, data_format=None):
    return affine_transform(images, _homography(start_points, end_points), interpolation,
                            "constant", fill_value, data_format)


def map_coordinates(inputs, coordinates, order: int, fill_mode: str = "constant",
                    fill_value=0):
    x = as_float(inputs)
    coords = [as_float(c) for c in coordinates]
    dims = x.shape.as_list()
    if len(coords) != len(dims):
        raise ValueError(f"keras.ops.image.map_coordinates: {len(coords)} coordinate arrays "
                         f"for a rank-{len(dims)} input")
    if order not in (0, 1):
        raise ValueError("keras.ops.image.map_coordinates: order must be 0 or 1")
    if fill_mode != "constant":
        coords = [_fold(c, n, fill_mode) for c, n in zip(coords, dims)]

    def read(idx):
        ok = None
        clipped = []
        for c, n in zip(idx, dims):
            inside = MO.logical_and(MO.greater_equal(c, 0), MO.less(c, n))
            ok = inside if ok is None else MO.logical_and(ok, inside)
            clipped.append(MO.minimum(MO.maximum(c, 0), n - 1))
        v = A.gather_nd(x, A.stack([MO.cast(c, "int32") for c in clipped], -1))
        return MO.where(ok, v, MO.cast(fill_value, x.dtype) + A.zeros_like(v))
    if order == 0:
        return read([MO.floor(c + 0.5) for c in coords])
    lows = [MO.floor(c) for c in coords]
    out = None
    for corner in range(2 ** len(coords)):
        idx, w = [], None
        for d, (c, lo) in enumerate(zip(coords, lows)):
            hi = (corner >> d) & 1
            idx.append(lo + hi)
            wd = (c - lo) if hi else (1.0 - (c - lo))
            w = wd if w is None else w * wd
        term = w * read(idx)
        out = term if out is None else out + term
    return out


def _fold(c, n: int, mode: str):
    if mode == "nearest":
        return MO.minimum(MO.maximum(c, 0.0), n - 1.0)
    if mode == "wrap":
        return MO.floormod(c, float(n))
    if mode in ("mirror", "reflect"):
        period = 2.0 * (n - 1) if mode == "mirror" else 2.0 * n
        r = MO.floormod(c, period) if n > 1 else A.zeros_like(c)
        if mode == "mirror":
            return MO.where(MO.greater(r, n - 1.0), period - r, r)
        return MO.where(MO.greater(r, n - 0.5), period - 1.0 - r, r)
    raise ValueError(f"keras.ops.image.map_coordinates: unknown fill_mode {mode!r}")


def sobel_edges(images, data_format=None):
    x, back = _nhwc(images, data_format)
    out = _quality.sobel_edges(as_float(x))
    return out if data_format != "channels_first" else A.transpose(out, [0, 3, 1, 2, 4])


def ssim(image1, image2, max_val=1.0, filter_size: int = 11, filter_sigma=1.5, k1=0.01,
         k2=0.03, data_format=None):
    a, _ = _nhwc(image1, data_format)
    b, _ = _nhwc(image2, data_format)
    return _quality.ssim(as_float(a), as_float(b), max_val, filter_size, filter_sigma, k1, k2)


_INTERPOLATIONS = ("nearest", "bilinear")
_FILL_MODES = ("constant", "nearest", "wrap", "reflect")


def elastic_transform(images, alpha=20.0, sigma=5.0, interpolation: str = "bilinear",
                      fill_mode: str = "reflect", fill_value=0.0, seed=None,
                      data_format=None):
    """Elastic deformation (Simard et al.): every pixel moves by ``alpha`` times a random
    displacement field smoothed by a Gaussian of ``sigma`` (the same field in x and y, as
    Keras 3.15 draws both from one seed).

    Args:
        images: 3-D or 4-D images.
        alpha: the displacement's scale.
        sigma: the smoothing Gaussian's standard deviation.
        interpolation: ``'nearest'`` or ``'bilinear'``.
        fill_mode: ``'constant'``, ``'nearest'``, ``'wrap'`` or ``'reflect'``.
        fill_value: the value outside the image with ``'constant'``.
        seed: an int or a ``keras.random.SeedGenerator``.
        data_format: the layout.

    Returns:
        The deformed images (the input's dtype).
    """
    if interpolation not in _INTERPOLATIONS:
        raise ValueError("Invalid value for argument `interpolation`. Expected of one "
                         f"{_INTERPOLATIONS}. Received: interpolation={interpolation}")
    if fill_mode not in _FILL_MODES:
        raise ValueError("Invalid value for argument `fill_mode`. Expected of one "
                         f"{_FILL_MODES}. Received: fill_mode={fill_mode}")
    x = tensor(images)
    if x.shape.rank not in (3, 4):
        raise ValueError("Invalid images rank: expected rank 3 (single image) or rank 4 "
                         f"(batch of images). Received input with shape: "
                         f"images.shape={x.shape}")
    dtype = x.dtype
    single = x.shape.rank == 3
    if single:
        x = A.expand_dims(x, 0)
    first = _channels_first(data_format)
    if first:
        x = A.transpose(x, [0, 2, 3, 1])
    batch, height, width, channels = x.shape.as_list()
    if None in (height, width, channels):
        raise ValueError("elastic_transform needs known image sizes")
    batch = batch or 1
    k = 6 * int(sigma) | 1
    noise = _random.normal((batch, height, width), 0.0, 1.0, dtype=dtype.name,
                           seed=seed) * MO.cast(sigma, dtype)
    field = gaussian_blur(A.expand_dims(noise, -1), (k, k), (sigma, sigma))[..., 0]
    gx, gy = np.meshgrid(np.arange(width), np.arange(height), indexing="xy")
    dist_x = MO.cast(gx, dtype) + MO.cast(alpha, dtype) * field
    dist_y = MO.cast(gy, dtype) + MO.cast(alpha, dtype) * field
    order = _INTERPOLATIONS.index(interpolation)
    out = A.stack([
        A.stack([map_coordinates(x[b, ..., c], [dist_y[b], dist_x[b]], order, fill_mode,
                                 fill_value) for c in range(channels)], -1)
        for b in range(batch)], 0)
    if first:
        out = A.transpose(out, [0, 3, 1, 2])
    out = out[0] if single else out
    return out if out.dtype is dtype else MO.cast(out, dtype)
