"""Rows for a short last axis: how many whole copies of a short trailing axis (a bias over 16
channels) make one long row, so that NumPy's inner loops run over the row instead of 16
elements at a time (2-3x faster). One rule for the eager kernels (``ops/fast_elementwise``)
and the fused blocks of compiled graphs (``compiler/fused_codegen``).
"""
from __future__ import annotations

import functools

# trailing axes of at most SHORT_MAX elements; rows of at most ROW_MAX elements (the tiled row
# stays in L1/L2) and at least ROW_MIN (shorter ones gain nothing measurable)
SHORT_MAX = 64
ROW_MAX = 16384
ROW_MIN = 256


@functools.lru_cache(maxsize=1024)
def row_length(outer: tuple, short: int) -> int:
    """The row length of a short operand's rows (``ops/fast_elementwise.short_axis_binary``,
    fused blocks): the big operand is ``outer`` positions (its
    leading axes) of ``short`` elements each, the short operand repeats at every position.

    Args:
        outer: the big operand's axes the short one broadcasts along.
        short: the short operand's size.

    Returns:
        ``L = short * k``, with ``k`` whole positions (a divisor of their count), at most
        ``ROW_MAX`` and at least ``ROW_MIN`` elements; 0 when there is none (the trick does
        not apply).
    """
    count = 1
    for d in outer:
        count *= d
    if count <= 0 or short <= 0:   # (an empty array: nothing to tile)
        return 0
    cap = ROW_MAX // short
    k = 1
    for d in reversed(outer):   # whole trailing axes first: the common case, no search
        if k * d > cap:
            break
        k *= d
    if short * k < ROW_MIN:     # else the largest divisor of the count that fits
        k = next(j for j in range(min(cap, count), 0, -1) if count % j == 0)
    return short * k if k > 1 and short * k >= ROW_MIN else 0
