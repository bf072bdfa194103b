"""``tw.sparse.SparseTensor`` and its ``SparseTensorSpec``.

A SparseTensor is three dense tensors: ``indices`` (int64 ``[N, rank]``), ``values`` (``[N]``)
and ``dense_shape`` (int64 ``[rank]``). It is a ``CompositeTensor``: ``tw.function`` arguments and
results, ``tw.nest(expand_composites=True)`` and control flow carry it as those three tensors.
"""
from __future__ import annotations

import numpy as np

from ...core import dtypes
from ...core.props import readonly
from ...core.shapes import TensorShape
from ...eager.func_graph import TensorSpec
from ...eager.tensor import EagerTensor
from ...framework.type_spec import BatchableTypeSpec, CompositeTensor, shape_repr
from ...graph.tensor import Tensor, TensorLike
from ..core import convert, shape_from_tensor
from ..dispatch import CompositeArgument
from ..math_ops import cast


def dense_required(value, op: str = "this operation") -> CompositeArgument:
    """The error for a composite value passed where a dense tensor is required."""
    kind = type(value).__name__
    how = {"SparseTensor": "tw.sparse.to_dense(x)",
           "RaggedTensor": "x.to_tensor()"}.get(kind, "tw.convert_to_tensor(x)")
    return CompositeArgument(
        f"{op} needs a dense tensor but got a {kind}; convert it first with {how} (or use "
        f"the tw.{'sparse' if kind == 'SparseTensor' else 'ragged'} version of the operation)",
        value)


class ShapedComposite(CompositeTensor):
    """What RaggedTensor and SparseTensor share: a static ``shape`` (``_static_shape``) and
    conversions to a dense tensor, NumPy array or bool that are refused, saying how to convert.
    """

    __slots__ = ()

    shape = readonly("_static_shape", "The static shape (unknown dimensions are None).")

    def get_shape(self) -> TensorShape:
        """The static shape (unknown dimensions are None).

        Returns:
            A TensorShape.
        """
        return self._static_shape

    def _as_tensor(self, dtype=None) -> Tensor:
        raise dense_required(self, "Converting to a tensor")

    def __array__(self, dtype=None, copy=None):
        raise dense_required(self, "Converting to a NumPy array")

    def __bool__(self) -> bool:
        raise dense_required(self, f"Using a {type(self).__name__} as a Python bool")


class ValueSpec(BatchableTypeSpec):
    """A spec whose values know it (``value._type_spec``): SparseTensorSpec, RaggedTensorSpec."""

    __slots__ = ()

    @classmethod
    def from_value(cls, value) -> ValueSpec:
        """The spec of a value.

        Args:
            value: a SparseTensor (for SparseTensorSpec) or RaggedTensor (RaggedTensorSpec).

        Returns:
            Its spec.
        """
        return value._type_spec


class SparseTensorSpec(ValueSpec):
    """The type of a SparseTensor: its (static) dense shape and dtype.

    Args:
        shape: the dense shape (dims may be None).
        dtype: the values' dtype.
    """

    __slots__ = ("_shape", "_dtype")

    def __init__(self, shape=None, dtype=dtypes.float32) -> None:
        self._shape = shape if isinstance(shape, TensorShape) else TensorShape(shape)
        self._dtype = dtypes.as_dtype(dtype)

    shape = readonly("_shape", "The dense shape (dims may be None).")
    dtype = readonly("_dtype", "The values' dtype.")

    @property
    def value_type(self) -> type:
        return SparseTensor

    def _serialize(self) -> tuple:
        return (self._shape, self._dtype)

    @property
    def _component_specs(self) -> list:
        rank = self._shape.rank
        return [TensorSpec([None, rank], dtypes.int64), TensorSpec([None], self._dtype),
                TensorSpec([rank], dtypes.int64)]

    def _to_components(self, value) -> list:
        return [value.indices, value.values, value.dense_shape]

    def _from_components(self, components) -> SparseTensor:
        indices, values, dense_shape = components
        return SparseTensor(indices, values, dense_shape, _shape=self._shape)

    # ----- batching, for tw.data (values with eager components, as NumPy) -----
    def _batch(self, batch_size) -> SparseTensorSpec:
        """The spec of a batch of values of this spec: one more outer dimension."""
        return SparseTensorSpec(TensorShape([batch_size]).concatenate(self._shape), self._dtype)

    def _unbatch(self) -> SparseTensorSpec:
        """The spec of one row of a value of this spec."""
        return SparseTensorSpec(self._shape[1:], self._dtype)

    def _tw_unstack(self, value) -> list:
        """The rows of an eager value of this spec, as SparseTensors."""
        ind, vals = np.asarray(value.indices), np.asarray(value.values)
        shape = np.asarray(value.dense_shape)
        rows = []
        for i in range(int(shape[0])):
            keep = ind[:, 0] == i
            rows.append(SparseTensor(ind[keep, 1:], vals[keep], shape[1:],
                                     _shape=self._shape[1:]))
        return rows

    def _tw_stack(self, values: list) -> SparseTensor:
        """One eager value of ``self._batch(len(values))``: the rows' dense shape is the
        largest of theirs (as TensorFlow's batch of SparseTensors)."""
        shapes = np.stack([np.asarray(v.dense_shape, np.int64) for v in values])
        ind = [np.asarray(v.indices, np.int64) for v in values]
        ind = np.concatenate([np.concatenate([np.full((len(x), 1), b, np.int64), x], 1)
                              for b, x in enumerate(ind)])
        vals = np.concatenate([np.asarray(v.values) for v in values])
        dense = np.concatenate([[len(values)], shapes.max(axis=0)]).astype(np.int64)
        return SparseTensor(ind, vals, dense)

    def __repr__(self) -> str:
        return f"SparseTensorSpec({shape_repr(self._shape)}, {self._dtype!r})"


class SparseTensor(ShapedComposite):
    """A tensor stored as the coordinates and values of its non-default entries.

    Args:
        indices: int64 ``[N, rank]``: the coordinates of the entries.
        values: ``[N]``: their values.
        dense_shape: int64 ``[rank]``: the shape of the dense tensor.
    """

    __slots__ = ("indices", "values", "dense_shape", "_static_shape")

    def __init__(self, indices: TensorLike, values: TensorLike, dense_shape: TensorLike,
                 _shape: TensorShape | None = None) -> None:
        ind = convert(indices, dtype_hint=dtypes.int64)
        if ind.dtype is not dtypes.int64:
            ind = _cast_int64(ind)
        shp = convert(dense_shape, dtype_hint=dtypes.int64)
        if shp.dtype is not dtypes.int64:
            shp = _cast_int64(shp)
        vals = convert(values)
        if ind.shape.rank not in (None, 2):
            raise ValueError(f"SparseTensor indices must be a matrix [N, rank], got shape "
                             f"{ind.shape}")
        if vals.shape.rank not in (None, 1):
            raise ValueError(f"SparseTensor values must be a vector [N], got shape {vals.shape}")
        if shp.shape.rank not in (None, 1):
            raise ValueError(f"SparseTensor dense_shape must be a vector, got shape {shp.shape}")
        n_i, n_v = ind.shape.as_tuple()[:1] if ind.shape.rank else (None,), vals.shape.as_tuple()
        if n_i and n_v and n_i[0] is not None and n_v[0] is not None and n_i[0] != n_v[0]:
            raise ValueError(f"SparseTensor has {n_i[0]} indices but {n_v[0]} values")
        self.indices, self.values, self.dense_shape = ind, vals, shp
        static = shape_from_tensor(shp) if shp.shape.rank == 1 else TensorShape(None)
        if static.rank is None and shp.shape.rank == 1 and shp.shape[0] is not None:
            static = TensorShape([None] * shp.shape[0])
        if _shape is not None:
            static = static.merge_with(_shape) if static.rank is not None else _shape
        self._static_shape = static

    # ----- TensorFlow's attributes -----
    @property
    def dtype(self) -> dtypes.DType:
        return self.values.dtype

    @property
    def _type_spec(self) -> SparseTensorSpec:
        return SparseTensorSpec(self._static_shape, self.dtype)

    @classmethod
    def from_value(cls, value) -> SparseTensor:
        """``value`` if it is a SparseTensor.

        Args:
            value: a SparseTensor.

        Returns:
            The SparseTensor.
        """
        if isinstance(value, SparseTensor):
            return value
        raise TypeError(f"Expected a SparseTensor, got {value!r}")

    def with_values(self, new_values: TensorLike) -> SparseTensor:
        """The same indices and dense shape with other values.

        Args:
            new_values: ``[N]`` new values.

        Returns:
            A SparseTensor.
        """
        return SparseTensor(self.indices, new_values, self.dense_shape, _shape=self.shape)

    def __repr__(self) -> str:
        return (f"SparseTensor(indices={_str(self.indices)}, values={_str(self.values)}, "
                f"dense_shape={_str(self.dense_shape)})")

    __str__ = __repr__

    def consumers(self) -> list:
        """Accepted for compatibility: the ops consuming the components (none tracked).

        Returns:
            An empty list.
        """
        return []


def _str(t) -> str:
    return str(t) if isinstance(t, EagerTensor) else repr(t)


def _cast_int64(t: Tensor) -> Tensor:
    if not t.dtype.is_integer:
        raise TypeError(f"SparseTensor indices and dense_shape must be integers, got "
                        f"{t.dtype.name}")
    return cast(t, dtypes.int64)


def is_sparse(x) -> bool:
    """True for a SparseTensor (``tw.sparse`` arguments may also be dense)."""
    return isinstance(x, SparseTensor)


def sparse_from_numpy(indices, values, dense_shape) -> SparseTensor:
    """A SparseTensor from NumPy-like parts (for tests and the Python reference code)."""
    return SparseTensor(np.asarray(indices, np.int64).reshape(-1, len(dense_shape)),
                        np.asarray(values), np.asarray(dense_shape, np.int64))
