"""Fast Fourier transforms over the innermost 1, 2 or 3 dimensions (tf.signal.fft...).

Gradients follow TensorFlow's convention for complex values (the gradient of a real loss is
``dL/dRe + i dL/dIm``): the adjoint of each linear transform. The real transforms' adjoints
account for the bins a half spectrum stands for twice.
"""
from __future__ import annotations

import numpy as np

from ...core import dtypes
from ...core.shapes import TensorShape
from ...eager.execute import bind, constant_value
from ...graph.registry import register_op
from ...graph.tensor import Tensor, TensorLike
from ..array.create import range as _range
from ..array.join import concat, pad
from ..array.layout import stack
from ..array.shape import reshape, shape
from ..array.slicing import slice as _slice
from ..core import _fmt, convert
from ..core import invalid_argument as _err
from ..math.binary import minimum
from ..math.cast import cast
from ..math.comparison import equal, logical_or, where
from ..math.complex import real
from ..math.reduce import reduce_prod

_COMPLEX = {dtypes.float32: dtypes.complex64, dtypes.float64: dtypes.complex128}
_REAL = {v: k for k, v in _COMPLEX.items()}


def _check_rank(x, rank: int, what: str) -> None:
    if x.shape.rank is not None and x.shape.rank < rank:
        raise _err(f"{what}: input must have rank >= {rank}, got shape {_fmt(x.shape)}")


def _fft_size(op, rank: int):
    """The number of points of the transform (a scalar of the complex dtype)."""
    x = op.inputs[0]
    n = reduce_prod(shape(x)[-rank:])
    return n


def _declare_complex(name: str, rank: int, inverse: bool):
    axes = tuple(range(-rank, 0))
    np_fn = np.fft.ifftn if inverse else np.fft.fftn

    def infer(x):
        _check_rank(x, rank, name)
        if x.dtype not in (dtypes.complex64, dtypes.complex128):
            raise _err(f"{name}: input must be complex64 or complex128, got {x.dtype.name}")
        return x.dtype, x.shape

    def kernel(x):
        if x.ndim < rank:
            raise _err(f"{name}: input must have rank >= {rank}, got shape {list(x.shape)}")
        return np_fn(x, axes=axes).astype(x.dtype)

    def grad(op, dy):
        n = cast(cast(_fft_size(op, rank), _REAL[dy.dtype]), dy.dtype)
        # FFT's adjoint is n * IFFT; IFFT's is FFT / n.
        return bind(_OPS[(rank, not inverse, False)], [dy]) * n if not inverse else \
            bind(_OPS[(rank, False, False)], [dy]) / n

    return register_op(name)(type(name, (), {"__doc__": f"{name}: {'inverse ' * inverse}"
                                             f"DFT over the innermost {rank} dims.",
                                             "infer": infer, "kernel": kernel, "grad": grad}))


def _lengths(fft_length, rank: int, what: str):
    v = constant_value(fft_length)
    if v is None:
        return None
    v = [int(a) for a in np.asarray(v).reshape(-1)]
    if len(v) != rank or min(v) < 1:
        raise _err(f"{what}: fft_length must have {rank} positive entries, got {v}")
    return v


def _declare_real(name: str, rank: int, inverse: bool):
    axes = tuple(range(-rank, 0))

    def infer(x, fft_length):
        _check_rank(x, rank, name)
        if inverse and x.dtype not in _REAL:
            raise _err(f"{name}: input must be complex64 or complex128, got {x.dtype.name}")
        if not inverse and x.dtype not in _COMPLEX:
            raise _err(f"{name}: input must be float32 or float64, got {x.dtype.name}")
        out = _REAL[x.dtype] if inverse else _COMPLEX[x.dtype]
        n = _lengths(fft_length, rank, name)
        if x.shape.rank is None:
            return out, TensorShape(None)
        dims = x.shape.as_list()
        tail = [None] * rank if n is None else list(n)
        if n is not None and not inverse:
            tail[-1] = n[-1] // 2 + 1
        return out, TensorShape(dims[:-rank] + tail)

    def kernel(x, fft_length):
        n = [int(a) for a in np.asarray(fft_length).reshape(-1)]
        if x.ndim < rank or len(n) != rank:
            raise _err(f"{name}: input of rank >= {rank} and {rank} fft lengths needed, got "
                       f"{list(x.shape)} and {n}")
        if inverse:
            return np.fft.irfftn(x, s=n, axes=axes).astype(_REAL[dtypes.as_dtype(x.dtype)].np)
        return np.fft.rfftn(x, s=n, axes=axes).astype(_COMPLEX[dtypes.as_dtype(x.dtype)].np)

    def grad(op, dy):
        x, fft_length = op.inputs
        n_last = fft_length[-1]
        if not inverse:
            # Adjoint of "full DFT, keep the first n//2+1 bins": zero-fill the other bins,
            # then n * IFFT, real part.
            missing = n_last - shape(dy)[-1]
            paddings = concat([cast(np.zeros([x.shape.rank - 1, 2], np.int32), dtypes.int32),
                               reshape(stack([missing * 0, missing]), [1, 2])], 0)
            full = pad(dy, paddings)
            n = cast(cast(reduce_prod(fft_length), x.dtype), dy.dtype)
            return real(bind(_OPS[(rank, True, False)], [full]) * n), None
        # Adjoint of IRFFT: RFFT / n, with the bins that stand for two (all but the first
        # and, for even n, the last) counted twice.
        spec = bind(_OPS[(rank, False, True)], [dy, fft_length])
        k = shape(spec)[-1]
        weights = _doubling(k, n_last, dy.dtype)
        n = cast(reduce_prod(fft_length), dy.dtype)
        return spec * cast(weights / n, spec.dtype), None

    return register_op(name)(type(name, (), {"__doc__": f"{name}: {'inverse ' * inverse}"
                                             f"real DFT over the innermost {rank} dims.",
                                             "infer": infer, "kernel": kernel, "grad": grad}))


def _doubling(k, n_last, dtype):
    """[1, 2, ..., 2, 1 or 2]: how many bins of a full spectrum each kept bin stands for."""
    i = _range(0, k)
    last_even = logical_or(equal(i, 0), equal(i * 2, n_last))
    return where(last_even, cast(1.0, dtype), cast(2.0, dtype))


_OPS: dict = {}
for _rank, _suffix in ((1, ""), (2, "2D"), (3, "3D")):
    _OPS[(_rank, False, False)] = _declare_complex(f"FFT{_suffix}", _rank, False)
    _OPS[(_rank, True, False)] = _declare_complex(f"IFFT{_suffix}", _rank, True)
    _OPS[(_rank, False, True)] = _declare_real(f"RFFT{_suffix}", _rank, False)
    _OPS[(_rank, True, True)] = _declare_real(f"IRFFT{_suffix}", _rank, True)


def _complex_call(input, rank: int, inverse: bool, name):
    x = convert(input, name="input")
    if x.dtype not in _REAL:
        raise TypeError(f"Value passed to parameter 'input' has DataType {x.dtype.name} not in "
                        f"list of allowed values: complex64, complex128")
    return bind(_OPS[(rank, inverse, False)], [x], name=name)


def _fit(x, lengths, rank: int):
    """Crops or zero-pads the innermost ``rank`` dims of ``x`` to ``lengths`` (rfft's rule)."""
    r = x.shape.rank
    if r is None:
        raise ValueError("rfft: the input rank must be known")
    known, want = x.shape.as_list()[r - rank:], constant_value(lengths)
    if want is not None and None not in known:
        # Static sizes: plain slicing and padding keep every inferred shape known.
        want = [int(v) for v in np.asarray(want).reshape(-1)]
        if want == known:
            return x
        cut = tuple([slice(None)] * (r - rank) + [slice(0, w) for w in want])
        if any(w < k for w, k in zip(want, known)):
            x = x[cut]
        extra = [[0, max(w - k, 0)] for w, k in zip(want, known)]
        return pad(x, [[0, 0]] * (r - rank) + extra) if any(e[1] for e in extra) else x
    dims = shape(x)
    target = concat([dims[:r - rank], lengths], 0)
    keep = _slice(x, [0] * r, concat([dims[:r - rank], minimum(dims[r - rank:], lengths)], 0))
    missing = target - shape(keep)
    paddings = concat([cast(np.zeros([r, 1], np.int32), dtypes.int32),
                       missing[:, None]], 1)
    return pad(keep, paddings)




def _static_lengths(x, rank: int, fft_length, inverse: bool, what: str):
    if fft_length is not None:
        return convert(fft_length, dtype=dtypes.int32)
    dims = x.shape.as_list()[-rank:] if x.shape.rank is not None else [None]
    if None in dims:
        raise ValueError(f"{what}: fft_length is needed when the inner dimensions are unknown "
                         f"(got shape {x.shape})")
    if inverse:
        dims[-1] = 2 * (dims[-1] - 1)
    return convert(np.asarray(dims, np.int32))


def _real_call(input_tensor, fft_length, rank: int, inverse: bool, name, what: str):
    x = convert(input_tensor, name="input_tensor")
    if inverse and not x.dtype.is_complex:
        x = cast(x, dtypes.complex64)
    if not inverse and not x.dtype.is_floating:
        raise TypeError(f"{what}: input_tensor must be float32 or float64, got {x.dtype.name}")
    n = _static_lengths(x, rank, fft_length, inverse, what)
    if n.shape.rank != 1 or n.shape[0] not in (None, rank):
        raise ValueError(f"{what}: fft_length must have {rank} entries, got {n.shape}")
    # The input is cropped or zero-padded to the transform's size, as TensorFlow does.
    fitted = n
    if inverse:
        known = constant_value(n)
        fitted = concat([n[:-1], n[-1:] // 2 + 1], 0) if known is None else convert(
            np.concatenate([np.asarray(known)[:-1], np.asarray(known)[-1:] // 2 + 1]).astype(
                np.int32))
    return bind(_OPS[(rank, inverse, True)], [_fit(x, fitted, rank), n], name=name)


def _doc_complex(rank: int, inverse: bool, fn_name: str):
    def fn(input: TensorLike, name: str | None = None) -> Tensor:
        return _complex_call(input, rank, inverse, name)
    fn.__name__ = fn.__qualname__ = fn_name
    fn.__doc__ = (f"{'Inverse d' if inverse else 'D'}iscrete Fourier transform over the "
                  f"innermost {rank} dimension{'s' * (rank > 1)} (``tw.signal.{fn_name}``).\n\n"
                  f"    Args:\n        input: a complex64 or complex128 tensor.\n"
                  f"        name: op name.\n\n    Returns:\n        The transform, of the "
                  f"input's shape and dtype.\n")
    return fn


def _doc_real(rank: int, inverse: bool, fn_name: str):
    def fn(input_tensor: TensorLike, fft_length=None, name: str | None = None) -> Tensor:
        return _real_call(input_tensor, fft_length, rank, inverse, name, fn_name)
    fn.__name__ = fn.__qualname__ = fn_name
    what = ("Inverse of ``rfft``: a real signal from the non-negative half spectrum"
            if inverse else "The non-negative half of the DFT of a real signal")
    fn.__doc__ = (f"{what}, over the innermost {rank} dimension{'s' * (rank > 1)} "
                  f"(``tw.signal.{fn_name}``).\n\n    Args:\n        input_tensor: "
                  f"{'a complex' if inverse else 'a float32 or float64'} tensor.\n"
                  f"        fft_length: the transform size per dimension (default: from the "
                  f"input); the input is cropped or zero-padded to it.\n"
                  f"        name: op name.\n\n    Returns:\n        The "
                  f"{'real signal' if inverse else 'complex half spectrum'}.\n")
    return fn


def _variants(base: str) -> list:
    """``(name, rank, inverse)`` of ``base`` (``fft``, ``rfft``), its inverse, and the 2-D and
    3-D versions of both, in the order ``base, i<base>, <base>2d, i<base>2d, ...``."""
    return [(f"{'i' * inverse}{base}{f'{rank}d' if rank > 1 else ''}", rank, inverse)
            for rank in (1, 2, 3) for inverse in (False, True)]


fft, ifft, fft2d, ifft2d, fft3d, ifft3d = (
    _doc_complex(rank, inverse, name) for name, rank, inverse in _variants("fft"))
rfft, irfft, rfft2d, irfft2d, rfft3d, irfft3d = (
    _doc_real(rank, inverse, name) for name, rank, inverse in _variants("rfft"))

__all__ = ["fft", "ifft", "fft2d", "ifft2d", "fft3d", "ifft3d", "rfft", "irfft", "rfft2d",
           "irfft2d", "rfft3d", "irfft3d"]
