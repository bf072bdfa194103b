"""Convolution and pooling kernels: plain NumPy functions of arrays, channels-last, any number
of spatial dimensions (1, 2 or 3).

Shapes: ``x`` is ``[N, *spatial, C]``; a filter is ``[*k, C_in / groups, O]``; ``strides``,
``dilations`` are tuples with one entry per spatial dimension; ``pads`` is one
``(before, after)`` pair per spatial dimension (``geometry`` computes them from TensorFlow's
``"SAME"``/``"VALID"``/explicit padding).

How they are fast without a Python loop over output positions or windows:

* A convolution is an **im2col** product: a strided view (``sliding_window_view``) of the
  padded input gives every window without copying; one reshape copies them into a
  ``[positions, k * C]`` matrix and one BLAS product with the ``[k * C, O]`` filter does the
  rest. Batches are processed in blocks (``BLOCK_BYTES`` of columns), which keeps the column
  matrix in cache and bounds the memory a convolution allocates.
  With few input channels (``COLUMNS_T_MAX_CHANNELS``) the matrix is built transposed,
  ``[k * C, positions]``: one copy per filter offset whose inner runs go along the output
  width (whole rows for C = 1) instead of C elements at a time, 2x faster to make.
* The filter gradient is the same column matrix transposed times ``dy``.
* The input gradient multiplies ``dy`` by the filter first (``[positions, O] @ [O, k * C]``,
  the fast orientation for OpenBLAS when O is small) and then adds the ``prod(k)`` column
  slices back onto the input: one vectorized add per *filter offset* (9 for a 3x3 filter), each
  over the whole batch.
* Pools reduce over the same per-offset strided slices (``np.maximum``/``np.add`` in place);
  the max-pool gradient finds each window's first maximum once and scatters ``dy`` to it with
  one ``np.bincount`` (windows may overlap).
* Depthwise convolutions are grouped convolutions with one input channel per group: one
  multiply-add per filter offset over all channels at once.
"""
from __future__ import annotations

import itertools
import math

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from ...core import blas
from ..core import via_float32
from . import conv_shift

# Column matrices up to about this size are made per block of the batch.
BLOCK_BYTES = 1 << 22
# Stride-1 convolutions with at least this many input channels use the shifted products of
# ``conv_shift`` (no column matrix); with fewer, each product would be too thin.
SHIFT_MIN_CHANNELS = 8
# With at most this many input channels the column matrix is built transposed (above).
COLUMNS_T_MAX_CHANNELS = 3


def out_size(size: int, k: int, stride: int, dilation: int, padding: str,
             explicit: tuple | None = None) -> tuple:
    """(output size, pad before, pad after) of one spatial dimension.

    Args:
        size: input size.
        k: filter/window size.
        stride: the stride.
        dilation: the dilation.
        padding: ``"SAME"``, ``"VALID"`` or ``"EXPLICIT"``.
        explicit: ``(before, after)`` for ``"EXPLICIT"``.

    Returns:
        The triple; the output size is negative when the window does not fit.
    """
    eff = (k - 1) * dilation + 1
    if padding == "SAME":
        out = -(-size // stride)
        total = max((out - 1) * stride + eff - size, 0)
        return out, total // 2, total - total // 2
    before, after = explicit if padding == "EXPLICIT" else (0, 0)
    span = size + before + after - eff
    return (span // stride + 1 if span >= 0 else -1), before, after


def geometry(in_spatial, ksize, strides, dilations, padding: str, explicit=None) -> tuple:
    """Output spatial shape and pads of a convolution or pool.

    Args:
        in_spatial: the input's spatial sizes.
        ksize: filter/window sizes.
        strides: strides.
        dilations: dilations.
        padding: ``"SAME"``, ``"VALID"`` or ``"EXPLICIT"``.
        explicit: one ``(before, after)`` pair per spatial dimension for ``"EXPLICIT"``.

    Returns:
        (output spatial sizes, pads).
    """
    out, pads = [], []
    for d, (s, k, st, dl) in enumerate(zip(in_spatial, ksize, strides, dilations)):
        o, b, a = out_size(s, k, st, dl, padding, explicit[d] if explicit else None)
        out.append(o)
        pads.append((b, a))
    return tuple(out), tuple(pads)


def _pad(x, pads, value=0):
    if not any(b or a for b, a in pads):
        return x
    return np.pad(x, ((0, 0), *pads, (0, 0)), constant_values=value)


def _offset_slices(ksize, strides, dilations, out_sp):
    """For each filter offset (row-major): the index of its input element in every window."""
    for offs in itertools.product(*(range(k) for k in ksize)):
        yield (slice(None),) + tuple(
            slice(o * d, o * d + (n - 1) * s + 1, s)
            for o, d, s, n in zip(offs, dilations, strides, out_sp))


def _windows(xp, ksize, strides, dilations, out_sp):
    """``[N, *out, C, *k]`` strided view of the windows of the padded input ``xp``."""
    r = len(ksize)
    eff = tuple((k - 1) * d + 1 for k, d in zip(ksize, dilations))
    v = sliding_window_view(xp, eff, axis=tuple(range(1, r + 1)))
    idx = (slice(None),) + tuple(slice(None, (n - 1) * s + 1, s) for n, s in zip(out_sp, strides))
    idx += (slice(None),) + tuple(slice(None, None, d) for d in dilations)
    return v[idx]


def _columns(win):
    """The ``[N * prod(out), prod(k) * C]`` column matrix of a window view (one copy)."""
    r = (win.ndim - 2) // 2
    perm = (0, *range(1, r + 1), *range(r + 2, 2 * r + 2), r + 1)
    t = win.transpose(perm)
    return t.reshape(-1, int(np.prod(t.shape[r + 1:])))


def _columns_t(xp, ksize, strides, dilations, out_sp):
    """The transposed column matrix ``[prod(k) * C, N * prod(out)]`` of the padded input."""
    n, c, r = xp.shape[0], xp.shape[-1], len(ksize)
    # channels first once (no copy for C = 1), so that the copy reads rows along the width
    # instead of every C-th element (C = 3: 190 against 275 us for 32 28x28 images), and one
    # copy of the whole strided view: a NumPy call per filter offset would hand the GIL back
    # and forth with the other threads' pieces (each wake-up costs tens of us)
    xt = np.ascontiguousarray(np.moveaxis(xp, -1, 0)).reshape(c * n, *xp.shape[1:-1], 1)
    win = _windows(xt, ksize, strides, dilations, out_sp)     # [C * N, *out, 1, *k]
    win = win.reshape(c, n, *out_sp, *ksize)
    cols = np.empty((*ksize, c, n, *out_sp), xp.dtype)
    np.copyto(cols, win.transpose(*range(r + 2, 2 * r + 2), *range(r + 2)))
    return cols.reshape(int(np.prod(ksize)) * c, -1)


def _column_source(x, ksize, strides, dilations, pads, out_sp):
    """``cols(a, b)``: the ``[positions, prod(k) * C]`` column matrix of batch items a:b (for
    few channels a transposed view of ``_columns_t``'s matrix)."""
    xp = _pad(x, pads)
    if x.shape[-1] <= COLUMNS_T_MAX_CHANNELS:
        return lambda a, b: _columns_t(xp[a:b], ksize, strides, dilations, out_sp).T
    win = _windows(xp, ksize, strides, dilations, out_sp)
    return lambda a, b: _columns(win[a:b])


def _thin_rows(k: int, o: int, itemsize: int) -> int:
    """Rows per group for a thin product (``k + o <= THIN_MAX``) of a column matrix, else 0.

    OpenBLAS packs a tall thin operand slowly when it does not stay in cache: by groups of
    rows of ``conv_shift.CHUNK_BYTES``, the seed 004 first layer's ``[21632, 9] @ [9, 16]``
    took 74 instead of 119 µs and its filter gradient ``[9, 21632] @ [21632, 16]`` 94 instead
    of 127; with ``k + o`` of 91 or more, groups were 5-13% slower (``/tmp/chunkshapes.py``).
    """
    return conv_shift.CHUNK_BYTES // ((k + o) * itemsize) if k + o <= THIN_MAX else 0


THIN_MAX = 80


def _rows_product(x, w, out) -> None:
    """``out = x @ w`` (``x`` ``[M, K]``), by groups of rows when the product is thin (each
    row computed the same way)."""
    rows = _thin_rows(*w.shape, out.itemsize)
    if not rows or x.shape[0] <= rows:
        np.matmul(x, w, out=out)
        return
    for s in range(0, x.shape[0], rows):
        np.matmul(x[s:s + rows], w, out=out[s:s + rows])


def _summed_product(xt, dy):
    """``xt @ dy`` (``xt`` ``[K, M]``, ``dy`` ``[M, O]``): a filter gradient, summed over groups
    of rows of ``dy`` in order when the product is thin."""
    rows = _thin_rows(xt.shape[0], dy.shape[1], dy.itemsize)
    if not rows or dy.shape[0] <= rows:
        return xt @ dy
    acc = xt[:, :rows] @ dy[:rows]
    for s in range(rows, dy.shape[0], rows):
        acc += xt[:, s:s + rows] @ dy[s:s + rows]
    return acc


def shares_columns(x_shape, w_shape, strides, dilations, pads, itemsize: int) -> bool:
    """Whether a convolution of these static shapes builds its transposed column matrix once,
    in one block and one piece, in ``conv`` and again in ``conv_backprop_filter``: then
    ``columns``, ``conv_from_columns`` and ``filter_from_columns`` give both the same bits
    with the matrix made once (``_Conv2DColumns``, made by ``compiler/remap.py``).

    Args:
        x_shape: the input's shape ``[N, *spatial, C]``.
        w_shape: the filter's shape ``[*k, C, O]``.
        strides: per spatial dim.
        dilations: per spatial dim.
        pads: ``(before, after)`` per spatial dim.
        itemsize: the bytes of one element.

    Returns:
        True when the three functions apply.
    """
    ksize, c, o = tuple(w_shape[:-2]), w_shape[-2], w_shape[-1]
    n = x_shape[0]
    if c > COLUMNS_T_MAX_CHANNELS or not n or all(k == 1 for k in ksize) and all(
            s == 1 for s in strides) and not any(b or a for b, a in pads):
        return False
    out_sp, _ = _out_from_pads(tuple(x_shape[1:-1]), ksize, strides, dilations, pads)
    if min(out_sp) <= 0:
        return False
    per_item = math.prod(out_sp) * math.prod(ksize) * c
    return len(_batch_blocks(n, per_item * itemsize)) == 1 and \
        len(conv_shift.pieces(n, n * per_item * o)) == 1


def columns(x, ksize, strides, dilations, pads) -> np.ndarray:
    """The transposed column matrix ``[prod(k) * C, N * prod(out)]`` of ``x`` (see
    ``shares_columns``)."""
    out_sp, _ = _out_from_pads(x.shape[1:-1], tuple(ksize), strides, dilations, pads)
    return _columns_t(_pad(x, pads), tuple(ksize), strides, dilations, out_sp)


def conv_from_columns(cols, w, out_shape, epilogue=None) -> np.ndarray:
    """``conv`` from the matrix of ``columns`` (one block: the same products, the same bits).

    Args:
        cols: ``columns(x, ...)``.
        w: ``[*k, C, O]``.
        out_shape: the result's shape ``[N, *out, O]``.
        epilogue: as in ``conv``.

    Returns:
        The convolution.
    """
    out = np.empty(out_shape, np.result_type(cols.dtype, w.dtype))
    with blas.single_threaded():   # (as ``conv``'s products: no spinning BLAS threads after)
        _rows_product(cols.T, w.reshape(-1, w.shape[-1]), out.reshape(-1, w.shape[-1]))
    if epilogue is not None:
        epilogue(out)
    return out


def filter_from_columns(cols, w_shape, dy) -> np.ndarray:
    """``conv_backprop_filter`` from the matrix of ``columns`` (the same bits).

    Args:
        cols: ``columns(x, ...)``.
        w_shape: ``[*k, C, O]``.
        dy: ``[N, *out, O]``.

    Returns:
        ``[*k, C, O]``.
    """
    with blas.single_threaded():
        return _summed_product(cols, dy.reshape(-1, w_shape[-1])).reshape(w_shape)


def _batch_blocks(n: int, per_item_bytes: int):
    step = max(1, BLOCK_BYTES // max(per_item_bytes, 1))
    return [(i, min(i + step, n)) for i in range(0, n, step)]


@via_float32  # bfloat16 computes in float32
def conv(x, w, strides, dilations, pads, epilogue=None):
    """N-d convolution (cross-correlation, as TensorFlow's ``Conv2D``/``Conv3D``).

    Args:
        x: ``[N, *spatial, C]``.
        w: ``[*k, C, O]``.
        strides: per spatial dim.
        dilations: per spatial dim.
        pads: ``(before, after)`` per spatial dim.
        epilogue: None, or a function applied in place to each batch piece of the result
            (``[b, *out, O]``) as soon as it is computed, while it is in cache (the bias and
            relu of ``_FusedConv2D``); elementwise, so the pieces do not change its bits.

    Returns:
        ``[N, *out, O]`` of ``x``'s dtype.
    """
    ksize, (c, o) = w.shape[:-2], w.shape[-2:]
    n = x.shape[0]
    out_sp, _ = _out_from_pads(x.shape[1:-1], ksize, strides, dilations, pads)
    w2 = w.reshape(-1, o)
    if all(k == 1 for k in ksize) and all(s == 1 for s in strides) and not any(
            b or a for b, a in pads):
        out = (x.reshape(-1, c) @ w2).reshape(n, *out_sp, o)
        if epilogue is not None:
            epilogue(out)
        return out
    if all(s == 1 for s in strides) and c >= SHIFT_MIN_CHANNELS:
        return conv_shift.conv(_pad(x, pads), w, dilations, epilogue)
    cols = _column_source(x, ksize, strides, dilations, pads, out_sp)
    out = np.empty((n, *out_sp, o), dtype=np.result_type(x.dtype, w.dtype))
    per_item = int(np.prod(out_sp)) * w2.shape[0]

    def block(ab):
        a, b = ab
        _rows_product(cols(a, b), w2, out[a:b].reshape(-1, o))
        if epilogue is not None:
            epilogue(out[a:b])

    _blocks(block, n, per_item * x.itemsize, per_item * o)
    return out


def _blocks(fn, n: int, per_item_bytes: int, flops: int) -> list:
    """``[fn(block) for block in batch blocks]``: the batch cut into ``conv_shift.pieces``
    (shared over the thread pool), each piece into blocks of about ``BLOCK_BYTES`` columns."""
    def piece(ab):
        lo, hi = ab
        return [fn((lo + a, lo + b)) for a, b in _batch_blocks(hi - lo, per_item_bytes)]

    parts = conv_shift.run(piece, conv_shift.pieces(n, n * flops))
    return [p for part in parts for p in part]


def _out_from_pads(in_sp, ksize, strides, dilations, pads):
    out = tuple((s + b + a - ((k - 1) * d + 1)) // st + 1
                for s, k, st, d, (b, a) in zip(in_sp, ksize, strides, dilations, pads))
    return out, pads


@via_float32  # bfloat16 computes in float32
def conv_backprop_filter(x, w_shape, dy, strides, dilations, pads):
    """Gradient of ``conv`` with respect to its filter.

    Args:
        x: the convolution's input ``[N, *spatial, C]``.
        w_shape: the filter's shape ``[*k, C, O]``.
        dy: the gradient of the output ``[N, *out, O]``.
        strides: per spatial dim.
        dilations: per spatial dim.
        pads: ``(before, after)`` per spatial dim.

    Returns:
        ``[*k, C, O]``.
    """
    ksize, o = tuple(w_shape[:-2]), w_shape[-1]
    n = x.shape[0]
    out_sp = dy.shape[1:-1]
    if all(s == 1 for s in strides) and x.shape[-1] > COLUMNS_T_MAX_CHANNELS:
        return conv_shift.backprop_filter(_pad(x, pads), w_shape, dy, dilations)
    cols = _column_source(x, ksize, strides, dilations, pads, out_sp)
    per_item = int(np.prod(out_sp)) * int(np.prod(w_shape[:-1]))

    def block(ab):
        a, b = ab
        return _summed_product(cols(a, b).T, dy[a:b].reshape(-1, o))

    parts = _blocks(block, n, per_item * x.itemsize, per_item * o)
    if not parts:   # an empty batch
        return np.zeros(w_shape, np.result_type(x.dtype, dy.dtype))
    acc = parts[0]
    for part in parts[1:]:
        acc += part
    return acc.reshape(w_shape)


@via_float32  # bfloat16 computes in float32
def conv_backprop_input(in_shape, w, dy, strides, dilations, pads):
    """Gradient of ``conv`` with respect to its input (also the transposed convolution).

    Args:
        in_shape: the input's shape ``[N, *spatial, C]``.
        w: the filter ``[*k, C, O]``.
        dy: ``[N, *out, O]``.
        strides: per spatial dim.
        dilations: per spatial dim.
        pads: ``(before, after)`` per spatial dim.

    Returns:
        ``[N, *spatial, C]``.
    """
    ksize = w.shape[:-2]
    out_sp = dy.shape[1:-1]
    in_sp = tuple(in_shape[1:-1])
    # The input gradient is a "full" correlation of dy (zeros inserted between its elements
    # for strides > 1) with the flipped filter, its channel axes swapped: one im2col product.
    lp, rp = _full_pads(in_sp, ksize, strides, dilations, out_sp, pads)
    # With few input channels the scatter is cheaper (its product is [positions, O] @ [O, k*C]).
    if min(lp + rp) < 0 or 4 * w.shape[-2] < w.shape[-1] or w.shape[-2] < SHIFT_MIN_CHANNELS:
        return _backprop_input_scatter(in_shape, w, dy, strides, dilations, pads)
    if all(s == 1 for s in strides):
        padded = (in_shape[0], *(n + b + a for n, (b, a) in zip(in_sp, pads)), in_shape[-1])
        dxp = conv_shift.backprop_input(padded, w, dy, dilations)
        return dxp[_crop(in_sp, pads)]
    if any(s > 1 for s in strides):
        dil = np.zeros((dy.shape[0], *((m - 1) * s + 1 for m, s in zip(out_sp, strides)),
                        dy.shape[-1]), dy.dtype)
        dil[(slice(None),) + tuple(slice(None, None, s) for s in strides)] = dy
        dy = dil
    wf = w[tuple(slice(None, None, -1) for _ in ksize)].swapaxes(-1, -2)
    return conv(dy, wf, (1,) * len(ksize), dilations, tuple(zip(lp, rp)))


def _full_pads(in_sp, ksize, strides, dilations, out_sp, pads) -> tuple:
    """The pads (before, after) of dy's "full" correlation that gives the input gradient."""
    lp, rp = [], []
    for n, k, s, d, m, (b, a) in zip(in_sp, ksize, strides, dilations, out_sp, pads):
        eff = (k - 1) * d + 1
        rem = n + b + a - ((m - 1) * s + eff)
        lp.append(eff - 1 - b)
        rp.append(eff - 1 - a + rem)
    return lp, rp


@via_float32  # bfloat16 computes in float32
def conv_backprop_both(x, w, dy, strides, dilations, pads, epilogue=None) -> tuple:
    """``(conv_backprop_input(x.shape, w, ...), conv_backprop_filter(x, w.shape, ...))``, bit
    for bit; when both take the shifted products (stride 1, enough channels), one wide copy of
    dy and one hand-off to the threads serve both (``conv_shift.backprop_both``).

    Args:
        x: the convolution's input ``[N, *spatial, C]``.
        w: the filter ``[*k, C, O]``.
        dy: ``[N, *out, O]``.
        strides: per spatial dim.
        dilations: per spatial dim.
        pads: ``(before, after)`` per spatial dim.
        epilogue: None, or ``epilogue(a, b, piece)``, elementwise and in place, applied to the
            input gradient: to each batch piece ``[a:b]`` as it is made, or to the whole.

    Returns:
        (input gradient, filter gradient).
    """
    ksize, (c, o) = w.shape[:-2], w.shape[-2:]
    in_sp = x.shape[1:-1]
    lp, rp = _full_pads(in_sp, ksize, strides, dilations, dy.shape[1:-1], pads)
    crop = _crop(in_sp, pads)
    if all(s == 1 for s in strides) and c > COLUMNS_T_MAX_CHANNELS and c >= SHIFT_MIN_CHANNELS \
            and 4 * c >= o and min(lp + rp) >= 0:
        dxp, dw = conv_shift.backprop_both(
            _pad(x, pads), w, dy, dilations,
            None if epilogue is None else lambda a, b, piece: epilogue(a, b, piece[crop]))
        return dxp[crop], dw
    dx = conv_backprop_input.__wrapped__(x.shape, w, dy, strides, dilations, pads)
    if epilogue is not None:
        dx = dx if dx.flags.writeable else dx.copy()   # (a fresh array: changed in place)
        epilogue(0, x.shape[0], dx)
    return dx, conv_backprop_filter.__wrapped__(x, w.shape, dy, strides, dilations, pads)


def _backprop_input_scatter(in_shape, w, dy, strides, dilations, pads):
    """``conv_backprop_input`` by adding window columns back, one add per filter offset (for
    explicit paddings larger than the filter)."""
    ksize, (c, o) = w.shape[:-2], w.shape[-2:]
    out_sp = dy.shape[1:-1]
    dt = np.result_type(w.dtype, dy.dtype)
    # dy @ w^T gives, per output position, the contribution to each (offset, channel) of its
    # window: [N, *out, prod(k), C].
    with blas.single_threaded():
        cols = (dy.reshape(-1, o) @ w.reshape(-1, o).T).reshape(
            dy.shape[0], *out_sp, int(np.prod(ksize)), c)
    return _scatter_windows(in_shape, c, dt, ksize, strides, dilations, out_sp, pads,
                            lambda k: cols[..., k, :])


def _crop(in_sp, pads) -> tuple:
    """The index that takes the unpadded input back out of a padded ``[N, *spatial, C]``."""
    return (slice(None),) + tuple(slice(b, b + n) for n, (b, _) in zip(in_sp, pads))


def _scatter_windows(in_shape, c, dtype, ksize, strides, dilations, out_sp, pads, window_grad):
    """An input gradient ``[N, *spatial, C]`` built by adding ``window_grad(k)`` (the gradient
    of every window at filter offset k, ``[N, *out, C]``) into the padded input, then cropping."""
    padded = [s + b + a for s, (b, a) in zip(in_shape[1:-1], pads)]
    acc = np.zeros((in_shape[0], *padded, c), dtype=dtype)
    for k, sl in enumerate(_offset_slices(ksize, strides, dilations, out_sp)):
        target = acc[sl]
        np.add(target, window_grad(k), out=target)
    return acc[_crop(in_shape[1:-1], pads)]


# ----- depthwise (one group per input channel) -----------------------------------------------

@via_float32  # bfloat16 computes in float32
def depthwise_conv(x, w, strides, dilations, pads):
    """Depthwise convolution (TensorFlow's ``DepthwiseConv2dNative``), any spatial rank.

    Args:
        x: ``[N, *spatial, C]``.
        w: ``[*k, C, M]`` (M = channel multiplier).
        strides: per spatial dim.
        dilations: per spatial dim.
        pads: ``(before, after)`` per spatial dim.

    Returns:
        ``[N, *out, C * M]``; output channel ``c * M + m`` is input channel c with filter m.
    """
    ksize, (c, m) = w.shape[:-2], w.shape[-2:]
    out_sp, _ = _out_from_pads(x.shape[1:-1], ksize, strides, dilations, pads)
    xp = _pad(x, pads)
    dt = np.result_type(x.dtype, w.dtype)
    acc = np.zeros((x.shape[0], *out_sp, c, m), dtype=dt)
    tmp = np.empty_like(acc)
    wk = w.reshape(-1, c, m)
    for k, sl in enumerate(_offset_slices(ksize, strides, dilations, out_sp)):
        np.multiply(xp[sl][..., None], wk[k], out=tmp)
        acc += tmp
    return acc.reshape(*acc.shape[:-2], c * m)


@via_float32  # bfloat16 computes in float32
def depthwise_backprop_input(in_shape, w, dy, strides, dilations, pads):
    """Gradient of ``depthwise_conv`` with respect to its input.

    Args:
        in_shape: ``[N, *spatial, C]``.
        w, strides, dilations, pads: as for ``depthwise_conv``.
        dy: ``[N, *out, C * M]``.

    Returns:
        ``[N, *spatial, C]``.
    """
    ksize, (c, m) = w.shape[:-2], w.shape[-2:]
    out_sp = dy.shape[1:-1]
    dy4 = dy.reshape(*dy.shape[:-1], c, m)
    dt = np.result_type(w.dtype, dy.dtype)
    wk = w.reshape(-1, c, m)
    return _scatter_windows(
        in_shape, c, dt, ksize, strides, dilations, out_sp, pads,
        lambda k: (dy4 * wk[k]).sum(axis=-1) if m > 1 else dy4[..., 0] * wk[k, :, 0])


@via_float32  # bfloat16 computes in float32
def depthwise_backprop_filter(x, w_shape, dy, strides, dilations, pads):
    """Gradient of ``depthwise_conv`` with respect to its filter.

    Args:
        x: ``[N, *spatial, C]``.
        w_shape: ``[*k, C, M]``.
        dy, strides, dilations, pads: as for ``depthwise_backprop_input``.

    Returns:
        ``[*k, C, M]``.
    """
    ksize, (c, m) = tuple(w_shape[:-2]), tuple(w_shape[-2:])
    out_sp = dy.shape[1:-1]
    dy4 = dy.reshape(-1, c, m)
    xp = _pad(x, pads)
    out = np.empty((int(np.prod(ksize)), c, m), dtype=np.result_type(x.dtype, dy.dtype))
    for k, sl in enumerate(_offset_slices(ksize, strides, dilations, out_sp)):
        xs = xp[sl].reshape(-1, c)
        # sum over positions of x[pos, c] * dy[pos, c, m]: one batched product over channels
        out[k] = np.einsum("pc,pcm->cm", xs, dy4)
    return out.reshape(w_shape)


# ----- pooling ----------------------------------------------------------------------------------

def _pool_fill(dtype):
    return -np.inf if dtype.kind in "fV" else np.iinfo(dtype).min  # (V: bfloat16)


def max_pool(x, ksize, strides, pads):
    """Maximum over windows.

    Args:
        x: ``[N, *spatial, C]``.
        ksize: window sizes.
        strides: per spatial dim.
        pads: ``(before, after)`` per spatial dim (padding never wins).

    Returns:
        ``[N, *out, C]``.
    """
    ones = (1,) * len(ksize)
    out_sp, _ = _out_from_pads(x.shape[1:-1], ksize, strides, ones, pads)
    xp = _pad(x, pads, _pool_fill(x.dtype))
    out = None
    for sl in _offset_slices(ksize, strides, ones, out_sp):
        out = xp[sl].copy() if out is None else np.maximum(out, xp[sl], out=out)
    return out


def max_pool_argmax(x, ksize, strides, pads):
    """Flat index (into the padded input) of each window's first maximum.

    Args:
        x: ``[N, *spatial, C]``.
        ksize, strides, pads: as for ``max_pool``.

    Returns:
        (int64 indices ``[N, *out, C]`` into the padded input, the padded input's shape).
    """
    ones = (1,) * len(ksize)
    out_sp, _ = _out_from_pads(x.shape[1:-1], ksize, strides, ones, pads)
    xp = _pad(x, pads, _pool_fill(x.dtype))
    best = idx = None
    for k, sl in enumerate(_offset_slices(ksize, strides, ones, out_sp)):
        v = xp[sl]
        if best is None:
            best = v.copy()
            idx = np.zeros(v.shape, np.int16 if len(ksize) and np.prod(ksize) < 32000
                           else np.int32)
        else:
            np.copyto(idx, k, where=v > best)   # strict: ties keep the first position
            np.maximum(best, v, out=best)
    # window offset number -> flat position in the padded input: window start + offset
    shape = xp.shape
    el = [1] * len(shape)
    for i in range(len(shape) - 2, -1, -1):
        el[i] = el[i + 1] * shape[i + 1]
    r = len(ksize)
    base = np.zeros((1,) * (r + 2), np.int64)
    axes = [np.arange(shape[0]) * el[0]]
    axes += [np.arange(n) * (s * e) for n, s, e in zip(out_sp, strides, el[1:-1])]
    axes.append(np.arange(shape[-1]))
    for d, a in enumerate(axes):
        base = base + a.reshape((1,) * d + (-1,) + (1,) * (r + 1 - d))
    koff = np.array([sum(o * e for o, e in zip(offs, el[1:-1]))
                     for offs in itertools.product(*(range(q) for q in ksize))], np.int64)
    return base + koff[idx], shape


def max_pool_grad(x, dy, ksize, strides, pads):
    """Routes each window's gradient to its first maximum (gradients of overlapping windows add).

    Args:
        x: the pool's input ``[N, *spatial, C]``.
        dy: ``[N, *out, C]``.
        ksize, strides, pads: as for ``max_pool``.

    Returns:
        ``[N, *spatial, C]`` of ``dy``'s dtype.
    """
    flat, pshape = max_pool_argmax(x, ksize, strides, pads)
    size = int(np.prod(pshape))
    if all(k <= s for k, s in zip(ksize, strides)):
        # windows do not overlap: every input position receives at most one gradient
        acc = np.zeros(size, dy.dtype)
        acc[flat.ravel()] = dy.ravel()
    else:
        acc = np.bincount(flat.ravel(), weights=dy.ravel(), minlength=size).astype(
            dy.dtype, copy=False)
    acc = acc.reshape(pshape)
    return acc[_crop(x.shape[1:-1], pads)]


def max_pool_grad_grad(x, g, ksize, strides, pads):
    """Picks, for each window, the input-shaped ``g`` at the window's first maximum.

    Args:
        x: the pool's input.
        g: input-shaped gradient.
        ksize, strides, pads: as for ``max_pool``.

    Returns:
        ``[N, *out, C]``.
    """
    flat, _ = max_pool_argmax(x, ksize, strides, pads)
    return _pad(g, pads).ravel()[flat]


def avg_counts(in_sp, ksize, strides, out_sp, pads, dtype):
    """How many real (unpadded) inputs each window covers, shaped ``[*out, 1]``."""
    total = np.ones((), dtype=np.int64)
    for size, k, s, n, (before, _) in zip(in_sp, ksize, strides, out_sp, pads):
        start = np.arange(n) * s - before
        cnt = np.minimum(start + k, size) - np.maximum(start, 0)
        total = np.multiply.outer(total, cnt)
    return total.astype(dtype)[..., None]


def avg_pool(x, ksize, strides, pads):
    """Mean over windows (padding not counted).

    Args:
        x: ``[N, *spatial, C]``.
        ksize, strides, pads: as for ``max_pool``.

    Returns:
        ``[N, *out, C]``.
    """
    ones = (1,) * len(ksize)
    out_sp, _ = _out_from_pads(x.shape[1:-1], ksize, strides, ones, pads)
    xp = _pad(x, pads)
    sums = None
    for sl in _offset_slices(ksize, strides, ones, out_sp):
        sums = xp[sl].copy() if sums is None else np.add(sums, xp[sl], out=sums)
    sums /= avg_counts(x.shape[1:-1], ksize, strides, out_sp, pads, x.dtype)
    return sums


def avg_pool_grad(in_shape, dy, ksize, strides, pads):
    """Spreads each window's gradient evenly over the inputs it averaged.

    Args:
        in_shape: the pool's input shape.
        dy: ``[N, *out, C]``.
        ksize, strides, pads: as for ``max_pool``.

    Returns:
        ``[N, *spatial, C]``.
    """
    ones = (1,) * len(ksize)
    out_sp = dy.shape[1:-1]
    g = dy / avg_counts(in_shape[1:-1], ksize, strides, out_sp, pads, dy.dtype)
    return _scatter_windows(in_shape, in_shape[-1], dy.dtype, ksize, strides, ones, out_sp, pads,
                            lambda k: g)


# ----- layouts ---------------------------------------------------------------------------------

def to_channels_last(x):
    """``[N, C, *spatial]`` -> ``[N, *spatial, C]`` (a view)."""
    return np.moveaxis(x, 1, -1)


def to_channels_first(x):
    """``[N, *spatial, C]`` -> ``[N, C, *spatial]`` (contiguous)."""
    return np.ascontiguousarray(np.moveaxis(x, -1, 1))
