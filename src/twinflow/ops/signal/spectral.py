"""Windows, framing, STFT, mel filter banks, MFCCs and DCTs of tf.signal, written with
twinflow ops (differentiable; the lengths that shape outputs must be known when built)."""
from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from ...core import dtypes
from ...eager.execute import constant_value
from ...graph.graph import name_scoped
from ...graph.tensor import DTypeLike, Tensor, TensorLike
from ..array.gather import gather
from ..array.join import concat, pad
from ..array.layout import stack
from ..array.search import roll
from ..array.shape import reshape, shape
from ..core import convert, static_int
from ..linalg_ops import tensordot
from ..math.cast import cast
from . import fft as _fft


def _window(values: np.ndarray, dtype) -> Tensor:
    dt = dtypes.as_dtype(dtype)
    if not dt.is_floating:
        raise ValueError(f"window dtype must be floating, got {dt.name}")
    return convert(values.astype(dt.np))


def _raised_cosine(window_length, periodic, dtype, a: float, b: float, what: str) -> Tensor:
    n = static_int(window_length, f"{what}: window_length")
    if n < 0:
        raise ValueError(f"{what}: window_length must be >= 0, got {n}")
    if n == 1:
        return _window(np.ones(1), dtype)
    # TensorFlow's rule: ``periodic`` lengthens the period only for even lengths.
    denom = n if periodic and n % 2 == 0 else n - 1
    return _window(a - b * np.cos(2 * np.pi * np.arange(n) / max(denom, 1)), dtype)


@name_scoped
def hann_window(window_length, periodic=True, dtype: DTypeLike = dtypes.float32,
                name: str | None = None) -> Tensor:
    """A Hann window (``tw.signal.hann_window``).

    Args:
        window_length: the number of samples.
        periodic: a window for spectral analysis (period ``window_length``) rather than a
            symmetric one.
        dtype: a float dtype.

    Returns:
        A 1-D tensor.
    """
    return _raised_cosine(window_length, periodic, dtype, 0.5, 0.5, "hann_window")


@name_scoped
def hamming_window(window_length, periodic=True, dtype: DTypeLike = dtypes.float32,
                   name: str | None = None) -> Tensor:
    """A Hamming window (``tw.signal.hamming_window``).

    Args:
        window_length: the number of samples.
        periodic: periodic (spectral analysis) rather than symmetric.
        dtype: a float dtype.

    Returns:
        A 1-D tensor.
    """
    return _raised_cosine(window_length, periodic, dtype, 0.54, 0.46, "hamming_window")


@name_scoped
def kaiser_window(window_length, beta=12.0, dtype: DTypeLike = dtypes.float32,
                  name: str | None = None) -> Tensor:
    """A Kaiser window (``tw.signal.kaiser_window``).

    Args:
        window_length: the number of samples.
        beta: the shape parameter.
        dtype: a float dtype.

    Returns:
        A 1-D tensor.
    """
    return _window(kaiser_values(static_int(window_length, "kaiser_window: window_length"),
                                 beta), dtype)


def kaiser_values(n: int, beta: float) -> np.ndarray:
    """The Kaiser window of ``n`` samples as a float64 NumPy array."""
    if n == 1:
        return np.ones(1)
    t = 2.0 * np.arange(n) / (n - 1) - 1.0
    return np.i0(beta * np.sqrt(np.clip(1 - t * t, 0, None))) / np.i0(beta)


@name_scoped
def vorbis_window(window_length, dtype: DTypeLike = dtypes.float32,
                  name: str | None = None) -> Tensor:
    """The Vorbis power-complementary window (``tw.signal.vorbis_window``).

    Args:
        window_length: the number of samples.
        dtype: a float dtype.

    Returns:
        A 1-D tensor.
    """
    n = static_int(window_length, "vorbis_window: window_length")
    s = np.sin(np.pi * (np.arange(n) + 0.5) / n)
    return _window(np.sin(np.pi / 2 * s * s), dtype)


# ----- framing ------------------------------------------------------------------------------------

def _axis_len(x, axis: int, what: str) -> int:
    n = x.shape[axis] if x.shape.rank is not None else None
    if n is None:
        raise ValueError(f"{what}: the length of axis {axis} must be known, got {x.shape}")
    return n


@name_scoped
def frame(signal: TensorLike, frame_length, frame_step, pad_end=False, pad_value=0, axis=-1,
          name: str | None = None) -> Tensor:
    """Overlapping frames of ``frame_length`` samples every ``frame_step`` along ``axis``
    (``tw.signal.frame``).

    Args:
        signal: a tensor.
        frame_length: samples per frame.
        frame_step: samples between frame starts.
        pad_end: pad the end with ``pad_value`` so that every sample is in a frame.
        pad_value: the padding value.
        axis: the time axis.

    Returns:
        ``signal`` with ``axis`` replaced by ``[frames, frame_length]``.
    """
    x = convert(signal, name="signal")
    fl = static_int(frame_length, "frame: frame_length")
    fs = static_int(frame_step, "frame: frame_step")
    if fl <= 0 or fs <= 0:
        raise ValueError(f"frame: frame_length and frame_step must be positive, got {fl}, {fs}")
    r = x.shape.rank
    if r is None or r == 0:
        raise ValueError(f"frame: signal must have a known rank >= 1, got {x.shape}")
    ax = axis % r
    n = _axis_len(x, ax, "frame")
    if pad_end:
        frames = -(-n // fs)
        extra = max((frames - 1) * fs + fl - n, 0)
        paddings = [[0, 0]] * r
        paddings[ax] = [0, extra]
        x = pad(x, paddings, constant_values=pad_value)
    else:
        frames = max(0, 1 + (n - fl) // fs)
    idx = (np.arange(frames)[:, None] * fs + np.arange(fl)[None]).astype(np.int32)
    return gather(x, idx, axis=ax)


@name_scoped
def overlap_and_add(signal: TensorLike, frame_step, name: str | None = None) -> Tensor:
    """Sums frames back into a signal (``tw.signal.overlap_and_add``).

    Args:
        signal: ``[..., frames, frame_length]`` with both known.
        frame_step: samples between frame starts (<= frame_length).

    Returns:
        ``[..., (frames - 1) * frame_step + frame_length]``.
    """
    x = convert(signal, name="signal")
    if x.shape.rank is None or x.shape.rank < 2:
        raise ValueError(f"overlap_and_add: signal must have rank >= 2, got {x.shape}")
    frames, fl = _axis_len(x, -2, "overlap_and_add"), _axis_len(x, -1, "overlap_and_add")
    fs = static_int(frame_step, "overlap_and_add: frame_step")
    if not 0 < fs <= fl:
        raise ValueError(f"overlap_and_add: frame_step must be in [1, frame_length], got {fs}")
    out_len = (frames - 1) * fs + fl
    m = np.zeros((frames * fl, out_len), np.float64)
    for f in range(frames):
        m[f * fl + np.arange(fl), f * fs + np.arange(fl)] = 1.0
    flat = reshape(x, concat([shape(x)[:-2], [frames * fl]], 0))
    return tensordot(flat, convert(m.astype(x.dtype.np)), [[-1], [0]])


# ----- STFT ---------------------------------------------------------------------------------------

def _fft_len(frame_length: int) -> int:
    return 1 << max(frame_length - 1, 0).bit_length()


@name_scoped
def stft(signals: TensorLike, frame_length, frame_step, fft_length=None,
         window_fn: Callable | None = hann_window, pad_end=False,
         name: str | None = None) -> Tensor:
    """Short-time Fourier transform of real signals (``tw.signal.stft``).

    Args:
        signals: float ``[..., samples]``.
        frame_length: samples per frame.
        frame_step: samples between frames.
        fft_length: the FFT size (default: the smallest power of 2 >= frame_length).
        window_fn: ``fn(length, dtype=...)`` making the window; None for none.
        pad_end: zero-pad the end so that every sample is in a frame.

    Returns:
        Complex ``[..., frames, fft_length // 2 + 1]``.
    """
    x = convert(signals, name="signals")
    fl = static_int(frame_length, "stft: frame_length")
    n = _fft_len(fl) if fft_length is None else static_int(fft_length, "stft: fft_length")
    frames = frame(x, fl, frame_step, pad_end=pad_end)
    if window_fn is not None:
        frames = frames * window_fn(fl, dtype=x.dtype)
    return _fft.rfft(frames, [n])


@name_scoped
def inverse_stft(stfts: TensorLike, frame_length, frame_step, fft_length=None,
                 window_fn: Callable | None = hann_window, name: str | None = None) -> Tensor:
    """Signals back from their STFT (``tw.signal.inverse_stft``; use
    ``inverse_stft_window_fn`` for a perfect reconstruction).

    Args:
        stfts: complex ``[..., frames, fft_length // 2 + 1]``.
        frame_length: samples per frame.
        frame_step: samples between frames.
        fft_length: the FFT size (default as in ``stft``).
        window_fn: the synthesis window maker; None for none.

    Returns:
        Real ``[..., samples]``.
    """
    s = convert(stfts, name="stfts")
    fl = static_int(frame_length, "inverse_stft: frame_length")
    n = _fft_len(fl) if fft_length is None else static_int(fft_length, "inverse_stft: fft_length")
    frames = _fft.irfft(s, [n])
    if n > fl:
        frames = frames[..., :fl]
    elif n < fl:
        frames = pad(frames, [[0, 0]] * (frames.shape.rank - 1) + [[0, fl - n]])
    if window_fn is not None:
        frames = frames * window_fn(fl, dtype=frames.dtype)
    return overlap_and_add(frames, frame_step)


@name_scoped
def inverse_stft_window_fn(frame_step, forward_window_fn: Callable = hann_window,
                           name: str | None = None) -> Callable:
    """A window maker for ``inverse_stft`` that undoes ``forward_window_fn``'s overlap
    (``tw.signal.inverse_stft_window_fn``).

    Args:
        frame_step: samples between frames.
        forward_window_fn: the window maker ``stft`` used.

    Returns:
        ``fn(frame_length, dtype)`` returning the synthesis window.
    """
    fs = static_int(frame_step, "inverse_stft_window_fn: frame_step")

    def window_fn(frame_length, dtype=dtypes.float32):
        fl = static_int(frame_length, "inverse_stft_window_fn: frame_length")
        w = constant_value(forward_window_fn(fl, dtype=dtype))
        if w is None:
            raise ValueError("inverse_stft_window_fn: the forward window must be a constant")
        w = np.asarray(w, np.float64)
        sq = np.pad(w * w, (0, -(-fl // fs) * fs - fl)).reshape(-1, fs).sum(0)
        denom = np.tile(sq, -(-fl // fs))[:fl]
        return _window(w / denom, dtype)

    return window_fn


# ----- mel, DCT, MFCC -----------------------------------------------------------------------------

def _hz_to_mel(f):
    return 1127.0 * np.log(1.0 + np.asarray(f) / 700.0)


@name_scoped
def linear_to_mel_weight_matrix(num_mel_bins=20, num_spectrogram_bins=129, sample_rate=8000,
                                lower_edge_hertz=125.0, upper_edge_hertz=3800.0,
                                dtype: DTypeLike = dtypes.float32,
                                name: str | None = None) -> Tensor:
    """A matrix mapping linear spectrogram bins to mel bands (triangular filters, HTK mel
    scale) (``tw.signal.linear_to_mel_weight_matrix``).

    Args:
        num_mel_bins: the number of mel bands.
        num_spectrogram_bins: ``fft_length // 2 + 1``.
        sample_rate: samples per second.
        lower_edge_hertz: the lowest band edge.
        upper_edge_hertz: the highest band edge (<= sample_rate / 2).
        dtype: a float dtype.

    Returns:
        ``[num_spectrogram_bins, num_mel_bins]`` (the DC bin gets no weight).
    """
    if num_mel_bins <= 0 or num_spectrogram_bins <= 0 or sample_rate <= 0:
        raise ValueError("linear_to_mel_weight_matrix: bins and sample_rate must be positive")
    if not 0 <= lower_edge_hertz < upper_edge_hertz <= sample_rate / 2:
        raise ValueError(f"linear_to_mel_weight_matrix: need 0 <= lower_edge_hertz < "
                         f"upper_edge_hertz <= sample_rate / 2, got {lower_edge_hertz}, "
                         f"{upper_edge_hertz}, {sample_rate}")
    f32 = np.float32
    freqs = np.linspace(0.0, sample_rate / 2.0, num_spectrogram_bins, dtype=f32)[1:]
    mel = _hz_to_mel(freqs).astype(f32)[:, None]
    edges = np.linspace(_hz_to_mel(lower_edge_hertz), _hz_to_mel(upper_edge_hertz),
                        num_mel_bins + 2).astype(f32)
    lo, center, hi = edges[:-2][None], edges[1:-1][None], edges[2:][None]
    w = np.maximum(0.0, np.minimum((mel - lo) / (center - lo), (hi - mel) / (hi - center)))
    return _window(np.pad(w, [[1, 0], [0, 0]]), dtype)


def _dct_matrix(n: int, kind: int, norm: str | None) -> np.ndarray:
    """M[n_in, k_out] of the (scipy-style, unnormalized or orthonormal) DCT of ``kind``."""
    i = np.arange(n)[:, None].astype(np.float64)
    k = np.arange(n)[None].astype(np.float64)
    if kind == 1:
        m = 2.0 * np.cos(np.pi * i * k / (n - 1))
        m[0], m[-1] = 1.0, (-1.0) ** np.arange(n)
    elif kind == 2:
        m = 2.0 * np.cos(np.pi * k * (2 * i + 1) / (2 * n))
        if norm == "ortho":
            m *= np.sqrt(1.0 / (2 * n))
            m[:, 0] *= np.sqrt(0.5)
    elif kind == 3:
        m = 2.0 * np.cos(np.pi * i * (2 * k + 1) / (2 * n))
        m[0] = 1.0
        if norm == "ortho":
            m *= np.sqrt(1.0 / (2 * n))
            m[0] *= np.sqrt(2.0)
    else:
        m = 2.0 * np.cos(np.pi * (2 * i + 1) * (2 * k + 1) / (4 * n))
        if norm == "ortho":
            m *= np.sqrt(1.0 / (2 * n))
    return m


@name_scoped
def dct(input: TensorLike, type=2, n=None, axis=-1, norm=None,
        name: str | None = None) -> Tensor:
    """Discrete cosine transform of types I-IV along the last axis (``tw.signal.dct``).

    Args:
        input: float ``[..., samples]`` with a known last dimension.
        type: 1, 2, 3 or 4.
        n: truncate or zero-pad the signal to this length first.
        axis: must be -1 (as in TensorFlow).
        norm: None or "ortho" (not for type 1).

    Returns:
        The DCT, float of the input's dtype.
    """
    if type not in (1, 2, 3, 4):
        raise ValueError(f"dct: type must be 1, 2, 3 or 4, got {type}")
    if axis != -1:
        raise NotImplementedError("dct: axis must be -1 (as in TensorFlow)")
    if norm not in (None, "ortho"):
        raise ValueError(f"dct: norm must be None or 'ortho', got {norm!r}")
    if type == 1 and norm == "ortho":
        raise ValueError("dct: normalization is not supported for type-I DCT")
    x = convert(input, name="input")
    if not x.dtype.is_floating:
        raise TypeError(f"dct: input must be float, got {x.dtype.name}")
    length = _axis_len(x, -1, "dct")
    if n is not None:
        n = static_int(n, "dct: n")
        if n < 1:
            raise ValueError(f"dct: n must be positive, got {n}")
        if n < length:
            x = x[..., :n]
        elif n > length:
            x = pad(x, [[0, 0]] * (x.shape.rank - 1) + [[0, n - length]])
        length = n
    if type == 1 and length < 2:
        raise ValueError("dct: type-I DCT needs at least 2 samples")
    m = _dct_matrix(length, type, norm)
    return tensordot(x, convert(m.astype(x.dtype.np)), [[-1], [0]])


@name_scoped
def idct(input: TensorLike, type=2, n=None, axis=-1, norm=None,
         name: str | None = None) -> Tensor:
    """Inverse DCT (``tw.signal.idct``): the DCT of the inverse type (exact inverse with
    ``norm="ortho"``; otherwise scaled by ``2 * N`` (``2 * (N - 1)`` for type 1)).

    Args:
        input: float ``[..., samples]``.
        type: 1, 2, 3 or 4.
        n: must be None (as in TensorFlow).
        axis: must be -1.
        norm: None or "ortho".

    Returns:
        The inverse transform.
    """
    if n is not None:
        raise NotImplementedError("idct: n must be None (as in TensorFlow)")
    return dct(input, type={1: 1, 2: 3, 3: 2, 4: 4}.get(type, type), axis=axis, norm=norm)


@name_scoped
def mfccs_from_log_mel_spectrograms(log_mel_spectrograms: TensorLike,
                                    name: str | None = None) -> Tensor:
    """MFCCs: the orthonormal-scaled DCT-II of log mel spectrograms
    (``tw.signal.mfccs_from_log_mel_spectrograms``).

    Args:
        log_mel_spectrograms: float ``[..., num_mel_bins]``.

    Returns:
        ``[..., num_mel_bins]`` coefficients (keep the first few).
    """
    x = convert(log_mel_spectrograms, name="log_mel_spectrograms")
    bins = _axis_len(x, -1, "mfccs_from_log_mel_spectrograms")
    return dct(x, type=2) * cast(1.0 / math.sqrt(bins * 2.0), x.dtype)


# ----- fftshift -----------------------------------------------------------------------------------

def _shift(x, axes, sign: int, what: str) -> Tensor:
    x = convert(x, name="x")
    r = x.shape.rank
    if r is None:
        raise ValueError(f"{what}: the rank of x must be known")
    axes = list(range(r)) if axes is None else [axes] if isinstance(axes, int) else list(axes)
    if not axes:
        return x
    dims = shape(x)
    return roll(x, stack([dims[a % r] // 2 * sign for a in axes]), [a % r for a in axes])


@name_scoped
def fftshift(x: TensorLike, axes=None, name: str | None = None) -> Tensor:
    """Moves the zero-frequency bin to the center (``tw.signal.fftshift``).

    Args:
        x: a tensor.
        axes: the axes to shift (default: all).

    Returns:
        The shifted tensor.
    """
    return _shift(x, axes, 1, "fftshift")


@name_scoped
def ifftshift(x: TensorLike, axes=None, name: str | None = None) -> Tensor:
    """Inverse of ``fftshift`` (``tw.signal.ifftshift``).

    Args:
        x, axes: as for ``fftshift``.

    Returns:
        The shifted tensor.
    """
    return _shift(x, axes, -1, "ifftshift")


__all__ = ["hann_window", "hamming_window", "kaiser_window", "vorbis_window", "frame",
           "overlap_and_add", "stft", "inverse_stft", "inverse_stft_window_fn",
           "linear_to_mel_weight_matrix", "dct", "idct", "mfccs_from_log_mel_spectrograms",
           "fftshift", "ifftshift"]

