"""String hashing and Unicode ops against TensorFlow 2.21 (tests/fixtures/strings/)."""
import base64
import json
import pathlib

import numpy as np
import pytest

import twinflow as tw

F = json.loads((pathlib.Path(__file__).parents[1] / "fixtures" / "strings" /
                "strings.json").read_text())
BAD = [base64.b64decode(v) for v in F["bad"]]


def _b64(values):
    return [base64.b64encode(v).decode() for v in np.asarray(values).reshape(-1)]


def test_hash_buckets_match_tensorflow():
    w = F["words"]
    assert tw.strings.to_hash_bucket(w, 1000003).numpy().tolist() == F["hash"]
    assert tw.strings.to_hash_bucket_fast(w, 1000003).numpy().tolist() == F["hash_fast"]
    got = tw.strings.to_hash_bucket_strong(w, 1000003, [7, -3])
    assert got.numpy().tolist() == F["hash_strong"]
    with pytest.raises(ValueError, match="two elements"):
        tw.strings.to_hash_bucket_strong(w, 10, [1])
    with pytest.raises(tw.errors.InvalidArgumentError, match="num_buckets"):
        tw.function(lambda s: tw.strings.to_hash_bucket_fast(s, 0))(tw.constant(w))


@pytest.mark.parametrize("errors", ["replace", "ignore"])
def test_decode_with_offsets_matches_tensorflow(errors):
    c, o = tw.strings.unicode_decode_with_offsets(BAD, "UTF-8", errors=errors)
    assert c.to_list() == F[f"decode_{errors}"]
    assert o.to_list() == F[f"offsets_{errors}"]
    chars, offs = tw.strings.unicode_split_with_offsets(BAD[2], "UTF-8")
    assert [x.decode() for x in chars.numpy()] == list("héllo😀")
    assert offs.numpy().tolist() == F["offsets_replace"][2]
    with pytest.raises(tw.errors.InvalidArgumentError, match="Invalid"):
        tw.strings.unicode_decode_with_offsets(BAD, "UTF-8", errors="strict")


def test_transcode_encode_script_match_tensorflow():
    for enc in ("UTF-16-BE", "UTF-32-BE"):
        got = tw.strings.unicode_transcode(BAD, "UTF-8", enc).numpy()
        assert _b64(got) == F[f"transcode_{enc}"]
    got = tw.strings.unicode_transcode(BAD, "UTF-8", "UTF-8", replacement_char=63).numpy()
    assert _b64(got) == F["transcode_q"]
    got = tw.strings.unicode_encode([[104, 105], [0xD800, 0x110000]], "UTF-8").numpy()
    assert _b64(got) == F["encode"]
    assert tw.strings.unicode_script(F["script_in"]).numpy().tolist() == F["script"]
    with pytest.raises(tw.errors.InvalidArgumentError, match="surrogate"):
        tw.strings.unicode_encode([104, -1], "UTF-8", errors="strict")


def test_encode_ragged_bytes_split_and_segment_join():
    rt = tw.ragged.constant([[104, 105], [233], []])
    assert tw.strings.unicode_encode(rt, "UTF-8").numpy().tolist() == [b"hi", "é".encode(), b""]
    split = tw.strings.bytes_split(["abc", "é"])
    assert split.to_list() == [[b"a", b"b", b"c"], [b"\xc3", b"\xa9"]]
    assert tw.strings.bytes_split("ab").numpy().tolist() == [b"a", b"b"]
    got = tw.strings.unsorted_segment_join(["a", "b", "c", "d"], [1, 0, 1, 3], 4, separator="-")
    assert got.numpy().tolist() == [b"b", b"a-c", b"", b"d"]
    got = tw.strings.unsorted_segment_join([["a", "b"], ["c", "d"]], [1, 1], 2, separator=":")
    assert got.numpy().tolist() == [[b"", b""], [b"a:c", b"b:d"]]
    f = tw.function(lambda s: tw.strings.unsorted_segment_join(s, [0, 0], 1))
    assert f(tw.constant(["x", "y"])).numpy().tolist() == [b"xy"]
    with pytest.raises(tw.errors.InvalidArgumentError, match="num_segments"):
        tw.strings.unsorted_segment_join(["a"], [2], 1)


def test_ragged_string_ops_in_a_function():
    @tw.function
    def f(s):
        c, o = tw.strings.unicode_decode_with_offsets(s, "UTF-8")
        return c.flat_values, o.flat_values, tw.strings.bytes_split(s).flat_values

    c, o, b = f(tw.constant(BAD))
    assert c.numpy().tolist() == sum(F["decode_replace"], [])
    assert o.numpy().tolist() == sum(F["offsets_replace"], [])
    assert b.numpy().tolist() == [bytes([x]) for v in BAD for x in v]
