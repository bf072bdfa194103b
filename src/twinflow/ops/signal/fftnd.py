"""N-dimensional FFTs over chosen axes: ``FFTND``/``IFFTND``/``RFFTND``/``IRFFTND``
(``tw.fftnd``... and ``tw.signal.fftnd``... with ``norm``).

``fft_length`` and ``axes`` are int32 tensors as in TensorFlow; the input is cropped or
zero-padded to ``fft_length`` along ``axes`` (for the inverse real transform, the last axis to
``fft_length[-1] // 2 + 1``). Gradients are the adjoint transforms, cropped or padded back.
"""
from __future__ import annotations

import numpy as np

from ...core import dtypes
from ...core.shapes import TensorShape
from ...eager.execute import bind, constant_value
from ...graph.graph import name_scoped
from ...graph.registry import register_op
from ...graph.tensor import Tensor, TensorLike
from ..array.join import pad
from ..core import convert
from ..core import invalid_argument as _err
from ..math.binary import multiply
from ..math.cast import cast
from ..math.complex import real

_C = {dtypes.float32: dtypes.complex64, dtypes.float64: dtypes.complex128}


def _static(t) -> list | None:
    v = constant_value(t)
    return None if v is None else [int(i) for i in np.asarray(v).reshape(-1)]


def _axes(axes: list, rank: int) -> list:
    out = [a + rank if a < 0 else a for a in axes]
    if any(not 0 <= a < rank for a in out) or len(set(out)) != len(out):
        raise _err(f"axes {axes} must be distinct axes of a rank-{rank} input")
    return out


def _infer(kind: str):
    def infer(input, fft_length, axes, **attrs):
        out_dt = {"c": input.dtype, "r": dtypes.as_dtype(attrs.get("Tcomplex",
                                                                    dtypes.complex64)),
                  "ir": dtypes.as_dtype(attrs.get("Treal", dtypes.float32))}[kind]
        s = input.shape
        lengths, ax = _static(fft_length), _static(axes)
        if s.rank is None or ax is None:
            return out_dt, TensorShape(None)
        ax = _axes(ax, s.rank)
        if lengths is not None and len(lengths) != len(ax):
            raise _err(f"fft_length has {len(lengths)} entries but axes has {len(ax)}")
        dims = s.as_list()
        for i, a in enumerate(ax):
            n = None if lengths is None else lengths[i]
            if kind == "r" and i == len(ax) - 1 and n is not None:
                n = n // 2 + 1
            dims[a] = n
        return out_dt, TensorShape(dims)
    return infer


def _run(fn, x, fft_length, axes, out_dtype):
    ax = _axes([int(a) for a in axes], x.ndim)
    s = [int(n) for n in fft_length]
    if len(s) != len(ax) or any(n < 0 for n in s):
        raise _err(f"fft_length {s} must give one non-negative length per axis {ax}")
    if 0 in s or any(x.shape[a] == 0 for a in ax):
        shape = list(x.shape)
        for i, a in enumerate(ax):
            shape[a] = s[i] // 2 + 1 if fn is np.fft.rfftn and i == len(ax) - 1 else s[i]
        return np.zeros(shape, out_dtype)
    return fn(x, s=s, axes=ax).astype(out_dtype)


def _fit(x: Tensor, sizes: list, axes: list) -> Tensor:
    """Crops or zero-pads ``x`` along ``axes`` to ``sizes`` (static)."""
    dims = x.shape.as_list()
    if None in [dims[a] for a in axes]:
        raise ValueError("the gradient of an N-D FFT needs static sizes along its axes")
    cut = [slice(None)] * len(dims)
    pads = [[0, 0] for _ in dims]
    for a, n in zip(axes, sizes):
        if dims[a] > n:
            cut[a] = slice(0, n)
        pads[a][1] = max(n - dims[a], 0)
    x = x[tuple(cut)] if any(c != slice(None) for c in cut) else x
    return pad(x, pads) if any(p[1] for p in pads) else x


def _grad_parts(op):
    x, fft_length, axes = op.inputs
    lengths, ax = _static(fft_length), _static(axes)
    if lengths is None or ax is None or x.shape.rank is None:
        raise ValueError("the gradient of an N-D FFT needs constant fft_length and axes")
    ax = _axes(ax, x.shape.rank)
    return x, fft_length, axes, lengths, ax, int(np.prod(lengths))


_SCHEMA_C = ("input:Tcomplex, fft_length:int32, axes:int32 -> output:Tcomplex | "
             "Tcomplex:type=complex64 in [complex64,complex128]")


def _complex_op(name: str, np_fn, inverse: bool, doc: str):
    """Declares FFTND or IFFTND (``inverse``): each one's gradient is the other, scaled by the
    number of points ``n`` (FFTND) or by ``1 / n`` (IFFTND)."""
    def kernel(input, fft_length, axes):
        return _run(np_fn, input, fft_length, axes, input.dtype)

    def grad(op, dy):
        x, n_t, a_t, lengths, ax, n = _grad_parts(op)
        other, scale = (FFTND, 1.0 / n) if inverse else (IFFTND, n)
        g = multiply(bind(other, [dy, n_t, a_t]), cast(scale, dy.dtype))
        return _fit(g, [x.shape[a] for a in ax], ax), None, None

    decl = type(name, (), {"__doc__": doc, "infer": _infer("c"), "kernel": kernel, "grad": grad})
    return register_op(name, schema=_SCHEMA_C)(decl)


FFTND = _complex_op("FFTND", np.fft.fftn, False,
                    "The DFT over ``axes`` with lengths ``fft_length``.")
IFFTND = _complex_op("IFFTND", np.fft.ifftn, True,
                     "The inverse DFT over ``axes`` with lengths ``fft_length``.")


@register_op("RFFTND", schema=(
    "input:Treal, fft_length:int32, axes:int32 -> output:Tcomplex | Treal:type=float in "
    "[float,double]; Tcomplex:type=complex64 in [complex64,complex128]"))
class RFFTND:
    """The DFT of a real input over ``axes``, keeping ``fft_length[-1] // 2 + 1`` bins of the
    last axis."""

    infer = _infer("r")

    def kernel(input, fft_length, axes, *, Tcomplex=dtypes.complex64):
        return _run(np.fft.rfftn, input, fft_length, axes, dtypes.as_dtype(Tcomplex).np)

    def grad(op, dy):
        x, n_t, a_t, lengths, ax, n = _grad_parts(op)
        full = _fit(dy, [lengths[-1]], [ax[-1]])            # the dropped bins: zeros
        g = real(multiply(bind(IFFTND, [full, n_t, a_t]), cast(n, dy.dtype)))
        return _fit(cast(g, x.dtype), [x.shape[a] for a in ax], ax), None, None


@register_op("IRFFTND", schema=(
    "input:Tcomplex, fft_length:int32, axes:int32 -> output:Treal | Treal:type=float in "
    "[float,double]; Tcomplex:type=complex64 in [complex64,complex128]"))
class IRFFTND:
    """The real inverse of ``RFFTND``: a Hermitian half spectrum to ``fft_length`` samples."""

    infer = _infer("ir")

    def kernel(input, fft_length, axes, *, Treal=dtypes.float32):
        return _run(np.fft.irfftn, input, fft_length, axes, dtypes.as_dtype(Treal).np)

    def grad(op, dy):
        x, n_t, a_t, lengths, ax, n = _grad_parts(op)
        half = lengths[-1] // 2 + 1
        mask = np.full(half, 2.0)
        mask[0] = 1.0
        if lengths[-1] % 2 == 0:
            mask[-1] = 1.0
        shape = [1] * x.shape.rank
        shape[ax[-1]] = half
        spec = bind(RFFTND, [dy, n_t, a_t], {"Tcomplex": x.dtype})
        g = multiply(spec, convert((mask / n).reshape(shape).astype(x.dtype.np)))
        sizes = [x.shape[a] for a in ax]
        return _fit(g, sizes, ax), None, None


def _args(x: Tensor, fft_length, axes, inverse_real: bool):
    rank = x.shape.rank
    if rank is None:
        raise ValueError("N-D FFTs need an input of known rank")
    ax = list(range(rank)) if axes is None else [int(a) for a in np.asarray(
        constant_value(convert(axes)) if isinstance(axes, Tensor) else axes).reshape(-1)]
    if fft_length is None:
        dims = [x.shape[a] for a in _axes(ax, rank)]
        if None in dims:
            raise ValueError("fft_length is needed when the transformed dims are unknown")
        if inverse_real:
            dims[-1] = max(0, 2 * (dims[-1] - 1))
        fft_length = dims
    return convert(fft_length, dtype=dtypes.int32), convert(np.asarray(ax, np.int32))


def fftnd(input: TensorLike, fft_length: TensorLike, axes: TensorLike,
          name: str | None = None) -> Tensor:
    """The N-D DFT over ``axes`` (``tw.fftnd``, TensorFlow's raw op).

    Args:
        input: complex64/complex128.
        fft_length: int32 lengths, one per axis.
        axes: int32 axes.
        name: op name.

    Returns:
        The transform.
    """
    return _bind_nd(FFTND, input, dtypes.complex64, fft_length, axes, {}, name)


def _bind_nd(opdef, input, input_hint, fft_length, axes, attrs: dict, name) -> Tensor:
    """Binds an N-D FFT op on ``input`` (converted with dtype hint ``input_hint``) and the
    int32 ``fft_length`` and ``axes``."""
    return bind(opdef, [convert(input, dtype_hint=input_hint),
                        convert(fft_length, dtype=dtypes.int32),
                        convert(axes, dtype=dtypes.int32)], attrs, name=name)


def ifftnd(input: TensorLike, fft_length: TensorLike, axes: TensorLike,
           name: str | None = None) -> Tensor:
    """The N-D inverse DFT over ``axes`` (``tw.ifftnd``).

    Args:
        input, fft_length, axes, name: as for ``fftnd``.

    Returns:
        The inverse transform.
    """
    return _bind_nd(IFFTND, input, dtypes.complex64, fft_length, axes, {}, name)


def rfftnd(input: TensorLike, fft_length: TensorLike, axes: TensorLike,
           Tcomplex=dtypes.complex64, name: str | None = None) -> Tensor:  # noqa: N803
    """The N-D DFT of a real input over ``axes`` (``tw.rfftnd``).

    Args:
        input: float32/float64.
        fft_length: int32 lengths, one per axis.
        axes: int32 axes.
        Tcomplex: the output dtype.
        name: op name.

    Returns:
        The half spectrum (last axis ``fft_length[-1] // 2 + 1``).
    """
    return _bind_nd(RFFTND, input, dtypes.float32, fft_length, axes,
                    {"Tcomplex": dtypes.as_dtype(Tcomplex)}, name)


def irfftnd(input: TensorLike, fft_length: TensorLike, axes: TensorLike,
            Treal=dtypes.float32, name: str | None = None) -> Tensor:  # noqa: N803
    """The real N-D inverse DFT over ``axes`` (``tw.irfftnd``).

    Args:
        input: complex64/complex128 half spectrum.
        fft_length: int32 output lengths, one per axis.
        axes: int32 axes.
        Treal: the output dtype.
        name: op name.

    Returns:
        The real signal.
    """
    return _bind_nd(IRFFTND, input, dtypes.complex64, fft_length, axes,
                    {"Treal": dtypes.as_dtype(Treal)}, name)


def _scale(x: Tensor, lengths: Tensor, norm, forward: bool) -> Tensor:
    if norm in (None, "backward"):
        return x
    n = _static(lengths)
    if n is None:
        raise ValueError("norm needs a constant fft_length")
    size = float(np.prod(n))
    if norm == "forward":
        factor = 1.0 / size if forward else size
    elif norm == "ortho":
        factor = 1.0 / np.sqrt(size) if forward else np.sqrt(size)
    else:
        raise ValueError(f"norm must be 'backward', 'forward' or 'ortho', got {norm!r}")
    return multiply(x, cast(factor, x.dtype))


def _signal_doc(what: str, real_in: bool) -> str:
    return f"""{what} over ``axes`` (``tw.signal``; ``norm`` as NumPy's).

    Args:
        input_tensor: {"a float" if real_in else "a complex"} tensor.
        fft_length: lengths per axis (default: the input's sizes along ``axes``).
        axes: the axes (default: all).
        norm: "backward" (default), "forward" or "ortho".
        name: op name.

    Returns:
        The transform.
    """


def _signal_fn(op, real_in: bool, inverse_real: bool, forward: bool):
    """``tw.signal``'s wrapper of one N-D op: default lengths and axes, ``norm``, dtypes."""
    @name_scoped
    def fn(input_tensor: TensorLike, fft_length=None, axes=None, norm=None,
           name: str | None = None) -> Tensor:
        x = convert(input_tensor, dtype_hint=dtypes.float32 if real_in else dtypes.complex64)
        attrs = {}
        if real_in:
            if x.dtype not in _C:
                raise ValueError(f"RFFT requires tf.float32 or tf.float64 inputs, got "
                                 f"{x.dtype.name}")
            attrs["Tcomplex"] = _C[x.dtype]
        elif inverse_real:
            if not x.dtype.is_complex:
                raise ValueError(f"IRFFT requires tf.complex64 or tf.complex128 inputs, got "
                                 f"{x.dtype.name}")
            attrs["Treal"] = x.dtype.real_dtype
        n, a = _args(x, fft_length, axes, inverse_real)
        return bind(op, [_scale(x, n, norm, forward), n, a], attrs)
    return fn


signal_fftnd = _signal_fn(FFTND, False, False, True)
signal_ifftnd = _signal_fn(IFFTND, False, False, False)
signal_rfftnd = _signal_fn(RFFTND, True, False, True)
signal_irfftnd = _signal_fn(IRFFTND, False, True, False)


signal_fftnd.__doc__ = _signal_doc("The N-D DFT", False)
signal_ifftnd.__doc__ = _signal_doc("The N-D inverse DFT", False)
signal_rfftnd.__doc__ = _signal_doc("The N-D DFT of a real input (half spectrum)", True)
signal_irfftnd.__doc__ = _signal_doc("The real N-D inverse DFT of a half spectrum", False)
