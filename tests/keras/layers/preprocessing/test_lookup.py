"""StringLookup and IntegerLookup against Keras 3.15's outputs (values noted from it)."""
import numpy as np
import pytest

import twinflow as tw

from .helpers import agree, round_trip

L = tw.keras.layers
DATA = np.array([["a", "c", "d"], ["d", "z", "b"], ["a", "d", "e"]])


def test_string_lookup_adapt_and_oov():
    s = L.StringLookup()
    s.adapt(DATA)
    assert s.get_vocabulary() == ["[UNK]", "d", "a", "z", "e", "c", "b"]
    out = agree(s, np.array([["a", "q"], ["e", "d"]]))
    np.testing.assert_array_equal(out, [[2, 0], [4, 1]])
    assert out.dtype == np.int64
    s = L.StringLookup(max_tokens=5, num_oov_indices=2, mask_token="")
    s.adapt(tw.data.Dataset.from_tensor_slices(DATA).batch(2))
    assert s.get_vocabulary() == ["", "[UNK]", "[UNK]", "d", "a"]
    np.testing.assert_array_equal(s(np.array([["a", "q", "", "hello"]])).numpy(),
                                  [[4, 2, 0, 1]])
    round_trip(s, np.array([["a", "q", "", "hello"]]))  # an adapted vocabulary is in the config
    many = L.StringLookup(vocabulary=["a", "b"], num_oov_indices=3)
    np.testing.assert_array_equal(many(np.array(["q", "r", "s", "t"])).numpy(), [2, 1, 1, 1])
    round_trip(many, np.array(["q", "a"]))


def test_string_lookup_encodings():
    voc = ["a", "b", "c"]
    mh = L.StringLookup(vocabulary=voc, output_mode="multi_hot", mask_token="")
    assert mh.get_vocabulary() == ["[UNK]", "a", "b", "c"]
    np.testing.assert_array_equal(agree(mh, np.array([["a", "b", "", "zz"]])), [[1, 1, 1, 0]])
    count = L.StringLookup(vocabulary=voc, output_mode="count")
    np.testing.assert_array_equal(count(np.array([["a", "a", "c", "zz"]])).numpy(),
                                  [[1, 2, 0, 1]])
    oh = L.StringLookup(vocabulary=voc, output_mode="one_hot")
    np.testing.assert_array_equal(oh(np.array(["a", "zz"])).numpy(), np.eye(4)[[1, 0]])
    padded = L.StringLookup(vocabulary=voc, output_mode="multi_hot", pad_to_max_tokens=True,
                            max_tokens=6)
    np.testing.assert_array_equal(padded(np.array([["a", "zz"]])).numpy(), [[1, 1, 0, 0, 0, 0]])
    tfidf = L.StringLookup(output_mode="tf_idf")
    tfidf.adapt(DATA)
    np.testing.assert_allclose(tfidf(np.array([["a", "a", "d", "q"]])).numpy(),
                               [[0.8196544, 0.5596158, 1.3862944, 0, 0, 0, 0]], rtol=1e-6)
    with pytest.raises(ValueError, match="idf_weights"):
        L.StringLookup(vocabulary=voc, output_mode="tf_idf")


def test_string_lookup_invert_file_and_errors(tmp_path):
    inv = L.StringLookup(vocabulary=["a", "b"], invert=True)
    out = agree(inv, np.array([[0, 1, 2, 7]]))
    assert out.tolist() == [[b"[UNK]", b"a", b"b", b"[UNK]"]]
    inv = L.StringLookup(vocabulary=["a", "b"], invert=True, mask_token="")
    assert inv(np.array([[0, 1, 2, 3]])).numpy().tolist() == [[b"", b"[UNK]", b"a", b"b"]]
    path = tmp_path / "vocab.txt"
    path.write_text("a\nb\nc\n\n", encoding="utf-8")
    f = L.StringLookup(vocabulary=str(path))
    assert f.get_vocabulary() == ["[UNK]", "a", "b", "c"]
    round_trip(f, np.array(["c", "x"]))
    strict = L.StringLookup(vocabulary=["a"], num_oov_indices=0)
    with pytest.raises(tw.errors.InvalidArgumentError, match="num_oov_indices=0"):
        strict(np.array(["a", "b"]))
    with pytest.raises(ValueError, match="repeated"):
        L.StringLookup(vocabulary=["a", "a"])
    with pytest.raises(ValueError, match="static vocabulary"):
        L.StringLookup(vocabulary=["a"]).adapt(DATA)
    with pytest.raises(RuntimeError, match="set the layer's vocabulary"):
        L.StringLookup(output_mode="count")(np.array(["a"]))


def test_integer_lookup():
    i = L.IntegerLookup()
    i.adapt(np.array([[12, 13, 13], [7, 12, 12]]))
    assert i.get_vocabulary() == [-1, 12, 13, 7]
    np.testing.assert_array_equal(agree(i, np.array([[12, 13, 99]])), [[1, 2, 0]])
    two = L.IntegerLookup(vocabulary=[12, 36, 1138, 42], num_oov_indices=2)
    out = two(np.array([[12, 1138, 42], [42, 1000, 36], [37, 14, 9]])).numpy()
    np.testing.assert_array_equal(out, [[2, 4, 5], [5, 0, 3], [1, 0, 1]])
    masked = L.IntegerLookup(vocabulary=[12, 36], mask_token=0)
    assert masked.get_vocabulary() == [0, -1, 12, 36]
    np.testing.assert_array_equal(masked(np.array([[12, 0, 99]])).numpy(), [[2, 0, 1]])
    round_trip(masked, np.array([[12, 0, 99]]))
    cfg = masked.get_config()
    assert cfg["vocabulary"] == [12, 36] and cfg["vocabulary_size"] == 4


def test_lookup_ragged_and_model():
    s = L.StringLookup(vocabulary=["a", "b"])
    r = tw.ragged.constant([["a", "b", "x"], ["b"]])
    assert s(r).to_list() == [[1, 2, 0], [2]]
    inp = tw.keras.Input((2,), dtype="string")
    model = tw.keras.Model(inp, s(inp))
    np.testing.assert_array_equal(model.predict(np.array([["a", "q"]]), verbose=0), [[1, 0]])
