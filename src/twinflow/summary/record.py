"""TFRecord framing, as TensorBoard's event files use it.

Each record is ``uint64 length | uint32 masked_crc32c(length) | data | uint32
masked_crc32c(data)``, little-endian. CRC32C (Castagnoli) is computed with a 256-entry table;
the mask rotates the CRC and adds a constant, so a CRC of data containing CRCs stays robust.
"""
from __future__ import annotations

import struct
from collections.abc import Iterator

from ..core.errors import DataLossError


def _make_table() -> list:
    poly = 0x82F63B78  # CRC-32C, reflected
    table = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ poly if c & 1 else c >> 1
        table.append(c)
    return table


_TABLE = _make_table()


def crc32c(data: bytes) -> int:
    """The CRC-32C (Castagnoli) checksum of ``data``.

    Args:
        data: the bytes.

    Returns:
        The checksum as an unsigned 32-bit int.
    """
    crc = 0xFFFFFFFF
    table = _TABLE
    for b in data:
        crc = table[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def masked_crc32c(data: bytes) -> int:
    """TFRecord's masked CRC: ``((crc >> 15) | (crc << 17)) + 0xa282ead8`` (mod 2**32).

    Args:
        data: the bytes.

    Returns:
        The masked checksum.
    """
    crc = crc32c(data)
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def encode_record(data: bytes) -> bytes:
    """Frames ``data`` as one TFRecord.

    Args:
        data: the payload.

    Returns:
        The framed bytes.
    """
    header = struct.pack("<Q", len(data))
    return (header + struct.pack("<I", masked_crc32c(header)) + data
            + struct.pack("<I", masked_crc32c(data)))


def read_records(path: str) -> Iterator[bytes]:
    """Yields the payloads of a TFRecord file, checking both CRCs of every record.

    Args:
        path: the file.

    Yields:
        Each record's data.

    Raises:
        DataLossError: a truncated record or a CRC mismatch.
    """
    with open(path, "rb") as f:
        while True:
            header = f.read(8)
            if not header:
                return
            if len(header) < 8:
                raise DataLossError(f"{path}: truncated record header")
            (length,) = struct.unpack("<Q", header)
            crc_bytes = f.read(4)
            if len(crc_bytes) < 4 or struct.unpack("<I", crc_bytes)[0] != masked_crc32c(header):
                raise DataLossError(f"{path}: corrupt record length (CRC mismatch)")
            data = f.read(length)
            footer = f.read(4)
            if len(data) < length or len(footer) < 4:
                raise DataLossError(f"{path}: truncated record")
            if struct.unpack("<I", footer)[0] != masked_crc32c(data):
                raise DataLossError(f"{path}: corrupt record data (CRC mismatch)")
            yield data
