"""Inception V3 (Szegedy et al., 2016), as ``keras.applications.inception_v3``.

Layer names, order and parameter counts are Keras 3's: the convolutions are unnamed
(``conv2d``, ``conv2d_1``...), the mixing concatenations named ``mixed0`` ... ``mixed10``.
"""
from __future__ import annotations

from .. import layers
from ..layers.keras_tensor import KerasTensor
from ..models import Model
from . import _common, _heads
from .imagenet_utils import decode_predictions  # noqa: F401  (the module's, as in Keras)


def conv2d_bn(x, filters: int, rows: int, cols: int, padding: str = "same", strides=(1, 1),
              name: str | None = None) -> KerasTensor:
    """A bias-free ``Conv2D``, ``BatchNormalization(scale=False)`` and ReLU.

    Args:
        x: the input.
        filters: the output channels.
        rows: the kernel height.
        cols: the kernel width.
        padding: the convolution padding.
        strides: the strides.
        name: the names' stem (``{name}_conv``, ``{name}_bn``, ``{name}``); None: automatic.

    Returns:
        The output.
    """
    x = layers.Conv2D(filters, (rows, cols), strides=strides, padding=padding, use_bias=False,
                      name=None if name is None else f"{name}_conv")(x)
    x = layers.BatchNormalization(axis=_heads.channel_axis(), scale=False,
                                  name=None if name is None else f"{name}_bn")(x)
    return layers.Activation("relu", name=name)(x)


def _avg_branch(x, filters: int) -> KerasTensor:
    pool = layers.AveragePooling2D((3, 3), strides=(1, 1), padding="same")(x)
    return conv2d_bn(pool, filters, 1, 1)


def _block_35(x, pool_filters: int, name: str) -> KerasTensor:
    """The 35x35 module: 1x1, 5x5, double 3x3 and pooled branches."""
    b1 = conv2d_bn(x, 64, 1, 1)
    b5 = conv2d_bn(conv2d_bn(x, 48, 1, 1), 64, 5, 5)
    b3 = conv2d_bn(conv2d_bn(conv2d_bn(x, 64, 1, 1), 96, 3, 3), 96, 3, 3)
    return layers.concatenate([b1, b5, b3, _avg_branch(x, pool_filters)],
                              axis=_heads.channel_axis(), name=name)


def _block_17(x, width: int, name: str) -> KerasTensor:
    """The 17x17 module with factorized 7x7 convolutions of ``width`` inner channels."""
    b1 = conv2d_bn(x, 192, 1, 1)
    b7 = conv2d_bn(conv2d_bn(conv2d_bn(x, width, 1, 1), width, 1, 7), 192, 7, 1)
    d = conv2d_bn(x, width, 1, 1)
    for rows, cols, filters in ((7, 1, width), (1, 7, width), (7, 1, width), (1, 7, 192)):
        d = conv2d_bn(d, filters, rows, cols)
    return layers.concatenate([b1, b7, d, _avg_branch(x, 192)], axis=_heads.channel_axis(),
                              name=name)


def _block_8(x, i: int) -> KerasTensor:
    """The 8x8 module with split 1x3/3x1 branches."""
    axis = _heads.channel_axis()
    b1 = conv2d_bn(x, 320, 1, 1)
    b3 = conv2d_bn(x, 384, 1, 1)
    b3 = layers.concatenate([conv2d_bn(b3, 384, 1, 3), conv2d_bn(b3, 384, 3, 1)], axis=axis,
                            name=f"mixed9_{i}")
    d = conv2d_bn(conv2d_bn(x, 448, 1, 1), 384, 3, 3)
    d = layers.concatenate([conv2d_bn(d, 384, 1, 3), conv2d_bn(d, 384, 3, 1)], axis=axis)
    return layers.concatenate([b1, b3, d, _avg_branch(x, 192)], axis=axis, name=f"mixed{9 + i}")


def InceptionV3(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
                pooling=None, classes=1000, classifier_activation="softmax",
                name="inception_v3") -> Model:
    file_name = _common.kernels_file("inception_v3", include_top)
    img_input, _ = _common.model_input(weights, include_top, classes, input_shape, input_tensor,
                                       file_name, default_size=299, min_size=75)
    axis = _heads.channel_axis()
    x = conv2d_bn(img_input, 32, 3, 3, strides=(2, 2), padding="valid")
    x = conv2d_bn(x, 32, 3, 3, padding="valid")
    x = conv2d_bn(x, 64, 3, 3)
    x = layers.MaxPooling2D((3, 3), strides=(2, 2))(x)
    x = conv2d_bn(x, 80, 1, 1, padding="valid")
    x = conv2d_bn(x, 192, 3, 3, padding="valid")
    x = layers.MaxPooling2D((3, 3), strides=(2, 2))(x)
    for i, pool_filters in enumerate((32, 64, 64)):
        x = _block_35(x, pool_filters, f"mixed{i}")
    b3 = conv2d_bn(x, 384, 3, 3, strides=(2, 2), padding="valid")
    d = conv2d_bn(conv2d_bn(conv2d_bn(x, 64, 1, 1), 96, 3, 3), 96, 3, 3, strides=(2, 2),
                  padding="valid")
    x = layers.concatenate([b3, d, layers.MaxPooling2D((3, 3), strides=(2, 2))(x)], axis=axis,
                           name="mixed3")
    for i, width in enumerate((128, 160, 160, 192)):
        x = _block_17(x, width, f"mixed{4 + i}")
    b3 = conv2d_bn(conv2d_bn(x, 192, 1, 1), 320, 3, 3, strides=(2, 2), padding="valid")
    b7 = conv2d_bn(conv2d_bn(conv2d_bn(x, 192, 1, 1), 192, 1, 7), 192, 7, 1)
    b7 = conv2d_bn(b7, 192, 3, 3, strides=(2, 2), padding="valid")
    x = layers.concatenate([b3, b7, layers.MaxPooling2D((3, 3), strides=(2, 2))(x)],
                           axis=axis, name="mixed8")
    for i in range(2):
        x = _block_8(x, i)
    x = _heads.top(x, include_top, pooling, classes, classifier_activation, weights)
    return _common.build_model(img_input, x, input_tensor, name, weights, file_name)


_common.document(InceptionV3, "InceptionV3",
                 extra=f"Default input 299x299 (at least 75x75); {_heads.TO_PLUS_MINUS_ONE}.\n\n")

preprocess_input = _common.preprocessor("tf")
