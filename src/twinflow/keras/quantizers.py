"""``tw.keras.quantizers``: Keras 3's quantizers (abs-max int8/int4 quantization, grouped
quantization with a zero point, float8 scaling, int4 packing, fake quantization) and the
quantization configs that ``Layer.quantize`` takes.

Every function computes with ``keras.ops`` (so it runs eagerly and inside ``tw.function``),
or, with ``to_numpy=True``, in NumPy, as Keras does. ``round`` is half to even, as Keras'.
"""
from __future__ import annotations

import inspect
import math
import re
from typing import Any

import numpy as np

from ..core import dtypes
from ..eager.execute import constant
from ..ops import array_ops, math_ops
from ..ops import quantization as _fake_quant
from ..ops.array.bits import bitcast
from ..ops.array.create import range as _range
from ..ops.math import comparison as bitwise_ops
from . import backend
from . import ops as K
from .configurable import Configurable

__all__ = ["Quantizer", "AbsMaxQuantizer", "abs_max_quantize",
           "abs_max_quantize_grouped_with_zero_point", "compute_float8_scale",
           "compute_float8_amax_history", "quantize_and_dequantize", "pack_int4", "unpack_int4",
           "fake_quant_with_min_max_vars", "QuantizationConfig", "Int8QuantizationConfig",
           "Int4QuantizationConfig", "Float8QuantizationConfig", "serialize", "deserialize",
           "get", "QUANTIZATION_MODES"]

QUANTIZATION_MODES = ("int8", "float8", "int4", "gptq", "awq")


def _dtype_name(x) -> str:
    return dtypes.as_dtype(x.dtype).name


class Quantizer(Configurable):
    """The base of Keras quantizers: ``quantizer(x)`` returns ``x`` quantized.

    Args:
        output_dtype: the dtype of the quantized values.
    """

    def __init__(self, output_dtype: str = "int8") -> None:
        self.output_dtype = output_dtype

    def __call__(self, x) -> Any:
        """The quantized ``x`` (the base class returns ``x``).

        Args:
            x: a tensor.

        Returns:
            The quantized tensor.
        """
        return x

    def get_config(self) -> dict:
        """The constructor arguments (subclasses define it).

        Returns:
            A dict.
        """
        raise NotImplementedError(f"{self} does not implement get_config()")


def abs_max_quantize(inputs, axis, value_range=(-127, 127), dtype: str = "int8",
                     epsilon: float | None = None, to_numpy: bool = False) -> tuple:
    """Symmetric quantization by the largest magnitude along ``axis``: ``scale = hi /
    (max|x| + epsilon)``, ``q = clip(round(x * scale), lo, hi)``.

    Args:
        inputs: the tensor.
        axis: the axis (or axes) reduced to find the largest magnitude.
        value_range: ``(lo, hi)`` of the quantized values.
        dtype: the quantized dtype.
        epsilon: added to the magnitude (default ``keras.backend.epsilon()``).
        to_numpy: compute in NumPy.

    Returns:
        ``(quantized, scale)``; the scale has ``inputs``' dtype and keeps the reduced axes.
    """
    eps = backend.epsilon() if epsilon is None else epsilon
    if to_numpy:
        src = _dtype_name(inputs) if hasattr(inputs, "dtype") else "float32"
        x = np.asarray(K.convert_to_numpy(inputs))
        ax = tuple(axis) if isinstance(axis, (list, tuple)) else axis
        scale = np.divide(value_range[1], np.add(np.max(np.abs(x), axis=ax, keepdims=True),
                                                 eps))
        out = np.clip(np.round(x * scale), value_range[0], value_range[1]).astype(dtype)
        return K.convert_to_tensor(out), K.convert_to_tensor(scale, dtype=src)
    x = K.convert_to_tensor(inputs)
    scale = K.divide(value_range[1], K.add(K.max(K.abs(x), axis=axis, keepdims=True), eps))
    scale = K.cast(scale, _dtype_name(x))
    out = K.clip(K.round(K.multiply(x, scale)), value_range[0], value_range[1])
    return K.cast(out, dtype), scale


def abs_max_quantize_grouped_with_zero_point(inputs, block_size: int, value_range=(-8, 7),
                                             dtype: str = "int8",
                                             epsilon: float | None = None,
                                             to_numpy: bool = False) -> tuple:
    """Asymmetric quantization of a 2-D ``(input_dim, output_dim)`` tensor in groups of
    ``block_size`` rows: per group and column, ``scale = (max - min) / (hi - lo)`` and a zero
    point so that 0 is exact; ``q = clip(round(x / scale) + zero_point, lo, hi)``.

    Args:
        inputs: a 2-D tensor.
        block_size: rows per group (the last group is padded with zeros).
        value_range: ``(lo, hi)`` of the quantized values.
        dtype: the quantized dtype.
        epsilon: added to each group's range (default ``keras.backend.epsilon()``).
        to_numpy: compute in NumPy.

    Returns:
        ``(quantized, scale, zero_point)``; scale and zero point of shape
        ``(ceil(input_dim / block_size), output_dim)``.
    """
    eps = backend.epsilon() if epsilon is None else epsilon
    lo, hi = value_range
    src = _dtype_name(inputs) if hasattr(inputs, "dtype") else "float32"
    x = np.asarray(K.convert_to_numpy(inputs))
    if x.ndim != 2:
        raise ValueError(f"abs_max_quantize_grouped_with_zero_point expects a 2-D tensor, got "
                         f"shape {x.shape}")
    rows, cols = x.shape
    groups = math.ceil(rows / block_size)
    padded = np.concatenate([x, np.zeros((groups * block_size - rows, cols), x.dtype)])
    g = padded.reshape(groups, block_size, cols)
    mn, mx = g.min(axis=1), g.max(axis=1)
    if to_numpy:
        scale = (mx - mn + eps) / (hi - lo)
        zero = np.clip(np.round(-mn / scale) + lo, lo, hi)
    else:  # Keras' tensor path (compute_quantization_parameters): widens an empty range
        if groups == 1:  # (one group: the padding rows do not count)
            mn, mx = x.min(axis=0, keepdims=True), x.max(axis=0, keepdims=True)
        same = mn == mx
        mn, mx = np.where(same, mn - 1, mn), np.where(same, mx + 1, mx)
        bits = int(math.log2(hi - lo + 1))
        scale = (mx - mn + (eps if eps > 0 else 0)) / x.dtype.type(2 ** bits - 1)
        scale = np.where(scale <= 0, 1e-8, scale).astype(x.dtype)
        zero = np.clip(np.round(-mn / scale) + lo, lo, hi)
    q = np.clip(np.round(g / scale[:, None, :]) + zero[:, None, :], lo, hi)
    q = q.reshape(groups * block_size, cols)[:rows].astype(dtype)
    return (K.convert_to_tensor(q), K.convert_to_tensor(scale.astype(src)),
            K.convert_to_tensor(zero.astype(np.int8)))


class AbsMaxQuantizer(Quantizer):
    """``abs_max_quantize`` as a quantizer object.

    Args:
        axis: the reduced axis (deprecated in Keras: pass it to ``__call__``).
        value_range: ``(lo, hi)``; within ``[-128, 127]`` for int8.
        epsilon: added to the magnitude.
        output_dtype: the quantized dtype.
    """

    def __init__(self, axis=None, value_range=(-127, 127), epsilon: float | None = None,
                 output_dtype: str = "int8") -> None:
        super().__init__(output_dtype=output_dtype)
        self.axis = None if axis is None else tuple([axis] if isinstance(axis, int) else axis)
        self.value_range = tuple(value_range)
        self.epsilon = backend.epsilon() if epsilon is None else epsilon
        if output_dtype == "int8" and (value_range[0] < -128 or value_range[1] > 127):
            raise ValueError(f"Quantizer with output_dtype='int8' requires value_range to be "
                             f"within the interval [-128, 127]. Received: "
                             f"value_range={value_range}")

    def __call__(self, x, axis=None, to_numpy: bool = False) -> tuple:
        """Quantizes ``x`` along ``axis`` (the constructor's, else -1).

        Args:
            x: the tensor.
            axis: the reduced axis.
            to_numpy: compute in NumPy.

        Returns:
            ``(quantized, scale)``.
        """
        axis = self.axis if axis is None else axis
        return abs_max_quantize(x, -1 if axis is None else axis, self.value_range,
                                self.output_dtype, self.epsilon, to_numpy)

    def get_config(self) -> dict:
        """The constructor arguments.

        Returns:
            A dict.
        """
        config = {"value_range": self.value_range, "epsilon": self.epsilon,
                  "output_dtype": self.output_dtype}
        if self.axis is not None:
            config["axis"] = self.axis
        return config


def compute_float8_scale(amax, scale, dtype_max, margin: int = 0):
    """The next float8 scale (delayed scaling): ``amax / dtype_max * 2^margin`` where ``amax``
    is positive and finite, else ``scale``.

    Args:
        amax: the largest magnitude seen.
        scale: the current scale.
        dtype_max: the float8 type's largest value.
        margin: extra powers of two of headroom.

    Returns:
        The new scale.
    """
    inv = K.reciprocal(scale)
    sf = K.divide(K.divide(dtype_max, amax), 2 ** margin)
    sf = K.where(K.greater(amax, 0.0), sf, inv)
    sf = K.where(K.isfinite(amax), sf, inv)
    return K.reciprocal(sf)


def compute_float8_amax_history(x, amax_history):
    """The amax history rolled one step, ``max|x|`` written first.

    Args:
        x: the new values.
        amax_history: a 1-D history.

    Returns:
        The new history.
    """
    amax = K.cast(K.max(K.abs(x)), _dtype_name(amax_history))
    return K.scatter_update(K.roll(amax_history, shift=-1), [[0]], K.reshape(amax, [1]))


def quantize_and_dequantize(inputs, scale, quantized_dtype: str, compute_dtype: str):
    """Rounds ``inputs / scale`` to a float8 type (clipped to its range) and scales back.

    Args:
        inputs: the tensor.
        scale: the scale.
        quantized_dtype: ``'float8_e4m3fn'`` or ``'float8_e5m2'``.
        compute_dtype: the dtype to compute and return in.

    Returns:
        The tensor, in ``compute_dtype``.
    """
    qmax = K.cast(float(dtypes.as_dtype(quantized_dtype).max), compute_dtype)
    s = K.cast(scale, compute_dtype)
    x = K.clip(K.divide(inputs, s), K.negative(qmax), qmax)
    x = K.cast(K.cast(x, quantized_dtype), compute_dtype)
    return K.multiply(x, s)


def pack_int4(arr, axis: int = 0, dtype: str = "int8") -> tuple:
    """Packs int4 values (int8 in ``[-8, 7]``) two to a byte along ``axis``: the first of
    each pair in the low nibble (an odd length is padded with a zero).

    Args:
        arr: an int8 or uint8 tensor.
        axis: the packed axis.
        dtype: ``'int8'`` or ``'uint8'`` (the input's and the result's dtype).

    Returns:
        ``(packed, packed_shape, orig_len)``.
    """
    if dtype not in ("int8", "uint8"):
        raise ValueError(f"Expected dtype to be 'int8' or 'uint8', but got '{dtype}'.")
    if _dtype_name(arr) != dtype:
        raise TypeError(f"Expected {dtype} tensor for packing, got {_dtype_name(arr)}.")
    a = np.moveaxis(np.asarray(K.convert_to_numpy(arr)), axis, 0)
    n = a.shape[0]
    if n % 2:
        a = np.concatenate([a, np.zeros((1,) + a.shape[1:], a.dtype)])
    u = a.astype(np.uint8) & 0x0F
    packed = np.moveaxis((u[::2] | (u[1::2] << 4)).view(dtype), 0, axis)
    return K.convert_to_tensor(packed), tuple(packed.shape), n


def unpack_int4(packed, orig_len: int, axis: int = 0, dtype: str = "int8"):
    """The inverse of ``pack_int4``.

    Args:
        packed: the packed int8/uint8 tensor.
        orig_len: the length of ``axis`` before packing.
        axis: the packed axis.
        dtype: ``'int8'`` (signed values) or ``'uint8'`` (values 0..15).

    Returns:
        The int4 values as ``dtype``.
    """
    if dtype not in ("int8", "uint8"):
        raise ValueError(f"Expected dtype to be 'int8' or 'uint8', but got '{dtype}'.")
    if _dtype_name(packed) not in ("int8", "uint8"):
        raise TypeError(f"Expected int8 or uint8 tensor for unpacking, got "
                        f"{_dtype_name(packed)}")
    # with ops (so it runs in a graph): the low then the high nibble of each byte
    p = bitcast(K.convert_to_tensor(packed), dtypes.uint8)
    rank = len(p.shape)
    axis = axis % rank
    low = bitwise_ops.bitwise_and(p, constant(15, dtypes.uint8))
    high = bitwise_ops.right_shift(p, constant(4, dtypes.uint8))
    both = array_ops.stack([low, high], axis=axis + 1)
    shape = array_ops.shape(p)
    new_shape = array_ops.concat([shape[:axis], [2 * shape[axis]], shape[axis + 1:]], 0)
    out = array_ops.reshape(both, new_shape)
    out = array_ops.gather(out, _range(orig_len), axis=axis)
    if dtype == "uint8":
        return out
    signed = math_ops.cast(bitwise_ops.bitwise_xor(out, constant(8, dtypes.uint8)),
                           dtypes.int8)
    return math_ops.subtract(signed, constant(8, dtypes.int8))


def fake_quant_with_min_max_vars(inputs, min_vals, max_vals, num_bits: int = 8,
                                 narrow_range: bool = False, axis: int | None = None):
    """Fake quantization into ``[min_vals, max_vals]`` (per tensor, or per channel along
    ``axis``), with TensorFlow's nudged ranges and straight-through gradients.

    Args:
        inputs: a float tensor.
        min_vals: the range's low end (a scalar, or one per channel).
        max_vals: the range's high end.
        num_bits: bits of the levels.
        narrow_range: levels from 1.
        axis: the channel axis, or None.

    Returns:
        The fake-quantized tensor, in ``inputs``' dtype.
    """
    x = K.convert_to_tensor(inputs)
    dt = _dtype_name(x)
    xf = K.cast(x, "float32")
    if axis is None:
        out = _fake_quant.fake_quant_with_min_max_vars(
            xf, K.cast(K.reshape(min_vals, ()), "float32"),
            K.cast(K.reshape(max_vals, ()), "float32"), num_bits=num_bits,
            narrow_range=narrow_range)
        return K.cast(out, dt)
    last = len(x.shape) - 1
    out = _fake_quant.fake_quant_with_min_max_vars_per_channel(
        K.swapaxes(xf, axis, last), K.cast(min_vals, "float32"), K.cast(max_vals, "float32"),
        num_bits=num_bits, narrow_range=narrow_range)
    return K.swapaxes(K.cast(out, dt), last, axis)


# ----- configs ----------------------------------------------------------------------

class QuantizationConfig:
    """The base of quantization configs (``Layer.quantize(mode, config=...)``).

    Args:
        weight_quantizer: the quantizer of the weights (None: the mode's default).
        activation_quantizer: the quantizer of the inputs (None: none).
    """

    def __init__(self, weight_quantizer=None, activation_quantizer=None) -> None:
        self.weight_quantizer = weight_quantizer
        self.activation_quantizer = activation_quantizer

    @property
    def mode(self) -> str:
        """The quantization mode (``'int8'``, ``'int4'``, ``'float8'``)."""
        raise NotImplementedError("Subclasses must implement this property. Do not "
                                  "instantiate QuantizationConfig directly.")

    def get_config(self) -> dict:
        """The quantizers, serialized.

        Returns:
            A dict.
        """
        return {"weight_quantizer": serialize(self.weight_quantizer),
                "activation_quantizer": serialize(self.activation_quantizer)}

    @classmethod
    def from_config(cls, config: dict) -> QuantizationConfig:
        """The config of ``get_config()``'s output (its quantizers deserialized; a subclass's
        other arguments, such as ``block_size``, passed on as they are).

        Args:
            config: the dict.

        Returns:
            The config.
        """
        quantizers = {k: deserialize(config.get(k))
                      for k in ("weight_quantizer", "activation_quantizer")}
        return cls(**{**config, **quantizers})


class Int8QuantizationConfig(QuantizationConfig):
    """int8 quantization: int8 weights (an int8 ``weight_quantizer``), inputs quantized by
    ``AbsMaxQuantizer`` along the last axis unless ``activation_quantizer`` says otherwise.

    Args:
        weight_quantizer: an int8 quantizer, or None.
        activation_quantizer: ``'default'``, a quantizer, or None (inputs stay float).
    """

    def __init__(self, weight_quantizer=None, activation_quantizer="default") -> None:
        if activation_quantizer == "default":
            activation_quantizer = AbsMaxQuantizer()
        super().__init__(weight_quantizer, activation_quantizer)
        if weight_quantizer is not None and weight_quantizer.output_dtype != "int8":
            raise ValueError(f"Int8QuantizationConfig requires a weight_quantizer with "
                             f"output_dtype='int8'. Received: "
                             f"output_dtype={weight_quantizer.output_dtype}")

    @property
    def mode(self) -> str:
        """``'int8'``."""
        return "int8"


class Int4QuantizationConfig(QuantizationConfig):
    """int4 quantization: weights in ``[-8, 7]``, per output channel (``block_size`` None or
    -1) or per group of ``block_size`` input rows with a zero point.

    Args:
        weight_quantizer: a quantizer with ``value_range=(-8, 7)`` (per-channel only).
        activation_quantizer: ``'default'`` (none) or a quantizer (per-channel only).
        block_size: rows per group, or None/-1 for per-channel.
    """

    def __init__(self, weight_quantizer=None, activation_quantizer="default",
                 block_size: int | None = 128) -> None:
        if activation_quantizer == "default":
            activation_quantizer = None
        super().__init__(weight_quantizer, activation_quantizer)
        if block_size is not None and block_size != -1 and block_size <= 0:
            raise ValueError(f"block_size must be None, -1, or a positive integer. Received: "
                             f"block_size={block_size}")
        self.block_size = block_size
        if block_size is not None and block_size > 0 and (
                weight_quantizer is not None or activation_quantizer is not None):
            raise ValueError("Int4 sub-channel quantization (block_size > 0) does not support "
                             "custom quantizers. Either set block_size to None or -1 for "
                             "per-channel quantization, or remove the custom quantizer "
                             f"arguments. Received: block_size={block_size}")
        if weight_quantizer is not None:
            if tuple(weight_quantizer.value_range) != (-8, 7):
                raise ValueError(f"Int4QuantizationConfig requires a weight_quantizer with "
                                 f"value_range=(-8, 7). Received: "
                                 f"value_range={weight_quantizer.value_range}")
            if weight_quantizer.output_dtype != "int8":
                raise ValueError(f"Int4QuantizationConfig requires a weight_quantizer with "
                                 f"output_dtype='int8'. Received: "
                                 f"output_dtype={weight_quantizer.output_dtype}")

    @property
    def mode(self) -> str:
        """``'int4'``."""
        return "int4"

    def get_config(self) -> dict:
        """The quantizers and the block size.

        Returns:
            A dict.
        """
        return {**super().get_config(), "block_size": self.block_size}


class Float8QuantizationConfig(QuantizationConfig):
    """float8 training (delayed scaling); it takes no custom quantizers."""

    def __init__(self) -> None:
        super().__init__(None, None)

    @property
    def mode(self) -> str:
        """``'float8'``."""
        return "float8"

    def get_config(self) -> dict:
        """Nothing to configure.

        Returns:
            ``{}``.
        """
        return {}

    @classmethod
    def from_config(cls, config: dict) -> Float8QuantizationConfig:
        """The config (``config`` is empty).

        Args:
            config: the dict.

        Returns:
            The config.
        """
        return cls()


_CLASSES = (Quantizer, AbsMaxQuantizer, QuantizationConfig, Int8QuantizationConfig,
            Int4QuantizationConfig, Float8QuantizationConfig)
_BY_NAME = {c.__name__: c for c in _CLASSES}
_BY_NAME.update({re.sub(r"(?<!^)(?=[A-Z])", "_", c.__name__).lower(): c for c in _CLASSES})


def serialize(initializer) -> Any:
    """Keras 3's serialized form of a quantizer or config.

    Args:
        initializer: a quantizer, a quantization config, or None.

    Returns:
        ``{"module", "class_name", "config", "registered_name"}``, or None.
    """
    if initializer is None:
        return None
    if not hasattr(initializer, "get_config"):
        raise TypeError(f"Cannot serialize {initializer!r}: not a quantizer")
    return {"module": "keras.quantizers", "class_name": type(initializer).__name__,
            "config": initializer.get_config(), "registered_name": None}


def deserialize(config, custom_objects: dict | None = None) -> Any:
    """The quantizer or config of a ``serialize`` dict.

    Args:
        config: the dict (or None).
        custom_objects: name -> class, looked up first.

    Returns:
        The object.
    """
    if config is None:
        return None
    if not isinstance(config, dict) or "class_name" not in config:
        raise ValueError(f"Cannot deserialize the quantizer {config!r}")
    name = config["class_name"]
    cls = (custom_objects or {}).get(name) or _BY_NAME.get(name)
    if cls is None:
        raise ValueError(f"Unknown quantizer: '{name}'")
    inner = dict(config.get("config") or {})
    if "value_range" in inner:
        inner["value_range"] = tuple(inner["value_range"])
    if "axis" in inner and isinstance(inner["axis"], list):
        inner["axis"] = tuple(inner["axis"])
    return cls.from_config(inner)


def get(identifier, **kwargs) -> Any:
    """A quantizer from a name, a serialized dict, a class or an object.

    Args:
        identifier: ``'abs_max_quantizer'``, ``'AbsMaxQuantizer'``, a dict, a class, an object
            or None.
        **kwargs: constructor arguments when ``identifier`` names a class.

    Returns:
        The quantizer (None for None).
    """
    if identifier is None:
        return None
    obj = deserialize(identifier) if isinstance(identifier, dict) else \
        _BY_NAME.get(identifier) if isinstance(identifier, str) else identifier
    if inspect.isclass(obj):
        return obj(**kwargs)
    if obj is not None and (callable(obj) or isinstance(obj, QuantizationConfig)):
        return obj
    raise ValueError(f"Could not interpret quantizer identifier: {identifier}")
