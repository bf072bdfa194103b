"""``tw.keras.applications.resnet``: ResNet50/101/152 (He et al., 2015) and the builder that
ResNet V2 shares; layer names and parameter counts as Keras 3."""
from __future__ import annotations

from collections.abc import Callable

from .. import backend, layers
from ..layers.keras_tensor import KerasTensor
from ..models import Model
from . import _common
from .imagenet_utils import decode_predictions

preprocess_input = _common.preprocessor("caffe")

_EPS = 1.001e-5


def _bn_axis() -> int:
    return 3 if backend.image_data_format() == "channels_last" else 1


def _bn(x, name: str):
    return layers.BatchNormalization(axis=_bn_axis(), epsilon=_EPS, name=name)(x)


def ResNet(stack_fn: Callable, preact: bool, use_bias: bool, include_top: bool = True,
           weights="imagenet", input_tensor=None, input_shape=None, pooling=None,
           classes: int = 1000, classifier_activation="softmax", name: str = "resnet",
           weights_name: str | None = None) -> Model:
    """Builds a ResNet (V1, or V2 with ``preact``) around the residual stacks of ``stack_fn``.

    Args:
        stack_fn: maps the stem's output to the output of the residual stacks.
        preact: pre-activation (ResNet V2): no batch norm after the stem, one at the end.
        use_bias: whether the stem convolution has a bias.
        include_top: whether to include the classifier.
        weights: None, ``"imagenet"`` (from the Keras cache) or a weights file.
        input_tensor: an optional KerasTensor to build on.
        input_shape: an optional input shape (without the batch dimension).
        pooling: None, ``"avg"`` or ``"max"`` without the classifier.
        classes: the number of classes.
        classifier_activation: the classifier's activation.
        name: the model's name.
        weights_name: the prefix of Keras' ImageNet weights files for this model.

    Returns:
        The model.
    """
    img_input, file_name = _common.standard_input(weights, include_top, classes, input_shape,
                                                  input_tensor, weights_name)
    x = layers.ZeroPadding2D(padding=((3, 3), (3, 3)), name="conv1_pad")(img_input)
    x = layers.Conv2D(64, 7, strides=2, use_bias=use_bias, name="conv1_conv")(x)
    if not preact:
        x = _bn(x, "conv1_bn")
        x = layers.Activation("relu", name="conv1_relu")(x)
    x = layers.ZeroPadding2D(padding=((1, 1), (1, 1)), name="pool1_pad")(x)
    x = layers.MaxPooling2D(3, strides=2, name="pool1_pool")(x)
    x = stack_fn(x)
    if preact:
        x = _bn(x, "post_bn")
        x = layers.Activation("relu", name="post_relu")(x)
    x = _common.classifier_or_pooling(x, include_top, pooling, classes, classifier_activation,
                                      weights)
    return _common.build_model(img_input, x, input_tensor, name, weights, file_name)


def residual_block_v1(x, filters: int, kernel_size: int = 3, stride: int = 1,
                      conv_shortcut: bool = True, name: str | None = None) -> KerasTensor:
    """A ResNet V1 bottleneck block: 1x1, kxk, 1x1 (4 * filters) convolutions plus shortcut.

    Args:
        x: the input KerasTensor.
        filters: the bottleneck's filters.
        kernel_size: the middle convolution's kernel size.
        stride: the first convolution's stride.
        conv_shortcut: a 1x1 convolution on the shortcut (else identity).
        name: the block's name prefix.

    Returns:
        The block's output.
    """
    if conv_shortcut:
        shortcut = layers.Conv2D(4 * filters, 1, strides=stride, name=f"{name}_0_conv")(x)
        shortcut = _bn(shortcut, f"{name}_0_bn")
    else:
        shortcut = x
    x = layers.Conv2D(filters, 1, strides=stride, name=f"{name}_1_conv")(x)
    x = _bn(x, f"{name}_1_bn")
    x = layers.Activation("relu", name=f"{name}_1_relu")(x)
    x = layers.Conv2D(filters, kernel_size, padding="same", name=f"{name}_2_conv")(x)
    x = _bn(x, f"{name}_2_bn")
    x = layers.Activation("relu", name=f"{name}_2_relu")(x)
    x = layers.Conv2D(4 * filters, 1, name=f"{name}_3_conv")(x)
    x = _bn(x, f"{name}_3_bn")
    x = layers.Add(name=f"{name}_add")([shortcut, x])
    return layers.Activation("relu", name=f"{name}_out")(x)


def stack_residual_blocks_v1(x, filters: int, blocks: int, stride1: int = 2,
                             name: str | None = None) -> KerasTensor:
    """``blocks`` V1 blocks; the first has a convolution shortcut and stride ``stride1``.

    Args:
        x: the input KerasTensor.
        filters: the bottleneck's filters.
        blocks: how many blocks.
        stride1: the first block's stride.
        name: the stack's name prefix.

    Returns:
        The stack's output.
    """
    x = residual_block_v1(x, filters, stride=stride1, name=f"{name}_block1")
    for i in range(2, blocks + 1):
        x = residual_block_v1(x, filters, conv_shortcut=False, name=f"{name}_block{i}")
    return x


def residual_block_v2(x, filters: int, kernel_size: int = 3, stride: int = 1,
                      conv_shortcut: bool = False, name: str | None = None) -> KerasTensor:
    """A ResNet V2 (pre-activation) bottleneck block.

    Args:
        x: the input KerasTensor.
        filters: the bottleneck's filters.
        kernel_size: the middle convolution's kernel size.
        stride: the middle convolution's stride.
        conv_shortcut: a 1x1 convolution on the shortcut (else identity, or a strided 1x1
            max pooling when ``stride > 1``).
        name: the block's name prefix.

    Returns:
        The block's output.
    """
    preact = _bn(x, f"{name}_preact_bn")
    preact = layers.Activation("relu", name=f"{name}_preact_relu")(preact)
    if conv_shortcut:
        shortcut = layers.Conv2D(4 * filters, 1, strides=stride, name=f"{name}_0_conv")(preact)
    else:
        shortcut = layers.MaxPooling2D(1, strides=stride)(x) if stride > 1 else x
    x = layers.Conv2D(filters, 1, strides=1, use_bias=False, name=f"{name}_1_conv")(preact)
    x = _bn(x, f"{name}_1_bn")
    x = layers.Activation("relu", name=f"{name}_1_relu")(x)
    x = layers.ZeroPadding2D(padding=((1, 1), (1, 1)), name=f"{name}_2_pad")(x)
    x = layers.Conv2D(filters, kernel_size, strides=stride, use_bias=False,
                      name=f"{name}_2_conv")(x)
    x = _bn(x, f"{name}_2_bn")
    x = layers.Activation("relu", name=f"{name}_2_relu")(x)
    x = layers.Conv2D(4 * filters, 1, name=f"{name}_3_conv")(x)
    return layers.Add(name=f"{name}_out")([shortcut, x])


def stack_residual_blocks_v2(x, filters: int, blocks: int, stride1: int = 2,
                             name: str | None = None) -> KerasTensor:
    """``blocks`` V2 blocks; the first has a convolution shortcut, the last stride ``stride1``.

    Args:
        x: the input KerasTensor.
        filters: the bottleneck's filters.
        blocks: how many blocks.
        stride1: the last block's stride.
        name: the stack's name prefix.

    Returns:
        The stack's output.
    """
    x = residual_block_v2(x, filters, conv_shortcut=True, name=f"{name}_block1")
    for i in range(2, blocks):
        x = residual_block_v2(x, filters, name=f"{name}_block{i}")
    return residual_block_v2(x, filters, stride=stride1, name=f"{name}_block{blocks}")


def _v1(depths: tuple, model_name: str) -> Callable:
    def ResNetN(include_top: bool = True, weights="imagenet", input_tensor=None,
                input_shape=None, pooling=None, classes: int = 1000,
                classifier_activation="softmax", name: str = model_name) -> Model:
        def stack_fn(x):
            x = stack_residual_blocks_v1(x, 64, depths[0], stride1=1, name="conv2")
            x = stack_residual_blocks_v1(x, 128, depths[1], name="conv3")
            x = stack_residual_blocks_v1(x, 256, depths[2], name="conv4")
            return stack_residual_blocks_v1(x, 512, depths[3], name="conv5")
        return ResNet(stack_fn, False, True, include_top, weights, input_tensor, input_shape,
                      pooling, classes, classifier_activation, name=name,
                      weights_name=model_name)
    title = model_name.replace("resnet", "ResNet")
    ResNetN.__name__ = ResNetN.__qualname__ = title
    return _common.document(ResNetN, title)


ResNet50 = _v1((3, 4, 6, 3), "resnet50")
ResNet101 = _v1((3, 4, 23, 3), "resnet101")
ResNet152 = _v1((3, 8, 36, 3), "resnet152")

__all__ = ["ResNet50", "ResNet101", "ResNet152", "decode_predictions", "preprocess_input"]
