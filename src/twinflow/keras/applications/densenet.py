"""``tw.keras.applications.densenet``: DenseNet121/169/201 (Huang et al., 2016); layer names
and parameter counts as Keras 3."""
from __future__ import annotations

from collections.abc import Callable

from .. import backend, layers
from ..layers.keras_tensor import KerasTensor
from ..models import Model
from . import _common
from .imagenet_utils import decode_predictions

preprocess_input = _common.preprocessor("torch")

_EPS = 1.001e-5


def _bn_relu(x, name: str):
    x = layers.BatchNormalization(axis=3, epsilon=_EPS, name=f"{name}_bn")(x)
    return layers.Activation("relu", name=f"{name}_relu")(x)


def conv_block(x, growth_rate: int, name: str) -> KerasTensor:
    """One dense layer: BN-ReLU-1x1 conv (4 * growth_rate), BN-ReLU-3x3 conv (growth_rate),
    its output concatenated to its input.

    Args:
        x: the input KerasTensor.
        growth_rate: the channels it adds.
        name: its name prefix.

    Returns:
        The input with ``growth_rate`` more channels.
    """
    y = _bn_relu(x, f"{name}_0")
    y = layers.Conv2D(4 * growth_rate, 1, use_bias=False, name=f"{name}_1_conv")(y)
    y = _bn_relu(y, f"{name}_1")
    y = layers.Conv2D(growth_rate, 3, padding="same", use_bias=False, name=f"{name}_2_conv")(y)
    return layers.Concatenate(axis=3, name=f"{name}_concat")([x, y])


def dense_block(x, blocks: int, name: str) -> KerasTensor:
    """``blocks`` dense layers (``conv_block``) of growth rate 32.

    Args:
        x: the input KerasTensor.
        blocks: how many.
        name: the block's name prefix.

    Returns:
        The block's output.
    """
    for i in range(blocks):
        x = conv_block(x, 32, name=f"{name}_block{i + 1}")
    return x


def transition_block(x, reduction: float, name: str) -> KerasTensor:
    """BN-ReLU, a 1x1 convolution to ``reduction`` times the channels, 2x2 average pooling.

    Args:
        x: the input KerasTensor.
        reduction: the channel compression.
        name: the block's name prefix.

    Returns:
        The block's output.
    """
    x = _bn_relu(x, name)
    x = layers.Conv2D(int(x.shape[3] * reduction), 1, use_bias=False, name=f"{name}_conv")(x)
    return layers.AveragePooling2D(2, strides=2, name=f"{name}_pool")(x)


def DenseNet(blocks: list, include_top: bool = True, weights="imagenet", input_tensor=None,
             input_shape=None, pooling=None, classes: int = 1000,
             classifier_activation="softmax", name: str = "densenet") -> Model:
    """Builds a DenseNet with ``blocks`` dense layers in each of its four dense blocks.

    Args:
        blocks: four numbers of dense layers.
        include_top, weights, input_tensor, input_shape, pooling, classes,
            classifier_activation, name: as in ``DenseNet121``.

    Returns:
        The model.

    Raises:
        ValueError: with ``channels_first`` images (unsupported, as in Keras).
    """
    if backend.image_data_format() == "channels_first":
        raise ValueError("DenseNet does not support the `channels_first` image data format. "
                         "Switch to `channels_last` (keras.backend.set_image_data_format).")
    depth = {(6, 12, 24, 16): 121, (6, 12, 32, 32): 169, (6, 12, 48, 32): 201}.get(
        tuple(blocks))
    file_name = _common.kernels_file(depth and f"densenet{depth}", include_top)
    img_input, _ = _common.model_input(weights, include_top, classes, input_shape,
                                       input_tensor, file_name)
    x = layers.ZeroPadding2D(padding=((3, 3), (3, 3)))(img_input)
    x = layers.Conv2D(64, 7, strides=2, use_bias=False, name="conv1_conv")(x)
    x = layers.BatchNormalization(axis=3, epsilon=_EPS, name="conv1_bn")(x)
    x = layers.Activation("relu", name="conv1_relu")(x)
    x = layers.ZeroPadding2D(padding=((1, 1), (1, 1)))(x)
    x = layers.MaxPooling2D(3, strides=2, name="pool1")(x)
    for i, n in enumerate(blocks):
        x = dense_block(x, n, name=f"conv{i + 2}")
        if i < 3:
            x = transition_block(x, 0.5, name=f"pool{i + 2}")
    x = layers.BatchNormalization(axis=3, epsilon=_EPS, name="bn")(x)
    x = layers.Activation("relu", name="relu")(x)
    x = _common.classifier_or_pooling(x, include_top, pooling, classes, classifier_activation,
                                      weights)
    return _common.build_model(img_input, x, input_tensor, name, weights, file_name)


def _densenet(blocks: list, depth: int) -> Callable:
    return _common.constructor(f"DenseNet{depth}", lambda **kw: DenseNet(blocks, **kw),
                               f"densenet{depth}")


DenseNet121 = _densenet([6, 12, 24, 16], 121)
DenseNet169 = _densenet([6, 12, 32, 32], 169)
DenseNet201 = _densenet([6, 12, 48, 32], 201)

__all__ = ["DenseNet121", "DenseNet169", "DenseNet201", "decode_predictions",
           "preprocess_input"]
