"""``tw.quantization``'s integer quantization: ``quantize`` (QuantizeV2), ``dequantize``,
``quantize_and_dequantize`` (V2) / ``_v2`` (V4) and ``quantized_concat``, with TensorFlow's
modes and rounding.

A quantized tensor has a quantized dtype (``qint8``, ``quint8``, ``qint16``, ``quint16``,
``qint32``) and comes with the float range ``[min, max]`` it represents. The modes
(TensorFlow's):

* ``MIN_COMBINED``: ``[min, max]`` maps linearly onto the type's whole range; signed types are
  shifted by half the range. Rounds half away from zero.
* ``MIN_FIRST``: the same map, but ``min`` is rounded onto the grid first, so that
  requantizing between ranges is exact (TensorFlow's ``FloatToQuantized``).
* ``SCALED``: symmetric, ``x * scale`` with the scale that fits ``[min, max]`` into the type
  without moving 0 (``narrow_range`` drops the type's lowest value); rounds half away from zero
  or half to even.

``quantize`` widens a range smaller than ``ensure_minimum_range`` and always includes 0.
Ranges are scalars, or vectors along ``axis`` (per-channel). None of these ops is
differentiable except ``quantize_and_dequantize*``: straight-through (V2: ``dy``; V4: ``dy``
inside ``[input_min, input_max]``).
"""
from __future__ import annotations

import numpy as np

from ..core import dtypes
from ..core.errors import InvalidArgumentError, NotFoundError, UnimplementedError
from ..core.shapes import TensorShape
from ..eager.execute import bind
from ..graph.registry import register_op
from ..graph.tensor import DTypeLike, Tensor, TensorLike
from . import array_ops, math_ops
from .array.join import ConcatV2
from .core import convert, static_int
from .math.comparison import where

__all__ = ["quantize", "dequantize", "quantize_and_dequantize", "quantize_and_dequantize_v2",
           "quantized_concat"]

_F32 = dtypes.float32
_Q = "qint8,quint8,qint32,qint16,quint16"
_MODES = ("MIN_COMBINED", "MIN_FIRST", "SCALED")
_FLT_MAX = float(np.finfo(np.float32).max)


def _limits(dt) -> tuple:
    info = np.iinfo(dtypes.quantized_storage(dt))
    return int(info.min), int(info.max)


def _channel_shape(x_ndim: int, axis: int) -> tuple:
    """The shape a per-channel vector broadcasts with along ``axis``."""
    return tuple(-1 if i == axis else 1 for i in range(x_ndim))


def _check_ranges(op: str, x, mn, mx, axis: int) -> int:
    """Checks the ranges' shapes against ``axis``; returns the normalized axis (-1: none)."""
    if axis == -1:
        for t, what in ((mn, "min_range"), (mx, "max_range")):
            if t.shape.num_elements() not in (None, 1):
                raise InvalidArgumentError(
                    None, None, f"{op}: If axis is not specified, {what} must contain a single "
                    f"float element, but it contains {t.shape.num_elements()} elements")
        return -1
    rank = x.shape.rank
    if rank is not None and not -rank <= axis < rank:
        raise InvalidArgumentError(None, None, f"{op}: axis {axis} is out of range for input "
                                               f"of rank {rank}")
    ax = axis % rank if rank is not None else axis
    depth = x.shape[ax] if rank is not None else None
    for t, what in ((mn, "min_range"), (mx, "max_range")):
        if t.shape.rank not in (None, 1) or not t.shape.is_compatible_with([depth]):
            raise InvalidArgumentError(
                None, None, f"{op}: If axis is specified, {what} must be a 1-D tensor whose "
                f"size matches the axis dimension of the input ({depth}), got shape {t.shape}")
    return ax


def _round(v, round_mode: str):
    if round_mode in ("HALF_TO_EVEN",):
        return np.rint(v)
    if round_mode == "HALF_UP":
        return np.floor(v + 0.5)
    return np.trunc(v + np.copysign(0.5, v))  # HALF_AWAY_FROM_ZERO (std::round)


# ----- QuantizeV2 ------------------------------------------------------------------------

def _ftz(a):
    """Flushes float32 denormals to zero, as TensorFlow's CPU kernels run."""
    a = np.asarray(a, np.float32)
    return np.where(np.abs(a) < np.finfo(np.float32).tiny, np.float32(0), a)


def _f32(v) -> np.float32:
    return np.float32(v)


def _min_first_to_quantized(x, mn, mx, lo: int, hi: int, bits: int):
    """TensorFlow's FloatToQuantized (MIN_FIRST), in float32 as its Eigen kernel."""
    steps = float(1 << bits)
    with np.errstate(divide="ignore", invalid="ignore"):
        scale = np.where(mx == mn, 0.0, (steps - 1.0) / (mx.astype(np.float64) - mn)) \
            .astype(np.float32)
    min_scaled = _round(mn * scale, "HALF_AWAY_FROM_ZERO").astype(np.float32)
    # TensorFlow rounds half up for quint8 (its own kernel), half away from zero otherwise
    q = _round(x * scale, "HALF_UP" if (lo, hi) == (0, 255) else "HALF_AWAY_FROM_ZERO") - \
        (min_scaled - _f32(lo))
    upper = min(float(_f32(hi)), 2147483520.0)
    return np.minimum(np.maximum(q, _f32(lo)), _f32(upper))


def _min_first_to_float(v, mn, mx, lo: int, bits: int):
    """TensorFlow's QuantizedToFloat (MIN_FIRST), in float32 as its Eigen kernel."""
    steps = float(1 << bits)
    scale = ((mx.astype(np.float64) - mn) / (steps - 1.0)).astype(np.float32)
    with np.errstate(divide="ignore", invalid="ignore"):
        mn_rounded = np.where(mx == mn, mn,
                              (_round(mn / scale, "HALF_AWAY_FROM_ZERO") * scale)
                              .astype(np.float32))
    return (v.astype(np.float32) - _f32(lo)) * scale + mn_rounded


def _quantize_np(x, mn, mx, T, mode: str, round_mode: str, narrow_range: bool,
                 ensure_minimum_range: float, axis: int):
    lo, hi = _limits(T)
    store = dtypes.quantized_storage(T)
    x = x.astype(np.float32)
    mn, mx = np.asarray(mn, np.float32).reshape(-1), np.asarray(mx, np.float32).reshape(-1)
    if np.any(mx < mn):
        raise InvalidArgumentError(None, None, "input_max_range must be larger than "
                                               "input_min_range.")
    min_range = np.minimum(_f32(0), mn)
    eps = np.maximum(_f32(1), np.maximum(np.abs(mn), np.abs(mx))) * _f32(ensure_minimum_range)
    max_range = np.maximum(_f32(0), np.maximum(mx, min_range + eps)).astype(np.float32)
    shape = _channel_shape(x.ndim, axis) if axis != -1 else ()
    b_min, b_max = min_range.reshape(shape), max_range.reshape(shape)
    out_min, out_max = min_range, max_range
    if mode == "MIN_COMBINED":
        scale = ((float(hi) - float(lo)) / (b_max.astype(np.float64) - b_min)).astype(np.float32)
        v = (np.minimum(np.maximum(x, b_min), b_max) - b_min) * scale
        if lo < 0:
            q = _round(v - _f32((float(hi) - lo + 1) / 2.0), "HALF_AWAY_FROM_ZERO")
        else:
            q = np.floor(v + _f32(0.5))
    elif mode == "MIN_FIRST":
        q = _min_first_to_quantized(x, b_min, b_max, lo, hi, 8 * store.itemsize)
    elif round_mode == "HALF_TO_EVEN" and not narrow_range and store.itemsize == 1:
        # TensorFlow's 8-bit kernel here (oneDNN's): symmetric, [-m, m] or [0, m] with m the
        # larger magnitude.
        m = np.maximum(np.abs(min_range), np.abs(max_range))
        s = (_f32(hi) / m).astype(np.float32)
        q = np.rint(x * s.reshape(shape))
        out_min, out_max = (np.zeros_like(m) if lo == 0 else -m), m
    else:  # SCALED: the largest scale that keeps [min, max] inside the levels
        qmin = lo + (1 if narrow_range else 0)
        with np.errstate(divide="ignore", invalid="ignore"):
            s_min = np.where(qmin * min_range > 0, _f32(qmin) / min_range, _FLT_MAX)
            s_max = np.where(hi * max_range > 0, _f32(hi) / max_range, _FLT_MAX)
        s = np.minimum(s_min, s_max).astype(np.float32)
        out_min, out_max = _ftz(_f32(qmin) / s), _ftz(_f32(hi) / s)
        clamped = np.minimum(np.maximum(x, out_min.reshape(shape)), out_max.reshape(shape))
        with np.errstate(over="ignore", invalid="ignore"):
            q = _round(clamped * s.reshape(shape), round_mode)
    q = np.nan_to_num(q.astype(np.float64))
    if store == np.int32:  # float32 2^31 cast to int32 gives INT_MIN on TensorFlow's CPUs
        q = np.where(q >= 2.0 ** 31, float(lo), q)
    q = np.clip(q, lo, hi).astype(store)
    if axis == -1:
        out_min, out_max = out_min.reshape(()), out_max.reshape(())
    return q.view(T.np), np.asarray(out_min, np.float32), np.asarray(out_max, np.float32)


@register_op("QuantizeV2", multi_output=True, check_shapes=True,
             schema=f"input:float, min_range:float, max_range:float -> output:T, "
                    f"output_min:float, output_max:float | T:type in [{_Q}]; "
                    "mode:string in [MIN_COMBINED,MIN_FIRST,SCALED]; "
                    "round_mode:string in [HALF_AWAY_FROM_ZERO,HALF_TO_EVEN]; "
                    "narrow_range:bool; axis:int; ensure_minimum_range:float")
class QuantizeV2:
    """Quantizes float32 ``input`` into ``T`` over ``[min_range, max_range]``; also returns
    the range the output represents."""

    def infer(input, min_range, max_range, *, T, mode, round_mode, narrow_range, axis,
              ensure_minimum_range):
        _check_quantize(T, mode, round_mode, narrow_range, axis)
        ax = _check_ranges("QuantizeV2", input, min_range, max_range, axis)
        r = TensorShape([]) if ax == -1 else TensorShape([input.shape[ax]]
                                                         if input.shape.rank else None)
        return [(T, input.shape), (_F32, r), (_F32, r)]

    def kernel(input, min_range, max_range, *, T, mode, round_mode, narrow_range, axis,
               ensure_minimum_range):
        ax = axis % input.ndim if axis != -1 else -1
        return _quantize_np(input, min_range, max_range, T, mode, round_mode, narrow_range,
                            ensure_minimum_range, ax)


def _check_quantize(T, mode: str, round_mode: str, narrow_range: bool, axis: int) -> None:
    if round_mode == "HALF_TO_EVEN" and mode != "SCALED":
        raise InvalidArgumentError(None, None, f"Round mode 'HALF_TO_EVEN' only supported for "
                                               f"mode 'SCALED', but mode is '{mode}'.")
    if mode == "MIN_FIRST" and axis != -1:
        raise UnimplementedError(None, None, "QuantizeV2: per-axis quantization (axis) is not "
                                             "supported in MIN_FIRST mode, as in TensorFlow")
    if mode == "SCALED" and T is dtypes.qint32 and round_mode == "HALF_TO_EVEN" and \
            not narrow_range:
        raise NotFoundError(None, None, "QuantizeV2: TensorFlow has no qint32 kernel for "
                                        "SCALED mode with HALF_TO_EVEN rounding and "
                                        "narrow_range=False")


def quantize(input: TensorLike, min_range: TensorLike, max_range: TensorLike, T: DTypeLike,
             mode: str = "MIN_COMBINED", round_mode: str = "HALF_AWAY_FROM_ZERO",
             name: str | None = None, narrow_range: bool = False, axis: int | None = None,
             ensure_minimum_range: float = 0.01) -> tuple:
    """Quantizes a float32 tensor (``tw.quantization.quantize``, TensorFlow's QuantizeV2).

    Args:
        input: a float32 tensor.
        min_range: the lowest value to represent (a scalar, or a vector along ``axis``).
        max_range: the highest value to represent (same shape).
        T: the quantized dtype (``tw.qint8``, ``tw.quint8``, ``tw.qint16``, ``tw.quint16``,
            ``tw.qint32``).
        mode: ``'MIN_COMBINED'``, ``'MIN_FIRST'`` or ``'SCALED'`` (module docstring).
        round_mode: ``'HALF_AWAY_FROM_ZERO'``, or ``'HALF_TO_EVEN'`` (SCALED only).
        name: the op name.
        narrow_range: SCALED: leave out the type's lowest value (symmetric range).
        axis: quantize per slice along this axis (ranges are vectors); None: per tensor.
        ensure_minimum_range: the smallest range, relative to the largest magnitude.

    Returns:
        ``(output, output_min, output_max)``: the quantized tensor and the range it stands for.
    """
    T = dtypes.as_dtype(T)
    if mode not in _MODES:
        raise ValueError(f"quantize: mode must be one of {_MODES}, got {mode!r}")
    x = convert(input, dtype=_F32)
    attrs = {"T": T, "mode": mode, "round_mode": round_mode, "narrow_range": bool(narrow_range),
             "axis": -1 if axis is None else int(axis),
             "ensure_minimum_range": float(ensure_minimum_range)}
    out = bind(QuantizeV2, [x, convert(min_range, dtype=_F32), convert(max_range, dtype=_F32)],
               attrs, name=name)
    return tuple(out)


# ----- Dequantize ------------------------------------------------------------------------

def _dequantize_np(x, mn, mx, mode: str, narrow_range: bool, axis: int, out_dtype):
    T = dtypes.from_numpy(x.dtype)
    lo, hi = _limits(T)
    store = dtypes.quantized_storage(T)
    v = x.view(store).astype(np.float32)
    shape = _channel_shape(x.ndim, axis) if axis != -1 else ()
    mn = np.asarray(mn, np.float32).reshape(shape)
    mx = np.asarray(mx, np.float32).reshape(shape)
    if mode == "MIN_COMBINED":
        half = _f32(0 if lo == 0 else (float(hi) - lo + 1) / 2.0)
        scale = (mx - mn) / _f32(float(hi) - lo)
        out = (v + half) * scale + mn
    elif mode == "MIN_FIRST":
        out = _min_first_to_float(v, mn, mx, lo, 8 * store.itemsize)
    else:
        qmin = lo + (1 if narrow_range else 0)
        scale = mx / _f32(hi) if lo == 0 else np.maximum(mn / _f32(qmin), mx / _f32(hi))
        out = v * scale
    return np.asarray(out, np.float32).astype(out_dtype.np)


@register_op("Dequantize", check_shapes=True,
             schema=f"input:T, min_range:float, max_range:float -> output:dtype | "
                    f"T:type in [{_Q}]; mode:string in [MIN_COMBINED,MIN_FIRST,SCALED]; "
                    "narrow_range:bool; axis:int; dtype:type in [bfloat16,float]")
class Dequantize:
    """The float values a quantized tensor over ``[min_range, max_range]`` stands for."""

    def infer(input, min_range, max_range, *, mode, narrow_range, axis, dtype):
        if mode == "SCALED" and input.dtype is dtypes.qint32 and axis == -1:
            raise NotFoundError(None, None, "Dequantize: TensorFlow has no qint32 kernel in "
                                            "SCALED mode (without axis)")
        _check_ranges("Dequantize", input, min_range, max_range, axis)
        return dtype, input.shape

    def kernel(input, min_range, max_range, *, mode, narrow_range, axis, dtype):
        ax = axis % input.ndim if axis != -1 else -1
        return _dequantize_np(input, min_range, max_range, mode, narrow_range, ax, dtype)


def dequantize(input: TensorLike, min_range: TensorLike, max_range: TensorLike,
               mode: str = "MIN_COMBINED", name: str | None = None, axis: int | None = None,
               narrow_range: bool = False, dtype: DTypeLike = dtypes.float32) -> Tensor:
    """The float values of a quantized tensor (``tw.quantization.dequantize``).

    Args:
        input: a quantized tensor (``qint8``...).
        min_range: the value its lowest level stands for (scalar, or a vector along ``axis``).
        max_range: the value its highest level stands for.
        mode: ``'MIN_COMBINED'``, ``'MIN_FIRST'`` or ``'SCALED'``, as it was quantized.
        name: the op name.
        axis: per-slice ranges along this axis; None: one range.
        narrow_range: SCALED: the lowest level was left out.
        dtype: ``tw.float32`` or ``tw.bfloat16``.

    Returns:
        The float tensor.
    """
    if mode not in _MODES:
        raise ValueError(f"dequantize: mode must be one of {_MODES}, got {mode!r}")
    x = convert(input)
    attrs = {"mode": mode, "narrow_range": bool(narrow_range),
             "axis": -1 if axis is None else int(axis), "dtype": dtypes.as_dtype(dtype)}
    return bind(Dequantize, [x, convert(min_range, dtype=_F32), convert(max_range, dtype=_F32)],
                attrs, name=name)


# ----- QuantizeAndDequantizeV2 / V4 ---------------------------------------------------------

def _qdq_np(x, mn, mx, signed_input: bool, num_bits: int, range_given: bool, round_mode: str,
            narrow_range: bool, axis: int):
    dt = x.dtype
    xf = x.astype(np.float64 if dt == np.float64 else np.float32)
    shape = _channel_shape(x.ndim, axis) if axis != -1 else ()
    if range_given:
        mn = np.asarray(mn, np.float32).reshape(-1)
        mx = np.asarray(mx, np.float32).reshape(-1)
        if np.any(mn > mx):
            raise InvalidArgumentError(None, None, f"Invalid range: input_min {mn} > "
                                                   f"input_max {mx}")
    elif xf.size == 0:
        return x.copy()
    elif axis == -1:
        mn, mx = np.min(xf).reshape(-1), np.max(xf).reshape(-1)
    else:
        others = tuple(i for i in range(x.ndim) if i != axis)
        mn, mx = np.min(xf, axis=others), np.max(xf, axis=others)
    qmin = (-(1 << (num_bits - 1)) + (1 if narrow_range else 0)) if signed_input else 0
    qmax = ((1 << (num_bits - 1)) - 1) if signed_input else (1 << num_bits) - 1
    with np.errstate(divide="ignore", invalid="ignore"):
        s_min = np.where(qmin * mn > 0, np.float32(qmin) / mn, _FLT_MAX).astype(np.float32)
        s_max = np.where(qmax * mx > 0, np.float32(qmax) / mx, _FLT_MAX).astype(np.float32)
        from_min = s_min < s_max
        scale = np.where(from_min, s_min, s_max).astype(np.float32)
        inverse = np.where(from_min, mn / np.float32(qmin), mx / np.float32(qmax)) \
            .astype(np.float32)
    lo = np.where(from_min, mn, np.float32(qmin) * inverse).astype(np.float32)
    hi = np.where(from_min, np.float32(qmax) * inverse, mx).astype(np.float32)
    # As TensorFlow: a computed range holds every input already, so only a given one clamps.
    clamped = np.minimum(np.maximum(xf, lo.reshape(shape)), hi.reshape(shape)) \
        if range_given else xf
    out = _round(clamped * scale.reshape(shape), round_mode) * inverse.reshape(shape)
    return np.asarray(out, np.float32).astype(dt)


_QDQ_SCHEMA = ("input:T, input_min:T, input_max:T -> output:T | signed_input:bool; "
               "num_bits:int; range_given:bool; T:type in [bfloat16,half,float,double]; "
               "round_mode:string in [HALF_TO_EVEN,HALF_UP]; narrow_range:bool; axis:int")


def _qdq_infer(op: str):
    def infer(input, input_min, input_max, *, signed_input, num_bits, range_given, round_mode,
              narrow_range, axis):
        limit = 62 if signed_input else 63
        if not 0 < num_bits <= limit:
            raise InvalidArgumentError(None, None, f"num_bits is out of range: {num_bits} "
                                                   f"with signed_input_ {int(signed_input)}")
        if range_given:
            for t, what in ((input_min, "input_min"), (input_max, "input_max")):
                if t.shape.rank not in (None, 0):  # TensorFlow 2.21's kernel, even with axis
                    raise InvalidArgumentError(None, None, f"{what} must be a scalar.")
        return input.dtype, input.shape
    return infer


def _qdq_kernel(input, input_min, input_max, *, signed_input, num_bits, range_given,
                round_mode, narrow_range, axis):
    ax = axis % input.ndim if axis != -1 else -1
    return _qdq_np(input, input_min, input_max, signed_input, num_bits, range_given,
                   round_mode, narrow_range, ax)


@register_op("QuantizeAndDequantizeV2", check_shapes=True, schema=_QDQ_SCHEMA)
class QuantizeAndDequantizeV2:
    """Rounds ``input`` to the levels of a ``num_bits`` integer over its range, in float;
    the gradient passes straight through."""

    infer = _qdq_infer("QuantizeAndDequantizeV2")
    kernel = _qdq_kernel

    def grad(op, dy):
        return dy, None, None


@register_op("QuantizeAndDequantizeV4", check_shapes=True, schema=_QDQ_SCHEMA)
class QuantizeAndDequantizeV4:
    """``QuantizeAndDequantizeV2`` whose gradient passes only inside
    ``[input_min, input_max]``."""

    infer = _qdq_infer("QuantizeAndDequantizeV4")
    kernel = _qdq_kernel

    def grad(op, dy):
        x, mn, mx = op.inputs
        axis = op.attrs["axis"]
        if axis != -1 and x.shape.rank is not None:
            shape = _channel_shape(x.shape.rank, axis % x.shape.rank)
            mn, mx = array_ops.reshape(mn, shape), array_ops.reshape(mx, shape)
        inside = math_ops.logical_and(x >= mn, x <= mx)
        return (where(inside, dy, array_ops.zeros_like(dy)),
                array_ops.zeros_like(op.inputs[1]), array_ops.zeros_like(op.inputs[2]))


def _qdq(opdef, input, input_min, input_max, signed_input, num_bits, range_given, round_mode,
         name, narrow_range, axis) -> Tensor:
    x = convert(input)
    if round_mode not in ("HALF_TO_EVEN", "HALF_UP"):
        raise ValueError(f"round_mode must be 'HALF_TO_EVEN' or 'HALF_UP', got {round_mode!r}")
    if axis is not None and axis < 0:
        if x.shape.rank is None:
            raise ValueError("input should have known rank to use negative axis.")
        axis %= x.shape.rank
    attrs = {"signed_input": bool(signed_input), "num_bits": int(num_bits),
             "range_given": bool(range_given), "round_mode": round_mode,
             "narrow_range": bool(narrow_range), "axis": -1 if axis is None else int(axis)}
    return bind(opdef, [x, convert(input_min, dtype=x.dtype), convert(input_max, dtype=x.dtype)],
                attrs, name=name)


def quantize_and_dequantize(input: TensorLike, input_min: TensorLike, input_max: TensorLike,
                            signed_input: bool = True, num_bits: int = 8,
                            range_given: bool = False, round_mode: str = "HALF_TO_EVEN",
                            name: str | None = None, narrow_range: bool = False,
                            axis: int | None = None) -> Tensor:
    """Quantizes then dequantizes (deprecated in TensorFlow for ``quantize_and_dequantize_v2``;
    the gradient passes straight through everywhere).

    Args:
        input, input_min, input_max, signed_input, num_bits, range_given, round_mode, name,
            narrow_range, axis: as for ``quantize_and_dequantize_v2``.

    Returns:
        The tensor rounded to the levels.
    """
    return _qdq(QuantizeAndDequantizeV2, input, input_min, input_max, signed_input, num_bits,
                range_given, round_mode, name, narrow_range, axis)


def quantize_and_dequantize_v2(input: TensorLike, input_min: TensorLike, input_max: TensorLike,
                               signed_input: bool = True, num_bits: int = 8,
                               range_given: bool = False, round_mode: str = "HALF_TO_EVEN",
                               name: str | None = None, narrow_range: bool = False,
                               axis: int | None = None) -> Tensor:
    """Quantizes then dequantizes, in float (``tw.quantization.quantize_and_dequantize_v2``):
    the levels of a ``num_bits`` integer that keep 0 exact; the gradient passes inside
    ``[input_min, input_max]``.

    Args:
        input: a floating-point tensor.
        input_min: the range's low end (used when ``range_given``).
        input_max: the range's high end.
        signed_input: the levels are signed.
        num_bits: bits of the levels.
        range_given: use ``[input_min, input_max]``; else the input's min and max.
        round_mode: ``'HALF_TO_EVEN'`` or ``'HALF_UP'``.
        name: the op name.
        narrow_range: signed levels from ``-2^(b-1)+1``.
        axis: per-slice ranges along this axis.

    Returns:
        The tensor rounded to the levels.
    """
    return _qdq(QuantizeAndDequantizeV4, input, input_min, input_max, signed_input, num_bits,
                range_given, round_mode, name, narrow_range, axis)


# ----- QuantizedConcat ---------------------------------------------------------------------

@register_op("QuantizedConcat", multi_output=True, check_shapes=True,
             schema="values:N*T, input_mins:float, input_maxes:float -> "
                    "output:T, output_min:float, output_max:float | N:int >=2; T:type; "
                    "concat_dim:int")
class QuantizedConcat:
    """Concatenates quantized tensors, requantizing each into the union of their ranges
    (``input_mins``/``input_maxes``: the N ranges stacked, one schema has one list input)."""

    def infer(*rest, concat_dim):
        values, mins, maxes = rest[:-2], rest[-2], rest[-1]
        n = len(values)
        if n < 2 or not mins.shape.is_compatible_with([n]) or \
                not maxes.shape.is_compatible_with([n]):
            raise InvalidArgumentError(None, None, f"QuantizedConcat needs N >= 2 values with N "
                                                   f"mins and N maxes, got {n} values, mins of "
                                                   f"shape {mins.shape}, maxes {maxes.shape}")
        dt = values[0].dtype
        if dt not in (dtypes.quint8, dtypes.qint32):
            raise NotFoundError(None, None, f"QuantizedConcat: TensorFlow has kernels for "
                                            f"quint8 and qint32 only, got {dt.name}")
        if any(v.dtype is not dt for v in values):
            raise InvalidArgumentError(None, None, "QuantizedConcat: values of different "
                                                   "dtypes")
        out = ConcatV2.infer(*values, axis=concat_dim)[1]
        return [(dt, out), (_F32, TensorShape([])), (_F32, TensorShape([]))]

    def kernel(*rest, concat_dim):
        values = rest[:-2]
        mins = [float(m) for m in rest[-2]]
        maxes = [float(m) for m in rest[-1]]
        T = dtypes.from_numpy(values[0].dtype)
        out_min, out_max = min(mins), max(maxes)
        if T is dtypes.qint32:  # TensorFlow keeps a qint32 range symmetric
            out_max = max(abs(out_min), abs(out_max))
            out_min = -out_max
        parts = []
        for v, lo, hi in zip(values, mins, maxes):
            if lo == out_min and hi == out_max:
                parts.append(v)
            else:
                qlo, qhi = _limits(T)
                bits = 8 * v.dtype.itemsize
                store = dtypes.quantized_storage(T)
                f = _min_first_to_float(v.view(store), _f32(lo), _f32(hi), qlo, bits)
                q = _min_first_to_quantized(f, _f32(out_min), _f32(out_max), qlo, qhi, bits)
                parts.append(q.astype(store).view(T.np))
        axis = int(concat_dim)
        return (np.concatenate(parts, axis=axis + parts[0].ndim if axis < 0 else axis),
                np.float32(out_min), np.float32(out_max))


def quantized_concat(concat_dim: TensorLike, values: list, input_mins: list, input_maxes: list,
                     name: str | None = None) -> tuple:
    """Concatenates quantized tensors (``tw.quantization.quantized_concat``): each is
    requantized (MIN_FIRST) into the union of the ranges.

    Args:
        concat_dim: the axis.
        values: at least two quantized tensors (``quint8`` or ``qint32``) of one dtype.
        input_mins: the low end of each one's range.
        input_maxes: the high end of each one's range.
        name: the op name.

    Returns:
        ``(output, output_min, output_max)``.
    """
    vals = [convert(v) for v in values]
    if not len(vals) == len(input_mins) == len(input_maxes):
        raise ValueError("quantized_concat: values, input_mins and input_maxes must have the "
                         "same length")
    mins = array_ops.stack([array_ops.reshape(convert(m, dtype=_F32), []) for m in input_mins])
    maxes = array_ops.stack([array_ops.reshape(convert(m, dtype=_F32), [])
                             for m in input_maxes])
    axis = static_int(concat_dim, "quantized_concat: concat_dim")
    return tuple(bind(QuantizedConcat, [*vals, mins, maxes], {"concat_dim": axis}, name=name))
