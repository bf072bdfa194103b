"""``tw.keras.initializers``: callables ``init(shape, dtype) -> tensor`` for new weights.

Initial values are computed with NumPy's generator: seeded initializers give the same values on
every call (TensorFlow 2.x behaviour), unseeded ones follow ``tw.random.set_seed`` through the
context's op-seed counter, so a seeded program builds the same model every run.
"""
from __future__ import annotations

import math

import numpy as np

from ..core import dtypes
from ..core.context import eager_mode
from ..eager.tensor import EagerTensor
from ..ops.random_ops import get_seed, stateless_generator, truncated_normal_sample
from .configurable import Configurable
from .declare import make_class
from .named import serializers


def _rng(seed: int | None) -> np.random.Generator:
    """A seeded initializer is a stateless op of seed ``[seed, 0]`` (as Keras's); an unseeded one
    takes its op seed by TensorFlow's rules, eagerly (as variable initial values, init_scope)."""
    if seed is not None:
        return stateless_generator([int(seed), 0])
    with eager_mode():
        seeds = get_seed(None)
    return np.random.default_rng() if seeds == (0, 0) else stateless_generator(seeds)


def _fans(shape, input_axes=None, output_axes=None) -> tuple:
    shape = tuple(shape)
    if input_axes is not None:   # Keras 3: the axes holding the input and the output units
        return (int(np.prod([shape[a] for a in input_axes])),
                int(np.prod([shape[a] for a in output_axes])))
    if len(shape) < 1:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    if len(shape) == 2:
        return shape[0], shape[1]
    receptive = int(np.prod(shape[:-2]))
    return shape[-2] * receptive, shape[-1] * receptive


def _np_dtype(dtype) -> np.dtype:
    return dtypes.as_dtype(dtype or "float32").np


class Initializer(Configurable):
    """Base class: ``initializer(shape, dtype=None)`` returns a tensor of that shape."""

    def __call__(self, shape, dtype=None) -> EagerTensor:
        """A new tensor of ``shape`` filled by this initializer.

        Args:
            shape: the shape.
            dtype: the dtype (float32 by default).

        Returns:
            The tensor.
        """
        arr = self._generate(tuple(int(d) for d in shape), _np_dtype(dtype))
        return EagerTensor(np.asarray(arr, dtype=_np_dtype(dtype)))

    def _generate(self, shape: tuple, dtype: np.dtype) -> np.ndarray:
        raise NotImplementedError


class Zeros(Initializer):
    """All zeros."""

    def _generate(self, shape, dtype):
        return np.zeros(shape, dtype)


class Ones(Initializer):
    """All ones."""

    def _generate(self, shape, dtype):
        return np.ones(shape, dtype)


class Constant(Initializer):
    """A constant value, broadcast to the shape."""

    def __init__(self, value=0) -> None:
        self.value = value

    def _generate(self, shape, dtype):
        return np.broadcast_to(np.asarray(self.value, dtype), shape).copy()

    _config_keys = ("value",)


class RandomNormal(Initializer):
    """Normal samples with ``mean`` and ``stddev``."""

    def __init__(self, mean: float = 0.0, stddev: float = 0.05, seed: int | None = None) -> None:
        self.mean, self.stddev, self.seed = mean, stddev, seed

    def _generate(self, shape, dtype):
        return _rng(self.seed).normal(self.mean, self.stddev, shape)

    _config_keys = ("mean", "stddev", "seed")


class RandomUniform(Initializer):
    """Uniform samples in ``[minval, maxval)``."""

    def __init__(self, minval: float = -0.05, maxval: float = 0.05,
                 seed: int | None = None) -> None:
        self.minval, self.maxval, self.seed = minval, maxval, seed

    def _generate(self, shape, dtype):
        return _rng(self.seed).uniform(self.minval, self.maxval, shape)

    _config_keys = ("minval", "maxval", "seed")


def _truncated_normal(rng: np.random.Generator, stddev: float, shape: tuple) -> np.ndarray:
    return truncated_normal_sample(rng, shape, np.float64) * stddev


class TruncatedNormal(Initializer):
    """Normal samples beyond two standard deviations redrawn."""

    def __init__(self, mean: float = 0.0, stddev: float = 0.05, seed: int | None = None) -> None:
        self.mean, self.stddev, self.seed = mean, stddev, seed

    def _generate(self, shape, dtype):
        return self.mean + _truncated_normal(_rng(self.seed), self.stddev, shape)

    _config_keys = ("mean", "stddev", "seed")


class VarianceScaling(Initializer):
    """Samples scaled by the fan-in/fan-out of the weight (Glorot, He, LeCun)."""

    def __init__(self, scale: float = 1.0, mode: str = "fan_in",
                 distribution: str = "truncated_normal", seed: int | None = None,
                 input_axes=None, output_axes=None) -> None:
        if (input_axes is None) != (output_axes is None):
            raise ValueError("VarianceScaling: give both `input_axes` and `output_axes` (the "
                             f"axes of the fans) or neither; received input_axes={input_axes}, "
                             f"output_axes={output_axes}")
        self.input_axes = None if input_axes is None else list(input_axes)
        self.output_axes = None if output_axes is None else list(output_axes)
        if mode not in ("fan_in", "fan_out", "fan_avg"):
            raise ValueError(f"Invalid `mode` argument: {mode!r}")
        distribution = distribution.lower()
        if distribution == "normal":
            distribution = "truncated_normal"
        if distribution not in ("truncated_normal", "untruncated_normal", "uniform"):
            raise ValueError(f"Invalid `distribution` argument: {distribution!r}")
        self.scale, self.mode, self.distribution, self.seed = scale, mode, distribution, seed

    def _generate(self, shape, dtype):
        fan_in, fan_out = _fans(shape, self.input_axes, self.output_axes)
        n = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2}[self.mode]
        scale = self.scale / max(1.0, n)
        rng = _rng(self.seed)
        if self.distribution == "truncated_normal":
            # 0.879... is the stddev of a unit normal truncated to [-2, 2].
            return _truncated_normal(rng, math.sqrt(scale) / 0.87962566103423978, shape)
        if self.distribution == "untruncated_normal":
            return rng.normal(0.0, math.sqrt(scale), shape)
        limit = math.sqrt(3.0 * scale)
        return rng.uniform(-limit, limit, shape)

    _config_keys = ("scale", "mode", "distribution", "seed", "input_axes", "output_axes")


class _Preset(VarianceScaling):
    """A ``VarianceScaling`` whose scale, mode and distribution the subclass fixes
    (``_preset``); only the seed and the fan axes are arguments."""

    _preset = (1.0, "fan_avg", "uniform")

    def __init__(self, seed: int | None = None, input_axes=None, output_axes=None) -> None:
        super().__init__(*self._preset, seed, input_axes, output_axes)

    _config_keys = ("seed", "input_axes", "output_axes")


def _preset(name: str, scale: float, mode: str, distribution: str, doc: str) -> type:
    return make_class(name, (_Preset,), __name__, doc, {"_preset": (scale, mode, distribution)})


GlorotUniform = _preset("GlorotUniform", 1.0, "fan_avg", "uniform", "Uniform in "
                        "``±sqrt(6 / (fan_in + fan_out))`` (Keras' default kernel initializer).")
GlorotNormal = _preset("GlorotNormal", 1.0, "fan_avg", "truncated_normal",
                       "Truncated normal with variance ``2 / (fan_in + fan_out)``.")
HeNormal = _preset("HeNormal", 2.0, "fan_in", "truncated_normal",
                   "Truncated normal with variance ``2 / fan_in``.")
HeUniform = _preset("HeUniform", 2.0, "fan_in", "uniform", "Uniform in ``±sqrt(6 / fan_in)``.")
LecunNormal = _preset("LecunNormal", 1.0, "fan_in", "truncated_normal",
                      "Truncated normal with variance ``1 / fan_in``.")
LecunUniform = _preset("LecunUniform", 1.0, "fan_in", "uniform",
                       "Uniform with variance ``1 / fan_in``.")


class Orthogonal(Initializer):
    """A (semi-)orthogonal matrix times ``gain`` (RNN recurrent kernels): the QR factor of a
    normal matrix over the last dimension and the product of the others."""

    def __init__(self, gain: float = 1.0, seed: int | None = None) -> None:
        self.gain, self.seed = gain, seed

    def _generate(self, shape, dtype):
        if len(shape) < 2:
            raise ValueError(f"The tensor to initialize must be at least two-dimensional. "
                             f"Received: shape={shape} of rank {len(shape)}.")
        rows = int(np.prod(shape[:-1]))
        cols = shape[-1]
        flat = _rng(self.seed).normal(0.0, 1.0, (max(rows, cols), min(rows, cols)))
        q, r = np.linalg.qr(flat)
        q = q * np.sign(np.diag(r))
        if rows < cols:
            q = q.T
        return self.gain * q.reshape(shape)

    _config_keys = ("gain", "seed")


class Identity(Initializer):
    """``gain`` times the identity matrix (2-D shapes only)."""

    def __init__(self, gain: float = 1.0) -> None:
        self.gain = gain

    def _generate(self, shape, dtype):
        if len(shape) != 2:
            raise ValueError(f"Identity matrix initializer can only be used for 2D matrices. "
                             f"Received: shape={shape} of rank {len(shape)}.")
        return self.gain * np.eye(*shape)

    _config_keys = ("gain",)


def _window(name: str, n: int, periodic: bool) -> np.ndarray:
    """SciPy's ``get_window(name, n, fftbins=periodic)`` for the common windows, in NumPy."""
    m = n + 1 if periodic else n
    table = {"hann": np.hanning, "hanning": np.hanning, "hamming": np.hamming,
             "blackman": np.blackman, "bartlett": np.bartlett,
             "boxcar": np.ones, "rectangular": np.ones, "ones": np.ones}
    if name not in table:
        raise ValueError(f"STFT window {name!r} is not supported by twinflow (supported: "
                         f"{sorted(table)}, or pass the window as an array)")
    win = table[name](m) if m > 1 else np.ones(m)
    return win[:n]


class STFT(Initializer):
    """The kernel of a short-time Fourier transform as a convolution: ``cos`` (``side=
    'real'``) or ``sin`` (``'imag'``) of ``-2 pi t f / F``, times the window, over shapes
    ``(frame_length, 1, fft_length // 2 + 1)``.

    Args:
        side: ``'real'`` or ``'imag'``.
        window: a window name (``'hann'``, ``'hamming'``, ``'blackman'``, ``'bartlett'``,
            ``'boxcar'``), an array of ``frame_length`` values, or None.
        scaling: ``'density'`` (divide by the window's L2 norm), ``'spectrum'`` (by its
            sum) or None.
        periodic: use the periodic window (for spectral analysis) instead of the symmetric.
    """

    def __init__(self, side: str = "real", window="hann", scaling: str | None = "density",
                 periodic: bool = False) -> None:
        if side not in ("real", "imag"):
            raise ValueError(f"side should be 'real' or 'imag', not {side}")
        if isinstance(window, str):
            _window(window, 1, False)
        if scaling is not None and scaling not in ("density", "spectrum"):
            raise ValueError("Scaling is invalid, it must be `None`, 'density' or 'spectrum'. "
                             f"Received scaling={scaling}")
        self.side, self.window, self.scaling, self.periodic = side, window, scaling, periodic

    def _generate(self, shape, dtype):
        if len(shape) != 3:
            raise ValueError(f"STFT initializer expects a shape (frame_length, channels, "
                             f"fft_bins); received {shape}")
        frame_length, _, bins = shape
        win, scale = None, 1.0
        if self.window is not None:
            win = _window(self.window, frame_length, self.periodic) \
                if isinstance(self.window, str) else np.asarray(self.window, np.float64)
            if win.shape != (frame_length,):
                raise ValueError("The shape of `window` must be equal to [frame_length]."
                                 f"Received: window shape={win.shape}")
            win = win.astype(dtype).reshape(frame_length, 1, 1)
            if self.scaling == "density":
                scale = np.sqrt(np.sum(np.square(win)))
            elif self.scaling == "spectrum":
                scale = np.sum(np.abs(win))
        freq = np.arange(bins, dtype=dtype).reshape(1, 1, bins) / ((bins - 1) * 2)
        time = np.arange(frame_length, dtype=dtype).reshape(frame_length, 1, 1)
        args = (-2 * time * freq) * np.arccos(np.asarray(-1, dtype))
        kernel = (np.cos(args) if self.side == "real" else np.sin(args)).astype(dtype)
        if win is not None:
            kernel = kernel * win / scale
        return kernel   # (frame_length, 1, bins) whatever the channels, as Keras

    def get_config(self) -> dict:
        window = self.window.tolist() if isinstance(self.window, np.ndarray) else self.window
        return {"side": self.side, "window": window, "periodic": self.periodic,
                "scaling": self.scaling}


zeros = Zeros
ones = Ones
constant = Constant
random_normal = RandomNormal
random_uniform = RandomUniform
truncated_normal = TruncatedNormal
glorot_uniform = GlorotUniform
glorot_normal = GlorotNormal
he_normal = HeNormal
he_uniform = HeUniform
lecun_normal = LecunNormal
lecun_uniform = LecunUniform
orthogonal = Orthogonal
identity = Identity
stft = STFT
# Keras 3's other names of these classes (kept there for compatibility)
IdentityInitializer = Identity
OrthogonalInitializer = Orthogonal
STFTInitializer = STFT

_BY_NAME = {
    "zeros": Zeros, "ones": Ones, "constant": Constant, "random_normal": RandomNormal,
    "random_uniform": RandomUniform, "truncated_normal": TruncatedNormal,
    "glorot_uniform": GlorotUniform, "glorot_normal": GlorotNormal, "he_normal": HeNormal,
    "he_uniform": HeUniform, "lecun_normal": LecunNormal, "variance_scaling": VarianceScaling,
    "lecun_uniform": LecunUniform, "orthogonal": Orthogonal, "identity": Identity,
    "stft": STFT, "identity_initializer": Identity, "orthogonal_initializer": Orthogonal,
    "s_t_f_t": STFT, "s_t_f_t_initializer": STFT,
}


def get(identifier) -> Initializer | None:
    """Resolves a name (``'glorot_uniform'``), class, config dict or callable to an initializer.

    Args:
        identifier: the initializer description (None gives None).

    Returns:
        A callable initializer.
    """
    if identifier is None or isinstance(identifier, Initializer):
        return identifier
    if isinstance(identifier, str):
        key = identifier if identifier in _BY_NAME else \
            "".join("_" + c.lower() if c.isupper() else c for c in identifier).lstrip("_")
        if key not in _BY_NAME:
            raise ValueError(f"Unknown initializer: {identifier!r}")
        return _BY_NAME[key]()
    if isinstance(identifier, dict):
        return get(identifier["class_name"]).__class__(**identifier.get("config", {}))
    if isinstance(identifier, type) and issubclass(identifier, Initializer):
        return identifier()
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret initializer identifier: {identifier!r}")


serialize, deserialize = serializers("initializer", __name__, lambda config, _: get(config),
                                     Initializer, names=("initializer", "config"))


variance_scaling = VarianceScaling
