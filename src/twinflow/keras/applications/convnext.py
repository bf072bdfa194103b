"""ConvNeXt Tiny, Small, Base, Large and XLarge (Liu et al., 2022), as
``keras.applications.convnext``.

A ResNet modernised: a 4x4 "patchify" stem, stages of blocks made of a 7x7 depthwise
convolution, LayerNormalization, an inverted MLP (Dense layers on the channels) and a learnt
per-channel ``LayerScale``, added to the block's input. Layer names, order and parameter counts
are Keras 3's; as there, the residual additions are operations, not layers, so they are not in
``model.layers``.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ...graph.tensor import Tensor
from ...ops import array_ops, math_ops, random_ops
from .. import initializers, layers
from ..layers.base import Layer
from ..layers.keras_tensor import KerasTensor
from ..models import Model, Sequential
from ..utils import register_keras_serializable
from . import _common, _heads, imagenet_utils
from .imagenet_utils import decode_predictions  # noqa: F401  (the module's, as in Keras)

# depths and widths of the four stages
VARIANTS = {"tiny": ([3, 3, 9, 3], [96, 192, 384, 768]),
            "small": ([3, 3, 27, 3], [96, 192, 384, 768]),
            "base": ([3, 3, 27, 3], [128, 256, 512, 1024]),
            "large": ([3, 3, 27, 3], [192, 384, 768, 1536]),
            "xlarge": ([3, 3, 27, 3], [256, 512, 1024, 2048])}


@register_keras_serializable(package="twinflow.applications")
class StochasticDepth(Layer):
    """Drops a residual branch for a random subset of the samples while training, scaling
    the kept ones by ``1 / (1 - drop_path_rate)`` (identity at inference).

    Args:
        drop_path_rate: the probability that a sample's branch is dropped.
        **kwargs: Layer arguments.
    """

    def __init__(self, drop_path_rate: float, **kwargs) -> None:
        super().__init__(**kwargs)
        if not 0 <= drop_path_rate < 1:
            raise ValueError(f"StochasticDepth: drop_path_rate must be in [0, 1); "
                             f"Received: drop_path_rate={drop_path_rate}")
        self.drop_path_rate = drop_path_rate

    def call(self, x, training=None) -> Tensor:
        if not training or self.drop_path_rate == 0:
            return x
        keep = 1.0 - self.drop_path_rate
        shape = array_ops.concat([array_ops.shape(x)[:1],
                                  array_ops.ones([x.shape.rank - 1], "int32")], 0)
        mask = math_ops.floor(keep + random_ops.random_uniform(shape, dtype=x.dtype))
        return x / keep * mask

    _config_keys = ("drop_path_rate",)


@register_keras_serializable(package="twinflow.applications")
class LayerScale(Layer):
    """Multiplies the channels by a learnt vector ``gamma``, initialized to ``init_values``.

    Args:
        init_values: the initial value of every entry of ``gamma``.
        projection_dim: the number of channels.
        **kwargs: Layer arguments.
    """

    def __init__(self, init_values: float, projection_dim: int, **kwargs) -> None:
        super().__init__(**kwargs)
        self.init_values = init_values
        self.projection_dim = projection_dim

    def build(self, input_shape) -> None:
        # unnamed in Keras, so Keras 3 calls it "variable" (its path: <layer>/variable)
        self.gamma = self.add_weight(name="variable", shape=(self.projection_dim,),
                                     initializer=initializers.Constant(self.init_values))
        self.built = True

    def call(self, x) -> Tensor:
        return x * math_ops.cast(self.gamma, x.dtype)

    _config_keys = ("init_values", "projection_dim")


@register_keras_serializable(package="twinflow.applications")
class ResidualAdd(Layer):
    """``a + b`` as a functional-model operation (kept so that ConvNeXt configs saved before
    blocks wrote ``inputs + x``, an operation node, still load)."""

    _tw_operation = True

    def call(self, a, b) -> Tensor:
        return a + b


def convnext_block(inputs, dim: int, drop_path_rate: float, layer_scale_init_value,
                   prefix: str) -> KerasTensor:
    """One ConvNeXt block: depthwise 7x7, LayerNorm, Dense(4 dim), GELU, Dense(dim), scale,
    added to ``inputs``.

    Args:
        inputs: the block's input (``dim`` channels).
        dim: the channels.
        drop_path_rate: the stochastic-depth rate of the branch (0: an identity layer).
        layer_scale_init_value: the initial LayerScale (None: no LayerScale).
        prefix: the layer-name prefix (``convnext_tiny_stage_0_block_0``).

    Returns:
        The block's output.
    """
    x = layers.Conv2D(dim, kernel_size=7, padding="same", groups=dim,
                      name=f"{prefix}_depthwise_conv")(inputs)
    x = layers.LayerNormalization(epsilon=1e-6, name=f"{prefix}_layernorm")(x)
    x = layers.Dense(4 * dim, name=f"{prefix}_pointwise_conv_1")(x)
    x = layers.Activation("gelu", name=f"{prefix}_gelu")(x)
    x = layers.Dense(dim, name=f"{prefix}_pointwise_conv_2")(x)
    if layer_scale_init_value is not None:
        x = LayerScale(layer_scale_init_value, dim, name=f"{prefix}_layer_scale")(x)
    if drop_path_rate:
        x = StochasticDepth(drop_path_rate, name=f"{prefix}_stochastic_depth")(x)
    else:
        x = layers.Activation("linear", name=f"{prefix}_identity")(x)
    return inputs + x  # an operation node, as Keras writes it


def convnext(variant: str, include_top=True, include_preprocessing=True, weights=None,
             input_tensor=None, input_shape=None, pooling=None, classes=1000,
             classifier_activation="softmax", name=None, drop_path_rate: float = 0.0,
             layer_scale_init_value: float | None = 1e-6) -> Model:
    """A ConvNeXt of the given variant (``"tiny"`` ... ``"xlarge"``).

    Args:
        variant: the variant.
        include_top, include_preprocessing, weights, input_tensor, input_shape, pooling, classes,
            classifier_activation: as in ``ConvNeXtTiny``.
        name: the model name (default ``convnext_<variant>``).
        drop_path_rate: the stochastic-depth rate of the last block (linear from 0).
        layer_scale_init_value: the initial LayerScale (None: no LayerScale).

    Returns:
        The Keras model.
    """
    depths, dims = VARIANTS[variant]
    name = name or f"convnext_{variant}"
    _heads.require_channels_last("ConvNeXt")
    file_name = _common.weights_file(f"convnext_{variant}", include_top)
    img_input, shape = _common.model_input(weights, include_top, classes, input_shape,
                                           input_tensor, file_name)
    x = img_input
    if include_preprocessing and shape[-1] == 3:
        x = layers.Normalization(
            mean=[0.485 * 255, 0.456 * 255, 0.406 * 255],
            variance=[(0.229 * 255) ** 2, (0.224 * 255) ** 2, (0.225 * 255) ** 2],
            name=f"{name}_prestem_normalization")(x)
    downsample = [Sequential([
        layers.Conv2D(dims[0], kernel_size=4, strides=4, name=f"{name}_stem_conv"),
        layers.LayerNormalization(epsilon=1e-6, name=f"{name}_stem_layernorm")],
        name=f"{name}_stem")]
    for i in range(3):
        downsample.append(Sequential([
            layers.LayerNormalization(epsilon=1e-6, name=f"{name}_downsampling_layernorm_{i}"),
            layers.Conv2D(dims[i + 1], kernel_size=2, strides=2,
                          name=f"{name}_downsampling_conv_{i}")],
            name=f"{name}_downsampling_block_{i}"))
    rates = [float(r) for r in np.linspace(0.0, drop_path_rate, sum(depths))]
    cur = 0
    for i in range(4):
        x = downsample[i](x)
        for j in range(depths[i]):
            x = convnext_block(x, dims[i], rates[cur + j], layer_scale_init_value,
                               f"{name}_stage_{i}_block_{j}")
        cur += depths[i]
    if include_top:
        imagenet_utils.validate_activation(classifier_activation, weights)
        x = layers.GlobalAveragePooling2D(name=f"{name}_head_gap")(x)
        x = layers.LayerNormalization(epsilon=1e-6, name=f"{name}_head_layernorm")(x)
        x = layers.Dense(classes, activation=classifier_activation,
                         name=f"{name}_head_dense")(x)
    else:
        x = _heads.top(x, False, pooling, classes, classifier_activation, weights)
        x = layers.LayerNormalization(epsilon=1e-6)(x)
    return _common.build_model(img_input, x, input_tensor, name, weights, file_name)




def _variant(v: str) -> Callable:
    return _common.constructor(
        f"ConvNeXt{v.capitalize() if v != 'xlarge' else 'XLarge'}",
        lambda **kw: convnext(v, **kw), f"convnext_{v}",
        ("include_top", "include_preprocessing", *_common.KERAS_ORDER[1:]),
        args=_heads.PREPROCESSING_ARG, extra="Default input 224x224; channels_last only.\n\n")


ConvNeXtTiny, ConvNeXtSmall, ConvNeXtBase, ConvNeXtLarge, ConvNeXtXLarge = map(_variant, VARIANTS)


preprocess_input = _common.preprocessor(None)
