"""TensorFlow's tensor-bundle checkpoint format: ``P.index`` (a LevelDB-style SSTable whose
key ``""`` holds a ``BundleHeaderProto`` and every other key, a tensor's name, its
``BundleEntryProto``) and ``P.data-00000-of-00001`` (the tensors' bytes, little-endian; string
tensors as varint lengths, a masked CRC32C of the lengths, then the bytes).

Every block and tensor is checked against its masked CRC32C: a corrupt or truncated file
raises ``DataLossError`` naming it. Writes go through ``core.files.atomic_write_group``: the
data shard and the index change together (the data first, the index last), and a save killed
between the two leaves the previous pair aside, which the reader uses (``committed_paths``) and
the next save restores. TensorFlow reads the same two file names.
"""
from __future__ import annotations

import os
import struct

import numpy as np

from ..core import dtypes
from ..core.errors import DataLossError, NotFoundError, UnimplementedError
from ..core.files import atomic_write_group, committed_paths
from ..core.shapes import TensorShape
from ..graph.graph_def import fill_shape, shape_of_proto
from ..graph.protos import file_message_class
from ..io.crc32c import crc32c, masked_crc32c
from ..io.varint import read_varint, varint

__all__ = ["BundleReader", "write_bundle", "is_bundle", "data_path", "index_path"]

_MAGIC = 0xDB4775248B80FB57
_FOOTER = 48
_RESTART_INTERVAL = 16
_BLOCK_SIZE = 4096

_BUNDLE_MESSAGES = {
    "BundleHeaderProto": [("num_shards", 1, "o", "int32", None),
                          ("endianness", 2, "o", "int32", None),  # LITTLE = 0, BIG = 1
                          ("version", 3, "o", "msg", "VersionDef")],
    "BundleEntryProto": [("dtype", 1, "o", "enum", "DataType"),
                         ("shape", 2, "o", "msg", "TensorShapeProto"),
                         ("shard_id", 3, "o", "int32", None), ("offset", 4, "o", "int64", None),
                         ("size", 5, "o", "int64", None), ("crc32c", 6, "o", "fixed32", None),
                         # TensorSliceProtos, kept as bytes: only their presence matters here
                         ("slices", 7, "r", "bytes", None)],
}


_message = file_message_class("twinflow/tensor_bundle.proto", _BUNDLE_MESSAGES)


def index_path(prefix: str) -> str:
    """The ``.index`` file of checkpoint ``prefix``.

    Args:
        prefix: the checkpoint prefix.

    Returns:
        The path.
    """
    return os.fspath(prefix) + ".index"


def data_path(prefix: str, shard: int = 0, num_shards: int = 1) -> str:
    """A data shard of checkpoint ``prefix``.

    Args:
        prefix: the checkpoint prefix.
        shard: the shard's number.
        num_shards: how many shards there are.

    Returns:
        The path (``prefix.data-00000-of-00001``).
    """
    return f"{os.fspath(prefix)}.data-{shard:05d}-of-{num_shards:05d}"


def is_bundle(prefix: str) -> bool:
    """Whether ``prefix`` names a checkpoint in TensorFlow's format (its ``.index`` exists).

    Args:
        prefix: the checkpoint prefix.

    Returns:
        True if ``prefix.index`` is a file (or is kept aside by a save that was interrupted).
    """
    return os.path.isfile(committed_paths([index_path(prefix)])[0])


# ---------------------------------------------------------------------------------------------
# The SSTable

def _varint(data: bytes, pos: int, what: str) -> tuple:
    try:
        return read_varint(data, pos)
    except ValueError:
        raise DataLossError(None, None, f"{what}: truncated or corrupt varint") from None


def _read_block(data: bytes, handle: tuple, what: str) -> bytes:
    offset, size = handle
    if offset + size + 5 > len(data):
        raise DataLossError(None, None, f"{what}: truncated (a block ends past the file's end)")
    contents = data[offset:offset + size]
    kind = data[offset + size]
    (stored,) = struct.unpack("<I", data[offset + size + 1:offset + size + 5])
    if masked_crc32c(contents + bytes([kind])) != stored:
        raise DataLossError(None, None, f"{what}: block checksum mismatch (corrupt file)")
    if kind != 0:
        raise UnimplementedError(None, None, f"{what}: compressed table blocks (type {kind}) "
                                             "are not supported")
    return contents


def _block_entries(block: bytes, what: str) -> list:
    if len(block) < 4:
        raise DataLossError(None, None, f"{what}: block too short")
    (n,) = struct.unpack("<I", block[-4:])
    limit = len(block) - 4 - 4 * n
    if n < 1 or limit < 0:
        raise DataLossError(None, None, f"{what}: bad block restart array")
    out, pos, key = [], 0, b""
    while pos < limit:
        shared, pos = _varint(block, pos, what)
        unshared, pos = _varint(block, pos, what)
        vlen, pos = _varint(block, pos, what)
        if shared > len(key) or pos + unshared + vlen > limit:
            raise DataLossError(None, None, f"{what}: corrupt block entry")
        key = key[:shared] + block[pos:pos + unshared]
        pos += unshared
        out.append((key, block[pos:pos + vlen]))
        pos += vlen
    return out


def _handle(value: bytes, what: str) -> tuple:
    offset, pos = _varint(value, 0, what)
    size, _ = _varint(value, pos, what)
    return offset, size


def read_table(data: bytes, what: str) -> list:
    """The (key, value) pairs of an SSTable, in order, every block checked.

    Args:
        data: the file's bytes.
        what: the file, for error messages.

    Returns:
        A list of (bytes, bytes).
    """
    if len(data) < _FOOTER:
        raise DataLossError(None, None, f"{what}: truncated (shorter than a table footer)")
    footer = data[-_FOOTER:]
    if struct.unpack("<Q", footer[40:])[0] != _MAGIC:
        raise DataLossError(None, None, f"{what}: not a TensorFlow checkpoint index (bad magic)")
    _, pos = _varint(footer, 0, what)
    _, pos = _varint(footer, pos, what)  # the metaindex block: nothing twinflow reads
    index = _handle(footer[pos:], what)
    out = []
    for _, value in _block_entries(_read_block(data, index, what), what):
        out.extend(_block_entries(_read_block(data, _handle(value, what), what), what))
    return out


def _block(entries: list, restart_interval: int) -> bytes:
    out, restarts, last = bytearray(), [], b""
    for i, (key, value) in enumerate(entries):
        shared = 0
        if i % restart_interval == 0:
            restarts.append(len(out))
        else:
            while shared < min(len(key), len(last)) and key[shared] == last[shared]:
                shared += 1
        out += varint(shared) + varint(len(key) - shared) + varint(len(value))
        out += key[shared:] + value
        last = key
    restarts = restarts or [0]
    out += b"".join(struct.pack("<I", r) for r in restarts) + struct.pack("<I", len(restarts))
    return bytes(out)


def write_table(entries: list) -> bytes:
    """An SSTable of sorted (key, value) pairs, uncompressed, as LevelDB lays it out.

    Args:
        entries: (bytes, bytes) pairs sorted by key.

    Returns:
        The file's bytes.
    """
    out = bytearray()

    def put(contents: bytes) -> bytes:
        handle = varint(len(out)) + varint(len(contents))
        out.extend(contents + b"\0" + struct.pack("<I", masked_crc32c(contents + b"\0")))
        return handle

    index, chunk, size = [], [], 0
    for key, value in entries:
        chunk.append((key, value))
        size += len(key) + len(value)
        if size >= _BLOCK_SIZE:
            index.append((key, put(_block(chunk, _RESTART_INTERVAL))))
            chunk, size = [], 0
    if chunk:
        index.append((chunk[-1][0], put(_block(chunk, _RESTART_INTERVAL))))
    meta = put(_block([], 1))
    idx = put(_block(index, 1))
    footer = (meta + idx).ljust(40, b"\0") + struct.pack("<Q", _MAGIC)
    return bytes(out + footer)


# ---------------------------------------------------------------------------------------------
# Tensors

def _encode(arr: np.ndarray) -> tuple:
    """(bytes in the data shard, their CRC32C) of one tensor."""
    if arr.dtype.kind in "OSU":
        items = [x if isinstance(x, bytes) else str(x).encode() for x in arr.reshape(-1)]
        lengths = b"".join(varint(len(x)) for x in items)
        crc = 0
        for x in items:
            crc = crc32c(struct.pack("<I", len(x)), crc)  # each length as 4 bytes
        length_check = struct.pack("<I", _mask(crc))
        crc = crc32c(length_check, crc)
        for x in items:
            crc = crc32c(x, crc)
        return lengths + length_check + b"".join(items), crc
    data = np.ascontiguousarray(arr).astype(arr.dtype.newbyteorder("<"), copy=False).tobytes()
    return data, crc32c(data)


def _mask(crc: int) -> int:
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def _decode_strings(data: bytes, count: int, what: str) -> np.ndarray:
    lengths, pos = [], 0
    for _ in range(count):
        n, pos = _varint(data, pos, what)
        lengths.append(n)
    pos += 4  # the lengths' checksum (the whole entry's CRC covers it too)
    out = []
    for n in lengths:
        out.append(data[pos:pos + n])
        pos += n
    if pos != len(data):
        raise DataLossError(None, None, f"{what}: string tensor of the wrong size")
    return np.array(out, dtype=object)


def write_bundle(prefix: str, tensors: dict) -> str:
    """Writes ``tensors`` (name -> array) as a checkpoint in TensorFlow's format.

    Args:
        prefix: the checkpoint prefix (files ``prefix.index``, ``prefix.data-00000-of-00001``).
        tensors: tensor name -> NumPy array (numbers, bools or bytes/str objects).

    Returns:
        The prefix.
    """
    prefix = os.fspath(prefix)
    entry_cls = _message("BundleEntryProto")
    data, entries = bytearray(), []
    for name in sorted(tensors):
        arr = np.asarray(tensors[name])
        raw, crc = _encode(arr)
        entry = entry_cls(dtype=dtypes.from_numpy(arr.dtype).as_datatype_enum, shard_id=0,
                          offset=len(data), size=len(raw), crc32c=_mask(crc))
        fill_shape(entry.shape, TensorShape(list(arr.shape)))
        data += raw
        entries.append((name.encode(), entry.SerializeToString()))
    header = _message("BundleHeaderProto")(num_shards=1, endianness=0)
    header.version.producer = 1
    table = write_table([(b"", header.SerializeToString())] + entries)
    atomic_write_group({data_path(prefix): bytes(data), index_path(prefix): table})
    return prefix


class BundleReader:
    """Reads a checkpoint in TensorFlow's format: its entries at construction (every block
    checked), each tensor when asked (checked against its CRC32C).

    Args:
        prefix: the checkpoint prefix.

    Raises:
        NotFoundError: no ``prefix.index``.
        DataLossError: the index is corrupt or truncated.
    """

    def __init__(self, prefix: str) -> None:
        self.prefix = os.fspath(prefix)
        # A save interrupted mid-swap: read the previous pair, kept aside until it is restored.
        what, shard = committed_paths([index_path(self.prefix), data_path(self.prefix)])
        try:
            with open(what, "rb") as f:
                data = f.read()
        except FileNotFoundError:
            raise NotFoundError(None, None, f"Unsuccessful TensorSliceReader constructor: "
                                            f"Failed to find any matching files for "
                                            f"{self.prefix}") from None
        pairs = read_table(data, what)
        if not pairs or pairs[0][0] != b"":
            raise DataLossError(None, None, f"{what}: no bundle header")
        try:
            header = _message("BundleHeaderProto").FromString(pairs[0][1])
            entry_cls = _message("BundleEntryProto")
            self.entries = {k.decode(): entry_cls.FromString(v) for k, v in pairs[1:]}
        except Exception as e:  # protobuf's DecodeError, a key that is not UTF-8
            raise DataLossError(None, None, f"{what}: corrupt entry ({e})") from None
        if header.endianness != 0:
            raise UnimplementedError(None, None, f"{what}: big-endian checkpoints are not "
                                                 "supported")
        self.num_shards = header.num_shards
        shards = [data_path(self.prefix, i, self.num_shards) for i in range(self.num_shards)]
        self._shards = [shard] if shards == [data_path(self.prefix)] else committed_paths(shards)

    def has_tensor(self, name: str) -> bool:
        """Whether the checkpoint holds ``name``.

        Args:
            name: the tensor's name.

        Returns:
            True if it is there.
        """
        return name in self.entries

    def shape_and_dtype(self, name: str) -> tuple:
        """The (shape as a list, DType) of tensor ``name``.

        Args:
            name: the tensor's name.

        Returns:
            (list of ints, DType).
        """
        entry = self._entry(name)
        return shape_of_proto(entry.shape).as_list(), dtypes.as_dtype(entry.dtype)

    def _entry(self, name: str):
        if name not in self.entries:
            raise NotFoundError(None, None, f"Key {name} not found in checkpoint")
        return self.entries[name]

    def get_tensor(self, name: str) -> np.ndarray:
        """Reads tensor ``name``.

        Args:
            name: the tensor's name.

        Returns:
            A NumPy array (bytes objects for strings).

        Raises:
            NotFoundError: no such tensor.
            DataLossError: its bytes are missing or do not match their checksum.
        """
        entry = self._entry(name)
        if entry.slices:
            raise UnimplementedError(None, None, f"{name}: partitioned (sliced) variables are "
                                                 "not supported")
        if not 0 <= entry.shard_id < self.num_shards:
            raise DataLossError(None, None, f"{self.prefix}: tensor {name!r} names shard "
                                            f"{entry.shard_id} of {self.num_shards}")
        path = self._shards[entry.shard_id]
        try:
            with open(path, "rb") as f:
                f.seek(entry.offset)
                raw = f.read(entry.size)
        except FileNotFoundError:
            raise DataLossError(None, None, f"{path}: missing data shard of {self.prefix}") \
                from None
        if len(raw) != entry.size:
            raise DataLossError(None, None, f"{path}: truncated (tensor {name!r} needs "
                                            f"{entry.size} bytes at {entry.offset})")
        shape, dt = self.shape_and_dtype(name)
        count = int(np.prod(shape)) if shape else 1
        strings = _decode_strings(raw, count, path) if dt is dtypes.string else None
        crc = _encode(strings)[1] if strings is not None else crc32c(raw)
        if _mask(crc) != entry.crc32c:
            raise DataLossError(None, None, f"{path}: checksum mismatch for tensor {name!r} "
                                            "(corrupt file)")
        if strings is not None:
            return strings.reshape(shape)
        np_dt = dt.np if dt.np.kind == "V" else dt.np.newbyteorder("<")
        if np_dt.itemsize * count != len(raw):
            raise DataLossError(None, None, f"{path}: tensor {name!r} has {len(raw)} bytes, "
                                            f"not {np_dt.itemsize * count}")
        return np.frombuffer(raw, np_dt).astype(np_dt.newbyteorder("="), copy=True) \
            .reshape(shape)
