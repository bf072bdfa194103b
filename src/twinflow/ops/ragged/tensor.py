"""``tw.RaggedTensor`` and ``tw.RaggedTensorSpec``: tensors whose rows have different lengths.

A RaggedTensor is ``values`` (a dense tensor or another RaggedTensor) cut into rows by
``row_splits`` (``row i`` is ``values[splits[i]:splits[i+1]]``). Its components are the dense
``flat_values`` and one ``row_splits`` vector per ragged dimension, so ``tw.function`` traces a
RaggedTensor argument once for every row length: only the number of rows is in its spec.
Every method is written with dense twinflow ops (gather, scatter, segment, repeat), so it runs
eagerly and in graphs and is differentiable with respect to the values.
"""
from __future__ import annotations

import numpy as np

from ...core import dtypes
from ...core.shapes import TensorShape
from ...eager.func_graph import TensorSpec
from ...eager.tensor import EagerTensor
from ...framework.type_spec import CompositeTensor, shape_repr
from ...graph.graph import name_scoped
from ...graph.tensor import Tensor
from .. import array_ops as A
from .. import math_ops as M
from ..core import convert
from ..reduction_ops import reduce_max
from ..segment_ops import unsorted_segment_sum
from ..sparse.tensor import ShapedComposite, ValueSpec

# Conversions and indexing live in convert.py and getitem.py, which build on RaggedTensor and
# register themselves here (importing them from this module would be an import cycle).
_IMPL: dict = {}


def _splits_dtype(dtype) -> dtypes.DType:
    d = dtypes.as_dtype(dtype)
    if d not in (dtypes.int32, dtypes.int64):
        raise ValueError(f"row_splits_dtype must be int32 or int64, got {d.name}")
    return d


class RaggedTensorSpec(ValueSpec):
    """The type of a RaggedTensor.

    Args:
        shape: its shape (ragged dimensions are None).
        dtype: the values' dtype.
        ragged_rank: how many dimensions (after the first) are ragged (default rank - 1).
        row_splits_dtype: int32 or int64.
        flat_values_spec: accepted only as None.
    """

    __slots__ = ("_shape", "_dtype", "_ragged_rank", "_row_splits_dtype")

    def __init__(self, shape=None, dtype=dtypes.float32, ragged_rank=None,
                 row_splits_dtype=dtypes.int64, flat_values_spec=None) -> None:
        if flat_values_spec is not None:
            raise ValueError("RaggedTensorSpec(flat_values_spec=...) is not supported")
        self._shape = shape if isinstance(shape, TensorShape) else TensorShape(shape)
        self._dtype = dtypes.as_dtype(dtype)
        rank = self._shape.rank
        if ragged_rank is None:
            if rank is None:
                raise ValueError("RaggedTensorSpec needs ragged_rank when the rank is unknown")
            ragged_rank = rank - 1
        if rank is not None and not 0 <= ragged_rank < max(rank, 1):
            raise ValueError(f"ragged_rank must be in [0, {rank - 1}], got {ragged_rank}")
        self._ragged_rank = int(ragged_rank)
        self._row_splits_dtype = _splits_dtype(row_splits_dtype)

    shape = property(lambda self: self._shape)
    dtype = property(lambda self: self._dtype)
    ragged_rank = property(lambda self: self._ragged_rank)
    row_splits_dtype = property(lambda self: self._row_splits_dtype)

    @property
    def value_type(self) -> type:
        return RaggedTensor if self._ragged_rank > 0 else Tensor

    def _serialize(self) -> tuple:
        return (self._shape, self._dtype, self._ragged_rank, self._row_splits_dtype)

    @property
    def _component_specs(self) -> list:
        dims = self._shape.as_tuple()
        inner = None if dims is None else list(dims[self._ragged_rank + 1:])
        flat = TensorSpec(None if inner is None else [None] + inner, self._dtype)
        if self._ragged_rank == 0:
            return [TensorSpec(self._shape, self._dtype)]
        nrows = None if dims is None or dims[0] is None else dims[0] + 1
        splits = [TensorSpec([nrows], self._row_splits_dtype)]
        splits += [TensorSpec([None], self._row_splits_dtype)
                   for _ in range(self._ragged_rank - 1)]
        return [flat] + splits

    def _to_components(self, value) -> list:
        if self._ragged_rank == 0:
            return [value]
        return [value.flat_values] + list(value.nested_row_splits)

    def _from_components(self, components):
        if self._ragged_rank == 0:
            return components[0]
        rt = RaggedTensor._from_nested_splits(components[0], list(components[1:]))
        rt._static_shape = rt._static_shape.merge_with(self._shape) \
            if self._shape.rank is not None else rt._static_shape
        return rt

    # ----- batching, for tw.data (values with eager components, as NumPy) -----
    def _batch(self, batch_size) -> RaggedTensorSpec:
        """The spec of a batch of values of this spec: one more (ragged) outer dimension."""
        return RaggedTensorSpec(TensorShape([batch_size]).concatenate(self._shape), self._dtype,
                                self._ragged_rank + 1, self._row_splits_dtype)

    def _unbatch(self) -> RaggedTensorSpec:
        """The spec of one row of a value of this spec."""
        return RaggedTensorSpec(self._shape[1:], self._dtype, max(self._ragged_rank - 1, 0),
                                self._row_splits_dtype)

    def _tw_unstack(self, value) -> list:
        """The rows of an eager value of this spec (NumPy arrays where they are dense)."""
        if self._ragged_rank == 0:
            return list(np.asarray(value))
        flat = np.asarray(value.flat_values)
        splits = [np.asarray(s) for s in value.nested_row_splits]
        rows = []
        for i in range(len(splits[0]) - 1):
            lo, hi = splits[0][i], splits[0][i + 1]
            inner = []
            for s in splits[1:]:
                part = s[lo:hi + 1]
                inner.append(EagerTensor(part - part[0]))
                lo, hi = part[0], part[-1]
            vals = flat[lo:hi]
            rows.append(RaggedTensor._from_nested_splits(EagerTensor(vals), inner)
                        if inner else vals)
        return rows

    def _tw_stack(self, values: list) -> RaggedTensor:
        """One eager value of ``self._batch(len(values))`` made of ``values`` (of this spec)."""
        sd = self._row_splits_dtype.np
        if self._ragged_rank == 0:
            parts = [(np.asarray(v), []) for v in values]
        else:
            parts = [(np.asarray(v.flat_values), [np.asarray(s) for s in v.nested_row_splits])
                     for v in values]
        flat, levels = stack_components(parts, self._ragged_rank, sd)
        return RaggedTensor._from_nested_splits(EagerTensor(flat),
                                                [EagerTensor(s) for s in levels])

    def __repr__(self) -> str:
        return (f"RaggedTensorSpec({shape_repr(self._shape)}, {self._dtype!r}, "
                f"{self._ragged_rank}, {self._row_splits_dtype!r})")


class RaggedTensor(ShapedComposite):
    """Rows of ``values`` cut at ``row_splits``; build one with the ``from_*`` class methods or
    ``tw.ragged.constant``.

    Args:
        values: the rows' items (a tensor or RaggedTensor).
        row_splits: where each row starts and ends.
        _internal: must be True: the constructor is private, as TensorFlow's.
    """

    __slots__ = ("_values", "_row_splits", "_static_shape")

    def __init__(self, values, row_splits, _internal: bool = False) -> None:
        if not _internal:
            raise ValueError("RaggedTensor constructor is private; use a factory method "
                             "such as tw.RaggedTensor.from_row_splits(values, row_splits)")
        self._values = values
        self._row_splits = row_splits
        self._static_shape = _infer_shape(values, row_splits)

    # ----- factories -----
    @classmethod
    @name_scoped
    def from_row_splits(cls, values, row_splits, name=None, validate: bool = True
                        ) -> RaggedTensor:
        """Rows ``values[row_splits[i]:row_splits[i+1]]``.

        Args:
            values: a tensor (or RaggedTensor) of the rows' items.
            row_splits: a sorted int vector starting at 0 and ending at ``len(values)``.
            validate: check the splits (eagerly).

        Returns:
            A RaggedTensor.
        """
        values = values if isinstance(values, RaggedTensor) else convert(values)
        splits = convert(row_splits, dtype_hint=dtypes.int64)
        if splits.dtype not in (dtypes.int32, dtypes.int64):
            raise ValueError(f"row_splits must be int32 or int64, got {splits.dtype.name}")
        if splits.shape.rank not in (None, 1):
            raise ValueError(f"row_splits must be a vector, got shape {splits.shape}")
        if validate and isinstance(splits, EagerTensor):
            s = np.asarray(splits._value)
            n = _nvals(values)
            if s.size == 0 or s[0] != 0 or np.any(np.diff(s) < 0) or (
                    n is not None and s[-1] != n):
                raise ValueError(f"Arguments to from_row_splits do not form a valid "
                                 f"RaggedTensor: row_splits {s.tolist()} must start at 0, "
                                 f"be sorted and end at the number of values ({n})")
        if isinstance(values, RaggedTensor) and values.row_splits.dtype is not splits.dtype:
            raise ValueError("RaggedTensor row_splits dtypes must match across ragged "
                             f"dimensions: {values.row_splits.dtype.name} vs "
                             f"{splits.dtype.name}")
        return cls(values, splits, _internal=True)

    @classmethod
    @name_scoped
    def from_row_lengths(cls, values, row_lengths, name=None, validate: bool = True
                         ) -> RaggedTensor:
        """Rows of the given lengths, taken from ``values`` in order.

        Args:
            values: the rows' items.
            row_lengths: an int vector: the length of each row.
            validate: check that the lengths add up to ``len(values)``.

        Returns:
            A RaggedTensor.
        """
        lengths = convert(row_lengths, dtype_hint=dtypes.int64)
        zero = A.zeros([1], dtype=lengths.dtype)
        return cls.from_row_splits(values, A.concat([zero, M.cumsum(lengths)], 0),
                                   validate=validate)

    @classmethod
    @name_scoped
    def from_value_rowids(cls, values, value_rowids, nrows=None, name=None,
                          validate: bool = True) -> RaggedTensor:
        """Rows from each value's (sorted) row id.

        Args:
            values: the rows' items.
            value_rowids: a sorted int vector, one row id per value.
            nrows: the number of rows (default: last row id + 1).
            validate: check the result.

        Returns:
            A RaggedTensor.
        """
        ids = convert(value_rowids, dtype_hint=dtypes.int64)
        if nrows is None:
            nrows = reduce_max(A.concat([ids, -A.ones([1], ids.dtype)], 0)) + 1
        lengths = unsorted_segment_sum(A.ones_like(ids), ids, nrows)
        return cls.from_row_lengths(values, lengths, validate=validate)

    @classmethod
    @name_scoped
    def from_row_starts(cls, values, row_starts, name=None, validate: bool = True
                        ) -> RaggedTensor:
        """Rows starting at ``row_starts`` (each ending where the next starts).

        Args:
            values: the rows' items.
            row_starts: a sorted int vector starting at 0.
            validate: check the result.

        Returns:
            A RaggedTensor.
        """
        starts = convert(row_starts, dtype_hint=dtypes.int64)
        n = A.reshape(M.cast(_nvals_tensor(values), starts.dtype), [1])
        return cls.from_row_splits(values, A.concat([starts, n], 0), validate=validate)

    @classmethod
    @name_scoped
    def from_row_limits(cls, values, row_limits, name=None, validate: bool = True
                        ) -> RaggedTensor:
        """Rows ending at ``row_limits`` (the first starting at 0).

        Args:
            values: the rows' items.
            row_limits: a sorted int vector ending at ``len(values)``.
            validate: check the result.

        Returns:
            A RaggedTensor.
        """
        limits = convert(row_limits, dtype_hint=dtypes.int64)
        return cls.from_row_splits(values, A.concat([A.zeros([1], limits.dtype), limits], 0),
                                   validate=validate)

    @classmethod
    @name_scoped
    def from_nested_row_splits(cls, flat_values, nested_row_splits, name=None,
                               validate: bool = True) -> RaggedTensor:
        """A RaggedTensor with one ragged dimension per entry of ``nested_row_splits``.

        Args:
            flat_values: the innermost values.
            nested_row_splits: row_splits, outermost first.
            validate: check each level.

        Returns:
            A RaggedTensor (``flat_values`` itself when the list is empty).
        """
        return _nest(flat_values, list(nested_row_splits),
                     lambda rt, splits: cls.from_row_splits(rt, splits, validate=validate))

    @classmethod
    @name_scoped
    def from_nested_row_lengths(cls, flat_values, nested_row_lengths, name=None,
                                validate: bool = True) -> RaggedTensor:
        """As ``from_nested_row_splits``, with row lengths.

        Args:
            nested_row_lengths: row lengths per ragged dimension, outermost first.
            flat_values, validate: as in ``from_nested_row_splits``.

        Returns:
            A RaggedTensor.
        """
        return _nest(flat_values, list(nested_row_lengths),
                     lambda rt, lengths: cls.from_row_lengths(rt, lengths, validate=validate))

    @classmethod
    @name_scoped
    def from_nested_value_rowids(cls, flat_values, nested_value_rowids, nested_nrows=None,
                                 name=None, validate: bool = True) -> RaggedTensor:
        """As ``from_nested_row_splits``, with value row ids.

        Args:
            nested_value_rowids: row ids per ragged dimension, outermost first.
            nested_nrows: row counts per ragged dimension (default inferred).
            flat_values, validate: as in ``from_nested_row_splits``.

        Returns:
            A RaggedTensor.
        """
        ids = list(nested_value_rowids)
        nrows = list(nested_nrows) if nested_nrows is not None else [None] * len(ids)
        return _nest(flat_values, list(zip(ids, nrows)),
                     lambda rt, level: cls.from_value_rowids(rt, *level, validate=validate))

    @classmethod
    def _from_nested_splits(cls, flat_values, splits: list) -> RaggedTensor:
        return _nest(flat_values, splits, lambda rt, s: cls(rt, s, _internal=True))

    @classmethod
    @name_scoped
    def from_tensor(cls, tensor, lengths=None, padding=None, ragged_rank: int = 1, name=None,
                    row_splits_dtype=dtypes.int64) -> RaggedTensor:
        """A RaggedTensor from a dense tensor, cutting rows at ``lengths`` or trailing
        ``padding``.

        Args:
            tensor: a dense tensor of rank >= ragged_rank + 1.
            lengths: the length of each row (the second dimension), or None.
            padding: a value (of the inner shape): trailing entries equal to it are dropped.
            ragged_rank: how many leading dimensions after the first become ragged.
            row_splits_dtype: int32 or int64.

        Returns:
            A RaggedTensor.
        """
        return _IMPL["from_tensor"](tensor, lengths, padding, ragged_rank, row_splits_dtype)

    # ----- structure -----
    values = property(lambda self: self._values, doc="The concatenated rows.")
    row_splits = property(lambda self: self._row_splits, doc="Where each row starts and ends.")

    @property
    def flat_values(self) -> Tensor:
        """The innermost dense values."""
        v = self._values
        while isinstance(v, RaggedTensor):
            v = v._values
        return v

    @property
    def nested_row_splits(self) -> tuple:
        """The row_splits of every ragged dimension, outermost first."""
        out, rt = [], self
        while isinstance(rt, RaggedTensor):
            out.append(rt._row_splits)
            rt = rt._values
        return tuple(out)

    @property
    def ragged_rank(self) -> int:
        return len(self.nested_row_splits)

    @property
    def dtype(self) -> dtypes.DType:
        return self.flat_values.dtype

    @property
    def row_splits_dtype(self) -> dtypes.DType:
        return self._row_splits.dtype

    @property
    def _type_spec(self) -> RaggedTensorSpec:
        dims = self._static_shape.as_tuple()
        return RaggedTensorSpec(dims, self.dtype, self.ragged_rank, self.row_splits_dtype)

    @name_scoped
    def nrows(self, out_type=None, name=None) -> Tensor:
        """The number of rows.

        Args:
            out_type: the dtype (default: row_splits' dtype).

        Returns:
            A scalar tensor.
        """
        n = A.shape(self._row_splits, out_type=self.row_splits_dtype)[0] - 1
        return n if out_type is None else M.cast(n, out_type)

    @name_scoped
    def row_starts(self, name=None) -> Tensor:
        """Where each row starts in ``values``.

        Returns:
            An int vector.
        """
        return self._row_splits[:-1]

    @name_scoped
    def row_limits(self, name=None) -> Tensor:
        """Where each row ends in ``values``.

        Returns:
            An int vector.
        """
        return self._row_splits[1:]

    @name_scoped
    def row_lengths(self, axis: int = 1, name=None) -> Tensor | RaggedTensor:
        """The length of each row (of dimension ``axis``).

        Args:
            axis: the ragged dimension whose lengths to return (1 = the rows of this tensor).

        Returns:
            An int vector (axis 1) or a RaggedTensor of lengths (deeper axes).
        """
        if axis == 1:
            return self._row_splits[1:] - self._row_splits[:-1]
        if axis < 1 or not isinstance(self._values, RaggedTensor):
            raise ValueError(f"row_lengths: axis {axis} is not a ragged dimension")
        return self.with_values(self._values.row_lengths(axis - 1))

    @name_scoped
    def nested_row_lengths(self, name=None) -> tuple:
        """The row lengths of every ragged dimension, outermost first.

        Returns:
            A tuple of int vectors.
        """
        return tuple(s[1:] - s[:-1] for s in self.nested_row_splits)

    @name_scoped
    def value_rowids(self, name=None) -> Tensor:
        """The row of each value.

        Returns:
            An int vector as long as ``values``.
        """
        return A.repeat(A.range(self.nrows(), dtype=self.row_splits_dtype), self.row_lengths())

    @name_scoped
    def nested_value_rowids(self, name=None) -> tuple:
        """The value row ids of every ragged dimension, outermost first.

        Returns:
            A tuple of int vectors.
        """
        out, rt = [], self
        while isinstance(rt, RaggedTensor):
            out.append(rt.value_rowids())
            rt = rt._values
        return tuple(out)

    @name_scoped
    def bounding_shape(self, axis=None, name=None, out_type=None) -> Tensor:
        """The smallest dense shape holding this tensor.

        Args:
            axis: one dimension (or a list) instead of all.
            out_type: the dtype (default: row_splits' dtype).

        Returns:
            An int vector (or scalar for one axis).
        """
        return _IMPL["bounding_shape"](self, axis, out_type)

    def with_values(self, new_values) -> RaggedTensor:
        """The same row partition with other values (as many as ``values``).

        Args:
            new_values: a tensor or RaggedTensor.

        Returns:
            A RaggedTensor.
        """
        v = new_values if isinstance(new_values, RaggedTensor) else convert(new_values)
        return RaggedTensor(v, self._row_splits, _internal=True)

    def with_flat_values(self, new_values) -> RaggedTensor:
        """The same nested row partitions with other flat values.

        Args:
            new_values: a tensor with as many rows as ``flat_values``.

        Returns:
            A RaggedTensor.
        """
        if isinstance(self._values, RaggedTensor):
            return self.with_values(self._values.with_flat_values(new_values))
        return self.with_values(new_values)

    def with_row_splits_dtype(self, dtype) -> RaggedTensor:
        """The same tensor with row_splits of another integer dtype.

        Args:
            dtype: int32 or int64.

        Returns:
            A RaggedTensor.
        """
        d = _splits_dtype(dtype)
        splits = [M.cast(s, d) for s in self.nested_row_splits]
        return RaggedTensor._from_nested_splits(self.flat_values, splits)

    def merge_dims(self, outer_axis: int, inner_axis: int) -> RaggedTensor | Tensor:
        """Merges dimensions ``outer_axis..inner_axis`` into one.

        Args:
            outer_axis: the first dimension to merge.
            inner_axis: the last dimension to merge.

        Returns:
            A RaggedTensor (or a dense tensor when every ragged dimension is merged away).
        """
        return _IMPL["merge_dims"](self, outer_axis, inner_axis)

    # ----- conversion -----
    @name_scoped
    def to_tensor(self, default_value=None, name=None, shape=None) -> Tensor:
        """The dense tensor, rows padded with ``default_value``.

        Args:
            default_value: the padding (default 0 / ``''``).
            shape: the result's shape (rows cut or padded to it; None dims keep the bound).

        Returns:
            A dense tensor.
        """
        return _IMPL["to_tensor"](self, default_value, shape)

    def to_list(self) -> list:
        """The rows as nested Python lists (eager only).

        Returns:
            A list of lists.
        """
        if not isinstance(self.flat_values, EagerTensor):
            raise ValueError("RaggedTensor.to_list() is only available eagerly; inside a "
                             "tw.function return the RaggedTensor instead")
        vals = self.flat_values.numpy()
        out = vals.tolist()
        for s in reversed(self.nested_row_splits):
            sp = s.numpy()
            out = [out[sp[i]:sp[i + 1]] for i in range(len(sp) - 1)]
        return out

    def numpy(self) -> np.ndarray:
        """The rows as a NumPy object array of arrays (eager only).

        Returns:
            An object array with one entry per row.
        """
        rows = self.to_list()
        out = np.empty(len(rows), dtype=object)
        for i, r in enumerate(rows):
            out[i] = np.asarray(r, dtype=np.dtype(self.dtype.np)
                                if self.dtype is not dtypes.string else object)
        return out

    @name_scoped
    def to_sparse(self, name=None) -> CompositeTensor:
        """The SparseTensor of this tensor's entries.

        Returns:
            A SparseTensor of the bounding shape.
        """
        return _IMPL["to_sparse"](self)

    @classmethod
    @name_scoped
    def from_sparse(cls, st_input, name=None, row_splits_dtype=dtypes.int64) -> RaggedTensor:
        """A RaggedTensor from a rank-2 SparseTensor in row-major order (rows keep their
        entries, left-aligned).

        Args:
            st_input: a SparseTensor.
            row_splits_dtype: int32 or int64.

        Returns:
            A RaggedTensor.
        """
        if st_input.shape.rank not in (None, 2):
            raise ValueError("RaggedTensor.from_sparse needs a rank-2 SparseTensor")
        d = _splits_dtype(row_splits_dtype)
        rows = M.cast(st_input.indices[:, 0], d)
        return cls.from_value_rowids(st_input.values, rows,
                                     M.cast(st_input.dense_shape[0], d))

    def __len__(self) -> int:
        n = self._static_shape[0]
        if n is None:
            raise TypeError("len of a RaggedTensor with an unknown number of rows")
        return n

    def __getitem__(self, key):
        return _IMPL["getitem"](self, key)

    def __repr__(self) -> str:
        if isinstance(self.flat_values, EagerTensor):
            return f"<tw.RaggedTensor {self.to_list()!r}>"
        return (f"tw.RaggedTensor(values={self._values!r}, "
                f"row_splits={self._row_splits!r})")

    __str__ = __repr__


def _nest(flat_values, levels: list, wrap) -> RaggedTensor:
    """``flat_values`` wrapped by ``wrap(rt, level)`` once per level, outermost level first."""
    rt = flat_values
    for level in reversed(levels):
        rt = wrap(rt, level)
    return rt


def _nvals(values):
    if isinstance(values, RaggedTensor):
        return values._static_shape[0]
    return values.shape[0] if values.shape.rank else None


def _nvals_tensor(values) -> Tensor:
    if isinstance(values, RaggedTensor):
        return values.nrows()
    return A.shape(values)[0]


def _infer_shape(values, splits) -> TensorShape:
    n = splits.shape[0] if splits.shape.rank == 1 else None
    nrows = None if n is None else n - 1
    inner = values._static_shape if isinstance(values, RaggedTensor) else values.shape
    if inner.rank is None:
        return TensorShape(None)
    return TensorShape([nrows, None] + inner.as_list()[1:]
                       if inner.rank else [nrows, None])


def stack_components(parts: list, ragged_rank: int, splits_dtype) -> tuple:
    """NumPy components of the batch of ragged values given as ``(flat_values, [splits...])``
    pairs (``ragged_rank`` splits each; none for dense rows): ``(flat, [splits...])`` with one
    more, outer, level of splits."""
    lengths = [len(s[0]) - 1 if s else len(f) for f, s in parts]
    levels = [np.concatenate([[0], np.cumsum(lengths)]).astype(splits_dtype)]
    for k in range(ragged_rank):
        offset, pieces = 0, [np.zeros(1, splits_dtype)]
        for _, s in parts:
            pieces.append(s[k][1:] + offset)
            offset += s[k][-1]
        levels.append(np.concatenate(pieces).astype(splits_dtype))
    return np.concatenate([f for f, _ in parts]), levels


def is_ragged(x) -> bool:
    """True for a RaggedTensor.

    Args:
        x: any value.

    Returns:
        Whether it is a RaggedTensor.
    """
    return isinstance(x, RaggedTensor)

