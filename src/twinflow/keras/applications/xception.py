"""Xception (Chollet, 2017), as ``keras.applications.xception``.

Depthwise-separable convolutions in residual blocks: an entry flow that downsamples three
times, eight middle blocks, an exit flow. Layer names, order and parameter counts are Keras 3's
(the 1x1 shortcut convolutions are unnamed: ``conv2d``, ``batch_normalization``...).
"""
from __future__ import annotations

from .. import layers
from ..layers.keras_tensor import KerasTensor
from ..models import Model
from . import _common, _heads
from .imagenet_utils import decode_predictions  # noqa: F401  (the module's, as in Keras)


def _sep_bn(x, filters: int, prefix: str, act: str | None, axis: int) -> KerasTensor:
    """Optional ReLU (named ``act``), a 3x3 SeparableConv2D and its BatchNormalization."""
    if act is not None:
        x = layers.Activation("relu", name=act)(x)
    x = layers.SeparableConv2D(filters, (3, 3), padding="same", use_bias=False, name=prefix)(x)
    return layers.BatchNormalization(axis=axis, name=f"{prefix}_bn")(x)


def _down_block(x, filters: tuple, block: int, axis: int, first_relu: bool = True) -> KerasTensor:
    """A downsampling residual block: two separable convolutions and a max pool, plus a strided
    1x1 convolution shortcut."""
    residual = layers.Conv2D(filters[1], (1, 1), strides=(2, 2), padding="same",
                             use_bias=False)(x)
    residual = layers.BatchNormalization(axis=axis)(residual)
    p = f"block{block}"
    x = _sep_bn(x, filters[0], f"{p}_sepconv1", f"{p}_sepconv1_act" if first_relu else None,
                axis)
    x = _sep_bn(x, filters[1], f"{p}_sepconv2", f"{p}_sepconv2_act", axis)
    x = layers.MaxPooling2D((3, 3), strides=(2, 2), padding="same", name=f"{p}_pool")(x)
    return layers.add([x, residual])


def Xception(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
             pooling=None, classes=1000, classifier_activation="softmax", name="xception") -> Model:
    file_name = _common.kernels_file("xception", include_top)
    img_input, _ = _common.model_input(weights, include_top, classes, input_shape, input_tensor,
                                       file_name, default_size=299, min_size=71)
    axis = -1 if _heads.channel_axis() == 3 else 1
    x = img_input
    for i, filters in enumerate((32, 64)):
        p = f"block1_conv{i + 1}"
        x = layers.Conv2D(filters, (3, 3), strides=(2, 2) if i == 0 else (1, 1), use_bias=False,
                          name=p)(x)
        x = layers.BatchNormalization(axis=axis, name=f"{p}_bn")(x)
        x = layers.Activation("relu", name=f"{p}_act")(x)
    x = _down_block(x, (128, 128), 2, axis, first_relu=False)
    x = _down_block(x, (256, 256), 3, axis)
    x = _down_block(x, (728, 728), 4, axis)
    for block in range(5, 13):
        residual = x
        for i in range(1, 4):
            p = f"block{block}_sepconv{i}"
            x = _sep_bn(x, 728, p, f"{p}_act", axis)
        x = layers.add([x, residual])
    x = _down_block(x, (728, 1024), 13, axis)
    for i, filters in enumerate((1536, 2048)):
        p = f"block14_sepconv{i + 1}"
        x = _sep_bn(x, filters, p, None, axis)
        x = layers.Activation("relu", name=f"{p}_act")(x)
    x = _heads.top(x, include_top, pooling, classes, classifier_activation, weights)
    return _common.build_model(img_input, x, input_tensor, name, weights, file_name)


_common.document(Xception, "Xception",
                 extra=f"Default input 299x299 (at least 71x71); {_heads.TO_PLUS_MINUS_ONE}.\n\n")

preprocess_input = _common.preprocessor("tf")
