"""``tw.lookup``: key -> value tables (static and mutable hash tables, vocabulary tables).

A table is a Python object holding a dict; ``lookup``/``insert``/``remove``/``size`` run as
stateful ``numpy_function`` ops, so they work eagerly and inside ``tw.function`` (a function
that captures a table reads its current contents on every call). Tables are
``TrackableResource`` objects: a SavedModel refuses them with a clear error rather than
writing a graph that could not be loaded.

Out-of-vocabulary buckets of ``StaticVocabularyTable`` are TensorFlow's: FarmHash
``Fingerprint64`` of the key's string form (integers in decimal) modulo ``num_oov_buckets``.
"""
from __future__ import annotations

import collections
import os

import numpy as np

from .core import dtypes, errors
from .core.props import readonly
from .data.experimental import register_table_functions
from .eager.execute import convert_to_tensor
from .ops.ragged.fingerprint import fingerprint64
from .ops.script_ops import numpy_function
from .saved_model.options import TrackableResource

__all__ = ["KeyValueTensorInitializer", "TextFileInitializer", "TextFileIndex",
           "StaticHashTable", "StaticVocabularyTable", "experimental"]

_KEY_DTYPES = (dtypes.int32, dtypes.int64, dtypes.string)


def _key(x):
    """A dict key for one NumPy element (bytes for strings, int for integers)."""
    return x if isinstance(x, bytes) else (x.encode() if isinstance(x, str) else int(x))


def _as_keys(keys, key_dtype, what: str = "keys"):
    """Converts ``keys`` to a tensor of ``key_dtype``; another dtype is TensorFlow's TypeError."""
    if hasattr(keys, "dtype") and not isinstance(keys, np.ndarray):
        if keys.dtype != key_dtype:
            raise TypeError(f"Dtype of argument `{what}` must be {key_dtype!r}, received: "
                            f"{keys.dtype!r}")
        return keys
    return convert_to_tensor(keys, key_dtype)


def _table_op(table, fn, inp: list, tout, name: str):
    """Runs ``fn`` (NumPy in, NumPy out) as a stateful op; SavedModel refuses the op, because
    the table it reads lives in Python."""
    single = not isinstance(tout, (list, tuple))

    def call(*args):
        r = fn(*args)
        return list(r) if isinstance(r, tuple) else [r]
    call.unsaveable = f"the {type(table).__name__} {table.name!r} (a tw.lookup table)"
    outs = numpy_function(call, inp, [tout] if single else list(tout), name=name)
    return outs[0] if single else tuple(outs)


class TextFileIndex:
    """Special column indices of ``TextFileInitializer``: the whole line, or its line number."""

    WHOLE_LINE = -2
    LINE_NUMBER = -1


class _Dtypes:
    """``key_dtype`` and ``value_dtype`` of a table or initializer."""

    def _set_dtypes(self, key_dtype, value_dtype) -> None:
        self._key_dtype = dtypes.as_dtype(key_dtype)
        self._value_dtype = dtypes.as_dtype(value_dtype)
        if self._key_dtype not in _KEY_DTYPES:
            raise TypeError(f"tw.lookup: keys of dtype {self._key_dtype!r} are not supported "
                            "(int32, int64 or string)")

    key_dtype = readonly("_key_dtype", "The keys' dtype.")
    value_dtype = readonly("_value_dtype", "The values' dtype.")


class _Initializer(_Dtypes):
    """Base of table initializers: ``key_dtype``, ``value_dtype`` and ``_items()``."""

    def __init__(self, key_dtype, value_dtype) -> None:
        self._set_dtypes(key_dtype, value_dtype)



class KeyValueTensorInitializer(_Initializer):
    """Initializes a table from a tensor of keys and a tensor of values (same length)."""

    def __init__(self, keys, values, key_dtype=None, value_dtype=None, name=None) -> None:
        k = convert_to_tensor(keys, key_dtype)
        v = convert_to_tensor(values, value_dtype)
        super().__init__(k.dtype, v.dtype)
        self._keys = np.asarray(k.numpy()).reshape(-1)
        self._values = np.asarray(v.numpy()).reshape(-1)
        if self._keys.shape != self._values.shape:
            raise ValueError(f"KeyValueTensorInitializer: {self._keys.size} keys but "
                             f"{self._values.size} values")
        self._name = name or "key_value_init"

    def _items(self) -> list:
        return list(zip(self._keys.tolist(), self._values.tolist()))


class TextFileInitializer(_Initializer):
    """Initializes a table from a text file: one entry per line, columns split by ``delimiter``.

    ``key_index``/``value_index`` name a column, ``TextFileIndex.WHOLE_LINE`` or
    ``TextFileIndex.LINE_NUMBER`` (an int64 key or value).
    """

    def __init__(self, filename, key_dtype, key_index: int, value_dtype, value_index: int,
                 vocab_size=None, delimiter: str = "\t", name=None,
                 value_index_offset: int = 0) -> None:
        super().__init__(key_dtype, value_dtype)
        for which, idx, dt in (("key", key_index, self._key_dtype),
                               ("value", value_index, self._value_dtype)):
            if idx < TextFileIndex.WHOLE_LINE:
                raise ValueError(f"TextFileInitializer: invalid {which}_index {idx}")
            if idx == TextFileIndex.LINE_NUMBER and dt != dtypes.int64:
                raise ValueError(f"TextFileInitializer: {which} of LINE_NUMBER needs int64, "
                                 f"got {dt!r}")
            if idx == TextFileIndex.WHOLE_LINE and not (dt == dtypes.string or dt.is_integer):
                raise ValueError(f"TextFileInitializer: {which} of WHOLE_LINE needs a string "
                                 f"or integer dtype, got {dt!r}")
        if vocab_size is not None and vocab_size <= 0:
            raise ValueError(f"TextFileInitializer: invalid vocab_size {vocab_size}")
        self._filename = os.fspath(filename)
        self._key_index, self._value_index = key_index, value_index
        self._vocab_size, self._delimiter = vocab_size, delimiter
        self._offset = value_index_offset
        self._name = name or "text_file_init"

    def _column(self, cols: list, line: str, n: int, idx: int, dt, lineno: int):
        if idx == TextFileIndex.LINE_NUMBER:
            return n + (self._offset if idx == self._value_index else 0)
        text = line if idx == TextFileIndex.WHOLE_LINE else None
        if text is None:
            if idx >= len(cols):
                raise errors.InvalidArgumentError(
                    None, None, f"Invalid number of columns in {self._filename} line {lineno} "
                    f"({line!r}) : expected at least {idx + 1} got {len(cols)}")
            text = cols[idx]
        if dt == dtypes.string:
            return text.encode()
        try:
            return int(text) if dt.is_integer else float(text)
        except ValueError:
            raise errors.InvalidArgumentError(
                None, None, f"Field {text!r} in {self._filename} line {lineno} is not a valid "
                f"{dt.name}") from None

    def _items(self) -> list:
        try:
            with open(self._filename, encoding="utf-8") as f:
                lines = f.read().splitlines()
        except OSError as e:
            raise errors.NotFoundError(None, None, f"{self._filename}: {e.strerror}") from None
        if self._vocab_size is not None:
            if len(lines) < self._vocab_size:
                raise errors.InvalidArgumentError(
                    None, None, f"Invalid vocab_size in {self._filename}: expected "
                    f"{self._vocab_size}, got {len(lines)}")
            lines = lines[:self._vocab_size]
        out = []
        for n, line in enumerate(lines):
            cols = line.split(self._delimiter) if self._delimiter else line.split()
            out.append((self._column(cols, line, n, self._key_index, self._key_dtype, n + 1),
                        self._column(cols, line, n, self._value_index, self._value_dtype,
                                     n + 1)))
        return out


class _Resource(TrackableResource, _Dtypes):
    """What every table has: dtypes, name, ``table[keys]``."""

    _name: str

    def _create_resource(self):
        return self


    name = readonly("_name", "The table's name.")

    def __getitem__(self, keys):
        return self.lookup(keys)


class _Table(_Resource):
    """A table holding a dict: lookups run as stateful numpy_function ops."""

    def __init__(self, key_dtype, value_dtype, default_value, name) -> None:
        super().__init__()
        self._set_dtypes(key_dtype, value_dtype)
        d = convert_to_tensor(default_value)
        if d.dtype != self._value_dtype:
            try:
                d = convert_to_tensor(default_value, self._value_dtype)
            except (TypeError, ValueError):
                raise TypeError(f"Invalid `default_value`: expected {self._value_dtype!r}, "
                                f"got {d.dtype!r}") from None
        self._default = d
        self._name = name
        self._data: dict = {}

    default_value = readonly("_default", "The value returned for a missing key.")

    def size(self, name=None):
        """The number of entries (an int64 scalar).

        Args:
            name: the op name.

        Returns:
            An int64 scalar tensor.
        """
        return _table_op(self, lambda: np.int64(len(self._data)), [], dtypes.int64,
                         name or "table_size")

    def _find(self, k: np.ndarray, default: np.ndarray) -> np.ndarray:
        k, default = np.asarray(k), np.asarray(default)  # a scalar string arrives as bytes
        np_dtype = self._value_dtype.as_numpy_dtype
        out = np.empty(k.shape, dtype=object if self._value_dtype == dtypes.string
                       else np_dtype)
        flat, get, dv = out.reshape(-1), self._data.get, default.item()
        for i, x in enumerate(np.asarray(k).reshape(-1).tolist()):
            flat[i] = get(_key(x), dv)
        return out

    def lookup(self, keys, name=None):
        """Looks up ``keys``: the value of each key, ``default_value`` for missing ones.

        Args:
            keys: a tensor of ``key_dtype`` (any shape).
            name: the op name.

        Returns:
            A tensor of ``value_dtype`` with the shape of ``keys``.
        """
        keys = _as_keys(keys, self._key_dtype)
        out = _table_op(self, self._find, [keys, self._default], self._value_dtype,
                        name or "table_find")
        if hasattr(out, "set_shape"):
            out.set_shape(keys.shape)
        return out


class StaticHashTable(_Table):
    """An immutable table filled once by an initializer."""

    def __init__(self, initializer, default_value, name=None,
                 experimental_is_anonymous: bool = False) -> None:
        if not isinstance(initializer, _Initializer):
            raise TypeError(f"StaticHashTable: initializer must be a tw.lookup initializer, got "
                            f"{type(initializer).__name__}")
        super().__init__(initializer.key_dtype, initializer.value_dtype, default_value,
                         name or "hash_table")
        self._initializer = initializer
        for k, v in initializer._items():
            k = _key(k)
            if k in self._data and self._data[k] != v:
                raise errors.FailedPreconditionError(
                    None, None, f"HashTable has different value for same key. Key {k!r} has "
                    f"{self._data[k]!r} and trying to add value {v!r}")
            self._data[k] = v


def _bucket(key: bytes, num_buckets: int) -> int:
    return fingerprint64(key) % num_buckets  # as tf.strings.to_hash_bucket_fast


class StaticVocabularyTable(_Resource):
    """Maps known keys to ids (int64) and unknown keys to one of ``num_oov_buckets`` buckets
    after the vocabulary (``size() + hash(key) % num_oov_buckets``)."""

    def __init__(self, initializer, num_oov_buckets: int, lookup_key_dtype=None, name=None,
                 experimental_is_anonymous: bool = False) -> None:
        super().__init__()
        if num_oov_buckets <= 0:
            raise ValueError(f"`num_oov_buckets` must be > 0; use StaticHashTable. "
                             f"Received: {num_oov_buckets}")
        if initializer is None:
            raise ValueError("StaticVocabularyTable: an initializer is required")
        if initializer.value_dtype != dtypes.int64:
            raise TypeError(f"Invalid `value_dtype`, expected {dtypes.int64!r} but got "
                            f"{initializer.value_dtype!r}.")
        self._table = StaticHashTable(initializer, -1)
        self._num_oov_buckets = int(num_oov_buckets)
        self._key_dtype = dtypes.as_dtype(lookup_key_dtype or initializer.key_dtype)
        if self._key_dtype != initializer.key_dtype:
            raise TypeError(f"StaticVocabularyTable: lookup_key_dtype {self._key_dtype!r} "
                            f"differs from the initializer's {initializer.key_dtype!r}")
        self._name = name or "hash_table"
        self._value_dtype = dtypes.int64

    def size(self, name=None):
        """Vocabulary size plus ``num_oov_buckets`` (an int64 scalar).

        Args:
            name: the op name.

        Returns:
            An int64 scalar tensor.
        """
        n = self._num_oov_buckets
        return _table_op(self, lambda: np.int64(len(self._table._data) + n), [], dtypes.int64,
                         name or "table_size")

    def _find(self, k: np.ndarray) -> np.ndarray:
        k = np.asarray(k)
        data, vocab, nb = self._table._data, len(self._table._data), self._num_oov_buckets
        out = np.empty(k.shape, np.int64)
        flat = out.reshape(-1)
        for i, x in enumerate(np.asarray(k).reshape(-1).tolist()):
            x = _key(x)
            hit = data.get(x)
            flat[i] = hit if hit is not None else vocab + _bucket(
                x if isinstance(x, bytes) else str(x).encode(), nb)
        return out

    def lookup(self, keys, name=None):
        """Ids of ``keys``: the vocabulary id, or a bucket id past the vocabulary.

        Args:
            keys: a tensor of ``key_dtype``.
            name: the op name.

        Returns:
            An int64 tensor with the shape of ``keys``.
        """
        keys = _as_keys(keys, self._key_dtype)
        out = _table_op(self, self._find, [keys], dtypes.int64, name or "table_find")
        if hasattr(out, "set_shape"):
            out.set_shape(keys.shape)
        return out


class MutableHashTable(_Table):
    """A table that ``insert``/``remove`` change; ``export`` returns its keys and values.

    Its contents are not written by ``tw.train.Checkpoint`` whatever ``checkpoint`` says (use
    ``export`` and ``insert`` to carry them); ``experimental_is_anonymous`` has no effect
    either, as each table lives in Python. Both are listed in docs/tf_differences.md.
    """

    def __init__(self, key_dtype, value_dtype, default_value, name: str = "MutableHashTable",
                 checkpoint: bool = True, experimental_is_anonymous: bool = False) -> None:
        super().__init__(key_dtype, value_dtype, default_value, name)
        if not np.asarray(self._default.numpy()).ndim == 0:
            raise ValueError("MutableHashTable: only scalar values are supported by twinflow "
                             f"(default_value has shape {self._default.shape})")

    def _insert(self, k: np.ndarray, v: np.ndarray) -> np.ndarray:
        k, v = np.asarray(k), np.asarray(v)
        if k.shape != v.shape:
            raise errors.InvalidArgumentError(
                None, None, f"MutableHashTable.insert: keys shape {k.shape} must equal values "
                f"shape {v.shape}")
        for a, b in zip(k.reshape(-1).tolist(), v.reshape(-1).tolist()):
            self._data[_key(a)] = b
        return np.int64(len(self._data))

    def _remove(self, k: np.ndarray) -> np.ndarray:
        for a in np.asarray(k).reshape(-1).tolist():
            self._data.pop(_key(a), None)
        return np.int64(len(self._data))

    def insert(self, keys, values, name=None):
        """Sets ``table[key] = value`` for each pair (same shapes).

        Args:
            keys: a tensor of ``key_dtype``.
            values: a tensor of ``value_dtype``.
            name: the op name.

        Returns:
            The table size after the insert (an int64 scalar; TensorFlow returns the op).
        """
        keys = _as_keys(keys, self._key_dtype)
        values = _as_keys(values, self._value_dtype, "values")
        return _table_op(self, self._insert, [keys, values], dtypes.int64,
                         name or "table_insert")

    def remove(self, keys, name=None):
        """Removes ``keys`` (missing keys are ignored).

        Args:
            keys: a tensor of ``key_dtype``.
            name: the op name.

        Returns:
            The table size after the removal (an int64 scalar).
        """
        keys = _as_keys(keys, self._key_dtype)
        return _table_op(self, self._remove, [keys], dtypes.int64, name or "table_remove")

    def export(self, name=None):
        """All keys and values, as two 1-D tensors (in insertion order).

        Args:
            name: the op name.

        Returns:
            ``(keys, values)``.
        """
        def dump():
            ks = list(self._data.keys())
            vs = list(self._data.values())
            kd = object if self._key_dtype == dtypes.string else self._key_dtype.as_numpy_dtype
            vd = (object if self._value_dtype == dtypes.string
                  else self._value_dtype.as_numpy_dtype)
            return np.array(ks, dtype=kd).reshape(-1), np.array(vs, dtype=vd).reshape(-1)
        return _table_op(self, dump, [], [self._key_dtype, self._value_dtype],
                         name or "table_export")


class _Experimental:
    """``tw.lookup.experimental``: ``MutableHashTable``, ``DenseHashTable``."""

    MutableHashTable = MutableHashTable


experimental = _Experimental()


# ---------------------------------------------------------------------------------------------
# DenseHashTable


class DenseHashTable(MutableHashTable):
    """A mutable table with TensorFlow's DenseHashTable interface: ``empty_key`` and
    ``deleted_key`` are reserved (inserting or looking them up is an error), ``erase`` removes.

    Storage is a Python dict, so ``initial_num_buckets`` only has to be a valid size and
    ``export`` returns the entries (TensorFlow returns its whole bucket array, empty slots
    holding ``empty_key``). Scalar keys and values only.
    """

    def __init__(self, key_dtype, value_dtype, default_value, empty_key, deleted_key,
                 initial_num_buckets=None, name="MutableDenseHashTable", checkpoint=True,
                 experimental_is_anonymous=False) -> None:
        super().__init__(key_dtype, value_dtype, default_value, name, checkpoint,
                         experimental_is_anonymous)
        empty = _as_keys(empty_key, self._key_dtype, "empty_key")
        deleted = _as_keys(deleted_key, self._key_dtype, "deleted_key")
        if np.ndim(empty.numpy()) or np.ndim(deleted.numpy()):
            raise ValueError("DenseHashTable: only scalar keys are supported by twinflow")
        self._empty = _key(np.asarray(empty.numpy()).item())
        self._deleted = _key(np.asarray(deleted.numpy()).item())
        if self._empty == self._deleted:
            raise errors.InvalidArgumentError(None, None, "Empty and deleted keys cannot be "
                                              "equal [Op:MutableDenseHashTableV2]")
        if initial_num_buckets is not None and (int(initial_num_buckets) <= 0 or
                                                int(initial_num_buckets) & (
                                                    int(initial_num_buckets) - 1)):
            raise errors.InvalidArgumentError(None, None, "initial_num_buckets must be a power "
                                              f"of 2, got {initial_num_buckets}")

    def _reserved(self, k) -> None:
        for x in np.asarray(k).reshape(-1).tolist():
            x = _key(x)
            if x == self._empty:
                raise errors.InvalidArgumentError(None, None, "Using the empty_key as a table "
                                                  "key is not allowed")
            if x == self._deleted:
                raise errors.InvalidArgumentError(None, None, "Using the deleted_key as a "
                                                  "table key is not allowed")

    def _find(self, k, default):
        self._reserved(k)
        return super()._find(k, default)

    def _insert(self, k, v):
        self._reserved(k)
        return super()._insert(k, v)

    def _remove(self, k):
        self._reserved(k)
        return super()._remove(k)

    def insert_or_assign(self, keys, values, name=None):
        """``insert`` under DenseHashTable's name for it in TensorFlow.

        Args:
            keys, values, name: as in ``insert``.

        Returns:
            The table size after the insert (an int64 scalar).
        """
        return self.insert(keys, values, name)

    def erase(self, keys, name=None):
        """``remove`` under DenseHashTable's name for it in TensorFlow.

        Args:
            keys, name: as in ``remove``.

        Returns:
            The table size after the removal (an int64 scalar).
        """
        return self.remove(keys, name)


_Experimental.DenseHashTable = DenseHashTable


# ---------------------------------------------------------------------------------------------
# Tables from datasets (tw.data.experimental)


class DatasetInitializer(_Initializer):
    """Initializes a table from a dataset of ``(key, value)`` scalar pairs."""

    def __init__(self, dataset) -> None:
        spec = dataset.element_spec
        if not (isinstance(spec, tuple) and len(spec) == 2 and
                all(getattr(s, "shape", None) is not None and s.shape.rank == 0
                    for s in spec)):
            raise ValueError(f"The dataset must produce pairs of scalars (key, value); its "
                             f"element_spec is {spec}")
        super().__init__(spec[0].dtype, spec[1].dtype)
        self.dataset = dataset

    def _items(self) -> list:
        def py(t):
            a = t.numpy() if hasattr(t, "numpy") else t
            return a.item() if hasattr(a, "item") else a
        return [(py(k), py(v)) for k, v in self.dataset]


class HasherSpec(collections.namedtuple("HasherSpec", ["hasher", "key"])):
    """How out-of-vocabulary keys are hashed: only ``fasthash`` (FarmHash Fingerprint64, as
    ``tw.strings.to_hash_bucket_fast``) is supported."""

    __slots__ = ()


FAST_HASHER_SPEC = HasherSpec("fasthash", None)


def _check_hasher(hasher_spec) -> None:
    if hasher_spec is None or getattr(hasher_spec, "hasher", None) != "fasthash" or \
            getattr(hasher_spec, "key", None) is not None:
        raise ValueError(f"hasher_spec: only HasherSpec(hasher='fasthash', key=None) is "
                         f"supported, got {hasher_spec!r}")


def table_from_dataset(dataset=None, num_oov_buckets=0, vocab_size=None, default_value=None,
                       hasher_spec=FAST_HASHER_SPEC, key_dtype=dtypes.string, name=None):
    """A lookup table from a dataset of ``(key, value)`` pairs.

    Args:
        dataset: a dataset of scalar pairs.
        num_oov_buckets: > 0: unknown keys map to ``size + fingerprint(key) % num_oov_buckets``
            (values must then be int64 ids).
        vocab_size: use only the first ``vocab_size`` pairs.
        default_value: the value of unknown keys (num_oov_buckets == 0).
        hasher_spec: only the default ``HasherSpec("fasthash", None)``.
        key_dtype: the dtype of the keys.
        name: the table's name.

    Returns:
        A StaticHashTable, or a StaticVocabularyTable with num_oov_buckets.
    """
    if dataset is None:
        raise ValueError("dataset must be specified")
    _check_hasher(hasher_spec)
    if num_oov_buckets < 0:
        raise ValueError(f"num_oov_buckets must be greater or equal than 0, got "
                         f"{num_oov_buckets}.")
    if vocab_size is not None:
        if vocab_size < 1:
            raise ValueError(f"vocab_size must be greater than 0, got {vocab_size}.")
        dataset = dataset.take(vocab_size)
    init = DatasetInitializer(dataset)
    if init.key_dtype != dtypes.as_dtype(key_dtype):
        raise TypeError(f"Invalid `key_dtype`: expected {dtypes.as_dtype(key_dtype)!r} but the "
                        f"dataset's keys are {init.key_dtype!r}")
    if num_oov_buckets:
        return StaticVocabularyTable(init, num_oov_buckets, name=name)
    if default_value is None:
        raise ValueError("default_value must be specified when num_oov_buckets is 0")
    return StaticHashTable(init, default_value, name=name)


def index_table_from_dataset(dataset=None, num_oov_buckets=0, vocab_size=None,
                             default_value=-1, hasher_spec=FAST_HASHER_SPEC,
                             key_dtype=dtypes.string, name=None):
    """A table mapping each element of a dataset of keys to its position (int64).

    Args:
        dataset: a dataset of scalar keys.
        num_oov_buckets: buckets for unknown keys (see ``table_from_dataset``).
        vocab_size: use only the first ``vocab_size`` keys.
        default_value: the id of unknown keys (num_oov_buckets == 0).
        hasher_spec, key_dtype, name: as in ``table_from_dataset``.

    Returns:
        A StaticHashTable or StaticVocabularyTable of int64 ids.
    """
    if dataset is None:
        raise ValueError("dataset must be specified")
    pairs = dataset.enumerate().map(lambda i, k: (k, i))
    return table_from_dataset(pairs, num_oov_buckets, vocab_size, default_value, hasher_spec,
                              key_dtype, name)


register_table_functions(DatasetInitializer=DatasetInitializer,
                         table_from_dataset=table_from_dataset,
                         index_table_from_dataset=index_table_from_dataset)
