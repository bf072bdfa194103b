"""A tiny protocol-buffer encoder (and decoder, for tests) for TensorBoard's messages.

Only what event files need: varints, length-delimited fields, 32/64-bit floats, packed
doubles. Messages are built as ``bytes`` from field helpers, e.g.::

    event = msg(f_double(1, wall_time), f_int64(2, step), f_bytes(5, summary))
"""
from __future__ import annotations

import struct
from collections.abc import Callable

from ..io.varint import read_varint as _read_varint
from ..io.varint import varint

_VARINT, _I64, _LEN, _I32 = 0, 1, 2, 5


def _key(field: int, wire: int) -> bytes:
    return varint((field << 3) | wire)


def f_int64(field: int, value: int) -> bytes:
    """A varint field (int32, int64, bool, enum).

    Args:
        field: the field number.
        value: the integer.

    Returns:
        The encoded field.
    """
    return _key(field, _VARINT) + varint(int(value))


def f_double(field: int, value: float) -> bytes:
    """A 64-bit float field.

    Args:
        field: the field number.
        value: the number.

    Returns:
        The encoded field.
    """
    return _key(field, _I64) + struct.pack("<d", float(value))


def f_float(field: int, value: float) -> bytes:
    """A 32-bit float field.

    Args:
        field: the field number.
        value: the number.

    Returns:
        The encoded field.
    """
    return _key(field, _I32) + struct.pack("<f", float(value))


def f_bytes(field: int, value: bytes | str) -> bytes:
    """A length-delimited field (bytes, string or an encoded sub-message).

    Args:
        field: the field number.
        value: bytes, or a str encoded as UTF-8.

    Returns:
        The encoded field.
    """
    if isinstance(value, str):
        value = value.encode("utf-8")
    return _key(field, _LEN) + varint(len(value)) + value


def f_packed_doubles(field: int, values) -> bytes:
    """A packed repeated double field.

    Args:
        field: the field number.
        values: the numbers.

    Returns:
        The encoded field.
    """
    data = struct.pack(f"<{len(values)}d", *[float(v) for v in values])
    return f_bytes(field, data)


def msg(*fields: bytes) -> bytes:
    """Concatenates encoded fields into a message.

    Args:
        *fields: encoded fields (None entries are skipped).

    Returns:
        The message bytes.
    """
    return b"".join(f for f in fields if f)


def decode(data: bytes) -> dict:
    """Splits a message into its fields: field number -> list of raw values.

    Varints come back as ints, fixed64/fixed32 as bytes of 8/4, length-delimited as bytes
    (decode those again for sub-messages).

    Args:
        data: an encoded message.

    Returns:
        A dict of field number -> values in order.
    """
    out: dict = {}
    pos = 0
    while pos < len(data):
        key, pos = _read_varint(data, pos)
        field, wire = key >> 3, key & 7
        if wire == _VARINT:
            value, pos = _read_varint(data, pos)
        elif wire == _I64:
            value, pos = data[pos:pos + 8], pos + 8
        elif wire == _I32:
            value, pos = data[pos:pos + 4], pos + 4
        elif wire == _LEN:
            n, pos = _read_varint(data, pos)
            value, pos = data[pos:pos + n], pos + n
        else:
            raise ValueError(f"unsupported wire type {wire}")
        out.setdefault(field, []).append(value)
    return out


def _fixed_decoder(name: str, fmt: str, field: str, kind: str) -> Callable[[bytes], float]:
    """``<name>(raw)``: the number a ``field`` field holds, unpacked with struct format ``fmt``."""
    def decode(raw: bytes) -> float:
        return struct.unpack(fmt, raw)[0]
    decode.__name__ = decode.__qualname__ = name
    decode.__doc__ = (f"Decodes a {field} field as a {kind}.\n\nArgs:\n    raw: "
                      f"{struct.calcsize(fmt)} bytes.\n\nReturns:\n    The number.\n")
    return decode


as_double = _fixed_decoder("as_double", "<d", "fixed64", "double")
as_float = _fixed_decoder("as_float", "<f", "fixed32", "float")
