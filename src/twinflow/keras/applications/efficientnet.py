"""EfficientNet B0 to B7 (Tan and Le, 2019), as ``keras.applications.efficientnet``.

The network scales one baseline (seven stages of inverted-residual "MBConv" blocks with
squeeze-and-excitation) in width and depth. Layer names, order and parameter counts are
Keras 3's; preprocessing (``Rescaling`` + ``Normalization``) is part of the model, so
``preprocess_input`` returns its input.
"""
from __future__ import annotations

import math
from collections.abc import Callable

from .. import initializers, layers
from ..layers.keras_tensor import KerasTensor
from ..models import Model
from . import _common, _heads, imagenet_utils
from .imagenet_utils import decode_predictions  # noqa: F401  (the module's, as in Keras)

# (kernel size, repeats, filters in, filters out, expand ratio, strides) of the seven stages;
# every block has a skip connection where shapes allow and squeeze-excitation ratio 0.25
BASELINE = [(3, 1, 32, 16, 1, 1), (3, 2, 16, 24, 6, 2), (5, 2, 24, 40, 6, 2),
            (3, 3, 40, 80, 6, 2), (5, 3, 80, 112, 6, 1), (5, 4, 112, 192, 6, 2),
            (3, 1, 192, 320, 6, 1)]
_IMAGENET_STDDEV = [0.229, 0.224, 0.225]
# width, depth, default image size, top dropout rate
VARIANTS = {"b0": (1.0, 1.0, 224, 0.2), "b1": (1.0, 1.1, 240, 0.2), "b2": (1.1, 1.2, 260, 0.3),
            "b3": (1.2, 1.4, 300, 0.3), "b4": (1.4, 1.8, 380, 0.4), "b5": (1.6, 2.2, 456, 0.4),
            "b6": (1.8, 2.6, 528, 0.5), "b7": (2.0, 3.1, 600, 0.5)}


def conv_init() -> initializers.Initializer:
    """The convolution kernels' initializer (EfficientNet's: He-like, by fan out)."""
    return initializers.VarianceScaling(scale=2.0, mode="fan_out",
                                        distribution="truncated_normal")


def dense_init() -> initializers.Initializer:
    """The classifier's kernel initializer."""
    return initializers.VarianceScaling(scale=1.0 / 3.0, mode="fan_out", distribution="uniform")


def squeeze_excite(x, filters_in: int, se_ratio: float, activation: str, prefix: str,
                   bn_axis: int) -> KerasTensor:
    """Squeeze-and-excitation: ``x`` scaled per channel by a gate computed from its mean.

    Args:
        x: the block's features.
        filters_in: the channels of the block's input.
        se_ratio: the bottleneck's channels, as a fraction of ``filters_in``; outside
            ``(0, 1]``, no squeeze-and-excitation (``x`` is returned).
        activation: the bottleneck's activation.
        prefix: the block's name prefix.
        bn_axis: the channel axis.

    Returns:
        The gated features.
    """
    if not 0 < se_ratio <= 1:
        return x
    filters, filters_se = x.shape[bn_axis], max(1, int(filters_in * se_ratio))
    se = layers.GlobalAveragePooling2D(name=f"{prefix}se_squeeze")(x)
    shape = (filters, 1, 1) if bn_axis == 1 else (1, 1, filters)
    se = layers.Reshape(shape, name=f"{prefix}se_reshape")(se)
    se = layers.Conv2D(filters_se, 1, padding="same", activation=activation,
                       kernel_initializer=conv_init(), name=f"{prefix}se_reduce")(se)
    se = layers.Conv2D(filters, 1, padding="same", activation="sigmoid",
                       kernel_initializer=conv_init(), name=f"{prefix}se_expand")(se)
    return layers.multiply([x, se], name=f"{prefix}se_excite")


def conv_bn(x, filters: int, kernel, prefix: str, bn_axis: int, strides=1,
            activation: str | None = None, momentum: float = 0.99) -> KerasTensor:
    """A bias-free ``Conv2D`` ("same" padding) named ``prefix`` (``block1a_expand_conv``),
    its ``BatchNormalization`` and activation (``block1a_expand_bn``,
    ``block1a_expand_activation``).

    Args:
        x: the input.
        filters: the output channels.
        kernel: the kernel size.
        prefix: the convolution's name, ending in ``conv``.
        bn_axis: the channel axis.
        strides: the strides.
        activation: the activation (None: none).
        momentum: the batch normalization momentum.

    Returns:
        The output.
    """
    stem = prefix[:-len("conv")] if prefix.endswith("conv") else prefix
    x = layers.Conv2D(filters, kernel, strides=strides, padding="same", use_bias=False,
                      kernel_initializer=conv_init(), name=prefix)(x)
    x = layers.BatchNormalization(axis=bn_axis, momentum=momentum, name=f"{stem}bn")(x)
    if activation is not None:
        x = layers.Activation(activation, name=f"{stem}activation")(x)
    return x


def expand_conv(inputs, filters: int, activation: str, prefix: str, bn_axis: int,
                kernel_size: int = 1, strides: int = 1, momentum: float = 0.99) -> KerasTensor:
    """The start of an MBConv block: a ``conv_bn`` named ``{prefix}expand_conv`` to ``filters``
    channels, or ``inputs`` itself if it has ``filters`` channels already (expand ratio 1).

    Args:
        inputs: the block's input.
        filters: the expanded channels.
        activation: the activation.
        prefix: the block's name prefix.
        bn_axis: the channel axis.
        kernel_size: the convolution's kernel size (1; 3 in fused blocks).
        strides: the convolution's strides (fused blocks stride here).
        momentum: the batch normalization momentum.

    Returns:
        The expanded features.
    """
    if inputs.shape[bn_axis] == filters:
        return inputs
    return conv_bn(inputs, filters, kernel_size, f"{prefix}expand_conv", bn_axis,
                   strides=strides, activation=activation, momentum=momentum)


def mbconv(inputs, activation: str, drop_rate: float, prefix: str, filters_in: int,
           filters_out: int, kernel_size: int, strides: int, expand_ratio: int,
           se_ratio: float = 0.25) -> KerasTensor:
    """One inverted-residual block (EfficientNet's ``block``).

    Args:
        inputs: the block's input.
        activation: the activation.
        drop_rate: the rate of the per-sample dropout on the residual branch.
        prefix: the layer-name prefix (``block2a_``).
        filters_in: the input channels.
        filters_out: the output channels.
        kernel_size: the depthwise kernel size.
        strides: the depthwise strides.
        expand_ratio: the expansion of the 1x1 convolution before the depthwise one.
        se_ratio: the squeeze-excitation bottleneck ratio (to ``filters_in``).

    Returns:
        The block's output.
    """
    bn_axis = _heads.channel_axis()
    x = expand_conv(inputs, filters_in * expand_ratio, activation, prefix, bn_axis)
    padding = "same"
    if strides == 2:
        x = layers.ZeroPadding2D(imagenet_utils.correct_pad(x, kernel_size),
                                 name=f"{prefix}dwconv_pad")(x)
        padding = "valid"
    x = layers.DepthwiseConv2D(kernel_size, strides=strides, padding=padding, use_bias=False,
                               depthwise_initializer=conv_init(), name=f"{prefix}dwconv")(x)
    x = layers.BatchNormalization(axis=bn_axis, name=f"{prefix}bn")(x)
    x = layers.Activation(activation, name=f"{prefix}activation")(x)
    x = squeeze_excite(x, filters_in, se_ratio, activation, prefix, bn_axis)
    x = layers.Conv2D(filters_out, 1, padding="same", use_bias=False,
                      kernel_initializer=conv_init(), name=f"{prefix}project_conv")(x)
    x = layers.BatchNormalization(axis=bn_axis, name=f"{prefix}project_bn")(x)
    return skip_connection(x, inputs, strides == 1 and filters_in == filters_out, drop_rate,
                           prefix)


def skip_connection(x, inputs, same_shape: bool, drop_rate: float, prefix: str) -> KerasTensor:
    """The end of an MBConv block: where the block keeps the shape, ``x`` (after per-sample
    dropout) added to the block's input; else ``x``.

    Args:
        x: the block's projected features.
        inputs: the block's input.
        same_shape: whether the block keeps the shape (stride 1, as many channels out as in).
        drop_rate: the rate of the per-sample dropout (``Dropout`` over whole samples).
        prefix: the block's name prefix.

    Returns:
        The block's output.
    """
    if not same_shape:
        return x
    if drop_rate > 0:
        x = layers.Dropout(drop_rate, noise_shape=(None, 1, 1, 1), name=f"{prefix}drop")(x)
    return layers.add([x, inputs], name=f"{prefix}add")


def round_filters(filters: float, width: float, divisor: int = 8) -> int:
    """``filters`` scaled by ``width``, rounded to a multiple of ``divisor`` (never down by
    more than 10%).

    Args:
        filters: the baseline's channels.
        width: the width multiplier.
        divisor: the multiple.

    Returns:
        The channels.
    """
    filters *= width
    rounded = max(divisor, int(filters + divisor / 2) // divisor * divisor)
    if rounded < 0.9 * filters:
        rounded += divisor
    return int(rounded)


def efficientnet(variant: str, include_top=True, weights=None, input_tensor=None,
                 input_shape=None, pooling=None, classes=1000,
                 classifier_activation="softmax", name=None, drop_connect_rate: float = 0.2,
                 activation: str = "swish") -> Model:
    """An EfficientNet of the given variant (``"b0"`` ... ``"b7"``).

    Args:
        variant: the variant.
        include_top, weights, input_tensor, input_shape, pooling, classes,
            classifier_activation: as in ``EfficientNetB0``.
        name: the model name (default ``efficientnet<variant>``).
        drop_connect_rate: the largest per-block dropout rate (growing with depth).
        activation: the activation of every block.

    Returns:
        The Keras model.
    """
    width, depth, size, dropout = VARIANTS[variant]
    name = name or f"efficientnet{variant}"
    file_name = _common.weights_file(f"efficientnet{variant}", include_top)
    img_input, _ = _common.model_input(weights, include_top, classes, input_shape,
                                       input_tensor, file_name, default_size=size)
    bn_axis = _heads.channel_axis()
    x = layers.Rescaling(1.0 / 255.0)(img_input)
    x = layers.Normalization(axis=bn_axis)(x)
    if weights == "imagenet":
        # Keras' ImageNet files hold the variance, not the std, in Normalization: Keras
        # corrects it with this layer, only for weights="imagenet"
        x = layers.Rescaling([1.0 / math.sqrt(s) for s in _IMAGENET_STDDEV])(x)
    x = layers.ZeroPadding2D(imagenet_utils.correct_pad(x, 3), name="stem_conv_pad")(x)
    x = layers.Conv2D(round_filters(32, width), 3, strides=2, padding="valid", use_bias=False,
                      kernel_initializer=conv_init(), name="stem_conv")(x)
    x = layers.BatchNormalization(axis=bn_axis, name="stem_bn")(x)
    x = layers.Activation(activation, name="stem_activation")(x)
    stages = [(k, int(math.ceil(depth * r)), round_filters(fi, width), round_filters(fo, width),
               e, s) for k, r, fi, fo, e, s in BASELINE]
    total = float(sum(st[1] for st in stages))
    b = 0
    for i, (kernel, repeats, f_in, f_out, expand, strides) in enumerate(stages):
        for j in range(repeats):
            x = mbconv(x, activation, drop_connect_rate * b / total, f"block{i + 1}{chr(97 + j)}_",
                       f_in if j == 0 else f_out, f_out, kernel, strides if j == 0 else 1,
                       expand)
            b += 1
    x = layers.Conv2D(round_filters(1280, width), 1, padding="same", use_bias=False,
                      kernel_initializer=conv_init(), name="top_conv")(x)
    x = layers.BatchNormalization(axis=bn_axis, name="top_bn")(x)
    x = layers.Activation(activation, name="top_activation")(x)
    x = _heads.top(x, include_top, pooling, classes, classifier_activation, weights,
                    dropout=dropout, dense_kwargs={"kernel_initializer": dense_init()},
                    pooled_names=("avg_pool", "max_pool"))
    return _common.build_model(img_input, x, input_tensor, name, weights, file_name)




def _variant(v: str) -> Callable:
    size = VARIANTS[v][2]
    return _common.constructor(
        f"EfficientNet{v.upper()}", lambda **kw: efficientnet(v, **kw), f"efficientnet{v}",
        extra=(f"Default input {size}x{size}; its ``Rescaling`` and ``Normalization`` layers "
               "preprocess ``[0, 255]`` images.\n\n"))


(EfficientNetB0, EfficientNetB1, EfficientNetB2, EfficientNetB3, EfficientNetB4, EfficientNetB5,
 EfficientNetB6, EfficientNetB7) = map(_variant, VARIANTS)


preprocess_input = _common.preprocessor(None)
