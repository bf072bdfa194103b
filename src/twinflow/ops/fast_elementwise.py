"""Faster NumPy paths for two elementwise patterns NumPy runs slowly (issue 10).

* **A scalar operand of maximum/minimum.** NumPy 2.x vectorises ``np.maximum(x, y)`` for two
  arrays but not for an array and a scalar (a stride-0 operand): ``relu`` of 1M float32 takes
  ~365 µs as ``np.maximum(x, 0)`` and ~160 µs against an array of zeros. ``cached_full`` hands
  out read-only arrays of one value from a shared cache so kernels can take the array path;
  ``relu`` is ``np.maximum(x, 0)`` that way (the same ufunc loop on the same values, so the same
  bits: NaN stays NaN, ``relu(-0.0)`` keeps its sign, as ``np.maximum`` does).
* **A short trailing operand (a bias of C channels).** ``x + b`` with x ``[..., C]`` and b
  ``[C]`` runs NumPy's inner loop C elements at a time; with C = 16 it costs ~3x the add of two
  flat arrays. ``short_axis_binary`` views x as rows of ``L = C * k`` elements (``k`` whole
  trailing positions, L up to 16384) and b tiled k times: one long inner loop per row, the same
  additions in the same order, so the same bits.

Both pay only on arrays large enough for the ufunc's inner loop to dominate; small or
non-contiguous arrays keep NumPy's own call (the thresholds below are measured, see
docs/performance.md).

For generated code (fused blocks): ``cached_full(shape, dtype)`` gives the zeros of a block
once, at code generation; ``row_length(outer, C)`` and ``tiled_bias(b, L)`` the rows of a bias.
The relu family's kernels (``relu``, ``relu6``, ``leaky_relu`` and its gradient, ``masked``,
``select`` for elu/selu) live here too, beside the caches they use.
"""
from __future__ import annotations

import threading

import numpy as np

from ..core.dtypes import bits_uint
from ..core.short_axis import ROW_MAX, ROW_MIN, SHORT_MAX, row_length  # noqa: F401 (re-exported)

# Each (dtype, value) has one flat read-only buffer, as large as the largest array asked for (a
# power of two, at most FLAT_BYTES); shaped views of it are cached per (shape, dtype, value).
FLAT_BYTES = 4 << 20
CACHE_BYTES = 64 << 20   # buffers of all keys together; the cache is emptied when it would pass
_MAX_VIEWS = 512

_lock = threading.Lock()
_flat: dict = {}     # (dtype, value bytes) -> read-only 1-D buffer
_views: dict = {}    # (shape, dtype, value bytes) -> read-only view of a buffer
_bytes = [0]

# relu's array path: measured faster (2-2.6x for float32/int32, 1.2-1.8x for 8-byte types) from
# 1K elements up to 4 MiB; float16 (not vectorised by NumPy) and larger arrays (memory-bound)
# gain nothing.
RELU_MIN_ELEMENTS = 1024
RELU_DTYPES = frozenset(np.dtype(t) for t in (np.float32, np.float64, np.int32, np.int64))
# select: from these sizes (by itemsize) np.where on a random mask is slower (measured: float32
# 4096 elements 4.8 vs 4.3 µs, 64K 162 vs 27 µs; float64 64K 56 vs 60 µs, 96K 299 vs 87 µs)
# (ints and bools alike: int32 64K 179 vs 28 µs)
SELECT_MIN_ELEMENTS = {1: 4096, 2: 4096, 4: 4096, 8: 65536}
# short_axis_binary: trailing axes of at most SHORT_MAX elements, operands of at least
# SHORT_MIN_ELEMENTS (tiling the short operand costs ~2 µs), rows of at most ROW_MAX elements
# (the tiled row stays in L1/L2).
SHORT_MIN_ELEMENTS = 1 << 15


def cached_full(shape: tuple, dtype, value=0) -> np.ndarray | None:
    """A read-only array of ``shape`` and ``dtype`` holding ``value`` everywhere, shared.

    Thread-safe. The array is never written (it is read-only); pass it as an operand, never
    return it as an op's result.

    Args:
        shape: the array's shape (a tuple of ints).
        dtype: a NumPy dtype (or anything ``np.dtype`` takes).
        value: the fill value (converted to ``dtype``).

    Returns:
        The array, or None when it would need more than ``FLAT_BYTES``.
    """
    dt = np.dtype(dtype)
    bits = np.array(value, dt).tobytes()
    return _cached(tuple(shape), dt, None if not any(bits) else bits)


def _cached(shape: tuple, dt: np.dtype, bits: bytes | None) -> np.ndarray | None:
    """``cached_full`` of a value given by its bytes in ``dt`` (None: zeros, the fast path)."""
    key = (shape, dt, bits)
    hit = _views.get(key)
    if hit is not None:
        return hit
    n = 1
    for d in shape:
        n *= int(d)
    if n * dt.itemsize > FLAT_BYTES:
        return None
    with _lock:
        flat = _flat.get(key[1:])
        if flat is None or flat.size < n:
            # a buffer for the largest array asked so far (a power of two, at most FLAT_BYTES)
            size = min(max(1 << (max(n, 1) - 1).bit_length(), 4096), FLAT_BYTES // dt.itemsize)
            old_bytes = 0 if flat is None else flat.nbytes
            if _bytes[0] - old_bytes + size * dt.itemsize > CACHE_BYTES:
                _flat.clear()
                _views.clear()
                _bytes[0] = old_bytes = 0
            else:  # views of the old buffer go with it
                for k in [k for k in _views if k[1:] == key[1:]]:
                    del _views[k]
            flat = np.zeros(size, dt) if bits is None else \
                np.full(size, np.frombuffer(bits, dt)[0], dt)
            flat.flags.writeable = False
            _flat[key[1:]] = flat
            _bytes[0] += flat.nbytes - old_bytes
        if len(_views) >= _MAX_VIEWS:
            _views.clear()
        view = _views[key] = flat[:n].reshape(shape)
    return view


def cache_clear() -> None:
    """Empties the cache of ``cached_full`` (arrays already handed out stay valid)."""
    with _lock:
        _flat.clear()
        _views.clear()
        _bytes[0] = 0


def cache_bytes() -> int:
    """Bytes of the buffers ``cached_full`` holds now.

    Returns:
        The total, at most ``CACHE_BYTES``.
    """
    return _bytes[0]


def zeros_for(x: np.ndarray):
    """The second operand of ``np.maximum(x, 0)`` / ``np.minimum(x, 0)``: cached zeros of x's
    shape where the array-array loop is faster, else the scalar 0 of x's dtype (same bits).

    Args:
        x: a NumPy array.

    Returns:
        A read-only array or a NumPy scalar (never to be returned as a result).
    """
    if x.size >= RELU_MIN_ELEMENTS and x.dtype in RELU_DTYPES and x.flags.c_contiguous:
        zeros = _cached(x.shape, x.dtype, None)
        if zeros is not None:
            return zeros
    return x.dtype.type(0)


def relu(x: np.ndarray) -> np.ndarray:
    """``np.maximum(x, 0)`` bit for bit, against cached zeros where that is faster.

    Args:
        x: a NumPy array.

    Returns:
        A new array (or a NumPy scalar for a 0-d ``x``, as ``np.maximum`` gives).
    """
    return np.maximum(x, zeros_for(x))


def tiled_bias(b: np.ndarray, length: int) -> np.ndarray:
    """``b`` (flattened) repeated to ``length`` elements (a multiple of its size).

    Args:
        b: the short operand.
        length: the row length, a multiple of ``b.size``.

    Returns:
        A new 1-D array.
    """
    row = np.empty((length // b.size, b.size), b.dtype)
    row[...] = b.reshape(-1)
    return row.reshape(-1)


def _short_operand(big: np.ndarray, small: np.ndarray) -> int:
    """How many trailing axes of ``big`` ``small`` spans when it broadcasts along the others
    only (shape ``[C]`` or ``[1, ..., 1, C, (D...)]`` equal to big's tail), or 0."""
    s = small.shape
    lead = len(s)
    while lead and s[len(s) - lead] == 1:
        lead -= 1
    tail = s[len(s) - lead:]
    if not tail or big.shape[big.ndim - len(tail):] != tail:
        return 0
    return len(tail)


def short_axis_binary(ufunc: np.ufunc, x: np.ndarray, y: np.ndarray) -> np.ndarray | None:
    """``ufunc(x, y)`` computed over long rows when one operand is a short trailing broadcast of
    the other (a bias of C <= ``SHORT_MAX`` elements on a large C-contiguous array).

    Args:
        ufunc: a binary NumPy ufunc of one output (``np.add``, ``np.multiply``...).
        x: the first operand.
        y: the second operand (of x's dtype).

    Returns:
        The result, bit for bit ``ufunc(x, y)``; None when the trick does not apply (then call
        ``ufunc(x, y)``).
    """
    if x.size >= y.size:
        big, small, small_first = x, y, False
    else:
        big, small, small_first = y, x, True
    if big.size < SHORT_MIN_ELEMENTS or small.size > SHORT_MAX or small.ndim > big.ndim \
            or x.dtype != y.dtype or x.dtype.kind not in "biufc" or not big.flags.c_contiguous:
        return None
    spans = _short_operand(big, small)
    if not spans:
        return None
    length = row_length(big.shape[:big.ndim - spans], small.size)
    if not length:
        return None
    rows = big.reshape(-1, length)
    row = tiled_bias(small, length)
    out = ufunc(row, rows) if small_first else ufunc(rows, row)
    return out.reshape(big.shape)


def _array_path(x: np.ndarray) -> bool:
    return x.size >= RELU_MIN_ELEMENTS and x.dtype in RELU_DTYPES and x.flags.c_contiguous


_SIX = {dt: np.array(6, dt).tobytes() for dt in RELU_DTYPES}


def relu6(x: np.ndarray) -> np.ndarray:
    """``np.minimum(np.maximum(x, 0), 6)`` bit for bit, against cached arrays where faster.

    Args:
        x: a NumPy array.

    Returns:
        A new array (a NumPy scalar for a 0-d ``x``).
    """
    t = x.dtype.type
    if _array_path(x):
        zeros, sixes = _cached(x.shape, x.dtype, None), _cached(x.shape, x.dtype, _SIX[x.dtype])
        if zeros is not None and sixes is not None:
            out = np.maximum(x, zeros)
            return np.minimum(out, sixes, out=out)
    return np.minimum(np.maximum(x, t(0)), t(6))


def leaky_relu(x: np.ndarray, alpha: float) -> np.ndarray:
    """``np.where(x > 0, x, x * alpha)`` bit for bit.

    For a float ``alpha`` with ``0 < alpha <= 1`` (in x's dtype) that is ``max(x, x * alpha)``:
    the larger of the two is x for x > 0 and x * alpha otherwise, and NaN, inf and -0.0 come out
    as the same bits (``np.where`` on a data-dependent mask mispredicts branches: ~20x slower).
    Other slopes use ``select``.

    Args:
        x: a floating-point NumPy array.
        alpha: the slope for x <= 0.

    Returns:
        A new array.
    """
    a = x.dtype.type(alpha)
    if x.ndim and x.dtype.kind == "f" and 0 < a <= 1:
        out = x * a
        return np.maximum(x, out, out=out)
    return select(x > 0, x, x * a)


def leaky_relu_grad(dy: np.ndarray, x: np.ndarray, alpha: float) -> np.ndarray:
    """``np.where(x > 0, dy, dy * alpha)`` bit for bit.

    With ``0 < alpha <= 1``: ``dy * max(x > 0, alpha)``, the factor 1.0 or alpha (dy * 1.0 is
    dy's bits), without np.where's mispredicted branches; other slopes use ``select``.

    Args:
        dy: the incoming gradient.
        x: the LeakyRelu's input (dy's shape and dtype).
        alpha: the slope for x <= 0.

    Returns:
        A new array.
    """
    a = dy.dtype.type(alpha)
    if dy.ndim and dy.shape == x.shape and dy.dtype == x.dtype and dy.dtype.kind == "f" \
            and 0 < a <= 1 and _array_path(dy):
        alphas = cached_full(dy.shape, dy.dtype, a)
        if alphas is not None:
            f = np.empty_like(dy)
            np.greater(x, 0, out=f)
            np.maximum(f, alphas, out=f)
            return np.multiply(dy, f, out=f)
    return select(x > 0, dy, dy * a)


UINT_OF_FLOAT = {np.dtype(t): bits_uint(t) for t in (np.float16, np.float32, np.float64)}


def masked(dy: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """``np.where(mask, dy, 0)`` bit for bit (dy or +0.0), for a boolean ``mask`` of dy's shape.

    A float dy's bit patterns are multiplied by the 0/1 mask as unsigned integers: no
    branches to mispredict (np.where on a data-dependent mask is ~5x slower).

    Args:
        dy: a NumPy array.
        mask: a boolean array of dy's shape.

    Returns:
        A new array.
    """
    uint = UINT_OF_FLOAT.get(dy.dtype)
    if uint is not None and dy.ndim and dy.shape == mask.shape:
        return np.multiply(dy.view(uint), mask, dtype=uint).view(dy.dtype)
    return np.where(mask, dy, dy.dtype.type(0))


def relu_grad(dy: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``np.where(y > 0, dy, 0)`` bit for bit (``ReluGrad``; dy or +0.0), dy and y of one
    shape.

    Like ``masked``; and when dy is a broadcast along middle axes of a short trailing block
    (the gradient of a global pooling: ``[N, 1, 1, C]`` over ``[N, H, W, C]``), the block is
    repeated into one short row per leading position and multiplied against the mask's rows,
    instead of NumPy walking the broadcast C elements at a time (seed 004, 32x24x24x16
    float32: 187 against ~100 µs).

    Args:
        dy: the incoming gradient (float arrays take the fast paths).
        y: the Relu's output (or input), dy's shape.

    Returns:
        A new array.
    """
    uint = UINT_OF_FLOAT.get(dy.dtype)
    if uint is not None and dy.ndim and not dy.flags.c_contiguous and dy.shape == y.shape \
            and dy.size >= SHORT_MIN_ELEMENTS:
        out = _relu_grad_broadcast(dy, y, uint)
        if out is not None:
            return out
    return masked(dy, y > 0)


def relu_grad_in_place(dy: np.ndarray, y: np.ndarray) -> None:
    """``dy = ReluGrad(dy, y)`` in place, the bits of ``relu_grad`` (a float dy's bit patterns
    times the 0/1 mask as unsigned integers; ``np.where`` otherwise).

    Args:
        dy: a writable array (a view is fine).
        y: the Relu's output (or input), dy's shape.
    """
    uint = UINT_OF_FLOAT.get(dy.dtype)
    if uint is not None and dy.ndim and dy.shape == y.shape:
        bits = dy.view(uint)
        np.multiply(bits, y > 0, out=bits, dtype=uint)
    else:
        dy[...] = np.where(y > 0, dy, dy.dtype.type(0))


# the repeated block of a broadcast dy is made into rows of about this many elements: long
# enough for NumPy's inner loop, short enough that repeating it costs little (256-512 were
# fastest, /tmp/rg.py)
TILE_ROW = 512


def _relu_grad_broadcast(dy: np.ndarray, y: np.ndarray, uint) -> np.ndarray | None:
    strides, shape = dy.strides, dy.shape
    wide = [i for i, (st, n) in enumerate(zip(strides, shape)) if st == 0 and n > 1]
    if not wide:
        return None
    lo, hi = wide[0], wide[-1] + 1
    if any(strides[i] and shape[i] > 1 for i in range(lo, hi)):
        return None
    lead, reps, short = (int(np.prod(shape[a:b], dtype=np.int64))
                         for a, b in ((0, lo), (lo, hi), (hi, dy.ndim)))
    if short > SHORT_MAX:
        return None
    k = max(j for j in range(1, max(1, TILE_ROW // short) + 1) if reps % j == 0)
    if short * k < 64:
        return None
    block = np.ascontiguousarray(dy[tuple(slice(0, 1) if lo <= i < hi else slice(None)
                                          for i in range(dy.ndim))]).reshape(lead, 1, short)
    row = np.empty((lead, k, short), dy.dtype)
    row[...] = block
    out = np.empty(shape, uint)
    np.greater(y, 0, out=out, casting="unsafe")     # the 0/1 mask, as dy's unsigned ints
    rows = out.reshape(lead, -1, short * k)
    np.multiply(row.view(uint).reshape(lead, 1, short * k), rows, out=rows)
    return out.view(dy.dtype)


def select(mask: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``np.where(mask, a, b)`` bit for bit, without branches for real or bool arrays of one
    shape.

    ``b + (a - b) * mask`` on the bit patterns as unsigned integers (wrapping) is exactly a's or
    b's bits; np.where on a data-dependent mask mispredicts branches (~9x slower on 350K
    float32). Other dtypes, shapes that broadcast and small arrays use np.where.

    Args:
        mask: a boolean array.
        a: the values where mask is true.
        b: the values where it is false.

    Returns:
        A new array.
    """
    if a.size < 4096:   # (the smallest SELECT_MIN_ELEMENTS: one cheap test for small arrays)
        return np.where(mask, a, b)
    uint = bits_uint(a.dtype)
    if uint is None or a.dtype != b.dtype or a.dtype.kind not in "biuf" \
            or a.size < SELECT_MIN_ELEMENTS[a.dtype.itemsize] \
            or not a.shape == b.shape == mask.shape or mask.dtype != np.bool_:
        return np.where(mask, a, b)
    bits = b.view(uint)
    out = np.subtract(a.view(uint), bits)
    np.multiply(out, mask, out=out, dtype=uint)
    np.add(out, bits, out=out)
    return out.view(a.dtype)


def bias_relu_in_place(out: np.ndarray, bias: np.ndarray) -> None:
    """``out = max(out + bias, 0)`` in place, ``bias`` along the last axis: the bits of
    ``BiasAdd`` then ``Relu``, computed on long rows when the last axis is short.

    Args:
        out: a writable array whose last axis is ``bias``'s length.
        bias: the 1-D bias.
    """
    c = out.shape[-1] if out.ndim else 0
    length = row_length(out.shape[:-1], c) if 0 < c <= SHORT_MAX and out.ndim > 1 else 0
    if length and out.flags.c_contiguous:
        view, b = out.reshape(-1, length), tiled_bias(bias, length)
    else:
        view, b = out, bias
    np.add(view, b, out=view)
    zeros = cached_full(view.shape, view.dtype) if view.dtype in RELU_DTYPES else None
    np.maximum(view, view.dtype.type(0) if zeros is None else zeros, out=view)
