"""``tw.IndexedSlices``: some rows of a tensor, and ``tw.IndexedSlicesSpec``.

The gradient of ``gather`` (axis 0) and ``embedding_lookup`` is an IndexedSlices, as in
TensorFlow: the rows ``values`` that reach the dense tensor of ``dense_shape`` at row ``indices``
(duplicates add up). ``tw.convert_to_tensor`` densifies it (``_as_tensor``); ``backprop`` keeps
it sparse only through ops that pass gradients on unchanged, and sums several by concatenating.

This module sits below the array ops (``gather`` builds IndexedSlices), so densifying binds the
``UnsortedSegmentSum`` op found in the registry by name instead of importing the segment ops.
"""
from __future__ import annotations

import numpy as np

from ..core import dtypes
from ..core.shapes import TensorShape
from ..eager.func_graph import TensorSpec
from ..eager.tensor import EagerTensor
from ..framework.type_spec import BatchableTypeSpec, CompositeTensor, shape_repr
from ..graph.registry import get_op
from ..graph.tensor import Tensor, TensorLike
from .array.shape import _int_input
from .core import bind, constant_value, convert, shape_from_tensor


class IndexedSlicesSpec(BatchableTypeSpec):
    """The type of an IndexedSlices.

    Args:
        shape: the dense shape.
        dtype: the values' dtype.
        indices_dtype: the indices' dtype.
        dense_shape_dtype: the dense_shape's dtype (None: no dense_shape).
        indices_shape: the shape of ``indices`` (default ``[None]``).
    """

    __slots__ = ("_shape", "_dtype", "_indices_dtype", "_dense_shape_dtype", "_indices_shape")

    def __init__(self, shape=None, dtype=dtypes.float32, indices_dtype=dtypes.int64,
                 dense_shape_dtype=None, indices_shape=None) -> None:
        self._shape = shape if isinstance(shape, TensorShape) else TensorShape(shape)
        self._dtype = dtypes.as_dtype(dtype)
        self._indices_dtype = dtypes.as_dtype(indices_dtype)
        self._dense_shape_dtype = None if dense_shape_dtype is None else \
            dtypes.as_dtype(dense_shape_dtype)
        self._indices_shape = TensorShape([None] if indices_shape is None else indices_shape)

    shape = property(lambda self: self._shape)
    dtype = property(lambda self: self._dtype)

    @property
    def value_type(self) -> type:
        return IndexedSlices

    def _serialize(self) -> tuple:
        return (self._shape, self._dtype, self._indices_dtype, self._dense_shape_dtype,
                self._indices_shape)

    @property
    def _component_specs(self) -> list:
        rows = self._shape.as_list()[1:] if self._shape.rank else None
        values = TensorSpec(None if rows is None else [None] + rows, self._dtype)
        out = [values, TensorSpec(self._indices_shape, self._indices_dtype)]
        if self._dense_shape_dtype is not None:
            out.append(TensorSpec([self._shape.rank], self._dense_shape_dtype))
        return out

    def _to_components(self, value) -> list:
        out = [value.values, value.indices]
        if value.dense_shape is not None:
            out.append(value.dense_shape)
        return out

    def _from_components(self, components) -> IndexedSlices:
        return IndexedSlices(*components)

    def __repr__(self) -> str:
        return (f"IndexedSlicesSpec({shape_repr(self._shape)}, {self._dtype!r}, "
                f"{self._indices_dtype!r}, {self._dense_shape_dtype!r}, "
                f"{shape_repr(self._indices_shape)})")


class IndexedSlices(CompositeTensor):
    """Rows ``values`` of a tensor of ``dense_shape`` at row ``indices`` (``tw.IndexedSlices``).

    Args:
        values: the rows, ``[N] + row_shape``.
        indices: an int tensor ``[N]``: the row index of each value.
        dense_shape: the dense tensor's shape, or None.
    """

    __slots__ = ("values", "indices", "dense_shape")

    def __init__(self, values: TensorLike, indices: TensorLike, dense_shape=None) -> None:
        self.values = convert(values)
        self.indices = _int_input(indices, "indices")
        self.dense_shape = None if dense_shape is None else _int_input(dense_shape,
                                                                        "dense_shape")

    @property
    def dtype(self) -> dtypes.DType:
        return self.values.dtype

    @property
    def shape(self) -> TensorShape:
        if self.dense_shape is None:
            return TensorShape(None)
        known = shape_from_tensor(self.dense_shape)
        rows = self.values.shape
        if known.rank is None or rows.rank is None:
            return known
        return known.merge_with(TensorShape([None] + rows.as_list()[1:])) \
            if known.rank == rows.rank else known

    @property
    def _type_spec(self) -> IndexedSlicesSpec:
        ds = None if self.dense_shape is None else self.dense_shape.dtype
        # As TensorFlow's: the number of slices is not part of the type.
        ishape = TensorShape([None] * self.indices.shape.rank) \
            if self.indices.shape.rank is not None else TensorShape(None)
        return IndexedSlicesSpec(self.shape, self.dtype, self.indices.dtype, ds, ishape)

    def _as_tensor(self, dtype=None) -> Tensor:
        if self.dense_shape is None:
            raise ValueError("An IndexedSlices without dense_shape cannot be made dense")
        if dtype is not None and self.dtype is not dtypes.as_dtype(dtype):
            raise ValueError(f"Tensor conversion requested dtype {dtypes.as_dtype(dtype).name} "
                             f"for IndexedSlices of dtype {self.dtype.name}")
        n = constant_value(self.dense_shape)
        nrows = convert(int(np.asarray(n)[0]), dtype=self.dense_shape.dtype) if n is not None \
            else self.dense_shape[0]
        return bind(get_op("UnsortedSegmentSum"), [self.values, self.indices, nrows])

    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        dense = self._as_tensor()
        arr = np.asarray(dense._value if isinstance(dense, EagerTensor) else dense)
        return arr if dtype is None else arr.astype(dtype)

    def __neg__(self) -> IndexedSlices:
        return IndexedSlices(-self.values, self.indices, self.dense_shape)

    def __repr__(self) -> str:
        return (f"IndexedSlices(indices={self.indices!s}, values={self.values!s}, "
                f"dense_shape={self.dense_shape!s})")

