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
Large batches are split over the intra-op thread pool; the products run with BLAS on one
thread (``core.blas.single_threaded``).
"""
from __future__ import annotations

import itertools

import numpy as np

from ...core import blas
from ...core.parallel import intra_threads, run_parallel

# Below this many multiply-adds (~5 ms of one core) a convolution stays on the calling thread:
# handing work to a pool thread costs a GIL switch (up to 5 ms when the cores are busy).
PARALLEL_MIN_FLOPS = 1 << 27


def _plan(padded_sp, ksize, dilations) -> tuple:
    el = [1] * len(padded_sp)
    for d in range(len(padded_sp) - 2, -1, -1):
        el[d] = el[d + 1] * padded_sp[d + 1]
    offs = [sum(o * dl * e for o, dl, e in zip(offs, dilations, el))
            for offs in itertools.product(*(range(k) for k in ksize))]
    out_sp = tuple(p - (k - 1) * dl for p, k, dl in zip(padded_sp, ksize, dilations))
    valid = tuple(slice(0, o) for o in out_sp)
    return offs, out_sp, valid


def _shares(n: int, flops: int) -> list:
    t = min(n, intra_threads()) if flops >= PARALLEL_MIN_FLOPS else 1
    step = -(-n // t)
    return [(a, min(a + step, n)) for a in range(0, n, step)]


def _run(fn, shares: list) -> list:
    # BLAS on one thread either way: these products are thin, and its spinning threads cost
    # more than they bring (ten times more on a loaded machine)
    with blas.single_threaded():
        return [fn(shares[0])] if len(shares) == 1 else run_parallel(fn, shares)


def conv(xp, w, dilations):
    """Stride-1 convolution of the padded input.

    Args:
        xp: padded input ``[N, *P, C]``.
        w: ``[*k, C, O]``.
        dilations: per spatial dim.

    Returns:
        ``[N, *out, O]``.
    """
    ksize, (c, o) = w.shape[:-2], w.shape[-2:]
    n, padded = xp.shape[0], xp.shape[1:-1]
    offs, out_sp, valid = _plan(padded, ksize, dilations)
    xp = np.ascontiguousarray(xp)
    wk = np.ascontiguousarray(w.reshape(-1, c, o))
    out = np.empty((n, *out_sp, o), np.result_type(xp.dtype, w.dtype))
    size = int(np.prod(padded))

    def share(ab):
        a, b = ab
        xa = xp[a:b].reshape(-1, c)
        m = xa.shape[0] - offs[-1]
        y = np.empty((xa.shape[0], o), out.dtype)
        # y[:m] = sum_k X[off_k:][:m] @ W[k], accumulated in place
        if not blas.shifted_gemms(xa, offs, wk, y, [0] * len(offs), m, 0):
            np.matmul(xa[offs[0]:offs[0] + m], wk[0], out=y[:m])
            tmp = np.empty((m, o), out.dtype)
            for k in range(1, len(offs)):
                np.matmul(xa[offs[k]:offs[k] + m], wk[k], out=tmp)
                np.add(y[:m], tmp, out=y[:m])
        out[a:b] = y.reshape(b - a, *padded, o)[(slice(None), *valid)]

    _run(share, _shares(n, n * size * c * o * len(offs)))
    return out


def _wide(dy, padded, valid):
    dyw = np.zeros((dy.shape[0], *padded, dy.shape[-1]), dy.dtype)
    dyw[(slice(None), *valid)] = dy
    return dyw.reshape(-1, dy.shape[-1])


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
        xa = xp[a:b].reshape(-1, c)
        dya = _wide(dy[a:b], padded, valid)
        m = xa.shape[0] - offs[-1]
        dw = np.empty((len(offs), c, o), dt)
        for k, off in enumerate(offs):
            np.matmul(xa[off:off + m].T, dya[:m], out=dw[k])
        return dw

    parts = _run(share, _shares(n, n * int(np.prod(padded)) * c * o * len(offs)))
    total = parts[0]
    for p in parts[1:]:
        total += p
    return total.reshape(w_shape)


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
    dx = np.zeros((n, *padded, c), dt)

    def share(ab):
        a, b = ab
        dya = _wide(dy[a:b], padded, valid)
        dxa = dx[a:b].reshape(-1, c)
        m = dxa.shape[0] - offs[-1]
        # dX[off_k:][:m] += dY[:m] @ W[k].T, accumulated in place
        if not blas.shifted_gemms(dya, [0] * len(offs), wt, dxa, offs, m, 1):
            tmp = np.empty((m, c), dt)
            for k, off in enumerate(offs):
                np.matmul(dya[:m], wt[k], out=tmp)
                np.add(dxa[off:off + m], tmp, out=dxa[off:off + m])

    _run(share, _shares(n, n * int(np.prod(padded)) * c * o * len(offs)))
    return dx
