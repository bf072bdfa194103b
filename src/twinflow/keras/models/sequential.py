"""``Sequential``: a linear stack of layers, and ``clone_model``."""
from __future__ import annotations

from typing import Any

from ...core import nest
from ...core.shapes import TensorShape
from ...graph.tensor import Tensor
from ...train import checkpoint as _ckpt
from .. import saving as _saving
from ..layers.base import Layer, _call_accepts
from ..layers.input_layer import InputLayer
from ..layers.keras_tensor import KerasTensor, symbolic_call
from .model import Model


class Sequential(Model):
    """A linear stack of layers (``tw.keras.Sequential``).

    Args:
        layers: the layers, in order.
        name: the model name.
    """

    _tw_sequential = True

    def __init__(self, layers=None, name: str | None = None) -> None:
        super().__init__(name=name)
        self._tw_input_batch_shape = None
        self._tw_input_dtype = None
        for layer in layers or []:
            self.add(layer)

    def add(self, layer) -> None:
        """Appends a layer (an ``Input``/``InputLayer`` sets the input shape instead).

        Args:
            layer: a Layer, InputLayer or KerasTensor from ``Input``.
        """
        if isinstance(layer, KerasTensor):
            layer = layer._layer
        if isinstance(layer, InputLayer):
            self._tw_input_batch_shape = tuple(layer._tw_batch_input_shape)
            self._tw_input_dtype = layer._tw_dtype
            self._tw_build_now()
            return
        if not isinstance(layer, Layer) and not isinstance(layer, Model):
            raise TypeError(f"The added layer must be an instance of class Layer. Received: "
                            f"layer={layer} of type {type(layer)}.")
        if any(layer is x for x in self._tw_layer_list):
            raise ValueError(f"Layer {layer.name!r} is already in the model")
        self._tw_layer_list.append(layer)
        if len(self._tw_layer_list) == 1 and self._tw_input_batch_shape is None and \
                layer._tw_batch_input_shape is not None:
            self._tw_input_batch_shape = tuple(layer._tw_batch_input_shape)
        self._tw_train_fn = self._tw_test_fn = self._tw_predict_fn = None
        self._tw_build_now()

    def pop(self) -> Layer:
        """Removes and returns the last layer.

        Returns:
            The removed layer.
        """
        if not self._tw_layer_list:
            raise TypeError("There are no layers in the model.")
        layer = self._tw_layer_list.pop()
        self._tw_train_fn = self._tw_test_fn = self._tw_predict_fn = None
        return layer

    def _tw_build_now(self) -> None:
        if self._tw_input_batch_shape is not None and self._tw_layer_list:
            self.build(self._tw_input_batch_shape)

    @property
    def layers(self) -> list:
        return list(self._tw_layer_list)

    def _maybe_build(self, inputs) -> None:
        shapes = nest.map_structure(lambda t: getattr(t, "shape", None), inputs)
        shape = shapes if isinstance(shapes, TensorShape) else None
        if shape is not None and shape.rank is not None:
            # Keep the batch dimension free so any batch size runs.
            self.build((None,) + tuple(shape.as_list()[1:]))
        else:
            self.built = True
        _ckpt.apply_deferred(self)

    def build(self, input_shape=None) -> None:
        """Builds every layer for inputs of ``input_shape`` (batch dimension included).

        Args:
            input_shape: the input shape; by default the first layer's ``input_shape``.
        """
        shape = input_shape if input_shape is not None else self._tw_input_batch_shape
        if shape is None:
            raise ValueError("You must provide an `input_shape` argument.")
        if self._tw_input_batch_shape is None:
            self._tw_input_batch_shape = tuple(TensorShape(shape).as_list())
        x = KerasTensor(TensorShape(shape), self._tw_input_dtype or "float32")
        self._tw_input_shape = tuple(TensorShape(shape).as_list())
        for layer in self._tw_layer_list:
            spec = symbolic_call(layer.__call__, (x,), {})
            out_shape, dt = spec
            x = KerasTensor(out_shape, dt)
        self._tw_output_shape = tuple(x.shape.as_list())
        self.built = True

    def call(self, inputs, training=None, mask=None) -> Any:
        x = inputs
        if self._tw_input_batch_shape is not None and isinstance(x, Tensor):
            spec = KerasTensor(TensorShape(self._tw_input_batch_shape), name="input")
            x = self._check_input(x, spec)
        for layer in self._tw_layer_list:
            if training is not None and _call_accepts(type(layer), "training"):
                x = layer(x, training=training)
            else:
                x = layer(x)
        return x

    def get_config(self) -> dict:
        """The model's name, its layers' configs and the input shape it was built for.

        Returns:
            A dict.
        """
        cfg = {"name": self.name, "layers": [_saving.serialize_layer(x)
                                             for x in self._tw_layer_list]}
        if self._tw_input_batch_shape is not None:
            cfg["build_input_shape"] = list(self._tw_input_batch_shape)
        if self._tw_input_dtype is not None:
            cfg["input_dtype"] = str(getattr(self._tw_input_dtype, "name", self._tw_input_dtype))
        return cfg

    @classmethod
    def _from_config(cls, config: dict) -> Sequential:
        """The layers added in turn; a model saved built comes back built."""
        model = cls(name=config.get("name"))
        if config.get("input_dtype"):
            model._tw_input_dtype = config["input_dtype"]
        for entry in config.get("layers", []):
            model.add(_saving.deserialize_layer(entry))
        if config.get("build_input_shape") is not None:
            model.build(tuple(config["build_input_shape"]))
        return model



def clone_model(model: Model, input_tensors=None, clone_function=None) -> Model:
    """A new model with the same architecture and fresh weights (Sequential models).

    Args:
        model: a Sequential model.
        input_tensors: unsupported.
        clone_function: maps each layer to its clone (default: from its config).

    Returns:
        The clone.
    """
    if not isinstance(model, Sequential):
        raise NotImplementedError("clone_model supports Sequential models")
    fn = clone_function or (lambda layer: type(layer).from_config(
        {k: v for k, v in layer.get_config().items() if k != "name"}))
    clone = Sequential([fn(layer) for layer in model.layers])
    if model._tw_input_batch_shape is not None:
        clone.build(model._tw_input_batch_shape)
    return clone
