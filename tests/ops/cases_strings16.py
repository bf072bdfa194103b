"""Registry cases for the hashing and Unicode string ops (values from independent NumPy /
Python references: the hash functions' published test vectors are checked in
test_string_unicode.py against TensorFlow)."""
import numpy as np

import twinflow as tw

from .harness import Case

WORDS = np.array([b"a", b"hello"], object)
S2 = np.array([[b"ab", b"c"], [b"", b"de"]], object)

CASES = [
    Case(lambda s: tw.strings.to_hash_bucket(s, 10), [WORDS], None, name="to_hash_bucket"),
    Case(lambda s: tw.strings.to_hash_bucket_fast(s, 10), [WORDS], None,
         name="to_hash_bucket_fast"),
    Case(lambda s: tw.strings.to_hash_bucket_strong(s, 10, [1, 2]), [WORDS], None,
         name="to_hash_bucket_strong"),
    Case(lambda s: tw.strings.unicode_transcode(s, "UTF-8", "UTF-16-BE"), [WORDS],
         lambda s: np.array([v.decode().encode("utf-16-be") for v in s], object),
         name="unicode_transcode"),
    Case(tw.strings.unicode_script, [np.array([65, 0x4E00, -1], np.int32)],
         lambda c: np.array([25, 17, -1], np.int32), name="unicode_script"),
    Case(lambda c: tw.strings.unicode_encode(c, "UTF-8"), [np.array([[104, 105]], np.int32)],
         lambda c: np.array([b"hi"], object), name="unicode_encode"),
    Case(lambda s: tw.strings.unicode_decode_with_offsets(s, "UTF-8"),
         [np.array(b"h\xc3\xa9", object)],
         lambda s: (np.array([104, 233], np.int32), np.array([0, 1], np.int64)),
         name="unicode_decode_with_offsets", graph=False),  # data-dependent lengths
    Case(lambda s: tw.strings.bytes_split(s), [np.array(b"ab", object)],
         lambda s: np.array([b"a", b"b"], object), name="bytes_split", graph=False),
    Case(lambda s: tw.strings.unsorted_segment_join(s, [1, 0], 2, separator="+"), [S2],
         lambda s: np.array([[b"", b"de"], [b"ab", b"c"]], object),
         name="unsorted_segment_join"),
]

COVERED_ELSEWHERE = {
    name: "tests/ops/test_string_unicode.py::test_ragged_string_ops_in_a_function"
    for name in ("UnicodeDecodeWithOffsets", "StringBytesSplit")}
