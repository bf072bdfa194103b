"""Turning arrays, tensors and Datasets into batches for ``fit``/``evaluate``/``predict``."""
from __future__ import annotations

import numpy as np

from ...core import nest
from ...eager.execute import convert_to_tensor
from ...eager.tensor import EagerTensor
from ...ops import array_ops, math_ops
from ...ops.ragged.tensor import RaggedTensor
from ...ops.sparse.tensor import SparseTensor
from ...ops.variables import Variable
from ..py_dataset import is_py_dataset, iterate_epoch


def _is_dataset(x) -> bool:
    return hasattr(x, "_tw_dataset_iter")


def unpack_x_y_sample_weight(data) -> tuple:
    """Splits a batch into ``(x, y, sample_weight)`` (missing parts are None).

    Args:
        data: ``x``, ``(x,)``, ``(x, y)`` or ``(x, y, sample_weight)``.

    Returns:
        A triple.
    """
    if isinstance(data, list):
        data = tuple(data)
    if not isinstance(data, tuple):
        return data, None, None
    if len(data) == 1:
        return data[0], None, None
    if len(data) == 2:
        return data[0], data[1], None
    if len(data) == 3:
        return data
    raise ValueError(f"Data is expected to be in format `x`, `(x,)`, `(x, y)`, or "
                     f"`(x, y, sample_weight)`, found: {data}")


def _class_weights(y, class_weight: dict, sample_weight):
    labels = _as_array(y)
    if labels.ndim > 1 and labels.shape[-1] > 1:
        labels = labels.argmax(axis=-1)
    labels = labels.reshape(len(labels), -1)[:, 0].astype(np.int64)
    table = np.ones(max(int(labels.max()) + 1, max(class_weight) + 1), np.float32)
    for k, w in class_weight.items():
        table[int(k)] = w
    weights = table[labels]
    if sample_weight is not None:
        weights = weights * _as_array(sample_weight).astype(np.float32)
    return weights


def _to_floats(logs) -> dict:
    return {k: float(np.asarray(v)) for k, v in logs.items()}


def _batch_size(t):
    flat = nest.flatten(t)
    first = flat[0]
    dims = first.shape.as_list() if first.shape.rank else [None]
    if dims and dims[0] is not None:
        return float(dims[0])
    return math_ops.cast(array_ops.shape(first)[0], "float32")


def _as_array(x):
    if isinstance(x, (RaggedTensor, SparseTensor)):  # composite inputs stay composite
        return x
    if isinstance(x, Variable):
        return x.numpy()
    if isinstance(x, EagerTensor):
        return x._value
    arr = np.asarray(x)
    if arr.dtype == np.float64:
        arr = arr.astype(np.float32)
    return arr


def _to_tensor(arr):
    return EagerTensor(np.ascontiguousarray(arr)) if isinstance(arr, np.ndarray) else \
        convert_to_tensor(arr)


def _x_only(x):
    """A batch of inputs alone: the inputs themselves, as Keras passes them to ``train_step``;
    a list or tuple of inputs stays wrapped in a 1-tuple so it is not read as ``(x, y)``."""
    return (x,) if isinstance(x, (list, tuple)) else x


def _batch_tuple(x, y, sw):
    conv = lambda v: nest.map_structure(lambda a: _to_tensor(_as_array(a)), v)  # noqa: E731
    parts = [conv(x)]
    if y is not None or sw is not None:
        parts.append(conv(y) if y is not None else None)
    if sw is not None:
        parts.append(conv(sw))
    return tuple(parts) if len(parts) > 1 else _x_only(parts[0])


def _split(x, y, sw, fraction: float):
    xs = nest.map_structure(_as_array, x)
    n = len(nest.flatten(xs)[0])
    cut = int(n * (1.0 - fraction))
    take = lambda s, a, b: None if s is None else nest.map_structure(  # noqa: E731
        lambda v: _as_array(v)[a:b], s)
    train = (take(xs, 0, cut), take(y, 0, cut), take(sw, 0, cut))
    val = (take(xs, cut, n), take(y, cut, n)) + ((take(sw, cut, n),) if sw is not None else ())
    return train, val


class DataHandler:
    """Turns arrays or a Dataset into per-epoch iterators of batches of tensors.

    Args:
        x: arrays/tensors (or a structure of them) or a Dataset.
        y: targets (None for a Dataset or prediction).
        sample_weight: per-sample weights.
        batch_size: samples per batch (32 by default).
        shuffle: shuffle arrays each epoch.
        steps: batches per epoch (None: one full pass).
    """

    def __init__(self, x, y, sample_weight, batch_size, shuffle: bool, steps) -> None:
        self._dataset = x if _is_dataset(x) else None
        for arg, value in (("batch_size", batch_size), ("steps", steps)):
            if value is not None and (isinstance(value, bool) or
                                      not isinstance(value, (int, np.integer)) or value <= 0):
                raise ValueError(f"Invalid value for `{arg}`: expected a positive integer, "
                                 f"received {arg}={value!r}.")
        self._steps_arg = steps
        self._py = x if is_py_dataset(x) else None
        if self._py is not None:  # a keras.utils.PyDataset: batch i is x[i]
            if y is not None or sample_weight is not None or batch_size is not None:
                raise ValueError("`y`, `sample_weight` and `batch_size` must not be given "
                                 "with a PyDataset input: its batches hold them.")
            total = x.num_batches if hasattr(x, "num_batches") else len(x)
            self.steps = steps if total is None else min(steps or total, total)
            return
        if self._dataset is not None:
            if y is not None:
                raise ValueError("`y` argument is not supported when using a Dataset as input.")
            if batch_size is not None:
                raise ValueError("The `batch_size` argument must not be specified when using "
                                 "a Dataset as input.")
            card = self._dataset.cardinality()
            n = int(np.asarray(card))
            self.steps = steps if steps is not None else (n if n >= 0 else None)
            self._iter = None
            return
        self._x = nest.map_structure(_as_array, x)
        self._y = None if y is None else nest.map_structure(_as_array, y)
        self._sw = None if sample_weight is None else nest.map_structure(_as_array,
                                                                         sample_weight)
        self._n = _num_rows(nest.flatten(self._x)[0])
        for part in (self._y, self._sw):
            if part is not None:
                for a in nest.flatten(part):
                    if _num_rows(a) != self._n:
                        raise ValueError(f"Data cardinality is ambiguous: x sizes: {self._n}, "
                                         f"y/sample_weight sizes: {len(a)}. Make sure all "
                                         "arrays contain the same number of samples.")
        self._batch = int(batch_size or 32)
        self._shuffle = shuffle
        full = -(-self._n // self._batch)
        self.steps = min(steps, full) if steps is not None else full

    def epoch(self):
        """Yields this epoch's batches.

        Yields:
            ``(x,)``, ``(x, y)`` or ``(x, y, sample_weight)`` tuples of tensors.
        """
        if self._py is not None:
            for batch in iterate_epoch(self._py, self.steps):
                yield _batch_tuple(*unpack_x_y_sample_weight(batch))
            return
        if self._dataset is not None:
            it = iter(self._dataset) if self._iter is None or self._steps_arg is None \
                else self._iter
            if self._steps_arg is not None:
                self._iter = it
            for i, batch in enumerate(it):
                yield batch
                if self.steps is not None and i + 1 >= self.steps:
                    return
            if self._steps_arg is not None:
                self._iter = None
            return
        order = np.random.permutation(self._n) if self._shuffle else None
        for i in range(self.steps):
            lo, hi = i * self._batch, min((i + 1) * self._batch, self._n)
            idx = slice(lo, hi) if order is None else order[lo:hi]
            parts = [_take_rows(self._x, idx)]
            if self._y is not None or self._sw is not None:
                parts.append(_take_rows(self._y, idx))
            if self._sw is not None:
                parts.append(_take_rows(self._sw, idx))
            yield tuple(parts) if len(parts) > 1 else _x_only(parts[0])


def _take_rows(structure, idx):
    if structure is None:
        return None
    return nest.map_structure(lambda a: _rows(a, idx), structure)


def _num_rows(a) -> int:
    if isinstance(a, RaggedTensor):
        return int(a.nrows())
    if isinstance(a, SparseTensor):
        return int(a.dense_shape.numpy()[0])
    return len(a)


def _rows(a, idx):
    """Rows ``idx`` (a slice or an index array) of an array, RaggedTensor or SparseTensor."""
    if isinstance(a, RaggedTensor):
        rows = np.arange(_num_rows(a))[idx]
        return array_ops.gather(a, EagerTensor(rows.astype(np.int64)))
    if isinstance(a, SparseTensor):
        rows = np.arange(_num_rows(a))[idx]
        ind, val = a.indices.numpy(), a.values.numpy()
        new_pos = np.full(_num_rows(a), -1, np.int64)
        new_pos[rows] = np.arange(len(rows))
        keep = new_pos[ind[:, 0]] >= 0
        new_ind = ind[keep].copy()
        new_ind[:, 0] = new_pos[new_ind[:, 0]]
        order = np.lexsort(new_ind.T[::-1]) if len(new_ind) else np.arange(0)
        shape = a.dense_shape.numpy().copy()
        shape[0] = len(rows)
        return SparseTensor(new_ind[order], val[keep][order], shape)
    return _to_tensor(a[idx])
