"""``tw.keras.preprocessing.text``: Keras' legacy text utilities (``Tokenizer``,
``text_to_word_sequence``, ``one_hot``, ``hashing_trick``). A Tokenizer is saved as JSON
(``to_json`` / ``tokenizer_from_json``), never pickled."""
from __future__ import annotations

import hashlib
import json
from collections import OrderedDict, defaultdict
from collections.abc import Callable, Iterator

import numpy as np

__all__ = ["Tokenizer", "hashing_trick", "one_hot", "text_to_word_sequence",
           "tokenizer_from_json"]

FILTERS = '!"#$%&()*+,-./:;<=>?@[\\]^_`{|}~\t\n'


def text_to_word_sequence(input_text: str, filters: str = FILTERS, lower: bool = True,
                          split: str = " ") -> list:
    """Splits a text into words: characters of ``filters`` become separators.

    Args:
        input_text: the text.
        filters: characters to drop.
        lower: lower-case the text first.
        split: the word separator.

    Returns:
        The non-empty words.
    """
    if lower:
        input_text = input_text.lower()
    input_text = input_text.translate(str.maketrans({c: split for c in filters}))
    return [w for w in input_text.split(split) if w]


def hashing_trick(text: str, n: int, hash_function: Callable | str | None = None,
                  filters: str = FILTERS, lower: bool = True, split: str = " ",
                  analyzer: Callable | None = None) -> list:
    """Each word's hash, mapped into ``[1, n - 1]`` (0 is kept for padding).

    Args:
        text: the text.
        n: the hashing space size.
        hash_function: a callable, ``"md5"`` (stable across runs) or None (Python's ``hash``,
            which changes between processes unless ``PYTHONHASHSEED`` is set).
        filters: characters to drop.
        lower: lower-case first.
        split: the word separator.
        analyzer: a callable text -> words used instead of the splitting above.

    Returns:
        A list of ints.
    """
    if hash_function is None:
        hash_function = hash
    elif hash_function == "md5":
        def hash_function(w: str) -> int:
            return int(hashlib.md5(w.encode()).hexdigest(), 16)
    words = analyzer(text) if analyzer is not None else \
        text_to_word_sequence(text, filters=filters, lower=lower, split=split)
    return [hash_function(w) % (n - 1) + 1 for w in words]


def one_hot(input_text: str, n: int, filters: str = FILTERS, lower: bool = True,
            split: str = " ", analyzer: Callable | None = None) -> list:
    """``hashing_trick`` with Python's ``hash`` (Keras' ``one_hot``: word indices, not one-hot
    vectors).

    Args:
        input_text: the text.
        n: the hashing space size.
        filters: characters to drop.
        lower: lower-case first.
        split: the word separator.
        analyzer: a callable text -> words.

    Returns:
        A list of ints in ``[1, n - 1]``.
    """
    return hashing_trick(input_text, n, hash_function=hash, filters=filters, lower=lower,
                         split=split, analyzer=analyzer)


class Tokenizer:
    """Maps words to indices by decreasing frequency (index 1 is the most frequent word, or
    ``oov_token`` when given).

    Args:
        num_words: keep only indices below this in the outputs (None: all).
        filters: characters to drop.
        lower: lower-case the texts.
        split: the word separator.
        char_level: every character is a token.
        oov_token: the token that replaces unknown words (None: drop them).
        analyzer: a callable text -> words used instead of the splitting.
        **kwargs: ``document_count`` (set by ``tokenizer_from_json``).
    """

    def __init__(self, num_words: int | None = None, filters: str = FILTERS,
                 lower: bool = True, split: str = " ", char_level: bool = False,
                 oov_token: str | None = None, analyzer: Callable | None = None,
                 **kwargs) -> None:
        if "nb_words" in kwargs:
            num_words = kwargs.pop("nb_words")
        self.document_count = kwargs.pop("document_count", 0)
        if kwargs:
            raise TypeError(f"Unrecognized keyword arguments: {kwargs}")
        self.word_counts: dict = OrderedDict()
        self.word_docs: dict = defaultdict(int)
        self.index_docs: dict = defaultdict(int)
        self.word_index: dict = {}
        self.index_word: dict = {}
        self.filters, self.split, self.lower = filters, split, lower
        self.num_words, self.char_level = num_words, char_level
        self.oov_token, self.analyzer = oov_token, analyzer

    def _tokens(self, text) -> list:
        if self.char_level or isinstance(text, list):
            if self.lower:
                text = [t.lower() for t in text] if isinstance(text, list) else text.lower()
            return list(text)
        if self.analyzer is not None:
            return self.analyzer(text)
        return text_to_word_sequence(text, filters=self.filters, lower=self.lower,
                                     split=self.split)

    def fit_on_texts(self, texts) -> None:
        """Counts the words of ``texts`` and rebuilds ``word_index``.

        Args:
            texts: strings, or lists of tokens.

        Returns:
            None.
        """
        for text in texts:
            self.document_count += 1
            seq = self._tokens(text)
            for w in seq:
                self.word_counts[w] = self.word_counts.get(w, 0) + 1
            for w in set(seq):
                self.word_docs[w] += 1
        # a stable sort: equal counts keep first-seen order, as in Keras
        ranked = sorted(self.word_counts.items(), key=lambda kv: kv[1], reverse=True)
        vocab = ([] if self.oov_token is None else [self.oov_token]) + [w for w, _ in ranked]
        self.word_index = {w: i for i, w in enumerate(vocab, start=1)}
        self.index_word = {i: w for w, i in self.word_index.items()}
        for w, c in list(self.word_docs.items()):
            self.index_docs[self.word_index[w]] = c

    def fit_on_sequences(self, sequences) -> None:
        """Counts document frequencies of indices (for ``tfidf`` on sequences).

        Args:
            sequences: lists of word indices.

        Returns:
            None.
        """
        self.document_count += len(sequences)
        for seq in sequences:
            for i in set(seq):
                self.index_docs[i] += 1

    def texts_to_sequences(self, texts) -> list:
        """The index sequence of each text.

        Args:
            texts: strings, or lists of tokens.

        Returns:
            A list of lists of ints.
        """
        return list(self.texts_to_sequences_generator(texts))

    def texts_to_sequences_generator(self, texts) -> Iterator:
        """``texts_to_sequences`` one text at a time.

        Args:
            texts: strings, or lists of tokens.

        Returns:
            An iterator of lists of ints.
        """
        oov = self.word_index.get(self.oov_token)
        for text in texts:
            out = []
            for w in self._tokens(text):
                i = self.word_index.get(w)
                if i is not None and not (self.num_words and i >= self.num_words):
                    out.append(i)
                elif oov is not None and (i is not None or self.oov_token is not None):
                    out.append(oov)
            yield out

    def sequences_to_texts(self, sequences) -> list:
        """Index sequences back to space-joined texts.

        Args:
            sequences: lists of ints.

        Returns:
            A list of strings.
        """
        return list(self.sequences_to_texts_generator(sequences))

    def sequences_to_texts_generator(self, sequences) -> Iterator:
        """``sequences_to_texts`` one sequence at a time.

        Args:
            sequences: lists of ints.

        Returns:
            An iterator of strings.
        """
        oov = self.word_index.get(self.oov_token)
        for seq in sequences:
            words = []
            for i in seq:
                w = self.index_word.get(i)
                if w is not None and not (self.num_words and i >= self.num_words):
                    words.append(w)
                elif oov is not None and (w is not None or self.oov_token is not None):
                    words.append(self.index_word[oov])
            yield " ".join(words)

    def texts_to_matrix(self, texts, mode: str = "binary") -> np.ndarray:
        """``sequences_to_matrix`` of ``texts_to_sequences(texts)``.

        Args:
            texts: strings.
            mode: "binary", "count", "freq" or "tfidf".

        Returns:
            A float64 array ``(len(texts), num_words)``.
        """
        return self.sequences_to_matrix(self.texts_to_sequences(texts), mode=mode)

    def sequences_to_matrix(self, sequences, mode: str = "binary") -> np.ndarray:
        """One row per sequence: per index, presence, count, frequency or TF-IDF.

        Args:
            sequences: lists of ints.
            mode: "binary", "count", "freq" or "tfidf".

        Returns:
            A float64 array ``(len(sequences), num_words)``.
        """
        if mode not in ("binary", "count", "freq", "tfidf"):
            raise ValueError(f"Unknown vectorization mode: {mode}")
        if self.num_words:
            n = self.num_words
        elif self.word_index:
            n = len(self.word_index) + 1
        else:
            raise ValueError("Specify a dimension (`num_words` argument), or fit on some "
                             "text data first.")
        if mode == "tfidf" and not self.document_count:
            raise ValueError("Fit the Tokenizer on some data before using tfidf mode.")
        out = np.zeros((len(sequences), n))
        for row, seq in enumerate(sequences):
            if not seq:
                continue
            counts: dict = defaultdict(int)
            for j in seq:
                if j < n:
                    counts[j] += 1
            for j, c in counts.items():
                if mode == "count":
                    out[row, j] = c
                elif mode == "freq":
                    out[row, j] = c / len(seq)
                elif mode == "binary":
                    out[row, j] = 1
                else:
                    idf = np.log(1 + self.document_count / (1 + self.index_docs.get(j, 0)))
                    out[row, j] = (1 + np.log(c)) * idf
        return out

    def get_config(self) -> dict:
        """The arguments and learned tables (the tables as JSON strings, as Keras writes them).

        Returns:
            A dict.
        """
        return {"num_words": self.num_words, "filters": self.filters, "lower": self.lower,
                "split": self.split, "char_level": self.char_level,
                "oov_token": self.oov_token, "document_count": self.document_count,
                "word_counts": json.dumps(self.word_counts),
                "word_docs": json.dumps(self.word_docs),
                "index_docs": json.dumps(self.index_docs),
                "index_word": json.dumps(self.index_word),
                "word_index": json.dumps(self.word_index)}

    def to_json(self, **kwargs) -> str:
        """The tokenizer as Keras' JSON (``tokenizer_from_json`` reads it back).

        Args:
            **kwargs: passed to ``json.dumps``.

        Returns:
            The JSON text.
        """
        if self.analyzer is not None:
            raise ValueError("A Tokenizer with a custom `analyzer` cannot be saved to JSON")
        return json.dumps({"class_name": type(self).__name__, "config": self.get_config()},
                          **kwargs)


def tokenizer_from_json(json_string: str) -> Tokenizer:
    """Rebuilds a ``Tokenizer`` from ``Tokenizer.to_json()`` (also Keras' files).

    Args:
        json_string: the JSON text.

    Returns:
        The tokenizer.
    """
    config = dict(json.loads(json_string).get("config") or {})
    tables = {k: json.loads(config.pop(k)) for k in
              ("word_counts", "word_docs", "index_docs", "index_word", "word_index")}
    tok = Tokenizer(**config)
    tok.word_counts = OrderedDict(tables["word_counts"])
    tok.word_docs = defaultdict(int, tables["word_docs"])
    tok.index_docs = defaultdict(int, {int(k): v for k, v in tables["index_docs"].items()})
    tok.index_word = {int(k): v for k, v in tables["index_word"].items()}
    tok.word_index = tables["word_index"]
    return tok
