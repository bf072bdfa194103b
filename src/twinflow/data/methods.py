"""The transformation methods of ``Dataset`` (a mixin; the nodes live in their own files).

Arguments are checked here, when the pipeline is built, with TensorFlow's error classes: a
float ``batch_size`` is a TypeError, ``prefetch(-5)`` an InvalidArgumentError, and so on.
"""
from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..core import dtypes, errors
from ..graph.graph import name_scoped
from .options import Options
from .registry import node
from .structure import DEBUG_MODE, check_int_arg

if TYPE_CHECKING:
    from .dataset import Dataset

AUTOTUNE = -1


def _positive(value, what: str, op: str) -> int:
    n = check_int_arg(value, what, op)
    if n <= 0:
        raise errors.InvalidArgumentError(None, None,
                                          f"{op}: {what} must be greater than zero, got {n}")
    return n


def _parallelism(value, op: str) -> int | None:
    """None (serial), or the number of parallel calls (AUTOTUNE: one per core)."""
    if value is None:
        return None
    n = check_int_arg(value, "num_parallel_calls", op)
    if n == AUTOTUNE:
        return max(2, min(8, os.cpu_count() or 2))
    if n <= 0:
        raise errors.InvalidArgumentError(
            None, None, f"{op}: num_parallel_calls must be positive or AUTOTUNE (-1), got {n}")
    return n


def _node_method(method: str, node_name: str, summary: str, count: str | None = None
                 ) -> Callable:
    """A ``Dataset`` method that builds the node ``node_name`` over the dataset: with no
    argument but ``name`` or, when ``count`` (its Args line) is given, an integer ``count``."""
    if count is None:
        def transform(self, name=None) -> Dataset:
            return node(node_name)(self)
        args = ""
    else:
        def transform(self, count, name=None) -> Dataset:
            return node(node_name)(self, check_int_arg(count, "count", f"Dataset.{method}"))
        args = f"""
        Args:
            count: {count}
"""
    transform.__name__ = method
    transform.__qualname__ = f"TransformMethods.{method}"
    transform.__doc__ = f"""{summary}
{args}
        Returns:
            The dataset.
        """
    return name_scoped(transform)


class TransformMethods:
    """``Dataset.map``, ``batch``, ``window``... each returns a new dataset node."""

    @name_scoped
    def map(self, map_func: Callable, num_parallel_calls=None, deterministic=None,
            name=None) -> Dataset:
        """Applies ``map_func`` to each element (tuples are unpacked into arguments).

        ``map_func`` is traced once with ``tw.function`` for the element_spec; its graph runs
        per element, on a thread pool when ``num_parallel_calls`` is given.

        Args:
            map_func: the function.
            num_parallel_calls: None (serial), a number of threads, or AUTOTUNE.
            deterministic: False lets results come in completion order.

        Returns:
            The dataset.
        """
        n = _parallelism(num_parallel_calls, "Dataset.map")
        if n is None or n == 1 or DEBUG_MODE[0]:
            return node("Map")(self, map_func)
        return node("ParallelMap")(self, map_func, n, deterministic is not False)

    @name_scoped
    def filter(self, predicate: Callable, name=None) -> Dataset:
        """Keeps the elements for which ``predicate`` returns True (a boolean scalar).

        Args:
            predicate: the function.

        Returns:
            The dataset.
        """
        return node("Filter")(self, predicate)

    @name_scoped
    def batch(self, batch_size, drop_remainder: bool = False, num_parallel_calls=None,
              deterministic=None, name=None) -> Dataset:
        """Stacks consecutive elements into batches.

        Args:
            batch_size: elements per batch (a positive integer).
            drop_remainder: drop a last, smaller batch.
            num_parallel_calls: checked; batches are stacked on the consumer's thread.
            deterministic: accepted (batching is always in order).

        Returns:
            The dataset.
        """
        _parallelism(num_parallel_calls, "Dataset.batch")
        size = _positive(batch_size, "batch_size", "Dataset.batch")
        return node("Batch")(self, size, bool(drop_remainder))

    @name_scoped
    def padded_batch(self, batch_size, padded_shapes=None, padding_values=None,
                     drop_remainder: bool = False, name=None) -> Dataset:
        """Batches elements, padding each component to ``padded_shapes``.

        Args:
            batch_size: elements per batch.
            padded_shapes: per component, a shape whose None/-1 dims pad to the longest in the
                batch (default: all dims so).
            padding_values: per component (or one for all), the pad value (0, b"" for strings).
            drop_remainder: drop a last, smaller batch.

        Returns:
            The dataset.
        """
        size = _positive(batch_size, "batch_size", "Dataset.padded_batch")
        return node("PaddedBatch")(self, size, padded_shapes, padding_values,
                                          bool(drop_remainder))

    unbatch = _node_method("unbatch", "Unbatch",
                                 "Splits each element's first dimension into separate elements.")

    @name_scoped
    def rebatch(self, batch_size, drop_remainder: bool = False, name=None) -> Dataset:
        """Re-slices batches into batches of ``batch_size`` (elements keep their order).

        Args:
            batch_size: the new batch size (an int; a list of sizes is not supported).
            drop_remainder: drop a last, smaller batch.

        Returns:
            The dataset.
        """
        if isinstance(batch_size, (list, tuple)):
            raise NotImplementedError("rebatch with a list of batch sizes is not supported")
        return self.unbatch().batch(batch_size, drop_remainder)

    @name_scoped
    def shuffle(self, buffer_size, seed=None, reshuffle_each_iteration: bool = True,
                name=None) -> Dataset:
        """Shuffles with a buffer of ``buffer_size`` elements (as ``tf.data``).

        Args:
            buffer_size: the buffer; at least the dataset size for a full shuffle.
            seed: the random seed (with the global seed, ``tw.random.set_seed``).
            reshuffle_each_iteration: a new order on each iteration.

        Returns:
            The dataset.
        """
        size = _positive(buffer_size, "buffer_size", "Dataset.shuffle")
        return node("Shuffle")(self, size, seed, reshuffle_each_iteration)

    @name_scoped
    def repeat(self, count=None, name=None) -> Dataset:
        """Repeats the dataset ``count`` times (forever when None or -1).

        Args:
            count: the number of repetitions.

        Returns:
            The dataset.
        """
        n = None if count is None else check_int_arg(count, "count", "Dataset.repeat")
        return node("Repeat")(self, None if n is None or n < 0 else n)

    take = _node_method("take", "Take", "The first ``count`` elements (all when -1).",
                        count="how many.")
    skip = _node_method("skip", "Skip", "All but the first ``count`` elements.",
                        count="how many to skip (-1: all).")

    @name_scoped
    def prefetch(self, buffer_size, name=None) -> Dataset:
        """Fills a buffer of ``buffer_size`` elements from a background thread.

        Args:
            buffer_size: the buffer size (AUTOTUNE: 2); 0 adds no thread.

        Returns:
            The dataset.
        """
        n = check_int_arg(buffer_size, "buffer_size", "Dataset.prefetch")
        if n < -1:
            raise errors.InvalidArgumentError(
                None, None, "Dataset.prefetch: buffer_size must be >= 0 or set buffer_size "
                f"to be -1 for auto-tuning, got {n}")
        return self if n == 0 else node("Prefetch")(self, 2 if n == AUTOTUNE else n)

    @name_scoped
    def cache(self, filename: str = "", name=None) -> Dataset:
        """Remembers the elements of the first complete iteration and replays them.

        Args:
            filename: must be empty (in-memory cache).

        Returns:
            The dataset.
        """
        if filename:
            raise NotImplementedError("twinflow caches in memory only (filename='')")
        return node("Cache")(self)

    @name_scoped
    def enumerate(self, start=0, name=None) -> Dataset:
        """Pairs each element with its int64 index: ``(i, element)``.

        Args:
            start: the first index.

        Returns:
            The dataset.
        """
        first = check_int_arg(start, "start", "enumerate")
        return self.zip((self.counter(first), self))

    @name_scoped
    def concatenate(self, dataset, name=None) -> Dataset:
        """This dataset's elements followed by ``dataset``'s (same structure and dtypes).

        Args:
            dataset: the other dataset.

        Returns:
            The dataset.
        """
        return node("Concat")(self, dataset)

    @name_scoped
    def shard(self, num_shards, index, name=None) -> Dataset:
        """Every ``num_shards``-th element, starting at ``index``.

        Args:
            num_shards: the number of shards.
            index: this shard.

        Returns:
            The dataset.
        """
        if check_int_arg(num_shards, "num_shards", "Dataset.shard") == -1 and \
                check_int_arg(index, "index", "Dataset.shard") == -1:
            # SHARD_HINT: a placeholder that AutoShardPolicy.HINT replaces
            return node("Shard")(self, -1, -1)
        n = _positive(num_shards, "num_shards", "Dataset.shard")
        i = check_int_arg(index, "index", "Dataset.shard")
        if not 0 <= i < n:
            raise errors.InvalidArgumentError(
                None, None, f"Index must be between 0 and {n - 1} (currently index = {i}).")
        return node("Shard")(self, n, i)

    def apply(self, transformation_func: Callable) -> Dataset:
        """``transformation_func(self)``.

        Args:
            transformation_func: a function from Dataset to Dataset.

        Returns:
            Its result.
        """
        out = transformation_func(self)
        if not getattr(out, "_tw_dataset_iter", False):
            raise TypeError(f"apply: the transformation must return a Dataset, got {out!r}")
        return out

    @name_scoped
    def with_options(self, options, name=None) -> Dataset:
        """This dataset with ``options`` (a ``tw.data.Options``) attached.

        Args:
            options: the options; ``deterministic=False`` lets parallel maps yield in
                completion order.

        Returns:
            The dataset.
        """
        return node("WithOptions")(self, options)

    def options(self) -> Options:
        """The ``tw.data.Options`` set on this pipeline (defaults when none were).

        Returns:
            The options.
        """
        node = self
        while node is not None:
            opts = getattr(node, "_options", None)
            if opts is not None:
                return opts
            node = getattr(node, "_input", None)
        return Options()

    # ----- windows, nesting and grouping (grouping.py) -----
    @name_scoped
    def window(self, size, shift=None, stride=1, drop_remainder: bool = False,
               name=None) -> Dataset:
        """Elements are datasets of ``size`` consecutive elements, ``shift`` apart.

        Args:
            size: elements per window.
            shift: the step between windows' first elements (default ``size``).
            stride: the step between elements of a window.
            drop_remainder: drop windows shorter than ``size`` at the end.

        Returns:
            A dataset of datasets.
        """
        size = _positive(size, "size", "Dataset.window")
        shift = size if shift is None else _positive(shift, "shift", "Dataset.window")
        stride = _positive(stride, "stride", "Dataset.window")
        return node("Window")(self, size, shift, stride, bool(drop_remainder))

    @name_scoped
    def flat_map(self, map_func: Callable, name=None) -> Dataset:
        """Maps each element to a dataset and chains those datasets.

        Args:
            map_func: element -> Dataset (called per element, in Python).

        Returns:
            The dataset.
        """
        return node("Interleave")(self, map_func, 1, 1, None, True)

    @name_scoped
    def interleave(self, map_func: Callable, cycle_length=None, block_length=None,
                   num_parallel_calls=None, deterministic=None, name=None) -> Dataset:
        """Maps elements to datasets and interleaves ``cycle_length`` of them, taking
        ``block_length`` elements from each in turn.

        Args:
            map_func: element -> Dataset.
            cycle_length: how many datasets are open at once (default: AUTOTUNE, the cores).
            block_length: consecutive elements taken from each (default 1).
            num_parallel_calls: open datasets are read by that many threads.
            deterministic: False lets elements come in the order threads produce them.

        Returns:
            The dataset.
        """
        cycle = _parallelism(AUTOTUNE if cycle_length is None else cycle_length,
                             "Dataset.interleave")
        block = 1 if block_length is None else _positive(block_length, "block_length",
                                                          "Dataset.interleave")
        par = _parallelism(num_parallel_calls, "Dataset.interleave")
        return node("Interleave")(self, map_func, cycle, block, par,
                                       deterministic is not False)

    @name_scoped
    def scan(self, initial_state, scan_func: Callable, name=None) -> Dataset:
        """Carries a state through the elements: ``state, out = scan_func(state, element)``.

        Args:
            initial_state: the first state (structure of tensors).
            scan_func: the step function.

        Returns:
            The dataset of ``out`` values.
        """
        return node("Scan")(self, initial_state, scan_func)

    @name_scoped
    def group_by_window(self, key_func: Callable, reduce_func: Callable, window_size=None,
                        window_size_func: Callable | None = None, name=None) -> Dataset:
        """Groups elements by ``key_func`` into windows of ``window_size`` and maps each
        window (a dataset) with ``reduce_func(key, window)``.

        Args:
            key_func: element -> int64 scalar key.
            reduce_func: (key, window dataset) -> dataset.
            window_size: elements per window.
            window_size_func: key -> window size (instead of ``window_size``).

        Returns:
            The dataset.
        """
        if (window_size is None) == (window_size_func is None):
            raise ValueError("group_by_window: give exactly one of window_size and "
                             "window_size_func")
        if window_size is not None:
            size = _positive(window_size, "window_size", "Dataset.group_by_window")

            def window_size_func(_key):
                return size
        return node("GroupByWindow")(self, key_func, reduce_func, window_size_func)

    @name_scoped
    def bucket_by_sequence_length(self, element_length_func: Callable, bucket_boundaries,
                                  bucket_batch_sizes, padded_shapes=None,
                                  padding_values=None, pad_to_bucket_boundary: bool = False,
                                  no_padding: bool = False, drop_remainder: bool = False,
                                  name=None) -> Dataset:
        """Batches elements of similar length together (padded to the longest in the batch).

        Args:
            element_length_func: element -> int scalar length.
            bucket_boundaries: increasing upper length bounds (exclusive).
            bucket_batch_sizes: one batch size per bucket (``len(boundaries) + 1``).
            padded_shapes: as for ``padded_batch``.
            padding_values: as for ``padded_batch``.
            pad_to_bucket_boundary: pad to the bucket's boundary - 1 instead.
            no_padding: batch without padding (elements must have equal shapes).
            drop_remainder: drop a bucket's last, smaller batch.

        Returns:
            The dataset.
        """
        return node("bucket_by_sequence_length")(
            self, element_length_func, bucket_boundaries, bucket_batch_sizes, padded_shapes,
            padding_values, pad_to_bucket_boundary, no_padding, drop_remainder)

    # ----- more -----
    @name_scoped
    def ignore_errors(self, log_warning: bool = False, name=None) -> Dataset:
        """Drops the elements whose computation raised an error.

        Args:
            log_warning: log each dropped error.

        Returns:
            The dataset.
        """
        return node("IgnoreErrors")(self, log_warning)

    @name_scoped
    def take_while(self, predicate: Callable, name=None) -> Dataset:
        """Elements until the first for which ``predicate`` is False.

        Args:
            predicate: element -> boolean scalar.

        Returns:
            The dataset.
        """
        return node("TakeWhile")(self, predicate)

    unique = _node_method(
        "unique", "Unique", "The elements (int or string scalars) without repeats, in first-seen "
        "order.")

    @name_scoped
    def snapshot(self, path: str, compression=None, reader_func=None, shard_func=None,
                 name=None) -> Dataset:
        """Saves the elements under ``path`` on the first full pass and reads them from there
        afterwards (also in later programs with the same path).

        Args:
            path: the directory.
            compression: must be None.
            reader_func: not supported.
            shard_func: not supported.

        Returns:
            The dataset.
        """
        if reader_func is not None or shard_func is not None:
            raise NotImplementedError("snapshot: reader_func/shard_func are not supported")
        return node("Snapshot")(self, path, compression)

    @name_scoped
    def rejection_resample(self, class_func: Callable, target_dist, initial_dist=None,
                           seed=None, name=None) -> Dataset:
        """Resamples by rejection so classes follow ``target_dist``; elements become
        ``(class, element)`` pairs (see ``tw.data.experimental.rejection_resample``).

        Args:
            class_func, target_dist, initial_dist, seed: as for
                ``tw.data.experimental.rejection_resample``.

        Returns:
            The dataset.
        """
        return node("rejection_resample")(class_func, target_dist, initial_dist, seed)(self)

    @name_scoped
    def ragged_batch(self, batch_size, drop_remainder: bool = False, row_splits_dtype=None,
                     name=None) -> Dataset:
        """Batches elements whose shapes differ: dense components of rank >= 1 become
        RaggedTensors (one row per element), as TensorFlow's ``ragged_batch``.

        Args:
            batch_size: elements per batch.
            drop_remainder: drop a last, smaller batch.
            row_splits_dtype: the row splits dtype (int64 by default).

        Returns:
            The dataset.
        """
        size = _positive(batch_size, "batch_size", "Dataset.ragged_batch")
        return node("RaggedBatch")(self, size, bool(drop_remainder),
                                   row_splits_dtype or dtypes.int64)

    @name_scoped
    def sparse_batch(self, batch_size, row_shape, name=None) -> Dataset:
        """Batches dense elements of varying shape into SparseTensors of dense shape
        ``[batch] + row_shape`` (every entry of an element, zeros included, is stored).

        Args:
            batch_size: elements per batch.
            row_shape: the dense shape of each row (each element must fit in it).

        Returns:
            The dataset.
        """
        size = _positive(batch_size, "batch_size", "Dataset.sparse_batch")
        return node("SparseBatch")(self, size, row_shape)

    def assert_cardinality(self, expected_cardinality) -> Dataset:
        """This dataset, raising FailedPreconditionError if its size is not as expected.

        Args:
            expected_cardinality: the number of elements.

        Returns:
            The dataset.
        """
        return node("AssertCardinality")(self, check_int_arg(expected_cardinality,
                                                     "expected_cardinality",
                                                     "assert_cardinality"))
