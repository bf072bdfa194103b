"""tw.strings results that are ragged (values as TensorFlow 2.21 gives them), eagerly and in
tw.function."""
from __future__ import annotations

import pytest

import twinflow as tw
from tests.ops.composite_check import check


def test_split_of_tensors_is_ragged():
    check(lambda: tw.strings.split(["a b", "c  d e", ""]), (),
          ("ragged", [[b"a", b"b"], [b"c", b"d", b"e"], []]))
    check(lambda: tw.strings.split([["a b"], ["c"]]), (), ("ragged", [[[b"a", b"b"]], [[b"c"]]]))
    check(lambda: tw.strings.split(["a,b", "c"], sep=","), (), ("ragged", [[b"a", b"b"], [b"c"]]))
    check(lambda: tw.strings.split("a b"), (), [b"a", b"b"])
    f = tw.function(lambda x: tw.strings.split(x))
    assert f(tw.constant(["x y", "z"])).to_list() == [[b"x", b"y"], [b"z"]]
    assert f(tw.constant(["x y z w", "", "q"])).to_list() == [[b"x", b"y", b"z", b"w"], [],
                                                             [b"q"]]


def test_unicode_decode_and_split():
    check(lambda: tw.strings.unicode_decode([b"h\xc3\xa9llo", b"a\xffb"], "UTF-8"), (),
          ("ragged", [[104, 233, 108, 108, 111], [97, 65533, 98]]))
    check(lambda: tw.strings.unicode_decode(b"a\xffb", "UTF-8", errors="ignore"), (), [97, 98])
    check(lambda: tw.strings.unicode_decode("h\u00e9", "UTF-8"), (), [104, 233])
    check(lambda: tw.strings.unicode_split(["h\u00e9", "ab"], "UTF-8"), (),
          ("ragged", [[b"h", b"\xc3\xa9"], [b"a", b"b"]]))
    with pytest.raises(tw.errors.InvalidArgumentError, match="Invalid utf-8"):
        tw.strings.unicode_decode(b"a\xffb", "UTF-8", errors="strict")


def test_ngrams():
    r = tw.ragged.constant([["a", "b", "c"], ["d"], ["e", "f"]])
    check(lambda: tw.strings.ngrams(r, 2), (), ("ragged", [[b"a b", b"b c"], [], [b"e f"]]))
    check(lambda: tw.strings.ngrams(r, 3, separator="-", preserve_short_sequences=True), (),
          ("ragged", [[b"a-b-c"], [b"d"], [b"e-f"]]))
    check(lambda: tw.strings.ngrams(tw.constant(["a", "b", "c"]), 2), (), [b"a b", b"b c"])
    f = tw.function(lambda x: tw.strings.ngrams(tw.strings.split(x), 2))
    assert f(tw.constant(["a b c", "d"])).to_list() == [[b"a b", b"b c"], []]
