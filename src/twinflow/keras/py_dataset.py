"""``keras.utils.PyDataset`` (alias ``Sequence``): a Python object that returns batch ``i``
from ``__getitem__``; ``fit``/``evaluate``/``predict`` take one directly."""
from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any


def _setting(field: str, default: Any, doc: str) -> property:
    """A read-write property stored in ``field``, ``default`` until set."""
    def read(self) -> Any:
        return getattr(self, field, default)

    def write(self, value) -> None:
        setattr(self, field, value)
    return property(read, write, doc=doc)


class PyDataset:
    """Base class of datasets written in Python: subclass it and define ``__len__`` (or
    ``num_batches``) and ``__getitem__(index)`` returning ``x``, ``(x, y)`` or
    ``(x, y, sample_weight)`` for batch ``index``.

    Args:
        workers: threads that load batches ahead (1: load in the training thread).
        use_multiprocessing: Keras' process pool; twinflow loads with threads only and
            raises ``NotImplementedError`` when this is True and the data is used.
        max_queue_size: how many batches the threads may load ahead.
    """

    def __init__(self, workers: int = 1, use_multiprocessing: bool = False,
                 max_queue_size: int = 10) -> None:
        self._workers = workers
        self._use_multiprocessing = use_multiprocessing
        self._max_queue_size = max_queue_size

    # (defaults too for subclasses whose __init__ does not call this one's)
    workers = _setting("_workers", 1, "The number of loader threads.")
    use_multiprocessing = _setting("_use_multiprocessing", False,
                                   "Whether a process pool was asked for.")
    max_queue_size = _setting("_max_queue_size", 10, "How many batches may be loaded ahead.")

    def __getitem__(self, index: int):
        raise NotImplementedError(f"{type(self).__name__} must define __getitem__")

    @property
    def num_batches(self) -> int | None:
        """The number of batches (``len(self)``; None for an endless dataset)."""
        if hasattr(type(self), "__len__"):
            return len(self)
        return None

    def on_epoch_begin(self) -> None:
        """Called before each epoch (does nothing by default).

        Returns:
            None.
        """

    def on_epoch_end(self) -> None:
        """Called after each epoch (does nothing by default).

        Returns:
            None.
        """


Sequence = PyDataset


def is_py_dataset(x) -> bool:
    """Whether ``x`` is a ``PyDataset`` (or a ``keras.utils.Sequence`` of another library:
    it has ``__getitem__``, ``__len__`` and ``on_epoch_end``).

    Args:
        x: any object.

    Returns:
        True or False.
    """
    return isinstance(x, PyDataset) or (
        hasattr(x, "__getitem__") and hasattr(x, "__len__") and hasattr(x, "on_epoch_end")
        and not isinstance(x, (list, tuple, dict)) and not hasattr(x, "shape"))


def iterate_epoch(data, steps: int | None) -> Iterator:
    """One epoch of a PyDataset's batches, in order (threads load ahead when ``workers > 1``).

    Args:
        data: the PyDataset.
        steps: how many batches to read (None: all of them).

    Returns:
        An iterator of batches as ``__getitem__`` returns them.
    """
    if getattr(data, "use_multiprocessing", False):
        raise NotImplementedError("PyDataset(use_multiprocessing=True) is not supported by "
                                  "twinflow: use workers=N (threads) instead")
    total = data.num_batches if hasattr(data, "num_batches") else len(data)
    n = total if steps is None else (steps if total is None else min(steps, total))
    if n is None:
        raise ValueError("An endless PyDataset (num_batches=None) needs `steps_per_epoch`")
    if hasattr(data, "on_epoch_begin"):
        data.on_epoch_begin()
    workers = int(getattr(data, "workers", 1) or 1)
    if workers <= 1:
        for i in range(n):
            yield data[i]
    else:
        ahead = max(1, int(getattr(data, "max_queue_size", 10) or 1))
        with ThreadPoolExecutor(workers) as pool:
            pending = [pool.submit(data.__getitem__, i) for i in range(min(ahead, n))]
            for i in range(n):
                batch = pending[i].result()
                if i + ahead < n:
                    pending.append(pool.submit(data.__getitem__, i + ahead))
                yield batch
    data.on_epoch_end()
