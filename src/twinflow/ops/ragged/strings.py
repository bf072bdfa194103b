"""String ops whose results are ragged: ``tw.strings.split`` of a tensor, ``unicode_split``,
``unicode_decode`` and ``ngrams``.

Two ops produce the ragged form directly, as ``(flat values, row_splits)`` of the flattened
input (TensorFlow's StringSplitV2/UnicodeDecode give sparse or split forms the same way); the
public functions wrap them into RaggedTensors, nested for inputs of rank > 1. ``ngrams`` is a
composition: it gathers each row's windows and joins them.
"""
from __future__ import annotations

import numpy as np

from ...core import dtypes
from ...core.shapes import TensorShape
from ...graph.graph import name_scoped
from ...graph.tensor import Tensor, TensorLike
from .. import array_ops as A
from .. import math_ops as M
from .. import string_ops as STR
from ..core import bind, constant_value, convert, register_op
from ..core import invalid_argument as _err
from ..reduction_ops import reduce_prod
from .convert import segment_starts_range
from .tensor import RaggedTensor


def _flat_splits(pieces: list) -> tuple:
    splits = np.zeros(len(pieces) + 1, np.int64)
    splits[1:] = np.cumsum([len(p) for p in pieces])
    return splits


def _known_rows(x) -> int | None:
    n = x.shape.num_elements()
    return None if n is None else n + 1


@register_op("StringSplitRagged", multi_output=True)
class StringSplitRagged:
    """The tokens of every string of ``x`` (flattened) split at ``sep``: (tokens, row_splits)."""

    def infer(x, *, sep, maxsplit):
        STR._check_string(x, "tw.strings.split")
        v = constant_value(x)
        n = None if v is None else sum(len(STR._split_one(s, sep, maxsplit))
                                       for s in np.asarray(v).reshape(-1))
        return [(dtypes.string, TensorShape([n])),
                (dtypes.int64, TensorShape([_known_rows(x)]))]

    def kernel(x, *, sep, maxsplit):
        pieces = [STR._split_one(s, sep, maxsplit) for s in np.asarray(x).reshape(-1)]
        tokens = np.empty(sum(len(p) for p in pieces), dtype=object)
        tokens[:] = [t for p in pieces for t in p]
        return tokens, _flat_splits(pieces)

    grad = STR._no_grad


def _decode(v: bytes, encoding: str, errors: str, replacement: int) -> list:
    """The code points of one string (TensorFlow's error modes)."""
    if errors == "strict":
        try:
            return [ord(c) for c in STR._b(v).decode(encoding)]
        except UnicodeDecodeError as e:
            raise _err(f"Invalid {encoding} data in a string passed to unicode_decode: "
                       f"{e}") from None
    if errors == "ignore":
        return [ord(c) for c in STR._b(v).decode(encoding, errors="ignore")]
    text = STR._b(v).decode(encoding, errors="replace")
    return [replacement if c == 0xFFFD else c for c in map(ord, text)]


@register_op("UnicodeDecodeRagged", multi_output=True)
class UnicodeDecodeRagged:
    """The characters of every string of ``x`` (flattened): (code points or one-character
    strings, row_splits)."""

    def infer(x, *, encoding, errors, replacement_char, as_chars):
        STR._check_string(x, "tw.strings.unicode_decode")
        dt = dtypes.string if as_chars else dtypes.int32
        v = constant_value(x)
        n = None if v is None else sum(len(_decode(s, encoding, errors, replacement_char))
                                       for s in np.asarray(v).reshape(-1))
        return [(dt, TensorShape([n])), (dtypes.int64, TensorShape([_known_rows(x)]))]

    def kernel(x, *, encoding, errors, replacement_char, as_chars):
        pieces = [_decode(s, encoding, errors, replacement_char)
                  for s in np.asarray(x).reshape(-1)]
        flat = [c for p in pieces for c in p]
        if as_chars:
            vals = np.empty(len(flat), dtype=object)
            vals[:] = [chr(c).encode(encoding) for c in flat]
        else:
            vals = np.asarray(flat, dtype=np.int32)
        return vals, _flat_splits(pieces)

    grad = STR._no_grad


def _nest(x: Tensor, values: Tensor, splits: Tensor):
    """The flat ragged result of a rank-k input as a RaggedTensor of rank k + 1."""
    rt = RaggedTensor.from_row_splits(values, splits, validate=False)
    rank = x.shape.rank
    if rank is None:
        raise ValueError("the input's rank must be known")
    dims = x.shape.as_list()
    shp = A.shape(x, out_type=dtypes.int64)
    for d in range(rank - 1, 0, -1):
        if all(v is not None for v in dims[:d + 1]):  # static: keeps every shape known
            lengths = A.fill([int(np.prod(dims[:d]))], convert(dims[d], dtype=dtypes.int64))
        else:
            lengths = A.fill(A.reshape(reduce_prod(shp[:d]), [1]), shp[d])
        rt = RaggedTensor.from_row_lengths(rt, lengths, validate=False)
    return rt


def split(input: TensorLike, sep=None, maxsplit=-1, name: str | None = None
          ) -> Tensor | RaggedTensor:
    """Splits strings into tokens (``tw.strings.split``).

    Args:
        input: a string tensor; a scalar gives a 1-D tensor, rank k gives a RaggedTensor of
            rank k + 1.
        sep: the separator; None splits at runs of whitespace and drops empty tokens.
        maxsplit: at most this many splits per string (-1: no limit).
        name: op name.

    Returns:
        The tokens.
    """
    x = STR._strings(input)
    if x.shape.rank == 0:
        return STR.split(x, sep, maxsplit, name)
    s = None if sep is None else STR._pattern(sep)
    values, splits = bind(StringSplitRagged, [x], {"sep": s, "maxsplit": int(maxsplit)},
                          name=name)
    return _nest(x, values, splits)


def _unicode(input, encoding: str, errors: str, replacement_char: int, as_chars: bool, what):
    x = STR._strings(input)
    if errors not in ("strict", "replace", "ignore"):
        raise ValueError(f"{what}: errors must be 'strict', 'replace' or 'ignore', got "
                         f"{errors!r}")
    enc = {"UTF-8": "utf-8", "UTF-16-BE": "utf-16-be", "UTF-32-BE": "utf-32-be"}.get(
        str(encoding).upper())
    if enc is None:
        raise ValueError(f"{what}: input_encoding must be UTF-8, UTF-16-BE or UTF-32-BE, got "
                         f"{encoding!r}")
    values, splits = bind(UnicodeDecodeRagged, [x], {
        "encoding": enc, "errors": errors, "replacement_char": int(replacement_char),
        "as_chars": as_chars})
    if x.shape.rank == 0:
        return values
    return _nest(x, values, splits)


@name_scoped
def unicode_decode(input: TensorLike, input_encoding: str, errors: str = "replace",
                   replacement_char: int = 65533, replace_control_characters: bool = False,
                   name: str | None = None) -> Tensor | RaggedTensor:
    """The Unicode code points of each string (``tw.strings.unicode_decode``).

    Args:
        input: a string tensor.
        input_encoding: "UTF-8", "UTF-16-BE" or "UTF-32-BE".
        errors: "replace" (invalid bytes become ``replacement_char``), "ignore" or "strict".
        replacement_char: the code point used by "replace".
        replace_control_characters: must be False (not supported).

    Returns:
        int32 code points: a 1-D tensor for a scalar, else a RaggedTensor.
    """
    if replace_control_characters:
        raise ValueError("unicode_decode(replace_control_characters=True) is not supported")
    return _unicode(input, input_encoding, errors, replacement_char, False,
                    "tw.strings.unicode_decode")


@name_scoped
def unicode_split(input: TensorLike, input_encoding: str, errors: str = "replace",
                  replacement_char: int = 65533, name: str | None = None
                  ) -> Tensor | RaggedTensor:
    """Each string split into its characters (``tw.strings.unicode_split``).

    Args:
        input: a string tensor.
        input_encoding: "UTF-8", "UTF-16-BE" or "UTF-32-BE".
        errors: "replace", "ignore" or "strict".
        replacement_char: the code point used by "replace".

    Returns:
        One-character strings: a 1-D tensor for a scalar, else a RaggedTensor.
    """
    return _unicode(input, input_encoding, errors, replacement_char, True,
                    "tw.strings.unicode_split")


@name_scoped
def ngrams(data, ngram_width, separator: str = " ", pad_values=None, padding_width=None,
           preserve_short_sequences: bool = False, name: str | None = None
           ) -> Tensor | RaggedTensor:
    """The ``ngram_width``-grams of each row of tokens, joined by ``separator``.

    Args:
        data: a RaggedTensor or dense tensor of strings (rows of tokens).
        ngram_width: the n-gram width (an int).
        separator: what joins the tokens of an n-gram.
        pad_values: must be None (padding is not supported).
        padding_width: must be None.
        preserve_short_sequences: a row shorter than the width gives one n-gram of all of it.

    Returns:
        A RaggedTensor of n-grams (dense 1-D for 1-D dense input).
    """
    if pad_values is not None or padding_width is not None:
        raise ValueError("tw.strings.ngrams: pad_values/padding_width are not supported")
    if isinstance(ngram_width, (list, tuple)):
        raise ValueError("tw.strings.ngrams: one ngram_width (an int) is supported")
    n = int(ngram_width)
    if n < 1:
        raise ValueError(f"tw.strings.ngrams: ngram_width must be >= 1, got {n}")
    if not isinstance(data, RaggedTensor):
        t = STR._strings(data)
        if t.shape.rank == 1:
            rt = RaggedTensor.from_row_lengths(t, A.reshape(A.size(t, out_type=dtypes.int64),
                                                            [1]))
            return ngrams(rt, n, separator, preserve_short_sequences=preserve_short_sequences
                          ).flat_values
        data = RaggedTensor.from_tensor(t)
    if isinstance(data.values, RaggedTensor):
        return data.with_values(ngrams(data.values, n, separator,
                                       preserve_short_sequences=preserve_short_sequences))
    lengths = data.row_lengths()
    count = M.maximum(lengths - (n - 1), 0)
    width = A.fill(A.shape(lengths), convert(n, dtype=lengths.dtype))
    if preserve_short_sequences:
        short = M.logical_and(M.equal(count, 0), M.greater(lengths, 0))
        width = M.where(short, lengths, width)
        count = M.where(short, M.ones_like(count), count)
    starts = segment_starts_range(data.row_starts(), count)
    w = A.repeat(width, count)
    pieces = []
    for k in range(n):
        pos = M.minimum(starts + k, starts + w - 1)
        tok = A.gather(data.values, pos)
        pieces.append(tok if k == 0 else
                      M.where(M.less(k, w), STR.join([convert(separator), tok]), ""))
    joined = STR.join(pieces) if n > 1 else pieces[0]
    return RaggedTensor.from_row_lengths(joined, count, validate=False)
