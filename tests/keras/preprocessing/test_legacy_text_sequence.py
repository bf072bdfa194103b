"""keras.preprocessing.text / sequence against Keras 3.15's outputs (fixtures made by
tests/fixtures/keras_preprocessing_legacy/make_fixtures.py)."""
import json
import pathlib

import numpy as np
import pytest

import twinflow as tw

FIX = json.loads((pathlib.Path(__file__).parents[2] / "fixtures" / "keras_preprocessing_legacy"
                  / "expected.json").read_text())
text = tw.keras.preprocessing.text
sequence = tw.keras.preprocessing.sequence
TEXTS = ["The cat sat on the mat.", "The dog ate my homework!", "cat and dog"]


def _fitted():
    tok = text.Tokenizer(num_words=6, oov_token="<oov>")
    tok.fit_on_texts(TEXTS)
    return tok


def test_tokenizer_matches_keras():
    tok, want = _fitted(), FIX["tokenizer"]
    assert tok.word_index == want["word_index"]
    assert tok.texts_to_sequences(TEXTS + ["a cat flew"]) == want["sequences"]
    assert tok.sequences_to_texts([[1, 2, 3, 5, 9]]) == want["texts"]
    np.testing.assert_allclose(tok.texts_to_matrix(TEXTS, mode="tfidf"), want["tfidf"],
                               atol=1e-6)
    np.testing.assert_allclose(tok.texts_to_matrix(TEXTS, mode="freq"), want["freq"],
                               atol=1e-6)


def test_tokenizer_json_round_trip_reads_keras_json():
    back = text.tokenizer_from_json(FIX["tokenizer"]["json"])
    assert back.texts_to_sequences(TEXTS) == _fitted().texts_to_sequences(TEXTS)
    again = text.tokenizer_from_json(_fitted().to_json())
    assert again.word_index == _fitted().word_index
    assert again.index_docs == _fitted().index_docs
    with pytest.raises(ValueError, match="analyzer"):
        text.Tokenizer(analyzer=str.split).to_json()
    with pytest.raises(ValueError, match="vectorization mode"):
        _fitted().texts_to_matrix(TEXTS, mode="bogus")


def test_word_sequence_and_hashing():
    assert text.text_to_word_sequence("Hello, World! it's-me") == FIX["text_to_word_sequence"]
    assert text.hashing_trick("the cat sat on the mat", 10, "md5") == FIX["hashing_trick_md5"]
    ids = text.one_hot("a b a", 5)
    assert ids[0] == ids[2] and all(1 <= i <= 4 for i in ids)


def test_sampling_table_and_timeseries_generator():
    np.testing.assert_allclose(sequence.make_sampling_table(6), FIX["sampling_table"])
    g = sequence.TimeseriesGenerator(np.arange(20.0), np.arange(20.0) * 10, length=4,
                                     sampling_rate=2, stride=3, batch_size=2, reverse=True)
    want = FIX["timeseries"]
    assert len(g) == want["len"]
    np.testing.assert_array_equal(g[1][0], want["x1"])
    np.testing.assert_array_equal(g[1][1], want["y1"])
    assert json.loads(g.to_json())["config"]["length"] == 4
    with pytest.raises(ValueError, match="same length"):
        sequence.TimeseriesGenerator(np.arange(3), np.arange(4), length=1)


def test_skipgrams_seeded_and_labelled():
    pairs, labels = sequence.skipgrams([1, 2, 0, 3], vocabulary_size=5, window_size=1,
                                       seed=7)
    again = sequence.skipgrams([1, 2, 0, 3], vocabulary_size=5, window_size=1, seed=7)
    assert (pairs, labels) == again
    positives = sorted(p for p, lab in zip(pairs, labels) if lab == 1)
    assert positives == [[1, 2], [2, 1]]  # index 0 breaks the 2-3 window
    assert labels.count(0) == 2 and all(1 <= p[1] <= 4 for p, lab in zip(pairs, labels)
                                        if lab == 0)
    _, cat = sequence.skipgrams([1, 2], 3, categorical=True, negative_samples=0, seed=1)
    assert cat == [[0, 1], [0, 1]]


def test_timeseries_generator_trains_a_model():
    data = np.arange(40, dtype=np.float32).reshape(40, 1)
    g = sequence.TimeseriesGenerator(data, data[:, 0], length=3, batch_size=8)
    model = tw.keras.Sequential([tw.keras.Input((3, 1)), tw.keras.layers.Flatten(),
                                 tw.keras.layers.Dense(1)])
    model.compile("sgd", "mse")
    assert len(model.fit(g, epochs=1, verbose=0).history["loss"]) == 1
    assert model.predict(g, verbose=0).shape == (37, 1)
    with pytest.raises(ValueError, match="PyDataset"):
        model.fit(g, np.zeros(3), verbose=0)
