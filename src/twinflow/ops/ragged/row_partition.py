"""``tw.experimental.RowPartition``: how a flat list of ``nvals`` values is split into rows,
in any of TensorFlow's encodings (row splits, lengths, starts, limits, value row ids, a
uniform row length); every encoding is computed from the row splits with twinflow ops, so it
works eagerly and in graphs."""
from __future__ import annotations

import numpy as np

from ...core import dtypes
from ...core.props import readonly
from ...eager.tensor import EagerTensor
from ...graph.tensor import Tensor
from .. import array_ops as A
from .. import math_ops as M
from ..core import convert
from .tensor import RaggedTensor


def _index(x, dtype=None, dtype_hint=None):
    t = convert(x, dtype=dtype, dtype_hint=dtype_hint or dtypes.int64)
    if t.dtype not in (dtypes.int32, dtypes.int64):
        raise ValueError(f"RowPartition tensors must be int32 or int64, got {t.dtype.name}")
    return t


class RowPartition:
    """A partition of ``nvals`` values into ``nrows`` rows (build it with a ``from_*``
    factory)."""

    def __init__(self, row_splits, row_lengths=None, value_rowids=None, nrows=None,
                 uniform_row_length=None, nvals=None, internal: bool = False) -> None:
        """Private: use a ``from_*`` factory.

        Args:
            row_splits: the row splits tensor.
            row_lengths: precomputed row lengths (or None).
            value_rowids: precomputed value row ids (or None).
            nrows: the precomputed number of rows (or None).
            uniform_row_length: the row length of a uniform partition, or None.
            nvals: the precomputed number of values (or None).
            internal: set by the factories.
        """
        if not internal:
            raise ValueError("RowPartition constructor is private; use a factory method such "
                             "as RowPartition.from_row_splits(row_splits)")
        self._splits = row_splits
        self._uniform = uniform_row_length
        self._lengths, self._rowids, self._nrows, self._nvals = (row_lengths, value_rowids,
                                                                 nrows, nvals)

    # -- factories ---------------------------------------------------------------------------
    @classmethod
    def from_row_splits(cls, row_splits, validate: bool = True, dtype=None,
                        dtype_hint=None) -> RowPartition:
        """Rows ``[row_splits[i], row_splits[i+1])``.

        Args:
            row_splits: a sorted int vector starting at 0.
            validate: check it (eagerly).
            dtype: the dtype (int32/int64; default: the input's, int64 for Python values).
            dtype_hint: the dtype for Python values when ``dtype`` is None.

        Returns:
            A RowPartition.
        """
        splits = _index(row_splits, dtype, dtype_hint)
        if splits.shape.rank not in (None, 1):
            raise ValueError(f"row_splits must be a vector, got shape {splits.shape}")
        if validate and isinstance(splits, EagerTensor):
            s = np.asarray(splits._value)
            if s.size == 0 or s[0] != 0 or np.any(np.diff(s) < 0):
                raise ValueError(f"Arguments to from_row_splits do not form a valid "
                                 f"RowPartition: row_splits {s.tolist()} must be non-empty, "
                                 "start at 0 and be sorted")
        return cls(splits, internal=True)

    @classmethod
    def from_row_lengths(cls, row_lengths, validate: bool = True, dtype=None,
                         dtype_hint=None) -> RowPartition:
        """Rows of the given lengths.

        Args:
            row_lengths: a non-negative int vector.
            validate, dtype, dtype_hint: as in ``from_row_splits``.

        Returns:
            A RowPartition.
        """
        lengths = _index(row_lengths, dtype, dtype_hint)
        if validate and isinstance(lengths, EagerTensor) and np.any(lengths._value < 0):
            raise ValueError("row_lengths must be non-negative")
        zero = A.zeros([1], dtype=lengths.dtype)
        return cls(A.concat([zero, M.cumsum(lengths)], 0), row_lengths=lengths, internal=True)

    @classmethod
    def from_value_rowids(cls, value_rowids, nrows=None, validate: bool = True, dtype=None,
                          dtype_hint=None) -> RowPartition:
        """Rows from the (sorted) row id of each value.

        Args:
            value_rowids: a sorted int vector.
            nrows: the number of rows (default: last id + 1).
            validate, dtype, dtype_hint: as in ``from_row_splits``.

        Returns:
            A RowPartition.
        """
        ids = _index(value_rowids, dtype, dtype_hint)
        rt = RaggedTensor.from_value_rowids(ids, ids, nrows=nrows, validate=validate)
        return cls(rt.row_splits, value_rowids=ids, internal=True)

    @classmethod
    def from_row_starts(cls, row_starts, nvals, validate: bool = True, dtype=None,
                        dtype_hint=None) -> RowPartition:
        """Rows starting at ``row_starts`` (the last one ends at ``nvals``).

        Args:
            row_starts: a sorted int vector starting at 0.
            nvals: the number of values.
            validate, dtype, dtype_hint: as in ``from_row_splits``.

        Returns:
            A RowPartition.
        """
        starts = _index(row_starts, dtype, dtype_hint)
        end = M.cast(A.reshape(convert(nvals), [1]), starts.dtype)
        return cls.from_row_splits(A.concat([starts, end], 0), validate)

    @classmethod
    def from_row_limits(cls, row_limits, validate: bool = True, dtype=None,
                        dtype_hint=None) -> RowPartition:
        """Rows ending at ``row_limits``.

        Args:
            row_limits: a sorted int vector.
            validate, dtype, dtype_hint: as in ``from_row_splits``.

        Returns:
            A RowPartition.
        """
        limits = _index(row_limits, dtype, dtype_hint)
        return cls.from_row_splits(A.concat([A.zeros([1], limits.dtype), limits], 0), validate)

    @classmethod
    def from_uniform_row_length(cls, uniform_row_length, nvals, nrows=None,
                                validate: bool = True, dtype=None,
                                dtype_hint=None) -> RowPartition:
        """Rows of ``uniform_row_length`` values each.

        Args:
            uniform_row_length: the row length.
            nvals: the number of values.
            nrows: the number of rows (default ``nvals // uniform_row_length``; 0 rows of
                length 0 when both are 0).
            validate: check that ``nrows * uniform_row_length == nvals`` (eagerly).
            dtype, dtype_hint: as in ``from_row_splits``.

        Returns:
            A RowPartition.
        """
        length = _index(uniform_row_length, dtype, dtype_hint)
        nvals_t = M.cast(convert(nvals), length.dtype)
        if nrows is None:
            nrows = M.floordiv(nvals_t, M.maximum(length, M.cast(1, length.dtype)))
        nrows_t = M.cast(convert(nrows), length.dtype)
        if validate and isinstance(nrows_t, EagerTensor) and isinstance(length, EagerTensor) \
                and isinstance(nvals_t, EagerTensor) and \
                int(nrows_t._value) * int(length._value) != int(nvals_t._value):
            raise ValueError("uniform_row_length * nrows must equal nvals")
        splits = A.range(nrows_t + 1, dtype=length.dtype) * length
        return cls(splits, uniform_row_length=length, internal=True)

    # -- encodings ---------------------------------------------------------------------------
    dtype = readonly("_splits.dtype", "The dtype of the partition's tensors.")

    def row_splits(self) -> Tensor:
        """The row splits (``nrows + 1`` ints).

        Returns:
            An int tensor.
        """
        return self._splits

    def row_starts(self) -> Tensor:
        """Where each row starts.

        Returns:
            An int tensor.
        """
        return self._splits[:-1]

    def row_limits(self) -> Tensor:
        """Where each row ends.

        Returns:
            An int tensor.
        """
        return self._splits[1:]

    def row_lengths(self) -> Tensor:
        """The length of each row.

        Returns:
            An int tensor.
        """
        if self._lengths is not None:
            return self._lengths
        return self._splits[1:] - self._splits[:-1]

    def value_rowids(self) -> Tensor:
        """The row of each value.

        Returns:
            An int tensor.
        """
        if self._rowids is not None:
            return self._rowids
        return A.repeat(A.range(self.nrows(), dtype=self.dtype), self.row_lengths())

    def nrows(self) -> Tensor:
        """The number of rows (a scalar).

        Returns:
            An int tensor.
        """
        if self._nrows is not None:
            return self._nrows
        return A.shape(self._splits, out_type=self.dtype)[0] - 1

    def nvals(self) -> Tensor:
        """The number of values (a scalar).

        Returns:
            An int tensor.
        """
        if self._nvals is not None:
            return self._nvals
        return self._splits[-1]

    def offsets_in_rows(self) -> Tensor:
        """Each value's position within its row.

        Returns:
            An int tensor.
        """
        return A.range(self.nvals(), dtype=self.dtype) - A.gather(self.row_starts(),
                                                                  self.value_rowids())

    def uniform_row_length(self) -> Tensor | None:
        """The row length if the partition was built uniform, else None.

        Returns:
            A scalar int tensor, or None.
        """
        return self._uniform

    def is_uniform(self) -> bool:
        """Whether the partition was built with a uniform row length."""
        return self._uniform is not None

    @property
    def static_nrows(self):
        """The number of rows if known statically, else None."""
        n = self._splits.shape[0] if self._splits.shape.rank == 1 else None
        return None if n is None else n - 1

    @property
    def static_nvals(self):
        """The number of values if known without running a graph, else None."""
        if isinstance(self._splits, EagerTensor):
            return int(self._splits._value[-1])
        return None

    def with_dtype(self, dtype) -> RowPartition:
        """This partition with int32 or int64 tensors.

        Args:
            dtype: the dtype.

        Returns:
            A RowPartition.
        """
        dtype = dtypes.as_dtype(dtype)
        if dtype not in (dtypes.int32, dtypes.int64):
            raise ValueError(f"dtype must be int32 or int64, got {dtype.name}")
        uniform = None if self._uniform is None else M.cast(self._uniform, dtype)
        return RowPartition(M.cast(self._splits, dtype), uniform_row_length=uniform,
                            internal=True)

    def __repr__(self) -> str:
        return f"tw.RowPartition(row_splits={self._splits!r})"
