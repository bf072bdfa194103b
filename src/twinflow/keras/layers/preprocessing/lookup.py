"""StringLookup and IntegerLookup: map tokens to vocabulary indices (or back, ``invert``),
from a given vocabulary (list or file) or one ``adapt`` builds, as Keras 3's IndexLookup:
index 0 is the mask (int output with ``mask_token``), then ``num_oov_indices`` OOV indices,
then the tokens by decreasing frequency."""
from __future__ import annotations

import collections
import os

import numpy as np

from ....core import dtypes
from ....graph.tensor import Tensor
from ....ops import array_ops, math_ops
from ....ops.math.comparison import where
from ...declare import with_args
from . import kernels
from .base import PreprocessingLayer, to_numpy
from .numeric import check_mode, hash_values, no_sparse

_LOOKUP_MODES = ("int", "one_hot", "multi_hot", "count", "tf_idf")


def read_vocabulary_file(path: str, parse) -> list:
    """The lines of a vocabulary file (UTF-8, trailing empty lines dropped), parsed."""
    if not os.path.isfile(path):
        raise ValueError(f"Vocabulary file {path} does not exist.")
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    while lines and lines[-1] == "":
        lines.pop()
    return [parse(v) for v in lines]


class IndexLookup(PreprocessingLayer):
    """The shared lookup machinery of StringLookup and IntegerLookup (Keras' IndexLookup).

    Args:
        max_tokens: the largest vocabulary size (special tokens included), or None.
        num_oov_indices: how many OOV indices (OOV tokens hash among them).
        mask_token: the token that maps to 0 (int output) or is dropped.
        oov_token: the token ``invert`` returns for OOV indices.
        vocabulary_dtype: "string" or "int64".
        vocabulary: a list or a path to a file with one token per line.
        idf_weights: the IDF weights (``output_mode="tf_idf"``).
        invert: map indices back to tokens.
        output_mode: "int", "one_hot", "multi_hot", "count" or "tf_idf".
        sparse: must be False.
        pad_to_max_tokens: encoded outputs have ``max_tokens`` columns.
        oov_method: "floormod" (integers) or "farmhash".
        salt: a SipHash key for OOV hashing.
        vocabulary_size: the frozen vocabulary size (from a config).
        **kwargs: Layer arguments.
    """

    def __init__(self, max_tokens, num_oov_indices, mask_token, oov_token, vocabulary_dtype,
                 vocabulary=None, idf_weights=None, invert: bool = False,
                 output_mode: str = "int", sparse: bool = False,
                 pad_to_max_tokens: bool = False, oov_method: str = "floormod", salt=None,
                 vocabulary_size=None, **kwargs) -> None:
        kwargs.pop("has_input_vocabulary", None)
        super().__init__(**kwargs)
        no_sparse(sparse, type(self).__name__)
        if max_tokens is not None and max_tokens <= 1:
            raise ValueError(f"If set, `max_tokens` must be greater than 1. Received: "
                             f"max_tokens={max_tokens}")
        if num_oov_indices < 0:
            raise ValueError(f"`num_oov_indices` must be greater than or equal to 0. "
                             f"Received: num_oov_indices={num_oov_indices}")
        if oov_method not in ("floormod", "farmhash"):
            raise ValueError(f"`oov_method` must be 'floormod' or 'farmhash'; got "
                             f"{oov_method!r}")
        self.output_mode = output_mode = check_mode(output_mode, _LOOKUP_MODES, legacy=True)
        if invert and output_mode != "int":
            raise ValueError(f"`output_mode` must be `'int'` when `invert` is true. "
                             f"Received: output_mode={output_mode}")
        if idf_weights is not None and output_mode != "tf_idf":
            raise ValueError(f"`idf_weights` should only be set if `output_mode` is "
                             f"`'tf_idf'`. Received: idf_weights={idf_weights} and "
                             f"output_mode={output_mode}")
        if pad_to_max_tokens and max_tokens is None:
            raise ValueError("If pad_to_max_tokens is True, must set `max_tokens`. "
                             "Received: max_tokens=None")
        self.invert = bool(invert)
        self.max_tokens = max_tokens
        self.num_oov_indices = int(num_oov_indices)
        self.mask_token, self.oov_token = mask_token, oov_token
        self.vocabulary_dtype = vocabulary_dtype
        self.sparse, self.pad_to_max_tokens = sparse, pad_to_max_tokens
        self.oov_method, self.salt = oov_method, salt
        self.input_vocabulary = vocabulary
        self.input_idf_weights = idf_weights
        self._has_input_vocabulary = vocabulary is not None
        self._tokens: list = []
        self._idf = None
        self._table = self._inverse = None
        self._frozen_vocab_size = None
        if vocabulary is not None:
            self.set_vocabulary(vocabulary, idf_weights)
        elif output_mode == "tf_idf" and idf_weights is not None:
            raise ValueError("`idf_weights` needs a `vocabulary`")

    # ----- special tokens and indices -----
    def _oov_start_index(self) -> int:
        return 1 if self.mask_token is not None and self.output_mode == "int" else 0

    def _token_start_index(self) -> int:
        return self._oov_start_index() + self.num_oov_indices

    def _key(self, token):
        """A token as the tables store it (bytes for strings, int for integers)."""
        if self.vocabulary_dtype == "string":
            return token.encode() if isinstance(token, str) else bytes(token)
        return int(token)

    def _token(self, key):
        if self.vocabulary_dtype == "string":
            return key.decode("utf-8") if isinstance(key, bytes) else key
        return int(key)

    def vocabulary_size(self) -> int:
        """The vocabulary size, mask and OOV indices included.

        Returns:
            An int.
        """
        return len(self._tokens) + self._token_start_index()

    def get_vocabulary(self, include_special_tokens: bool = True) -> list:
        """The vocabulary, in index order.

        Args:
            include_special_tokens: include the mask and OOV tokens (so that a token's position
                is its index).

        Returns:
            A list of tokens.
        """
        tokens = [self._token(t) for t in self._tokens]
        if not include_special_tokens:
            return tokens
        head = [self.oov_token] * self._token_start_index()
        if self._oov_start_index():
            head[0] = self.mask_token
        return head + tokens

    def set_vocabulary(self, vocabulary, idf_weights=None) -> None:
        """Sets the vocabulary (and the IDF weights for "tf_idf").

        Args:
            vocabulary: a list, array, 1-D tensor, or a path to a file with one token a line.
            idf_weights: one weight per vocabulary entry ("tf_idf" only).

        Returns:
            None.
        """
        if self.output_mode == "tf_idf" and idf_weights is None:
            raise ValueError("`idf_weights` must be set if output_mode is 'tf_idf'.")
        if self.output_mode != "tf_idf" and idf_weights is not None:
            raise ValueError(f"`idf_weights` should only be set if output_mode is `'tf_idf'`. "
                             f"Received: output_mode={self.output_mode} and "
                             f"idf_weights={idf_weights}")
        if isinstance(vocabulary, str):
            if self.output_mode == "tf_idf":
                raise ValueError("output_mode `'tf_idf'` does not support loading a "
                                 "vocabulary from file.")
            vocab = read_vocabulary_file(vocabulary, self._token)
        else:
            vocab = [self._token(v) for v in to_numpy(vocabulary).reshape(-1).tolist()]
        if not vocab:
            raise ValueError(f"Cannot set an empty vocabulary. Received: vocabulary={vocab}")
        start = self._token_start_index()
        special = [self.mask_token] * self._oov_start_index() + \
            [self.oov_token] * self.num_oov_indices
        found_special = vocab[:start] == special
        tokens = vocab[start:] if found_special else vocab
        repeated = [t for t, c in collections.Counter(tokens).items() if c > 1]
        if repeated:
            raise ValueError(f"The passed vocabulary has at least one repeated term. Please "
                             f"uniquify your dataset. The repeated terms are: {repeated}")
        if self.mask_token is not None and self.mask_token in tokens:
            raise ValueError(f"Found reserved mask token at unexpected location in "
                             f"`vocabulary`. Either remove all mask and OOV tokens, or include "
                             f"them only at the start of the vocabulary in precisely this "
                             f"order: {special}. Received: mask_token={self.mask_token}")
        if self.oov_token is not None and self.invert and self.oov_token in tokens:
            raise ValueError(f"Found reserved OOV token at unexpected location in "
                             f"`vocabulary`; include it only at the start, in this order: "
                             f"{special}. Received: oov_token={self.oov_token}")
        if self.max_tokens is not None and start + len(tokens) > self.max_tokens:
            raise ValueError(f"Attempted to set a vocabulary larger than the maximum vocab "
                             f"size. Received vocabulary size is {start + len(tokens)}; "
                             f"`max_tokens` is {self.max_tokens}.")
        idf = None
        if idf_weights is not None:
            w = np.asarray(to_numpy(idf_weights), np.float64)
            if w.ndim != 1 or len(w) != len(vocab):
                raise ValueError(f"`idf_weights` must be the same length as vocabulary. "
                                 f"len(idf_weights) is {len(w)}; len(vocabulary) is "
                                 f"{len(vocab)}")
            front = 0 if found_special else start
            idf = np.concatenate([np.full(front, w.mean()), w])
        self._install([self._key(t) for t in tokens], idf)

    def _install(self, keys: list, idf) -> None:
        start = self._token_start_index()
        idx = range(start, start + len(keys))
        self._tokens = keys
        self._table = kernels.Table(keys, idx)
        self._inverse = kernels.Table(idx, keys)
        if idf is not None:
            if self.pad_to_max_tokens:
                idf = np.pad(idf, (0, self.max_tokens - len(idf)))
            self._idf = idf.astype(np.float32)
        size = self.vocabulary_size()
        if (self._frozen_vocab_size is not None and self.output_mode != "int"
                and not self.pad_to_max_tokens and size != self._frozen_vocab_size):
            raise RuntimeError(f"When using `output_mode={self.output_mode}` and "
                               f"`pad_to_max_tokens=False`, the vocabulary size cannot be "
                               f"changed after the layer is called. Old vocab size is "
                               f"{self._frozen_vocab_size}, new vocab size is {size}")
        self._frozen_vocab_size = size

    # ----- adapt -----
    def reset_state(self) -> None:
        if self._has_input_vocabulary:
            raise ValueError(f"Cannot adapt layer '{self.name}' after setting a static "
                             f"vocabulary via `vocabulary` argument or `set_vocabulary()` "
                             f"method.")
        self._counts: collections.Counter = collections.Counter()
        self._doc_counts: collections.Counter = collections.Counter()
        self._num_docs = 0

    def update_state(self, data) -> None:
        ragged = hasattr(data, "to_list")
        rows = data.to_list() if ragged else None
        arr = to_numpy(data)
        if self.vocabulary_dtype != "string" and arr.dtype.kind not in "iu":
            raise ValueError(f"{type(self).__name__}.adapt needs integer data, got "
                             f"{arr.dtype}")
        self._counts.update(self._key(v) for v in arr.reshape(-1).tolist())
        if self.output_mode == "tf_idf":
            if rows is None:
                arr2 = arr.reshape(1, -1) if arr.ndim < 2 else arr.reshape(arr.shape[0], -1)
                rows = arr2.tolist()
            for r in rows:
                self._doc_counts.update({self._key(v) for v in r})
            self._num_docs += len(rows)

    def finalize_state(self) -> None:
        if self._has_input_vocabulary or not self._counts:
            return
        for special in (self.mask_token, self.oov_token):
            if special is not None:
                self._counts.pop(self._key(special), None)
        keys = sorted(self._counts, key=lambda k: (self._counts[k], k), reverse=True)
        start = self._token_start_index()
        if self.max_tokens:
            keys = keys[:self.max_tokens - start]
        idf = None
        if self.output_mode == "tf_idf":
            dc = np.array([self._doc_counts[k] for k in keys], np.float64)
            w = np.log(1 + self._num_docs / (1 + dc)).astype(np.float32)
            idf = np.concatenate([np.full(start, w.mean(), np.float32), w])
        self._install(keys, idf)
        self._counts = collections.Counter()

    # ----- call -----
    def call(self, inputs) -> Tensor:
        if hasattr(inputs, "flat_values"):
            if self.output_mode != "int":
                raise ValueError(f"{type(self).__name__}: ragged inputs need output_mode='int'")
            return inputs.with_flat_values(self._lookup(inputs.flat_values))
        if self._table is None:
            if self.output_mode != "int" and not self.pad_to_max_tokens:
                raise RuntimeError(f"When using `output_mode={self.output_mode}` and "
                                   f"`pad_to_max_tokens=False`, you must set the layer's "
                                   f"vocabulary before calling it. Either pass a `vocabulary` "
                                   f"argument to the layer, or call `adapt` with some sample "
                                   f"data.")
            self._install([], None)
        x = self._lookup(inputs)
        if self.output_mode == "int":
            return x
        depth = self.max_tokens if self.pad_to_max_tokens else self._frozen_vocab_size
        mode = "count" if self.output_mode == "tf_idf" else self.output_mode
        dt = dtypes.int64  # Keras encodes in the lookup's value dtype (tf_idf: then float)
        if self.mask_token is not None:  # masks are dropped: encode them past the end
            out = kernels.category_encode(x, depth + 1, mode, dt)[..., :depth]
        else:
            out = kernels.category_encode(x, depth, mode, dt)
        if self.output_mode == "tf_idf":
            out = math_ops.cast(out, dtypes.float32) * self._idf
        return out

    def _lookup(self, x: Tensor) -> Tensor:
        if self.invert:
            x = math_ops.cast(x, dtypes.int64) if x.dtype != dtypes.int64 else x
            out_dt = dtypes.string if self.vocabulary_dtype == "string" else dtypes.int64
            out = kernels.table_lookup(x, self._inverse, self._key(self.oov_token), out_dt)
            if self.mask_token is not None:
                out = where(math_ops.equal(x, 0), array_ops.fill(array_ops.shape(x),
                            array_ops.constant(self.mask_token, out_dt)), out)
            return out
        x = self._as_keys(x)
        if self.num_oov_indices == 0:
            out = kernels.table_lookup(x, self._table, None, dtypes.int64)
        elif self.num_oov_indices == 1:
            out = kernels.table_lookup(x, self._table, self._oov_start_index(), dtypes.int64)
        else:
            out = kernels.table_lookup(x, self._table, -1, dtypes.int64)
            out = where(math_ops.equal(out, -1), self._oov_bucket(x), out)
        if self.mask_token is not None:
            mask_value = 0 if self.output_mode == "int" else self._frozen_vocab_size or 0
            if self.pad_to_max_tokens and self.output_mode != "int":
                mask_value = self.max_tokens
            mask = math_ops.equal(x, array_ops.constant(self.mask_token, x.dtype))
            out = where(mask, array_ops.fill(array_ops.shape(out),
                                             array_ops.constant(mask_value, dtypes.int64)), out)
        return out

    def _as_keys(self, x: Tensor) -> Tensor:
        if self.vocabulary_dtype == "string":
            if not x.dtype.is_string:
                raise ValueError(f"{type(self).__name__} needs string inputs, got "
                                 f"{x.dtype.name}")
            return x
        if not x.dtype.is_integer:
            raise ValueError(f"{type(self).__name__} needs integer inputs, got {x.dtype.name}")
        return math_ops.cast(x, dtypes.int64) if x.dtype != dtypes.int64 else x

    def _oov_bucket(self, x: Tensor) -> Tensor:
        n = self.num_oov_indices
        if x.dtype.is_integer and self.oov_method != "farmhash":
            b = math_ops.floormod(x, n)
        else:
            key = None if self.salt is None else \
                (self.salt, self.salt) if isinstance(self.salt, int) else tuple(self.salt)
            b = hash_values(x, n, key)
        return b + self._oov_start_index()

    def get_config(self) -> dict:
        cfg = super().get_config()
        vocab = self.input_vocabulary
        if vocab is not None and not isinstance(vocab, str):
            vocab = [self._token(self._key(v)) for v in to_numpy(vocab).reshape(-1).tolist()]
        idf = self.input_idf_weights
        if idf is not None:
            idf = np.asarray(to_numpy(idf), np.float64).tolist()
        if vocab is None and self._tokens:  # adapted: the config carries the vocabulary
            vocab = self.get_vocabulary(include_special_tokens=False)
            if self._idf is not None:
                start = self._token_start_index()
                idf = self._idf[start:start + len(vocab)].astype(np.float64).tolist()
        cfg.update(invert=self.invert, max_tokens=self.max_tokens,
                   num_oov_indices=self.num_oov_indices, oov_token=self.oov_token,
                   mask_token=self.mask_token, output_mode=self.output_mode,
                   sparse=self.sparse, pad_to_max_tokens=self.pad_to_max_tokens,
                   vocabulary_dtype=self.vocabulary_dtype, idf_weights=idf, vocabulary=vocab,
                   vocabulary_size=self._frozen_vocab_size, oov_method=self.oov_method,
                   salt=self.salt)
        return cfg


_LOOKUP_ARGS = dict(   # StringLookup's and IntegerLookup's (``with_args`` orders them)
    max_tokens="the largest vocabulary size (special tokens included).",
    num_oov_indices="the number of OOV indices.", idf_weights='IDF weights for "tf_idf".',
    output_mode='"int", "one_hot", "multi_hot", "count" or "tf_idf".',
    pad_to_max_tokens="encoded outputs have ``max_tokens`` columns.", sparse="must be False.",
    **{"**kwargs": "IndexLookup and Layer arguments."})


@with_args(_LOOKUP_ARGS, mask_token="the mask token (None: no mask).",
           oov_token="the OOV token returned by ``invert``.",
           vocabulary="a list of strings or a vocabulary file path.",
           invert="map indices to strings.", encoding='must be "utf-8".')
class StringLookup(IndexLookup):
    """Maps strings to vocabulary indices (or back with ``invert``)."""

    def __init__(self, max_tokens=None, num_oov_indices: int = 1, mask_token=None,
                 oov_token="[UNK]", vocabulary=None, idf_weights=None, invert: bool = False,
                 output_mode: str = "int", pad_to_max_tokens: bool = False,
                 sparse: bool = False, encoding: str = "utf-8", **kwargs) -> None:
        if encoding.lower().replace("_", "-") not in ("utf-8", "utf8"):
            raise ValueError(f"StringLookup supports encoding='utf-8' only; got {encoding!r}")
        self.encoding = encoding
        kwargs.pop("vocabulary_dtype", None)
        super().__init__(max_tokens, num_oov_indices, mask_token, oov_token, "string",
                         vocabulary=vocabulary, idf_weights=idf_weights, invert=invert,
                         output_mode=output_mode, sparse=sparse,
                         pad_to_max_tokens=pad_to_max_tokens, **kwargs)

    def get_config(self) -> dict:
        cfg = super().get_config()
        del cfg["vocabulary_dtype"]
        cfg["encoding"] = self.encoding
        return cfg


@with_args(_LOOKUP_ARGS, mask_token="the mask value (None: no mask).",
           oov_token="the OOV value returned by ``invert``.",
           vocabulary="a list of ints or a vocabulary file path.",
           vocabulary_dtype='must be "int64".', invert="map indices to values.")
class IntegerLookup(IndexLookup):
    """Maps integers to vocabulary indices (or back with ``invert``)."""

    def __init__(self, max_tokens=None, num_oov_indices: int = 1, mask_token=None,
                 oov_token=-1, vocabulary=None, vocabulary_dtype="int64", idf_weights=None,
                 invert: bool = False, output_mode: str = "int", sparse: bool = False,
                 pad_to_max_tokens: bool = False, **kwargs) -> None:
        if vocabulary_dtype != "int64":
            raise ValueError(f"IntegerLookup supports vocabulary_dtype='int64' only; got "
                             f"{vocabulary_dtype!r}")
        super().__init__(max_tokens, num_oov_indices, mask_token, oov_token, "int64",
                         vocabulary=vocabulary, idf_weights=idf_weights, invert=invert,
                         output_mode=output_mode, sparse=sparse,
                         pad_to_max_tokens=pad_to_max_tokens, **kwargs)
