"""File and byte-codec ops of ``tw.io``: read_file/write_file, serialize_tensor/parse_tensor
(TensorFlow's TensorProto bytes), decode_raw, decode_csv, decode_compressed, base64.

Each is an op, so it works eagerly, in ``Dataset.map`` and inside ``tw.function``.
"""
from __future__ import annotations

import base64
import csv
import gzip
import sys
import zlib
from typing import Any

import numpy as np

from ..core import dtypes, errors
from ..core.shapes import TensorShape
from ..eager.execute import bind, convert_to_tensor
from ..graph.graph import name_scoped
from ..graph.registry import register_op
from .atomic import write_atomic
from .gfile import glob as gfile_glob
from .protos import message_class

# TensorFlow's DataType enum values (types.proto)
_DT_ENUM = {d: d.as_datatype_enum for d in dtypes.ALL
            if d is not dtypes.resource and d is not dtypes.variant}
_ENUM_DT = {v: k for k, v in _DT_ENUM.items()}
_STRING_SCALAR = (dtypes.string, TensorShape([]))
# A TensorProto that asks for more elements than this is refused (a hostile or broken file
# could otherwise make parse_tensor allocate without limit).
_MAX_PARSED_ELEMENTS = 1 << 31


def bytes_of(a) -> bytes:
    """One string element as bytes (string tensors hold bytes in object arrays)."""
    if isinstance(a, bytes):
        return a
    if isinstance(a, str):
        return a.encode()
    a = np.asarray(a)
    return bytes_of(a.item()) if a.dtype == object else a.tobytes()


def string_tensor(x):
    """``x`` as a string tensor, keeping bytes exactly (trailing NUL bytes included).

    Args:
        x: a tensor, bytes, str, or a (nested) list or array of them.

    Returns:
        The tensor.
    """
    if hasattr(x, "dtype") and not isinstance(x, np.ndarray):
        return x
    if isinstance(x, (bytes, str)):
        a = np.empty((), dtype=object)
        a[()] = x.encode() if isinstance(x, str) else x
        return convert_to_tensor(a)
    if isinstance(x, (list, tuple)):
        flat = np.asarray(x, dtype=object)
        out = np.empty(flat.shape, dtype=object)
        for idx in np.ndindex(flat.shape):
            v = flat[idx]
            out[idx] = v.encode() if isinstance(v, str) else v
        return convert_to_tensor(out)
    return convert_to_tensor(x)


def _path(a) -> str:
    return bytes_of(a).decode()


def _string_scalar(x, what: str):
    t = string_tensor(x)
    if t.dtype is not dtypes.string:
        raise errors.InvalidArgumentError(None, None, f"{what} must be a string tensor, got "
                                          f"{t.dtype.name}")
    return t


@register_op("ReadFile", stateful=True)
class ReadFile:
    """The contents of a file, as a string scalar."""

    def infer(filename):
        return _STRING_SCALAR

    def kernel(filename):
        path = _path(filename)
        try:
            with open(path, "rb") as f:
                return np.asarray(f.read(), dtype=object)
        except FileNotFoundError:
            raise errors.NotFoundError(None, None, f"{path}; No such file or directory") \
                from None


@register_op("WriteFile", stateful=True, multi_output=True)
class WriteFile:
    """Writes a string scalar to a file, atomically."""

    def infer(filename, contents):
        return []

    def kernel(filename, contents):
        write_atomic(_path(filename), bytes_of(contents))
        return ()


def read_file(filename, name=None) -> Any:
    """The bytes of a file as a string scalar tensor.

    Args:
        filename: the path (string scalar).
        name: the op name.

    Returns:
        A string scalar.
    """
    return bind(ReadFile, [_string_scalar(filename, "filename")], name=name)


def write_file(filename, contents, name=None) -> None:
    """Writes ``contents`` to ``filename`` (a temporary file renamed into place).

    Args:
        filename: the path.
        contents: a string scalar.
        name: the op name.
    """
    bind(WriteFile, [_string_scalar(filename, "filename"),
                     _string_scalar(contents, "contents")], name=name)


def _serialize(a: np.ndarray, dt) -> bytes:
    proto = message_class("TensorProto")()
    proto.dtype = _DT_ENUM[dt]
    for d in a.shape:
        proto.tensor_shape.dim.add(size=d)
    if dt is dtypes.string:
        proto.string_val.extend(bytes_of(x) for x in a.reshape(-1))
    elif a.dtype.kind == "V":  # bfloat16, float8, int4, quantized: little-endian bytes
        proto.tensor_content = _little_endian(np.ascontiguousarray(a)).tobytes()
    else:
        proto.tensor_content = np.ascontiguousarray(a).astype(a.dtype.newbyteorder("<")) \
            .tobytes()
    return proto.SerializeToString()


def _little_endian(a: np.ndarray) -> np.ndarray:
    """The elements of a ``V``-kind array (ml_dtypes, quantized) in little-endian order."""
    if sys.byteorder == "little" or a.dtype.itemsize == 1:
        return a
    u = np.dtype(f"u{a.dtype.itemsize}")
    return a.view(u).byteswap().view(a.dtype)


def _invalid(message: str) -> errors.InvalidArgumentError:
    return errors.InvalidArgumentError(None, None, message)


def _parse(data: bytes, dt) -> np.ndarray:
    cls = message_class("TensorProto")
    try:
        proto = cls.FromString(data)
    except Exception as e:  # noqa: BLE001  (protobuf's DecodeError, re-raised as TF's)
        raise _invalid(f"Could not parse `serialized` as TensorProto: {e}") from None
    got = _ENUM_DT.get(proto.dtype)
    if got is not dt:
        raise _invalid(f"Type mismatch between parsed tensor ({got.name if got else proto.dtype}"
                       f") and dtype ({dt.name})")
    shape = tuple(d.size for d in proto.tensor_shape.dim)
    if any(d < 0 for d in shape):
        raise _invalid(f"TensorProto has a negative dimension: {list(shape)}")
    n = 1
    for d in shape:
        n *= d
    if n > _MAX_PARSED_ELEMENTS:
        raise errors.ResourceExhaustedError(
            None, None, f"parse_tensor: the TensorProto's shape {list(shape)} asks for {n} "
            f"elements (more than {_MAX_PARSED_ELEMENTS})")
    if dt is dtypes.string:
        vals = list(proto.string_val)
        if len(vals) not in (n, 1) or (len(vals) == 1 and n != 1):
            raise _invalid(f"TensorProto holds {len(vals)} strings for shape {list(shape)}")
        return np.asarray(vals + [None], dtype=object)[:-1].reshape(shape)
    if proto.tensor_content:
        a = np.frombuffer(proto.tensor_content, dtype=dt.np if dt.np.kind == "V" else
                          np.dtype(dt.np).newbyteorder("<"))
        a = _little_endian(a) if dt.np.kind == "V" else a
        if a.size != n:
            raise _invalid(f"TensorProto holds {a.size} values for shape {list(shape)}")
        return a.astype(dt.np).reshape(shape)
    vals = _field_values(proto, dt)
    if vals.size not in (n, 1) and not (n == 0 and vals.size == 0):
        raise _invalid(f"TensorProto holds {vals.size} values for shape {list(shape)}")
    return np.broadcast_to(vals, shape).copy() if vals.size == 1 else vals.reshape(shape)


def _field_values(proto, dt) -> np.ndarray:
    """The values of a TensorProto written in its typed fields (not ``tensor_content``)."""
    if dt is dtypes.float16 or dt is dtypes.bfloat16:  # TensorFlow: the bits, in half_val
        return np.asarray(list(proto.half_val), np.uint16).view(dt.np)
    if dt.is_quantized:
        return np.asarray(list(proto.int_val)).astype(dtypes.quantized_storage(dt)).view(dt.np)
    if dt in dtypes.STORAGE_ONLY:
        if not proto.float8_val and dt.is_floating and dt.size == 1:
            return np.zeros(0, dt.np)
        if dt.is_floating:
            return np.frombuffer(proto.float8_val, np.uint8).view(dt.np)
        return np.asarray(list(proto.int_val)).astype(dt.np)
    field = {dtypes.float32: "float_val", dtypes.float64: "double_val",
             dtypes.int64: "int64_val", dtypes.bool_: "bool_val",
             dtypes.uint32: "uint32_val", dtypes.uint64: "uint64_val"}.get(dt, "int_val")
    return np.asarray(list(getattr(proto, field)), dtype=dt.np)


@register_op("SerializeTensor")
class SerializeTensor:
    """A tensor as TensorFlow's serialized TensorProto (a string scalar)."""

    def infer(tensor):
        if tensor.dtype not in _DT_ENUM:
            raise errors.InvalidArgumentError(None, None, f"cannot serialize {tensor.dtype.name}")
        return _STRING_SCALAR

    def kernel(tensor):
        a = np.asarray(tensor)
        return np.asarray(_serialize(a, dtypes.from_numpy(a.dtype)), dtype=object)


@register_op("ParseTensor")
class ParseTensor:
    """The tensor of a serialized TensorProto (shape known only when run)."""

    def infer(serialized, *, out_type):
        return out_type, TensorShape(None)

    def kernel(serialized, *, out_type):
        return _parse(bytes_of(serialized), out_type)


def serialize_tensor(tensor, name=None) -> Any:
    """Serializes a tensor to TensorFlow's TensorProto bytes.

    Args:
        tensor: the tensor.
        name: the op name.

    Returns:
        A string scalar.
    """
    return bind(SerializeTensor, [convert_to_tensor(tensor)], name=name)


def parse_tensor(serialized, out_type, name=None) -> Any:
    """The tensor serialized by ``serialize_tensor`` (or TensorFlow's).

    Args:
        serialized: a string scalar.
        out_type: the expected dtype (InvalidArgumentError if it differs).
        name: the op name.

    Returns:
        The tensor.
    """
    return bind(ParseTensor, [_string_scalar(serialized, "serialized")],
                {"out_type": dtypes.as_dtype(out_type)}, name=name)


@register_op("DecodeRaw")
class DecodeRaw:
    """The bytes of each string reinterpreted as a vector of ``out_type``."""

    def infer(input_bytes, *, out_type, little_endian, fixed_length):
        if input_bytes.dtype is not dtypes.string:
            raise errors.InvalidArgumentError(None, None, "decode_raw needs a string tensor")
        s = input_bytes.shape
        return out_type, TensorShape(None) if s.rank is None else s.concatenate([None])

    def kernel(input_bytes, *, out_type, little_endian, fixed_length):
        flat = [bytes_of(x) for x in np.asarray(input_bytes, dtype=object).reshape(-1)]
        dt = np.dtype(out_type.np).newbyteorder("<" if little_endian else ">")
        if fixed_length is not None:
            flat = [x[:fixed_length].ljust(fixed_length, b"\0") for x in flat]
        lens = {len(x) for x in flat}
        if len(lens) > 1:
            raise errors.InvalidArgumentError(
                None, None, f"DecodeRaw requires input strings to all be the same size, got "
                f"sizes {sorted(lens)}")
        n = lens.pop() if lens else 0
        if n % dt.itemsize:
            raise errors.InvalidArgumentError(
                None, None, f"Input to DecodeRaw has length {n} that is not a multiple of "
                f"{dt.itemsize}, the size of {out_type.name}")
        out = np.frombuffer(b"".join(flat), dtype=dt).astype(out_type.np)
        return out.reshape(np.shape(input_bytes) + (n // dt.itemsize,))


def decode_raw(input_bytes, out_type, little_endian: bool = True, fixed_length=None,
               name=None) -> Any:
    """Reinterprets the bytes of each string as numbers of ``out_type``.

    Args:
        input_bytes: a string tensor (all strings the same length).
        out_type: the numeric dtype.
        little_endian: the byte order of the data.
        fixed_length: truncate or zero-pad each string to this many bytes.
        name: the op name.

    Returns:
        A tensor of shape ``input_bytes.shape + [n]``.
    """
    return bind(DecodeRaw, [_string_scalar(input_bytes, "input_bytes")],
                {"out_type": dtypes.as_dtype(out_type), "little_endian": bool(little_endian),
                 "fixed_length": None if fixed_length is None else int(fixed_length)},
                name=name)


def _csv_field(text: str, default, dt, col: int, na_value: str):
    if text == "" or (na_value and text == na_value):
        if default is None:
            raise errors.InvalidArgumentError(None, None, f"Field {col} is required but missing "
                                              "in record")
        return default
    if dt is dtypes.string:
        return text.encode()
    try:
        t = np.dtype(dt.np).type
        return t(float(text)) if dt.is_floating else t(int(text))
    except ValueError:
        raise errors.InvalidArgumentError(
            None, None, f"Field {col} in record is not a valid {dt.name}: {text!r}") from None


@register_op("DecodeCSV", multi_output=True)
class DecodeCSV:
    """Splits CSV records into one tensor per column (defaults fill empty fields)."""

    def infer(records, *defaults, field_delim, use_quote_delim, na_value, select_cols):
        if records.dtype is not dtypes.string:
            raise errors.InvalidArgumentError(None, None, "decode_csv needs string records")
        for d in defaults:
            if d.shape.rank not in (None, 1) or (d.shape.rank == 1 and d.shape[0] not in
                                                 (None, 0, 1)):
                raise errors.InvalidArgumentError(
                    None, None, "Each record default should be at most rank 1 with 0 or 1 "
                    f"values, got shape {d.shape}")
        return [(d.dtype, records.shape) for d in defaults]

    def kernel(records, *defaults, field_delim, use_quote_delim, na_value, select_cols):
        flat = [bytes_of(x).decode() for x in np.asarray(records, dtype=object).reshape(-1)]
        defs = [np.asarray(d).reshape(-1) for d in defaults]
        types = [dtypes.from_numpy(d.dtype) for d in defs]
        cols: list = [[] for _ in defs]
        for line in flat:
            row = next(csv.reader([line], delimiter=field_delim,
                                  quoting=csv.QUOTE_MINIMAL if use_quote_delim
                                  else csv.QUOTE_NONE), [""])
            if select_cols is not None:
                row = [row[c] if c < len(row) else "" for c in select_cols]
            if len(row) != len(defs):
                raise errors.InvalidArgumentError(
                    None, None, f"Expect {len(defs)} fields but have {len(row)} in record: "
                    f"{line!r}")
            for k, (text, d, t) in enumerate(zip(row, defs, types)):
                cols[k].append(_csv_field(text, d[0] if d.size else None, t, k, na_value))
        shape = np.shape(records)
        return tuple(np.asarray(c + [None], dtype=object)[:-1].reshape(shape)
                     if t is dtypes.string else np.asarray(c, dtype=t.np).reshape(shape)
                     for c, t in zip(cols, types))


def decode_csv(records, record_defaults, field_delim: str = ",", use_quote_delim: bool = True,
               na_value: str = "", select_cols=None, name=None) -> list:
    """Converts CSV records to tensors, one per column.

    Args:
        records: a string tensor of lines.
        record_defaults: one per column: ``[value]`` (used for empty fields, gives the dtype)
            or an empty tensor of the dtype (the field is required).
        field_delim: the delimiter.
        use_quote_delim: treat double quotes as quoting.
        na_value: a string read as missing.
        select_cols: the column indices to keep (sorted).
        name: the op name.

    Returns:
        A list of tensors shaped like ``records``.
    """
    defaults = []
    for d in record_defaults:
        t = convert_to_tensor(d) if hasattr(d, "dtype") else convert_to_tensor(
            list(d) if isinstance(d, (list, tuple)) else [d])
        defaults.append(t if t.shape.rank == 1 else convert_to_tensor(np.reshape(t, [-1])))
    if select_cols is not None:
        select_cols = tuple(int(c) for c in select_cols)
        if list(select_cols) != sorted(set(select_cols)):
            raise ValueError("select_cols must be sorted and unique")
    return list(bind(DecodeCSV, [_string_scalar(records, "records")] + defaults,
                     {"field_delim": field_delim, "use_quote_delim": bool(use_quote_delim),
                      "na_value": na_value, "select_cols": select_cols}, name=name))


def _strings_like(x, **attrs) -> tuple:
    """``infer`` of an op mapping each string of ``x`` to one string."""
    return dtypes.string, x.shape


def _each_string(one, x) -> np.ndarray:
    """``one(bytes)`` of each string of ``x``, as an object array shaped like ``x``."""
    flat = [one(bytes_of(b)) for b in np.asarray(x, dtype=object).reshape(-1)]
    return np.asarray(flat + [None], dtype=object)[:-1].reshape(np.shape(x))


@register_op("DecodeCompressed",
             schema="x@bytes:string -> output:string | compression_type:string in [,ZLIB,GZIP]")
class DecodeCompressed:
    """Decompresses each string (ZLIB or GZIP)."""

    infer = _strings_like

    def kernel(data, *, compression_type):
        def one(b):
            try:
                if compression_type == "GZIP":
                    return gzip.decompress(b)
                if compression_type == "ZLIB":
                    return zlib.decompress(b)
                return b
            except (OSError, zlib.error, EOFError) as e:
                raise errors.DataLossError(None, None, f"decode_compressed: {e}") from None
        return _each_string(one, data)


def decode_compressed(bytes, compression_type: str = "", name=None) -> Any:  # noqa: A002
    """Decompresses strings compressed with ZLIB or GZIP ('' leaves them as they are).

    Args:
        bytes: a string tensor.
        compression_type: '', 'ZLIB' or 'GZIP'.
        name: the op name.

    Returns:
        A string tensor of the same shape.
    """
    if compression_type not in ("", "ZLIB", "GZIP"):
        raise errors.InvalidArgumentError(None, None, f"Unsupported compression_type "
                                          f"{compression_type!r}")
    return bind(DecodeCompressed, [_string_scalar(bytes, "bytes")],
                {"compression_type": compression_type}, name=name)


@register_op("EncodeBase64")
class EncodeBase64:
    """Web-safe base64 of each string."""

    infer = _strings_like

    def kernel(x, *, pad):
        def one(b):
            s = base64.urlsafe_b64encode(b)
            return s if pad else s.rstrip(b"=")
        return _each_string(one, x)


@register_op("DecodeBase64")
class DecodeBase64:
    """Decodes web-safe base64 strings (padding optional)."""

    infer = _strings_like

    def kernel(x):
        def one(s):
            try:
                return base64.urlsafe_b64decode(s + b"=" * (-len(s) % 4))
            except ValueError as e:
                raise errors.InvalidArgumentError(None, None, f"Invalid base64 data: {e}") \
                    from None
        return _each_string(one, x)


def encode_base64(input, pad: bool = False, name=None) -> Any:  # noqa: A002
    """Web-safe base64 encoding of each string.

    Args:
        input: a string tensor.
        pad: keep the '=' padding.
        name: the op name.

    Returns:
        A string tensor.
    """
    return bind(EncodeBase64, [_string_scalar(input, "input")], {"pad": bool(pad)}, name=name)


def decode_base64(input, name=None) -> Any:  # noqa: A002
    """Decodes web-safe base64 strings.

    Args:
        input: a string tensor.
        name: the op name.

    Returns:
        A string tensor.
    """
    return bind(DecodeBase64, [_string_scalar(input, "input")], name=name)


@name_scoped
def matching_files(pattern, name=None) -> Any:
    """The sorted file names matching a glob pattern (a string vector).

    Args:
        pattern: the pattern (or a list of them).

    Returns:
        A string vector.
    """
    names = gfile_glob([_path(p) for p in np.asarray(convert_to_tensor(pattern)._value,
                                               dtype=object).reshape(-1)])
    return convert_to_tensor(np.asarray([n.encode() for n in names] + [None],
                                        dtype=object)[:-1])


__all__ = ["decode_base64", "decode_compressed", "decode_csv", "decode_raw", "encode_base64",
           "matching_files", "parse_tensor", "read_file", "serialize_tensor", "write_file"]
