"""``tw.keras.applications.mobilenet_v3``: MobileNetV3Small/Large (Howard et al., 2019); layer
names and parameter counts as Keras 3.

The models rescale their input themselves (``include_preprocessing``), so this module's
``preprocess_input`` returns its input unchanged, as Keras'.
"""
from __future__ import annotations

import warnings
from collections.abc import Callable

from .. import backend, layers
from ..models import Model
from . import _common, imagenet_utils
from .imagenet_utils import decode_predictions

preprocess_input = _common.preprocessor(None)
_depth = _common.make_divisible


def _hard_sigmoid(x):
    # As Keras 3: a ReLU(6) layer between two operation nodes (``add``, ``multiply``).
    return layers.ReLU(6.0)(x + 3.0) * (1.0 / 6.0)


def _relu(x):
    return layers.ReLU()(x)


def _hard_swish(x):
    return layers.Activation("hard_swish")(x)


def _bn(x, name: str):
    axis = 1 if backend.image_data_format() == "channels_first" else -1
    return layers.BatchNormalization(axis=axis, epsilon=1e-3, momentum=0.999, name=name)(x)


def _se_block(inputs, filters: int, se_ratio: float, prefix: str):
    x = layers.GlobalAveragePooling2D(keepdims=True, name=f"{prefix}squeeze_excite_avg_pool")(
        inputs)
    x = layers.Conv2D(_depth(filters * se_ratio), kernel_size=1, padding="same",
                      name=f"{prefix}squeeze_excite_conv")(x)
    x = layers.ReLU(name=f"{prefix}squeeze_excite_relu")(x)
    x = layers.Conv2D(filters, kernel_size=1, padding="same",
                      name=f"{prefix}squeeze_excite_conv_1")(x)
    x = _hard_sigmoid(x)
    return layers.Multiply(name=f"{prefix}squeeze_excite_mul")([inputs, x])


def _inverted_res_block(x, expansion: float, filters: int, kernel_size: int, stride: int,
                        se_ratio, activation: Callable, block_id: int):
    axis = 1 if backend.image_data_format() == "channels_first" else -1
    shortcut = x
    prefix = "expanded_conv_"
    infilters = x.shape[axis]
    if block_id:
        prefix = f"expanded_conv_{block_id}_"
        x = layers.Conv2D(_depth(infilters * expansion), kernel_size=1, padding="same",
                          use_bias=False, name=f"{prefix}expand")(x)
        x = _bn(x, f"{prefix}expand_bn")
        x = activation(x)
    if stride == 2:
        x = layers.ZeroPadding2D(padding=imagenet_utils.correct_pad(x, kernel_size),
                                 name=f"{prefix}depthwise_pad")(x)
    x = layers.DepthwiseConv2D(kernel_size, strides=stride,
                               padding="same" if stride == 1 else "valid", use_bias=False,
                               name=f"{prefix}depthwise")(x)
    x = _bn(x, f"{prefix}depthwise_bn")
    x = activation(x)
    if se_ratio:
        x = _se_block(x, _depth(infilters * expansion), se_ratio, prefix)
    x = layers.Conv2D(filters, kernel_size=1, padding="same", use_bias=False,
                      name=f"{prefix}project")(x)
    x = _bn(x, f"{prefix}project_bn")
    if stride == 1 and infilters == filters:
        x = layers.Add(name=f"{prefix}add")([shortcut, x])
    return x


# (expansion, filters, kernel ("k": 5, or 3 when minimalistic), stride, squeeze-excite,
#  activation ("act": hard swish, or ReLU when minimalistic)) of each block
_SMALL = ((1, 16, 3, 2, True, "relu"), (72 / 16, 24, 3, 2, False, "relu"),
          (88 / 24, 24, 3, 1, False, "relu"), (4, 40, "k", 2, True, "act"),
          (6, 40, "k", 1, True, "act"), (6, 40, "k", 1, True, "act"),
          (3, 48, "k", 1, True, "act"), (3, 48, "k", 1, True, "act"),
          (6, 96, "k", 2, True, "act"), (6, 96, "k", 1, True, "act"),
          (6, 96, "k", 1, True, "act"))
_LARGE = ((1, 16, 3, 1, False, "relu"), (4, 24, 3, 2, False, "relu"),
          (3, 24, 3, 1, False, "relu"), (3, 40, "k", 2, True, "relu"),
          (3, 40, "k", 1, True, "relu"), (3, 40, "k", 1, True, "relu"),
          (6, 80, 3, 2, False, "act"), (2.5, 80, 3, 1, False, "act"),
          (2.3, 80, 3, 1, False, "act"), (2.3, 80, 3, 1, False, "act"),
          (6, 112, 3, 1, True, "act"), (6, 112, 3, 1, True, "act"),
          (6, 160, "k", 2, True, "act"), (6, 160, "k", 1, True, "act"),
          (6, 160, "k", 1, True, "act"))


def _input_shape(input_shape, input_tensor) -> tuple:
    _common.check_tensor_shape(input_shape, input_tensor)
    if input_tensor is not None:
        _common.image_input(None, input_tensor)  # a KerasTensor, or a clear error
        if input_shape is None:
            rows, cols = _common.spatial(tuple(input_tensor.shape)[1:])
            first = backend.image_data_format() == "channels_first"
            input_shape = (3, cols, rows) if first else (cols, rows, 3)
    if input_shape is None:
        first = backend.image_data_format() == "channels_first"
        input_shape = (3, None, None) if first else (None, None, 3)
    rows, cols = _common.spatial(input_shape)
    if rows and cols and (rows < 32 or cols < 32):
        raise ValueError(f"Input size must be at least 32x32; Received `input_shape="
                         f"{input_shape}`")
    return tuple(input_shape)


def MobileNetV3(blocks: tuple, last_point_ch: int, input_shape=None, alpha: float = 1.0,
                model_type: str = "large", minimalistic: bool = False,
                include_top: bool = True, weights="imagenet", input_tensor=None,
                classes: int = 1000, pooling=None, dropout_rate: float = 0.2,
                classifier_activation="softmax", include_preprocessing: bool = True,
                name: str | None = None) -> Model:
    """Builds a MobileNetV3 from its table of inverted residual blocks.

    Args:
        blocks: the blocks (``_SMALL`` or ``_LARGE``).
        last_point_ch: the channels of the last 1x1 convolution before the classifier.
        input_shape: an optional input shape (without the batch dimension).
        alpha: the width multiplier.
        model_type: ``"small"`` or ``"large"`` (names the ImageNet weights files).
        minimalistic: 3x3 kernels, ReLU and no squeeze-and-excite.
        include_top: whether to include the classifier.
        weights: None, ``"imagenet"`` (from the Keras cache) or a weights file.
        input_tensor: an optional KerasTensor to build on.
        classes: the number of classes.
        pooling: None, ``"avg"`` or ``"max"`` without the classifier.
        dropout_rate: the dropout before the classifier (0 for none).
        classifier_activation: the classifier's activation.
        include_preprocessing: rescale the input from [0, 255] to [-1, 1] in the model.
        name: the model's name.

    Returns:
        The model.
    """
    _common.check_weights(weights, include_top, classes)
    input_shape = _input_shape(input_shape, input_tensor)
    rows, cols = _common.spatial(input_shape)
    file_name = None
    if weights == "imagenet":
        if (not minimalistic and alpha not in (0.75, 1.0)) or (minimalistic and alpha != 1.0):
            raise ValueError("If imagenet weights are being loaded, alpha can be one of "
                             "`0.75`, `1.0` for non minimalistic or `1.0` for minimalistic "
                             "only.")
        if rows != cols or rows != 224:
            warnings.warn("`input_shape` is undefined or non-square, or `rows` is not 224. "
                          "Weights for input shape (224, 224) will be loaded as the default.",
                          stacklevel=3)
        kind = f"{model_type}{'_minimalistic' if minimalistic else ''}_224_{alpha}_float"
        file_name = (f"weights_mobilenet_v3_{kind}.h5" if include_top
                     else f"weights_mobilenet_v3_{kind}_no_top_v2.h5")
        _common.check_cached(weights, file_name)
    img_input = _common.image_input(input_shape, input_tensor)
    axis = 1 if backend.image_data_format() == "channels_first" else -1
    kernel, activation, se_ratio = ((3, _relu, None) if minimalistic
                                    else (5, _hard_swish, 0.25))
    x = img_input
    if include_preprocessing:
        x = layers.Rescaling(scale=1.0 / 127.5, offset=-1.0)(x)
    x = layers.Conv2D(16, kernel_size=3, strides=(2, 2), padding="same", use_bias=False,
                      name="conv")(x)
    x = _bn(x, "conv_bn")
    x = activation(x)
    for block_id, (expansion, filters, k, stride, se, act) in enumerate(blocks):
        x = _inverted_res_block(x, expansion, _depth(filters * alpha),
                                kernel if k == "k" else k, stride, se_ratio if se else None,
                                activation if act == "act" else _relu, block_id)
    last_conv_ch = _depth(x.shape[axis] * 6)
    if alpha > 1.0:
        last_point_ch = _depth(last_point_ch * alpha)
    x = layers.Conv2D(last_conv_ch, kernel_size=1, padding="same", use_bias=False,
                      name="conv_1")(x)
    x = _bn(x, "conv_1_bn")
    x = activation(x)
    if include_top:
        x = layers.GlobalAveragePooling2D(keepdims=True)(x)
        x = layers.Conv2D(last_point_ch, kernel_size=1, padding="same", use_bias=True,
                          name="conv_2")(x)
        x = activation(x)
        if dropout_rate > 0:
            x = layers.Dropout(dropout_rate)(x)
        x = layers.Conv2D(classes, kernel_size=1, padding="same", name="logits")(x)
        x = layers.Flatten()(x)
        imagenet_utils.validate_activation(classifier_activation, weights)
        x = layers.Activation(activation=classifier_activation, name="predictions")(x)
    else:
        x = _common.pool(x, pooling)
    return _common.build_model(img_input, x, input_tensor, name, weights, file_name)


def _v3(blocks: tuple, last_point_ch: int, model_type: str, title: str) -> Callable:
    def MobileNetV3N(input_shape=None, alpha: float = 1.0, minimalistic: bool = False,
                     include_top: bool = True, weights="imagenet", input_tensor=None,
                     classes: int = 1000, pooling=None, dropout_rate: float = 0.2,
                     classifier_activation="softmax", include_preprocessing: bool = True,
                     name: str = title) -> Model:
        return MobileNetV3(blocks, last_point_ch, input_shape, alpha, model_type,
                           minimalistic, include_top, weights, input_tensor, classes, pooling,
                           dropout_rate, classifier_activation, include_preprocessing, name)
    MobileNetV3N.__name__ = MobileNetV3N.__qualname__ = title
    return _common.document(MobileNetV3N, title, args=_common.MOBILENET_ARGS + """\
    minimalistic: 3x3 kernels, ReLU and no squeeze-and-excite blocks.
    dropout_rate: the dropout rate before the classifier (0 for none).
    include_preprocessing: rescale inputs from [0, 255] to [-1, 1] inside the model.
""")


MobileNetV3Small = _v3(_SMALL, 1024, "small", "MobileNetV3Small")
MobileNetV3Large = _v3(_LARGE, 1280, "large", "MobileNetV3Large")

__all__ = ["MobileNetV3Small", "MobileNetV3Large", "decode_predictions", "preprocess_input"]
