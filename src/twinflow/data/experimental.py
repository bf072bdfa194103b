"""``tw.data.experimental``: the names programs use; transformations for ``Dataset.apply``.

Each transformation here returns a function from Dataset to Dataset, as TensorFlow's do.
"""
from __future__ import annotations

import enum
from collections.abc import Callable
from typing import Any

import numpy as np

from ..core import dtypes, errors, lazy
from ..eager.func_graph import TensorSpec
from ..graph.graph import name_scoped
from ..io.parsing import parse_example
from ..io.tfrecord import TFRecordWriter as _RecordWriter
from ..ops.random_ops import get_seed
from . import structure
from .dataset import AUTOTUNE, INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, Dataset
from .iterator_ops import Optional
from .options import AutotuneOptions, DistributeOptions, OptimizationOptions, ThreadingOptions
from .readers import CsvDataset, TFRecordDataset, make_csv_dataset
from .registry import register_node
from .sources import seeded_rng as _seeded_rng
from .structure import call_with_element as _call_with_element
from .structure import normalize as _normalize
from .structure import to_tensor as _to_tensor

SHARD_HINT = -1


class AutoShardPolicy(enum.IntEnum):
    """How a multi-worker strategy shards a dataset between its workers (set through
    ``Options().experimental_distribute.auto_shard_policy``; see ``data/autoshard.py``)."""

    OFF = -1
    AUTO = 0
    FILE = 1
    DATA = 2
    HINT = 3


class ExternalStatePolicy(enum.IntEnum):
    """What checkpointing does with functions that use external state."""

    WARN = 0
    IGNORE = 1
    FAIL = 2


class AutotuneAlgorithm(enum.IntEnum):
    """The autotuning algorithm (twinflow's AUTOTUNE picks the number of cores)."""

    DEFAULT = 0
    HILL_CLIMB = 1
    GRADIENT_DESCENT = 2
    MAX_PARALLELISM = 3
    STAGE_BASED = 4






# TensorFlow's older names of Dataset methods: the same functions.
cardinality = Dataset.cardinality
Counter = Dataset.counter
sample_from_datasets = Dataset.sample_from_datasets
choose_from_datasets = Dataset.choose_from_datasets
from_list = Dataset.from_list
get_single_element = Dataset.get_single_element
save = Dataset.save
load = Dataset.load


@register_node
@name_scoped
def RandomDataset(seed=None, rerandomize_each_iteration: bool | None = None,  # noqa: N802
                  name=None) -> Dataset:
    """Random int64 scalars forever (``tf.data.experimental.RandomDataset``).

    Args:
        seed: the seed.
        rerandomize_each_iteration: a new sequence on each pass (None: False).
        name: op name.

    Returns:
        The dataset.
    """
    seeds = get_seed(seed)
    epochs = [0]

    def gen():
        rng = _seeded_rng(seeds, epochs[0])
        if rerandomize_each_iteration:
            epochs[0] += 1
        while True:
            yield np.int64(rng.integers(np.iinfo(np.int64).min, np.iinfo(np.int64).max))
    return Dataset.from_generator(gen, output_signature=TensorSpec([], dtypes.int64))










def get_structure(dataset_or_iterator) -> Any:
    """The element_spec of a dataset or iterator.

    Args:
        dataset_or_iterator: the dataset or iterator.

    Returns:
        The element_spec.
    """
    return dataset_or_iterator.element_spec


def get_next_as_optional(iterator) -> Optional:
    """``iterator.get_next_as_optional()``.

    Args:
        iterator: the iterator.

    Returns:
        The Optional.
    """
    return iterator.get_next_as_optional()






def _method(name: str, doc: str) -> Callable:
    def transformation(*args, **kwargs) -> Callable[[Dataset], Dataset]:
        return lambda ds: getattr(ds, name)(*args, **kwargs)
    transformation.__name__ = name
    transformation.__doc__ = (f"``Dataset.apply`` form of ``Dataset.{name}``: {doc}\n\n"
                              "Args:\n    *args: as for the method.\n    **kwargs: as for "
                              "the method.\n\nReturns:\n    A function from Dataset to Dataset.")
    return transformation


scan = _method("scan", "carries a state through the elements.")
group_by_window = _method("group_by_window", "groups elements into windows by key.")
bucket_by_sequence_length = _method("bucket_by_sequence_length",
                                    "batches elements of similar length.")
ignore_errors = _method("ignore_errors", "drops elements whose computation failed.")
unbatch = _method("unbatch", "splits batches into elements.")
take_while = _method("take_while", "elements until a predicate fails.")
unique = _method("unique", "drops repeated elements.")
assert_cardinality = _method("assert_cardinality", "checks the number of elements.")
snapshot = _method("snapshot", "saves the elements on the first pass and replays them.")
enumerate_dataset = _method("enumerate", "pairs elements with their index.")


def shuffle_and_repeat(buffer_size: int, count=None, seed=None) -> Callable:
    """``shuffle(buffer_size, seed).repeat(count)`` for ``Dataset.apply``.

    Args:
        buffer_size: the shuffle buffer.
        count: the repetitions (forever when None).
        seed: the seed.

    Returns:
        A function from Dataset to Dataset.
    """
    return lambda ds: ds.shuffle(buffer_size, seed).repeat(count)


def map_and_batch(map_func: Callable, batch_size: int, num_parallel_batches=None,
                  drop_remainder: bool = False, num_parallel_calls=None) -> Callable:
    """``map(map_func).batch(batch_size)`` for ``Dataset.apply``.

    Args:
        map_func: the map function.
        batch_size: the batch size.
        num_parallel_batches: batches mapped in parallel (as num_parallel_calls).
        drop_remainder: drop a last, smaller batch.
        num_parallel_calls: map threads.

    Returns:
        A function from Dataset to Dataset.
    """
    par = num_parallel_calls if num_parallel_calls is not None else num_parallel_batches
    return lambda ds: ds.map(map_func, num_parallel_calls=par).batch(batch_size,
                                                                       drop_remainder)


def parallel_interleave(map_func: Callable, cycle_length: int, block_length: int = 1,
                        sloppy: bool = False, buffer_output_elements=None,
                        prefetch_input_elements=None) -> Callable:
    """``interleave`` with parallel readers, for ``Dataset.apply``.

    Args:
        map_func: element -> Dataset.
        cycle_length: datasets open at once.
        block_length: consecutive elements from each.
        sloppy: allow any order.
        buffer_output_elements: accepted (each reader buffers block_length elements).
        prefetch_input_elements: accepted (inputs are opened as slots free up).

    Returns:
        A function from Dataset to Dataset.
    """
    return lambda ds: ds.interleave(map_func, cycle_length, block_length,
                                    num_parallel_calls=cycle_length,
                                    deterministic=not sloppy)


def copy_to_device(target_device: str, source_device: str = "/cpu:0") -> Callable:
    """Identity: twinflow has one (CPU) device.

    Args:
        target_device: the device name.
        source_device: the source device name.

    Returns:
        A function from Dataset to Dataset.
    """
    return lambda ds: ds


def prefetch_to_device(device: str, buffer_size=None) -> Callable:
    """``prefetch`` (twinflow has one CPU device).

    Args:
        device: the device name.
        buffer_size: the buffer (AUTOTUNE when None).

    Returns:
        A function from Dataset to Dataset.
    """
    return lambda ds: ds.prefetch(AUTOTUNE if buffer_size is None else buffer_size)


class Reducer:
    """The reducer of ``group_by_reducer``: ``init_func(key)``, ``reduce_func(state,
    element)``, ``finalize_func(state)``.

    Args:
        init_func: key -> initial state.
        reduce_func: (state, element) -> state.
        finalize_func: state -> output.
    """

    def __init__(self, init_func: Callable, reduce_func: Callable,
                 finalize_func: Callable) -> None:
        self.init_func, self.reduce_func, self.finalize_func = (init_func, reduce_func,
                                                                finalize_func)


def group_by_reducer(key_func: Callable, reducer: Reducer) -> Callable:
    """Groups elements by key and reduces each group to one output (at the end).

    Args:
        key_func: element -> int64 key.
        reducer: the Reducer.

    Returns:
        A function from Dataset to Dataset.
    """
    return lambda ds: _GroupByReducer(ds, key_func, reducer)


class _GroupByReducer(Dataset):
    def __init__(self, input_dataset: Dataset, key_func: Callable, reducer: Reducer) -> None:
        self._input, self._key, self._reducer = input_dataset, key_func, reducer

    def _gen(self):
        states: dict = {}
        r = self._reducer
        for e in self._input:
            k = int(_call_with_element(self._key, e))
            if k not in states:
                states[k] = r.init_func(_to_tensor(np.int64(k)))
            states[k] = r.reduce_func(states[k], e)
        for s in states.values():
            yield _normalize(r.finalize_func(s))


class TFRecordWriter:
    """Writes a dataset of string scalars to a TFRecord file.

    Args:
        filename: the file.
        compression_type: '', 'GZIP' or 'ZLIB'.
    """

    def __init__(self, filename: str, compression_type=None) -> None:
        self._filename, self._compression = filename, compression_type

    def write(self, dataset: Dataset) -> None:
        """Writes every element of ``dataset`` (string scalars) as one record.

        Args:
            dataset: the dataset.
        """
        spec = dataset.element_spec
        if not (isinstance(spec, TensorSpec) and spec.dtype is dtypes.string
                and spec.shape.rank == 0):
            raise TypeError(f"TFRecordWriter.write needs a dataset of string scalars, got "
                            f"{spec}")
        with _RecordWriter(self._filename, self._compression) as w:
            for r in dataset.as_numpy_iterator():
                w.write(r)


def parse_example_dataset(features: dict, num_parallel_calls: int = 1,
                          deterministic=None) -> Callable:
    """Maps batches of serialized Examples to dicts of dense tensors (``Dataset.apply``).

    Args:
        features: {key: FixedLenFeature or FixedLenSequenceFeature(allow_missing=True)}.
        num_parallel_calls: map threads.
        deterministic: False allows any order.

    Returns:
        A function from Dataset to Dataset.
    """
    return lambda ds: ds.map(lambda s: parse_example(s, features),
                             num_parallel_calls=num_parallel_calls,
                             deterministic=deterministic)


def make_batched_features_dataset(file_pattern, batch_size: int, features: dict,
                                  reader=None, label_key=None, reader_args=None,
                                  num_epochs=None, shuffle: bool = True,
                                  shuffle_buffer_size: int = 10000, shuffle_seed=None,
                                  prefetch_buffer_size=None, reader_num_threads=None,
                                  parser_num_threads=None, sloppy_ordering: bool = False,
                                  drop_final_batch: bool = False) -> Dataset:
    """Batches of parsed Examples read from TFRecord files.

    Args:
        file_pattern: glob(s) of the files.
        batch_size: examples per batch.
        features: the feature configs.
        reader: a dataset class taking file names (default TFRecordDataset).
        label_key: a feature returned separately as the label.
        reader_args: more arguments for ``reader``.
        num_epochs: repetitions (None: forever).
        shuffle: shuffle the files and the records.
        shuffle_buffer_size: the record shuffle buffer.
        shuffle_seed: the seed.
        prefetch_buffer_size: batches prefetched (None: AUTOTUNE).
        reader_num_threads: files read at once.
        parser_num_threads: parsing threads.
        sloppy_ordering: allow any order.
        drop_final_batch: drop a last, smaller batch.

    Returns:
        The dataset.
    """
    files = Dataset.list_files(file_pattern, shuffle=shuffle, seed=shuffle_seed)
    names = list(files.as_numpy_iterator())
    ds = (reader or TFRecordDataset)(names, *(reader_args or []),
                                     **({"num_parallel_reads": reader_num_threads}
                                        if reader is None and reader_num_threads else {}))
    if shuffle:
        ds = ds.shuffle(shuffle_buffer_size, seed=shuffle_seed)
    ds = ds.repeat(num_epochs).batch(batch_size, drop_final_batch)
    ds = ds.apply(parse_example_dataset(features, parser_num_threads or 1,
                                        False if sloppy_ordering else None))
    if label_key is not None:
        if label_key not in features:
            raise ValueError(f"label_key {label_key!r} is not a feature")
        ds = ds.map(lambda d: ({k: v for k, v in d.items() if k != label_key}, d[label_key]))
    return ds.prefetch(-1 if prefetch_buffer_size is None else prefetch_buffer_size)


def at(dataset: Dataset, index) -> Any:
    """The element at ``index`` (reads the dataset up to it).

    Args:
        dataset: the dataset.
        index: a non-negative int.

    Returns:
        The element.

    Raises:
        OutOfRangeError: the dataset is shorter.
    """
    i = int(index)
    if i < 0:
        raise errors.InvalidArgumentError(None, None, f"at: index must be >= 0, got {i}")
    for k, e in enumerate(dataset):
        if k == i:
            return e
    raise errors.OutOfRangeError(None, None, f"at: index {i} is past the end of the dataset")


def pad_to_cardinality(cardinality: int, mask_key: str = "valid") -> Callable:
    """Pads a dataset of dicts to ``cardinality`` elements with zero elements whose
    ``mask_key`` entry is False (real elements get True).

    Args:
        cardinality: the size to reach.
        mask_key: the name of the added boolean entry.

    Returns:
        A function from Dataset to Dataset.
    """
    def apply(ds: Dataset) -> Dataset:
        spec = ds.element_spec
        if not isinstance(spec, dict):
            raise TypeError(f"pad_to_cardinality needs dict elements, got {spec}")
        n = ds._cardinality()
        if n < 0 or n > cardinality:
            raise ValueError(f"pad_to_cardinality: the dataset has cardinality {n}, it must "
                             f"be known and at most {cardinality}")
        for s in spec.values():
            if not s.shape.is_fully_defined():
                raise ValueError(f"pad_to_cardinality needs fully defined shapes, got {spec}")
        pad = {k: np.zeros(s.shape.as_list(), dtype=s.dtype.np) for k, s in spec.items()}
        pad[mask_key] = np.bool_(False)
        real = ds.map(lambda d: {**d, mask_key: True})
        return real.concatenate(Dataset.from_tensors(pad).repeat(cardinality - n))
    return apply


def enable_debug_mode() -> None:
    """Runs dataset functions as plain Python (no tracing), for debugging with prints and
    breakpoints; parallel maps then run on one thread, in order."""
    structure.set_debug_mode(True)


def SqlDataset(driver_name: str, data_source_name: str, query: str,  # noqa: N802
               output_types) -> Dataset:
    """The rows of an SQL query over a SQLite database, as tuples of scalars.

    Args:
        driver_name: must be 'sqlite'.
        data_source_name: the database file.
        query: the SELECT statement.
        output_types: one dtype per column.

    Returns:
        The dataset.
    """
    if driver_name != "sqlite":
        raise ValueError(f"SqlDataset supports driver_name='sqlite' only, got {driver_name!r}")
    import sqlite3  # noqa: PLC0415  (standard library, slow to import, rarely needed)
    types = tuple(dtypes.as_dtype(t) for t in output_types)

    def rows():
        con = sqlite3.connect(data_source_name)
        try:
            for row in con.execute(query):
                if len(row) != len(types):
                    raise errors.InvalidArgumentError(
                        None, None, f"SqlDataset: the query returned {len(row)} columns, "
                        f"output_types lists {len(types)}")
                yield tuple(v.encode() if isinstance(v, str) else v for v in row)
        finally:
            con.close()
    return Dataset.from_generator(rows, output_signature=tuple(TensorSpec([], t)
                                                               for t in types))


@register_node
def rejection_resample(class_func: Callable, target_dist, initial_dist=None,
                       seed=None) -> Callable:
    """Resamples a dataset by rejection so its classes follow ``target_dist``.

    Each element of class ``c`` is kept with probability ``(t_c / p_c) / max_k(t_k / p_k)``,
    where ``p`` is ``initial_dist`` or, when not given, the running class frequencies seen so
    far. Elements come out as ``(class, element)`` pairs, as in TensorFlow.

    Args:
        class_func: element -> int class.
        target_dist: the wanted class probabilities.
        initial_dist: the input's class probabilities (estimated when None).
        seed: the seed.

    Returns:
        A function from Dataset to Dataset.
    """
    target = np.asarray(target_dist, np.float64)
    if target.ndim != 1 or (target < 0).any() or not np.isclose(target.sum(), 1.0):
        raise ValueError(f"target_dist must be a probability vector, got {target_dist!r}")
    initial = None if initial_dist is None else np.asarray(initial_dist, np.float64)
    if initial is not None and initial.shape != target.shape:
        raise ValueError("initial_dist and target_dist must have the same length")
    seeds = get_seed(seed)

    def apply(ds: Dataset) -> Dataset:
        spec = ds.element_spec

        def gen():
            rng = _seeded_rng(seeds)
            counts = np.zeros_like(target)
            for e in ds:
                c = int(_call_with_element(class_func, e))
                if not 0 <= c < len(target):
                    raise errors.InvalidArgumentError(
                        None, None, f"rejection_resample: class {c} is out of range "
                        f"[0, {len(target)})")
                counts[c] += 1
                p = initial if initial is not None else counts / counts.sum()
                ratio = np.where(p > 0, target / np.where(p > 0, p, 1.0), 0.0)
                if rng.random() < ratio[c] / ratio.max():
                    yield (np.int32(c), _normalize(e))
        return Dataset.from_generator(gen, output_signature=(TensorSpec([], dtypes.int32),
                                                             spec))
    return apply


def dense_to_ragged_batch(batch_size, drop_remainder: bool = False,
                          row_splits_dtype=dtypes.int64) -> Callable:
    """``Dataset.ragged_batch`` as a transformation for ``Dataset.apply``.

    Args:
        batch_size: elements per batch.
        drop_remainder: drop a last, smaller batch.
        row_splits_dtype: the row splits dtype.

    Returns:
        A function of a dataset.
    """
    return lambda ds: ds.ragged_batch(batch_size, drop_remainder, row_splits_dtype)


def dense_to_sparse_batch(batch_size, row_shape) -> Callable:
    """``Dataset.sparse_batch`` as a transformation for ``Dataset.apply``.

    Args:
        batch_size: elements per batch.
        row_shape: the dense shape of each row.

    Returns:
        A function of a dataset.
    """
    return lambda ds: ds.sparse_batch(batch_size, row_shape)


__all__ = ["AUTOTUNE", "CsvDataset", "INFINITE_CARDINALITY", "UNKNOWN_CARDINALITY",
           "AutoShardPolicy", "make_csv_dataset",
           "AutotuneAlgorithm", "AutotuneOptions", "Counter", "DistributeOptions",
           "ExternalStatePolicy", "OptimizationOptions", "Optional", "RandomDataset", "Reducer",
           "SHARD_HINT", "ThreadingOptions"]


# DatasetInitializer, table_from_dataset and index_table_from_dataset build tw.lookup tables,
# which live above this package: tw.lookup declares them here when it loads (``core.lazy``
# loads it on first access to one of them).
_TABLE_FUNCTIONS: dict = {}


def register_table_functions(**functions) -> None:
    """Declares the names of ``tw.data.experimental`` that tw.lookup defines.

    Args:
        **functions: name -> class or function.
    """
    _TABLE_FUNCTIONS.update(functions)


_TABLE_NAMES = ("DatasetInitializer", "table_from_dataset", "index_table_from_dataset")


def __getattr__(name: str):
    if name in _TABLE_NAMES and name not in _TABLE_FUNCTIONS:
        lazy.load("lookup")
    try:
        return _TABLE_FUNCTIONS[name]
    except KeyError:
        raise AttributeError(f"module 'twinflow.data.experimental' has no attribute "
                             f"{name!r}") from None
