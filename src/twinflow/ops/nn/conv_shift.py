"""Stride-1 convolutions without a column matrix: shifted products on the flattened input.

Flatten a padded batch ``[N, *P, C]`` to ``[N * prod(P), C]`` rows. The window element at filter
offset ``k`` of the output at row ``q`` is row ``q + off[k]`` (``off`` from the offset and the
dilation), and for every *valid* output ``q + off[k]`` stays inside the same image. So

    Y[q] = sum_k X[q + off[k]] @ W[k]

is ``prod(k)`` BLAS products of *contiguous* row ranges of X (no copy of X per offset), on a
"wide" output grid with the input's spatial shape; the valid outputs are a slice of it. The
filter gradient is ``dW[k] = X[off[k]:][:M].T @ dYwide[:M]`` and the input gradient
``dX[off[k]:][:M] += dYwide[:M] @ W[k].T`` (``dYwide``: dy placed on the wide grid, zeros
elsewhere), both again products of contiguous row ranges.

The sums of products accumulate in place (``core.blas.shifted_gemms``, ``beta=1``: no temporary
and no separate addition per offset; NumPy's matmul and add where the library is not there).
Large batches are cut into pieces (``pieces``) that the calling thread and ``core.workers``'
threads take in turn; the products run with BLAS on one thread (``core.blas.single_threaded``).
"""
from __future__ import annotations

import functools
import itertools
import math

import numpy as np

from ...core import blas, workers
from ...core.parallel import intra_threads, run_parallel

# Convolutions of at least this many multiply-adds (~0.1 ms of one core) are cut into batch
# pieces: a piece costs ~5-30 us of Python (the first layer of seed 004, 3.1M multiply-adds,
# took 0.36 ms in four pieces on one thread against 0.25 ms whole) and waking a worker ~10 us.
PARALLEL_MIN_FLOPS = 1 << 22
# Pieces per cut convolution: a fixed number, at least one per thread, so that up to this many
# threads the pieces, and with them the results, do not depend on the thread count (filter
# gradients sum the pieces' products in piece order). Two, not four: each piece costs its own
# wide copy of dy and shorter products, and each hand-off a thread wake-up; on the 2-core
# machine the seed 004 step took 4.2-4.4 ms best, 4.5-5.2 ms median in two pieces against
# 4.8-5.0 / 5.1-5.8 ms in four (and 5.4-5.6 / 5.6-5.8 ms in one, on one thread), interleaved
# runs of /tmp/ab_pieces2.py; per convolution the second layer's forward, input and filter
# gradients took 0.98 / 1.01 / 0.94 ms median in two pieces against 1.14 / 1.28 / 1.20 in four.
PIECES = 2
# Pieces stay on the calling thread while the load average exceeds the cores by this much.
# The products go over groups of rows of about this many bytes of input and output rows, which
# then stay in the core's cache (1 MB of L2 here) for all ``prod(k)`` products: 25-35% faster
# than whole pieces, whose rows are streamed from L3 once per filter offset.
CHUNK_BYTES = 3 << 17


def _chunk(c: int, o: int, itemsize: int) -> int:
    return max(64, CHUNK_BYTES // ((c + o) * itemsize))


def _plan(padded_sp, ksize, dilations) -> tuple:
    return _plan_of(tuple(padded_sp), tuple(ksize), tuple(dilations))


@functools.lru_cache(maxsize=256)   # (~10 us of Python per convolution otherwise)
def _plan_of(padded_sp: tuple, ksize: tuple, dilations: tuple) -> tuple:
    el = [1] * len(padded_sp)
    for d in range(len(padded_sp) - 2, -1, -1):
        el[d] = el[d + 1] * padded_sp[d + 1]
    offs = tuple(sum(o * dl * e for o, dl, e in zip(offs, dilations, el))
                 for offs in itertools.product(*(range(k) for k in ksize)))
    out_sp = tuple(p - (k - 1) * dl for p, k, dl in zip(padded_sp, ksize, dilations))
    valid = tuple(slice(0, o) for o in out_sp)
    return offs, out_sp, valid


def pieces(n: int, flops: int) -> list:
    """The batch pieces ``(start, stop)`` of a convolution of ``n`` items and ``flops``
    multiply-adds in all: one below ``PARALLEL_MIN_FLOPS``, else ``PIECES`` (or one per thread
    when there are more threads).

    Args:
        n: the batch size.
        flops: the convolution's multiply-adds.

    Returns:
        Contiguous ranges covering ``[0, n)``.
    """
    k = max(1, min(n, max(PIECES, intra_threads())) if flops >= PARALLEL_MIN_FLOPS else 1)
    return [(i * n // k, (i + 1) * n // k) for i in range(k)] if n else []


def busy() -> bool:
    """Whether other processes keep the cores busy (``core.workers.machine_busy``, the one rule
    every split uses).

    There a worker handed a piece is often descheduled while the caller waits for it, and a
    split convolution is slower than one thread (seed 004 step at load 8 on 2 cores: best
    8.3 ms on one thread, 13.9 ms split), so ``run`` then keeps the pieces on the caller.

    Returns:
        True when the machine is oversubscribed.
    """
    return workers.machine_busy()


def run(fn, parts: list) -> list:
    """``[fn(p) for p in parts]``, the parts taken in turn by the calling thread and the
    intra-op threads (``core.parallel.run_parallel``; on the calling thread alone while the
    machine is ``busy``), BLAS on one thread.

    Args:
        fn: a function of one piece.
        parts: the pieces.

    Returns:
        The results in order.
    """
    # BLAS on one thread either way: these products are thin, and its spinning threads cost
    # more than they bring (ten times more on a loaded machine)
    with blas.single_threaded():
        if len(parts) > 1 and busy():
            return [fn(p) for p in parts]
        return run_parallel(fn, parts)


def conv(xp, w, dilations, epilogue=None):
    """Stride-1 convolution of the padded input.

    Args:
        xp: padded input ``[N, *P, C]``.
        w: ``[*k, C, O]``.
        dilations: per spatial dim.
        epilogue: None, or a function applied in place to each piece of the result while it
            is in cache (``conv_kernels.conv``).

    Returns:
        ``[N, *out, O]``.
    """
    ksize, (c, o) = w.shape[:-2], w.shape[-2:]
    n, padded = xp.shape[0], xp.shape[1:-1]
    offs, out_sp, valid = _plan(padded, ksize, dilations)
    xp = np.ascontiguousarray(xp)
    wk = np.ascontiguousarray(w.reshape(-1, c, o))
    out = np.empty((n, *out_sp, o), np.result_type(xp.dtype, w.dtype))
    size = math.prod(padded)

    def share(ab):
        a, b = ab
        xa = xp[a:b].reshape(-1, c)
        m = xa.shape[0] - offs[-1]
        y = np.empty((xa.shape[0], o), out.dtype)
        # y[:m] = sum_k X[off_k:][:m] @ W[k], accumulated in place
        if not blas.shifted_gemms(xa, offs, wk, y, [0] * len(offs), m, 0,
                                  _chunk(c, o, y.itemsize)):
            np.matmul(xa[offs[0]:offs[0] + m], wk[0], out=y[:m])
            tmp = np.empty((m, o), y.dtype)
            for k in range(1, len(offs)):
                np.matmul(xa[offs[k]:offs[k] + m], wk[k], out=tmp)
                np.add(y[:m], tmp, out=y[:m])
        # the valid part, copied while the piece is in cache (a strided view would be cheaper
        # here and cost three times the copy in the next op, e.g. a bias add)
        out[a:b] = y.reshape(b - a, *padded, o)[(slice(None), *valid)]
        if epilogue is not None:
            epilogue(out[a:b])

    run(share, pieces(n, n * size * c * o * len(offs)))
    return out


def _wide(dy, padded, valid, lead: int = 0):
    """dy placed on the wide grid, zeros elsewhere, as rows ``[lead + N * prod(P), O]`` after
    ``lead`` rows of zeros (only the border is zeroed: ``valid`` is a leading corner of every
    axis)."""
    o = dy.shape[-1]
    rows = np.empty((lead + dy.shape[0] * math.prod(padded), o), dy.dtype)
    rows[:lead] = 0
    dyw = rows[lead:].reshape(dy.shape[0], *padded, o)
    dyw[(slice(None), *valid)] = dy
    for d, v in enumerate(valid):
        dyw[(slice(None),) + valid[:d] + (slice(v.stop, None),)] = 0
    return rows


def backprop_filter(xp, w_shape, dy, dilations):
    """Filter gradient of the stride-1 convolution of padded ``xp``.

    Args:
        xp: padded input ``[N, *P, C]``.
        w_shape: ``[*k, C, O]``.
        dy: ``[N, *out, O]``.
        dilations: per spatial dim.

    Returns:
        ``[*k, C, O]``.
    """
    ksize, c, o = tuple(w_shape[:-2]), w_shape[-2], w_shape[-1]
    n, padded = xp.shape[0], xp.shape[1:-1]
    offs, _, valid = _plan(padded, ksize, dilations)
    xp = np.ascontiguousarray(xp)
    dt = np.result_type(xp.dtype, dy.dtype)

    def share(ab):
        a, b = ab
        return _filter_products(xp[a:b].reshape(-1, c), _wide(dy[a:b], padded, valid), offs,
                                c, o, dt)

    parts = run(share, pieces(n, n * math.prod(padded) * c * o * len(offs)))
    return _sum_parts(parts, (len(offs), c, o), dt).reshape(w_shape)


def _filter_products(xa, dya, offs, c: int, o: int, dt) -> np.ndarray:
    """One piece's filter gradient ``[k, C, O]``: ``X[off_k:][:m].T @ dYwide[:m]`` per offset."""
    m = xa.shape[0] - offs[-1]
    dw = np.empty((len(offs), c, o), dt)
    if not blas.shifted_gemms_t(xa, offs, dya, dw, m, _chunk(c, o, dt.itemsize)):
        for k, off in enumerate(offs):
            np.matmul(xa[off:off + m].T, dya[:m], out=dw[k])
    return dw


def _sum_parts(parts: list, shape: tuple, dt) -> np.ndarray:
    """The pieces' filter gradients summed in piece order (zeros for an empty batch)."""
    total = parts[0] if parts else np.zeros(shape, dt)
    for p in parts[1:]:
        total += p
    return total


def backprop_input(padded_shape, w, dy, dilations):
    """Input gradient (in padded coordinates) of the stride-1 convolution.

    Args:
        padded_shape: the padded input's shape ``[N, *P, C]``.
        w: ``[*k, C, O]``.
        dy: ``[N, *out, O]``.
        dilations: per spatial dim.

    Returns:
        ``[N, *P, C]``: the caller crops the padding.
    """
    ksize, (c, o) = w.shape[:-2], w.shape[-2:]
    n, padded = padded_shape[0], tuple(padded_shape[1:-1])
    offs, _, valid = _plan(padded, ksize, dilations)
    wt = np.ascontiguousarray(w.reshape(-1, c, o).transpose(0, 2, 1))   # [k, O, C]
    dt = np.result_type(w.dtype, dy.dtype)
    dx = np.empty((n, *padded, c), dt)
    last = offs[-1]

    def share(ab):
        a, b = ab
        _input_products(_wide(dy[a:b], padded, valid, last), dx[a:b].reshape(-1, c), offs, wt,
                        c, o, dt)

    run(share, pieces(n, n * math.prod(padded) * c * o * len(offs)))
    return dx


def _input_products(dya, dxa, offs, wt, c: int, o: int, dt) -> None:
    """One piece's input gradient rows ``dxa``.

    dX[q] = sum_k dY[q - off_k] @ W[k].T: dy's wide rows after ``last`` rows of zeros (the
    trailing ``last`` rows of every image are zeros too), so every row of dX is one sum of
    products in filter order, computed as the forward pass computes its rows."""
    last, m = offs[-1], dxa.shape[0]
    if not blas.shifted_gemms(dya, [last - off for off in offs], wt, dxa, [0] * len(offs),
                              m, 0, _chunk(c, o, dt.itemsize)):
        np.matmul(dya[last:last + m], wt[0], out=dxa)
        tmp = np.empty((m, c), dt)
        for k in range(1, len(offs)):
            np.matmul(dya[last - offs[k]:last - offs[k] + m], wt[k], out=tmp)
            np.add(dxa, tmp, out=dxa)


def backprop_both(xp, w, dy, dilations, epilogue=None) -> tuple:
    """``backprop_input`` and ``backprop_filter`` of one convolution at once, bit for bit: one
    wide copy of dy per piece serves both gradients (the input gradient reads it after its
    ``last`` rows of zeros, the filter gradient from there), and the pieces go to the threads
    once instead of twice.

    Args:
        xp: the padded input ``[N, *P, C]``.
        w: ``[*k, C, O]``.
        dy: ``[N, *out, O]``.
        dilations: per spatial dim.
        epilogue: None, or ``epilogue(a, b, piece)`` called on each piece ``dx[a:b]`` of the
            input gradient (padded coordinates) once it is made, while it is in cache.

    Returns:
        (input gradient in padded coordinates ``[N, *P, C]``, filter gradient ``[*k, C, O]``).
    """
    ksize, (c, o) = w.shape[:-2], w.shape[-2:]
    n, padded = xp.shape[0], xp.shape[1:-1]
    offs, _, valid = _plan(padded, ksize, dilations)
    xp = np.ascontiguousarray(xp)
    wt = np.ascontiguousarray(w.reshape(-1, c, o).transpose(0, 2, 1))   # [k, O, C]
    dt = np.result_type(w.dtype, dy.dtype)
    dtw = np.result_type(xp.dtype, dy.dtype)
    dx = np.empty(xp.shape, dt)
    last = offs[-1]

    def share(ab):
        a, b = ab
        dya = _wide(dy[a:b], padded, valid, last)
        dxa = dx[a:b].reshape(-1, c)
        _input_products(dya, dxa, offs, wt, c, o, dt)
        if epilogue is not None:
            epilogue(a, b, dx[a:b])
        xa = xp[a:b].reshape(-1, c)
        return _filter_products(xa, dya[last:], offs, c, o, dtw)

    parts = run(share, pieces(n, n * math.prod(padded) * c * o * len(offs)))
    return dx, _sum_parts(parts, (len(offs), c, o), dtw).reshape(*ksize, c, o)
