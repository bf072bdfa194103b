"""``tw.nondifferentiable_batch_function``: concurrent calls of a function share one batched
call.

Each call hands its tensors (batch dimension first) to the function's batcher and waits. The
first waiting call collects the calls that arrive within ``batch_timeout_micros`` (or until
``max_batch_size`` rows are waiting), concatenates them along dimension 0, pads the batch to the
next of ``allowed_batch_sizes`` (repeating the first row), runs the function once (as a
``tw.function``) and hands each caller its rows of every output. At most ``num_batch_threads``
batches run at once; more than ``max_enqueued_batches`` full batches waiting is an
UnavailableError. Inside ``tw.function`` the call is one stateful op that does the same when
the function runs. There is no gradient (as the name says).
"""
from __future__ import annotations

import functools
import threading
import time
from collections.abc import Callable

import numpy as np

from ..core import nest
from ..core.context import ctx
from ..core.errors import InvalidArgumentError, UnavailableError
from ..eager.execute import convert_to_tensor
from ..eager.func_graph import TensorSpec
from ..eager.tensor import EagerTensor
from ..ops.script_ops import numpy_function
from .function import function


class _Request:
    __slots__ = ("arrays", "rows", "result", "error", "done")

    def __init__(self, arrays: list) -> None:
        self.arrays, self.rows = arrays, int(arrays[0].shape[0]) if arrays else 0
        self.result = self.error = None
        self.done = threading.Event()


class _Batcher:
    def __init__(self, fn: Callable, num_batch_threads: int, max_batch_size: int,
                 batch_timeout_micros: int, allowed_batch_sizes, max_enqueued_batches: int,
                 autograph: bool, enable_large_batch_splitting: bool) -> None:
        if max_batch_size <= 0 or num_batch_threads <= 0:
            raise ValueError("max_batch_size and num_batch_threads must be positive")
        allowed = sorted(int(b) for b in allowed_batch_sizes or ())
        if allowed and allowed[-1] != max_batch_size:
            raise InvalidArgumentError(None, None, "allowed_batch_sizes entries must be "
                                       "monotonically increasing, and the last entry must equal "
                                       f"max_batch_size ({max_batch_size}), got {allowed}")
        self.fn = function(fn, autograph=autograph)
        self.max, self.timeout = int(max_batch_size), batch_timeout_micros / 1e6
        self.allowed = allowed
        self.max_queued = int(max_enqueued_batches) * self.max
        self.split = enable_large_batch_splitting
        self.slots = threading.Semaphore(int(num_batch_threads))
        self.cond = threading.Condition()
        self.queue: list = []
        self.collecting = False

    # -- one call ---------------------------------------------------------------------------
    def call(self, arrays: list) -> list:
        if any(a.ndim == 0 for a in arrays) or len({a.shape[0] for a in arrays}) > 1:
            raise InvalidArgumentError(None, None, "Batching function arguments must all have "
                                       "the same size along dimension 0")
        req = _Request(arrays)
        if req.rows > self.max and not self.split:
            raise InvalidArgumentError(None, None, f"Batch size {req.rows} exceeds "
                                       f"max_batch_size {self.max}")
        with self.cond:
            if sum(r.rows for r in self.queue) + req.rows > self.max_queued:
                raise UnavailableError(None, None, "The batch scheduling queue to which this "
                                       "task was submitted is full")
            self.queue.append(req)
            self.cond.notify_all()
            lead = not self.collecting
            if lead:
                self.collecting = True
        if lead:
            self._collect_and_run()
        req.done.wait()
        if req.error is not None:
            raise req.error
        return req.result

    def _collect_and_run(self) -> None:
        deadline = time.monotonic() + self.timeout
        with self.cond:
            while sum(r.rows for r in self.queue) < self.max:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self.cond.wait(left)
            batch, rows = [], 0
            while self.queue and (not batch or rows + self.queue[0].rows <= self.max):
                req = self.queue.pop(0)
                batch.append(req)
                rows += req.rows
            self.collecting = False
            if self.queue:  # the rest waits for the next collector
                nxt = self.queue[0]
                threading.Thread(target=self._hand_over, args=(nxt,), daemon=True).start()
        with self.slots:
            self._run(batch)

    def _hand_over(self, req: _Request) -> None:
        with self.cond:
            if self.collecting or req not in self.queue:
                return
            self.collecting = True
        self._collect_and_run()

    def _run(self, batch: list) -> None:
        try:
            n_args = len(batch[0].arrays)
            joined = [np.concatenate([r.arrays[i] for r in batch]) for i in range(n_args)]
            rows = joined[0].shape[0] if joined else 0
            size = next((b for b in self.allowed if b >= rows), rows)
            if size > rows:
                joined = [np.concatenate([j, np.repeat(j[:1], size - rows, axis=0)])
                          for j in joined]
            out = self.fn(*[EagerTensor(j) for j in joined])
            flat = [np.asarray(t._value if isinstance(t, EagerTensor) else t)
                    for t in nest.flatten(out)]
            start = 0
            for r in batch:
                r.result = (out, [f[start:start + r.rows] for f in flat])
                start += r.rows
        except Exception as e:  # noqa: BLE001  (every caller of the batch gets the error)
            for r in batch:
                r.error = e
        for r in batch:
            r.done.set()


def nondifferentiable_batch_function(num_batch_threads, max_batch_size, batch_timeout_micros,
                                     allowed_batch_sizes=None, max_enqueued_batches=10,
                                     autograph=True,
                                     enable_large_batch_splitting=True) -> Callable:
    """Decorator: concurrent calls of the decorated function run as one batched call.

    Args:
        num_batch_threads: how many batches may run at once.
        max_batch_size: the largest batch (rows along dimension 0).
        batch_timeout_micros: how long the first call of a batch waits for others.
        allowed_batch_sizes: batch sizes to pad to (increasing; the last is max_batch_size).
        max_enqueued_batches: full batches that may wait before calls are refused.
        autograph: convert the function with AutoGraph.
        enable_large_batch_splitting: a call larger than max_batch_size runs alone instead of
            being refused.

    Returns:
        The decorator. The decorated function takes tensors with a batch dimension first and
        returns its outputs for the caller's rows.
    """
    def decorator(fn: Callable) -> Callable:
        batcher = _Batcher(fn, num_batch_threads, max_batch_size, batch_timeout_micros,
                           allowed_batch_sizes, max_enqueued_batches, autograph,
                           enable_large_batch_splitting)

        def run_eager(tensors: list):
            out, parts = batcher.call([np.asarray(t._value) for t in tensors])
            pieces = iter(parts)
            return nest.map_structure(lambda _: EagerTensor(next(pieces)), out)

        @functools.wraps(fn)
        def batched(*args):
            tensors = [convert_to_tensor(a) for a in args]
            if ctx.graph is None:
                return run_eager(tensors)
            specs = [TensorSpec([None] + t.shape.as_list()[1:], t.dtype) for t in tensors]
            out = batcher.fn.get_concrete_function(*specs).structured_outputs
            flat = nest.flatten(out)

            def kernel(*arrays):
                return batcher.call([np.asarray(a) for a in arrays])[1]
            res = numpy_function(kernel, tensors, [t.dtype for t in flat], stateful=True)
            for r, t in zip(res, flat):
                r.set_shape(t.shape)
            return nest.pack_sequence_as(out, list(res))
        return batched
    return decorator
