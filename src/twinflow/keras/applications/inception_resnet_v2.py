"""Inception-ResNet V2 (Szegedy et al., 2017), as ``keras.applications.inception_resnet_v2``.

Inception modules whose concatenated branches, projected back by a 1x1 convolution and scaled,
are added to the module's input (``CustomScaleLayer``). Layer names, order and parameter counts
are Keras 3's.
"""
from __future__ import annotations

from ...graph.tensor import Tensor
from .. import layers
from ..layers.base import Layer
from ..layers.keras_tensor import KerasTensor
from ..models import Model
from ..utils import register_keras_serializable
from . import _common, _heads
from .imagenet_utils import decode_predictions  # noqa: F401  (the module's, as in Keras)


@register_keras_serializable(package="twinflow.applications")
class CustomScaleLayer(Layer):
    """``inputs[0] + inputs[1] * scale``: a residual added with a fixed scale (Keras').

    Args:
        scale: the factor of the residual branch.
        **kwargs: Layer arguments.
    """

    def __init__(self, scale: float, **kwargs) -> None:
        super().__init__(**kwargs)
        self.scale = scale

    def call(self, inputs) -> Tensor:
        return inputs[0] + inputs[1] * self.scale

    _config_keys = ("scale",)


def conv2d_bn(x, filters: int, kernel_size, strides=1, padding: str = "same",
              activation: str | None = "relu", use_bias: bool = False,
              name: str | None = None) -> KerasTensor:
    """A ``Conv2D``, then (without bias) ``BatchNormalization(scale=False)``, then activation.

    Args:
        x: the input.
        filters: the output channels.
        kernel_size: the kernel size.
        strides: the strides.
        padding: the padding.
        activation: the activation (None: none).
        use_bias: whether the convolution has a bias (and then no batch normalization).
        name: the names' stem (``{name}``, ``{name}_bn``, ``{name}_ac``); None: automatic.

    Returns:
        The output.
    """
    x = layers.Conv2D(filters, kernel_size, strides=strides, padding=padding,
                      use_bias=use_bias, name=name)(x)
    if not use_bias:
        x = layers.BatchNormalization(axis=_heads.channel_axis(), scale=False,
                                      name=None if name is None else f"{name}_bn")(x)
    if activation is not None:
        x = layers.Activation(activation, name=None if name is None else f"{name}_ac")(x)
    return x


def _chain(x, specs) -> KerasTensor:
    for filters, kernel in specs:
        x = conv2d_bn(x, filters, kernel)
    return x


# the branches of each residual block type: (filters, kernel) chains
_BLOCKS = {
    "block35": [[(32, 1)], [(32, 1), (32, 3)], [(32, 1), (48, 3), (64, 3)]],
    "block17": [[(192, 1)], [(128, 1), (160, [1, 7]), (192, [7, 1])]],
    "block8": [[(192, 1)], [(192, 1), (224, [1, 3]), (256, [3, 1])]],
}


def inception_resnet_block(x, scale: float, block_type: str, block_idx: int,
                           activation: str | None = "relu") -> KerasTensor:
    """One residual Inception block (``block35``, ``block17`` or ``block8``).

    Args:
        x: the input.
        scale: the factor of the residual branch.
        block_type: ``"block35"``, ``"block17"`` or ``"block8"``.
        block_idx: the block's index (in its names).
        activation: the activation after the addition (None: none).

    Returns:
        The output.
    """
    if block_type not in _BLOCKS:
        raise ValueError('Unknown Inception-ResNet block type. Expects "block35", "block17" '
                         f'or "block8", but got: {block_type}')
    axis = _heads.channel_axis()
    branches = [_chain(x, specs) for specs in _BLOCKS[block_type]]
    name = f"{block_type}_{block_idx}"
    mixed = layers.Concatenate(axis=axis, name=f"{name}_mixed")(branches)
    up = conv2d_bn(mixed, x.shape[axis], 1, activation=None, use_bias=True, name=f"{name}_conv")
    x = CustomScaleLayer(scale)([x, up])
    if activation is not None:
        x = layers.Activation(activation, name=f"{name}_ac")(x)
    return x


def InceptionResNetV2(include_top=True, weights="imagenet", input_tensor=None,
                      input_shape=None, pooling=None, classes=1000,
                      classifier_activation="softmax", name="inception_resnet_v2") -> Model:
    file_name = _common.kernels_file("inception_resnet_v2", include_top)
    img_input, _ = _common.model_input(weights, include_top, classes, input_shape, input_tensor,
                                       file_name, default_size=299, min_size=75)
    axis = _heads.channel_axis()
    x = conv2d_bn(img_input, 32, 3, strides=2, padding="valid")
    x = conv2d_bn(x, 32, 3, padding="valid")
    x = conv2d_bn(x, 64, 3)
    x = layers.MaxPooling2D(3, strides=2)(x)
    x = conv2d_bn(x, 80, 1, padding="valid")
    x = conv2d_bn(x, 192, 3, padding="valid")
    x = layers.MaxPooling2D(3, strides=2)(x)
    branches = [_chain(x, [(96, 1)]), _chain(x, [(48, 1), (64, 5)]),
                _chain(x, [(64, 1), (96, 3), (96, 3)])]
    branches.append(conv2d_bn(layers.AveragePooling2D(3, strides=1, padding="same")(x), 64, 1))
    x = layers.Concatenate(axis=axis, name="mixed_5b")(branches)
    for i in range(1, 11):
        x = inception_resnet_block(x, scale=0.17, block_type="block35", block_idx=i)
    branches = [conv2d_bn(x, 384, 3, strides=2, padding="valid"),
                conv2d_bn(_chain(x, [(256, 1), (256, 3)]), 384, 3, strides=2, padding="valid"),
                layers.MaxPooling2D(3, strides=2, padding="valid")(x)]
    x = layers.Concatenate(axis=axis, name="mixed_6a")(branches)
    for i in range(1, 21):
        x = inception_resnet_block(x, scale=0.1, block_type="block17", block_idx=i)
    branches = [conv2d_bn(conv2d_bn(x, 256, 1), 384, 3, strides=2, padding="valid"),
                conv2d_bn(conv2d_bn(x, 256, 1), 288, 3, strides=2, padding="valid"),
                conv2d_bn(_chain(x, [(256, 1), (288, 3)]), 320, 3, strides=2, padding="valid"),
                layers.MaxPooling2D(3, strides=2, padding="valid")(x)]
    x = layers.Concatenate(axis=axis, name="mixed_7a")(branches)
    for i in range(1, 10):
        x = inception_resnet_block(x, scale=0.2, block_type="block8", block_idx=i)
    x = inception_resnet_block(x, scale=1.0, activation=None, block_type="block8", block_idx=10)
    x = conv2d_bn(x, 1536, 1, name="conv_7b")
    x = _heads.top(x, include_top, pooling, classes, classifier_activation, weights)
    return _common.build_model(img_input, x, input_tensor, name, weights, file_name)


_common.document(InceptionResNetV2, "InceptionResNetV2",
                 extra=f"Default input 299x299 (at least 75x75); {_heads.TO_PLUS_MINUS_ONE}.\n\n")

preprocess_input = _common.preprocessor("tf")
