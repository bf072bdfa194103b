"""``keras.ops`` core and math functions: control flow, conversion, slices and scatters,
segments, top-k, FFTs (as Keras does, on ``(real, imag)`` pairs) and STFTs.
"""
from __future__ import annotations

import numpy as np

from ...autodiff import custom_gradient as _custom_gradient
from ...control import cond as _cond
from ...control import map_fn as _map_fn
from ...control import while_loop as _while
from ...control.vectorize import vectorized_map as _vectorized_map
from ...core import dtypes, nest
from ...graph.tensor import Tensor
from ...ops import array_ops as A
from ...ops import math_ops as MO
from ...ops import reduction_ops as R
from ...ops import segment_ops as SG
from ...ops.nn import normalization as _norm
from ...ops.signal import fft as F
from ...ops.signal import spectral as SP
from ._common import as_float, tensor

__all__ = ["cond", "map", "scan", "associative_scan", "fori_loop", "while_loop", "switch",
           "slice", "slice_update", "scatter", "scatter_update", "stop_gradient",
           "custom_gradient", "convert_to_tensor", "convert_to_numpy", "is_tensor", "dtype",
           "cast", "saturate_cast", "vectorized_map", "segment_sum", "segment_max",
           "segment_min", "segment_prod", "top_k", "in_top_k", "extract_sequences", "fft",
           "fft2", "ifft2", "rfft", "irfft", "stft", "istft"]



def cond(pred, true_fn, false_fn):
    out = _cond.cond(pred, true_fn, false_fn)
    return nest.map_structure(lambda v: v if v is None else tensor(v), out)


def map(f, xs):  # noqa: A001 (Keras' name)
    return _map_fn.map_fn(f, xs)


def scan(f, init, xs=None, length=None, reverse: bool = False, unroll=1):
    """JAX-style scan: ``f(carry, x) -> (carry, y)``; returns ``(carry, stacked ys)``."""
    if xs is None:
        if length is None:
            raise ValueError("keras.ops.scan: give `xs` or `length`")
        xs = A.zeros([int(length)])
        step = lambda c, x: f(c, None)  # noqa: E731
    else:
        step = f
    flat_init = nest.flatten(init)
    carry0 = nest.map_structure(tensor, init)

    def body(acc, x):
        carry = nest.pack_sequence_as(init, list(acc[:len(flat_init)]))
        new_carry, y = step(carry, x)
        return tuple(nest.flatten(new_carry)) + (y,) if y is not None else \
            tuple(nest.flatten(new_carry)) + (A.zeros([]),)
    first_x = nest.map_structure(lambda t: tensor(t)[0], xs)
    _, y0 = step(carry0, first_x if xs is not None else None)
    y0 = A.zeros([]) if y0 is None else y0
    init_acc = tuple(tensor(v) for v in nest.flatten(carry0)) + (A.zeros_like(tensor(y0)),)
    out = _map_fn.scan(body, xs, initializer=init_acc, reverse=reverse)
    carry = nest.pack_sequence_as(init, [o[-1] for o in out[:len(flat_init)]])
    return carry, out[len(flat_init)]


def associative_scan(f, elems, reverse: bool = False, axis: int = 0):
    flat = [tensor(e) for e in nest.flatten(elems)]
    if axis != 0:
        flat = [A.transpose(e, _swap0(e.shape.rank, axis)) for e in flat]
    if reverse:
        flat = [A.reverse(e, [0]) for e in flat]
    n = flat[0].shape.as_list()[0]
    if n is None:
        raise ValueError("keras.ops.associative_scan needs a known length along `axis`")
    acc = [e[0] for e in flat]
    outs = [[a] for a in acc]
    for i in range(1, n):
        acc = nest.flatten(f(nest.pack_sequence_as(elems, acc),
                             nest.pack_sequence_as(elems, [e[i] for e in flat])))
        for o, a in zip(outs, acc):
            o.append(a)
    res = [A.stack(o, 0) for o in outs]
    if reverse:
        res = [A.reverse(r, [0]) for r in res]
    if axis != 0:
        res = [A.transpose(r, _swap0(r.shape.rank, axis)) for r in res]
    return nest.pack_sequence_as(elems, res)


def _swap0(rank: int, axis: int) -> list:
    axis = axis % rank
    perm = list(range(rank))
    perm[0], perm[axis] = perm[axis], perm[0]
    return perm


def fori_loop(lower, upper, body_fun, init_val):
    flat = [tensor(v) for v in nest.flatten(init_val)]

    def body(i, *vals):
        out = body_fun(i, nest.pack_sequence_as(init_val, list(vals)))
        return (i + 1,) + tuple(tensor(v) for v in nest.flatten(out))
    out = _while.while_loop(lambda i, *v: MO.less(i, upper), body,
                            [tensor(lower)] + flat)
    return nest.pack_sequence_as(init_val, list(out[1:]))


def while_loop(cond, body, loop_vars, maximum_iterations=None):
    single = not isinstance(loop_vars, (list, tuple))
    lv = [loop_vars] if single else list(loop_vars)

    def b(*v):
        out = body(*v)
        return [out] if single else list(out) if isinstance(out, (list, tuple)) else [out]
    out = _while.while_loop(cond, b, lv, maximum_iterations=maximum_iterations)
    return out[0] if single else tuple(out)


def switch(index, branches, *operands):
    return _cond.switch_case(MO.cast(tensor(index), dtypes.int32),
                             [lambda b=b: b(*operands) for b in branches])


def slice(inputs, start_indices, shape):  # noqa: A001 (Keras' name)
    return A.slice(tensor(inputs), start_indices, shape)


def _box_indices(start, update_shape):
    grids = np.meshgrid(*[np.arange(d) for d in update_shape], indexing="ij")
    return np.stack(grids, -1).astype(np.int32), start


def slice_update(inputs, start_indices, updates):
    x = tensor(inputs)
    u = tensor(updates, x.dtype)
    dims = u.shape.as_list()
    if any(d is None for d in dims):
        raise ValueError("keras.ops.slice_update needs updates of known shape")
    idx, _ = _box_indices(None, dims)
    start = MO.cast(tensor(list(start_indices) if isinstance(start_indices, (list, tuple))
                           else start_indices), dtypes.int32)
    return A.tensor_scatter_nd_update(x, tensor(idx) + start, u)


def scatter(indices, values, shape):
    v = tensor(values)
    return A.scatter_nd(MO.cast(tensor(indices), dtypes.int32), v, list(shape))


def scatter_update(inputs, indices, updates, reduction=None):
    x = tensor(inputs)
    idx = MO.cast(tensor(indices), dtypes.int32)
    u = tensor(updates, x.dtype)
    if reduction is None:
        return A.tensor_scatter_nd_update(x, idx, u)
    if reduction == "add":
        return A.tensor_scatter_nd_add(x, idx, u)
    raise ValueError(f"keras.ops.scatter_update: reduction {reduction!r} is not supported "
                     "(None or 'add')")


def stop_gradient(variable):
    return A.stop_gradient(tensor(variable))


def custom_gradient(f):
    return _custom_gradient.custom_gradient(f)


def convert_to_tensor(x, dtype=None, sparse=None, ragged=None):
    if sparse or ragged:
        raise ValueError("keras.ops.convert_to_tensor: sparse/ragged=True is not supported")
    return tensor(x, dtype)


def convert_to_numpy(x):
    return np.asarray(tensor(x).numpy())


def is_tensor(x):
    return isinstance(x, Tensor)


def dtype(x):
    return tensor(x).dtype.name if not hasattr(x, "dtype") else dtypes.as_dtype(x.dtype).name


def cast(x, dtype):  # noqa: F811 (Keras' name)
    return MO.cast(tensor(x), dtypes.as_dtype(dtype))


def saturate_cast(x, dtype):  # noqa: F811
    return A.saturate_cast(tensor(x), dtypes.as_dtype(dtype))


def vectorized_map(function, elements):
    return _vectorized_map(function, elements)


def _segment(sorted_op, unsorted_op):
    def f(data, segment_ids, num_segments=None, sorted: bool = False):  # noqa: A002
        ids = MO.cast(tensor(segment_ids), dtypes.int32)
        if num_segments is None and sorted:
            return sorted_op(tensor(data), ids)
        if num_segments is None:
            num_segments = R.reduce_max(ids) + 1
        return unsorted_op(tensor(data), ids, num_segments)
    return f


segment_sum = _segment(SG.segment_sum, SG.unsorted_segment_sum)
segment_max = _segment(SG.segment_max, SG.unsorted_segment_max)
segment_min = _segment(SG.segment_min, SG.unsorted_segment_min)
segment_prod = _segment(SG.segment_prod, SG.unsorted_segment_prod)


def top_k(x, k, sorted: bool = True):  # noqa: A002
    values, indices = A.top_k(tensor(x), k, sorted=sorted)
    return values, indices


def in_top_k(targets, predictions, k):
    return _norm.in_top_k(MO.cast(tensor(targets), dtypes.int32), as_float(predictions), k)


def extract_sequences(x, sequence_length, sequence_stride):
    return SP.frame(tensor(x), sequence_length, sequence_stride, axis=-1)


def _complex(x):
    if not isinstance(x, (tuple, list)) or len(x) != 2:
        raise ValueError("keras.ops FFTs take a tuple (real, imag) of two tensors")
    re, im = as_float(x[0]), as_float(x[1])
    return MO.complex(re, MO.cast(im, re.dtype))


def _parts(c):
    return MO.real(c), MO.imag(c)


def fft(x):
    return _parts(F.fft(_complex(x)))


def fft2(x):
    return _parts(F.fft2d(_complex(x)))


def ifft2(x):
    return _parts(F.ifft2d(_complex(x)))


def rfft(x, fft_length=None):
    return _parts(F.rfft(as_float(x), None if fft_length is None else [fft_length]))


def irfft(x, fft_length=None):
    return F.irfft(_complex(x), None if fft_length is None else [fft_length])


def _stft_window(window, sequence_length: int, fft_length: int, dt):
    if window is None:
        return None
    if isinstance(window, str):
        if window not in ("hann", "hamming"):
            raise ValueError(f"keras.ops.stft: window must be 'hann', 'hamming', an array or "
                             f"None, got {window!r}")
        w = (SP.hann_window if window == "hann" else SP.hamming_window)(
            sequence_length, periodic=True, dtype=dt)
    else:
        w = tensor(window, dt)
    if w.shape.as_list() != [sequence_length]:
        raise ValueError(f"keras.ops.stft: the window must have shape [{sequence_length}], "
                         f"got {w.shape}")
    left = (fft_length - sequence_length) // 2
    return A.pad(w, [[left, fft_length - sequence_length - left]])


def stft(x, sequence_length, sequence_stride, fft_length, window="hann", center=True):
    x = as_float(x)
    if fft_length < sequence_length:
        raise ValueError(f"keras.ops.stft: fft_length ({fft_length}) must be at least "
                         f"sequence_length ({sequence_length})")
    if center:
        pads = [[0, 0]] * (x.shape.rank - 1) + [[fft_length // 2, fft_length // 2]]
        x = A.pad(x, pads, "REFLECT")
    w = _stft_window(window, sequence_length, fft_length, x.dtype)
    out = SP.stft(x, fft_length, sequence_stride, fft_length,
                  window_fn=None if w is None else (lambda n, dtype: w))
    return _parts(out)


def istft(x, sequence_length, sequence_stride, fft_length, length=None, window="hann",
          center=True):
    c = _complex(x)
    dt = MO.real(c).dtype
    w = _stft_window(window, sequence_length, fft_length, dt)
    win_fn = None if w is None else SP.inverse_stft_window_fn(sequence_stride,
                                                               lambda n, dtype: w)
    out = SP.inverse_stft(c, fft_length, sequence_stride, fft_length, window_fn=win_fn)
    start = fft_length // 2 if center else 0
    if length is not None:
        return out[..., start:start + length]
    if center:
        return out[..., start:-(fft_length // 2)]
    return out
