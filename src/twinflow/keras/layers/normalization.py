"""BatchNormalization: batch statistics while training, moving averages at inference."""
from __future__ import annotations

import numpy as np

from ...core import dtypes
from ...core.shapes import TensorShape
from ...graph.tensor import Tensor
from ...ops import array_ops, math_ops, nn_ops
from ...ops.variables import VariableAggregation, autocast_variables
from .. import initializers as _initializers
from .. import regularizers as _regularizers
from ..declare import with_args
from .base import Layer


def _axes(layer: Layer, rank: int, dims: list) -> list:
    """``layer.axis`` as non-negative axes, checked against the input rank."""
    axes = [layer.axis] if isinstance(layer.axis, int) else list(layer.axis)
    for a in axes:
        if isinstance(a, bool) or not isinstance(a, (int, np.integer)) or not -rank <= a < rank:
            raise ValueError(f"{type(layer).__name__}: invalid axis {a!r} for inputs of rank "
                             f"{rank} (shape {tuple(dims)}).")
    return [int(a) % rank for a in axes]

def _add_affine_weights(layer: Layer, shape: tuple) -> None:
    """The scale ``gamma`` (when ``layer.scale``) and offset ``beta`` (when ``layer.center``)
    of a normalization layer, from its gamma_*/beta_* arguments."""
    layer.gamma = layer._add_weight_for("gamma", "gamma", shape) if layer.scale else None
    layer.beta = layer._add_weight_for("beta", "beta", shape) if layer.center else None


# The normalization layers' shared arguments (``with_args`` orders them as each takes them).
_AFFINE_ARGS = {
    "epsilon": "added to the variance.",
    "center": "learn an offset ``beta``.",
    "scale": "learn a scale ``gamma``.",
    "beta_initializer": "initializer of beta.",
    "gamma_initializer": "initializer of gamma.",
    "beta_regularizer": "a penalty on beta.",
    "gamma_regularizer": "a penalty on gamma.",
    "beta_constraint": "stored on beta.",
    "gamma_constraint": "stored on gamma.",
    "**kwargs": "Layer arguments.",
}


@with_args(_AFFINE_ARGS, axis="the feature axis (or axes).",
           momentum="the moving-average momentum.",
           moving_mean_initializer="initializer of the moving mean.",
           moving_variance_initializer="initializer of the moving variance.",
           synchronized="must be False (one device).")
class BatchNormalization(Layer):
    """Normalizes each feature of ``axis`` to zero mean and unit variance.

    While training it uses the batch's statistics and updates ``moving_mean`` and
    ``moving_variance`` (``moving = moving * momentum + batch * (1 - momentum)``); at inference
    it uses the moving averages."""

    def __init__(self, axis: int = -1, momentum: float = 0.99, epsilon: float = 1e-3,
                 center: bool = True, scale: bool = True, beta_initializer="zeros",
                 gamma_initializer="ones", moving_mean_initializer="zeros",
                 moving_variance_initializer="ones", beta_regularizer=None, gamma_regularizer=None,
                 beta_constraint=None, gamma_constraint=None, synchronized: bool = False,
                 **kwargs) -> None:
        super().__init__(**kwargs)
        if synchronized:
            raise NotImplementedError("BatchNormalization(synchronized=True) needs several "
                                      "devices; twinflow runs on one")
        self.supports_masking = True
        self.axis = axis
        self.momentum = float(momentum)
        self.beta_regularizer = _regularizers.get(beta_regularizer)
        self.gamma_regularizer = _regularizers.get(gamma_regularizer)
        self.beta_constraint = beta_constraint
        self.gamma_constraint = gamma_constraint
        self.epsilon = float(epsilon)
        self.center = center
        self.scale = scale
        self.beta_initializer = _initializers.get(beta_initializer)
        self.gamma_initializer = _initializers.get(gamma_initializer)
        self.moving_mean_initializer = _initializers.get(moving_mean_initializer)
        self.moving_variance_initializer = _initializers.get(moving_variance_initializer)

    def build(self, input_shape) -> None:
        dims = TensorShape(input_shape).as_list()
        rank = len(dims)
        axes = _axes(self, rank, dims)
        for a in axes:
            if dims[a] is None:
                raise ValueError(f"BatchNormalization: axis {a} of input shape {input_shape} "
                                 "must be known")
        self._tw_axes = axes
        self._tw_reduce = [i for i in range(rank) if i not in axes]
        param_shape = tuple(dims[a] for a in axes)
        # Parameters broadcast against inputs of the full rank.
        self._tw_bshape = [dims[i] if i in axes else 1 for i in range(rank)]
        _add_affine_weights(self, param_shape)
        # Under a strategy, replicas' updates are averaged into every copy (VariableAggregation).
        self.moving_mean = self.add_weight("moving_mean", param_shape, trainable=False,
                                           initializer=self.moving_mean_initializer,
                                           aggregation=VariableAggregation.MEAN)
        self.moving_variance = self.add_weight("moving_variance", param_shape, trainable=False,
                                               initializer=self.moving_variance_initializer,
                                               aggregation=VariableAggregation.MEAN)
        self.built = True

    def _b(self, t):
        if t is None:
            return None
        if len(self._tw_axes) == 1 and self._tw_axes[0] == len(self._tw_bshape) - 1:
            return t
        return array_ops.reshape(t, self._tw_bshape)

    def call(self, inputs, training: bool | None = None) -> Tensor:
        if inputs.dtype is dtypes.float16 or inputs.dtype is dtypes.bfloat16:
            # As Keras: half-precision inputs are normalized in float32 (float32 statistics
            # and parameters, read without the mixed-precision cast), the result cast back.
            with autocast_variables(None):
                out = self._normalize(math_ops.cast(inputs, dtypes.float32), training)
            return math_ops.cast(out, inputs.dtype)
        return self._normalize(inputs, training)

    def _normalize(self, inputs, training) -> Tensor:
        if training:
            mean, var = nn_ops.moments(inputs, self._tw_reduce)
            m = self.momentum
            self.moving_mean.assign(self.moving_mean * m + mean * (1.0 - m))
            self.moving_variance.assign(self.moving_variance * m + var * (1.0 - m))
        else:
            mean, var = self.moving_mean.read_value(), self.moving_variance.read_value()
        return nn_ops.batch_normalization(inputs, self._b(mean), self._b(var), self._b(self.beta),
                                          self._b(self.gamma), self.epsilon)

    def get_config(self) -> dict:
        cfg = super().get_config()
        cfg.update(axis=self.axis, momentum=self.momentum, epsilon=self.epsilon,
                   center=self.center, scale=self.scale,
                   beta_initializer=_initializers.serialize(self.beta_initializer),
                   gamma_initializer=_initializers.serialize(self.gamma_initializer),
                   moving_mean_initializer=_initializers.serialize(
                       self.moving_mean_initializer),
                   moving_variance_initializer=_initializers.serialize(
                       self.moving_variance_initializer))
        return cfg


class _Affine(Layer):
    """The normalization ``axis`` and ``epsilon`` and the learned scale ``gamma`` and offset
    ``beta`` of LayerNormalization and GroupNormalization: their arguments, weights and
    config."""

    def __init__(self, axis: int = -1, epsilon: float = 1e-3, center: bool = True,
                 scale: bool = True, beta_initializer="zeros", gamma_initializer="ones",
                 beta_regularizer=None, gamma_regularizer=None, beta_constraint=None,
                 gamma_constraint=None, **kwargs) -> None:
        super().__init__(**kwargs)
        self.supports_masking = True
        self.axis = axis
        self.epsilon = float(epsilon)
        self.center = center
        self.scale = scale
        self._set_weight_args("beta", beta_initializer, beta_regularizer, beta_constraint)
        self._set_weight_args("gamma", gamma_initializer, gamma_regularizer, gamma_constraint)

    def get_config(self) -> dict:
        cfg = super().get_config()
        cfg.update(axis=self.axis, epsilon=self.epsilon, center=self.center, scale=self.scale,
                   beta_initializer=_initializers.serialize(self.beta_initializer),
                   gamma_initializer=_initializers.serialize(self.gamma_initializer),
                   beta_regularizer=_regularizers.serialize(self.beta_regularizer),
                   gamma_regularizer=_regularizers.serialize(self.gamma_regularizer))
        return cfg

    def _affine_weights(self, shape: tuple) -> None:
        _add_affine_weights(self, shape)


@with_args(_AFFINE_ARGS, axis="the normalized axis or axes.")
class LayerNormalization(_Affine):
    """Normalizes each sample over ``axis`` (the features), then scales and shifts."""

    def build(self, input_shape) -> None:
        dims = TensorShape(input_shape).as_list()
        rank = len(dims)
        self._tw_axes = sorted(_axes(self, rank, dims))
        shape = tuple(dims[a] for a in self._tw_axes)
        self._tw_bshape = [dims[i] if i in self._tw_axes else 1 for i in range(rank)]
        self._affine_weights(shape)
        self.built = True

    def _b(self, t):
        if t is None or self._tw_axes == [len(self._tw_bshape) - 1]:
            return t
        return array_ops.reshape(t, self._tw_bshape)

    def call(self, inputs) -> Tensor:
        mean, var = nn_ops.moments(inputs, self._tw_axes, keepdims=True)
        return nn_ops.batch_normalization(inputs, mean, var, self._b(self.beta),
                                          self._b(self.gamma), self.epsilon)



@with_args(_AFFINE_ARGS, groups="the number of groups (must divide the channels).",
           axis="the channel axis.")
class GroupNormalization(_Affine):
    """Normalizes each sample over groups of channels (and all other non-batch axes), then
    scales and shifts each channel. ``groups=1`` is layer normalization over everything;
    ``groups=channels`` is instance normalization."""

    def __init__(self, groups: int = 32, axis: int = -1, epsilon: float = 1e-3,
                 center: bool = True, scale: bool = True, beta_initializer="zeros",
                 gamma_initializer="ones", beta_regularizer=None, gamma_regularizer=None,
                 beta_constraint=None, gamma_constraint=None, **kwargs) -> None:
        if isinstance(groups, bool) or not isinstance(groups, int) or groups <= 0:
            raise ValueError(f"GroupNormalization: `groups` must be a positive integer; got "
                             f"{groups!r}")
        super().__init__(axis, epsilon, center, scale, beta_initializer, gamma_initializer,
                         beta_regularizer, gamma_regularizer, beta_constraint, gamma_constraint,
                         **kwargs)
        self.groups = groups

    def build(self, input_shape) -> None:
        dims = TensorShape(input_shape).as_list()
        (axis,) = _axes(self, len(dims), dims)
        channels = dims[axis]
        if channels is None:
            raise ValueError(f"Axis {self.axis} of input tensor should have a defined "
                             f"dimension but the layer received an input with shape "
                             f"{input_shape}.")
        if channels < self.groups:
            raise ValueError(f"Number of groups ({self.groups}) cannot be more than the number "
                             f"of channels ({channels}).")
        if channels % self.groups:
            raise ValueError(f"Number of groups ({self.groups}) must be a multiple of the "
                             f"number of channels ({channels}).")
        self._tw_axis = axis
        self._affine_weights((channels,))
        self.built = True

    def call(self, inputs) -> Tensor:
        rank = inputs.shape.rank
        axis = self._tw_axis
        shape = array_ops.shape(inputs)
        c = inputs.shape.as_list()[axis]
        # (..., C, ...) -> (..., G, C/G, ...): statistics over everything but batch and group.
        split = array_ops.concat([shape[:axis], [self.groups, c // self.groups],
                                  shape[axis + 1:]], axis=0)
        x = array_ops.reshape(inputs, split)
        reduce_axes = [i for i in range(1, rank + 1) if i != axis]
        mean, var = nn_ops.moments(x, reduce_axes, keepdims=True)
        x = (x - mean) * math_ops.rsqrt(var + self.epsilon)
        x = array_ops.reshape(x, shape)
        bshape = [1] * rank
        bshape[axis] = c
        if self.gamma is not None:
            x = x * array_ops.reshape(self.gamma, bshape)
        if self.beta is not None:
            x = x + array_ops.reshape(self.beta, bshape)
        return x

    def get_config(self) -> dict:
        return {**super().get_config(), "groups": self.groups}


class UnitNormalization(Layer):
    """Scales each sample to unit L2 norm over ``axis``.

    Args:
        axis: the axis or axes.
        **kwargs: Layer arguments.
    """

    def __init__(self, axis=-1, **kwargs) -> None:
        super().__init__(**kwargs)
        self.supports_masking = True
        self.axis = list(axis) if isinstance(axis, (list, tuple)) else axis

    def call(self, inputs) -> Tensor:
        return nn_ops.l2_normalize(inputs, axis=self.axis, epsilon=1e-12)

    _config_keys = ("axis",)


class RMSNormalization(Layer):
    """Root-mean-square normalization: ``x / sqrt(mean(x**2, axis) + epsilon) * scale``
    (Keras 3; a learned ``scale`` over ``axis``, no centering).

    Args:
        axis: the axis or axes normalized over.
        epsilon: added to the mean square.
        **kwargs: Layer arguments.
    """

    def __init__(self, axis=-1, epsilon: float = 1e-6, **kwargs) -> None:
        super().__init__(**kwargs)
        self.axis = list(axis) if isinstance(axis, (list, tuple)) else axis
        self.epsilon = float(epsilon)
        self.supports_masking = True

    def build(self, input_shape) -> None:
        dims = TensorShape(input_shape).as_list()
        axes = self.axis if isinstance(self.axis, list) else [self.axis]
        axes = sorted(a % len(dims) for a in axes)
        self._tw_axes = axes
        self._tw_bshape = [dims[i] if i in axes else 1 for i in range(len(dims))]
        self.scale = self.add_weight("scale", tuple(dims[a] for a in axes), initializer="ones")
        self.built = True

    def call(self, inputs) -> Tensor:
        ms = nn_ops.reduce_mean(math_ops.square(inputs), axis=self._tw_axes, keepdims=True)
        scale = self.scale if self._tw_axes == [len(self._tw_bshape) - 1] else \
            array_ops.reshape(self.scale, self._tw_bshape)
        return inputs * math_ops.rsqrt(ms + self.epsilon) * scale

    _config_keys = ("axis", "epsilon")
