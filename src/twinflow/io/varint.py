"""Protocol-buffer base-128 varints, shared by the TensorBoard event writer and the
checkpoint table reader."""
from __future__ import annotations


def varint(n: int) -> bytes:
    """The base-128 varint encoding of ``n`` (negative ints as 64-bit two's complement).

    Args:
        n: an integer.

    Returns:
        The encoded bytes.
    """
    if n < 0:
        n += 1 << 64
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def read_varint(data: bytes, pos: int) -> tuple:
    """Decodes the varint at ``data[pos:]``.

    Args:
        data: the bytes.
        pos: where the varint starts.

    Returns:
        (value, position after it).

    Raises:
        ValueError: the data ends inside the varint, or it is longer than 10 bytes.
    """
    shift = result = 0
    while True:
        if pos >= len(data) or shift > 63:
            raise ValueError("truncated varint")
        b = data[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, pos
        shift += 7
