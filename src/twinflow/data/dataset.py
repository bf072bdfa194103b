"""``tw.data.Dataset``: input pipelines as chains of Python iterators.

Elements move through a pipeline as NumPy arrays in tuples/dicts (cheap to slice, stack and
shuffle) and become EagerTensors where user code sees them: iteration, and the functions of
``map``/``filter``/``reduce``. Those functions are traced once with ``tw.function`` (as in
TensorFlow, their Python side effects run while tracing, not per element) and the compiled
graph runs for each element.

As in ``tf.data``, tuples and dicts are structure while lists are values: ``from_tensor_slices(
[1, 2, 3])`` has three scalar elements, ``from_tensor_slices((x, y))`` pairs.
"""
from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from ..autograph.operators.control_flow import for_stmt as _ag_for_stmt
from ..autograph.operators.control_flow import while_stmt as _ag_while_stmt
from ..core import dtypes
from ..core.context import ctx
from ..core.shapes import TensorShape
from ..eager.execute import bind, constant_array
from ..eager.func_graph import TensorSpec
from ..eager.tensor import EagerTensor
from ..function.function import function as _tw_function
from ..graph.registry import register_op
from ..graph.tensor import Tensor
from ..ops import array_ops, math_ops
from ..ops.random_ops import get_seed, stateless_generator
from ..ops.variables import Variable

AUTOTUNE = -1
INFINITE_CARDINALITY = -1
UNKNOWN_CARDINALITY = -2


# ---------------------------------------------------------------------------------------------
# Iteration inside a graph: a stateful op starts a fresh pass over the dataset each time the
# graph runs, another hands out the next element (the Python pipeline runs beside the graph).

_DATASETS: dict = {}
_ITERATORS: dict = {}


@register_op("MakeIterator", stateful=True, multi_output=True)
class MakeIterator:
    """Starts a new pass over the dataset registered as ``dataset_id``."""

    def infer(*, dataset_id):
        return []

    def kernel(*, dataset_id):
        _ITERATORS[dataset_id] = _DATASETS[dataset_id]._gen()
        return ()


@register_op("IteratorGetNext", stateful=True, multi_output=True)
class IteratorGetNext:
    """The next element (its leaves, in order) of the pass started by MakeIterator."""

    def infer(*, dataset_id, output_types, output_shapes):
        return list(zip(output_types, output_shapes))

    def kernel(*, dataset_id, output_types, output_shapes):
        try:
            element = next(_ITERATORS[dataset_id])
        except StopIteration:
            raise ValueError("End of sequence: the dataset has fewer elements than its "
                             "cardinality promised") from None
        return tuple(np.asarray(a, dtype=t.np) for a, t in zip(_leaves(element),
                                                               output_types))


@register_op("IteratorGetNextOrEnd", stateful=True, multi_output=True)
class IteratorGetNextOrEnd:
    """``(has_value, leaves...)``: the next element, or False and zeros once the pass is over.

    The loop over a dataset whose size is unknown (after ``filter``) stops on ``has_value``.
    """

    def infer(*, dataset_id, output_types, output_shapes):
        return [(dtypes.bool_, TensorShape([]))] + list(zip(output_types, output_shapes))

    def kernel(*, dataset_id, output_types, output_shapes):
        try:
            element = next(_ITERATORS[dataset_id])
        except StopIteration:
            zeros = tuple(np.zeros([d or 0 for d in s.as_list()] if s.rank is not None else [],
                                   dtype=t.np) for t, s in zip(output_types, output_shapes))
            return (np.bool_(False),) + zeros
        return (np.bool_(True),) + tuple(
            np.asarray(a, dtype=t.np) for a, t in zip(_leaves(element), output_types))


# ---------------------------------------------------------------------------------------------
# Element structures (tuples and dicts nest; everything else is a value)

def _is_struct(x) -> bool:
    return isinstance(x, (tuple, dict))


def _map(fn: Callable, s):
    if isinstance(s, dict):
        return type(s)((k, _map(fn, v)) for k, v in s.items())
    if isinstance(s, tuple):
        vals = [_map(fn, v) for v in s]
        return type(s)(*vals) if hasattr(s, "_fields") else tuple(vals)
    return fn(s)


def _map2(fn: Callable, a, b):
    if isinstance(a, dict):
        return type(a)((k, _map2(fn, a[k], b[k])) for k in a)
    if isinstance(a, tuple):
        vals = [_map2(fn, x, y) for x, y in zip(a, b)]
        return type(a)(*vals) if hasattr(a, "_fields") else tuple(vals)
    return fn(a, b)


def _leaves(s) -> list:
    if isinstance(s, dict):
        return [x for k in s for x in _leaves(s[k])]
    if isinstance(s, tuple):
        return [x for v in s for x in _leaves(v)]
    return [s]


def _pack(template, flat: list):
    it = iter(flat)
    return _map(lambda _: next(it), template)


def _to_array(x) -> np.ndarray:
    if isinstance(x, EagerTensor):
        return np.asarray(x._value)
    if isinstance(x, Variable):
        return x.numpy()
    if isinstance(x, Tensor):
        raise TypeError(f"tw.data needs concrete values, got the symbolic tensor {x}; build "
                        "datasets outside tw.function")
    if isinstance(x, np.ndarray):
        return x
    # A list is one leaf (one tensor), as in tf.data; its dtype is inferred as tw.constant's.
    return constant_array(x)


def _to_tensor(a):
    return EagerTensor(a if isinstance(a, np.ndarray) else np.asarray(a))


def _spec_of(element) -> object:
    return _map(lambda a: TensorSpec(TensorShape._from_tuple(np.shape(a)),
                                     dtypes.from_numpy(np.asarray(a).dtype)), element)


def _normalize(value):
    """A user value as an internal element: structure of NumPy arrays."""
    return _map(_to_array, value)


def _call(fn: Callable, element):
    args = _map(_to_tensor, element)
    if isinstance(element, tuple) and not hasattr(element, "_fields"):
        return fn(*args)
    return fn(args)


class Dataset:
    """A sequence of elements, transformed lazily and iterated with ``for``."""

    _tw_dataset_iter = True

    # ----- to implement -----
    def _gen(self) -> Iterator:
        raise NotImplementedError

    def _cardinality(self) -> int:
        return UNKNOWN_CARDINALITY

    def _spec(self):
        for e in self._gen():
            return _spec_of(e)
        raise ValueError("Cannot infer the element_spec of an empty dataset")

    # ----- iteration -----
    def __iter__(self) -> Iterator:
        if ctx.graph is not None:
            raise NotImplementedError(
                "A Python loop over a tw.data.Dataset inside tw.function needs AutoGraph (the "
                "default of tw.function); with autograph=False iterate the dataset eagerly "
                "and pass each element to the function")
        for e in self._gen():
            yield _map(_to_tensor, e)

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
        n = self._cardinality()
        key = id(self)
        _DATASETS[key] = self
        spec = self._spec()
        leaves = _leaves(spec)
        types = tuple(s.dtype for s in leaves)
        shapes = tuple(s.shape for s in leaves)
        bind(MakeIterator, [], {"dataset_id": key})
        if n < 0:
            return self._graph_loop_until_end(key, spec, types, shapes, extra_test, body,
                                              vals, names)

        def step(_, *loop_vals):
            flat = bind(IteratorGetNext, [], {"dataset_id": key, "output_types": types,
                                               "output_shapes": shapes})
            return body(_pack(spec, list(flat)), *loop_vals)
        return _ag_for_stmt(array_ops.range(n), extra_test, step, vals, names)

    @staticmethod
    def _graph_loop_until_end(key: int, spec, types: tuple, shapes: tuple, extra_test, body,
                              vals: tuple, names: tuple) -> tuple:
        """One While over a dataset whose size is unknown (or infinite) when tracing.

        The element is fetched ahead: the loop carries ``has_value`` and the element's leaves,
        runs ``body`` while ``has_value`` (and ``extra_test``) hold, then fetches the next one.

        Args:
            key: the dataset's id in ``_DATASETS`` (its pass was started by MakeIterator).
            spec: the element's structure of TensorSpecs.
            types: the leaves' dtypes.
            shapes: the leaves' shapes (unknown dims for batches of varying size).
            extra_test: None, or a function of the loop variables that must hold to go on.
            body: function of (element, *loop variables) returning the loop variables.
            vals: the loop variables' current values.
            names: their names.

        Returns:
            The loop variables after the loop.
        """
        attrs = {"dataset_id": key, "output_types": types, "output_shapes": shapes}
        k = len(types) + 1

        def fetch() -> tuple:
            return tuple(bind(IteratorGetNextOrEnd, [], attrs))

        def test(*lv):
            has = lv[0]
            if extra_test is None:
                return has
            e = extra_test(*lv[k:])
            if isinstance(e, Tensor):
                return math_ops.logical_and(has, e)
            return has if e else math_ops.logical_and(has, False)

        def step(*lv):
            out = tuple(body(_pack(spec, list(lv[1:k])), *lv[k:]))
            return fetch() + out

        hidden = ("dataset element present",) + tuple(
            f"dataset element[{i}]" for i in range(len(types)))
        out = _ag_while_stmt(test, step, fetch() + tuple(vals), hidden + tuple(names))
        return tuple(out[k:])

    def as_numpy_iterator(self) -> Iterator:
        """Iterates elements as NumPy values (scalars as NumPy scalars, strings as bytes).

        Returns:
            An iterator.
        """
        def conv(a):
            a = np.asarray(a)
            # (a string as bytes, b'a', as TensorFlow; not np.bytes_)
            return a.item() if a.ndim == 0 and a.dtype.kind in "OS" else (
                a[()] if a.ndim == 0 else a)
        return (_map(conv, e) for e in self._gen())

    def __len__(self) -> int:
        n = self._cardinality()
        if n == INFINITE_CARDINALITY:
            raise TypeError("The dataset is infinite.")
        if n == UNKNOWN_CARDINALITY:
            raise TypeError("The dataset length is unknown.")
        return n

    def cardinality(self) -> EagerTensor:
        """The number of elements: ``INFINITE_CARDINALITY`` (-1) or ``UNKNOWN`` (-2) if not
        known.

        Returns:
            An int64 scalar tensor.
        """
        return EagerTensor(np.asarray(self._cardinality(), dtype=np.int64))

    @property
    def element_spec(self):
        """The structure of TensorSpecs of one element."""
        return self._spec()

    # ----- sources -----
    @staticmethod
    def from_tensor_slices(tensors, name=None) -> Dataset:
        """Elements are the slices of ``tensors`` along their first dimension.

        Args:
            tensors: a tensor/array/list, or a tuple/dict of them (same first dimension).
            name: ignored.

        Returns:
            The dataset.
        """
        return _Slices(_normalize(tensors))

    @staticmethod
    def from_tensors(tensors, name=None) -> Dataset:
        """A dataset of one element, ``tensors``.

        Args:
            tensors: the element.
            name: ignored.

        Returns:
            The dataset.
        """
        return _FromList([_normalize(tensors)])

    @staticmethod
    def range(*args, output_type=dtypes.int64, name=None) -> Dataset:
        """``range(stop)``, ``range(start, stop[, step])`` as int64 scalars.

        Args:
            *args: start, stop, step as for Python's range.
            output_type: the element dtype.
            name: ignored.

        Returns:
            The dataset.
        """
        return _Range(range(*args), dtypes.as_dtype(output_type).np)

    @staticmethod
    def zip(*datasets, name=None) -> Dataset:
        """Elements are tuples (or dicts) of the datasets' elements, until one ends.

        Args:
            *datasets: datasets, or one tuple/dict of datasets.
            name: ignored.

        Returns:
            The dataset.
        """
        if len(datasets) == 1 and _is_struct(datasets[0]):
            datasets = datasets[0]
        return _Zip(datasets)

    @staticmethod
    def from_generator(generator: Callable, output_types=None, output_shapes=None, args=None,
                       output_signature=None, name=None) -> Dataset:
        """Elements come from calling ``generator()`` anew for each iteration.

        Args:
            generator: a callable returning an iterator.
            output_types: the element dtypes (structure).
            output_shapes: accepted for compatibility.
            args: arguments for ``generator``.
            output_signature: TensorSpecs of the element (gives the dtypes).
            name: ignored.

        Returns:
            The dataset.
        """
        types = output_types
        if output_signature is not None:
            types = _map(lambda s: s.dtype, output_signature)
        return _Generator(generator, tuple(args or ()), types)

    @staticmethod
    def sample_from_datasets(datasets, weights=None, seed=None,
                             stop_on_empty_dataset: bool = False) -> Dataset:
        """Interleaves elements picked at random from ``datasets`` by ``weights``.

        Args:
            datasets: the datasets.
            weights: the probabilities (uniform by default).
            seed: the random seed.
            stop_on_empty_dataset: stop at the first exhausted dataset.

        Returns:
            The dataset.
        """
        return _Sample(list(datasets), weights, seed, stop_on_empty_dataset)

    # ----- transformations -----
    def map(self, map_func: Callable, num_parallel_calls=None, deterministic=None,
            name=None) -> Dataset:
        """Applies ``map_func`` to each element (tuples are unpacked into arguments).

        ``map_func`` is traced once with ``tw.function``; its graph runs per element.

        Args:
            map_func: the function.
            num_parallel_calls: accepted (elements are mapped in order on one thread).
            deterministic: accepted.
            name: ignored.

        Returns:
            The dataset.
        """
        return _Map(self, map_func)

    def filter(self, predicate: Callable, name=None) -> Dataset:
        """Keeps the elements for which ``predicate`` returns True.

        Args:
            predicate: a function returning a boolean scalar.
            name: ignored.

        Returns:
            The dataset.
        """
        return _Filter(self, predicate)

    def batch(self, batch_size: int, drop_remainder: bool = False, num_parallel_calls=None,
              deterministic=None, name=None) -> Dataset:
        """Stacks consecutive elements into batches.

        Args:
            batch_size: elements per batch.
            drop_remainder: drop a last, smaller batch.
            num_parallel_calls: accepted.
            deterministic: accepted.
            name: ignored.

        Returns:
            The dataset.
        """
        if int(batch_size) <= 0:
            raise ValueError(f"batch_size must be positive, got {batch_size}")
        return _Batch(self, int(batch_size), drop_remainder)

    def padded_batch(self, batch_size: int, padded_shapes=None, padding_values=None,
                     drop_remainder: bool = False, name=None) -> Dataset:
        """Batches elements, padding each to the largest shape in the batch.

        Args:
            batch_size: elements per batch.
            padded_shapes: accepted; batches pad to their largest element.
            padding_values: the pad value (0 by default).
            drop_remainder: drop a last, smaller batch.
            name: ignored.

        Returns:
            The dataset.
        """
        return _Batch(self, int(batch_size), drop_remainder, pad=True,
                      pad_value=0 if padding_values is None else padding_values)

    def unbatch(self, name=None) -> Dataset:
        """Splits each element's first dimension into separate elements.

        Args:
            name: ignored.

        Returns:
            The dataset.
        """
        return _Unbatch(self)

    def shuffle(self, buffer_size: int, seed: int | None = None,
                reshuffle_each_iteration: bool = True, name=None) -> Dataset:
        """Shuffles with a buffer of ``buffer_size`` elements (as ``tf.data``).

        Args:
            buffer_size: the buffer; at least the dataset size for a full shuffle.
            seed: the random seed (with the global seed, ``tw.random.set_seed``).
            reshuffle_each_iteration: a new order on each iteration.
            name: ignored.

        Returns:
            The dataset.
        """
        return _Shuffle(self, int(buffer_size), seed, reshuffle_each_iteration)

    def repeat(self, count: int | None = None, name=None) -> Dataset:
        """Repeats the dataset ``count`` times (forever when None or -1).

        Args:
            count: the number of repetitions.
            name: ignored.

        Returns:
            The dataset.
        """
        return _Repeat(self, None if count is None or int(count) < 0 else int(count))

    def take(self, count: int, name=None) -> Dataset:
        """The first ``count`` elements (all when -1).

        Args:
            count: how many.
            name: ignored.

        Returns:
            The dataset.
        """
        return _Take(self, int(count))

    def skip(self, count: int, name=None) -> Dataset:
        """All but the first ``count`` elements.

        Args:
            count: how many to skip (-1: all).
            name: ignored.

        Returns:
            The dataset.
        """
        return _Skip(self, int(count))

    def prefetch(self, buffer_size, name=None) -> Dataset:
        """Accepted for compatibility: elements are produced on demand.

        Args:
            buffer_size: ignored.
            name: ignored.

        Returns:
            This dataset.
        """
        return self

    def cache(self, filename: str = "", name=None) -> Dataset:
        """Remembers the elements of the first complete iteration and replays them.

        Args:
            filename: must be empty (in-memory cache).
            name: ignored.

        Returns:
            The dataset.
        """
        if filename:
            raise NotImplementedError("twinflow caches in memory only (filename='')")
        return _Cache(self)

    def enumerate(self, start: int = 0, name=None) -> Dataset:
        """Pairs each element with its int64 index: ``(i, element)``.

        Args:
            start: the first index.
            name: ignored.

        Returns:
            The dataset.
        """
        return Dataset.zip((Dataset.range(start, np.iinfo(np.int64).max), self))

    def concatenate(self, dataset: Dataset, name=None) -> Dataset:
        """This dataset's elements followed by ``dataset``'s.

        Args:
            dataset: the other dataset.
            name: ignored.

        Returns:
            The dataset.
        """
        return _Concat(self, dataset)

    def shard(self, num_shards: int, index: int, name=None) -> Dataset:
        """Every ``num_shards``-th element, starting at ``index``.

        Args:
            num_shards: the number of shards.
            index: this shard.
            name: ignored.

        Returns:
            The dataset.
        """
        return _Shard(self, int(num_shards), int(index))

    def apply(self, transformation_func: Callable) -> Dataset:
        """``transformation_func(self)``.

        Args:
            transformation_func: a function from Dataset to Dataset.

        Returns:
            Its result.
        """
        return transformation_func(self)

    def reduce(self, initial_state: Any, reduce_func: Callable) -> Any:
        """Folds the elements: ``state = reduce_func(state, element)``.

        Args:
            initial_state: the starting state (structure of tensors).
            reduce_func: the step function.

        Returns:
            The final state.
        """
        fn = _traced(reduce_func)
        state = _map(_to_tensor, _normalize(initial_state))
        for e in self._gen():
            state = fn(state, _map(_to_tensor, e))
        return state

    def get_single_element(self, name: str | None = None) -> Any:
        """The only element of a one-element dataset.

        Args:
            name: ignored.

        Returns:
            The element.
        """
        items = list(itertools.islice(iter(self), 2))
        if len(items) != 1:
            raise ValueError(f"Dataset had {'no' if not items else 'more than one'} element; "
                             "get_single_element needs exactly one")
        return items[0]

    def with_options(self, options, name=None) -> Dataset:
        """Accepted for compatibility.

        Args:
            options: ignored.
            name: ignored.

        Returns:
            This dataset.
        """
        return self

    def options(self) -> None:
        """Returns None: twinflow datasets take no options (``with_options`` ignores them)."""
        return None

    def __repr__(self) -> str:
        try:
            spec = self.element_spec
        except ValueError:
            spec = None
        return f"<{type(self).__name__.lstrip('_')}Dataset element_spec={spec}>"


def _traced(fn: Callable) -> Callable:
    # tw.function traces the user's function once per input signature; in run-functions-
    # eagerly mode it calls the Python function directly. A lambda cannot hold statements, so
    # AutoGraph has nothing to convert in it (and would only warn that it cannot read it).
    return _tw_function(fn, autograph=getattr(fn, "__name__", "") != "<lambda>")


# ---------------------------------------------------------------------------------------------
# Sources

class _Slices(Dataset):
    def __init__(self, arrays) -> None:
        self._arrays = arrays
        leaves = _leaves(arrays)
        if not leaves:
            raise ValueError("from_tensor_slices needs at least one tensor")
        ns = {a.shape[0] if a.ndim else None for a in leaves}
        if None in ns:
            raise ValueError("from_tensor_slices needs tensors of rank >= 1")
        if len(ns) != 1:
            raise ValueError(f"Dimensions of the components do not match: first dimensions "
                             f"{sorted(ns)}")
        self._n = ns.pop()

    def _gen(self):
        arrays = self._arrays
        if not _is_struct(arrays):
            yield from arrays
            return
        leaves = _leaves(arrays)
        for i in range(self._n):
            yield _pack(arrays, [a[i] for a in leaves])

    def _cardinality(self) -> int:
        return self._n

    def _spec(self):
        return _map(lambda a: TensorSpec(TensorShape._from_tuple(a.shape[1:]),
                                         dtypes.from_numpy(a.dtype)), self._arrays)


class _FromList(Dataset):
    def __init__(self, elements: list) -> None:
        self._elements = elements

    def _gen(self):
        yield from self._elements

    def _cardinality(self) -> int:
        return len(self._elements)


class _Range(Dataset):
    def __init__(self, r: range, np_dtype) -> None:
        self._r = r
        self._dtype = np_dtype

    def _gen(self):
        t = self._dtype
        for i in self._r:
            yield np.asarray(i, dtype=t)

    def _cardinality(self) -> int:
        return len(self._r)

    def _spec(self):
        return TensorSpec(TensorShape([]), dtypes.from_numpy(np.dtype(self._dtype)))


class _Zip(Dataset):
    def __init__(self, datasets) -> None:
        for d in _leaves(datasets):
            if not isinstance(d, Dataset):
                raise TypeError(f"Dataset.zip needs datasets, got {d!r}")
        self._datasets = datasets

    def _gen(self):
        its = [d._gen() for d in _leaves(self._datasets)]
        for items in zip(*its):
            yield _pack(self._datasets, list(items))

    def _cardinality(self) -> int:
        cards = [d._cardinality() for d in _leaves(self._datasets)]
        finite = [c for c in cards if c >= 0]
        if finite:
            return min(finite)
        return UNKNOWN_CARDINALITY if UNKNOWN_CARDINALITY in cards else INFINITE_CARDINALITY

    def _spec(self):
        return _pack(self._datasets, [d._spec() for d in _leaves(self._datasets)])


class _Generator(Dataset):
    def __init__(self, generator: Callable, args: tuple, types) -> None:
        self._generator = generator
        self._args = args
        self._types = types

    def _gen(self):
        for value in self._generator(*self._args):
            e = _normalize(value)
            if self._types is not None:
                e = _map2(lambda a, t: np.asarray(a, dtype=dtypes.as_dtype(t).np), e,
                          self._types)
            yield e


class _Sample(Dataset):
    def __init__(self, datasets: list, weights, seed, stop: bool) -> None:
        self._datasets = datasets
        w = np.ones(len(datasets)) if weights is None else np.asarray(weights, np.float64)
        self._p = w / w.sum()
        self._seeds = get_seed(seed)
        self._stop = stop

    def _gen(self):
        rng = _seeded_rng(self._seeds)
        its = [d._gen() for d in self._datasets]
        live = list(range(len(its)))
        while live:
            p = self._p[live] / self._p[live].sum()
            k = live[int(rng.choice(len(live), p=p))]
            try:
                yield next(its[k])
            except StopIteration:
                if self._stop:
                    return
                live.remove(k)


# ---------------------------------------------------------------------------------------------
# Transformations

class _Unary(Dataset):
    def __init__(self, input_dataset: Dataset) -> None:
        self._input = input_dataset

    def _cardinality(self) -> int:
        return self._input._cardinality()


class _Map(_Unary):
    def __init__(self, input_dataset: Dataset, fn: Callable) -> None:
        super().__init__(input_dataset)
        self._fn = _traced(fn)

    def _gen(self):
        fn = self._fn
        for e in self._input._gen():
            yield _normalize(_call(fn, e))


class _Filter(_Unary):
    def __init__(self, input_dataset: Dataset, predicate: Callable) -> None:
        super().__init__(input_dataset)
        self._pred = _traced(predicate)

    def _gen(self):
        pred = self._pred
        for e in self._input._gen():
            keep = _call(pred, e)
            if bool(np.asarray(keep)):
                yield e

    def _cardinality(self) -> int:
        n = self._input._cardinality()
        return n if n == INFINITE_CARDINALITY else UNKNOWN_CARDINALITY

    def _spec(self):
        return self._input._spec()


def _stack(items: list, pad: bool, pad_value):
    if not pad:
        return np.stack(items)
    shape = np.max([np.shape(x) for x in items], axis=0) if np.ndim(items[0]) else ()
    out = np.full((len(items),) + tuple(shape), pad_value, dtype=np.asarray(items[0]).dtype)
    for i, x in enumerate(items):
        out[(i,) + tuple(slice(0, d) for d in np.shape(x))] = x
    return out


class _Batch(_Unary):
    def __init__(self, input_dataset: Dataset, size: int, drop: bool, pad: bool = False,
                 pad_value=0) -> None:
        super().__init__(input_dataset)
        self._size = size
        self._drop = drop
        self._pad = pad
        self._pad_value = pad_value

    def _gen(self):
        src = self._input
        order = None
        if isinstance(src, _Shuffle) and not self._pad:
            order = src._slice_order()
            if order is not None:
                src = src._input
        if isinstance(src, _Slices) and not self._pad:
            # Slicing (or gathering, after a shuffle) whole batches is much faster than
            # stacking single elements.
            arrays = src._arrays
            leaves = _leaves(arrays)
            n = src._n
            stop = n - n % self._size if self._drop else n
            for lo in range(0, stop, self._size):
                if order is None:
                    yield _pack(arrays, [a[lo:lo + self._size] for a in leaves])
                else:
                    idx = order[lo:lo + self._size]
                    yield _pack(arrays, [a[idx] for a in leaves])
            return
        buf: list = []
        for e in src._gen():
            buf.append(e)
            if len(buf) == self._size:
                yield self._collate(buf)
                buf = []
        if buf and not self._drop:
            yield self._collate(buf)

    def _collate(self, buf: list):
        template = buf[0]
        cols = list(zip(*[_leaves(e) for e in buf]))
        return _pack(template, [_stack(list(c), self._pad, self._pad_value) for c in cols])

    def _cardinality(self) -> int:
        n = self._input._cardinality()
        if n < 0:
            return n
        return n // self._size if self._drop else -(-n // self._size)

    def _spec(self):
        inner = self._input._spec()
        known = self._drop and self._input._cardinality() != UNKNOWN_CARDINALITY
        b = self._size if known else None
        return _map(lambda s: TensorSpec(TensorShape([b] + (s.shape.as_list() if s.shape.rank
                                                             is not None else [])), s.dtype),
                    inner)


class _Unbatch(_Unary):
    def _gen(self):
        for e in self._input._gen():
            leaves = _leaves(e)
            for i in range(len(leaves[0])):
                yield _pack(e, [a[i] for a in leaves])

    def _cardinality(self) -> int:
        return UNKNOWN_CARDINALITY


def _seeded_rng(seeds: tuple, epoch: int = 0) -> np.random.Generator:
    """The generator of an epoch of a dataset op whose seeds ``random_ops.get_seed`` gave."""
    if seeds == (0, 0):
        return np.random.default_rng()
    return stateless_generator([*seeds, epoch])


class _Shuffle(_Unary):
    def __init__(self, input_dataset: Dataset, buffer_size: int, seed, reshuffle: bool) -> None:
        super().__init__(input_dataset)
        if buffer_size <= 0:
            raise ValueError("buffer_size must be greater than zero.")
        self._buffer = buffer_size
        # The op seeds are fixed now, as TensorFlow does when the dataset is created.
        self._seeds = get_seed(seed)
        self._reshuffle = reshuffle
        self._epoch = 0

    def _rng(self) -> np.random.Generator:
        rng = _seeded_rng(self._seeds, self._epoch if self._reshuffle else 0)
        self._epoch += 1
        return rng

    def _slice_order(self) -> np.ndarray | None:
        """The shuffled row order when the input is a from_tensor_slices dataset, else None."""
        src = self._input
        if not isinstance(src, _Slices):
            return None
        return _buffer_order(src._n, self._buffer, self._rng())

    def _gen(self):
        order = self._slice_order()
        if order is not None:
            arrays = self._input._arrays
            leaves = _leaves(arrays)
            for i in order:
                yield _pack(arrays, [a[i] for a in leaves]) if _is_struct(arrays) \
                    else arrays[i]
            return
        rng = self._rng()
        buf: list = []
        it = self._input._gen()
        for e in it:
            buf.append(e)
            if len(buf) >= self._buffer:
                break
        for e in it:
            k = int(rng.integers(len(buf)))
            yield buf[k]
            buf[k] = e
        while buf:
            k = int(rng.integers(len(buf)))
            buf[k], buf[-1] = buf[-1], buf[k]
            yield buf.pop()

    def _spec(self):
        return self._input._spec()


def _buffer_order(n: int, buffer: int, rng: np.random.Generator) -> np.ndarray:
    """The order in which a shuffle buffer of ``buffer`` slots emits elements 0..n-1.

    The same algorithm as the element-wise shuffle (fill, then emit a random slot and refill
    it), run on indices with the random draws made in bulk.
    """
    if buffer >= n:
        return rng.permutation(n)
    out = np.empty(n, dtype=np.int64)
    buf = list(range(buffer))
    ks = rng.integers(buffer, size=n - buffer).tolist()
    for j, k in enumerate(ks):
        out[j] = buf[k]
        buf[k] = buffer + j
    tail = rng.permutation(len(buf))
    out[n - buffer:] = np.asarray(buf, dtype=np.int64)[tail]
    return out


class _Repeat(_Unary):
    def __init__(self, input_dataset: Dataset, count: int | None) -> None:
        super().__init__(input_dataset)
        self._count = count

    def _gen(self):
        i = 0
        while self._count is None or i < self._count:
            empty = True
            for e in self._input._gen():
                empty = False
                yield e
            if empty:
                return
            i += 1

    def _cardinality(self) -> int:
        n = self._input._cardinality()
        if self._count is None:
            return 0 if n == 0 else INFINITE_CARDINALITY
        return n * self._count if n >= 0 else n

    def _spec(self):
        return self._input._spec()


class _Take(_Unary):
    def __init__(self, input_dataset: Dataset, count: int) -> None:
        super().__init__(input_dataset)
        self._count = count

    def _gen(self):
        if self._count < 0:
            yield from self._input._gen()
            return
        yield from itertools.islice(self._input._gen(), self._count)

    def _cardinality(self) -> int:
        n = self._input._cardinality()
        if self._count < 0:
            return n
        if n == INFINITE_CARDINALITY:
            return self._count
        return min(n, self._count) if n >= 0 else UNKNOWN_CARDINALITY

    def _spec(self):
        return self._input._spec()


class _Skip(_Unary):
    def __init__(self, input_dataset: Dataset, count: int) -> None:
        super().__init__(input_dataset)
        self._count = count

    def _gen(self):
        if self._count < 0:
            return
        yield from itertools.islice(self._input._gen(), self._count, None)

    def _cardinality(self) -> int:
        n = self._input._cardinality()
        if n < 0:
            return n
        return 0 if self._count < 0 else max(0, n - self._count)

    def _spec(self):
        return self._input._spec()


class _Cache(_Unary):
    def __init__(self, input_dataset: Dataset) -> None:
        super().__init__(input_dataset)
        self._cached: list | None = None

    def _gen(self):
        if self._cached is not None:
            yield from self._cached
            return
        items = []
        for e in self._input._gen():
            items.append(e)
            yield e
        self._cached = items

    def _spec(self):
        return self._input._spec()


class _Concat(Dataset):
    def __init__(self, a: Dataset, b: Dataset) -> None:
        self._a, self._b = a, b

    def _gen(self):
        yield from self._a._gen()
        yield from self._b._gen()

    def _cardinality(self) -> int:
        x, y = self._a._cardinality(), self._b._cardinality()
        if INFINITE_CARDINALITY in (x, y):
            return INFINITE_CARDINALITY
        return x + y if x >= 0 and y >= 0 else UNKNOWN_CARDINALITY


class _Shard(_Unary):
    def __init__(self, input_dataset: Dataset, num: int, index: int) -> None:
        super().__init__(input_dataset)
        if not 0 <= index < num:
            raise ValueError(f"index must be in [0, {num}), got {index}")
        self._num, self._index = num, index

    def _gen(self):
        yield from itertools.islice(self._input._gen(), self._index, None, self._num)

    def _cardinality(self) -> int:
        n = self._input._cardinality()
        return n if n < 0 else max(0, -(-(n - self._index) // self._num))

    def _spec(self):
        return self._input._spec()
