"""``keras.ops.image``'s volumetric patches and JAX-style
``scale_and_translate`` (Keras 3.15's TensorFlow-backend definitions, on twinflow ops)."""
from __future__ import annotations

import numpy as np

from ...core import dtypes
from ...ops import array_ops as A
from ...ops import linalg_ops as L
from ...ops import math_ops as MO
from ...ops import reduction_ops as R
from ._common import as_float, tensor
from .nn import _channels_first
from .nn import conv as _conv

__all__ = ["extract_patches_3d", "scale_and_translate"]


def _triple(v, what: str) -> list:
    if isinstance(v, int):
        return [v] * 3
    v = list(v)
    if len(v) != 3:
        raise ValueError(f"Invalid `{what}` argument. Expected an int or a tuple of length 3. "
                         f"Received: {what}={v}")
    return v


def extract_patches_3d(volumes, size, strides=None, dilation_rate=1, padding: str = "valid",
                       data_format=None):
    """Patches of volumes: each output position holds its ``d*h*w*c`` patch, flattened.

    Args:
        volumes: ``(batch, d, h, w, c)`` or one volume ``(d, h, w, c)`` (channels first
            with ``data_format='channels_first'``).
        size: the patch size (an int or three).
        strides: the step between patches (default ``size``).
        dilation_rate: the sampling stride inside a patch.
        padding: ``'valid'`` or ``'same'``.
        data_format: the layout.

    Returns:
        The patches, 5-D (or 4-D for one volume).
    """
    size = _triple(size, "size")
    strides = size if strides is None else _triple(strides, "strides")
    x = tensor(volumes)
    single = x.shape.rank == 4
    if single:
        x = A.expand_dims(x, 0)
    first = _channels_first(data_format)
    channels = x.shape.as_list()[1 if first else -1]
    out_dim = int(np.prod(size)) * channels
    kernel = np.eye(out_dim, dtype=x.dtype.np if x.dtype.is_floating else np.float32)
    kernel = kernel.reshape(size + [channels, out_dim])
    patches = _conv(x, tensor(kernel), strides, padding,
                    "channels_first" if first else "channels_last", dilation_rate)
    return patches[0] if single else patches


def _triangle(x):
    return MO.maximum(A.zeros_like(x), 1.0 - MO.abs(x))


def _keys_cubic(x):
    out = ((1.5 * x - 2.5) * x) * x + 1.0
    out = MO.where(MO.greater_equal(x, 1.0), ((-0.5 * x + 2.5) * x - 4.0) * x + 2.0, out)
    return MO.where(MO.greater_equal(x, 2.0), A.zeros_like(out), out)


def _lanczos(radius: float):
    def kernel(x):
        y = radius * MO.sin(np.pi * x) * MO.sin(np.pi * x / radius)
        safe = MO.where(MO.not_equal(x, 0.0), np.pi ** 2 * x * x, A.ones_like(x))
        out = MO.where(MO.greater(x, 1e-3), y / safe, A.ones_like(x))
        return MO.where(MO.greater(x, radius), A.zeros_like(out), out)
    return kernel


_KERNELS = {"linear": _triangle, "bilinear": _triangle, "trilinear": _triangle,
            "triangle": _triangle, "cubic": _keys_cubic, "bicubic": _keys_cubic,
            "tricubic": _keys_cubic, "lanczos3": _lanczos(3.0), "lanczos5": _lanczos(5.0)}


def _weights(n_in: int, n_out: int, scale, translation, kernel, antialias: bool):
    """The ``(n_in, n_out)`` resampling matrix of one axis."""
    inv = 1.0 / scale
    kscale = MO.maximum(inv, 1.0) if antialias else 1.0
    sample = (A.range(n_out, dtype=scale.dtype) + 0.5) * inv - translation * inv - 0.5
    dist = MO.abs(A.expand_dims(sample, 0) - A.expand_dims(
        A.range(n_in, dtype=scale.dtype), 1)) / kscale
    w = kernel(dist)
    total = R.reduce_sum(w, axis=0, keepdims=True)
    eps = 1000.0 * float(np.finfo(np.float32).eps)
    safe = MO.where(MO.not_equal(total, 0.0), total, A.ones_like(total))
    keep = A.broadcast_to(MO.greater(MO.abs(total), eps), A.shape(w))
    w = MO.where(keep, w / safe, A.zeros_like(w))
    inside = MO.logical_and(MO.greater_equal(sample, -0.5),
                            MO.less_equal(sample, n_in - 0.5))
    return MO.where(A.broadcast_to(A.expand_dims(inside, 0), A.shape(w)), w, A.zeros_like(w))


def scale_and_translate(images, output_shape, scale, translation, spatial_dims, method: str,
                        antialias: bool = True):
    """Resamples ``spatial_dims`` of ``images`` to ``output_shape``: output coordinate ``y``
    reads input coordinate ``(y - translation) / scale`` through ``method``'s kernel (with
    ``antialias`` widening it when downsampling), as ``jax.image.scale_and_translate``.

    Args:
        images: the array.
        output_shape: the full output shape.
        scale: one factor per spatial dim.
        translation: one offset per spatial dim.
        spatial_dims: the resampled axes.
        method: ``'linear'``, ``'cubic'``, ``'lanczos3'``, ``'lanczos5'`` (or their
            bi/tri names).
        antialias: widen the kernel when downsampling.

    Returns:
        The resampled array (integers are rounded and clipped to the input's range).
    """
    if method not in _KERNELS or method == "triangle":
        raise ValueError("Invalid value for argument `method`. Expected of one "
                         f"{sorted(k for k in _KERNELS if k != 'triangle')}. "
                         f"Received: method={method}")
    x = tensor(images)
    scale_t, trans_t = tensor(scale), tensor(translation)
    dt = dtypes.float64 if dtypes.float64 in (scale_t.dtype, trans_t.dtype) else \
        dtypes.float32
    scale_t, trans_t = MO.cast(scale_t, dt), MO.cast(trans_t, dt)
    spatial_dims = list(spatial_dims)
    if not spatial_dims:
        return x
    integer = not x.dtype.is_floating
    out = as_float(x) if integer else x
    rank = x.shape.rank
    for i, d in enumerate(spatial_dims):
        d = d % rank
        n_in, n_out = x.shape.as_list()[d], int(output_shape[d])
        w = MO.cast(_weights(n_in, n_out, scale_t[i], trans_t[i], _KERNELS[method],
                             antialias), out.dtype)
        out = L.tensordot(out, w, [[d], [0]])
        perm = list(range(rank - 1))
        perm.insert(d, rank - 1)
        out = A.transpose(out, perm)
    if integer:
        lo = MO.cast(R.reduce_min(x), out.dtype)
        hi = MO.cast(R.reduce_max(x), out.dtype)
        out = MO.cast(MO.clip_by_value(MO.round(out), lo, hi), x.dtype)
    return out
