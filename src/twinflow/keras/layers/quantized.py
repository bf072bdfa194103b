"""``Layer.quantize(mode)`` for ``Dense``, ``EinsumDense`` and ``Embedding``: Keras 3's
weight-only and weight-plus-activation quantization, computed as Keras does.

* ``'int8'``: the kernel becomes int8 with one abs-max scale per output unit (``Dense``), per
  kept kernel axis (``EinsumDense``) or per embedding row (``Embedding``). ``Dense`` and
  ``EinsumDense`` also quantize their inputs (abs-max along the reduced axes, unless the config's
  ``activation_quantizer`` is None), multiply in integers and divide by both scales.
* ``'int4'`` (``Dense``, ``Embedding``): values in ``[-8, 7]`` packed two per byte; per channel
  (``block_size`` None or -1) or, for ``Dense``, per group of ``block_size`` input rows with a
  zero point.

Gradients reach the inputs through the dequantized kernel (the quantized weights are not
trainable), as in Keras. ``'float8'`` training and GPTQ/AWQ are not provided: they raise.
"""
from __future__ import annotations

import types

import numpy as np

from ...autodiff.custom_gradient import custom_gradient
from ...core import dtypes
from ...ops import array_ops, linalg_ops, math_ops, nn_ops
from .. import activations as _activations
from .. import dtype_policies as _policies
from .. import quantizers as Q

__all__ = ["quantize_layer", "quantize_dense", "quantize_einsum_dense", "quantize_embedding"]


def _check(layer, mode: str, config) -> Q.QuantizationConfig:
    if not layer.built:
        raise ValueError(f"Cannot quantize a layer that isn't yet built. Layer '{layer.name}' "
                         f"(of type '{type(layer).__name__}') is not built yet.")
    if layer.dtype_policy.quantization_mode is not None:
        raise ValueError(f"Layer '{layer.name}' is already quantized with "
                         f"dtype_policy='{layer.dtype_policy.name}'. Received: mode={mode}")
    if isinstance(config, str):
        mode, config = config, None
    if mode is None and config is not None:
        mode = config.mode
    if mode not in _policies.QUANTIZATION_MODES:
        raise ValueError(f"Invalid quantization mode. Expected one of "
                         f"{_policies.QUANTIZATION_MODES}. Received: mode={mode}")
    if mode not in ("int8", "int4"):
        raise NotImplementedError(f"Layer.quantize('{mode}') is not provided by twinflow "
                                  "(int8 and int4 are)")
    if config is not None and config.mode != mode:
        raise ValueError(f"Contradictory arguments: mode='{mode}' but "
                         f"config.mode='{config.mode}'")
    if mode == "int8" and layer.compute_dtype == "float16":
        raise ValueError(f"Quantization mode='{mode}' doesn't work well with "
                         "compute_dtype='float16'.")
    if config is None:
        config = Q.Int8QuantizationConfig() if mode == "int8" else Q.Int4QuantizationConfig()
    return config


def _replace_weight(layer, old, name: str, value, trainable: bool = False):
    """Adds weight ``name`` holding ``value`` in the place of ``old`` (which is dropped; None:
    appended), so that the weights keep Keras' order (files interchange)."""
    value = np.asarray(value)
    var = layer.add_weight(name, value.shape, dtype=dtypes.from_numpy(value.dtype),
                           initializer="zeros", trainable=trainable)
    var.assign(value)
    weights = layer._tw_weights
    weights.pop()
    weights.insert(next((i for i, w in enumerate(weights) if w is old), len(weights)), var)
    weights[:] = [w for w in weights if w is not old]
    layer._tw_regularizers[:] = [(w, r) for w, r in layer._tw_regularizers if w is not old]
    return var


def _set_policy(layer, mode: str, block_size=None) -> None:
    name = mode if mode != "int4" else f"int4/{-1 if block_size is None else block_size}"
    layer.dtype_policy = _policies.get(f"{name}_from_{layer.dtype_policy.name}")


def _weight_quantizer(config, default):
    q = config.weight_quantizer if config is not None else None
    return default if q is None else q


def _float(t, layer):
    return math_ops.cast(t, layer._tw_compute_dtype)


def _int_product(fn, x, k):
    """``fn`` of int8 operands, exactly (in int32, as integer matmuls accumulate)."""
    return fn(math_ops.cast(x, dtypes.int32), math_ops.cast(k, dtypes.int32))


# ----- Dense ----------------------------------------------------------------------

def quantize_dense(layer, mode: str | None = None, config=None) -> None:
    """Quantizes a built ``Dense`` layer in place (module docstring).

    Args:
        layer: the layer.
        mode: ``'int8'`` or ``'int4'``.
        config: a ``QuantizationConfig`` (or None: the mode's default).
    """
    config = _check(layer, mode, config)
    kernel = layer.kernel.numpy()
    layer.quantization_config = config
    block = getattr(config, "block_size", None) if config.mode == "int4" else None
    if config.mode == "int8":
        q, scale = _weight_quantizer(config, Q.AbsMaxQuantizer(axis=0))(kernel, to_numpy=True)
        layer._tw_qkernel = _replace_weight(layer, layer.kernel, "kernel", q.numpy())
        layer.kernel_scale = _replace_weight(layer, None, "kernel_scale",
                                             np.squeeze(scale.numpy(), 0))
    elif block is None or block == -1:
        q, scale = _weight_quantizer(config, Q.AbsMaxQuantizer(
            axis=0, value_range=(-8, 7)))(kernel, to_numpy=True)
        packed = Q.pack_int4(q, axis=-1)[0]
        layer._tw_qkernel = _replace_weight(layer, layer.kernel, "kernel", packed.numpy())
        layer.kernel_scale = _replace_weight(layer, None, "kernel_scale",
                                             np.squeeze(scale.numpy(), 0))
    else:
        q, scale, zero = Q.abs_max_quantize_grouped_with_zero_point(kernel, block,
                                                                     to_numpy=True)
        packed = Q.pack_int4(q, axis=-1)[0]
        layer._tw_qkernel = _replace_weight(layer, layer.kernel, "kernel", packed.numpy())
        layer.kernel_scale = _replace_weight(layer, None, "kernel_scale", scale.numpy())
        layer.kernel_zero = _replace_weight(layer, None, "kernel_zero", zero.numpy())
    layer._tw_int4_block = block
    layer._tw_inputs_quantizer = config.activation_quantizer
    layer.kernel = layer._tw_qkernel  # as Keras: the quantized kernel
    layer.call = types.MethodType(dense_call, layer)
    _set_policy(layer, config.mode, block)


def _dense_kernel(layer):
    """The layer's kernel as float, dequantized (for the int4 paths and the gradients)."""
    qk = layer._tw_qkernel
    scale = _float(layer.kernel_scale, layer)
    if layer.dtype_policy.quantization_mode == "int8":
        return math_ops.divide(_float(qk, layer), scale)
    k = Q.unpack_int4(qk, layer.units, axis=-1)
    block = layer._tw_int4_block
    if block is None or block == -1:
        return math_ops.divide(_float(k, layer), scale)
    rows = int(layer._tw_qkernel.shape[0])
    g = np.arange(rows) // block  # the group of each input row
    zero = array_ops.gather(_float(layer.kernel_zero, layer), g)
    return math_ops.multiply(math_ops.subtract(_float(k, layer), zero),
                             array_ops.gather(scale, g))


def dense_call(layer, inputs):
    """``Dense.call`` of a quantized layer.

    Args:
        layer: the quantized layer.
        inputs: the inputs.

    Returns:
        The outputs.
    """
    inputs = _float(inputs, layer)
    rank = inputs.shape.rank

    def matmul(x, k):
        return linalg_ops.matmul(x, k) if rank == 2 else \
            linalg_ops.tensordot(x, k, [[rank - 1], [0]])

    @custom_gradient
    def product(x):
        k = _dense_kernel(layer)

        def grad(dy):
            return matmul(dy, array_ops.transpose(k))
        quantizer = layer._tw_inputs_quantizer
        per_channel = layer.dtype_policy.quantization_mode == "int8" or \
            layer._tw_int4_block in (None, -1)
        if quantizer is not None and per_channel:
            xq, xs = quantizer(x, axis=-1)
            ki = layer._tw_qkernel if layer.dtype_policy.quantization_mode == "int8" else \
                Q.unpack_int4(layer._tw_qkernel, layer.units, axis=-1)
            y = _float(_int_product(matmul, xq, ki), layer)
            return math_ops.divide(y, math_ops.multiply(_float(layer.kernel_scale, layer),
                                                        xs)), grad
        return matmul(x, k), grad

    y = product(inputs)
    if layer.use_bias:
        y = nn_ops.bias_add(y, layer.bias)
    act = layer.activation
    return y if act is _activations.linear else act(y)


# ----- EinsumDense ----------------------------------------------------------------------

def quantize_einsum_dense(layer, mode: str | None = None, config=None) -> None:
    """Quantizes a built ``EinsumDense`` layer in place (int8).

    Args:
        layer: the layer.
        mode: ``'int8'``.
        config: an ``Int8QuantizationConfig`` (or None).
    """
    config = _check(layer, mode, config)
    if config.mode != "int8":
        raise NotImplementedError("EinsumDense.quantize supports 'int8' only in twinflow")
    ins, ks, out = layer._tw_in_spec, layer._tw_kernel_spec, layer._tw_out_spec
    k_red = tuple(i for i, c in enumerate(ks) if c not in out)
    layer._tw_in_reduced = tuple(i for i, c in enumerate(ins) if c not in out)
    q, scale = _weight_quantizer(config, Q.AbsMaxQuantizer(axis=k_red))(layer.kernel.numpy(),
                                                                          to_numpy=True)
    layer.quantization_config = config
    layer._tw_qkernel = _replace_weight(layer, layer.kernel, "kernel", q.numpy())
    layer.kernel_scale = _replace_weight(layer, None, "kernel_scale",
                                         np.squeeze(scale.numpy(), k_red))
    layer._tw_inputs_quantizer = config.activation_quantizer
    layer.kernel = layer._tw_qkernel
    layer.call = types.MethodType(einsum_dense_call, layer)
    _set_policy(layer, "int8")


def einsum_dense_call(layer, inputs):
    """``EinsumDense.call`` of a quantized layer.

    Args:
        layer: the quantized layer.
        inputs: the inputs.

    Returns:
        The outputs.
    """
    ins, ks, out = layer._tw_in_spec, layer._tw_kernel_spec, layer._tw_out_spec
    k_kept = "".join(c for c in ks if c in out)
    in_kept = "".join(c for c in ins if c in out)
    inputs = _float(inputs, layer)
    kscale = _float(layer.kernel_scale, layer)
    # the kernel scale laid out as the kernel, 1 on its reduced axes
    kshape = [int(d) if c in out else 1 for c, d in zip(ks, layer._tw_qkernel.shape)]
    kernel = math_ops.divide(_float(layer._tw_qkernel, layer), array_ops.reshape(kscale, kshape))

    @custom_gradient
    def product(x):
        def grad(dy):
            return linalg_ops.einsum(f"{out},{ks}->{ins}", dy, kernel)
        quantizer = layer._tw_inputs_quantizer
        if quantizer is None:
            return linalg_ops.einsum(layer.equation, x, kernel), grad
        xq, xs = quantizer(x, axis=layer._tw_in_reduced)
        y = _float(_int_product(lambda a, b: linalg_ops.einsum(layer.equation, a, b), xq,
                                layer._tw_qkernel), layer)
        xs_kept = array_ops.squeeze(xs, list(layer._tw_in_reduced)) \
            if layer._tw_in_reduced else xs
        both = linalg_ops.einsum(f"{in_kept},{k_kept}->{out}", xs_kept, kscale)
        return math_ops.divide(y, both), grad

    y = product(inputs)
    if layer.bias is not None:
        y = y + layer.bias
    act = layer.activation
    return y if act is _activations.linear else act(y)


# ----- Embedding ----------------------------------------------------------------------

def quantize_embedding(layer, mode: str | None = None, config=None) -> None:
    """Quantizes a built ``Embedding`` layer in place: one scale per row (int8, or int4 packed
    along the vector).

    Args:
        layer: the layer.
        mode: ``'int8'`` or ``'int4'``.
        config: a ``QuantizationConfig`` (or None).
    """
    config = _check(layer, mode, config)
    table = layer.embeddings.numpy()
    block = getattr(config, "block_size", None) if config.mode == "int4" else None
    if config.mode == "int4" and block not in (None, -1):
        raise NotImplementedError("Embedding.quantize('int4') with block_size (sub-channel) is "
                                  "not provided by twinflow: use block_size=None")
    vr = (-127, 127) if config.mode == "int8" else (-8, 7)
    q, scale = _weight_quantizer(config, Q.AbsMaxQuantizer(axis=-1, value_range=vr))(
        table, to_numpy=True)
    value = q.numpy() if config.mode == "int8" else Q.pack_int4(q, axis=-1)[0].numpy()
    layer.quantization_config = config
    layer._tw_qembeddings = _replace_weight(layer, layer.embeddings, "embeddings", value)
    layer.embeddings_scale = _replace_weight(layer, None, "embeddings_scale",
                                             np.squeeze(scale.numpy(), -1))
    layer.embeddings = layer._tw_qembeddings
    layer.call = types.MethodType(embedding_call, layer)
    _set_policy(layer, config.mode, block)


def embedding_call(layer, inputs):
    """``Embedding.call`` of a quantized layer.

    Args:
        layer: the quantized layer.
        inputs: integer ids.

    Returns:
        The vectors.
    """
    rows = array_ops.gather(layer._tw_qembeddings, inputs)
    if layer.dtype_policy.quantization_mode == "int4":
        rows = Q.unpack_int4(rows, layer.output_dim, axis=-1)
    scale = array_ops.gather(layer.embeddings_scale, inputs)
    return math_ops.divide(_float(rows, layer),
                           array_ops.expand_dims(_float(scale, layer), -1))


_BY_CLASS = {"Dense": quantize_dense, "EinsumDense": quantize_einsum_dense,
             "Embedding": quantize_embedding}


def quantize_layer(self, mode: str | None = None, type_check: bool = True,
                   config=None) -> None:
    """Quantizes the built layer's weights in place (``'int8'``, ``'int4'``; module docstring).

    Args:
        mode: the quantization mode.
        type_check: refuse subclasses of the quantizable layers, as Keras does.
        config: a ``keras.quantizers.QuantizationConfig``.
    """
    names = [type(self).__name__] if type_check else [c.__name__ for c in type(self).__mro__]
    fn = next((_BY_CLASS[n] for n in names if n in _BY_CLASS), None)
    if fn is None:
        raise NotImplementedError(f"Layer {type(self).__name__} does not have a `quantize()` "
                                  "method implemented.")
    fn(self, mode, config)


def build_quantized(layer) -> None:
    """Gives a layer built with a quantized dtype policy (``'int8_from_float32'``, as a saved
    quantized model's config says) the quantized weights, so that the file's values load.

    Args:
        layer: a just-built ``Dense``, ``EinsumDense`` or ``Embedding``.
    """
    policy = layer.dtype_policy
    mode = policy.quantization_mode
    block = getattr(policy, "block_size", None)
    config = Q.Int4QuantizationConfig(block_size=block) if mode == "int4" else None
    layer._set_policy(policy.source_name)
    quantize_layer(layer, mode, type_check=False, config=config)
    layer._set_policy(policy)
