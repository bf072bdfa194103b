"""``tw.strings``: string ops (re-exports)."""
from .ops.ragged.strings import ngrams, split, unicode_decode, unicode_split  # noqa: F401
from .ops.string_hash import (  # noqa: F401
    to_hash_bucket,
    to_hash_bucket_fast,
    to_hash_bucket_strong,
)
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
from .ops.string_unicode import (  # noqa: F401
    bytes_split,
    unicode_decode_with_offsets,
    unicode_encode,
    unicode_script,
    unicode_split_with_offsets,
    unicode_transcode,
    unsorted_segment_join,
)

__all__ = ["as_string", "format", "join", "length", "lower", "reduce_join", "regex_full_match",
           "regex_replace", "split", "strip", "substr", "to_number", "upper", "ngrams",
           "unicode_decode", "unicode_split", "to_hash_bucket", "to_hash_bucket_fast",
           "to_hash_bucket_strong", "bytes_split", "unicode_decode_with_offsets", "unicode_encode",
           "unicode_script", "unicode_split_with_offsets", "unicode_transcode",
           "unsorted_segment_join"]
