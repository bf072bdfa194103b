"""Cases for the ops behind ragged string results: StringSplitRagged (tw.strings.split of a
tensor) and UnicodeDecodeRagged (tw.strings.unicode_decode / unicode_split). Each case returns
the ragged result's (flat values, row_splits)."""
import numpy as np

import twinflow as tw

from .harness import Case


def _s(*xs):
    out = np.empty(len(xs), dtype=object)
    out[:] = [x.encode() if isinstance(x, str) else x for x in xs]
    return out


def _parts(rt):
    return rt.flat_values, rt.row_splits


def _split_ref(x, sep=None):
    pieces = [v.split(sep) if sep is not None else v.split() for v in x.reshape(-1)]
    return _s(*[t for p in pieces for t in p]), np.cumsum([0] + [len(p) for p in pieces])


def _decode_ref(x, chars):
    pieces = [v.decode("utf-8", errors="replace") for v in x.reshape(-1)]
    flat = [c for p in pieces for c in p]
    vals = _s(*[c.encode() for c in flat]) if chars else np.array([ord(c) for c in flat],
                                                                     np.int32)
    return vals, np.cumsum([0] + [len(p) for p in pieces])


WORDS = _s("a bc  d", "", "ef")
CSV = _s("1,2", "3", ",")
UNI = _s("h\u00e9", "ab", "")

CASES = [
    Case(lambda: _parts(tw.strings.split(tw.constant(WORDS))), [],
         lambda: _split_ref(WORDS), name="composite_strings_split"),
    Case(lambda: _parts(tw.strings.split(tw.constant(CSV.reshape(3, 1)), sep=",").merge_dims(
        1, 2)), [], lambda: _split_ref(CSV, b","), name="composite_strings_split_sep_2d"),
    Case(lambda: _parts(tw.strings.unicode_decode(tw.constant(UNI), "UTF-8")), [],
         lambda: _decode_ref(UNI, False), name="composite_unicode_decode"),
    Case(lambda: _parts(tw.strings.unicode_split(tw.constant(UNI), "UTF-8")), [],
         lambda: _decode_ref(UNI, True), name="composite_unicode_split"),
]

SP = tw.sparse.SparseTensor
CASES += [
    Case(lambda: _parts(tw.ragged.cross([tw.ragged.constant([["a", "b"], ["c"]]),
                                         tw.ragged.constant([["x"], ["y"]])])), [],
         lambda: (_s("a_X_x", "b_X_x", "c_X_y"), np.array([0, 2, 3])),
         name="composite_ragged_cross"),
    Case(lambda: _parts(tw.ragged.cross_hashed([tw.ragged.constant([["a", "b"], ["c"]]),
                                                tw.ragged.constant([["x"], ["y"]])], 10)), [],
         lambda: (np.array([2, 4, 0]), np.array([0, 2, 3])),  # TensorFlow 2.21's buckets
         name="composite_ragged_cross_hashed"),
]
