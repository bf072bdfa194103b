"""EfficientNetV2 B0-B3, S, M and L (Tan and Le, 2021), as
``keras.applications.efficientnet_v2``.

Early stages use fused MBConv blocks (one full convolution instead of 1x1 expansion plus
depthwise), later ones MBConv with squeeze-and-excitation. Layer names, order and parameter
counts are Keras 3's. With ``include_preprocessing`` the model rescales its ``[0, 255]`` input
itself, so ``preprocess_input`` returns its input.
"""
from __future__ import annotations

import math
from collections.abc import Callable

from .. import initializers, layers
from ..layers.keras_tensor import KerasTensor
from ..models import Model
from . import _common, _heads
from .efficientnet import (
    conv_bn,
    conv_init,
    dense_init,
    expand_conv,
    skip_connection,
    squeeze_excite,
)
from .imagenet_utils import decode_predictions  # noqa: F401  (the module's, as in Keras)

# (fused, repeats, filters in, filters out, expand ratio, se ratio, strides); kernel size 3
_B = [(1, 1, 32, 16, 1, 0, 1), (1, 2, 16, 32, 4, 0, 2), (1, 2, 32, 48, 4, 0, 2),
      (0, 3, 48, 96, 4, .25, 2), (0, 5, 96, 112, 6, .25, 1), (0, 8, 112, 192, 6, .25, 2)]
STAGES = {
    "s": [(1, 2, 24, 24, 1, 0, 1), (1, 4, 24, 48, 4, 0, 2), (1, 4, 48, 64, 4, 0, 2),
          (0, 6, 64, 128, 4, .25, 2), (0, 9, 128, 160, 6, .25, 1),
          (0, 15, 160, 256, 6, .25, 2)],
    "m": [(1, 3, 24, 24, 1, 0, 1), (1, 5, 24, 48, 4, 0, 2), (1, 5, 48, 80, 4, 0, 2),
          (0, 7, 80, 160, 4, .25, 2), (0, 14, 160, 176, 6, .25, 1),
          (0, 18, 176, 304, 6, .25, 2), (0, 5, 304, 512, 6, .25, 1)],
    "l": [(1, 4, 32, 32, 1, 0, 1), (1, 7, 32, 64, 4, 0, 2), (1, 7, 64, 96, 4, 0, 2),
          (0, 10, 96, 192, 4, .25, 2), (0, 19, 192, 224, 6, .25, 1),
          (0, 25, 224, 384, 6, .25, 2), (0, 7, 384, 640, 6, .25, 1)],
    "b0": _B, "b1": _B, "b2": _B, "b3": _B,
}
# width, depth, default image size
VARIANTS = {"b0": (1.0, 1.0, 224), "b1": (1.0, 1.1, 240), "b2": (1.1, 1.2, 260),
            "b3": (1.2, 1.4, 300), "s": (1.0, 1.0, 384), "m": (1.0, 1.0, 480),
            "l": (1.0, 1.0, 480)}
_MOMENTUM = 0.9


def round_filters(filters: float, width: float, divisor: int = 8) -> int:
    """``filters`` scaled by ``width`` and rounded to a multiple of ``divisor``: as
    ``efficientnet.round_filters``, but without its 10% rule.

    Args:
        filters, width, divisor: as in ``efficientnet.round_filters``.

    Returns:
        The channels.
    """
    return int(max(divisor, int(filters * width + divisor / 2) // divisor * divisor))


def block(inputs, fused: bool, filters_in: int, filters_out: int, expand_ratio: int,
          se_ratio: float, strides: int, rate: float, activation: str, prefix: str) -> KerasTensor:
    """One MBConv (``fused`` False) or fused MBConv block.

    Args:
        inputs: the block's input.
        fused: whether the expansion is a full 3x3 convolution (no depthwise convolution).
        filters_in: the input channels.
        filters_out: the output channels.
        expand_ratio: the expansion ratio.
        se_ratio: the squeeze-excitation ratio (0: none).
        strides: the strides.
        rate: the per-sample dropout rate of the residual branch ("survival probability" in
            Keras, used as the rate as Keras does).
        activation: the activation.
        prefix: the layer-name prefix (``block1a_``).

    Returns:
        The block's output.
    """
    bn_axis = _heads.channel_axis()
    x = expand_conv(inputs, filters_in * expand_ratio, activation, prefix, bn_axis,
                    3 if fused else 1, strides if fused else 1, _MOMENTUM)
    if not fused:
        x = layers.DepthwiseConv2D(3, strides=strides, padding="same", use_bias=False,
                                   depthwise_initializer=conv_init(),
                                   name=f"{prefix}dwconv2")(x)
        x = layers.BatchNormalization(axis=bn_axis, momentum=_MOMENTUM, name=f"{prefix}bn")(x)
        x = layers.Activation(activation, name=f"{prefix}activation")(x)
    x = squeeze_excite(x, filters_in, se_ratio, activation, prefix, bn_axis)
    plain = fused and expand_ratio == 1  # the projection is the block's only convolution
    x = layers.Conv2D(filters_out, 3 if plain else 1, strides=strides if plain else 1,
                      padding="same", use_bias=False, kernel_initializer=conv_init(),
                      name=f"{prefix}project_conv")(x)
    x = layers.BatchNormalization(axis=bn_axis, momentum=_MOMENTUM,
                                  name=f"{prefix}project_bn")(x)
    if plain:
        x = layers.Activation(activation, name=f"{prefix}project_activation")(x)
    return skip_connection(x, inputs, strides == 1 and filters_in == filters_out, rate, prefix)


def efficientnet_v2(variant: str, include_top=True, weights=None, input_tensor=None,
                    input_shape=None, pooling=None, classes=1000,
                    classifier_activation="softmax", include_preprocessing=True, name=None,
                    dropout_rate: float = 0.2, drop_connect_rate: float = 0.2,
                    activation: str = "swish") -> Model:
    """An EfficientNetV2 of the given variant (``"b0"``-``"b3"``, ``"s"``, ``"m"``, ``"l"``).

    Args:
        variant: the variant.
        include_top, weights, input_tensor, input_shape, pooling, classes,
            classifier_activation, include_preprocessing: as in ``EfficientNetV2B0``.
        name: the model name (default ``efficientnetv2-<variant>``).
        dropout_rate: the rate of the Dropout before the classifier.
        drop_connect_rate: the largest per-block dropout rate (growing with depth).
        activation: the activation of every block.

    Returns:
        The Keras model.
    """
    width, depth, size = VARIANTS[variant]
    name = name or f"efficientnetv2-{variant}"
    file_name = _common.weights_file(f"efficientnetv2-{variant}", include_top)
    img_input, shape = _common.model_input(weights, include_top, classes, input_shape,
                                           input_tensor, file_name, default_size=size)
    bn_axis = _heads.channel_axis()
    x = img_input
    if include_preprocessing:
        # Keras picks the preprocessing by the model name; twinflow by the variant, so a
        # custom name keeps the variant's preprocessing
        if variant.startswith("b") and shape[bn_axis - 1] == 3:
            x = layers.Rescaling(scale=1.0 / 255)(x)
            x = layers.Normalization(mean=[0.485, 0.456, 0.406],
                                     variance=[0.229 ** 2, 0.224 ** 2, 0.225 ** 2],
                                     axis=bn_axis)(x)
        else:
            x = layers.Rescaling(scale=1.0 / 128.0, offset=-1)(x)
    stages = STAGES[variant]
    x = conv_bn(x, round_filters(stages[0][2], width), 3, "stem_conv", bn_axis, strides=2,
                activation=activation, momentum=_MOMENTUM)
    total = float(sum(st[1] for st in stages))
    b = 0
    for i, (fused, repeats, f_in, f_out, expand, se, strides) in enumerate(stages):
        f_in, f_out = round_filters(f_in, width), round_filters(f_out, width)
        for j in range(int(math.ceil(depth * repeats))):
            x = block(x, bool(fused), f_in if j == 0 else f_out, f_out, expand, se,
                      strides if j == 0 else 1, drop_connect_rate * b / total, activation,
                      f"block{i + 1}{chr(97 + j)}_")
            b += 1
    x = conv_bn(x, round_filters(1280, width), 1, "top_conv", bn_axis, activation=activation,
                momentum=_MOMENTUM)
    x = _heads.top(x, include_top, pooling, classes, classifier_activation, weights,
                    dropout=dropout_rate, pooled_names=("avg_pool", "max_pool"),
                    dense_kwargs={"kernel_initializer": dense_init(),
                                  "bias_initializer": initializers.Constant(0.0)})
    return _common.build_model(img_input, x, input_tensor, name, weights, file_name)




def _variant(v: str) -> Callable:
    return _common.constructor(
        f"EfficientNetV2{v.upper()}", lambda **kw: efficientnet_v2(v, **kw),
        f"efficientnetv2-{v}", (*_common.KERAS_ORDER, "include_preprocessing"),
        args=_heads.PREPROCESSING_ARG,
        extra=f"Default input {VARIANTS[v][2]}x{VARIANTS[v][2]}.\n\n")


(EfficientNetV2B0, EfficientNetV2B1, EfficientNetV2B2, EfficientNetV2B3, EfficientNetV2S,
 EfficientNetV2M, EfficientNetV2L) = map(_variant, VARIANTS)


preprocess_input = _common.preprocessor(None)
