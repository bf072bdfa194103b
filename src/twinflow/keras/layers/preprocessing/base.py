"""What the preprocessing layers share: ``adapt()`` over arrays, tensors, ``tw.data``
Datasets and iterables of batches, and turning a batch into NumPy for the statistics."""
from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from ....data.dataset import Dataset
from ....graph.tensor import Tensor
from ..base import Layer


def to_numpy(batch) -> np.ndarray:
    """A batch (tensor, array, list, RaggedTensor) as a NumPy array (strings as bytes).

    Args:
        batch: the batch.

    Returns:
        The array; a RaggedTensor gives its flat values.
    """
    if hasattr(batch, "flat_values"):
        batch = batch.flat_values
    if isinstance(batch, Tensor) or hasattr(batch, "numpy"):
        batch = batch.numpy()
    arr = np.asarray(batch)
    if arr.dtype.kind == "U":
        arr = np.vectorize(lambda s: s.encode(), otypes=[object])(arr) if arr.size else \
            arr.astype(object)
    return arr


def batches(data, batch_size: int | None = None, steps: int | None = None) -> Iterator:
    """The batches of ``data`` that ``adapt`` reads.

    Args:
        data: an array, tensor or list (one batch, or ``batch_size`` rows at a time), a
            ``tw.data.Dataset`` or another iterable of batches.
        batch_size: rows per batch for array data.
        steps: the number of batches to read at most.

    Returns:
        An iterator of batches.
    """
    if isinstance(data, (np.ndarray, Tensor, list, tuple)) or hasattr(data, "flat_values"):
        if batch_size is not None and not hasattr(data, "flat_values"):
            arr = to_numpy(data)
            return (arr[i:i + batch_size] for i in range(0, len(arr), batch_size))
        if steps is not None:
            raise ValueError("adapt(): `steps` needs a Dataset or an iterable of batches, "
                             "not an array")
        return iter([data])
    if isinstance(data, Dataset) or hasattr(data, "__iter__"):
        def take() -> Iterator:
            for i, b in enumerate(data):
                if steps is not None and i >= steps:
                    return
                yield b
        return take()
    raise TypeError(f"adapt() needs an array, a tensor, a Dataset or an iterable of batches; "
                    f"got {type(data).__name__}")


class PreprocessingLayer(Layer):
    """A layer with state computed from data by ``adapt`` (``update_state`` per batch, then
    ``finalize_state``)."""

    def adapt(self, data, batch_size: int | None = None, steps: int | None = None) -> None:
        """Computes the layer's state from ``data``.

        Args:
            data: an array, tensor, ``tw.data.Dataset`` or iterable of batches.
            batch_size: rows per batch for array data.
            steps: the number of batches to read at most.

        Returns:
            None.
        """
        self.reset_state()
        for b in batches(data, batch_size, steps):
            self.update_state(b)
        self.finalize_state()

    def reset_state(self) -> None:
        """Forgets what ``adapt`` accumulated.

        Returns:
            None.
        """
        raise NotImplementedError(f"{type(self).__name__} has no adaptable state")

    def update_state(self, data) -> None:
        """Accumulates the statistics of one batch.

        Args:
            data: the batch.

        Returns:
            None.
        """
        raise NotImplementedError(f"{type(self).__name__} has no adaptable state")

    def finalize_state(self) -> None:
        """Turns the accumulated statistics into the layer's state.

        Returns:
            None.
        """
