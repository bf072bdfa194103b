"""Attention layers: Attention (dot-product), AdditiveAttention, MultiHeadAttention, and
EinsumDense (the projections MultiHeadAttention is made of).

Masks: a query mask zeroes (or, in MultiHeadAttention, masks) the rows of padded queries, a
value/key mask hides padded positions from every query, ``use_causal_mask`` hides later
positions; hidden positions get probability 0. Weight names and layouts follow Keras 3.
"""
from __future__ import annotations

import math
from typing import Any

from ...core import dtypes
from ...core.shapes import TensorShape
from ...graph.tensor import Tensor
from ...ops import array_ops, linalg_ops, math_ops, nn_ops, reduction_ops
from .. import activations as _activations
from . import quantized as _quantized
from .activation import Softmax
from .base import Layer
from .core import fraction
from .keras_tensor import get_keras_mask


def _causal(q_len, k_len) -> Tensor:
    """``[1, q_len, k_len]`` booleans: query i may see keys j <= i."""
    ones = array_ops.ones(array_ops.stack([1, q_len, k_len]), dtype=dtypes.int32)
    return math_ops.greater_equal(math_ops.cumsum(ones, axis=-2), math_ops.cumsum(ones, axis=-1))


def _and(a, b):
    if a is None:
        return b
    if b is None:
        return a
    return math_ops.logical_and(a, b)


def _as_bool(m):
    return m if m is None or m.dtype is dtypes.bool_ else math_ops.cast(m, dtypes.bool_)


class EinsumDense(Layer):
    """A dense layer written as an einsum: ``einsum(equation, inputs, kernel) + bias``.

    Args:
        equation: ``'ab,bc->ac'``-style, inputs first, then the kernel (no ellipsis).
        output_shape: the output shape without the batch dimension (None for a dimension
            taken from the input).
        activation: an activation.
        bias_axes: output letters that get a bias (None: no bias).
        kernel_initializer: initializer of the kernel.
        bias_initializer: initializer of the bias.
        kernel_regularizer: a penalty on the kernel.
        bias_regularizer: a penalty on the bias.
        kernel_constraint: stored on the kernel.
        bias_constraint: stored on the bias.
        **kwargs: Layer arguments.
    """

    def __init__(self, equation: str, output_shape, activation=None, bias_axes=None,
                 kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, kernel_constraint=None,
                 bias_constraint=None, **kwargs) -> None:
        super().__init__(**kwargs)
        if "..." in equation:
            raise NotImplementedError("EinsumDense: equations with '...' are not supported")
        try:
            lhs, out_spec = equation.split("->")
            in_spec, self._tw_kernel_spec = lhs.split(",")
        except ValueError:
            raise ValueError(f"Invalid einsum equation {equation!r}: expected "
                             "'input,kernel->output'") from None
        self._tw_in_spec, self._tw_out_spec = in_spec, out_spec
        self.equation = equation
        shape = [output_shape] if isinstance(output_shape, int) or output_shape is None \
            else list(output_shape)
        if len(shape) != len(out_spec) - 1:
            raise ValueError(f"EinsumDense: output_shape {output_shape} must have one entry per "
                             f"output letter after the batch one ({out_spec!r})")
        self.partial_output_shape = shape
        self.activation = _activations.get(activation)
        self.bias_axes = bias_axes
        self._set_weight_args("kernel", kernel_initializer, kernel_regularizer, kernel_constraint)
        self._set_weight_args("bias", bias_initializer, bias_regularizer, bias_constraint)

    def build(self, input_shape) -> None:
        dims = input_shape.as_list()
        full = [dims[0]] + [d if d is not None else dims[self._tw_in_spec.index(c)]
                            if c in self._tw_in_spec else d
                            for c, d in zip(self._tw_out_spec[1:], self.partial_output_shape)]
        self.full_output_shape = full
        kernel_shape = []
        for c in self._tw_kernel_spec:
            if c in self._tw_in_spec:
                kernel_shape.append(dims[self._tw_in_spec.index(c)])
            elif c in self._tw_out_spec:
                kernel_shape.append(full[self._tw_out_spec.index(c)])
            else:
                raise ValueError(f"EinsumDense: kernel letter {c!r} of {self.equation!r} is in "
                                 "neither the input nor the output")
        if any(d is None for d in kernel_shape):
            raise ValueError(f"EinsumDense: the kernel shape {kernel_shape} needs known input "
                             f"dimensions; got input shape {input_shape}")
        self.kernel = self._add_weight_for("kernel", "kernel", tuple(kernel_shape))
        self.bias = None
        if self.bias_axes:
            out = self._tw_out_spec
            first = min(out.index(c) for c in self.bias_axes)
            bias_shape = tuple(full[out.index(c)] if c in self.bias_axes else 1
                               for c in out[first:])
            self.bias = self._add_weight_for("bias", "bias", bias_shape)
        self.built = True
        if self._tw_policy.quantization_mode:  # a saved quantized layer being rebuilt
            _quantized.build_quantized(self)

    def call(self, inputs) -> Tensor:
        y = linalg_ops.einsum(self.equation, inputs, self.kernel)
        if self.bias is not None:
            y = y + self.bias
        act = self.activation
        return y if act is _activations.linear else act(y)

    quantize = _quantized.quantize_layer  # layer.quantize("int8"): keras/layers/quantized.py

    def get_config(self) -> dict:
        cfg = super().get_config()
        cfg.update(equation=self.equation, output_shape=self.partial_output_shape,
                   activation=_activations.serialize(self.activation),
                   bias_axes=self.bias_axes)
        cfg.update(self._kernel_bias_config())
        return cfg


class _BaseAttention(Layer):
    """Shared call of Attention and AdditiveAttention (inputs ``[query, value(, key)]``).

    Args:
        use_scale: learn a scale.
        dropout: dropout on the attention weights while training.
        seed: the dropout seed.
        **kwargs: Layer arguments.
    """

    def __init__(self, use_scale: bool = False, dropout: float = 0.0, seed=None,
                 **kwargs) -> None:
        super().__init__(**kwargs)
        self.use_scale = bool(use_scale)
        self.dropout = fraction("dropout", dropout)
        self.seed = seed
        self.supports_masking = True

    def _validate(self, inputs) -> list:
        if not isinstance(inputs, (list, tuple)) or len(inputs) not in (2, 3):
            raise ValueError(f"{type(self).__name__} layer must be called on a list of inputs, "
                             f"namely [query, value] or [query, value, key]. Received: "
                             f"{inputs}.")
        return list(inputs)

    def call(self, inputs, mask=None, training=None, return_attention_scores: bool = False,
             use_causal_mask: bool = False) -> Any:
        inputs = self._validate(inputs)
        q, v = inputs[0], inputs[1]
        k = inputs[2] if len(inputs) > 2 else v
        q_mask = v_mask = None
        if mask is not None:
            mask = list(mask) + [None] * 2
            q_mask, v_mask = _as_bool(mask[0]), _as_bool(mask[1])
        scores = self._scores(q, k)
        smask = None if v_mask is None else array_ops.expand_dims(v_mask, -2)
        if use_causal_mask:
            shape = array_ops.shape(scores)
            smask = _and(smask, _causal(shape[-2], shape[-1]))
        if smask is not None:
            big = 65504.0 if scores.dtype is dtypes.float16 else 1.0e9
            scores = scores - big * math_ops.cast(math_ops.logical_not(smask), scores.dtype)
        weights = nn_ops.softmax(scores, axis=-1)
        if training and self.dropout > 0:
            weights = nn_ops.dropout(weights, rate=self.dropout, seed=self.seed)
        out = linalg_ops.matmul(weights, v)
        if q_mask is not None:
            out = out * math_ops.cast(array_ops.expand_dims(q_mask, -1), out.dtype)
        return (out, weights) if return_attention_scores else out

    def compute_mask(self, inputs, mask=None) -> Any:
        if mask is None or mask[0] is None:
            return None
        return _as_bool(mask[0])

    _config_keys = ("use_scale", "dropout", "seed")


class Attention(_BaseAttention):
    """Dot-product attention: ``softmax(query @ key^T [* scale]) @ value``.

    Args:
        use_scale: learn a scalar ``scale`` multiplying the scores.
        score_mode: ``'dot'``, or ``'concat'`` (``sum(tanh(query + key))`` scores times a
            learned scalar).
        dropout: dropout on the attention weights while training.
        seed: the dropout seed.
        **kwargs: Layer arguments.
    """

    def __init__(self, use_scale: bool = False, score_mode: str = "dot", dropout: float = 0.0,
                 seed=None, **kwargs) -> None:
        super().__init__(use_scale=use_scale, dropout=dropout, seed=seed, **kwargs)
        if score_mode not in ("dot", "concat"):
            raise ValueError(f"Invalid value for argument score_mode. Expected one of "
                             f"{{'dot', 'concat'}}. Received: score_mode={score_mode}")
        self.score_mode = score_mode

    def build(self, input_shape) -> None:
        self.scale = self.add_weight("scale", (), initializer="ones") if self.use_scale \
            else None
        self.concat_score_weight = self.add_weight("concat_score_weight", (),
                                                   initializer="ones") \
            if self.score_mode == "concat" else None
        self.built = True

    def _scores(self, q, k) -> Tensor:
        if self.score_mode == "dot":
            scores = linalg_ops.matmul(q, k, transpose_b=True)
            return scores * self.scale if self.scale is not None else scores
        s = array_ops.expand_dims(q, -2) + array_ops.expand_dims(k, -3)
        if self.scale is not None:
            s = self.scale * s
        return self.concat_score_weight * reduction_ops.reduce_sum(math_ops.tanh(s), axis=-1)

    _config_keys = _BaseAttention._config_keys + ("score_mode",)


class AdditiveAttention(_BaseAttention):
    """Bahdanau attention: scores ``sum(scale * tanh(query + key), -1)``.

    Args:
        use_scale: learn a per-feature ``scale`` (default True).
        dropout: dropout on the attention weights while training.
        seed: the dropout seed.
        **kwargs: Layer arguments.
    """

    def __init__(self, use_scale: bool = True, dropout: float = 0.0, seed=None,
                 **kwargs) -> None:
        super().__init__(use_scale=use_scale, dropout=dropout, seed=seed, **kwargs)

    def build(self, input_shape) -> None:
        dim = input_shape[0].as_list()[-1] if isinstance(input_shape, (list, tuple)) else None
        self.scale = self.add_weight("scale", (dim,), initializer="glorot_uniform") \
            if self.use_scale else None
        self.built = True

    def _scores(self, q, k) -> Tensor:
        t = math_ops.tanh(array_ops.expand_dims(q, -2) + array_ops.expand_dims(k, -3))
        if self.scale is not None:
            t = self.scale * t
        return reduction_ops.reduce_sum(t, axis=-1)


def _combined_mask(query, value, key, query_mask, value_mask, key_mask, attention_mask,
                   use_causal_mask: bool):
    """The ``(batch, 1, T, S)`` boolean mask of an attention call (None when nothing is
    masked): the explicit or Keras masks of query/value/key, the causal mask, and
    ``attention_mask``, one mask for every head."""
    query_mask = _as_bool(query_mask if query_mask is not None else get_keras_mask(query))
    value_mask = _as_bool(value_mask if value_mask is not None else get_keras_mask(value))
    if key is not None and key is not value:
        key_mask = _as_bool(key_mask if key_mask is not None else get_keras_mask(key))
    else:
        key_mask = None
    mask = None
    if query_mask is not None:
        mask = array_ops.expand_dims(query_mask, -1)
    for m in (value_mask, key_mask):
        if m is not None:
            mask = _and(mask, array_ops.expand_dims(m, -2))
    if use_causal_mask:
        mask = _and(mask, _causal(array_ops.shape(query)[1], array_ops.shape(value)[1]))
    if attention_mask is not None:
        mask = _and(mask, _as_bool(attention_mask))
    return None if mask is None else array_ops.expand_dims(mask, -3)


class MultiHeadAttention(Layer):
    """Multi-head attention (``Attention is all you need``): ``num_heads`` dot-product
    attentions of projected queries, keys and values, projected back to the query size.

    Args:
        num_heads: the number of heads.
        key_dim: the size of each head's queries and keys.
        value_dim: the size of each head's values (default ``key_dim``).
        dropout: dropout on the attention weights while training.
        use_bias: whether the projections have biases.
        output_shape: the output's last dimension (default: the query's).
        attention_axes: None (attention over the time axis of rank-3 inputs).
        kernel_initializer: initializer of the projection kernels.
        bias_initializer: initializer of the biases.
        kernel_regularizer: a penalty on the kernels.
        bias_regularizer: a penalty on the biases.
        kernel_constraint: stored on the kernels.
        bias_constraint: stored on the biases.
        seed: the dropout seed.
        **kwargs: Layer arguments.
    """

    def __init__(self, num_heads: int, key_dim: int, value_dim: int | None = None,
                 dropout: float = 0.0, use_bias: bool = True, output_shape=None,
                 attention_axes=None, kernel_initializer="glorot_uniform",
                 bias_initializer="zeros", kernel_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, kernel_constraint=None, bias_constraint=None,
                 seed=None, **kwargs) -> None:
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        for name, v in (("num_heads", num_heads), ("key_dim", key_dim)):
            if isinstance(v, bool) or not isinstance(v, int) or v <= 0:
                raise ValueError(f"MultiHeadAttention: `{name}` must be a positive integer. "
                                 f"Received: {name}={v}")
        if attention_axes not in (None, 1, (1,), [1]):
            raise NotImplementedError("MultiHeadAttention: only attention over the time axis "
                                      "of (batch, time, features) inputs is supported")
        self.num_heads = num_heads
        self.key_dim = key_dim
        self.value_dim = value_dim or key_dim
        self.dropout = float(dropout)
        self.use_bias = bool(use_bias)
        if isinstance(output_shape, (list, tuple)):
            if len(output_shape) != 1:
                raise NotImplementedError("MultiHeadAttention: output_shape must be one size")
            output_shape = output_shape[0]
        self._tw_output_dim = output_shape
        self.attention_axes = attention_axes
        self._set_weight_args("kernel", kernel_initializer, kernel_regularizer, kernel_constraint)
        self._set_weight_args("bias", bias_initializer, bias_regularizer, bias_constraint)
        self.seed = seed
        self.supports_masking = True
        self._tw_softmax = Softmax(axis=-1, dtype=kwargs.get("dtype"))

    def _dense(self, equation: str, shape, bias_axes: str, name: str) -> EinsumDense:
        return EinsumDense(equation, shape, bias_axes=bias_axes if self.use_bias else None,
                           kernel_initializer=self.kernel_initializer,
                           bias_initializer=self.bias_initializer,
                           kernel_regularizer=self.kernel_regularizer,
                           bias_regularizer=self.bias_regularizer,
                           kernel_constraint=self.kernel_constraint,
                           bias_constraint=self.bias_constraint, name=name,
                           dtype=self._tw_policy)

    def build(self, query_shape, value_shape=None, key_shape=None) -> None:
        h = self.num_heads
        self.query_dense = self._dense("abc,cde->abde", [None, h, self.key_dim], "de", "query")
        self.key_dense = self._dense("abc,cde->abde", [None, h, self.key_dim], "de", "key")
        self.value_dense = self._dense("abc,cde->abde", [None, h, self.value_dim], "de",
                                       "value")
        out_dim = self._tw_output_dim or query_shape.as_list()[-1]
        self.output_dense = self._dense("abcd,cde->abe", [None, out_dim], "e",
                                        "attention_output")
        self.built = True

    def call(self, query, value, key=None, query_mask=None, value_mask=None, key_mask=None,
             attention_mask=None, return_attention_scores: bool = False, training=None,
             use_causal_mask: bool = False) -> Any:
        value = self._convert_inputs(value)
        key = None if key is None else self._convert_inputs(key)
        for name, t in (("query", query), ("value", value)):
            if t.shape.rank != 3:
                raise ValueError(f"{type(self).__name__} expects (batch, time, features) "
                                 f"{name}; got shape {t.shape}")
        mask = _combined_mask(query, value, key, query_mask, value_mask, key_mask,
                              attention_mask, use_causal_mask)
        scores, v = self._scores(query, value if key is None else key, value)
        probs = self._tw_softmax(scores, mask=mask)
        dropped = nn_ops.dropout(probs, rate=self.dropout, seed=self.seed) \
            if training and self.dropout > 0 else probs
        out = self.output_dense(linalg_ops.einsum(self._combine, dropped, v))
        return (out, probs) if return_attention_scores else out

    # How the heads' scores are formed and how their weights combine the values (per family).
    _combine = "acbe,aecd->abcd"

    def _scores(self, query, key, value) -> tuple:
        """The attention scores ``(batch, heads, T, S)`` and the projected values."""
        q = self.query_dense(query) * (1.0 / math.sqrt(float(self.key_dim)))
        k = self.key_dense(key)
        return linalg_ops.einsum("aecd,abcd->acbe", k, q), self.value_dense(value)

    def __call__(self, query, value=None, key=None, **kwargs) -> Any:
        """Calls the layer as ``layer(query, value, key=None, ...)``.

        Args:
            query: ``(batch, T, dim)``.
            value: ``(batch, S, dim)``.
            key: ``(batch, S, dim)`` (default: ``value``).
            **kwargs: masks, ``return_attention_scores``, ``training``, ``use_causal_mask``.

        Returns:
            The output (and the scores ``(batch, heads, T, S)`` when asked).
        """
        if value is None:
            raise ValueError("MultiHeadAttention needs a `value` argument")
        if key is not None:
            kwargs["key"] = key
        return super().__call__(query, value, **kwargs)

    def compute_mask(self, inputs, mask=None) -> Any:
        return mask

    def get_config(self) -> dict:
        cfg = super().get_config()
        cfg.update(num_heads=self.num_heads, key_dim=self.key_dim, value_dim=self.value_dim,
                   dropout=self.dropout, use_bias=self.use_bias,
                   output_shape=self._tw_output_dim, attention_axes=self.attention_axes)
        cfg.update(self._kernel_bias_config())
        cfg["seed"] = self.seed
        return cfg


class GroupQueryAttention(MultiHeadAttention):
    """Grouped-query attention: ``num_query_heads`` query heads share
    ``num_key_value_heads`` key/value heads (each key/value head serves
    ``num_query_heads // num_key_value_heads`` query heads), as in Keras 3 (same weights:
    ``query``, ``key``, ``value``, ``attention_output``).

    Args:
        head_dim: the size of each head.
        num_query_heads: the number of query heads.
        num_key_value_heads: the number of key/value heads (divides ``num_query_heads``).
        dropout: dropout on the attention weights while training.
        use_bias: whether the projections have biases.
        sliding_window: not supported (must be None).
        flash_attention: not available (None or False).
        use_gate: not supported (must be False).
        **kwargs: initializers, regularizers, constraints, ``seed`` and Layer arguments.
    """

    def __init__(self, head_dim: int, num_query_heads: int, num_key_value_heads: int,
                 dropout: float = 0.0, use_bias: bool = True, sliding_window=None,
                 flash_attention=None, use_gate: bool = False, **kwargs) -> None:
        if sliding_window is not None or flash_attention or use_gate:
            raise NotImplementedError("GroupQueryAttention: sliding_window, flash_attention "
                                      "and use_gate are not supported by twinflow")
        if num_key_value_heads <= 0 or num_query_heads % num_key_value_heads:
            raise ValueError(f"num_query_heads ({num_query_heads}) must be a multiple of "
                             f"num_key_value_heads ({num_key_value_heads})")
        super().__init__(num_query_heads, head_dim, dropout=dropout, use_bias=use_bias,
                         **kwargs)
        self.head_dim = head_dim
        self.num_query_heads = num_query_heads
        self.num_key_value_heads = num_key_value_heads

    def build(self, query_shape, value_shape=None, key_shape=None) -> None:
        u, v, h = self.num_query_heads, self.num_key_value_heads, self.head_dim
        self.query_dense = self._dense("bqm,muh->bquh", [None, u, h], "uh", "query")
        self.key_dense = self._dense("bkm,mvh->bkvh", [None, v, h], "vh", "key")
        self.value_dense = self._dense("bkm,mvh->bkvh", [None, v, h], "vh", "value")
        out_dim = TensorShape(query_shape).as_list()[-1]
        self.output_dense = self._dense("bquh,uhm->bqm", [None, out_dim], "m",
                                        "attention_output")
        self.built = True

    _combine = "buqk,bkuh->bquh"

    def _scores(self, query, key, value) -> tuple:
        groups = self.num_query_heads // self.num_key_value_heads
        q = self.query_dense(query) * (1.0 / math.sqrt(float(self.head_dim)))
        k = array_ops.repeat(self.key_dense(key), groups, axis=2)
        v = array_ops.repeat(self.value_dense(value), groups, axis=2)
        return linalg_ops.einsum("bquh,bkuh->buqk", q, k), v

    def get_config(self) -> dict:
        cfg = super().get_config()
        for k in ("num_heads", "key_dim", "value_dim", "output_shape", "attention_axes"):
            cfg.pop(k, None)
        cfg.update(head_dim=self.head_dim, num_query_heads=self.num_query_heads,
                   num_key_value_heads=self.num_key_value_heads)
        return cfg
