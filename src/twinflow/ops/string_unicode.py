"""Unicode string ops: ``unicode_encode``, ``unicode_transcode``, ``unicode_script``,
``unicode_decode_with_offsets``, ``unicode_split_with_offsets``, ``bytes_split`` and
``unsorted_segment_join``.

Decoding follows TensorFlow's error modes (``replace``: each maximal invalid byte sequence
becomes one ``replacement_char``; ``ignore``: dropped; ``strict``: an error) and reports each
character's starting byte. Ragged results come from ops giving the flat ragged form
(``row_splits`` and values), as TensorFlow's ``UnicodeDecodeWithOffsets`` does. Scripts are
ICU's ``UScriptCode`` numbers, looked up in a range table made with TensorFlow
(``unicode_script_table.py``).
"""
from __future__ import annotations

import numpy as np

from ..core import dtypes
from ..core.shapes import TensorShape
from ..eager.execute import bind, constant_value
from ..graph.graph import name_scoped
from ..graph.registry import register_op
from ..graph.tensor import Tensor, TensorLike
from . import array_ops as A
from . import string_ops as STR
from .core import convert
from .core import invalid_argument as _err
from .math_ops import cast
from .ragged.strings import _flat_splits, _known_rows, _nest
from .ragged.tensor import RaggedTensor
from .reduction_ops import reduce_prod
from .unicode_script_table import SCRIPT_CODES, SCRIPT_STARTS

_ENCODINGS = {"UTF-8": "utf-8", "UTF-16-BE": "utf-16-be", "UTF-32-BE": "utf-32-be"}
_ERRORS = ("strict", "replace", "ignore")


def _encoding(name: str, what: str) -> str:
    enc = _ENCODINGS.get(str(name).upper())
    if enc is None:
        raise ValueError(f"{what}: the encoding must be UTF-8, UTF-16-BE or UTF-32-BE, got "
                         f"{name!r}")
    return enc


def _errors(errors: str, what: str) -> str:
    if errors not in _ERRORS:
        raise ValueError(f"{what}: errors must be 'strict', 'replace' or 'ignore', got "
                         f"{errors!r}")
    return errors


def decode_with_offsets(v: bytes, encoding: str, errors: str, replacement: int,
                        replace_control: bool) -> tuple[list, list]:
    """The code points of one string and the byte offset where each starts."""
    chars: list = []
    offsets: list = []
    pos = 0
    while pos < len(v):
        try:
            text = v[pos:].decode(encoding)
            bad = None
        except UnicodeDecodeError as e:
            text = v[pos:pos + e.start].decode(encoding)
            bad = (pos + e.start, pos + e.end)
        for ch in text:
            code = ord(ch)
            chars.append(replacement if replace_control and code < 0x20 else code)
            offsets.append(pos)
            pos += len(ch.encode(encoding))
        if bad is not None:
            if errors == "strict":
                raise _err(f"Invalid {encoding} data at byte {bad[0]} of {v!r}")
            if errors == "replace":
                chars.append(replacement)
                offsets.append(bad[0])
            pos = bad[1]
    return chars, offsets


@register_op("UnicodeDecodeWithOffsets", multi_output=True, schema=(
    "input:string -> row_splits:Tsplits, char_values:int32, char_to_byte_starts:int64 | "
    "input_encoding:string; errors:string='replace' in [strict,replace,ignore]; "
    "replacement_char:int=65533; replace_control_characters:bool=False; "
    "Tsplits:type=int64 in [int32,int64]"))
class UnicodeDecodeWithOffsets:
    """The code points of every string of ``input`` (flattened), with the byte offset of each:
    (row_splits, code points, offsets)."""

    def infer(input, *, input_encoding, errors="replace", replacement_char=65533,
              replace_control_characters=False, Tsplits=dtypes.int64):
        STR._check_string(input, "tw.strings.unicode_decode_with_offsets")
        return [(dtypes.as_dtype(Tsplits), TensorShape([_known_rows(input)])),
                (dtypes.int32, TensorShape([None])), (dtypes.int64, TensorShape([None]))]

    def kernel(input, *, input_encoding, errors="replace", replacement_char=65533,
               replace_control_characters=False, Tsplits=dtypes.int64):
        pieces = [decode_with_offsets(STR._b(s), input_encoding, errors, replacement_char,
                                      replace_control_characters)
                  for s in np.asarray(input).reshape(-1)]
        splits = _flat_splits([p[0] for p in pieces]).astype(dtypes.as_dtype(Tsplits).np)
        return (splits, np.asarray([c for p in pieces for c in p[0]], np.int32),
                np.asarray([o for p in pieces for o in p[1]], np.int64))

    grad = STR._no_grad


def _encode_row(codes, encoding: str, errors: str, replacement: int) -> bytes:
    out = []
    for c in codes:
        c = int(c)
        if c < 0 or c > 0x10FFFF or 0xD800 <= c <= 0xDFFF:
            if errors == "strict":
                raise _err(f"Code point is out of range for Unicode, or is a surrogate: {c}")
            if errors == "ignore":
                continue
            c = replacement
        out.append(chr(c))
    return "".join(out).encode(encoding)


@register_op("UnicodeEncode", schema=(
    "input_values:int32, input_splits:Tsplits -> output:string | errors:string='replace' in "
    "[ignore,replace,strict]; output_encoding:string in [UTF-8,UTF-16-BE,UTF-32-BE]; "
    "replacement_char:int=65533; Tsplits:type=int64 in [int32,int64]"))
class UnicodeEncode:
    """One string per row of a flat ragged tensor of code points."""

    def infer(input_values, input_splits, *, output_encoding, errors="replace",
              replacement_char=65533, Tsplits=dtypes.int64):
        n = input_splits.shape[0] if input_splits.shape.rank == 1 else None
        return dtypes.string, TensorShape([None if n is None else n - 1])

    def kernel(input_values, input_splits, *, output_encoding, errors="replace",
               replacement_char=65533, Tsplits=dtypes.int64):
        if input_splits.ndim != 1 or len(input_splits) == 0 or input_splits[0] != 0 or \
                input_splits[-1] != len(input_values) or (np.diff(input_splits) < 0).any():
            raise _err(f"input_splits must be ascending from 0 to {len(input_values)}, got "
                       f"{input_splits.tolist()}")
        enc = _ENCODINGS[output_encoding]
        out = np.empty(len(input_splits) - 1, object)
        out[:] = [_encode_row(input_values[a:b], enc, errors, replacement_char)
                  for a, b in zip(input_splits[:-1], input_splits[1:])]
        return out

    grad = STR._no_grad


@name_scoped
def unicode_encode(input, output_encoding: str, errors: str = "replace",
                   replacement_char: int = 65533, name: str | None = None
                   ) -> Tensor | RaggedTensor:
    """Encodes code points into strings: one string per innermost row.

    Args:
        input: int32 code points ``[..., N]`` (a tensor) or a RaggedTensor.
        output_encoding: "UTF-8", "UTF-16-BE" or "UTF-32-BE".
        errors: for invalid code points: "replace", "ignore" or "strict".
        replacement_char: the code point that replaces invalid ones.
        name: op name.

    Returns:
        Strings shaped like ``input`` without its last dimension.
    """
    if output_encoding not in _ENCODINGS:
        raise ValueError(f"unicode_encode: output_encoding must be one of "
                         f"{sorted(_ENCODINGS)}, got {output_encoding!r}")
    attrs = {"output_encoding": output_encoding,
             "errors": _errors(errors, "unicode_encode"),
             "replacement_char": int(replacement_char)}
    if isinstance(input, RaggedTensor):
        if input.ragged_rank == 1:
            return bind(UnicodeEncode, [cast(input.values, dtypes.int32), input.row_splits],
                        attrs)
        return input.with_values(unicode_encode(input.values, output_encoding, errors,
                                                replacement_char))
    x = cast(convert(input), dtypes.int32)
    if x.shape.rank is None or x.shape.rank == 0:
        raise ValueError(f"unicode_encode: input must have a known rank >= 1, got {x.shape}")
    flat = A.reshape(x, [-1])
    if x.shape.is_fully_defined():
        dims = x.shape.as_list()
        rows = int(np.prod(dims[:-1]))
        out = bind(UnicodeEncode, [flat, convert(np.arange(rows + 1, dtype=np.int64) *
                                                 dims[-1])], attrs)
        return A.reshape(out, dims[:-1])
    shp = A.shape(x, out_type=dtypes.int64)
    rows = reduce_prod(shp[:-1])
    splits = A.range(0, rows + 1, dtype=dtypes.int64) * shp[-1]
    out = bind(UnicodeEncode, [flat, splits], attrs)
    return A.reshape(out, shp[:-1])


def _transcode_one(v, inp: str, out: str, errors: str, repl: int, control: bool) -> bytes:
    codes, _ = decode_with_offsets(STR._b(v), inp, errors, repl, control)
    return _encode_row(codes, out, "replace", repl)


@register_op("UnicodeTranscode", schema=(
    "input:string -> output:string | input_encoding:string; output_encoding:string in "
    "[UTF-8,UTF-16-BE,UTF-32-BE]; errors:string='replace' in [strict,replace,ignore]; "
    "replacement_char:int=65533; replace_control_characters:bool=False"))
class UnicodeTranscode:
    """Each string re-encoded from ``input_encoding`` to ``output_encoding``."""

    infer = STR.string_map_infer(dtypes.string, "tw.strings.unicode_transcode")

    def kernel(input, *, input_encoding, output_encoding, errors="replace",
               replacement_char=65533, replace_control_characters=False):
        return STR._map(lambda v: _transcode_one(v, _ENCODINGS[input_encoding],
                                                 _ENCODINGS[output_encoding], errors,
                                                 replacement_char, replace_control_characters),
                        input)

    grad = STR._no_grad


def unicode_transcode(input: TensorLike, input_encoding: str, output_encoding: str,
                      errors: str = "replace", replacement_char: int = 65533,
                      replace_control_characters: bool = False,
                      name: str | None = None) -> Tensor:
    """Re-encodes each string.

    Args:
        input: a string tensor.
        input_encoding: "UTF-8", "UTF-16-BE" or "UTF-32-BE".
        output_encoding: "UTF-8", "UTF-16-BE" or "UTF-32-BE".
        errors: for invalid input: "replace", "ignore" or "strict".
        replacement_char: the code point that replaces invalid input.
        replace_control_characters: also replace C0 control characters (U+0000-U+001F).
        name: op name.

    Returns:
        A string tensor shaped like ``input``.
    """
    _encoding(input_encoding, "unicode_transcode")
    return bind(UnicodeTranscode, [STR._strings(input)], {
        "input_encoding": str(input_encoding).upper(), "output_encoding": output_encoding,
        "errors": _errors(errors, "unicode_transcode"),
        "replacement_char": int(replacement_char),
        "replace_control_characters": bool(replace_control_characters)}, name=name)


@register_op("UnicodeScript", schema="input:int32 -> output:int32")
class UnicodeScript:
    """ICU's script code of each code point (-1 for invalid code points)."""

    def infer(input):
        return dtypes.int32, input.shape

    def kernel(input):
        x = np.asarray(input)
        idx = np.searchsorted(SCRIPT_STARTS, x, side="right") - 1
        out = np.asarray(SCRIPT_CODES, np.int32)[np.clip(idx, 0, None)]
        return np.where((x < 0) | (x > 0x10FFFF), -1, out).astype(np.int32)

    grad = STR._no_grad


def unicode_script(input: TensorLike, name: str | None = None) -> Tensor:
    """The Unicode script of each code point, as ICU's ``UScriptCode`` number (0 common,
    1 inherited, 25 Latin, 17 Han...).

    Args:
        input: int32 code points.
        name: op name.

    Returns:
        int32 script codes (-1 for values that are not code points).
    """
    return bind(UnicodeScript, [convert(input, dtype=dtypes.int32)], name=name)


def _with_offsets(input, input_encoding, errors, replacement_char, control, as_chars, what):
    x = STR._strings(input)
    attrs = {"input_encoding": str(input_encoding).upper(), "errors": _errors(errors, what),
             "replacement_char": int(replacement_char),
             "replace_control_characters": bool(control)}
    _encoding(input_encoding, what)
    splits, codes, offsets = bind(UnicodeDecodeWithOffsets, [x], attrs)
    if as_chars:
        codes = bind(UnicodeEncode, [codes, A.range(0, A.size(codes, out_type=dtypes.int64) + 1,
                                                    dtype=dtypes.int64)],
                     {"output_encoding": "UTF-8", "errors": "replace",
                      "replacement_char": int(replacement_char)})
    if x.shape.rank == 0:
        return codes, offsets
    return _nest(x, codes, splits), _nest(x, offsets, splits)


@name_scoped
def unicode_decode_with_offsets(input: TensorLike, input_encoding: str,
                                errors: str = "replace", replacement_char: int = 65533,
                                replace_control_characters: bool = False,
                                name: str | None = None) -> tuple:
    """As ``unicode_decode``, with the byte offset where each code point starts.

    Args:
        input, input_encoding, errors, replacement_char: as in ``unicode_decode``.
        replace_control_characters: also replace C0 control characters (U+0000-U+001F).
        name: op name.

    Returns:
        ``(code points, offsets)``: 1-D for a scalar input, else RaggedTensors.
    """
    return _with_offsets(input, input_encoding, errors, replacement_char,
                         replace_control_characters, False, "unicode_decode_with_offsets")


@name_scoped
def unicode_split_with_offsets(input: TensorLike, input_encoding: str, errors: str = "replace",
                               replacement_char: int = 65533,
                               name: str | None = None) -> tuple:
    """As ``unicode_split`` (characters as UTF-8 strings), with their byte offsets.

    Args:
        input, input_encoding, errors, replacement_char: as in ``unicode_split``.
        name: op name.

    Returns:
        ``(characters, offsets)``: 1-D for a scalar input, else RaggedTensors.
    """
    return _with_offsets(input, input_encoding, errors, replacement_char, False, True,
                         "unicode_split_with_offsets")


@register_op("StringBytesSplit", multi_output=True,
             schema="input:string -> values:string, row_splits:int64")
class StringBytesSplit:
    """The bytes of every string of ``input`` (flattened): (one-byte strings, row_splits)."""

    def infer(input):
        STR._check_string(input, "tw.strings.bytes_split")
        return [(dtypes.string, TensorShape([None])),
                (dtypes.int64, TensorShape([_known_rows(input)]))]

    def kernel(input):
        pieces = [[b[i:i + 1] for i in range(len(b))]
                  for b in map(STR._b, np.asarray(input).reshape(-1))]
        vals = np.empty(sum(len(p) for p in pieces), object)
        vals[:] = [c for p in pieces for c in p]
        return vals, _flat_splits(pieces)

    grad = STR._no_grad


@name_scoped
def bytes_split(input, name: str | None = None) -> Tensor | RaggedTensor:
    """Splits each string into its bytes.

    Args:
        input: a string tensor or RaggedTensor.
        name: op name.

    Returns:
        One-byte strings: 1-D for a scalar, else a RaggedTensor one rank higher.
    """
    if isinstance(input, RaggedTensor):
        return input.with_flat_values(bytes_split(input.flat_values))
    x = STR._strings(input)
    values, splits = bind(StringBytesSplit, [x])
    return values if x.shape.rank == 0 else _nest(x, values, splits)


def _join_infer(inputs, segment_ids, num_segments, *, separator=""):
    STR._check_string(inputs, "tw.strings.unsorted_segment_join")
    si, ss = inputs.shape, segment_ids.shape
    if si.rank is None or ss.rank is None:
        return dtypes.string, TensorShape(None)
    if not TensorShape(si.as_list()[:ss.rank]).is_compatible_with(ss):
        raise _err(f"segment_ids shape {ss} must be a prefix of inputs shape {si}")
    from_const = num_segments.shape.rank == 0
    n = constant_value(num_segments) if from_const else None
    return dtypes.string, TensorShape([None if n is None else int(n)] +
                                      si.as_list()[ss.rank:])


@register_op("UnsortedSegmentJoin", check_shapes=True, schema=(
    "inputs:string, segment_ids:Tindices, num_segments:Tnumsegments -> output:string | "
    "separator:string=''; Tindices:type in [int32,int64]; "
    "Tnumsegments:type=int32 in [int32,int64]"))
class UnsortedSegmentJoin:
    """Joins the strings of each segment (in input order) with ``separator``."""

    infer = _join_infer

    def kernel(inputs, segment_ids, num_segments, *, separator=""):
        n = int(num_segments)
        if n < 0:
            raise _err(f"num_segments must be non-negative, got {n}")
        ids = np.asarray(segment_ids).reshape(-1)
        if (ids >= n).any():
            raise _err(f"segment_ids must be < num_segments = {n}, got {int(ids.max())}")
        inner = inputs.shape[segment_ids.ndim:]
        rows = np.asarray(inputs).reshape(len(ids), -1)
        sep = STR._b(separator)
        out = np.empty((n, rows.shape[1]), object)
        for s in range(n):
            picked = rows[ids == s]
            for j in range(rows.shape[1]):
                out[s, j] = sep.join(STR._b(v) for v in picked[:, j])
        return out.reshape((n,) + inner)

    grad = STR._no_grad


def unsorted_segment_join(inputs: TensorLike, segment_ids: TensorLike, num_segments,
                          separator: str = "", name: str | None = None) -> Tensor:
    """Joins the strings of each segment, in input order.

    Args:
        inputs: a string tensor.
        segment_ids: int ids (a prefix of ``inputs``' shape); negative ids are dropped.
        num_segments: the number of segments.
        separator: placed between joined strings.
        name: op name.

    Returns:
        ``[num_segments] + inputs.shape[rank(segment_ids):]`` strings ("" for empty segments).
    """
    ids = convert(segment_ids)
    return bind(UnsortedSegmentJoin, [STR._strings(inputs), ids,
                                      convert(num_segments, dtype_hint=dtypes.int32)],
                {"separator": str(separator)}, name=name)
