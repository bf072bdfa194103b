"""Datasets of datasets: window, flat_map/interleave, group_by_window,
bucket_by_sequence_length.

The functions of flat_map/interleave and group_by_window's ``reduce_func`` return datasets, so
they run in Python per element (with tensors), not as traced graphs; ``key_func`` is traced.
"""
from __future__ import annotations

import collections
from collections.abc import Callable

import numpy as np

from ..core import dtypes, errors
from ..eager.func_graph import TensorSpec
from ..ops import math_ops, reduction_ops
from .dataset import UNKNOWN_CARDINALITY, Dataset
from .parallel import background, completion_order
from .registry import register_node
from .sources import FromList
from .structure import (
    DatasetSpec,
    StructuredFunction,
    call_with_element,
    is_struct,
    leaves,
    map_struct,
    map_struct2,
    pack,
    to_tensor,
)
from .transforms import Unary, unknown_unless_infinite


@register_node
class Window(Unary):
    def __init__(self, input_dataset: Dataset, size: int, shift: int, stride: int,
                 drop: bool) -> None:
        super().__init__(input_dataset)
        self._size, self._shift, self._stride, self._drop = size, shift, stride, drop

    def _window(self, items: list):
        """One window element: a dataset per component (TensorFlow's structure)."""
        spec = self._input._spec()
        cols = list(zip(*[leaves(e) for e in items]))
        return pack(spec, [FromList(list(c), s) for c, s in zip(cols, leaves(spec))])

    def _gen(self):
        size, shift, stride = self._size, self._shift, self._stride
        span = (size - 1) * stride + 1
        buf: collections.deque = collections.deque()
        start = nxt = 0
        last = -1
        for idx, e in enumerate(self._input._gen()):
            last = idx
            if idx < nxt:
                continue
            if not buf:
                start = idx
            buf.append(e)
            if idx == nxt + span - 1:
                yield self._window([buf[nxt - start + k * stride] for k in range(size)])
                nxt += shift
                while buf and start < nxt:
                    buf.popleft()
                    start += 1
        while not self._drop and buf and nxt <= last:
            yield self._window([buf[nxt - start + k * stride] for k in range(size)
                                if nxt + k * stride <= last])
            nxt += shift
            while buf and start < nxt:
                buf.popleft()
                start += 1

    def _cardinality(self) -> int:
        n = self._input._cardinality()
        if n < 0:
            return n
        span = (self._size - 1) * self._stride + 1
        if self._drop:
            return 0 if n < span else (n - span) // self._shift + 1
        return -(-n // self._shift)

    def _spec(self):
        return map_struct(DatasetSpec, self._input._spec())


class _SpecOnly(Dataset):
    """A stand-in dataset with a known element_spec, used to find a function's output spec
    without running the pipeline; iterating it is an error."""

    def __init__(self, spec) -> None:
        self._spec_value = spec

    def _spec(self):
        return self._spec_value

    def _gen(self):
        raise RuntimeError("internal: a spec-only dataset was iterated")


def _stand_in(spec):
    """Arguments standing for an element of ``spec``, or None if some leaf is a tensor."""
    if not all(isinstance(s, DatasetSpec) for s in leaves(spec)):
        return None
    return map_struct(lambda s: _SpecOnly(s.element_spec), spec)


def _check_dataset(out, what: str) -> Dataset:
    if not isinstance(out, Dataset):
        raise TypeError(f"{what}: the function must return a Dataset, got {out!r}")
    return out


@register_node
class Interleave(Unary):
    def __init__(self, input_dataset: Dataset, fn: Callable, cycle: int, block: int,
                 parallel: int | None, deterministic: bool) -> None:
        super().__init__(input_dataset)
        self._fn, self._cycle, self._block = fn, cycle, block
        self._parallel, self._deterministic = parallel, deterministic
        self._spec_value = None

    def _open(self, element) -> Dataset:
        args = map_struct(to_tensor, element)
        return _check_dataset(call_with_element(self._fn, args), "flat_map/interleave")

    def _gen(self):
        opts = self.options()
        if self._parallel and (not self._deterministic or opts.deterministic is False
                               or opts.experimental_deterministic is False):
            return self._gen_any_order()
        return self._gen_in_order()

    def _gen_any_order(self):
        """``deterministic=False``: the open inputs are read on threads, elements come out as
        they are ready (TF's sloppy interleave)."""
        src = self._input._gen()
        starts = (self._open(e)._gen for e in src)
        try:
            yield from completion_order(starts, self._cycle, self._cycle * max(2, self._block))
        finally:
            src.close()

    def _gen_in_order(self):
        it = self._input._gen()
        slots: list = [None] * self._cycle
        more = True
        i = 0
        try:
            while True:
                if slots[i] is None and more:
                    try:
                        ds = self._open(next(it))
                    except StopIteration:
                        more = False
                    else:
                        slots[i] = self._start(ds)
                if not more and all(s is None for s in slots):
                    return
                g = slots[i]
                for _ in range(self._block if g is not None else 0):
                    try:
                        e = next(g)
                    except StopIteration:
                        slots[i] = None
                        break
                    yield e
                i = (i + 1) % self._cycle
        finally:
            for g in slots:
                if g is not None:
                    g.close()
            it.close()

    def _start(self, ds: Dataset):
        if self._parallel:
            return background(ds._gen, max(2, self._block), "twinflow-data-interleave")
        return ds._gen()

    def _cardinality(self) -> int:
        return unknown_unless_infinite(self._input._cardinality())

    def _spec(self):
        if self._spec_value is None:
            spec = self._input._spec()
            stand_in = _stand_in(spec)
            if stand_in is not None:
                out = call_with_element(self._fn, stand_in)
            else:  # tensors in: run the function on the first element
                first = next(iter(self._input._gen()), None)
                if first is None:
                    raise ValueError("Cannot infer the element_spec of an empty dataset")
                out = self._open(first)
            self._spec_value = _check_dataset(out, "flat_map/interleave")._spec()
        return self._spec_value


@register_node
class GroupByWindow(Unary):
    def __init__(self, input_dataset: Dataset, key_func: Callable, reduce_func: Callable,
                 window_size_func: Callable) -> None:
        super().__init__(input_dataset)
        self._key = StructuredFunction(key_func, input_dataset._spec(), "group_by_window")
        ks = self._key.output_spec
        if not (isinstance(ks, TensorSpec) and ks.dtype is dtypes.int64 and ks.shape.rank == 0):
            raise ValueError(f"`key_func` must return a single tf.int64 scalar tensor, got {ks}")
        self._reduce = reduce_func
        self._size_fn = window_size_func
        self._spec_value = None

    def _window_size(self, key: np.ndarray) -> int:
        v = self._size_fn(to_tensor(key))
        n = int(np.asarray(getattr(v, "_value", v)))
        if n <= 0:
            raise errors.InvalidArgumentError(None, None,
                                              f"group_by_window: window size {n} must be > 0")
        return n

    def _flush(self, key: np.ndarray, items: list):
        ds = _check_dataset(self._reduce(to_tensor(key), FromList(items,
                                                                  self._input._spec())),
                            "group_by_window")
        yield from ds._gen()

    def _gen(self):
        groups: dict = {}
        sizes: dict = {}
        for e in self._input._gen():
            key = self._key(e)
            k = int(key)
            if k not in sizes:
                sizes[k] = self._window_size(key)
            groups.setdefault(k, []).append(e)
            if len(groups[k]) == sizes[k]:
                yield from self._flush(key, groups.pop(k))
        for k, items in groups.items():
            yield from self._flush(np.asarray(k, dtype=np.int64), items)

    def _cardinality(self) -> int:
        return unknown_unless_infinite(self._input._cardinality())

    def _spec(self):
        if self._spec_value is None:
            out = self._reduce(to_tensor(np.int64(0)), _SpecOnly(self._input._spec()))
            self._spec_value = _check_dataset(out, "group_by_window")._spec()
        return self._spec_value


@register_node
def bucket_by_sequence_length(ds: Dataset, element_length_func: Callable, bucket_boundaries,
                              bucket_batch_sizes, padded_shapes, padding_values,
                              pad_to_bucket_boundary: bool, no_padding: bool,
                              drop_remainder: bool) -> Dataset:
    """``Dataset.bucket_by_sequence_length`` as a group_by_window (TensorFlow's definition).

    Args:
        ds: the input dataset.
        element_length_func: element -> length.
        bucket_boundaries: increasing boundaries.
        bucket_batch_sizes: one batch size per bucket.
        padded_shapes: as for padded_batch.
        padding_values: as for padded_batch.
        pad_to_bucket_boundary: pad unknown dims to the bucket's boundary - 1.
        no_padding: batch without padding.
        drop_remainder: drop each bucket's last, smaller batch.

    Returns:
        The dataset.
    """
    bounds = [int(b) for b in bucket_boundaries]
    sizes = [int(b) for b in bucket_batch_sizes]
    if len(sizes) != len(bounds) + 1:
        raise ValueError(f"len(bucket_batch_sizes) must equal len(bucket_boundaries) + 1, got "
                         f"{len(sizes)} and {len(bounds)}")
    if any(b <= a for a, b in zip(bounds, bounds[1:])) or any(b <= 0 for b in bounds):
        raise ValueError(f"bucket_boundaries must be positive and increasing, got {bounds}")
    bounds_arr = np.asarray(bounds, dtype=np.int64)

    def key_func(*element):
        length = call_with_element(element_length_func, element[0] if len(element) == 1
                                   else element)
        length = math_ops.cast(length, dtypes.int64)
        return reduction_ops.reduce_sum(math_ops.cast(
            math_ops.less_equal(bounds_arr, length), dtypes.int64))

    def window_size(key):
        return sizes[int(key)]

    def reduce_func(key, window):
        b = int(key)
        if no_padding:
            return window.batch(sizes[b], drop_remainder)
        shapes = padded_shapes
        if pad_to_bucket_boundary:
            if b == len(bounds):
                raise errors.InvalidArgumentError(
                    None, None, "bucket_by_sequence_length: an element is longer than the "
                    "last boundary; pad_to_bucket_boundary needs every length < "
                    f"{bounds[-1]}")
            spec = window.element_spec
            base = shapes if shapes is not None else map_struct(
                lambda s: [None] * s.shape.rank, spec)
            shapes = map_struct(lambda s: [bounds[b] - 1 if d is None or d == -1 else d
                                           for d in s], _as_lists(base, spec))
        return window.padded_batch(sizes[b], shapes, padding_values, drop_remainder)

    return ds.group_by_window(key_func, reduce_func, window_size_func=window_size)


def _as_lists(shapes, spec):
    """Padded shapes as lists of dims, one per component of ``spec``."""
    if not is_struct(spec):
        return _dims(shapes)
    return map_struct2(lambda _s, p: _dims(p), spec, shapes)


def _dims(p) -> list:
    if hasattr(p, "as_list"):
        return p.as_list()
    return [None if d is None else int(d) for d in p]


__all__ = ["Window", "Interleave", "GroupByWindow", "bucket_by_sequence_length",
           "UNKNOWN_CARDINALITY"]
