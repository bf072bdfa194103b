"""Datasets that read files: TFRecordDataset, TextLineDataset, FixedLengthRecordDataset,
and ``Dataset.list_files``. Several files are read one after another, or interleaved by
``num_parallel_reads`` background readers."""
from __future__ import annotations

import glob as _glob
import gzip
import io as _pyio
import os
import zlib

import numpy as np

from ..core import dtypes, errors
from ..core.shapes import TensorShape
from ..eager.func_graph import TensorSpec
from ..io.tfrecord import compression_name, read_records
from .dataset import Dataset
from .grouping import Interleave
from .structure import normalize

_STRING = TensorSpec(TensorShape([]), dtypes.string)


def _filenames(filenames) -> list:
    if isinstance(filenames, Dataset):
        return [_as_str(f) for f in filenames.as_numpy_iterator()]
    a = normalize(filenames)
    if a.dtype.kind not in "OSU":
        raise TypeError(f"filenames must be strings, got dtype {a.dtype}")
    return [_as_str(f) for f in np.asarray(a, dtype=object).reshape(-1)]


def _as_str(f) -> str:
    return f.decode() if isinstance(f, bytes) else os.fspath(f)


def _open(path: str, compression: str):
    try:
        raw = open(path, "rb")  # noqa: SIM115  (closed by the caller)
    except FileNotFoundError:
        raise errors.NotFoundError(None, None, f"{path}; No such file or directory") from None
    if compression == "GZIP":
        return gzip.GzipFile(fileobj=raw, mode="rb")
    if compression == "ZLIB":
        data = zlib.decompress(raw.read())
        raw.close()
        return _pyio.BytesIO(data)
    return raw


class _FileDataset(Dataset):
    """One source per file, read in turn (or by ``num_parallel_reads`` threads)."""

    def __init__(self, filenames, compression_type, num_parallel_reads) -> None:
        self._files = _filenames(filenames)
        self._compression = compression_name(compression_type)
        par = None if num_parallel_reads is None else int(num_parallel_reads)
        if par is not None and par == -1:
            par = max(2, min(8, os.cpu_count() or 2))
        if par is not None and par <= 0:
            raise errors.InvalidArgumentError(None, None, f"num_parallel_reads must be "
                                              f"positive or AUTOTUNE, got {par}")
        self._parallel = par

    def _read(self, path: str):
        raise NotImplementedError

    def _gen(self):
        if not self._parallel or len(self._files) < 2:
            for f in self._files:
                yield from self._read(f)
            return
        files = Dataset.from_tensor_slices(np.asarray(self._files, dtype=object))
        node = Interleave(files, lambda f: _OneFile(self, f), self._parallel, 1,
                          self._parallel, True)
        yield from node._gen()

    def _spec(self):
        return _STRING


class _OneFile(Dataset):
    def __init__(self, parent: _FileDataset, f) -> None:
        self._parent, self._f = parent, _as_str(np.asarray(f._value).item())

    def _gen(self):
        yield from self._parent._read(self._f)

    def _spec(self):
        return _STRING


class TFRecordDataset(_FileDataset):
    """The records of TFRecord files, as string scalars.

    Args:
        filenames: a file name, a list of them, or a dataset of them.
        compression_type: '', 'GZIP' or 'ZLIB'.
        buffer_size: accepted (files are read in chunks).
        num_parallel_reads: read that many files at once (interleaved record by record).
        name: ignored.
    """

    def __init__(self, filenames, compression_type=None, buffer_size=None,
                 num_parallel_reads=None, name=None) -> None:
        super().__init__(filenames, compression_type, num_parallel_reads)

    def _read(self, path: str):
        for r in read_records(path, self._compression):
            yield np.asarray(r, dtype=object)


class TextLineDataset(_FileDataset):
    """The lines of text files (without their line endings), as string scalars.

    Args:
        filenames: a file name, a list of them, or a dataset of them.
        compression_type: '', 'GZIP' or 'ZLIB'.
        buffer_size: accepted (files are read in chunks).
        num_parallel_reads: read that many files at once.
        name: ignored.
    """

    def __init__(self, filenames, compression_type=None, buffer_size=None,
                 num_parallel_reads=None, name=None) -> None:
        super().__init__(filenames, compression_type, num_parallel_reads)

    def _read(self, path: str):
        f = _open(path, self._compression)
        try:
            for line in f:
                if line.endswith(b"\n"):
                    line = line[:-2] if line.endswith(b"\r\n") else line[:-1]
                yield np.asarray(line, dtype=object)
        finally:
            f.close()


class FixedLengthRecordDataset(_FileDataset):
    """Records of ``record_bytes`` bytes from files with an optional header and footer.

    Args:
        filenames: a file name, a list of them, or a dataset of them.
        record_bytes: bytes per record.
        header_bytes: bytes skipped at the start of each file.
        footer_bytes: bytes ignored at the end of each file.
        buffer_size: accepted.
        compression_type: '', 'GZIP' or 'ZLIB'.
        num_parallel_reads: read that many files at once.
        name: ignored.
    """

    def __init__(self, filenames, record_bytes: int, header_bytes=None, footer_bytes=None,
                 buffer_size=None, compression_type=None, num_parallel_reads=None,
                 name=None) -> None:
        super().__init__(filenames, compression_type, num_parallel_reads)
        self._n = int(record_bytes)
        if self._n <= 0:
            raise errors.InvalidArgumentError(None, None,
                                              f"record_bytes must be > 0, got {self._n}")
        self._header = int(header_bytes or 0)
        self._footer = int(footer_bytes or 0)

    def _read(self, path: str):
        f = _open(path, self._compression)
        try:
            data = f.read()
        finally:
            f.close()
        body = data[self._header:len(data) - self._footer]
        if len(data) < self._header + self._footer or len(body) % self._n:
            raise errors.DataLossError(
                None, None, f"{path}: {len(body)} bytes between header and footer is not a "
                f"multiple of record_bytes={self._n}")
        for i in range(0, len(body), self._n):
            yield np.asarray(body[i:i + self._n], dtype=object)


def list_files(file_pattern, shuffle=None, seed=None) -> Dataset:
    """``Dataset.list_files``: the sorted (then shuffled) names matching the pattern(s).

    Args:
        file_pattern: a glob pattern or a list of them.
        shuffle: shuffle the names (default True).
        seed: the shuffle seed.

    Returns:
        The dataset of names.
    """
    patterns = _filenames(file_pattern)
    names = sorted({m for p in patterns for m in _glob.glob(p)})
    if not names:
        raise errors.InvalidArgumentError(None, None, f"Expected 'tf.Tensor({patterns!r})' to "
                                          "match at least one file (no files matched)")
    ds = Dataset.from_tensor_slices(np.asarray([n.encode() for n in names], dtype=object))
    if shuffle is None or shuffle:
        ds = ds.shuffle(len(names), seed=seed)
    return ds
