"""``tw.strings``: string ops (re-exports)."""
from .ops.ragged.strings import ngrams, split, unicode_decode, unicode_split  # noqa: F401
from .ops.string_ops import (  # noqa: F401
    as_string,
    format,
    join,
    length,
    lower,
    reduce_join,
    regex_full_match,
    regex_replace,
    strip,
    substr,
    to_number,
    upper,
)

__all__ = ["as_string", "format", "join", "length", "lower", "reduce_join", "regex_full_match",
           "regex_replace", "split", "strip", "substr", "to_number", "upper", "ngrams",
           "unicode_decode", "unicode_split"]
