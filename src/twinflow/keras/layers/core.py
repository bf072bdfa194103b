"""Core layers: Dense, Activation, Flatten, Reshape, Dropout, Embedding, Lambda."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ...core import dtypes, nest
from ...core.shapes import TensorShape
from ...graph.tensor import ShapeLike, Tensor
from ...ops import array_ops, linalg_ops, math_ops, nn_ops, reduction_ops
from ...ops.ragged.tensor import RaggedTensor
from ...ops.sparse import math as sparse_ops
from ...ops.sparse.tensor import SparseTensor
from .. import activations as _activations
from .. import constraints as _constraints
from .. import initializers as _initializers
from .. import regularizers as _regularizers
from ..settings import image_data_format
from . import quantized as _quantized
from .base import Layer


def _static_dims(x) -> list | None:
    shape = x.shape
    return None if shape.rank is None else shape.as_list()


def fraction(name: str, value, one_allowed: bool = True) -> float:
    """``value`` as a float after checking it is in [0, 1] (or [0, 1) when not
    ``one_allowed``), with Keras' message naming the argument ``name``."""
    if not (0 <= value <= 1 if one_allowed else 0 <= value < 1):
        raise ValueError(f"Invalid value received for argument `{name}`. Expected a float value "
                         f"between 0 and 1. Received: {name}={value}")
    return float(value)


class Dense(Layer):
    """``activation(inputs @ kernel + bias)``.

    Args:
        units: the output size.
        activation: an activation name or function (None: linear).
        use_bias: whether to add a bias.
        kernel_initializer: initializer of the kernel.
        bias_initializer: initializer of the bias.
        kernel_regularizer: a penalty on the kernel (``tw.keras.regularizers.l2(1e-4)``).
        bias_regularizer: a penalty on the bias.
        activity_regularizer: a penalty on the output, added to ``losses``.
        kernel_constraint: stored on the kernel.
        bias_constraint: stored on the bias.
        **kwargs: Layer arguments (``input_shape``, ``name``...).
    """

    def __init__(self, units: int, activation=None, use_bias: bool = True,
                 kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, **kwargs) -> None:
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self.supports_masking = True
        if isinstance(units, bool) or not isinstance(units, (int, np.integer)) or units <= 0:
            raise ValueError(f"Received an invalid value for `units`, expected a positive "
                             f"integer. Received: units={units}")
        self.units = int(units)
        self.activation = _activations.get(activation)
        self.use_bias = use_bias
        self._set_weight_args("kernel", kernel_initializer, kernel_regularizer, kernel_constraint)
        self._set_weight_args("bias", bias_initializer, bias_regularizer, bias_constraint)

    def build(self, input_shape) -> None:
        last = TensorShape(input_shape).as_list()[-1] if TensorShape(input_shape).rank else None
        if last is None:
            raise ValueError("The last dimension of the inputs to a Dense layer should be "
                             f"defined. Found None. Full input shape received: {input_shape}")
        self.kernel = self._add_weight_for("kernel", "kernel", (last, self.units))
        self.bias = self._add_weight_for("bias", "bias", (self.units,)) \
            if self.use_bias else None
        self.built = True
        if self._tw_policy.quantization_mode:  # a saved quantized layer being rebuilt
            _quantized.build_quantized(self)

    def call(self, inputs) -> Tensor:
        if isinstance(inputs, RaggedTensor):  # the last dim is uniform: apply to flat values
            return inputs.with_flat_values(self.call(inputs.flat_values))
        dt = getattr(inputs, "dtype", None)
        if dt is not None and dt is not self._tw_compute_dtype:  # Dense()(int32 inputs)
            inputs = math_ops.cast(inputs, self._tw_compute_dtype)
        rank = inputs.shape.rank
        if isinstance(inputs, SparseTensor):
            if rank != 2:
                raise ValueError(f"Dense on a SparseTensor needs rank 2, got shape "
                                 f"{inputs.shape}")
            y = sparse_ops.sparse_dense_matmul(inputs, self.kernel)
        elif rank == 2:
            y = linalg_ops.matmul(inputs, self.kernel)
        else:
            y = linalg_ops.tensordot(inputs, self.kernel, [[rank - 1], [0]])
        if self.use_bias:
            y = nn_ops.bias_add(y, self.bias)
        act = self.activation
        return y if act is _activations.linear else act(y)

    quantize = _quantized.quantize_layer  # layer.quantize("int8"): keras/layers/quantized.py

    def get_config(self) -> dict:
        cfg = super().get_config()
        cfg.update(units=self.units, activation=_activations.serialize(self.activation),
                   use_bias=self.use_bias, **self._kernel_bias_config())
        return cfg


class Activation(Layer):
    """Applies an activation function.

    Args:
        activation: a name (``'relu'``) or function.
        **kwargs: Layer arguments.
    """

    def __init__(self, activation, **kwargs) -> None:
        super().__init__(**kwargs)
        self.supports_masking = True
        self.activation = _activations.get(activation)

    def call(self, inputs) -> Tensor:
        return self.activation(inputs)

    def get_config(self) -> dict:
        cfg = super().get_config()
        cfg["activation"] = _activations.serialize(self.activation)
        return cfg


class Flatten(Layer):
    """Flattens every dimension but the batch: ``(N, a, b) -> (N, a*b)``.

    Args:
        data_format: ``'channels_last'`` (``'channels_first'`` transposes first).
        **kwargs: Layer arguments.
    """

    def __init__(self, data_format: str | None = None, **kwargs) -> None:
        super().__init__(**kwargs)
        self.data_format = data_format or image_data_format()

    def call(self, inputs) -> Tensor:
        dims = _static_dims(inputs)
        if dims is not None and len(dims) == 1:
            return array_ops.reshape(inputs, [-1, 1])
        if dims is not None and all(d is not None for d in dims[1:]):
            return array_ops.reshape(inputs, [-1, int(np.prod(dims[1:]))])
        batch = array_ops.shape(inputs)[:1]
        return array_ops.reshape(inputs, array_ops.stack([batch[0], -1]))

    _config_keys = ("data_format",)


class Reshape(Layer):
    """Reshapes each sample to ``target_shape`` (the batch dimension is kept).

    Args:
        target_shape: the shape of one output sample; one entry may be -1.
        **kwargs: Layer arguments.
    """

    def __init__(self, target_shape, **kwargs) -> None:
        super().__init__(**kwargs)
        self.target_shape = tuple(int(d) for d in target_shape)

    def call(self, inputs) -> Tensor:
        target = list(self.target_shape)
        if -1 not in target:
            return array_ops.reshape(inputs, [-1] + target)
        dims = _static_dims(inputs)
        if dims is not None and dims[0] is not None:
            return array_ops.reshape(inputs, [dims[0]] + target)
        batch = array_ops.shape(inputs)[0]
        return array_ops.reshape(inputs, array_ops.stack([batch] + target))

    _config_keys = ("target_shape",)


class Dropout(Layer):
    """Zeroes a fraction ``rate`` of the inputs while training (scaling the rest up).

    Args:
        rate: the fraction dropped, in [0, 1).
        noise_shape: the shape of the keep mask (broadcast to the input).
        seed: the op seed.
        **kwargs: Layer arguments.
    """

    def __init__(self, rate: float, noise_shape: ShapeLike | None = None, seed: int | None = None,
                 **kwargs) -> None:
        super().__init__(**kwargs)
        self.supports_masking = True
        self.rate = fraction("rate", rate)
        self.noise_shape = noise_shape
        self.seed = seed

    def call(self, inputs, training: bool | None = None) -> Tensor:
        if not training or self.rate == 0:
            return array_ops.identity(inputs)
        return nn_ops.dropout(inputs, rate=self.rate, noise_shape=self._noise_shape(inputs),
                              seed=self.seed)

    def _noise_shape(self, inputs):
        """``noise_shape`` with its None entries taken from ``inputs`` (Keras: a per-sample
        mask is ``noise_shape=(None, 1, 1, 1)``)."""
        if self.noise_shape is None or all(d is not None for d in self.noise_shape):
            return self.noise_shape
        known = inputs.shape.as_list() if inputs.shape.rank is not None else None
        if known is not None and all(known[i] is not None
                                     for i, d in enumerate(self.noise_shape) if d is None):
            return [known[i] if d is None else d for i, d in enumerate(self.noise_shape)]
        dynamic = array_ops.shape(inputs)
        return array_ops.stack([dynamic[i] if d is None else d
                                for i, d in enumerate(self.noise_shape)])

    _config_keys = ("rate", "noise_shape", "seed")


class Embedding(Layer):
    """Maps integer ids to dense vectors (a trainable lookup table).

    Args:
        input_dim: the vocabulary size.
        output_dim: the vector size.
        embeddings_initializer: initializer of the table.
        embeddings_regularizer: a penalty on the table.
        activity_regularizer: a penalty on the output, added to ``losses``.
        embeddings_constraint: a projection of the table after each optimizer update.
        mask_zero: treat id 0 as padding: the output carries a mask that is False there
            (RNN and attention layers skip those steps).
        input_length: the sequence length: sets ``input_shape=(input_length,)`` (tf.keras 2).
        **kwargs: Layer arguments.
    """

    def __init__(self, input_dim: int, output_dim: int, embeddings_initializer="uniform",
                 embeddings_regularizer=None, activity_regularizer=None,
                 embeddings_constraint=None, mask_zero: bool = False, input_length=None,
                 **kwargs) -> None:
        if input_length is not None and "input_shape" not in kwargs:
            kwargs["input_shape"] = (input_length,)
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self.input_dim = int(input_dim)
        self.output_dim = int(output_dim)
        self.embeddings_initializer = _initializers.get(
            "random_uniform" if embeddings_initializer == "uniform" else embeddings_initializer)
        self.mask_zero = mask_zero
        self.embeddings_regularizer = embeddings_regularizer
        self.embeddings_constraint = _constraints.get(embeddings_constraint)

    def build(self, input_shape) -> None:
        self.embeddings = self.add_weight("embeddings", (self.input_dim, self.output_dim),
                                          initializer=self.embeddings_initializer,
                                          regularizer=self.embeddings_regularizer,
                                          constraint=self.embeddings_constraint)
        self.built = True
        if self._tw_policy.quantization_mode:  # a saved quantized layer being rebuilt
            _quantized.build_quantized(self)

    def _convert_inputs(self, inputs):
        x = super()._convert_inputs(inputs)
        if x.dtype not in (dtypes.int32, dtypes.int64):
            x = math_ops.cast(x, dtypes.int32)
        return x

    def call(self, inputs) -> Tensor:
        return array_ops.gather(self.embeddings, inputs)

    quantize = _quantized.quantize_layer  # layer.quantize("int8"): keras/layers/quantized.py

    def compute_mask(self, inputs, mask=None) -> Any:
        if not self.mask_zero:
            return None
        return math_ops.not_equal(inputs, array_ops.zeros_like(inputs))

    def get_config(self) -> dict:
        cfg = super().get_config()
        cfg.update(input_dim=self.input_dim, output_dim=self.output_dim,
                   mask_zero=self.mask_zero,
                   embeddings_initializer=_initializers.serialize(self.embeddings_initializer),
                   embeddings_regularizer=_regularizers.serialize(
                       _regularizers.get(self.embeddings_regularizer)),
                   embeddings_constraint=_constraints.serialize(self.embeddings_constraint))
        return cfg


class Lambda(Layer):
    """Wraps a function of tensors as a layer.

    Args:
        function: the function, called as ``function(inputs, **arguments)``.
        output_shape: accepted for compatibility (twinflow infers the output shape by
            tracing ``function``).
        mask: the output mask: a callable ``mask(inputs, input_mask)`` or a fixed mask
            (None: the input mask is passed on).
        arguments: extra keyword arguments for ``function``.
        **kwargs: Layer arguments.
    """

    def __init__(self, function: Callable, output_shape=None, mask=None,
                 arguments=None, **kwargs) -> None:
        super().__init__(**kwargs)
        self.function = function
        self.arguments = arguments or {}
        self.mask = mask
        self.supports_masking = True

    def call(self, inputs) -> Any:
        return self.function(inputs, **self.arguments)

    def compute_mask(self, inputs, mask=None) -> Any:
        if callable(self.mask):
            return self.mask(inputs, mask)
        return mask if self.mask is None else self.mask

    def get_config(self) -> dict:
        """The config, with the function saved by name only (never as code).

        Loading it needs ``custom_objects={name: function}``.

        Returns:
            A dict.
        """
        name = getattr(self.function, "__name__", None)
        if not name or name == "<lambda>":
            raise TypeError(f"Cannot save Lambda layer {self.name!r}: its function is a "
                            "lambda, and twinflow saves no code. Use a named function (def) "
                            "and pass it in custom_objects when loading, or write a Layer "
                            "subclass.")
        cfg = super().get_config()
        cfg.update(function=name, arguments=dict(self.arguments))
        return cfg

    @classmethod
    def from_config(cls, config: dict) -> Lambda:
        """Rebuilds the layer; ``function`` must already be the function (custom_objects).

        Args:
            config: the config.

        Returns:
            The layer.
        """
        fn = config.get("function")
        if isinstance(fn, dict):
            # Keras 3 stores a lambda's bytecode (marshal, base64): loading it would run code.
            raise ValueError(f"Lambda layer {config.get('name')!r} was saved with its Python "
                             "bytecode; twinflow never loads or runs code from a file (Keras "
                             "needs safe_mode=False for it). Define the function by name and "
                             "pass it in custom_objects, or rebuild the model in code.")
        if isinstance(config.get("function"), str):
            raise ValueError(f"Lambda layer {config.get('name')!r} calls the function "
                             f"{config['function']!r}, which twinflow does not save as code: "
                             f"pass custom_objects={{{config['function']!r}: function}} to "
                             "load_model")
        return cls(**config)


class Identity(Layer):
    """Returns its input unchanged (a placeholder in a model).

    Args:
        **kwargs: Layer arguments.
    """

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.supports_masking = True

    def call(self, inputs) -> Any:
        return nest.map_structure(array_ops.identity, inputs)


class Masking(Layer):
    """Masks the time steps whose features all equal ``mask_value`` (zeroing them), so that
    later layers (RNNs, attention) skip them.

    Args:
        mask_value: the padding value.
        **kwargs: Layer arguments.
    """

    def __init__(self, mask_value: float = 0.0, **kwargs) -> None:
        super().__init__(**kwargs)
        self.mask_value = float(mask_value)
        self.supports_masking = True

    def compute_mask(self, inputs, mask=None) -> Any:
        return reduction_ops.reduce_any(
            math_ops.not_equal(inputs, math_ops.cast(self.mask_value, inputs.dtype)), axis=-1)

    def call(self, inputs) -> Tensor:
        keep = reduction_ops.reduce_any(
            math_ops.not_equal(inputs, math_ops.cast(self.mask_value, inputs.dtype)),
            axis=-1, keepdims=True)
        return inputs * math_ops.cast(keep, inputs.dtype)

    _config_keys = ("mask_value",)


class ReversibleEmbedding(Embedding):
    """An Embedding that also maps vectors back to logits: ``layer(x, reverse=True)`` is
    ``x @ embeddings.T`` (tied weights), or ``x @ reverse_embeddings`` with
    ``tie_weights=False`` (Keras 3's layer for language models' output heads).

    Args:
        input_dim: the vocabulary size.
        output_dim: the embedding size.
        tie_weights: reuse the embeddings for the reverse projection.
        embeddings_initializer: initializer of the embeddings.
        embeddings_regularizer: a penalty on the embeddings.
        embeddings_constraint: stored on the embeddings.
        mask_zero: index 0 is padding (masked).
        reverse_dtype: the reverse projection's compute dtype (None: the layer's).
        logit_soft_cap: if set, logits become ``cap * tanh(logits / cap)``.
        **kwargs: Layer arguments.
    """

    def __init__(self, input_dim: int, output_dim: int, tie_weights: bool = True,
                 embeddings_initializer="uniform", embeddings_regularizer=None,
                 embeddings_constraint=None, mask_zero: bool = False, reverse_dtype=None,
                 logit_soft_cap=None, **kwargs) -> None:
        super().__init__(input_dim, output_dim, embeddings_initializer=embeddings_initializer,
                         embeddings_regularizer=embeddings_regularizer,
                         embeddings_constraint=embeddings_constraint, mask_zero=mask_zero,
                         **kwargs)
        self.tie_weights = bool(tie_weights)
        self.reverse_dtype = reverse_dtype
        self.logit_soft_cap = None if logit_soft_cap is None else float(logit_soft_cap)

    def build(self, input_shape=None) -> None:
        super().build(input_shape)
        if not self.tie_weights:
            self.reverse_embeddings = self.add_weight(
                "reverse_embeddings", (self.output_dim, self.input_dim),
                initializer=self.embeddings_initializer)

    def _convert_inputs(self, inputs):
        return Layer._convert_inputs(self, inputs)

    def call(self, inputs, reverse: bool = False) -> Tensor:
        if not reverse:
            return super().call(super()._convert_inputs(inputs))
        kernel = array_ops.transpose(self.embeddings) if self.tie_weights else \
            self.reverse_embeddings
        x = inputs
        if self.reverse_dtype is not None:
            x, kernel = math_ops.cast(x, self.reverse_dtype), math_ops.cast(kernel,
                                                                             self.reverse_dtype)
        logits = linalg_ops.tensordot(x, kernel, [[x.shape.rank - 1], [0]])
        if self.logit_soft_cap is not None:
            cap = self.logit_soft_cap
            logits = math_ops.tanh(logits / cap) * cap
        return logits

    def compute_mask(self, inputs, mask=None) -> Any:
        return None if not self.mask_zero else super().compute_mask(inputs, mask)

    def get_config(self) -> dict:
        cfg = super().get_config()
        cfg.update(tie_weights=self.tie_weights, reverse_dtype=self.reverse_dtype,
                   logit_soft_cap=self.logit_soft_cap)
        return cfg
