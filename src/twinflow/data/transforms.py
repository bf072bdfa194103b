"""Element-wise and order transformations: map, filter, batch, padded_batch, shuffle, ..."""
from __future__ import annotations

import itertools
import logging
from collections.abc import Callable

import numpy as np

from ..core import dtypes, errors
from ..core.shapes import TensorShape
from ..eager.func_graph import TensorSpec
from ..ops.ragged.tensor import RaggedTensorSpec
from ..ops.random_ops import get_seed
from ..ops.sparse.tensor import SparseTensor, SparseTensorSpec
from .dataset import INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, Dataset
from .registry import register_node
from .sources import Slices, seeded_rng
from .structure import (
    DatasetSpec,
    StructuredFunction,
    batch_spec,
    is_composite_spec,
    is_struct,
    leaves,
    map_struct,
    map_struct2,
    normalize,
    pack,
    same_structure,
    stack_leaf,
    unbatch_spec,
    unstack_leaf,
)


class Unary(Dataset):
    """A node with one input dataset; spec and cardinality are the input's unless changed."""

    def __init__(self, input_dataset: Dataset) -> None:
        if not isinstance(input_dataset, Dataset):
            raise TypeError(f"expected a Dataset, got {input_dataset!r}")
        self._input = input_dataset

    def _cardinality(self) -> int:
        return self._input._cardinality()

    def _spec(self):
        return self._input._spec()


class Counted(Unary):
    """A node with one count argument, ``self._count``: how many elements to take, skip,
    expect or keep buffered, or how many passes to repeat.

    Args:
        input_dataset: the input.
        count: the count.
    """

    def __init__(self, input_dataset: Dataset, count: int | None) -> None:
        super().__init__(input_dataset)
        self._count = count


def unknown_unless_infinite(n: int) -> int:
    """The cardinality after a node that drops or regroups elements: unknown, unless the
    input is infinite (then it stays infinite)."""
    return n if n == INFINITE_CARDINALITY else UNKNOWN_CARDINALITY


def scalar_bool(value, what: str) -> bool:
    """A predicate's result (known to be a scalar only when run) as a Python bool."""
    if np.shape(value) != ():
        raise errors.InvalidArgumentError(None, None, f"{what}: the predicate must return a "
                                          f"scalar, got shape {list(np.shape(value))}")
    return bool(value)


def boolean_predicate(fn: Callable, spec, what: str) -> StructuredFunction:
    """``fn`` traced for ``spec``; ValueError unless it returns a boolean scalar (as TF)."""
    pred = StructuredFunction(fn, spec, what)
    out = pred.output_spec
    if not (isinstance(out, TensorSpec) and out.dtype is dtypes.bool_
            and out.shape.is_compatible_with(TensorShape([]))):
        raise ValueError(f"Invalid `predicate`. `predicate` must return a `tf.bool` scalar "
                         f"tensor, but its return type is {out}.")
    return pred


class PerElement(Unary):
    """A node that calls a function, traced for the input's elements, on each element (map,
    filter, take_while, parallel map).

    ``ignore_errors`` copies these nodes with ``_tolerant`` set (a Python generator cannot go
    on after raising): an element whose function fails is then dropped instead, and the pass
    goes on (as TensorFlow's iterators do after an error).

    Args:
        input_dataset: the input.
        fn: the function of an element.
    """

    _what: str  # the Dataset method, for messages
    _trace: Callable = StructuredFunction  # traces ``fn`` for the element spec
    _tolerant = False

    def __init__(self, input_dataset: Dataset, fn: Callable) -> None:
        super().__init__(input_dataset)
        self._fn = self._trace(fn, input_dataset._spec(), self._what)

    def _dropped(self, err: errors.OpError) -> None:
        """Raises ``err``, unless the node is tolerant (then it logs and drops the element)."""
        if not self._tolerant:
            raise err
        logging.getLogger("twinflow.data").debug("ignore_errors dropped an element: %s", err)

    def _results(self):
        """``(element, fn(element))`` for each input element (failures: see ``_dropped``)."""
        for e in self._input._gen():
            try:
                out = self._fn(e)
            except errors.OpError as err:
                self._dropped(err)
                continue
            yield e, out


@register_node
class Map(PerElement):
    _what = "map"

    def _gen(self):
        return (out for _, out in self._results())

    def _spec(self):
        return self._fn.output_spec


@register_node
class Filter(PerElement):
    _what = "filter"
    _trace = staticmethod(boolean_predicate)
    _stops = False  # take_while: the pass ends at the first element dropped

    def _gen(self):
        for e, keep in self._results():
            if scalar_bool(keep, self._what):
                yield e
            elif self._stops:
                return

    def _cardinality(self) -> int:
        return unknown_unless_infinite(self._input._cardinality())


def _batched_spec(inner, batch):
    return map_struct(lambda s: batch_spec(s, batch), inner)


def _check_batchable(spec, what: str) -> None:
    for s in leaves(spec):
        if not isinstance(s, TensorSpec) and not is_composite_spec(s):
            if isinstance(s, DatasetSpec):
                raise TypeError(f"{what}: elements that are datasets cannot be batched; "
                                "flat_map the windows first")
            raise TypeError(f"{what}: elements of type {type(s).__name__} cannot be batched")


@register_node
class Batch(Unary):
    def __init__(self, input_dataset: Dataset, size: int, drop: bool) -> None:
        super().__init__(input_dataset)
        self._spec_in = input_dataset._spec()
        _check_batchable(self._spec_in, "batch")
        self._size = size
        self._drop = drop

    def _slices_source(self) -> Slices | None:
        """The from_tensor_slices dataset (input, or a shuffle's input) that whole batches can
        be sliced from, when elements are plain tensors stacked as ``batch`` does."""
        if type(self)._collate is not Batch._collate or any(
                is_composite_spec(x) for x in leaves(self._spec_in)):
            return None
        src = self._input._input if isinstance(self._input, Shuffle) else self._input
        return src if isinstance(src, Slices) and not src._composite else None

    def _gen(self):
        src = self._slices_source()
        if src is not None:
            # Slicing (or gathering, after a shuffle) whole batches is much faster than
            # stacking single elements.
            order = self._input._slice_order() if src is not self._input else None
            arrays = src._arrays
            flat = leaves(arrays)
            n = src._n
            stop = n - n % self._size if self._drop else n
            for lo in range(0, stop, self._size):
                if order is None:
                    yield pack(arrays, [a[lo:lo + self._size] for a in flat])
                else:
                    idx = order[lo:lo + self._size]
                    yield pack(arrays, [a[idx] for a in flat])
            return
        buf: list = []
        for e in self._input._gen():
            buf.append(e)
            if len(buf) == self._size:
                yield self._collate(buf)
                buf = []
        if buf and not self._drop:
            yield self._collate(buf)

    def _collate(self, buf: list):
        cols = list(zip(*[leaves(e) for e in buf]))
        specs = leaves(self._spec_in)
        try:
            return pack(buf[0], [stack_leaf(s, list(c)) for s, c in zip(specs, cols)])
        except ValueError:
            shapes = sorted({str(np.shape(x)) for c in cols for x in c})
            raise errors.InvalidArgumentError(
                None, None, "Cannot batch tensors with different shapes in component: "
                f"shapes {', '.join(shapes)}; use padded_batch (or ragged_batch)") from None

    def _cardinality(self) -> int:
        n = self._input._cardinality()
        if n < 0:
            return n
        return n // self._size if self._drop else -(-n // self._size)

    def _spec(self):
        return _batched_spec(self._spec_in, self._size if self._drop else None)


@register_node
class RaggedBatch(Batch):
    """``ragged_batch``: dense components of rank >= 1 are batched as ragged ones (rows of any
    length); scalars stay dense, ragged components gain a ragged dimension."""

    def __init__(self, input_dataset: Dataset, size: int, drop: bool, splits_dtype) -> None:
        super().__init__(input_dataset, size, drop)
        self._spec_in = map_struct(
            lambda s: RaggedTensorSpec(s.shape, s.dtype, 0, splits_dtype)
            if isinstance(s, TensorSpec) and s.shape.rank != 0 else s, self._spec_in)


@register_node
class SparseBatch(Batch):
    """``sparse_batch``: each dense element (every entry, zeros included) becomes one row of a
    SparseTensor of dense shape ``[batch] + row_shape``."""

    def __init__(self, input_dataset: Dataset, size: int, row_shape) -> None:
        super().__init__(input_dataset, size, False)
        if is_struct(self._spec_in) or not isinstance(self._spec_in, TensorSpec):
            raise TypeError(f"sparse_batch needs elements that are one dense tensor, got "
                            f"{self._spec_in}")
        self._row_shape = [int(d) for d in TensorShape(row_shape).as_list()]
        if self._spec_in.shape.rank not in (None, len(self._row_shape)):
            raise ValueError(f"sparse_batch: row_shape {self._row_shape} does not have the "
                             f"rank of the elements, {self._spec_in.shape}")
        self._out = SparseTensorSpec([None] + self._row_shape, self._spec_in.dtype)

    def _collate(self, buf: list):
        indices, values = [], []
        for b, e in enumerate(buf):
            e = np.asarray(e)
            if e.ndim != len(self._row_shape) or any(
                    n > m for n, m in zip(e.shape, self._row_shape)):
                raise errors.InvalidArgumentError(
                    None, None, f"sparse_batch: an element of shape {list(e.shape)} does not "
                    f"fit row_shape {self._row_shape}")
            idx = np.indices(e.shape).reshape(e.ndim, -1).T
            indices.append(np.concatenate([np.full((len(idx), 1), b), idx], 1))
            values.append(e.reshape(-1))
        return SparseTensor(np.concatenate(indices).astype(np.int64), np.concatenate(values),
                            np.asarray([len(buf)] + self._row_shape, np.int64))

    def _spec(self):
        return self._out


def _default_pad(dtype):
    return np.asarray(b"", dtype=object) if dtype is dtypes.string else \
        np.zeros((), dtype=dtype.np)


@register_node
class PaddedBatch(Batch):
    def __init__(self, input_dataset: Dataset, size: int, padded_shapes, padding_values,
                 drop: bool) -> None:
        super().__init__(input_dataset, size, drop)
        spec = input_dataset._spec()
        if any(is_composite_spec(x) for x in leaves(spec)):
            raise TypeError("padded_batch: ragged and sparse components cannot be padded; "
                            "use batch or ragged_batch (or densify them in a map first)")
        if padded_shapes is None:
            padded_shapes = map_struct(lambda s: TensorShape(
                None if s.shape.rank is None else [None] * s.shape.rank), spec)
            for s in leaves(spec):
                if s.shape.rank is None:
                    raise ValueError("padded_batch: padded_shapes is needed for components of "
                                     "unknown rank")
        elif not is_struct(spec) and not _is_shape_like(padded_shapes):
            raise ValueError(f"padded_batch: padded_shapes {padded_shapes!r} is not a shape")
        shapes = map_struct2(lambda s, p: _padded_shape(s, p), spec,
                             _expand(spec, padded_shapes, "padded_shapes"))
        self._shapes = shapes
        if padding_values is None:
            values = map_struct(lambda s: _default_pad(s.dtype), spec)
        else:
            values = map_struct2(_padding_value, spec,
                                 _expand(spec, padding_values, "padding_values"))
        self._values = values

    def _collate(self, buf: list):
        cols = list(zip(*[leaves(e) for e in buf]))
        out = [_pad_stack(list(c), s, v) for c, s, v in
               zip(cols, leaves(self._shapes), leaves(self._values))]
        return pack(buf[0], out)

    def _spec(self):
        b = self._size if self._drop else None
        return map_struct2(lambda s, shape: TensorSpec(TensorShape([b] + shape.as_list()),
                                                       s.dtype),
                           self._input._spec(), self._shapes)


def _is_shape_like(p) -> bool:
    return isinstance(p, (TensorShape, list)) or (
        isinstance(p, tuple) and all(d is None or isinstance(d, (int, np.integer)) for d in p))


def _expand(spec, value, what: str):
    """``value`` per component: the same structure as ``spec``, or one value for all."""
    if not is_struct(spec):
        return value
    if not is_struct(value):
        return map_struct(lambda _: value, spec)
    if not same_structure(spec, _shape_leaves_as_values(value)):
        raise ValueError(f"padded_batch: {what} {value!r} does not match the element "
                         f"structure {spec}")
    return value


def _shape_leaves_as_values(value):
    # (inside a structure of padded shapes, a tuple of ints is one shape, not structure)
    if isinstance(value, dict):
        return {k: _shape_leaves_as_values(v) for k, v in value.items()}
    if isinstance(value, tuple) and not _is_shape_like(value):
        return tuple(_shape_leaves_as_values(v) for v in value)
    return 0


def _padded_shape(spec: TensorSpec, padded) -> TensorShape:
    if isinstance(padded, TensorShape):
        dims = padded.as_list()
    elif isinstance(padded, (list, tuple)):
        dims = [None if d is None or int(d) == -1 else int(d) for d in padded]
    else:
        dims = [None if int(d) == -1 else int(d) for d in np.asarray(normalize(padded))
                .reshape(-1)]
    shape = TensorShape(dims)
    if not spec.shape.is_compatible_with(TensorShape([None] * len(dims))) or any(
            p is not None and d is not None and d > p
            for p, d in zip(dims, spec.shape.as_list() if spec.shape.rank else [])):
        raise ValueError(f"The padded shape {tuple(dims)} is not compatible with the shape "
                         f"{spec.shape} of the corresponding input component.")
    return shape


def _padding_value(spec: TensorSpec, value):
    a = normalize(value)
    if a.shape != ():
        raise ValueError(f"Invalid `padding_values`: {value!r} must be a scalar")
    got = dtypes.from_numpy(a.dtype)
    if got is not spec.dtype:
        raise TypeError(f"Invalid `padding_values`. `padding_values` values type {got!r} does "
                        f"not match type {spec.dtype!r} of the corresponding input component.")
    return a


def _pad_stack(items: list, shape: TensorShape, value) -> np.ndarray:
    target = []
    for k, p in enumerate(shape.as_list()):
        longest = max(np.shape(x)[k] for x in items)
        if p is not None and longest > p:
            raise errors.InvalidArgumentError(
                None, None, f"padded_batch: an element has size {longest} in dimension {k}, "
                f"more than the padded shape {shape}")
        target.append(longest if p is None else p)
    first = np.asarray(items[0])
    out = np.full((len(items),) + tuple(target), value, dtype=first.dtype)
    for i, x in enumerate(items):
        out[(i,) + tuple(slice(0, d) for d in np.shape(x))] = x
    return out


@register_node
class Unbatch(Unary):
    def __init__(self, input_dataset: Dataset) -> None:
        super().__init__(input_dataset)
        for s in leaves(input_dataset._spec()):
            # (an ExtensionType spec has no shape: its encoder's unbatch checks its fields)
            if not (isinstance(s, TensorSpec) or is_composite_spec(s)) or \
                    getattr(s, "shape", None) is not None and s.shape.rank == 0:
                raise ValueError(f"Cannot unbatch an input with scalar components: {s}")
        self._specs = leaves(input_dataset._spec())

    def _gen(self):
        for e in self._input._gen():
            flat = [unstack_leaf(s, a) for s, a in zip(self._specs, leaves(e))]
            n = len(flat[0])
            if any(len(a) != n for a in flat):
                raise errors.InvalidArgumentError(
                    None, None, "unbatch: components of an element have different first "
                    f"dimensions {[len(a) for a in flat]}")
            for i in range(n):
                yield pack(e, [a[i] for a in flat])

    def _cardinality(self) -> int:
        n = self._input._cardinality()
        dims = {s.shape.as_list()[0] if getattr(s, "shape", None) is not None and s.shape.rank
                else None for s in leaves(self._input._spec())}
        b = dims.pop() if len(dims) == 1 else None
        if n == INFINITE_CARDINALITY:
            return n
        return n * b if n >= 0 and b is not None else UNKNOWN_CARDINALITY

    def _spec(self):
        return map_struct(unbatch_spec, self._input._spec())


@register_node
class Shuffle(Unary):
    def __init__(self, input_dataset: Dataset, buffer_size: int, seed, reshuffle: bool) -> None:
        super().__init__(input_dataset)
        self._buffer = buffer_size
        # The op seeds are fixed now, as TensorFlow does when the dataset is created.
        self._seeds = get_seed(seed)
        self._reshuffle = reshuffle
        self._epoch = 0

    def _rng(self) -> np.random.Generator:
        rng = seeded_rng(self._seeds, self._epoch if self._reshuffle else 0)
        self._epoch += 1
        return rng

    def _slice_order(self) -> np.ndarray | None:
        """The shuffled row order when the input is a from_tensor_slices dataset, else None."""
        src = self._input
        if not isinstance(src, Slices):
            return None
        return _buffer_order(src._n, self._buffer, self._rng())

    def _gen(self):
        order = self._slice_order()
        if order is not None:
            arrays = self._input._arrays
            flat = leaves(arrays)
            for i in order:
                yield pack(arrays, [a[i] for a in flat]) if is_struct(arrays) else arrays[i]
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


@register_node
class Repeat(Counted):
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


@register_node
class Take(Counted):
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


@register_node
class Skip(Counted):
    def _gen(self):
        if self._count < 0:
            return
        yield from itertools.islice(self._input._gen(), self._count, None)

    def _cardinality(self) -> int:
        n = self._input._cardinality()
        if n < 0:
            return n
        return 0 if self._count < 0 else max(0, n - self._count)


@register_node
class Cache(Unary):
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


@register_node
class Shard(Unary):
    def __init__(self, input_dataset: Dataset, num: int, index: int) -> None:
        super().__init__(input_dataset)
        self._num, self._index = num, index

    def _gen(self):
        if self._num == -1:
            raise errors.InvalidArgumentError(
                None, None, "shard(SHARD_HINT, SHARD_HINT) is a placeholder for a distribution "
                "strategy's AutoShardPolicy.HINT; iterated without one it has no shard count")
        yield from itertools.islice(self._input._gen(), self._index, None, self._num)

    def _cardinality(self) -> int:
        n = self._input._cardinality()
        if self._num == -1:
            return UNKNOWN_CARDINALITY
        return n if n < 0 else max(0, -(-(n - self._index) // self._num))
