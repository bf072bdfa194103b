"""TFRecord files: TensorFlow's framing, read and written.

Each record is ``uint64 length | uint32 masked_crc32c(length) | data | uint32
masked_crc32c(data)`` (little-endian); the file may be compressed as a whole (GZIP or ZLIB).
A bad CRC or a record cut short raises ``DataLossError`` naming the file and the offset (in
the uncompressed stream).
"""
from __future__ import annotations

import gzip
import io as _pyio
import os
import struct
import zlib
from collections.abc import Iterator
from typing import IO

from ..core.errors import DataLossError, InvalidArgumentError, NotFoundError
from .atomic import AtomicFile
from .crc32c import masked_crc32c

_COMPRESSIONS = {None: "", "": "", "NONE": "", "GZIP": "GZIP", "ZLIB": "ZLIB"}


def compression_name(compression) -> str:
    """The canonical name of a compression given as a string, None or TFRecordOptions.

    Args:
        compression: a name in any case (``"gzip"``, ``"NONE"``...), None or TFRecordOptions.

    Returns:
        ``''``, ``'GZIP'`` or ``'ZLIB'``.
    """
    if isinstance(compression, TFRecordOptions):
        compression = compression.compression_type
    key = compression.upper() if isinstance(compression, str) else compression
    if key not in _COMPRESSIONS:
        raise InvalidArgumentError(None, None, f"Unsupported compression_type {compression!r}; "
                                   "use '', 'GZIP' or 'ZLIB'")
    return _COMPRESSIONS[key]


class TFRecordOptions:
    """Options of a TFRecord file: ``compression_type`` ('', 'GZIP', 'ZLIB') and the
    compression level.

    Args:
        compression_type: the compression.
        flush_mode: accepted for compatibility.
        input_buffer_size: accepted for compatibility.
        output_buffer_size: accepted for compatibility.
        window_bits: accepted for compatibility.
        compression_level: 0-9 (default: zlib's).
        compression_method: accepted for compatibility.
        mem_level: accepted for compatibility.
        compression_strategy: accepted for compatibility.
    """

    def __init__(self, compression_type=None, flush_mode=None, input_buffer_size=None,
                 output_buffer_size=None, window_bits=None, compression_level=None,
                 compression_method=None, mem_level=None, compression_strategy=None) -> None:
        self.compression_type = compression_name(compression_type)
        self.compression_level = -1 if compression_level is None else int(compression_level)


class _ZlibWriter:
    def __init__(self, raw, level: int) -> None:
        self._raw, self._z = raw, zlib.compressobj(level)

    def write(self, data: bytes) -> None:
        self._raw.write(self._z.compress(data))

    def flush(self) -> None:
        self._raw.write(self._z.flush(zlib.Z_SYNC_FLUSH))
        self._raw.flush()

    def close(self) -> None:
        self._raw.write(self._z.flush())
        self._raw.close()


class TFRecordWriter:
    """Writes records to a TFRecord file (which appears, complete, when closed).

    Args:
        path: the file.
        options: a TFRecordOptions or a compression name.
    """

    def __init__(self, path: str, options=None) -> None:
        opts = options if isinstance(options, TFRecordOptions) else TFRecordOptions(options)
        self._path = os.fspath(path)
        self._raw = AtomicFile(self._path)
        if opts.compression_type == "GZIP":
            self._out = gzip.GzipFile(fileobj=self._raw, mode="wb",
                                      compresslevel=9 if opts.compression_level < 0
                                      else opts.compression_level, mtime=0)
        elif opts.compression_type == "ZLIB":
            self._out = _ZlibWriter(self._raw, opts.compression_level)
        else:
            self._out = self._raw
        self._closed = False

    def write(self, record) -> None:
        """Appends one record.

        Args:
            record: bytes (or a str, encoded as UTF-8).
        """
        if self._closed:
            raise ValueError(f"TFRecordWriter for {self._path} is closed")
        data = record.encode() if isinstance(record, str) else bytes(record)
        header = struct.pack("<Q", len(data))
        self._out.write(header + struct.pack("<I", masked_crc32c(header)) + data
                        + struct.pack("<I", masked_crc32c(data)))

    def flush(self) -> None:
        """Flushes buffered records to the (temporary) file."""
        self._out.flush()

    def close(self) -> None:
        """Finishes the file and moves it into place."""
        if self._closed:
            return
        self._closed = True
        self._out.close()
        if self._out is not self._raw:
            self._raw.close()

    def __enter__(self) -> TFRecordWriter:
        return self

    def __del__(self) -> None:
        # (as TensorFlow's writer: dropping it without close() keeps what was written)
        if not getattr(self, "_closed", True):
            self.close()

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            self.close()
        else:
            self._closed = True
            self._raw.abort()


class _ZlibRaw(_pyio.RawIOBase):
    """A ZLIB stream decompressed as it is read (so lines and records stream too)."""

    def __init__(self, raw) -> None:
        self._raw, self._z, self._pending = raw, zlib.decompressobj(), b""

    def readable(self) -> bool:
        return True

    def readinto(self, b) -> int:
        while not self._pending and not self._z.eof:
            chunk = self._raw.read(65536)
            if not chunk:
                break
            self._pending = self._z.decompress(chunk)
        n = min(len(b), len(self._pending))
        b[:n] = self._pending[:n]
        self._pending = self._pending[n:]
        return n

    def close(self) -> None:
        self._raw.close()
        super().close()


def open_compressed(path: str, compression) -> IO[bytes]:
    """A binary file object reading ``path`` decompressed ('', 'GZIP' or 'ZLIB') as it goes.

    Args:
        path: the file.
        compression: '', 'GZIP' or 'ZLIB' (or a TFRecordOptions).

    Returns:
        The open file (closing it closes the file on disk).

    Raises:
        NotFoundError: no such file.
    """
    kind = compression_name(compression)
    try:
        if kind == "GZIP":
            return gzip.open(path, "rb")
        raw = open(path, "rb")  # noqa: SIM115  (returned to the caller, who closes it)
    except FileNotFoundError:
        raise NotFoundError(None, None, f"{path}; No such file or directory") from None
    return _pyio.BufferedReader(_ZlibRaw(raw)) if kind == "ZLIB" else raw


def _read_up_to(stream, n: int) -> bytes:
    """``n`` bytes or fewer at the end of the stream, read in chunks: a forged length
    (2**60) gives a short read, not a 2**60-byte allocation."""
    chunks, left = [], n
    while left > 0:
        chunk = stream.read(min(left, 1 << 24))
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def read_records(path: str, compression="") -> Iterator[bytes]:
    """The records of a TFRecord file, checked against their CRCs.

    Args:
        path: the file.
        compression: '', 'GZIP' or 'ZLIB'.

    Yields:
        Each record's bytes.

    Raises:
        DataLossError: a bad CRC or a truncated record (naming the file and offset).
    """
    path = os.fspath(path.decode() if isinstance(path, bytes) else path)
    stream = open_compressed(path, compression)
    offset = 0
    try:
        while True:
            try:
                header = stream.read(12)
            except (OSError, EOFError, zlib.error) as e:
                raise DataLossError(None, None, f"{path}: corrupted compressed data at offset "
                                    f"{offset}: {e}") from None
            if not header:
                return
            if len(header) < 12:
                raise DataLossError(None, None, f"{path}: truncated record at offset {offset} "
                                    "(incomplete header)")
            length, = struct.unpack("<Q", header[:8])
            if struct.unpack("<I", header[8:])[0] != masked_crc32c(header[:8]):
                raise DataLossError(None, None, f"{path}: corrupted record at offset {offset} "
                                    "(length CRC mismatch)")
            try:
                body = _read_up_to(stream, length + 4)
            except (OSError, EOFError, zlib.error) as e:
                raise DataLossError(None, None, f"{path}: corrupted compressed data at offset "
                                    f"{offset}: {e}") from None
            if len(body) < length + 4:
                raise DataLossError(None, None, f"{path}: truncated record at offset {offset} "
                                    f"(expected {length} bytes of data)")
            data = body[:length]
            if struct.unpack("<I", body[length:])[0] != masked_crc32c(data):
                raise DataLossError(None, None, f"{path}: corrupted record at offset {offset} "
                                    "(data CRC mismatch)")
            yield data
            offset += 16 + length
    finally:
        stream.close()


def tf_record_iterator(path: str, options=None) -> Iterator[bytes]:
    """Iterates the records of a TFRecord file (``tf.compat.v1.io.tf_record_iterator``).

    Args:
        path: the file.
        options: a TFRecordOptions or compression name.

    Returns:
        An iterator of bytes.
    """
    return read_records(path, compression_name(options))
