"""``tw.quantization``: fake quantization (quantize then dequantize in float, for
quantization-aware training) with TensorFlow's nudged ranges and straight-through gradients.

TensorFlow nudges ``[min, max]`` so that 0.0 is exactly representable: with ``q`` levels
``quant_min..quant_max`` (``narrow_range`` drops the lowest), ``scale = (max - min) /
(quant_max - quant_min)`` and the zero point ``quant_min - min / scale`` is rounded (half away
from zero) and clamped to the levels. Inputs are clamped to the nudged range and rounded to a
level. The gradient passes ``dy`` through inside the nudged range; with tensor ranges
(``_vars``), ``min`` gets ``sum(dy)`` below the range and ``max`` above it.
"""
from __future__ import annotations

import numpy as np

from ..core import dtypes
from ..core.errors import InvalidArgumentError
from ..core.shapes import TensorShape
from ..eager.execute import bind
from ..graph.graph import name_scoped
from ..graph.registry import register_op
from ..graph.tensor import Tensor, TensorLike
from . import array_ops, math_ops, reduction_ops
from .core import convert

__all__ = ["fake_quant_with_min_max_args", "fake_quant_with_min_max_args_gradient",
           "fake_quant_with_min_max_vars", "fake_quant_with_min_max_vars_gradient",
           "fake_quant_with_min_max_vars_per_channel",
           "fake_quant_with_min_max_vars_per_channel_gradient"]

_F32 = dtypes.float32
_ARGS_SCHEMA = ("inputs:float -> outputs:float | min:float; max:float; num_bits:int; "
                "narrow_range:bool")
_VARS_SCHEMA = ("inputs:float, min:float, max:float -> outputs:float | num_bits:int; "
                "narrow_range:bool")


def _levels(num_bits: int, narrow_range: bool, what: str) -> tuple:
    if isinstance(num_bits, bool) or not isinstance(num_bits, (int, np.integer)) \
            or not 2 <= num_bits <= 16:
        raise InvalidArgumentError(None, None, f"{what}: num_bits must be between 2 and 16, "
                                               f"inclusive; got {num_bits!r}")
    return (1.0 if narrow_range else 0.0), float((1 << int(num_bits)) - 1)


def _nudge_np(mn, mx, num_bits: int, narrow_range: bool):
    """The nudged (min, max, scale) in float32, elementwise over ``mn``/``mx``."""
    qmin, qmax = _levels(num_bits, narrow_range, "FakeQuant")
    mn, mx = np.float32(mn), np.float32(mx)
    scale = (mx - mn) / np.float32(qmax - qmin)
    with np.errstate(divide="ignore", invalid="ignore"):
        zp = np.float32(qmin) - mn / scale
    nzp = np.clip(np.where(zp < 0, -np.floor(-zp + 0.5), np.floor(zp + 0.5)), qmin, qmax)
    nzp = nzp.astype(np.float32)
    return ((np.float32(qmin) - nzp) * scale).astype(np.float32), \
        ((np.float32(qmax) - nzp) * scale).astype(np.float32), scale.astype(np.float32)


def _fake_quant_np(x, mn, mx, num_bits: int, narrow_range: bool) -> np.ndarray:
    nmin, nmax, scale = _nudge_np(mn, mx, num_bits, narrow_range)
    clamped = np.clip(x, nmin, nmax)
    inv = np.float32(1.0) / scale
    out = np.floor((clamped - nmin) * inv + np.float32(0.5)) * scale + nmin
    return out.astype(np.float32)


def _nudge(mn: Tensor, mx: Tensor, num_bits: int, narrow_range: bool) -> tuple:
    """``_nudge_np`` with twinflow ops (for the gradients)."""
    qmin, qmax = _levels(num_bits, narrow_range, "FakeQuant")
    scale = (mx - mn) / (qmax - qmin)
    zp = qmin - mn / scale
    rounded = math_ops.sign(zp) * math_ops.floor(math_ops.abs(zp) + 0.5)
    nzp = math_ops.clip_by_value(rounded, qmin, qmax)
    return (qmin - nzp) * scale, (qmax - nzp) * scale


def _check_range(mn: float, mx: float, what: str) -> None:
    if not mn < mx:
        raise InvalidArgumentError(None, None, f"{what}: min has to be smaller than max, was: "
                                               f"min = {mn}, max = {mx}")


def _float_input(x, what: str) -> Tensor:
    x = convert(x, dtype_hint=_F32)
    if x.dtype is not _F32:
        raise TypeError(f"{what}: inputs must be float32, got {x.dtype.name}")
    return x


@register_op("FakeQuantWithMinMaxArgs", check_shapes=True, schema=_ARGS_SCHEMA)
class FakeQuantWithMinMaxArgs:
    """Fake-quantizes ``inputs`` into ``[min, max]`` (float attrs)."""

    def infer(inputs, min, max, num_bits, narrow_range):
        _check_range(min, max, "FakeQuantWithMinMaxArgs")
        _levels(num_bits, narrow_range, "FakeQuantWithMinMaxArgs")
        return _F32, inputs.shape

    def kernel(inputs, min, max, num_bits, narrow_range):
        return _fake_quant_np(inputs, min, max, num_bits, narrow_range)

    def grad(op, dy):
        a = op.attrs
        return fake_quant_with_min_max_args_gradient(dy, op.inputs[0], a["min"], a["max"],
                                                     a["num_bits"], a["narrow_range"])


def _check_vars(inputs, mn, mx, per_channel: bool, what: str) -> None:
    want = TensorShape([inputs.shape[-1]] if inputs.shape.rank else None) if per_channel \
        else TensorShape([])
    for t, label in ((mn, "min"), (mx, "max")):
        if per_channel and inputs.shape.rank == 0:
            raise InvalidArgumentError(None, None, f"{what}: inputs must have rank >= 1")
        if not t.shape.is_compatible_with(want):
            raise InvalidArgumentError(None, None, f"{what}: {label} must have shape {want}, "
                                                   f"got {t.shape} (inputs {inputs.shape})")


def _vars_op(name: str, per_channel: bool, gradient, doc: str):
    """Declares FakeQuantWithMinMaxVars(PerChannel); ``gradient`` is its public gradient
    function (``fake_quant_with_min_max_vars(_per_channel)_gradient``)."""
    def infer(inputs, min, max, num_bits, narrow_range):
        _check_vars(inputs, min, max, per_channel, name)
        _levels(num_bits, narrow_range, name)
        return _F32, inputs.shape

    def kernel(inputs, min, max, num_bits, narrow_range):
        if np.any(~(min < max)):
            raise InvalidArgumentError(None, None, f"{name}: min has to be smaller than max, "
                                                   f"was: min = {min}, max = {max}")
        return _fake_quant_np(inputs, min, max, num_bits, narrow_range)

    def grad(op, dy):
        x, mn, mx = op.inputs
        return gradient(dy, x, mn, mx, op.attrs["num_bits"], op.attrs["narrow_range"])

    decl = type(name, (), {"__doc__": doc, "infer": infer, "kernel": kernel, "grad": grad})
    return register_op(name, check_shapes=True, schema=_VARS_SCHEMA)(decl)


def fake_quant_with_min_max_args(inputs: TensorLike, min=-6, max=6, num_bits=8,
                                 narrow_range=False, name=None) -> Tensor:
    """Fake-quantizes float32 ``inputs`` into ``[min, max]`` (Python floats).

    Args:
        inputs: a float32 tensor.
        min: the range's lower end.
        max: the range's upper end (``min < max``).
        num_bits: bits of the levels, 2 to 16.
        narrow_range: use levels 1..2^num_bits-1 instead of 0..2^num_bits-1.
        name: the op name.

    Returns:
        The fake-quantized tensor.
    """
    x = _float_input(inputs, "fake_quant_with_min_max_args")
    return bind(FakeQuantWithMinMaxArgs, [x], {"min": float(min), "max": float(max),
                                               "num_bits": num_bits,
                                               "narrow_range": bool(narrow_range)}, name=name)


@name_scoped
def fake_quant_with_min_max_args_gradient(gradients: TensorLike, inputs: TensorLike, min=-6,
                                          max=6, num_bits=8, narrow_range=False,
                                          name=None) -> Tensor:
    """The gradient of ``fake_quant_with_min_max_args``: ``gradients`` inside the nudged range,
    0 outside.

    Args:
        gradients: the output's gradient.
        inputs: the op's inputs.
        min: the range's lower end.
        max: the range's upper end.
        num_bits: bits of the levels.
        narrow_range: as for the op.
        name: the name scope.

    Returns:
        The inputs' gradient.
    """
    _check_range(float(min), float(max), "FakeQuantWithMinMaxArgsGradient")
    nmin, nmax, _ = _nudge_np(float(min), float(max), num_bits, narrow_range)
    dy, x = _float_input(gradients, "gradients"), _float_input(inputs, "inputs")
    inside = math_ops.logical_and(x >= float(nmin), x <= float(nmax))
    return dy * math_ops.cast(inside, _F32)


def _vars_gradient(dy, x, mn, mx, num_bits, narrow_range, axes) -> tuple:
    dy, x = _float_input(dy, "gradients"), _float_input(x, "inputs")
    mn, mx = _float_input(mn, "min"), _float_input(mx, "max")
    nmin, nmax = _nudge(mn, mx, num_bits, narrow_range)
    below = math_ops.cast(x < nmin, _F32)
    above = math_ops.cast(x > nmax, _F32)
    inside = 1.0 - below - above
    d_min = reduction_ops.reduce_sum(dy * below, axis=axes)
    d_max = reduction_ops.reduce_sum(dy * above, axis=axes)
    return dy * inside, d_min, d_max


def fake_quant_with_min_max_vars(inputs: TensorLike, min: TensorLike, max: TensorLike,
                                 num_bits=8, narrow_range=False, name=None) -> Tensor:
    """Fake-quantizes float32 ``inputs`` into ``[min, max]`` (float32 scalar tensors, e.g.
    variables trained with the model).

    Args:
        inputs: a float32 tensor.
        min: a scalar float32 tensor.
        max: a scalar float32 tensor (``min < max``).
        num_bits: bits of the levels, 2 to 16.
        narrow_range: use levels 1..2^num_bits-1.
        name: the op name.

    Returns:
        The fake-quantized tensor.
    """
    return _fake_quant_vars(FakeQuantWithMinMaxVars, "fake_quant_with_min_max_vars", inputs,
                            min, max, num_bits, narrow_range, name)


def _fake_quant_vars(opdef, what: str, inputs, min, max, num_bits, narrow_range,
                     name) -> Tensor:
    x = _float_input(inputs, what)
    mn, mx = _float_input(min, "min"), _float_input(max, "max")
    return bind(opdef, [x, mn, mx], {"num_bits": num_bits, "narrow_range": bool(narrow_range)},
                name=name)


@name_scoped
def fake_quant_with_min_max_vars_gradient(gradients: TensorLike, inputs: TensorLike,
                                          min: TensorLike, max: TensorLike, num_bits=8,
                                          narrow_range=False, name=None) -> tuple:
    """The gradients of ``fake_quant_with_min_max_vars``.

    Args:
        gradients: the output's gradient.
        inputs: the op's inputs.
        min: the op's ``min``.
        max: the op's ``max``.
        num_bits: bits of the levels.
        narrow_range: as for the op.
        name: the name scope.

    Returns:
        ``(backprops_wrt_input, backprop_wrt_min, backprop_wrt_max)``.
    """
    return _vars_gradient(gradients, inputs, min, max, num_bits, narrow_range, None)


def fake_quant_with_min_max_vars_per_channel(inputs: TensorLike, min: TensorLike,
                                             max: TensorLike, num_bits=8, narrow_range=False,
                                             name=None) -> Tensor:
    """Fake-quantizes float32 ``inputs`` with one ``[min[c], max[c]]`` per last-axis channel.

    Args:
        inputs: a float32 tensor of rank >= 1.
        min: a float32 vector, one value per channel.
        max: a float32 vector (``min < max`` elementwise).
        num_bits, narrow_range, name: as for ``fake_quant_with_min_max_vars``.

    Returns:
        The fake-quantized tensor.
    """
    return _fake_quant_vars(FakeQuantWithMinMaxVarsPerChannel,
                            "fake_quant_with_min_max_vars_per_channel", inputs, min, max,
                            num_bits, narrow_range, name)


@name_scoped
def fake_quant_with_min_max_vars_per_channel_gradient(gradients: TensorLike,
                                                      inputs: TensorLike, min: TensorLike,
                                                      max: TensorLike, num_bits=8,
                                                      narrow_range=False, name=None) -> tuple:
    """The gradients of ``fake_quant_with_min_max_vars_per_channel``.

    Args:
        gradients, inputs: as for ``fake_quant_with_min_max_vars_gradient``.
        min: the op's ``min`` (one per channel).
        max, num_bits, narrow_range, name: as for ``fake_quant_with_min_max_vars_gradient``.

    Returns:
        ``(backprops_wrt_input, backprop_wrt_min, backprop_wrt_max)``, the last two per channel.
    """
    x = _float_input(inputs, "inputs")
    axes = list(range(x.shape.rank - 1)) if x.shape.rank is not None else None
    if axes is None:
        rank = array_ops.rank(x)
        axes = array_ops.range(rank - 1)
    return _vars_gradient(gradients, x, min, max, num_bits, narrow_range, axes)


FakeQuantWithMinMaxVars = _vars_op(
    "FakeQuantWithMinMaxVars", False, fake_quant_with_min_max_vars_gradient,
    "Fake-quantizes ``inputs`` into ``[min, max]`` (float32 scalar tensors).")
FakeQuantWithMinMaxVarsPerChannel = _vars_op(
    "FakeQuantWithMinMaxVarsPerChannel", True, fake_quant_with_min_max_vars_per_channel_gradient,
    "Fake-quantizes ``inputs`` with one ``[min, max]`` per last-axis channel.")
