"""Datasets that read files: TFRecordDataset, TextLineDataset, FixedLengthRecordDataset,
and ``Dataset.list_files``. Several files are read one after another, or interleaved by
``num_parallel_reads`` background readers."""
from __future__ import annotations

import csv as _csv
import glob as _glob
import os

import numpy as np

from ..core import dtypes, errors
from ..core.shapes import TensorShape
from ..eager.func_graph import TensorSpec
from ..graph.graph import name_scoped
from ..io import codecs
from ..io.tfrecord import compression_name, open_compressed, read_records
from .dataset import Dataset
from .grouping import Interleave
from .registry import register_node
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
    return open_compressed(path, compression)


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


class _StreamDataset(_FileDataset):
    """TFRecordDataset and TextLineDataset: files read as streams (``buffer_size`` is
    accepted: files are read in chunks)."""

    @name_scoped
    def __init__(self, filenames, compression_type=None, buffer_size=None,
                 num_parallel_reads=None, name=None) -> None:
        super().__init__(filenames, compression_type, num_parallel_reads)


class TFRecordDataset(_StreamDataset):
    """The records of TFRecord files, as string scalars.

    Args:
        filenames: a file name, a list of them, or a dataset of them.
        compression_type: '', 'GZIP' or 'ZLIB'.
        buffer_size: accepted (files are read in chunks).
        num_parallel_reads: read that many files at once (interleaved record by record).
        name: the name scope of the ops it creates (in a graph).
    """

    def _read(self, path: str):
        for r in read_records(path, self._compression):
            yield np.asarray(r, dtype=object)


class TextLineDataset(_StreamDataset):
    """The lines of text files (without their line endings), as string scalars.

    Args:
        filenames, compression_type, buffer_size, num_parallel_reads, name: as for
            ``TFRecordDataset``.
    """

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
        name: the name scope of the ops it creates (in a graph).
    """

    @name_scoped
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
        # Streamed in chunks (the last footer_bytes are held back until the end of the file).
        n, footer = self._n, self._footer
        f = _open(path, self._compression)
        try:
            if len(f.read(self._header)) < self._header:
                raise errors.DataLossError(None, None, f"{path}: shorter than its header of "
                                           f"{self._header} bytes")
            buf = b""
            while True:
                chunk = f.read(1 << 20)
                if not chunk:
                    break
                buf += chunk
                usable = max(0, len(buf) - footer) // n * n
                for i in range(0, usable, n):
                    yield np.asarray(buf[i:i + n], dtype=object)
                buf = buf[usable:]
        finally:
            f.close()
        if len(buf) != footer:
            raise errors.DataLossError(
                None, None, f"{path}: {len(buf) - footer if len(buf) > footer else len(buf)} "
                f"bytes left over between header and footer: not a multiple of "
                f"record_bytes={n}")


@register_node
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
    ds._tw_file_names = True  # AutoShardPolicy.FILE deals these names out to the workers
    if shuffle is None or shuffle:
        ds = ds.shuffle(len(names), seed=seed)
    return ds


class CsvDataset(_FileDataset):
    """Rows of CSV files as tuples of scalars, one per column (``record_defaults`` as in
    ``tw.io.decode_csv``).

    Args:
        filenames: a file name, a list of them, or a dataset of them.
        record_defaults: per column, ``[default]`` or an empty tensor/dtype (required).
        compression_type: '', 'GZIP' or 'ZLIB'.
        buffer_size: accepted.
        header: skip each file's first line.
        field_delim: the delimiter.
        use_quote_delim: double quotes quote fields.
        na_value: a string read as missing.
        select_cols: column indices to keep.
        exclude_cols: column indices to drop.
        name: the name scope of the ops it creates (in a graph).
    """

    @name_scoped
    def __init__(self, filenames, record_defaults, compression_type=None, buffer_size=None,
                 header: bool = False, field_delim: str = ",", use_quote_delim: bool = True,
                 na_value: str = "", select_cols=None, exclude_cols=None, name=None) -> None:
        super().__init__(filenames, compression_type, None)
        if select_cols is not None and exclude_cols is not None:
            raise ValueError("CsvDataset: give select_cols or exclude_cols, not both")
        self._defaults = [d if not isinstance(d, dtypes.DType) else
                          np.zeros(0, dtype=d.np if d is not dtypes.string else object)
                          for d in record_defaults]
        self._header, self._opts = header, (field_delim, use_quote_delim, na_value)
        self._select = select_cols
        self._exclude = set(exclude_cols or ())
        first = codecs.decode_csv([_csv_line(self._defaults, field_delim)], self._defaults,
                                  field_delim, use_quote_delim, na_value)
        self._spec_value = tuple(TensorSpec(TensorShape([]), t.dtype) for t in first)

    def _read(self, path: str):
        delim, quote, na = self._opts
        f = _open(path, self._compression)
        try:
            lines = [ln.rstrip(b"\r\n").decode() for ln in f]
        finally:
            f.close()
        if self._header:
            lines = lines[1:]
        for line in lines:
            row = next(_csv.reader([line], delimiter=delim), [])
            keep = list(range(len(row)))
            if self._select is not None:
                keep = list(self._select)
            elif self._exclude:
                keep = [i for i in keep if i not in self._exclude]
            picked = delim.join(_quote(row[i]) if i < len(row) else "" for i in keep)
            cols = codecs.decode_csv([picked], self._defaults, delim, quote, na)
            yield tuple(np.asarray(c._value)[0] for c in cols)

    def _spec(self):
        return self._spec_value


def _quote(field: str) -> str:
    return '"' + field.replace('"', '""') + '"' if any(c in field for c in ',"\n') else field


def _csv_line(defaults: list, delim: str) -> str:
    # a line of defaults (only its dtypes matter: it finds the element_spec)
    return delim.join("0" if np.asarray(d).dtype.kind in "iuf" else "a" for d in defaults)


def make_csv_dataset(file_pattern, batch_size: int, column_names=None, column_defaults=None,
                     label_name=None, select_columns=None, field_delim: str = ",",
                     use_quote_delim: bool = True, na_value: str = "", header: bool = True,
                     num_epochs=None, shuffle: bool = True, shuffle_buffer_size: int = 10000,
                     shuffle_seed=None, prefetch_buffer_size=None, num_parallel_reads=None,
                     sloppy: bool = False, num_rows_for_inference: int = 100,
                     compression_type=None, ignore_errors: bool = False,
                     encoding: str = "utf-8") -> Dataset:
    """Batches of CSV rows as ``{column: tensor}`` dicts (and labels), types inferred.

    Args:
        file_pattern: glob(s) of CSV files.
        batch_size: rows per batch.
        column_names: the names (default: the header line).
        column_defaults: per column defaults (default: inferred int32/float32/string).
        label_name: a column returned separately as the label.
        select_columns: names or indices of the columns to keep.
        field_delim: the delimiter.
        use_quote_delim: double quotes quote fields.
        na_value: a string read as missing.
        header: the files start with a header line.
        num_epochs: repetitions (None: forever).
        shuffle: shuffle rows.
        shuffle_buffer_size: the shuffle buffer.
        shuffle_seed: the seed.
        prefetch_buffer_size: prefetch batches (None: AUTOTUNE).
        num_parallel_reads: files read at once.
        sloppy: allow any order.
        num_rows_for_inference: rows read to infer the column types.
        compression_type: '', 'GZIP' or 'ZLIB'.
        ignore_errors: drop rows that fail to parse.
        encoding: must be utf-8.

    Returns:
        The dataset.
    """
    if encoding.lower().replace("-", "") != "utf8":
        raise NotImplementedError("make_csv_dataset reads UTF-8 only")
    files = sorted({m for p in _filenames(file_pattern) for m in _glob.glob(p)})
    if not files:
        raise errors.InvalidArgumentError(None, None, f"No files match {file_pattern!r}")
    comp = compression_name(compression_type)
    f = _open(files[0], comp)
    try:
        head = [ln.rstrip(b"\r\n").decode() for _, ln in zip(range(num_rows_for_inference + 1),
                                                             f)]
    finally:
        f.close()
    rows = list(_csv.reader(head, delimiter=field_delim))
    names = list(column_names) if column_names is not None else (rows[0] if header else None)
    if names is None:
        raise ValueError("make_csv_dataset needs column_names when header=False")
    body = rows[1:] if header else rows
    if column_defaults is None:
        column_defaults = [[_infer(c, body, na_value)] for c in range(len(names))]
    if select_columns is not None:
        idx = [names.index(c) if isinstance(c, str) else int(c) for c in select_columns]
    else:
        idx = list(range(len(names)))
    defaults = [column_defaults[i] for i in idx] if len(column_defaults) == len(names) \
        else list(column_defaults)
    keep = [names[i] for i in idx]
    ds = CsvDataset(files, defaults, comp, header=header, field_delim=field_delim,
                    use_quote_delim=use_quote_delim, na_value=na_value,
                    select_cols=sorted(idx) if select_columns is not None else None)
    if ignore_errors:
        ds = ds.ignore_errors()
    if shuffle:
        ds = ds.shuffle(shuffle_buffer_size, seed=shuffle_seed)
    ds = ds.repeat(num_epochs).batch(batch_size)

    def to_dict(*cols):
        d = dict(zip(keep, cols))
        if label_name is None:
            return d
        if label_name not in d:
            raise ValueError(f"label_name {label_name!r} is not a column: {keep}")
        label = d.pop(label_name)
        return d, label
    return ds.map(to_dict).prefetch(-1 if prefetch_buffer_size is None
                                    else prefetch_buffer_size)


def _infer(col: int, rows: list, na: str):
    vals = [r[col] for r in rows if col < len(r) and r[col] not in ("", na)]
    for cast, default in ((int, 0), (float, 0.0)):
        try:
            for v in vals:
                cast(v)
            return np.int32(0) if default == 0 and cast is int else np.float32(0.0)
        except ValueError:
            continue
    return ""
