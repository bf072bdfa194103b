"""``Wrapper`` (the base of layers that wrap one layer), ``SpectralNormalization`` and
``Pipeline`` (layers applied in turn)."""
from __future__ import annotations

from typing import Any

from ....graph.tensor import Tensor
from ....ops import array_ops, linalg_ops, math_ops, reduction_ops
from ..base import Layer, _call_accepts
from .cells import _HoldsLayers, _placeholder_like


class Wrapper(_HoldsLayers):
    """A layer that wraps another (Keras' base class of TimeDistributed-like layers): by
    default it calls the wrapped layer; subclasses change ``call``.

    Args:
        layer: the wrapped layer.
        **kwargs: Layer arguments.
    """

    _config_layer_keys = ("layer",)

    def __init__(self, layer, **kwargs) -> None:
        if not isinstance(layer, Layer):
            raise ValueError(f"{type(self).__name__} needs a keras Layer to wrap, got "
                             f"{layer!r}")
        super().__init__(**kwargs)
        self.layer = layer

    def build(self, input_shape=None) -> None:
        if not self.layer.built:
            self.layer._maybe_build(_placeholder_like(input_shape))
        self.built = True

    def call(self, inputs, training=None) -> Any:
        kw = {"training": training} if training is not None and \
            _call_accepts(type(self.layer), "training") else {}
        return self.layer(inputs, **kw)


class SpectralNormalization(Wrapper):
    """Divides the wrapped layer's ``kernel`` (or ``embeddings``) by its largest singular
    value, estimated by power iteration, while training (Miyato et al., 2018; Keras 3's
    layer: the normalized kernel is assigned to the variable, and ``vector_u`` persists
    between steps).

    Args:
        layer: a layer with a ``kernel`` or ``embeddings`` weight.
        power_iterations: power-iteration steps per call.
        **kwargs: Layer arguments.
    """

    def __init__(self, layer, power_iterations: int = 1, **kwargs) -> None:
        super().__init__(layer, **kwargs)
        if isinstance(power_iterations, bool) or int(power_iterations) < 1:
            raise ValueError(f"`power_iterations` should be greater than zero. Received: "
                             f"power_iterations={power_iterations}")
        self.power_iterations = int(power_iterations)

    def build(self, input_shape=None) -> None:
        super().build(input_shape)
        kernel = getattr(self.layer, "kernel", None)
        if kernel is None:
            kernel = getattr(self.layer, "embeddings", None)
        if kernel is None:
            raise ValueError(f"{type(self.layer).__name__} object has no attribute 'kernel' "
                             "nor 'embeddings'")
        self._tw_kernel = kernel
        self.vector_u = self.add_weight("vector_u", (1, kernel.shape.as_list()[-1]),
                                        initializer="truncated_normal", trainable=False)
        self.built = True

    def normalized_weights(self) -> tuple:
        """The updated ``vector_u`` and the kernel divided by its spectral norm.

        Returns:
            ``(vector_u, kernel)``.
        """
        kernel = self._tw_kernel.read_value()
        shape = array_ops.shape(kernel)
        w = array_ops.reshape(kernel, [-1, kernel.shape.as_list()[-1]])
        u = self.vector_u.read_value()
        for _ in range(self.power_iterations):
            v = _unit(linalg_ops.matmul(u, array_ops.transpose(w)))
            u = _unit(linalg_ops.matmul(v, w))
        u, v = array_ops.stop_gradient(u), array_ops.stop_gradient(v)
        sigma = linalg_ops.matmul(linalg_ops.matmul(v, w), array_ops.transpose(u))
        return u, array_ops.reshape(kernel / sigma, shape)

    def call(self, inputs, training=False) -> Tensor:
        if training:
            u, kernel = self.normalized_weights()
            zero = reduction_ops.reduce_all(math_ops.equal(self._tw_kernel.read_value(), 0.0))
            self.vector_u.assign(math_ops.where(zero, self.vector_u.read_value(), u))
            self._tw_kernel.assign(math_ops.where(zero, self._tw_kernel.read_value(), kernel))
        return math_ops.cast(self.layer(inputs), inputs.dtype)

    _config_keys = ("power_iterations",)


def _unit(x: Tensor) -> Tensor:
    return x * math_ops.rsqrt(math_ops.maximum(reduction_ops.reduce_sum(x * x), 1e-12))


class Pipeline(_HoldsLayers):
    """Applies ``layers`` in turn (Keras 3's container for preprocessing steps).

    Args:
        layers: the layers.
        **kwargs: Layer arguments.
    """

    _config_layer_keys = ("layers",)

    def __init__(self, layers, **kwargs) -> None:
        super().__init__(**kwargs)
        self._pipeline_layers = list(layers)
        if not all(isinstance(la, Layer) for la in self._pipeline_layers):
            raise ValueError("Pipeline needs a list of keras Layers")

    @property
    def layers(self) -> list:
        """The layers, in order."""
        return list(self._pipeline_layers)

    def call(self, inputs, training=None) -> Any:
        x = inputs
        for layer in self._pipeline_layers:
            kw = {"training": training} if training is not None and \
                _call_accepts(type(layer), "training") else {}
            x = layer(x, **kw)
        return x
