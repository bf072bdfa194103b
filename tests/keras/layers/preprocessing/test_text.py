"""TextVectorization against Keras 3.15's outputs (values noted from it)."""
import numpy as np
import pytest

import twinflow as tw

from .helpers import agree, round_trip

L = tw.keras.layers
DATA = np.array(["The Cat sat.", "the dog, the cat!", "A bird"])


def test_int_output_padding_and_truncation():
    t = L.TextVectorization()
    t.adapt(DATA)
    assert t.get_vocabulary() == ["", "[UNK]", "the", "cat", "sat", "dog", "bird", "a"]
    out = agree(t, np.array(["the cat", "a fish sat on the dog"]))
    np.testing.assert_array_equal(out, [[2, 3, 0, 0, 0, 0], [7, 1, 4, 1, 2, 5]])
    short = L.TextVectorization(max_tokens=5, output_sequence_length=3)
    short.adapt(tw.data.Dataset.from_tensor_slices(DATA).batch(2))
    assert short.get_vocabulary() == ["", "[UNK]", "the", "cat", "sat"]
    out = agree(short, np.array([["the cat"], ["a fish sat on the dog"]]))
    np.testing.assert_array_equal(out, [[2, 3, 0], [1, 1, 4]])
    round_trip(short, np.array(["the cat sat"]))


def test_ngrams_character_split_and_ragged():
    t = L.TextVectorization(ngrams=2)
    t.adapt(DATA)
    assert t.get_vocabulary()[:6] == ["", "[UNK]", "the", "the cat", "cat", "the dog"]
    np.testing.assert_array_equal(t(np.array(["the cat sat"])).numpy(), [[2, 4, 6, 3, 9]])
    chars = L.TextVectorization(split="character", standardize=None)
    chars.adapt(np.array(["abca"]))
    assert chars.get_vocabulary() == ["", "[UNK]", "a", "c", "b"]
    np.testing.assert_array_equal(chars(np.array(["ab", "cz"])).numpy(), [[2, 4], [3, 1]])
    rag = L.TextVectorization(ragged=True)
    rag.adapt(DATA)
    assert rag(np.array(["the cat", "a"])).to_list() == [[2, 3], [7]]
    with pytest.raises(ValueError, match="ragged"):
        L.TextVectorization(ragged=True, output_mode="count")


def test_bag_of_words_modes():
    mh = L.TextVectorization(output_mode="multi_hot")
    mh.adapt(DATA)
    out = agree(mh, np.array(["the cat the", "zz"]))
    np.testing.assert_array_equal(out, [[0, 1, 1, 0, 0, 0, 0], [1, 0, 0, 0, 0, 0, 0]])
    count = L.TextVectorization(output_mode="count", standardize="lower")
    count.adapt(DATA)
    assert count.get_vocabulary()[:5] == ["[UNK]", "the", "sat.", "dog,", "cat!"]
    np.testing.assert_array_equal(count(np.array(["the cat the"])).numpy()[0],
                                  [0, 2, 0, 0, 0, 1, 0, 0])
    tfidf = L.TextVectorization(output_mode="tf_idf")
    tfidf.adapt(DATA)
    np.testing.assert_allclose(tfidf(np.array(["the cat the", "zz"])).numpy(),
                               [[0, 1.386294, 0.693147, 0, 0, 0, 0],
                                [0.84191, 0, 0, 0, 0, 0, 0]], rtol=1e-5, atol=1e-6)


def test_vocabulary_file_config_and_model(tmp_path):
    t = L.TextVectorization(vocabulary=["cat", "dog"])
    assert t.get_vocabulary() == ["", "[UNK]", "cat", "dog"] and t.vocabulary_size() == 4
    np.testing.assert_array_equal(t(np.array(["cat dog fox"])).numpy(), [[2, 3, 1]])
    cfg = t.get_config()
    assert cfg["vocabulary"] == ["cat", "dog"] and cfg["vocabulary_size"] == 4
    path = tmp_path / "v.txt"
    path.write_text("cat\ndog\n", encoding="utf-8")
    f = L.TextVectorization(vocabulary=str(path), output_sequence_length=4)
    np.testing.assert_array_equal(f(np.array(["Dog!"])).numpy(), [[3, 0, 0, 0]])
    inp = tw.keras.Input((1,), dtype="string")
    model = tw.keras.Model(inp, L.Embedding(4, 2)(f(inp)))
    assert model.predict(np.array([["cat dog"]]), verbose=0).shape == (1, 4, 2)
    ds = tw.data.Dataset.from_tensor_slices(np.array(["cat", "dog fox"])).batch(2).map(f)
    np.testing.assert_array_equal(next(iter(ds)).numpy(), [[2, 0, 0, 0], [3, 1, 0, 0]])
    with pytest.raises(ValueError, match="output_sequence_length"):
        L.TextVectorization(output_mode="count", output_sequence_length=3)
