"""Keras 3's audio front ends: ``MelSpectrogram`` (``keras.ops.stft``, the mel filter bank
of ``tw.signal.linear_to_mel_weight_matrix``, decibels) and ``STFTSpectrogram`` (a
convolution with fixed Fourier kernels, as Keras builds it; the window comes from SciPy's
``get_window``, the optional ``[special]`` extra)."""
from __future__ import annotations

import math
import warnings

import numpy as np

from ....core import dtypes
from ....graph.tensor import Tensor
from ....ops import array_ops, linalg_ops, math_ops, nn_ops, reduction_ops
from ....ops.signal import spectral as _spectral
from ...ops import core as _kcore
from ..base import Layer


class MelSpectrogram(Layer):
    """The mel-scaled power spectrogram of audio ``(batch, samples)``, in decibels by
    default: output ``(batch, num_mel_bins, frames)``.

    Args:
        fft_length: FFT size.
        sequence_stride: hop between frames.
        sequence_length: window length (default ``fft_length``).
        window: "hann", "hamming" or None.
        sampling_rate: the audio's sampling rate.
        num_mel_bins: mel bands.
        min_freq: lowest band edge, in Hz.
        max_freq: highest band edge (default: half the sampling rate).
        power_to_db: convert to decibels.
        top_db: the dynamic range kept below the batch's maximum, in dB.
        mag_exp: exponent of the magnitude (2: power).
        min_power: floor before the logarithm.
        ref_power: the 0 dB reference.
        **kwargs: Layer arguments.
    """

    def __init__(self, fft_length: int = 2048, sequence_stride: int = 512,
                 sequence_length=None, window="hann", sampling_rate: int = 16000,
                 num_mel_bins: int = 128, min_freq: float = 20.0, max_freq=None,
                 power_to_db: bool = True, top_db: float = 80.0, mag_exp: float = 2.0,
                 min_power: float = 1e-10, ref_power: float = 1.0, **kwargs) -> None:
        super().__init__(**kwargs)
        self.fft_length, self.sequence_stride = fft_length, sequence_stride
        self.sequence_length = sequence_length or fft_length
        if self.fft_length < self.sequence_length:
            raise ValueError(f"`fft_length` must be greater than or equal to  "
                             f"`sequence_length`. Received: `sequence_length`="
                             f"{self.sequence_length}, `fft_length`={self.fft_length}.")
        self.window, self.sampling_rate = window, sampling_rate
        self.num_mel_bins, self.min_freq = num_mel_bins, min_freq
        self.max_freq = max_freq or int(sampling_rate / 2)
        self.power_to_db, self.top_db, self.mag_exp = power_to_db, top_db, mag_exp
        self.min_power, self.ref_power = min_power, ref_power

    def call(self, inputs) -> Tensor:
        x = math_ops.cast(inputs, "float32")
        real, imag = _kcore.stft(x, self.sequence_length, self.sequence_stride,
                                 self.fft_length, self.window, center=True)
        spec = math_ops.pow(math_ops.sqrt(real * real + imag * imag), float(self.mag_exp))
        bins = spec.shape.as_list()[-1]
        matrix = _spectral.linear_to_mel_weight_matrix(self.num_mel_bins, bins,
                                                  self.sampling_rate, self.min_freq,
                                                  self.max_freq)
        out = linalg_ops.tensordot(spec, matrix, 1)
        if self.power_to_db:
            out = 10.0 * math_ops.log(math_ops.maximum(out, self.min_power)) / math.log(10.0)
            out = out - 10.0 * math.log10(max(abs(self.ref_power), self.min_power))
            out = math_ops.maximum(out, reduction_ops.reduce_max(out) - self.top_db)
        rank = out.shape.rank
        out = array_ops.transpose(out, list(range(rank - 2)) + [rank - 1, rank - 2])
        return math_ops.cast(out, self._tw_dtype)

    def compute_output_shape(self, input_shape) -> tuple:
        t = input_shape[-1]
        frames = None if t is None else (t + self.sequence_stride + 1) // self.sequence_stride
        return tuple(input_shape[:-1]) + (self.num_mel_bins, frames)

    _config_keys = ("fft_length", "sequence_stride", "sequence_length", "window",
                    "sampling_rate", "num_mel_bins", "min_freq", "max_freq", "power_to_db",
                    "top_db", "mag_exp", "min_power", "ref_power")


def stft_kernel(side: str, window, scaling, periodic: bool, frame_length: int,
                n_freq: int) -> np.ndarray:
    """Keras' STFT initializer: ``cos`` (real) or ``sin`` (imag) of ``-2 pi t f / N`` times
    the window, divided by the window's scaling; shape ``(frame_length, 1, n_freq)``.

    Args:
        side: "real" or "imag".
        window: a SciPy window name, an array of ``frame_length`` values, or None.
        scaling: "density", "spectrum" or None.
        periodic: a periodic (not symmetric) window.
        frame_length: the window length.
        n_freq: ``fft_length // 2 + 1``.

    Returns:
        The float32 kernel.
    """
    n = (n_freq - 1) * 2
    t = np.arange(frame_length, dtype=np.float32).reshape(-1, 1, 1)
    f = np.arange(n_freq, dtype=np.float32).reshape(1, 1, -1) / n
    args = -2 * t * f * np.float32(np.arccos(-1.0))
    kernel = np.cos(args) if side == "real" else np.sin(args)
    if window is None:
        return kernel.astype(np.float32)
    if isinstance(window, str):
        try:
            from scipy.signal import get_window  # noqa: PLC0415  (optional, on use)
        except ImportError:
            raise ImportError("STFTSpectrogram with a named window needs SciPy: pip install "
                              "'twinflow[special]' (or pip install scipy)") from None
        win = get_window(window, frame_length, periodic)
    else:
        win = np.asarray(window)
    if win.shape != (frame_length,):
        raise ValueError(f"The shape of `window` must be equal to [frame_length].Received: "
                         f"window shape={win.shape}")
    win = win.astype(np.float32).reshape(-1, 1, 1)
    scale = np.sqrt(np.sum(win * win)) if scaling == "density" else \
        np.sum(np.abs(win)) if scaling == "spectrum" else 1.0
    return (kernel * win / scale).astype(np.float32)


class STFTSpectrogram(Layer):
    """The short-time Fourier transform of ``(batch, time, channels)`` signals as a strided
    1-D convolution with fixed Fourier kernels (weights ``real_kernel`` / ``imag_kernel``).

    Args:
        mode: "log", "magnitude", "psd", "real", "imag", "angle" or "stft".
        frame_length: the window length.
        frame_step: the hop (default ``frame_length // 2``).
        fft_length: FFT size (default: the next power of two).
        window: a SciPy window name, an array, or None.
        periodic: periodic window.
        scaling: "density", "spectrum" or None.
        padding: "valid" or "same".
        expand_dims: keep channels apart: ``(batch, time, freq, channels)``.
        data_format: "channels_last" or "channels_first".
        **kwargs: Layer arguments.
    """

    _MODES = ("log", "magnitude", "psd", "real", "imag", "angle", "stft")

    def __init__(self, mode: str = "log", frame_length: int = 256, frame_step=None,
                 fft_length=None, window="hann", periodic: bool = False, scaling="density",
                 padding: str = "valid", expand_dims: bool = False, data_format=None,
                 **kwargs) -> None:
        if frame_step is not None and (frame_step > frame_length or frame_step < 1):
            raise ValueError(f"`frame_step` should be a positive integer not greater than "
                             f"`frame_length`. Received frame_step={frame_step}, "
                             f"frame_length={frame_length}")
        if fft_length is not None and fft_length < frame_length:
            raise ValueError(f"`fft_length` should be not less than `frame_length`. Received "
                             f"fft_length={fft_length}, frame_length={frame_length}")
        if fft_length is not None and (fft_length & -fft_length) != fft_length:
            warnings.warn(f"`fft_length` is recommended to be a power of two. Received "
                          f"fft_length={fft_length}", stacklevel=2)
        if mode not in self._MODES:
            raise ValueError(f"Output mode is invalid, it must be one of "
                             f"{', '.join(self._MODES)}. Received: mode={mode}")
        if scaling is not None and scaling not in ("density", "spectrum"):
            raise ValueError(f"Scaling is invalid, it must be `None`, 'density' or "
                             f"'spectrum'. Received scaling={scaling}")
        if padding not in ("valid", "same"):
            raise ValueError(f"Padding is invalid, it should be 'valid', 'same'. Received: "
                             f"padding={padding}")
        super().__init__(**kwargs)
        self.mode, self.frame_length, self.frame_step = mode, frame_length, frame_step
        self._frame_step = frame_step or frame_length // 2
        self.fft_length = fft_length
        self._fft_length = fft_length or 2 ** int(math.ceil(math.log2(frame_length)))
        self.window, self.periodic, self.scaling = window, periodic, scaling
        self.padding, self.expand_dims = padding, expand_dims
        self.data_format = data_format or "channels_last"
        if self.data_format not in ("channels_last", "channels_first"):
            raise ValueError(f"Invalid data_format: {data_format}")

    def build(self, input_shape) -> None:
        if len(input_shape) != 3:
            raise ValueError(f"STFTSpectrogram expects inputs of rank 3 (batch, time, "
                             f"channels); got {tuple(input_shape)}")
        shape = (self.frame_length, 1, self._fft_length // 2 + 1)
        for side in ("real", "imag"):
            if self.mode != ("imag" if side == "real" else "real"):
                value = stft_kernel(side, self.window, self.scaling, self.periodic, *shape[::2])
                setattr(self, f"{side}_kernel", self.add_weight(
                    name=f"{side}_kernel", shape=shape, trainable=True,
                    initializer=lambda s, dtype=None, v=value: array_ops.constant(v)))
        super().build(input_shape)

    def _conv(self, x: Tensor, kernel) -> Tensor:
        """(batch, channels, freq, time) of each channel convolved with ``kernel``."""
        if self.data_format == "channels_first":
            x = array_ops.transpose(x, [0, 2, 1])
        t, c = x.shape.as_list()[1], x.shape.as_list()[2]
        x = array_ops.reshape(array_ops.transpose(x, [0, 2, 1]), [-1, t, 1])
        y = nn_ops.conv1d(x, math_ops.cast(kernel, x.dtype), self._frame_step,
                          self.padding.upper())
        return array_ops.transpose(array_ops.reshape(
            y, [-1, c, y.shape.as_list()[1], y.shape.as_list()[2]]), [0, 1, 3, 2])

    def _shape(self, y: Tensor) -> Tensor:
        _, c, f, t = y.shape.as_list()
        if self.data_format == "channels_last":
            if self.expand_dims:
                return array_ops.transpose(y, [0, 3, 2, 1])
            return array_ops.transpose(array_ops.reshape(y, [-1, c * f, t]), [0, 2, 1])
        if self.expand_dims:
            return array_ops.transpose(y, [0, 1, 3, 2])
        return array_ops.reshape(y, [-1, c * f, t])

    def call(self, inputs) -> Tensor:
        if inputs.dtype not in (dtypes.float16, dtypes.float32, dtypes.float64):
            raise TypeError(f"Invalid input type. Expected `float16`, `float32` or `float64`. "
                            f"Received: input type={inputs.dtype.name}")
        re = self._conv(inputs, self.real_kernel) if self.mode != "imag" else None
        im = self._conv(inputs, self.imag_kernel) if self.mode != "real" else None
        if self.mode in ("real", "imag"):
            return self._shape(re if self.mode == "real" else im)
        if self.mode == "angle":
            return self._shape(math_ops.atan2(im, re))
        if self.mode == "stft":
            return self._shape(array_ops.concat([re, im], 2))
        power = re * re + im * im
        if self.mode == "psd":
            return self._shape(power + array_ops.pad(power[:, :, 1:-1, :],
                                                     [[0, 0], [0, 0], [1, 1], [0, 0]]))
        eps = 1e-7
        mag = self._shape(math_ops.sqrt(math_ops.maximum(power, eps)))
        return mag if self.mode == "magnitude" else math_ops.log(math_ops.maximum(mag, eps))

    _config_keys = ("mode", "frame_length", "frame_step", "fft_length", "window", "periodic",
                    "scaling", "padding", "data_format", "expand_dims")
