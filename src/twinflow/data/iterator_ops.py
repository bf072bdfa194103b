"""Iterating a dataset: the Python ``Iterator`` (checkpointable) and the graph ops and loops
that iterate inside ``tw.function``.

Inside a graph, a stateful op starts a fresh pass over the dataset each time the graph runs,
another hands out the next element (the Python pipeline runs beside the graph).
"""
from __future__ import annotations

import itertools
import weakref
from typing import Any

import numpy as np

from ..autograph.operators.control_flow import for_stmt as _ag_for_stmt
from ..autograph.operators.control_flow import while_stmt as _ag_while_stmt
from ..core import dtypes, errors
from ..core.context import ctx
from ..core.shapes import TensorShape
from ..eager.execute import bind
from ..graph.registry import register_op
from ..graph.tensor import Tensor
from ..ops import array_ops, math_ops
from ..ops.variables import Variable
from .optional_ops import Optional, OptionalSpec  # noqa: F401  (re-exported)
from .structure import (
    ElementsSpec,
    component_specs,
    element_components,
    map_struct,
    pack_components,
    to_tensor,
)

_DATASETS: dict = {}
_ITERATORS: dict = {}
_KEYS = itertools.count(1 << 62)  # (keys of GraphIterators; dataset loops use id(dataset))


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
            raise errors.OutOfRangeError(None, None, "End of sequence") from None
        return tuple(np.asarray(a, dtype=t.np)
                     for a, t in zip(element_components(element), output_types))


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
            np.asarray(a, dtype=t.np) for a, t in zip(element_components(element), output_types))


@register_op("IteratorClose", stateful=True, multi_output=True)
class IteratorClose:
    """Ends the pass of ``dataset_id`` (after its loop): its threads stop now."""

    def infer(*, dataset_id):
        return []

    def kernel(*, dataset_id):
        it = _ITERATORS.pop(dataset_id, None)
        if it is not None:
            it.close()
        return ()


_LIVE_ITERATORS: weakref.WeakValueDictionary = weakref.WeakValueDictionary()


@register_op("IteratorGetNextFrom", stateful=True, multi_output=True)
class IteratorGetNextFrom:
    """The next element of a Python ``Iterator`` (``next(iterator)`` inside a graph): each
    run of the graph takes one more element."""

    def infer(*, iterator_id, output_types, output_shapes):
        return list(zip(output_types, output_shapes))

    def kernel(*, iterator_id, output_types, output_shapes):
        it = _LIVE_ITERATORS.get(iterator_id)
        if it is None:
            raise errors.FailedPreconditionError(None, None, "the iterator this graph reads "
                                                 "from no longer exists")
        try:
            element = it._next_element()
        except StopIteration:
            raise errors.OutOfRangeError(None, None, "End of sequence") from None
        return tuple(np.asarray(a, dtype=t.np)
                     for a, t in zip(element_components(element), output_types))


def _graph_specs(spec) -> tuple:
    specs = component_specs(spec)
    if any(not hasattr(s, "shape") or s.dtype is dtypes.variant for s in specs):
        raise NotImplementedError("a loop over a dataset of datasets (window) inside "
                                  "tw.function is not supported; flat_map the windows first")
    return tuple(s.dtype for s in specs), tuple(s.shape for s in specs)


def graph_for_loop(ds, extra_test, body, vals: tuple, names: tuple) -> tuple:
    """``for element in ds`` inside a graph: one graph loop fed by IteratorGetNext ops.

    Args:
        ds: the dataset.
        extra_test, body, vals, names: as for ``Dataset.__ag_for_stmt__``.

    Returns:
        The loop variables after the loop.
    """
    n = ds._cardinality()
    key = id(ds)
    _DATASETS[key] = ds
    spec = ds.element_spec
    types, shapes = _graph_specs(spec)
    bind(MakeIterator, [], {"dataset_id": key})
    if n < 0:
        out = _graph_loop_until_end(key, spec, types, shapes, extra_test, body, vals, names)
    else:
        def step(_, *loop_vals):
            flat = bind(IteratorGetNext, [], {"dataset_id": key, "output_types": types,
                                               "output_shapes": shapes})
            return body(pack_components(spec, list(flat)), *loop_vals)
        out = _ag_for_stmt(array_ops.range(n), extra_test, step, vals, names)
    # (stateful ops run in program order: the pass is closed once the loop is done)
    bind(IteratorClose, [], {"dataset_id": key})
    return out


def _graph_loop_until_end(key: int, spec, types: tuple, shapes: tuple, extra_test, body,
                          vals: tuple, names: tuple) -> tuple:
    """One While over a dataset whose size is unknown (or infinite) when tracing.

    The element is fetched ahead: the loop carries ``has_value`` and the element's leaves,
    runs ``body`` while ``has_value`` (and ``extra_test``) hold, then fetches the next one.
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
        out = tuple(body(pack_components(spec, list(lv[1:k])), *lv[k:]))
        return fetch() + out

    hidden = ("dataset element present",) + tuple(
        f"dataset element[{i}]" for i in range(len(types)))
    out = _ag_while_stmt(test, step, fetch() + tuple(vals), hidden + tuple(names))
    return tuple(out[k:])


class GraphIterator:
    """``iter(dataset)`` inside ``tw.function``: each call of the function starts a new pass
    (a MakeIterator op) and each ``next()`` adds an IteratorGetNext op (OutOfRangeError when
    the pass is over). A ``for`` loop over it (AutoGraph) reads the rest of the pass.

    Args:
        dataset: the dataset.
    """

    def __init__(self, dataset) -> None:
        self._key = next(_KEYS)
        _DATASETS[self._key] = dataset
        self.element_spec = dataset.element_spec
        self._types, self._shapes = _graph_specs(self.element_spec)
        bind(MakeIterator, [], {"dataset_id": self._key})

    def __iter__(self) -> GraphIterator:
        raise NotImplementedError("a Python loop over an iterator inside tw.function needs "
                                  "AutoGraph (the default of tw.function)")

    def __next__(self) -> Any:
        flat = bind(IteratorGetNext, [], {"dataset_id": self._key, "output_types": self._types,
                                           "output_shapes": self._shapes})
        return pack_components(self.element_spec, list(flat))

    def get_next(self) -> Any:
        """The next element (symbolic).

        Returns:
            The element.
        """
        return next(self)

    def __ag_for_stmt__(self, extra_test, body, vals, names):
        """``for element in iterator`` converted by AutoGraph: the rest of the pass (the
        arguments and result are those of ``Dataset.__ag_for_stmt__``)."""
        return _graph_loop_until_end(self._key, self.element_spec, self._types, self._shapes,
                                     extra_test, body, vals, names)


class Iterator:
    """An iterator over a dataset (``iter(dataset)``), checkpointable.

    Saved in a ``tw.train.Checkpoint``, it records how many elements it has produced; after a
    restore its next element is the one that followed them (the pass is replayed and that many
    elements are skipped: deterministic pipelines resume exactly, see docs/tf_differences.md).

    Args:
        dataset: the dataset to iterate.
    """

    def __init__(self, dataset) -> None:
        self._dataset = dataset
        self._it = dataset._gen()
        self._count = 0
        self._position: Variable | None = None
        self._saved = 0

    @property
    def element_spec(self):
        """The element_spec of the dataset."""
        return self._dataset.element_spec

    def __iter__(self) -> Iterator:
        return self

    def _sync_restore(self) -> None:
        # A restore assigned the position variable: replay the pass up to it.
        want = int(self._position.numpy())
        if want != self._saved:
            self._saved = want
            self._it.close()
            self._it = self._dataset._gen()
            for _ in range(want):
                next(self._it)
            self._count = want

    def _next_element(self):
        if self._position is not None:
            self._sync_restore()
        e = next(self._it)
        self._count += 1
        return e

    def __next__(self):
        if ctx.graph is not None:
            # Inside tw.function: an op that takes the next element each time the graph runs
            # (not the element of tracing time, baked in as a constant).
            spec = self.element_spec
            types, shapes = _graph_specs(spec)
            _LIVE_ITERATORS[id(self)] = self
            flat = bind(IteratorGetNextFrom, [], {"iterator_id": id(self),
                                                  "output_types": types,
                                                  "output_shapes": shapes})
            return pack_components(spec, list(flat))
        return map_struct(to_tensor, self._next_element())

    def get_next(self) -> Any:
        """The next element.

        Returns:
            The element (tensors).

        Raises:
            OutOfRangeError: the dataset is exhausted.
        """
        try:
            return next(self)
        except StopIteration:
            raise errors.OutOfRangeError(None, None, "End of sequence") from None

    def get_next_as_optional(self) -> Optional:
        """The next element as an ``Optional`` (empty at the end).

        Returns:
            The Optional.
        """
        try:
            value = next(self)
        except StopIteration:
            return Optional.empty(self.element_spec)
        return Optional(to_tensor(np.bool_(True)), value, self.element_spec)

    def _trackable_children(self) -> dict:
        # A checkpoint saves the position; a restore assigns it and the next element syncs.
        if self._position is None:
            self._position = Variable(np.int64(self._count), trainable=False,
                                      name="iterator_position")
        else:
            self._sync_restore()
            self._position.assign(np.int64(self._count))
        self._saved = self._count
        return {"position": self._position}

    def close(self) -> None:
        """Stops the pass now (its background threads, if any, end)."""
        self._it.close()

    def __del__(self) -> None:
        it = getattr(self, "_it", None)
        if it is not None:
            it.close()


class IteratorSpec(ElementsSpec):
    """The spec of an iterator: the element_spec of its dataset.

    Args:
        element_spec: the element_spec.
    """
