"""CRC32C (Castagnoli), table-driven, and TFRecord's masked form.

The table is built with NumPy once; the loop runs over the bytes in Python, eight at a time
(slicing-by-8), which is plenty for record headers and the small records of tests and tools.
"""
from __future__ import annotations

import numpy as np

_POLY = 0x82F63B78  # CRC-32C, reflected


def _tables() -> list:
    t0 = np.arange(256, dtype=np.uint32)
    for _ in range(8):
        t0 = np.where(t0 & 1, (t0 >> 1) ^ np.uint32(_POLY), t0 >> 1).astype(np.uint32)
    tables = [t0]
    for _ in range(7):
        prev = tables[-1]
        tables.append(((prev >> 8) ^ t0[prev & 0xFF]).astype(np.uint32))
    return [t.tolist() for t in tables]


_T = _tables()


def crc32c(data: bytes, crc: int = 0) -> int:
    """The CRC32C of ``data`` (continuing from ``crc``).

    Args:
        data: the bytes.
        crc: a previous CRC to extend (0 to start).

    Returns:
        The CRC as an unsigned 32-bit int.
    """
    t0, t1, t2, t3, t4, t5, t6, t7 = _T
    c = crc ^ 0xFFFFFFFF
    mv = memoryview(data).cast("B")
    n = len(mv)
    i = 0
    end8 = n - n % 8
    while i < end8:
        c ^= mv[i] | (mv[i + 1] << 8) | (mv[i + 2] << 16) | (mv[i + 3] << 24)
        c = (t7[c & 0xFF] ^ t6[(c >> 8) & 0xFF] ^ t5[(c >> 16) & 0xFF] ^ t4[c >> 24]
             ^ t3[mv[i + 4]] ^ t2[mv[i + 5]] ^ t1[mv[i + 6]] ^ t0[mv[i + 7]])
        i += 8
    while i < n:
        c = t0[(c ^ mv[i]) & 0xFF] ^ (c >> 8)
        i += 1
    return c ^ 0xFFFFFFFF


def masked_crc32c(data: bytes) -> int:
    """TFRecord's masked CRC: rotate right by 15 and add 0xa282ead8.

    Args:
        data: the bytes.

    Returns:
        The masked CRC (unsigned 32 bits).
    """
    c = crc32c(data)
    return (((c >> 15) | (c << 17)) + 0xA282EAD8) & 0xFFFFFFFF
