"""TextVectorization: standardize, split, n-grams, then a StringLookup (Keras 3's layer)."""
from __future__ import annotations

import numpy as np

from ....core import dtypes
from ....graph.tensor import Tensor
from ....ops import array_ops, math_ops
from ....ops.ragged.strings import ngrams as _ngrams
from ....ops.ragged.strings import split, unicode_split
from ....ops.string_ops import lower, regex_replace
from . import kernels
from .base import PreprocessingLayer
from .lookup import StringLookup
from .numeric import check_mode

# Keras' DEFAULT_STRIP_REGEX: ASCII punctuation.
_PUNCTUATION = r"[!\"#$%&()\*\+,\-\./:;<=>?@\[\\\]^_`{|}~']"
_STANDARDIZE = (None, "lower_and_strip_punctuation", "lower", "strip_punctuation")
_SPLIT = (None, "whitespace", "character")


def _tokens_of(x):
    """``x`` if it is a RaggedTensor of tokens, else None."""
    return x if hasattr(x, "flat_values") else None


class TextVectorization(PreprocessingLayer):
    """Turns strings into token indices or bag-of-words vectors.

    Args:
        max_tokens: the largest vocabulary size (the mask and OOV tokens included).
        standardize: None, "lower_and_strip_punctuation", "lower", "strip_punctuation" or a
            callable on the string tensor.
        split: None, "whitespace", "character" or a callable returning tokens.
        ngrams: None, an int n (1..n-grams) or a tuple of widths.
        output_mode: "int", "multi_hot", "count" or "tf_idf".
        output_sequence_length: pad or truncate "int" outputs to this length.
        pad_to_max_tokens: encoded outputs have ``max_tokens`` columns.
        vocabulary: a list of tokens or a vocabulary file path.
        idf_weights: the IDF weights for "tf_idf".
        sparse: must be False.
        ragged: return "int" outputs as a RaggedTensor.
        encoding: must be "utf-8".
        **kwargs: Layer arguments.
    """

    def __init__(self, max_tokens=None, standardize="lower_and_strip_punctuation",
                 split="whitespace", ngrams=None, output_mode: str = "int",
                 output_sequence_length=None, pad_to_max_tokens: bool = False,
                 vocabulary=None, idf_weights=None, sparse: bool = False,
                 ragged: bool = False, encoding: str = "utf-8", **kwargs) -> None:
        vocabulary_size = kwargs.pop("vocabulary_size", None)
        super().__init__(**kwargs)
        if not (standardize in _STANDARDIZE or callable(standardize)):
            raise ValueError(f"Invalid value for argument `standardize`. Expected one of "
                             f"{list(_STANDARDIZE)} or a callable. Received: {standardize!r}")
        if not (split in _SPLIT or callable(split)):
            raise ValueError(f"Invalid value for argument `split`. Expected one of "
                             f"{list(_SPLIT)} or a callable. Received: {split!r}")
        output_mode = check_mode(output_mode, ("int", "multi_hot", "count", "tf_idf"),
                                 legacy=True)
        if ngrams is not None and not (isinstance(ngrams, int) or
                                       (isinstance(ngrams, (tuple, list)) and
                                        all(isinstance(n, int) for n in ngrams))):
            raise ValueError(f"`ngrams` must be None, an integer, or a tuple of integers. "
                             f"Received: ngrams={ngrams}")
        if output_sequence_length is not None and output_mode != "int":
            raise ValueError(f"`output_sequence_length` must not be set if `output_mode` is "
                             f"not 'int'. Received: output_sequence_length="
                             f"{output_sequence_length}.")
        if ragged and output_mode != "int":
            raise ValueError(f"`ragged=True` needs output_mode='int'. Received: "
                             f"output_mode={output_mode}")
        if ragged and output_sequence_length is not None:
            raise ValueError("`output_sequence_length` must not be set if ragged is True.")
        self.max_tokens = max_tokens
        self.standardize, self.split = standardize, split
        self.ngrams = tuple(ngrams) if isinstance(ngrams, list) else ngrams
        self._widths = tuple(range(1, ngrams + 1)) if isinstance(ngrams, int) else self.ngrams
        self.output_mode = output_mode
        self.output_sequence_length = output_sequence_length
        self.pad_to_max_tokens = pad_to_max_tokens
        self.sparse, self.ragged, self.encoding = sparse, ragged, encoding
        self._lookup_layer = StringLookup(
            max_tokens=max_tokens, vocabulary=vocabulary, idf_weights=idf_weights,
            pad_to_max_tokens=pad_to_max_tokens,
            mask_token="" if output_mode == "int" else None,
            output_mode="int" if output_mode == "int" else output_mode,
            sparse=sparse, encoding=encoding, vocabulary_size=vocabulary_size,
            name=f"{self.name}_lookup")

    # ----- the text pipeline -----
    def _preprocess(self, x: Tensor):
        if x.dtype != dtypes.string:
            raise ValueError(f"TextVectorization needs string inputs, got {x.dtype.name}")
        if x.shape.rank is not None and x.shape.rank > 1 and x.shape[-1] == 1:
            x = array_ops.squeeze(x, -1)
        if self.standardize in ("lower", "lower_and_strip_punctuation"):
            x = lower(x)
        if self.standardize in ("strip_punctuation", "lower_and_strip_punctuation"):
            x = regex_replace(x, _PUNCTUATION, "")
        if callable(self.standardize):
            x = self.standardize(x)
        if self.split is None:
            return x
        if x.shape.rank != 1:
            raise ValueError(f"TextVectorization splits a batch of strings of shape (batch,) "
                             f"or (batch, 1); got {x.shape}")
        if self.split == "whitespace":
            x = split(x)
        elif self.split == "character":
            x = unicode_split(x, "UTF-8")
        else:
            x = self.split(x)
        if self._widths:
            grams = [_ngrams(x, n, separator=" ") for n in self._widths]
            x = grams[0] if len(grams) == 1 else array_ops.concat(grams, axis=1)
        return x

    # ----- adapt and vocabulary -----
    def reset_state(self) -> None:
        self._lookup_layer.reset_state()

    def update_state(self, data) -> None:
        x = data if isinstance(data, Tensor) else array_ops.constant(np.asarray(data))
        self._lookup_layer.update_state(self._preprocess(x))

    def finalize_state(self) -> None:
        self._lookup_layer.finalize_state()

    def get_vocabulary(self, include_special_tokens: bool = True) -> list:
        """The vocabulary, in index order.

        Args:
            include_special_tokens: include the mask and OOV tokens.

        Returns:
            A list of strings.
        """
        return self._lookup_layer.get_vocabulary(include_special_tokens)

    def vocabulary_size(self) -> int:
        """The vocabulary size, the mask and OOV tokens included.

        Returns:
            An int.
        """
        return self._lookup_layer.vocabulary_size()

    def set_vocabulary(self, vocabulary, idf_weights=None) -> None:
        """Sets the vocabulary (and the IDF weights for "tf_idf").

        Args:
            vocabulary: a list of tokens or a file path.
            idf_weights: the IDF weights ("tf_idf" only).

        Returns:
            None.
        """
        self._lookup_layer.set_vocabulary(vocabulary, idf_weights)

    # ----- call -----
    def call(self, inputs) -> Tensor:
        tokens = self._preprocess(inputs)
        look = self._lookup_layer
        if _tokens_of(tokens) is None:  # split=None: one token per string
            if self.output_mode == "int":
                return look(array_ops.expand_dims(tokens, -1) if tokens.shape.rank == 1
                            else tokens)
            return look(array_ops.expand_dims(tokens, -1))
        if self.output_mode == "int":
            ids = look(tokens)
            if self.ragged:
                return ids
            shape = None if self.output_sequence_length is None else \
                [None, self.output_sequence_length]
            return ids.to_tensor(default_value=0, shape=shape)
        if look._table is None and not self.pad_to_max_tokens:
            look(array_ops.constant([[""]]))  # raises Keras' "set the vocabulary" error
        ids = tokens.with_flat_values(look._lookup(tokens.flat_values))
        depth = self.max_tokens if self.pad_to_max_tokens else look._frozen_vocab_size
        padded = ids.to_tensor(default_value=depth)  # padding lands past the last column
        mode = "count" if self.output_mode == "tf_idf" else self.output_mode
        out = kernels.category_encode(padded, depth + 1, mode, dtypes.int64)[..., :depth]
        if self.output_mode == "tf_idf":
            return math_ops.cast(out, dtypes.float32) * look._idf
        return out

    def get_config(self) -> dict:
        cfg = super().get_config()
        look = self._lookup_layer.get_config()
        for what in ("standardize", "split"):
            if callable(getattr(self, what)):
                raise NotImplementedError(f"TextVectorization.get_config: a callable "
                                          f"`{what}` cannot be serialized")
        cfg.update(max_tokens=self.max_tokens, standardize=self.standardize, split=self.split,
                   ngrams=self.ngrams, output_mode=self.output_mode,
                   output_sequence_length=self.output_sequence_length,
                   pad_to_max_tokens=self.pad_to_max_tokens, sparse=self.sparse,
                   ragged=self.ragged, vocabulary=look["vocabulary"],
                   idf_weights=look["idf_weights"], encoding=self.encoding,
                   vocabulary_size=self.vocabulary_size())
        return cfg
