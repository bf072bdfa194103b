"""``tw.queue``: FIFOQueue, PaddingFIFOQueue, PriorityQueue, RandomShuffleQueue.

A queue's state (the elements, a lock and its condition variable) is a Python object; its
handle (``queue_ref``) is a resource tensor whose value is that object, as a variable's is.
Every method binds a stateful op taking the handle (TensorFlow's ``QueueEnqueueV2``,
``QueueDequeueManyV2``...), so it runs now when eager and, inside ``tw.function``, once per
call in program order. The ops block as TensorFlow's do: a dequeue waits for elements, an
enqueue for room, and both are woken by ``close``. Their ``timeout_ms`` attr (reachable through
``tw.raw_ops``), which TensorFlow declares but does not implement, is honoured: the wait ends
with ``DeadlineExceededError``. Any number of threads may share a queue.
"""
from __future__ import annotations

import collections
import heapq
import itertools
import threading
import time
from collections.abc import Callable

import numpy as np

from ..core import dtypes as _dtypes
from ..core.context import ctx
from ..core.errors import (
    CancelledError,
    DeadlineExceededError,
    InvalidArgumentError,
    OutOfRangeError,
)
from ..core.props import readonly
from ..core.shapes import TensorShape
from ..eager.execute import bind, convert_to_tensor
from ..eager.tensor import ResourceHandle
from ..graph.registry import register_op
from .random.seeds import get_seed

__all__ = ["QueueBase", "FIFOQueue", "PaddingFIFOQueue", "PriorityQueue", "RandomShuffleQueue"]

_ids = itertools.count()


class QueueState:
    """The elements of one queue and the condition its blocked ops wait on.

    ``kind`` is the class name used in messages; elements are tuples of arrays.
    """

    def __init__(self, kind: str, capacity: int, dtypes: list, shapes: list,
                 min_after_dequeue: int = 0, seed=None) -> None:
        self.kind, self.capacity = kind, capacity
        self.dtypes, self.shapes = dtypes, shapes
        self.min_after_dequeue = min_after_dequeue
        self.name = str(next(_ids))
        self.cond = threading.Condition()
        self.closed = self.cancelled = False
        self.items: list | collections.deque = (
            collections.deque() if kind in ("FIFOQueue", "PaddingFIFOQueue") else [])
        self.order = itertools.count()  # PriorityQueue: equal priorities leave in order
        s1, s2 = get_seed(seed)  # TensorFlow's rules: the global seed counts too
        self.rng = np.random.default_rng(None if (s1, s2) == (0, 0) else [s1, s2])

    def __repr__(self) -> str:
        return f"<{self.kind} '{self.name}'>"

    # -- waiting --------------------------------------------------------------------------
    def _wait(self, ready, deadline, op: str) -> None:
        """Waits (holding ``cond``) until ``ready()``; DeadlineExceededError past deadline."""
        while not ready():
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                raise DeadlineExceededError(None, None, f"Timed out waiting for {self.kind} "
                                            f"'{self.name}' [Op:{op}]")
            self.cond.wait(left)

    # -- enqueue --------------------------------------------------------------------------
    def put(self, elements: list, deadline, op: str) -> None:
        """Adds ``elements`` (tuples) one by one, waiting for room; CancelledError if closed."""
        with self.cond:
            for el in elements:
                if self.closed:
                    raise CancelledError(None, None, f"{self.kind} '{self.name}' is closed. "
                                         f"[Op:{op}]")
                self._wait(lambda: len(self.items) < self.capacity or self.closed
                           and self.cancelled, deadline, op)
                if self.cancelled:
                    raise CancelledError(None, None, f"{self.kind} '{self.name}' is closed. "
                                         f"[Op:{op}]")
                if self.kind == "PriorityQueue":
                    heapq.heappush(self.items, (int(el[0]), next(self.order), el))
                else:
                    self.items.append(el)
                self.cond.notify_all()

    # -- dequeue --------------------------------------------------------------------------
    def take(self, n: int, up_to: bool, deadline, op: str) -> list:
        """Removes ``n`` elements at once (``up_to``: fewer once the queue is closed)."""
        with self.cond:
            def available() -> int:
                size = len(self.items)
                return size if self.closed else size - self.min_after_dequeue

            def ready() -> bool:
                return available() >= n or self.closed
            self._wait(ready, deadline, op)
            size = len(self.items)
            if size < n and (not up_to or size == 0):
                raise OutOfRangeError(None, None, f"{self.kind} '{self.name}' is closed and has "
                                      f"insufficient elements (requested {n}, current size "
                                      f"{size}) [Op:{op}]")
            out = [self._pop() for _ in range(min(n, size))]
            self.cond.notify_all()
            return out

    def _pop(self):
        if self.kind == "PriorityQueue":
            return heapq.heappop(self.items)[2]
        if self.kind == "RandomShuffleQueue":
            i = int(self.rng.integers(len(self.items)))
            self.items[i], self.items[-1] = self.items[-1], self.items[i]
            return self.items.pop()
        return self.items.popleft()

    def close(self, cancel: bool) -> None:
        with self.cond:
            self.closed = True
            self.cancelled = self.cancelled or cancel
            self.cond.notify_all()


def _deadline(timeout_ms: int):
    return None if timeout_ms < 0 else time.monotonic() + timeout_ms / 1000.0


def _check_element(q: QueueState, comps, op: str, batched: bool) -> None:
    """The kernel's check of dtypes and shapes (graph inputs may have unknown shapes)."""
    if len(comps) != len(q.dtypes):
        raise InvalidArgumentError(None, None, f"{q.kind} '{q.name}' expects {len(q.dtypes)} "
                                   f"components, got {len(comps)} [Op:{op}]")
    for i, (c, dt, shape) in enumerate(zip(comps, q.dtypes, q.shapes)):
        got = _dtypes.from_numpy(np.asarray(c).dtype)
        if got != dt:
            raise InvalidArgumentError(None, None, f"Type mismatch in tuple component {i}. "
                                       f"Expected {dt.name}, got {got.name} [Op:{op}]")
        s = np.shape(c)[1:] if batched else np.shape(c)
        if shape is not None and not TensorShape(shape).is_compatible_with(s):
            raise InvalidArgumentError(None, None, f"Shape mismatch in tuple component {i}. "
                                       f"Expected {list(TensorShape(shape))}, got {list(s)} "
                                       f"[Op:{op}]")
    if batched and len({np.shape(c)[0] for c in comps}) > 1:
        raise InvalidArgumentError(None, None, "All components of an enqueue_many must have "
                                   f"the same 0th dimension [Op:{op}]")


def _stack(q: QueueState, elements: list, op: str) -> tuple:
    """One batch per component; PaddingFIFOQueue pads each to the largest element."""
    if any(s is None or not TensorShape(s).is_fully_defined() for s in q.shapes) \
            and q.kind != "PaddingFIFOQueue":
        raise InvalidArgumentError(None, None, f"{q.kind}'s DequeueMany and DequeueUpTo require "
                                   f"the components to have specified shapes. [Op:{op}]")
    out = []
    for i, dt in enumerate(q.dtypes):
        parts = [np.asarray(el[i]) for el in elements]
        if not parts:
            shape = (0,) + tuple(d or 0 for d in TensorShape(q.shapes[i]).as_list())
            out.append(np.zeros(shape, dt.as_numpy_dtype))
            continue
        if q.kind == "PaddingFIFOQueue":
            big = tuple(max(p.shape[k] for p in parts) for k in range(parts[0].ndim))
            fill = b"" if dt == _dtypes.string else 0
            padded = []
            for p in parts:
                full = np.full(big, fill, dtype=p.dtype)
                full[tuple(slice(0, d) for d in p.shape)] = p
                padded.append(full)
            parts = padded
        out.append(np.stack(parts).astype(parts[0].dtype, copy=False))
    return tuple(out)


# TensorFlow's op definitions: the components are a list of tensors, each of its own dtype
# (a list(type) attr); an enqueue's Tcomponents follows from its inputs (written on export).
_ENQUEUE = "handle:resource, components:Tcomponents -> | Tcomponents:list(type); timeout_ms:int=-1"
_DEQUEUED = "components:component_types | component_types:list(type); timeout_ms:int=-1"


def _types(component_types) -> list:
    return [(t, TensorShape(None)) for t in component_types]


@register_op("QueueEnqueueV2", stateful=True, multi_output=True, schema=_ENQUEUE)
class QueueEnqueueV2:
    """Adds one element (one tensor per component) to the queue, waiting for room."""

    def infer(handle, *components, timeout_ms=-1):
        return []

    def kernel(handle, *components, timeout_ms=-1):
        _check_element(handle, components, "QueueEnqueueV2", False)
        handle.put([tuple(np.asarray(c) for c in components)], _deadline(timeout_ms),
                   "QueueEnqueueV2")
        return ()


@register_op("QueueEnqueueManyV2", stateful=True, multi_output=True, schema=_ENQUEUE)
class QueueEnqueueManyV2:
    """Adds the slices along dimension 0 of its components as elements."""

    def infer(handle, *components, timeout_ms=-1):
        return []

    def kernel(handle, *components, timeout_ms=-1):
        op = "QueueEnqueueManyV2"
        for c in components:
            if np.ndim(c) == 0:
                raise InvalidArgumentError(None, None, f"Shape () must have rank at least 1 "
                                           f"[Op:{op}]")
        _check_element(handle, components, op, True)
        n = np.shape(components[0])[0] if components else 0
        handle.put([tuple(np.asarray(c[k]) for c in components) for k in range(n)],
                   _deadline(timeout_ms), op)
        return ()


@register_op("QueueDequeueV2", stateful=True, multi_output=True,
             schema=f"handle:resource -> {_DEQUEUED}")
class QueueDequeueV2:
    """Removes one element, waiting for one (OutOfRangeError once closed and empty)."""

    def infer(handle, *, component_types, timeout_ms=-1):
        return _types(component_types)

    def kernel(handle, *, component_types, timeout_ms=-1):
        return handle.take(1, False, _deadline(timeout_ms), "QueueDequeueV2")[0]


def _take_batch(handle, n, timeout_ms: int, op: str, up_to: bool) -> tuple:
    n = _count(n, op)
    _stack(handle, [], op)  # the shapes must be known before waiting
    return _stack(handle, handle.take(n, up_to, _deadline(timeout_ms), op), op)


def _dequeue_batch_op(name: str, up_to: bool, doc: str):
    def infer(handle, n, *, component_types, timeout_ms=-1):
        return _types(component_types)

    def kernel(handle, n, *, component_types, timeout_ms=-1):
        return _take_batch(handle, n, timeout_ms, name, up_to)
    decl = type(name, (), {"__doc__": doc, "infer": infer, "kernel": kernel})
    return register_op(name, stateful=True, multi_output=True,
                       schema=f"handle:resource, n:int32 -> {_DEQUEUED}")(decl)


QueueDequeueManyV2 = _dequeue_batch_op(
    "QueueDequeueManyV2", False, "Removes ``n`` elements, stacked along a new dimension 0.")
QueueDequeueUpToV2 = _dequeue_batch_op(
    "QueueDequeueUpToV2", True,
    "Removes ``n`` elements, or fewer (at least one) once the queue is closed.")


def _count(n, op: str) -> int:
    n = int(n)
    if n < 0:
        raise InvalidArgumentError(None, None, f"Request '{op}' must be non-negative, got {n} "
                                   f"[Op:{op}]")
    return n


@register_op("QueueCloseV2", stateful=True, multi_output=True,
             schema="handle:resource -> | cancel_pending_enqueues:bool=False")
class QueueCloseV2:
    """Closes the queue: no more enqueues; dequeues drain it, then fail."""

    def infer(handle, *, cancel_pending_enqueues=False):
        return []

    def kernel(handle, *, cancel_pending_enqueues=False):
        handle.close(cancel_pending_enqueues)
        return ()


@register_op("QueueSizeV2", stateful=True, schema="handle:resource -> size:int32")
class QueueSizeV2:
    """The number of elements in the queue (int32 scalar)."""

    def infer(handle):
        return _dtypes.int32, TensorShape([])

    def kernel(handle):
        with handle.cond:
            return np.int32(len(handle.items))


@register_op("QueueIsClosedV2", stateful=True, schema="handle:resource -> is_closed:bool")
class QueueIsClosedV2:
    """Whether the queue is closed (bool scalar)."""

    def infer(handle):
        return _dtypes.bool_, TensorShape([])

    def kernel(handle):
        return np.bool_(handle.closed)


def _query(method: str, opdef, default_name: str, summary: str, returns: str) -> Callable:
    """``QueueBase.<method>(name=None)``: the scalar ``opdef`` reads from the queue."""
    def query(self, name=None):
        return bind(opdef, [self._queue_ref], {}, name=name or f"{self._name}_{default_name}")
    query.__name__, query.__qualname__ = method, f"QueueBase.{method}"
    query.__doc__ = (f"{summary}\n\nArgs:\n    name: the op name.\n\n"
                     f"Returns:\n    {returns}\n")
    return query


class QueueBase:
    """A queue of elements, each a tuple (or dict, with ``names``) of tensors.

    Built by a subclass (FIFOQueue...); ``QueueBase(dtypes, shapes, names, queue_ref)`` wraps an
    existing handle (``from_list``).
    """

    def __init__(self, dtypes, shapes, names, queue_ref) -> None:
        self._dtypes = list(dtypes)
        self._shapes = [TensorShape(s) for s in shapes] if shapes is not None else \
            [TensorShape(None)] * len(self._dtypes)
        self._names = list(names) if names is not None else None
        self._queue_ref = queue_ref
        state = getattr(queue_ref, "_value", None)
        self._name = state.name if isinstance(state, QueueState) else "queue"

    @staticmethod
    def from_list(index, queues) -> QueueBase:
        """A queue using the handle of ``queues[index]``.

        Args:
            index: an integer (or integer scalar tensor) selecting the queue.
            queues: a list of QueueBase objects with the same dtypes.

        Returns:
            A QueueBase sharing that queue.
        """
        if not queues or not all(isinstance(q, QueueBase) for q in queues):
            raise TypeError("A list of queues expected")
        if any(q.dtypes != queues[0].dtypes for q in queues):
            raise TypeError("Queues do not have matching component dtypes.")
        i = int(np.asarray(getattr(index, "_value", index)))
        if not 0 <= i < len(queues):
            raise InvalidArgumentError(None, None, f"index {i} out of range for {len(queues)} "
                                       "queues")
        q = queues[i]
        shapes = [a if all(a == b.shapes[k] for b in queues) else TensorShape(None)
                  for k, a in enumerate(q.shapes)]
        names = q.names if all(b.names == q.names for b in queues) else None
        return QueueBase(q.dtypes, shapes, names, q.queue_ref)

    queue_ref = readonly("_queue_ref", "The resource handle of the queue.")
    name = readonly("_name", "The name of the queue.")
    dtypes = readonly("_dtypes", "The dtypes of the components of an element.")
    shapes = readonly("_shapes", "The static shapes of the components of an element.")
    names = readonly("_names", "The names of the components (None: elements are tuples).")

    # -- converting what is enqueued --------------------------------------------------------
    def _components(self, vals, batched: bool) -> list:
        if isinstance(vals, dict):
            if self._names is None:
                raise ValueError("Queue must have names to enqueue a dictionary")
            if sorted(self._names) != sorted(vals.keys()):
                raise ValueError(f"Keys in dictionary to enqueue do not match names of Queue. "
                                 f"Dictionary: {sorted(vals.keys())}, Queue: "
                                 f"{sorted(self._names)}")
            vals = [vals[k] for k in self._names]
        elif self._names is not None:
            raise ValueError("You must enqueue a dictionary in a Queue with names")
        elif not isinstance(vals, (list, tuple)):
            vals = [vals]
        if len(vals) != len(self._dtypes):
            raise ValueError(f"Expected {len(self._dtypes)} components to enqueue, got "
                             f"{len(vals)}")
        out = []
        for v, dt, shape in zip(vals, self._dtypes, self._shapes):
            t = convert_to_tensor(v, dtype=dt)
            s = t.shape
            if batched:
                if s.rank == 0:
                    raise ValueError(f"Shape {s} must have rank at least 1")
                s = s[1:] if s.rank is not None else s
            if not shape.is_compatible_with(s):
                raise ValueError(f"Shapes {s} and {shape} are incompatible")
            out.append(t)
        return out

    def _outputs(self, outs, batch) -> object:
        outs = list(outs)
        for t, shape in zip(outs, self._shapes):
            if hasattr(t, "set_shape"):
                t.set_shape(shape if batch is False else TensorShape([batch]).concatenate(
                    shape))
        if self._names is not None:
            return dict(zip(self._names, outs))
        return outs[0] if len(outs) == 1 else outs

    # -- the operations ---------------------------------------------------------------------
    def _run(self, opdef, inputs: list, attrs: dict, name, default_name: str):
        """Runs ``opdef`` on the queue; returns None eagerly, its Operation in a graph."""
        bind(opdef, [self._queue_ref, *inputs], attrs, name=name or f"{self._name}_{default_name}")
        return _last_op()

    def enqueue(self, vals, name=None):
        """Enqueues one element, waiting while the queue is full.

        Args:
            vals: a tensor, a list/tuple of tensors (one per component) or a dict (``names``).
            name: the op name.

        Returns:
            None eagerly; the enqueue Operation in a graph.
        """
        return self._run(QueueEnqueueV2, self._components(vals, False), {}, name, "enqueue")

    def enqueue_many(self, vals, name=None):
        """Enqueues the slices of ``vals`` along dimension 0 as elements.

        Args:
            vals: as for ``enqueue``, each component with a leading batch dimension.
            name: the op name.

        Returns:
            None eagerly; the enqueue Operation in a graph.
        """
        return self._run(QueueEnqueueManyV2, self._components(vals, True), {}, name,
                         "EnqueueMany")

    def dequeue(self, name=None):
        """Dequeues one element, waiting while the queue is empty.

        Args:
            name: the op name.

        Returns:
            The element: a tensor (one component), a list of tensors, or a dict (``names``).

        Raises:
            OutOfRangeError: the queue is closed and empty.
        """
        outs = bind(QueueDequeueV2, [self._queue_ref], {"component_types": tuple(self._dtypes)},
                    name=name or f"{self._name}_Dequeue")
        return self._outputs(outs, False)

    def dequeue_many(self, n, name=None):
        """Dequeues ``n`` elements, stacked along a new dimension 0.

        Args:
            n: the number of elements (integer scalar).
            name: the op name.

        Returns:
            The batch, structured as ``dequeue``'s result.

        Raises:
            OutOfRangeError: the queue is closed with fewer than ``n`` elements.
        """
        return self._many(QueueDequeueManyV2, n, name or f"{self._name}_DequeueMany")

    def dequeue_up_to(self, n, name=None):
        """As ``dequeue_many``, but once the queue is closed it takes what is left (at least one).

        Args:
            n: the largest number of elements (integer scalar).
            name: the op name.

        Returns:
            As ``dequeue_many``'s, its batch dimension of unknown static size.

        Raises:
            OutOfRangeError: the queue is closed and empty.
        """
        return self._many(QueueDequeueUpToV2, n, name or f"{self._name}_DequeueUpTo")

    def _many(self, opdef, n, name: str):
        n_t = convert_to_tensor(n, dtype=_dtypes.int32)
        outs = bind(opdef, [self._queue_ref, n_t], {"component_types": tuple(self._dtypes)},
                    name=name)
        static = n if isinstance(n, (int, np.integer)) else getattr(n_t, "_value", None)
        batch = int(static) if static is not None and opdef is QueueDequeueManyV2 else None
        return self._outputs(outs, batch)

    def close(self, cancel_pending_enqueues: bool = False, name=None):
        """Closes the queue: later enqueues fail; dequeues take what is left, then fail.

        Args:
            cancel_pending_enqueues: also fail the enqueues now waiting for room.
            name: the op name.

        Returns:
            None eagerly; the close Operation in a graph.
        """
        return self._run(QueueCloseV2, [],
                         {"cancel_pending_enqueues": bool(cancel_pending_enqueues)}, name, "Close")

    is_closed = _query("is_closed", QueueIsClosedV2, "IsClosed", "Whether the queue is closed.",
                       "A bool scalar tensor.")
    size = _query("size", QueueSizeV2, "Size", "The number of elements in the queue.",
                  "An int32 scalar tensor.")


def _last_op():
    g = ctx.graph
    return None if g is None else g.get_operations()[-1]


def _make_handle(kind: str, capacity: int, dtypes: list, shapes, names, **kw) -> tuple:
    """Checks the component lists; returns (dtypes, shapes, names, handle)."""
    dtypes = [_dtypes.as_dtype(t) for t in (dtypes if isinstance(dtypes, (list, tuple))
                                            else [dtypes])]
    if shapes is not None:
        shapes = [TensorShape(s) for s in (shapes if isinstance(shapes, (list, tuple)) and
                                           (not shapes or not _is_dim(shapes[0]))
                                           else [shapes])]
        if len(shapes) != len(dtypes):
            raise ValueError(f"Queue shapes must have the same length as dtypes: {len(shapes)} "
                             f"shapes for {len(dtypes)} dtypes")
    if names is not None:
        names = list(names) if isinstance(names, (list, tuple)) else [names]
        if len(names) != len(dtypes):
            raise ValueError(f"Queue names must have the same length as dtypes: {len(names)} "
                             f"names for {len(dtypes)} dtypes")
    capacity = int(capacity)
    if capacity <= 0:
        capacity = 2 ** 31 - 1  # TensorFlow: a capacity <= 0 means unbounded
    state = QueueState(kind, capacity, dtypes, shapes or [None] * len(dtypes), **kw)
    return dtypes, shapes, names, ResourceHandle(state)


def _is_dim(x) -> bool:
    return x is None or isinstance(x, (int, np.integer))


class FIFOQueue(QueueBase):
    """A queue whose elements leave in the order they came in."""

    def __init__(self, capacity, dtypes, shapes=None, names=None, shared_name=None,
                 name="fifo_queue") -> None:
        """Creates the queue.

        Args:
            capacity: the most elements it holds (an enqueue waits while it is full).
            dtypes: the dtype of each component (one dtype: elements are single tensors).
            shapes: the static shape of each component, or None (unknown shapes: no
                ``dequeue_many``).
            names: component names (elements are then dicts), or None.
            shared_name: not supported (queues are shared by passing the object).
            name: the queue's name.
        """
        _no_shared_name(shared_name)
        dts, shs, nms, ref = _make_handle("FIFOQueue", capacity, dtypes, shapes, names)
        super().__init__(dts, shs, nms, ref)
        self._name = name


class PaddingFIFOQueue(QueueBase):
    """A FIFOQueue whose ``dequeue_many`` pads components of unknown dimensions with zeros."""

    def __init__(self, capacity, dtypes, shapes, names=None, shared_name=None,
                 name="padding_fifo_queue") -> None:
        """Creates the queue.

        Args:
            capacity: the most elements it holds.
            dtypes: the dtype of each component.
            shapes: the shape of each component; ``None`` dimensions vary per element and are
                padded (with 0 or b"") to the batch's largest in ``dequeue_many``.
            names: component names, or None.
            shared_name: not supported (queues are shared by passing the object).
            name: the queue's name.
        """
        _no_shared_name(shared_name)
        if shapes is None:
            raise ValueError("PaddingFIFOQueue requires shapes for each component")
        dts, shs, nms, ref = _make_handle("PaddingFIFOQueue", capacity, dtypes, shapes, names)
        if any(s.rank is None for s in shs):
            raise ValueError("All shapes must have a defined rank in a PaddingFIFOQueue")
        super().__init__(dts, shs, nms, ref)
        self._name = name


class PriorityQueue(QueueBase):
    """A queue whose elements leave lowest priority first; component 0 is the int64 priority."""

    def __init__(self, capacity, types, shapes=None, names=None, shared_name=None,
                 name="priority_queue") -> None:
        """Creates the queue.

        Args:
            capacity: the most elements it holds.
            types: the dtypes of the components after the priority.
            shapes: their static shapes (needed for ``dequeue_many``), or None.
            names: component names (the priority first), or None.
            shared_name: not supported (queues are shared by passing the object).
            name: the queue's name.
        """
        _no_shared_name(shared_name)
        types = list(types) if isinstance(types, (list, tuple)) else [types]
        if shapes is not None:
            shapes = [[]] + list(shapes)
        dts, shs, nms, ref = _make_handle("PriorityQueue", capacity, [_dtypes.int64] + types,
                                          shapes, names)
        super().__init__(dts, shs, nms, ref)
        self._name = name


class RandomShuffleQueue(QueueBase):
    """A queue whose elements leave in random order, keeping ``min_after_dequeue`` behind."""

    def __init__(self, capacity, min_after_dequeue, dtypes, shapes=None, names=None, seed=None,
                 shared_name=None, name="random_shuffle_queue") -> None:
        """Creates the queue.

        Args:
            capacity: the most elements it holds.
            min_after_dequeue: until the queue is closed, a dequeue waits while it would
                leave fewer elements than this (so what leaves is well mixed).
            dtypes: the dtype of each component.
            shapes: the static shape of each component, or None.
            names: component names, or None.
            seed: the seed of the shuffling (None: random).
            shared_name: not supported (queues are shared by passing the object).
            name: the queue's name.
        """
        _no_shared_name(shared_name)
        dts, shs, nms, ref = _make_handle("RandomShuffleQueue", capacity, dtypes, shapes, names,
                                          min_after_dequeue=int(min_after_dequeue), seed=seed)
        super().__init__(dts, shs, nms, ref)
        self._name = name


def _no_shared_name(shared_name) -> None:
    if shared_name:
        raise ValueError("shared_name is not supported: twinflow has no session-wide resource "
                         "container; share the queue object itself between threads")
