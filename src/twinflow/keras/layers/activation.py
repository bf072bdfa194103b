"""Activation layers: ReLU, LeakyReLU, PReLU, ELU, Softmax (Keras 3 arguments and masks)."""
from __future__ import annotations

from ...core import dtypes
from ...graph.tensor import Tensor
from ...ops import array_ops, math_ops, nn_ops, reduction_ops
from .. import activations as _activations
from .. import initializers as _initializers
from .. import regularizers as _regularizers
from .base import Layer


def _non_negative(layer: str, arg: str, value) -> float:
    if value is None or value < 0:
        raise ValueError(f"{arg} of a {layer} layer cannot be None or a negative value. "
                         f"Received: {arg}={value}")
    return float(value)


class ReLU(Layer):
    """``x`` above ``threshold`` (else ``negative_slope * (x - threshold)``), capped at
    ``max_value``.

    Args:
        max_value: the upper cap (None: none).
        negative_slope: the slope below the threshold.
        threshold: where the function switches.
        **kwargs: Layer arguments.
    """

    def __init__(self, max_value=None, negative_slope: float = 0.0, threshold: float = 0.0,
                 **kwargs) -> None:
        super().__init__(**kwargs)
        if max_value is not None and max_value < 0:
            raise ValueError(f"max_value of a ReLU layer cannot be a negative value. "
                             f"Received: max_value={max_value}")
        self.max_value = None if max_value is None else float(max_value)
        self.negative_slope = _non_negative("ReLU", "negative_slope", negative_slope)
        self.threshold = _non_negative("ReLU", "threshold", threshold)
        self.supports_masking = True

    def call(self, inputs) -> Tensor:
        return _activations.relu(inputs, negative_slope=self.negative_slope,
                                 max_value=self.max_value, threshold=self.threshold)

    _config_keys = ("max_value", "negative_slope", "threshold")


class ThresholdedReLU(Layer):
    """``x`` where ``x > theta``, else 0 (tf.keras 2's layer).

    Args:
        theta: the threshold (>= 0).
        **kwargs: Layer arguments.
    """

    def __init__(self, theta: float = 1.0, **kwargs) -> None:
        super().__init__(**kwargs)
        self.theta = _non_negative("ThresholdedReLU", "theta", theta)
        self.supports_masking = True

    def call(self, inputs) -> Tensor:
        return inputs * math_ops.cast(math_ops.greater(inputs, self.theta), inputs.dtype)

    _config_keys = ("theta",)


class LeakyReLU(Layer):
    """``x`` for ``x >= 0``, else ``negative_slope * x``.

    Args:
        negative_slope: the slope for negative inputs (Keras 3 default 0.3).
        **kwargs: Layer arguments (``alpha``: the tf.keras 2 name of ``negative_slope``).
    """

    def __init__(self, negative_slope: float = 0.3, **kwargs) -> None:
        if "alpha" in kwargs:
            negative_slope = kwargs.pop("alpha")
        super().__init__(**kwargs)
        self.negative_slope = _non_negative("Leaky ReLU", "negative_slope", negative_slope)
        self.supports_masking = True

    def call(self, inputs) -> Tensor:
        return nn_ops.leaky_relu(inputs, alpha=self.negative_slope)

    _config_keys = ("negative_slope",)


class PReLU(Layer):
    """Leaky ReLU with a learned slope per element: ``relu(x) - alpha * relu(-x)``.

    Args:
        alpha_initializer: initializer of the slopes (zeros).
        alpha_regularizer: a penalty on the slopes.
        alpha_constraint: stored on the slopes' variable.
        shared_axes: input axes (1-based, batch excluded) that share one slope.
        **kwargs: Layer arguments.
    """

    def __init__(self, alpha_initializer="zeros", alpha_regularizer=None, alpha_constraint=None,
                 shared_axes=None, **kwargs) -> None:
        super().__init__(**kwargs)
        self._set_weight_args("alpha", alpha_initializer, alpha_regularizer, alpha_constraint)
        if shared_axes is None:
            self.shared_axes = None
        else:
            self.shared_axes = [int(shared_axes)] if isinstance(shared_axes, int) \
                else [int(a) for a in shared_axes]
        self.supports_masking = True

    def build(self, input_shape) -> None:
        dims = list(input_shape.as_list()[1:])
        for a in self.shared_axes or []:
            if not 1 <= a <= len(dims):
                raise ValueError(f"PReLU: shared axis {a} is out of range for inputs of shape "
                                 f"{input_shape} (axes are 1-based, the batch excluded).")
            dims[a - 1] = 1
        if any(d is None for d in dims):
            raise ValueError(f"PReLU needs known input dimensions (or shared_axes for the "
                             f"unknown ones); got input shape {input_shape}.")
        self.alpha = self._add_weight_for("alpha", "alpha", tuple(dims))
        self.built = True

    def call(self, inputs) -> Tensor:
        return nn_ops.relu(inputs) - self.alpha * nn_ops.relu(-inputs)

    def get_config(self) -> dict:
        cfg = super().get_config()
        cfg.update(alpha_initializer=_initializers.serialize(self.alpha_initializer),
                   alpha_regularizer=_regularizers.serialize(self.alpha_regularizer),
                   shared_axes=self.shared_axes)
        return cfg


class ELU(Layer):
    """``x`` for ``x > 0``, else ``alpha * (exp(x) - 1)``.

    Args:
        alpha: the scale of the negative part.
        **kwargs: Layer arguments.
    """

    def __init__(self, alpha: float = 1.0, **kwargs) -> None:
        super().__init__(**kwargs)
        self.alpha = float(alpha)
        self.supports_masking = True

    def call(self, inputs) -> Tensor:
        return _activations.elu(inputs, alpha=self.alpha)

    _config_keys = ("alpha",)


class Softmax(Layer):
    """Softmax over ``axis``; masked positions (``mask`` False) get probability 0.

    Args:
        axis: the axis, or a list of axes normalized together.
        **kwargs: Layer arguments.
    """

    def __init__(self, axis=-1, **kwargs) -> None:
        super().__init__(**kwargs)
        self.axis = axis
        self.supports_masking = True

    def call(self, inputs, mask=None) -> Tensor:
        if mask is not None:
            if mask.dtype is not dtypes.bool_:
                mask = math_ops.greater(mask, math_ops.cast(0.5, mask.dtype))
            if mask.shape.rank is not None and inputs.shape.rank is not None and \
                    mask.shape.rank > inputs.shape.rank:
                raise ValueError(f"The `mask` must be broadcastable to `inputs` and must not "
                                 f"have more dimensions. Received: inputs.shape="
                                 f"{inputs.shape}, mask.shape={mask.shape}")
            big = {dtypes.float16: -65000.0, dtypes.bfloat16: -3.38e38}.get(inputs.dtype,
                                                                            -3.4e38)
            inputs = math_ops.where(mask, inputs, array_ops.fill(array_ops.shape(inputs),
                                                                 math_ops.cast(big,
                                                                               inputs.dtype)))
        if isinstance(self.axis, (list, tuple)) and len(self.axis) > 1:
            out = math_ops.exp(inputs - reduction_ops.reduce_logsumexp(
                inputs, axis=list(self.axis), keepdims=True))
        else:
            axis = self.axis[0] if isinstance(self.axis, (list, tuple)) else self.axis
            out = nn_ops.softmax(inputs, axis=axis)
        if mask is not None:
            out = math_ops.where(mask, out, array_ops.zeros_like(out))
        return out

    _config_keys = ("axis",)
