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


def _conv_bn_relu(x, filters: int, kernel_size: int, name: str, **conv) -> KerasTensor:
    x = layers.Conv2D(filters, kernel_size, name=f"{name}_conv", **conv)(x)
    x = _bn(x, f"{name}_bn")
    return layers.Activation("relu", name=f"{name}_relu")(x)


def ResNet(stack_fn: Callable, preact: bool, use_bias: bool, include_top: bool = True,
           weights="imagenet", input_tensor=None, input_shape=None, pooling=None,
           classes: int = 1000, classifier_activation="softmax", name: str = "resnet",
           weights_name: str | None = None) -> Model:
    """Builds a ResNet (V1, or V2 with ``preact``) around the residual stacks of ``stack_fn``.

    Args:
        stack_fn: maps the stem's output to the output of the residual stacks.
        preact: pre-activation (ResNet V2): no batch norm after the stem, one at the end.
        use_bias: whether the stem convolution has a bias.
        include_top, weights, input_tensor, input_shape, pooling, classes,
            classifier_activation, name: as in ``ResNet50``.
        weights_name: the prefix of Keras' ImageNet weights files for this model.

    Returns:
        The model.
    """
    file_name = _common.kernels_file(weights_name, include_top)
    img_input, _ = _common.model_input(weights, include_top, classes, input_shape,
                                       input_tensor, file_name)
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
    x = _conv_bn_relu(x, filters, 1, f"{name}_1", strides=stride)
    x = _conv_bn_relu(x, filters, kernel_size, f"{name}_2", padding="same")
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
    """A ResNet V2 (pre-activation) bottleneck block, as ``residual_block_v1`` but for:

    Args:
        x, filters, kernel_size, name: as in ``residual_block_v1``.
        stride: the middle convolution's stride.
        conv_shortcut: a 1x1 convolution on the shortcut (else identity, or a strided 1x1
            max pooling when ``stride > 1``).

    Returns:
        The block's output.
    """
    preact = _bn(x, f"{name}_preact_bn")
    preact = layers.Activation("relu", name=f"{name}_preact_relu")(preact)
    if conv_shortcut:
        shortcut = layers.Conv2D(4 * filters, 1, strides=stride, name=f"{name}_0_conv")(preact)
    else:
        shortcut = layers.MaxPooling2D(1, strides=stride)(x) if stride > 1 else x
    x = _conv_bn_relu(preact, filters, 1, f"{name}_1", strides=1, use_bias=False)
    x = layers.ZeroPadding2D(padding=((1, 1), (1, 1)), name=f"{name}_2_pad")(x)
    x = _conv_bn_relu(x, filters, kernel_size, f"{name}_2", strides=stride, use_bias=False)
    x = layers.Conv2D(4 * filters, 1, name=f"{name}_3_conv")(x)
    return layers.Add(name=f"{name}_out")([shortcut, x])


def stack_residual_blocks_v2(x, filters: int, blocks: int, stride1: int = 2,
                             name: str | None = None) -> KerasTensor:
    """``blocks`` V2 blocks; the first has a convolution shortcut, the last stride ``stride1``.

    Args:
        x, filters, blocks, name: as in ``stack_residual_blocks_v1``.
        stride1: the last block's stride.

    Returns:
        The stack's output.
    """
    x = residual_block_v2(x, filters, conv_shortcut=True, name=f"{name}_block1")
    for i in range(2, blocks):
        x = residual_block_v2(x, filters, name=f"{name}_block{i}")
    return residual_block_v2(x, filters, stride=stride1, name=f"{name}_block{blocks}")


def stacks(block_stack: Callable, depths: tuple, strides: tuple) -> Callable:
    """The residual stacks of a ResNet: ``conv2`` ... ``conv5`` of 64 ... 512 filters.

    Args:
        block_stack: ``stack_residual_blocks_v1`` or ``stack_residual_blocks_v2``.
        depths: the blocks of each stack.
        strides: the ``stride1`` of each stack.

    Returns:
        The ``stack_fn`` of ``ResNet``.
    """
    def stack_fn(x):
        for i, (filters, blocks, stride) in enumerate(zip((64, 128, 256, 512), depths, strides)):
            x = block_stack(x, filters, blocks, stride1=stride, name=f"conv{i + 2}")
        return x
    return stack_fn


def _v1(depths: tuple, model_name: str) -> Callable:
    stack_fn = stacks(stack_residual_blocks_v1, depths, (1, 2, 2, 2))
    return _common.constructor(
        model_name.replace("resnet", "ResNet"),
        lambda **kw: ResNet(stack_fn, False, True, weights_name=model_name, **kw), model_name)


ResNet50 = _v1((3, 4, 6, 3), "resnet50")
ResNet101 = _v1((3, 4, 23, 3), "resnet101")
ResNet152 = _v1((3, 8, 36, 3), "resnet152")

__all__ = ["ResNet50", "ResNet101", "ResNet152", "decode_predictions", "preprocess_input"]
