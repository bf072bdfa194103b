"""``tw.keras.applications.mobilenet_v2``: MobileNetV2 (Sandler et al., 2018); layer names and
parameter counts as Keras 3."""
from __future__ import annotations

from .. import backend, layers
from ..models import Model
from . import _common, imagenet_utils
from .imagenet_utils import decode_predictions

preprocess_input = _common.preprocessor("tf")

# (filters, stride, expansion) of the 17 inverted residual blocks
_BLOCKS = ((16, 1, 1), (24, 2, 6), (24, 1, 6), (32, 2, 6), (32, 1, 6), (32, 1, 6),
           (64, 2, 6), (64, 1, 6), (64, 1, 6), (64, 1, 6), (96, 1, 6), (96, 1, 6), (96, 1, 6),
           (160, 2, 6), (160, 1, 6), (160, 1, 6), (320, 1, 6))
_SIZES = (96, 128, 160, 192, 224)


def _bn(x, name: str):
    axis = 1 if backend.image_data_format() == "channels_first" else -1
    return layers.BatchNormalization(axis=axis, epsilon=1e-3, momentum=0.999, name=name)(x)


def _inverted_res_block(inputs, expansion: int, stride: int, alpha: float, filters: int,
                        block_id: int):
    axis = 1 if backend.image_data_format() == "channels_first" else -1
    in_channels = inputs.shape[axis]
    pointwise_filters = _common.make_divisible(int(filters * alpha), 8)
    x = inputs
    prefix = f"block_{block_id}_"
    if block_id:
        x = layers.Conv2D(expansion * in_channels, kernel_size=1, padding="same",
                          use_bias=False, activation=None, name=f"{prefix}expand")(x)
        x = _bn(x, f"{prefix}expand_BN")
        x = layers.ReLU(6.0, name=f"{prefix}expand_relu")(x)
    else:
        prefix = "expanded_conv_"
    if stride == 2:
        x = layers.ZeroPadding2D(padding=imagenet_utils.correct_pad(x, 3),
                                 name=f"{prefix}pad")(x)
    x = layers.DepthwiseConv2D(kernel_size=3, strides=stride, activation=None, use_bias=False,
                               padding="same" if stride == 1 else "valid",
                               name=f"{prefix}depthwise")(x)
    x = _bn(x, f"{prefix}depthwise_BN")
    x = layers.ReLU(6.0, name=f"{prefix}depthwise_relu")(x)
    x = layers.Conv2D(pointwise_filters, kernel_size=1, padding="same", use_bias=False,
                      activation=None, name=f"{prefix}project")(x)
    x = _bn(x, f"{prefix}project_BN")
    if in_channels == pointwise_filters and stride == 1:
        return layers.Add(name=f"{prefix}add")([inputs, x])
    return x


def _default_size(input_shape, input_tensor) -> int:
    shape = input_shape
    if shape is None and input_tensor is not None:
        shape = tuple(input_tensor.shape)[1:]
    if shape is None:
        return 224
    rows, cols = _common.spatial(shape)
    return rows if rows == cols and rows in _SIZES else 224


def MobileNetV2(input_shape=None, alpha: float = 1.0, include_top: bool = True,
                weights="imagenet", input_tensor=None, pooling=None, classes: int = 1000,
                classifier_activation="softmax", name: str | None = None) -> Model:
    _common.check_weights(weights, include_top, classes)
    _common.check_tensor_shape(input_shape, input_tensor)
    if input_tensor is not None:
        _common.image_input(None, input_tensor)  # a KerasTensor, or a clear error
    input_shape = imagenet_utils.obtain_input_shape(
        input_shape, default_size=_default_size(input_shape, input_tensor), min_size=32,
        data_format=backend.image_data_format(), require_flatten=include_top, weights=weights)
    rows, cols = _common.spatial(input_shape)
    file_name = None
    if weights == "imagenet":
        if alpha not in (0.35, 0.50, 0.75, 1.0, 1.3, 1.4):
            raise ValueError("If imagenet weights are being loaded, alpha must be one of "
                             "`0.35`, `0.50`, `0.75`, `1.0`, `1.3` or `1.4` only; Received "
                             f"`alpha={alpha}`")
        rows = _common.imagenet_rows(rows, cols, _SIZES, stacklevel=2)
        file_name = (f"mobilenet_v2_weights_tf_dim_ordering_tf_kernels_{float(alpha)}_{rows}"
                     f"{'' if include_top else '_no_top'}.h5")
        _common.check_cached(weights, file_name)
    img_input = _common.image_input(input_shape, input_tensor)
    x = layers.Conv2D(_common.make_divisible(32 * alpha, 8), kernel_size=3, strides=(2, 2),
                      padding="same", use_bias=False, name="Conv1")(img_input)
    x = _bn(x, "bn_Conv1")
    x = layers.ReLU(6.0, name="Conv1_relu")(x)
    for block_id, (filters, stride, expansion) in enumerate(_BLOCKS):
        x = _inverted_res_block(x, filters=filters, alpha=alpha, stride=stride,
                                expansion=expansion, block_id=block_id)
    last = _common.make_divisible(1280 * alpha, 8) if alpha > 1.0 else 1280
    x = layers.Conv2D(last, kernel_size=1, use_bias=False, name="Conv_1")(x)
    x = _bn(x, "Conv_1_bn")
    x = layers.ReLU(6.0, name="out_relu")(x)
    x = _common.classifier_or_pooling(x, include_top, pooling, classes, classifier_activation,
                                      weights, named=False)  # unnamed pooling, as in Keras
    if name is None:
        name = f"mobilenetv2_{alpha:0.2f}_{rows}"
    return _common.build_model(img_input, x, input_tensor, name, weights, file_name)


_common.document(MobileNetV2, "MobileNetV2", args=_common.MOBILENET_ARGS)

__all__ = ["MobileNetV2", "decode_predictions", "preprocess_input"]
