"""Image measures and filters of tf.image: psnr, ssim, sobel_edges, image_gradients,
total_variation, extract_patches (twinflow ops only, so all are differentiable)."""
from __future__ import annotations

import math

import numpy as np

from ...core import dtypes
from ...graph.graph import name_scoped
from ...graph.tensor import Tensor, TensorLike
from ..array.join import concat, pad
from ..array.layout import stack
from ..array.shape import reshape
from ..core import convert, static_ints
from ..linalg_ops import einsum
from ..math.cast import cast
from ..math.reduce import reduce_mean, reduce_prod, reduce_sum
from ..math.unary import log
from ..nn.activations import relu


def _float(x, what: str, rank: tuple = (3, 4)) -> Tensor:
    x = convert(x, name="image")
    if x.shape.rank is not None and x.shape.rank not in rank and x.shape.rank < 3:
        raise ValueError(f"{what}: images must have rank >= 3, got shape {x.shape}")
    return x if x.dtype.is_floating else cast(x, dtypes.float32)


@name_scoped
def psnr(a: TensorLike, b: TensorLike, max_val, name: str | None = None) -> Tensor:
    """Peak signal-to-noise ratio between images (``tw.image.psnr``).

    Args:
        a: images ``[..., height, width, channels]``.
        b: images of the same shape.
        max_val: the dynamic range (1.0 for float images, 255 for uint8).

    Returns:
        float32 PSNR per image (``a.shape[:-3]``).
    """
    x, y = cast(_float(a, "psnr"), dtypes.float32), cast(_float(b, "psnr"), dtypes.float32)
    if x.shape.rank is not None and y.shape.rank is not None and \
            not x.shape.is_compatible_with(y.shape):
        raise ValueError(f"psnr: shapes {x.shape} and {y.shape} differ")
    mse = reduce_mean((x - y) * (x - y), axis=[-3, -2, -1])
    mv = cast(max_val, dtypes.float32)
    return 20.0 * log(mv) / np.float32(math.log(10.0)) - np.float32(10 / np.log(10)) * log(mse)


def _gauss_band(n: int, size: int, sigma: float) -> np.ndarray:
    """[n - size + 1, n]: the normalized 1-D Gaussian applied at each VALID position."""
    coords = np.arange(size, dtype=np.float64) - (size - 1) / 2.0
    g = np.exp(-0.5 * coords ** 2 / sigma ** 2)
    g = (g / g.sum()).astype(np.float32)
    out = np.zeros((n - size + 1, n), np.float32)
    for i in range(n - size + 1):
        out[i, i:i + size] = g
    return out


def ssim(img1: TensorLike, img2: TensorLike, max_val, filter_size=11, filter_sigma=1.5,
         k1=0.01, k2=0.03, return_index_map=False) -> Tensor:
    """Structural similarity of two images, mean over pixels and channels (``tw.image.ssim``).

    The Gaussian window (separable, as TensorFlow's) is applied without padding.

    Args:
        img1: images ``[..., height, width, channels]`` with known height and width.
        img2: images of the same shape.
        max_val: the dynamic range.
        filter_size: the Gaussian window size.
        filter_sigma: its standard deviation.
        k1: the luminance constant.
        k2: the contrast constant.
        return_index_map: return the per-pixel map instead of its mean.

    Returns:
        SSIM per image (float32; the map ``[..., h', w']`` if ``return_index_map``).
    """
    x = cast(_float(img1, "ssim"), dtypes.float32)
    y = cast(_float(img2, "ssim"), dtypes.float32)
    per_channel, _ = _ssim_per_channel(x, y, max_val, filter_size, filter_sigma, k1, k2,
                                       "ssim", index_map=return_index_map)
    return reduce_mean(per_channel, axis=-1)  # over channels (the map keeps its pixels)


def _ssim_per_channel(x, y, max_val, filter_size, filter_sigma, k1, k2, what: str,
                      index_map: bool = False):
    """(ssim, contrast-structure) per channel: means over the VALID window positions, or the
    per-pixel ssim map when ``index_map``."""
    h, w = x.shape[-3], x.shape[-2]
    if h is None or w is None:
        raise ValueError(f"{what}: twinflow needs the image height and width, got {x.shape}")
    if h < filter_size or w < filter_size:
        raise ValueError(f"{what}: images of {h}x{w} are smaller than filter_size "
                         f"{filter_size}")
    mh = convert(_gauss_band(h, filter_size, filter_sigma))
    mw = convert(_gauss_band(w, filter_size, filter_sigma))

    def blur(t):
        return einsum("jw,...iwc->...ijc", mw, einsum("ih,...hwc->...iwc", mh, t))

    mv = cast(max_val, dtypes.float32)
    c1, c2 = (k1 * mv) ** 2, (k2 * mv) ** 2
    m0, m1 = blur(x), blur(y)
    num0 = m0 * m1 * 2.0
    den0 = m0 * m0 + m1 * m1
    luminance = (num0 + c1) / (den0 + c1)
    cs = (blur(x * y) * 2.0 - num0 + c2) / (blur(x * x + y * y) - den0 + c2)
    if index_map:
        return luminance * cs, cs
    return reduce_mean(luminance * cs, axis=[-3, -2]), reduce_mean(cs, axis=[-3, -2])


_MSSSIM_WEIGHTS = (0.0448, 0.2856, 0.3001, 0.2363, 0.1333)


def _halve(t):
    """2x2 average pooling (VALID) after symmetric padding of an odd height or width."""
    h, w = t.shape[-3], t.shape[-2]
    rank = t.shape.rank
    if h % 2 or w % 2:
        t = pad(t, [[0, 0]] * (rank - 3) + [[0, h % 2], [0, w % 2], [0, 0]], mode="SYMMETRIC")
        h, w = h + h % 2, w + w % 2
    lead = t.shape.as_list()[:-3]
    if None in lead:
        raise ValueError(f"ssim_multiscale: the batch dimensions must be known, got {t.shape}")
    c = t.shape[-1]
    r = reshape(t, lead + [h // 2, 2, w // 2, 2, c])
    return reduce_mean(r, axis=[rank - 2, rank])


def ssim_multiscale(img1: TensorLike, img2: TensorLike, max_val,
                    power_factors=_MSSSIM_WEIGHTS, filter_size=11, filter_sigma=1.5, k1=0.01,
                    k2=0.03) -> Tensor:
    """Multi-scale SSIM (``tw.image.ssim_multiscale``): contrast-structure at each of
    ``len(power_factors)`` scales (halving each time) and SSIM at the coarsest, weighted.

    Args:
        img1: images ``[..., height, width, channels]`` with known sizes; the coarsest scale
            must still be at least ``filter_size``.
        img2: images of the same shape.
        max_val: the dynamic range.
        power_factors: one exponent per scale.
        filter_size: the Gaussian window size.
        filter_sigma: its standard deviation.
        k1: the luminance constant.
        k2: the contrast constant.

    Returns:
        float32 MS-SSIM per image.
    """
    x = cast(_float(img1, "ssim_multiscale"), dtypes.float32)
    y = cast(_float(img2, "ssim_multiscale"), dtypes.float32)
    mcs = []
    for k in range(len(power_factors)):
        if k:
            x, y = _halve(x), _halve(y)
        ssim_pc, cs = _ssim_per_channel(x, y, max_val, filter_size, filter_sigma, k1, k2,
                                        "ssim_multiscale")
        mcs.append(relu(cs))
    mcs[-1] = relu(ssim_pc)
    weights = convert(np.asarray(power_factors, np.float32))
    return reduce_mean(reduce_prod(stack(mcs, axis=-1) ** weights, axis=-1), axis=-1)


def _shifted(x, di: int, dj: int, h: int, w: int):
    return x[..., di:di + h, dj:dj + w, :]


def sobel_edges(image: TensorLike) -> Tensor:
    """Sobel derivatives of each channel (``tw.image.sobel_edges``; reflect-padded).

    Args:
        image: ``[batch, height, width, channels]`` with known height and width.

    Returns:
        float ``[batch, height, width, channels, 2]``: (dy, dx) per channel.
    """
    x = _float(image, "sobel_edges", (4,))
    if x.shape.rank != 4 or x.shape[1] is None or x.shape[2] is None:
        raise ValueError(f"sobel_edges: needs [batch, height, width, channels] with known "
                         f"height and width, got {x.shape}")
    h, w = x.shape[1], x.shape[2]
    p = pad(x, [[0, 0], [1, 1], [1, 1], [0, 0]], mode="REFLECT")
    ky = [[-1, -2, -1], [0, 0, 0], [1, 2, 1]]
    outs = []
    for k in (ky, np.transpose(ky)):
        acc = None
        for i in range(3):
            for j in range(3):
                if k[i][j]:
                    term = _shifted(p, i, j, h, w) * float(k[i][j])
                    acc = term if acc is None else acc + term
        outs.append(acc)
    return stack(outs, axis=-1)


def image_gradients(image: TensorLike) -> tuple:
    """Forward differences ``(dy, dx)``, zero in the last row/column
    (``tw.image.image_gradients``).

    Args:
        image: ``[batch, height, width, channels]``.

    Returns:
        (dy, dx), each of the image's shape.
    """
    x = convert(image, name="image")
    if x.shape.rank != 4:
        raise ValueError(f"image_gradients expects a 4D tensor [batch_size, h, w, d], not "
                         f"{x.shape}")
    dy = pad(x[:, 1:] - x[:, :-1], [[0, 0], [0, 1], [0, 0], [0, 0]])
    dx = pad(x[:, :, 1:] - x[:, :, :-1], [[0, 0], [0, 0], [0, 1], [0, 0]])
    return dy, dx


@name_scoped
def total_variation(images: TensorLike, name: str | None = None) -> Tensor:
    """Sum of absolute differences between neighbouring pixels (``tw.image.total_variation``).

    Args:
        images: ``[batch, height, width, channels]`` or ``[height, width, channels]``.

    Returns:
        One value per image (a scalar for a single image).
    """
    x = convert(images, name="images")
    if x.shape.rank == 3:
        return reduce_sum(abs(x[1:] - x[:-1])) + reduce_sum(abs(x[:, 1:] - x[:, :-1]))
    if x.shape.rank != 4:
        raise ValueError(f"total_variation: images must be 3-D or 4-D, got {x.shape}")
    return reduce_sum(abs(x[:, 1:] - x[:, :-1]), axis=[1, 2, 3]) + \
        reduce_sum(abs(x[:, :, 1:] - x[:, :, :-1]), axis=[1, 2, 3])


@name_scoped
def extract_patches(images: TensorLike, sizes, strides, rates, padding: str,
                    name: str | None = None) -> Tensor:
    """Patches of ``sizes`` gathered into the depth dimension (``tw.image.extract_patches``).

    Args:
        images: ``[batch, height, width, channels]`` with known height and width.
        sizes: ``[1, size_rows, size_cols, 1]``.
        strides: ``[1, stride_rows, stride_cols, 1]``.
        rates: ``[1, rate_rows, rate_cols, 1]`` (dilation).
        padding: "VALID" or "SAME" (zero padding).

    Returns:
        ``[batch, out_rows, out_cols, size_rows * size_cols * channels]``.
    """
    x = convert(images, name="images")
    if x.shape.rank != 4 or x.shape[1] is None or x.shape[2] is None:
        raise ValueError(f"extract_patches: needs 4-D images with known height and width, "
                         f"got {x.shape}")
    args = [static_ints(v, f"extract_patches: {n}") for v, n in
            ((sizes, "sizes"), (strides, "strides"), (rates, "rates"))]
    for a, n in zip(args, ("sizes", "strides", "rates")):
        if len(a) != 4 or a[0] != 1 or a[3] != 1 or min(a) < 1:
            raise ValueError(f"extract_patches: {n} must be [1, rows, cols, 1] with positive "
                             f"entries, got {list(a)}")
    if padding not in ("VALID", "SAME"):
        raise ValueError(f"extract_patches: padding must be 'VALID' or 'SAME', got {padding!r}")
    (_, kh, kw, _), (_, sh, sw, _), (_, rh, rw, _) = args
    h, w = x.shape[1], x.shape[2]
    eh, ew = (kh - 1) * rh + 1, (kw - 1) * rw + 1
    if padding == "VALID":
        oh, ow = (h - eh) // sh + 1, (w - ew) // sw + 1
        if oh <= 0 or ow <= 0:
            raise ValueError(f"extract_patches: a {eh}x{ew} window does not fit {h}x{w}")
    else:
        oh, ow = -(-h // sh), -(-w // sw)
        ph, pw = max((oh - 1) * sh + eh - h, 0), max((ow - 1) * sw + ew - w, 0)
        x = pad(x, [[0, 0], [ph // 2, ph - ph // 2], [pw // 2, pw - pw // 2], [0, 0]])
    parts = [x[:, i * rh:i * rh + (oh - 1) * sh + 1:sh, j * rw:j * rw + (ow - 1) * sw + 1:sw]
             for i in range(kh) for j in range(kw)]
    return concat(parts, -1)


__all__ = ["psnr", "ssim", "ssim_multiscale", "sobel_edges", "image_gradients", "total_variation",
           "extract_patches"]
