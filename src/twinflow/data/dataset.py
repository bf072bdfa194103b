"""``tw.data.Dataset``: input pipelines as chains of Python iterators.

Each dataset is a node whose ``_gen()`` starts a pass (a Python generator of elements: NumPy
arrays in tuples/dicts, see ``structure.py``) and whose ``_spec()``/``_cardinality()`` are known
without running it. Elements become EagerTensors where user code sees them: iteration, and the
functions of ``map``/``filter``/``reduce``, which are traced once with ``tw.function`` for the
input's element_spec (as in TensorFlow); the compiled graph runs for each element.

This file holds the base class (iteration, element_spec, cardinality) and the sources; the
transformation methods are in ``methods.py``, the nodes in ``sources.py``, ``transforms.py``,
``grouping.py``, ``parallel.py`` and ``readers.py``.
"""
from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from ..core import dtypes, errors
from ..core.context import ctx
from ..framework.type_spec import CompositeTensor
from ..graph.graph import name_scoped
from .iterator_ops import GraphIterator, graph_for_loop
from .iterator_ops import Iterator as DatasetIterator
from .methods import TransformMethods
from .registry import node
from .structure import (
    check_int_arg,
    conform,
    has_dict,
    is_struct,
    map_struct,
    most_specific_compatible,
    normalize,
    spec_of,
    to_tensor,
    trace_with_state,
)

AUTOTUNE = -1
INFINITE_CARDINALITY = -1
UNKNOWN_CARDINALITY = -2


class Dataset(TransformMethods):
    """A sequence of elements, transformed lazily and iterated with ``for``."""

    _tw_dataset_iter = True

    # ----- what each node implements -----
    def _gen(self) -> Iterator:
        raise NotImplementedError

    def _cardinality(self) -> int:
        return UNKNOWN_CARDINALITY

    def _spec(self):
        # Nodes whose spec is not known statically look at their first element.
        for e in self._gen():
            return spec_of(e)
        raise ValueError("Cannot infer the element_spec of an empty dataset")

    # ----- iteration -----
    def __iter__(self) -> DatasetIterator:
        if ctx.graph is not None:
            # iter(dataset) inside tw.function: a pass that starts each time the graph runs.
            # (AutoGraph turns a `for` loop over the dataset into __ag_for_stmt__ instead.)
            return GraphIterator(self)
        return DatasetIterator(self)

    def __ag_for_stmt__(self, extra_test, body, vals, names):
        """``for element in dataset`` converted by AutoGraph.

        Eagerly this is a Python loop. In a graph it is one graph loop whose body gets each
        element from an ``IteratorGetNext`` op, so every call of the function makes a new pass
        over the dataset (reshuffling it, for example), as in TensorFlow.

        Args:
            extra_test: None, or a function of the loop variables that must hold to go on.
            body: function of (element, *loop variables) returning the loop variables.
            vals: the loop variables' current values.
            names: their names.

        Returns:
            The loop variables after the loop.
        """
        if ctx.graph is None:
            for e in self:
                if extra_test is not None and not extra_test(*vals):
                    break
                vals = tuple(body(e, *vals))
            return vals
        return graph_for_loop(self, extra_test, body, vals, names)

    def as_numpy_iterator(self) -> Iterator:
        """Iterates elements as NumPy values (scalars as NumPy scalars, strings as bytes).

        Returns:
            An iterator.
        """
        def conv(a):
            if getattr(a, "_tw_dataset_iter", False):
                return a.as_numpy_iterator()
            if isinstance(a, CompositeTensor):
                return a  # (TF gives RaggedTensorValue/SparseTensorValue: same attributes)
            a = np.asarray(a)
            # (a string as bytes, b'a', as TensorFlow; not np.bytes_)
            return a.item() if a.ndim == 0 and a.dtype.kind in "OS" else (
                a[()] if a.ndim == 0 else a)
        return (map_struct(conv, e) for e in self._gen())

    def __len__(self) -> int:
        n = self._cardinality()
        if n == INFINITE_CARDINALITY:
            raise TypeError("The dataset is infinite.")
        if n == UNKNOWN_CARDINALITY:
            raise TypeError("The dataset length is unknown.")
        return n

    def __bool__(self) -> bool:
        return True

    def cardinality(self) -> Any:
        """The number of elements: ``INFINITE_CARDINALITY`` (-1) or ``UNKNOWN`` (-2) if not
        known.

        Returns:
            An int64 scalar tensor.
        """
        return to_tensor(np.asarray(self._cardinality(), dtype=np.int64))

    @property
    def element_spec(self):
        """The structure of TensorSpecs (DatasetSpecs for windows) of one element."""
        return self._spec()

    def __repr__(self) -> str:
        try:
            spec = self.element_spec
        except (ValueError, TypeError):
            spec = None
        return f"<{type(self).__name__.lstrip('_')}Dataset element_spec={spec}>"

    # ----- sources -----
    @staticmethod
    @name_scoped
    def from_tensor_slices(tensors, name=None) -> Dataset:
        """Elements are the slices of ``tensors`` along their first dimension.

        Args:
            tensors: a tensor/array/list, or a tuple/dict of them (same first dimension).

        Returns:
            The dataset.
        """
        return node("Slices")(normalize(tensors))

    @staticmethod
    @name_scoped
    def from_tensors(tensors, name=None) -> Dataset:
        """A dataset of one element, ``tensors``.

        Args:
            tensors: the element.

        Returns:
            The dataset.
        """
        return node("FromList")([normalize(tensors)])

    @staticmethod
    @name_scoped
    def range(*args, output_type=dtypes.int64, name=None) -> Dataset:
        """``range(stop)``, ``range(start, stop[, step])`` as int64 scalars.

        Args:
            *args: start, stop, step as for Python's range.
            output_type: the element dtype.

        Returns:
            The dataset.
        """
        ints = [check_int_arg(a, "range argument", "Dataset.range") for a in args]
        if len(ints) == 3 and ints[2] == 0:
            raise ValueError("Dataset.range: step must not be 0")
        return node("Range")(range(*ints), dtypes.as_dtype(output_type).np)

    @staticmethod
    @name_scoped
    def zip(*datasets, name=None) -> Dataset:
        """Elements are tuples (or dicts) of the datasets' elements, until one ends.

        Args:
            *datasets: datasets, or one tuple/dict of datasets.

        Returns:
            The dataset.
        """
        if len(datasets) == 1 and is_struct(datasets[0]):
            datasets = datasets[0]
        return node("Zip")(datasets)

    @staticmethod
    @name_scoped
    def from_generator(generator: Callable, output_types=None, output_shapes=None, args=None,
                       output_signature=None, name=None) -> Dataset:
        """Elements come from calling ``generator(*args)`` anew for each iteration.

        Each element is checked against the signature (InvalidArgumentError when it does not
        fit, as TensorFlow).

        Args:
            generator: a callable returning an iterator.
            output_types: the element dtypes (structure), the older form.
            output_shapes: the element shapes (unknown when omitted), with output_types.
            args: arguments for ``generator``.
            output_signature: TensorSpecs of the element (the newer form).

        Returns:
            The dataset.
        """
        return node("Generator")(generator, tuple(args or ()), output_types, output_shapes,
                         output_signature)

    @staticmethod
    @name_scoped
    def from_list(elements: list, name=None) -> Dataset:
        """A dataset of the given elements (same structure and dtypes).

        Args:
            elements: the elements.

        Returns:
            The dataset.
        """
        items = [normalize(e) for e in elements]
        if not items:
            raise ValueError("from_list needs at least one element")
        spec = spec_of(items[0])
        for e in items[1:]:
            spec = most_specific_compatible(spec, spec_of(e), "from_list")
        if has_dict(spec):
            items = [conform(e, spec) for e in items]
        return node("FromList")(items, spec)

    @staticmethod
    def sample_from_datasets(datasets, weights=None, seed=None,
                             stop_on_empty_dataset: bool = False,
                             rerandomize_each_iteration=None) -> Dataset:
        """Interleaves elements picked at random from ``datasets`` by ``weights``.

        Args:
            datasets: the datasets.
            weights: the probabilities (uniform by default), one per dataset.
            seed: the random seed.
            stop_on_empty_dataset: stop at the first exhausted dataset.
            rerandomize_each_iteration: a new sequence on each iteration.

        Returns:
            The dataset.
        """
        return node("Sample")(list(datasets), weights, seed, stop_on_empty_dataset)

    @staticmethod
    def choose_from_datasets(datasets, choice_dataset: Dataset,
                             stop_on_empty_dataset: bool = True) -> Dataset:
        """Elements taken from ``datasets[i]`` for each ``i`` of ``choice_dataset``.

        Args:
            datasets: the datasets.
            choice_dataset: int64 scalars in ``[0, len(datasets))``.
            stop_on_empty_dataset: stop when the chosen dataset is exhausted.

        Returns:
            The dataset.
        """
        return node("Choose")(list(datasets), choice_dataset, stop_on_empty_dataset)

    @staticmethod
    @name_scoped
    def counter(start: int = 0, step: int = 1, dtype=dtypes.int64, name=None) -> Dataset:
        """``start, start + step, ...`` forever.

        Args:
            start: the first value.
            step: the increment.
            dtype: the element dtype.

        Returns:
            The dataset.
        """
        return node("Counter")(start, step, dtypes.as_dtype(dtype).np)

    @staticmethod
    @name_scoped
    def random(seed=None, rerandomize_each_iteration=None, name=None) -> Dataset:
        """Random int64 scalars forever, from ``seed`` (the same sequence each pass unless
        ``rerandomize_each_iteration``).

        Args:
            seed: the seed.
            rerandomize_each_iteration: a new sequence on each pass.

        Returns:
            The dataset.
        """
        return node("RandomDataset")(seed, rerandomize_each_iteration=bool(
            rerandomize_each_iteration))

    @staticmethod
    @name_scoped
    def list_files(file_pattern, shuffle: bool | None = None, seed=None,
                   name=None) -> Dataset:
        """The file names matching ``file_pattern`` (a glob, or a list of them), as strings.

        Args:
            file_pattern: the pattern(s).
            shuffle: shuffle the names (default True, as TensorFlow).
            seed: the shuffle seed.

        Returns:
            The dataset.

        Raises:
            InvalidArgumentError: nothing matches.
        """
        return node("list_files")(file_pattern, shuffle, seed)

    @staticmethod
    def load(path: str, element_spec=None, compression=None, reader_func=None) -> Dataset:
        """A dataset saved with ``Dataset.save``.

        Args:
            path: the directory.
            element_spec: checked against the saved spec when given.
            compression: must be None (files are NumPy archives).
            reader_func: not supported.

        Returns:
            The dataset.
        """
        return node("load")(path, element_spec, compression, reader_func)

    # ----- consumers -----
    def reduce(self, initial_state: Any, reduce_func: Callable) -> Any:
        """Folds the elements: ``state = reduce_func(state, element)``.

        Args:
            initial_state: the starting state (structure of tensors).
            reduce_func: the step function.

        Returns:
            The final state.
        """
        state = normalize(initial_state)
        fn = trace_with_state(reduce_func, spec_of(state), self._spec(), "reduce",
                              lambda out: out)
        for e in self._gen():
            state = fn((state, e))
        return map_struct(to_tensor, state)

    @name_scoped
    def get_single_element(self, name: str | None = None) -> Any:
        """The only element of a one-element dataset.

        Returns:
            The element.
        """
        items = list(itertools.islice(self._gen(), 2))
        if len(items) != 1:
            raise errors.InvalidArgumentError(
                None, None, f"Dataset had {'no' if not items else 'more than one'} element; "
                "get_single_element needs exactly one")
        return map_struct(to_tensor, items[0])

    def save(self, path: str, compression=None, shard_func=None, checkpoint_args=None) -> None:
        """Writes the elements under directory ``path`` (read back with ``Dataset.load``).

        Args:
            path: the directory (created; replaced atomically).
            compression: must be None.
            shard_func: not supported.
            checkpoint_args: not supported.
        """
        node("save")(self, path, compression, shard_func, checkpoint_args)

