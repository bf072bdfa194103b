"""The modified DCT (tf.signal.mdct / inverse_mdct) and the Kaiser-Bessel-derived window."""
from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from ...core import dtypes
from ...graph.graph import name_scoped
from ...graph.tensor import DTypeLike, Tensor, TensorLike
from ..array.join import concat, split
from ..array.layout import reverse
from ..core import convert, static_int
from ..math.cast import cast
from .spectral import _axis_len, _window, dct, frame, kaiser_values, overlap_and_add, vorbis_window


@name_scoped
def kaiser_bessel_derived_window(window_length, beta=12.0, dtype: DTypeLike = dtypes.float32,
                                 name: str | None = None) -> Tensor:
    """The Kaiser-Bessel-derived window (``tw.signal.kaiser_bessel_derived_window``), for
    MDCT analysis/synthesis.

    Args:
        window_length: the number of samples (even).
        beta: the Kaiser shape parameter.
        dtype: a float dtype.

    Returns:
        A 1-D tensor.
    """
    n = static_int(window_length, "kaiser_bessel_derived_window: window_length")
    half = n // 2
    k = kaiser_values(half + 1, beta)
    csum = np.cumsum(k.astype(dtypes.as_dtype(dtype).np))
    halfw = np.sqrt(csum[:-1] / csum[-1])
    return _window(np.concatenate([halfw, halfw[::-1]]), dtype)


@name_scoped
def mdct(signals: TensorLike, frame_length, window_fn: Callable | None = vorbis_window,
         pad_end=False, norm=None, name: str | None = None) -> Tensor:
    """Modified DCT of real signals in half-overlapping frames (``tw.signal.mdct``).

    Args:
        signals: float ``[..., samples]``.
        frame_length: samples per frame (a multiple of 4); frames advance by half of it.
        window_fn: the window maker (a power-complementary one for perfect reconstruction);
            None scales by ``1/sqrt(2)`` instead.
        pad_end: zero-pad the end so that every sample is in a frame.
        norm: None or "ortho".

    Returns:
        ``[..., frames, frame_length // 2]``.
    """
    fl = static_int(frame_length, "mdct: frame_length")
    if fl <= 0 or fl % 4:
        raise ValueError(f"mdct: frame_length must be a positive multiple of 4, got {fl}")
    if norm not in (None, "ortho"):
        raise ValueError(f"mdct: norm must be None or 'ortho', got {norm!r}")
    x = convert(signals, name="signals")
    frames = frame(x, fl, fl // 2, pad_end=pad_end)
    if window_fn is not None:
        frames = frames * window_fn(fl, dtype=x.dtype)
    else:
        frames = frames * cast(1.0 / math.sqrt(2.0), x.dtype)
    a, b, c, d = split(frames, 4, axis=-1)
    first = -reverse(c, [-1]) - d
    second = a - reverse(b, [-1])
    return dct(concat([first, second], -1), type=4, norm=norm)


@name_scoped
def inverse_mdct(mdcts: TensorLike, window_fn: Callable | None = vorbis_window, norm=None,
                 name: str | None = None) -> Tensor:
    """Signals back from their MDCT (``tw.signal.inverse_mdct``).

    Args:
        mdcts: float ``[..., frames, half_length]``.
        window_fn: the synthesis window maker (None: scale by ``1/sqrt(2)``).
        norm: None or "ortho" (as used by ``mdct``).

    Returns:
        ``[..., samples]``.
    """
    if norm not in (None, "ortho"):
        raise ValueError(f"inverse_mdct: norm must be None or 'ortho', got {norm!r}")
    m = convert(mdcts, name="mdcts")
    half = _axis_len(m, -1, "inverse_mdct")
    if norm is None:
        idct4 = dct(m, type=4) * cast(0.5 / half, m.dtype)
    else:
        idct4 = dct(m, type=4, norm="ortho")
    p, q = split(idct4, 2, axis=-1)
    frames = concat([q, -reverse(q, [-1]), -reverse(p, [-1]), -p], -1)
    if window_fn is not None:
        frames = frames * window_fn(2 * half, dtype=m.dtype)
    else:
        frames = frames * cast(1.0 / math.sqrt(2.0), m.dtype)
    return overlap_and_add(frames, half)


__all__ = ["kaiser_bessel_derived_window", "mdct", "inverse_mdct"]
