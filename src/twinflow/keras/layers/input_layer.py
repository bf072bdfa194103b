"""``Input`` and ``InputLayer``: the entry points of functional models."""
from __future__ import annotations

from ...core import dtypes
from ...core.props import readonly
from ...core.shapes import TensorShape
from ...ops.ragged.tensor import RaggedTensorSpec
from ...ops.sparse.tensor import SparseTensorSpec
from ..declare import settable
from .base import Layer, unique_layer_name
from .keras_tensor import KerasTensor


class InputLayer(Layer):
    """The layer behind ``Input``: it has no weights and passes its input through.

    Args:
        input_shape: the shape of one sample.
        batch_size: the batch dimension (None: any).
        dtype: the input dtype.
        name: the layer name.
        batch_input_shape: the full shape, instead of ``input_shape`` and ``batch_size``.
        shape: alias of ``input_shape`` (Keras 3).
    """

    def __init__(self, input_shape=None, batch_size=None, dtype=None,
                 input_tensor=None, sparse=None, name: str | None = None,
                 ragged=None, batch_input_shape=None, shape=None, batch_shape=None,
                 **kwargs) -> None:
        if input_tensor is not None:
            raise NotImplementedError("InputLayer(input_tensor=...) is not supported by "
                                      "twinflow; pass shape and dtype")
        if shape is not None and input_shape is None:
            input_shape = shape
        if batch_shape is not None:
            batch_input_shape = batch_shape
        if batch_input_shape is None:
            if input_shape is None:
                raise ValueError("InputLayer needs `input_shape` (or `batch_input_shape`)")
            batch_input_shape = (batch_size,) + tuple(input_shape)
        super().__init__(name=name or unique_layer_name("input_layer"), dtype=dtype,
                         batch_input_shape=batch_input_shape)
        self.built = True
        self._tw_output_shape = tuple(batch_input_shape)
        shape = TensorShape(list(batch_input_shape))
        dt = dtypes.as_dtype(dtype or "float32")
        self.sparse, self.ragged = bool(sparse), bool(ragged)
        self._tw_keras_tensor = KerasTensor(shape, dt, layer=self, node=None, name=self.name,
                                            type_spec=_composite_spec(shape, dt, sparse, ragged))

    output = settable("_tw_keras_tensor", "The KerasTensor this layer stands for.")
    input = readonly("_tw_keras_tensor", "The KerasTensor this layer stands for (as ``output``).")

    def get_config(self) -> dict:
        return {"batch_input_shape": self._tw_batch_input_shape, "dtype": self.dtype,
                "name": self.name, "sparse": self.sparse, "ragged": self.ragged}


def _composite_spec(shape: TensorShape, dtype, sparse, ragged):
    """The spec of a sparse or ragged input: ragged up to the last unknown sample dimension
    (``shape=(None,)``: ragged_rank 1), as Keras makes it."""
    if sparse and ragged:
        raise ValueError("An Input cannot be both sparse and ragged")
    if sparse:
        return SparseTensorSpec(shape, dtype)
    if ragged:
        dims = shape.as_tuple()
        if dims is None or len(dims) < 2:
            raise ValueError(f"A ragged Input needs a shape of rank at least 1 (without the "
                             f"batch dimension); got batch shape {shape}")
        unknown = [i for i, d in enumerate(dims) if i > 0 and d is None]
        return RaggedTensorSpec(shape, dtype, ragged_rank=max(unknown, default=1))
    return None


def Input(shape=None, batch_size=None, name: str | None = None, dtype=None, sparse=None,
          tensor=None, ragged=None, type_spec=None, batch_shape=None,
          **kwargs) -> KerasTensor:
    """A symbolic input of a functional model (``tw.keras.Input``).

    Args:
        shape: the shape of one sample (without the batch dimension).
        batch_size: a fixed batch size (None: any).
        name: the input's name.
        dtype: the input's dtype (float32 by default).
        sparse: the input is a SparseTensor.
        tensor: unsupported.
        ragged: the input is a RaggedTensor (ragged up to its last unknown dimension).
        type_spec: unsupported.
        batch_shape: the full shape including the batch dimension.
        **kwargs: ``batch_input_shape`` alias.

    Returns:
        A KerasTensor.
    """
    if tensor is not None or type_spec is not None:
        raise NotImplementedError("tw.keras.Input(tensor=...) and Input(type_spec=...) are not "
                                  "supported; use shape, dtype, sparse or ragged")
    batch_shape = batch_shape or kwargs.get("batch_input_shape")
    if shape is None and batch_shape is None:
        raise ValueError("Please provide to Input a `shape` or a `batch_shape` argument.")
    layer = InputLayer(input_shape=shape, batch_size=batch_size, dtype=dtype, name=name,
                       batch_input_shape=batch_shape, sparse=sparse, ragged=ragged)
    return layer.output
