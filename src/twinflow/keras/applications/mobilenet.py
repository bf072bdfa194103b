"""``tw.keras.applications.mobilenet``: MobileNet (Howard et al., 2017); layer names and
parameter counts as Keras 3."""
from __future__ import annotations

from .. import backend, layers
from ..models import Model
from . import _common, imagenet_utils
from .imagenet_utils import decode_predictions

preprocess_input = _common.preprocessor("tf")

# (pointwise filters, stride) of the 13 depthwise-separable blocks
_BLOCKS = ((64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2), (512, 1), (512, 1),
           (512, 1), (512, 1), (512, 1), (1024, 2), (1024, 1))
_SIZES = (128, 160, 192, 224)


def _channel_axis() -> int:
    return 1 if backend.image_data_format() == "channels_first" else -1


def _depthwise_conv_block(x, filters: int, alpha: float, depth_multiplier: int, stride: int,
                          block_id: int):
    axis = _channel_axis()
    if stride != 1:
        x = layers.ZeroPadding2D(((0, 1), (0, 1)), name=f"conv_pad_{block_id}")(x)
    x = layers.DepthwiseConv2D((3, 3), padding="same" if stride == 1 else "valid",
                               depth_multiplier=depth_multiplier, strides=(stride, stride),
                               use_bias=False, name=f"conv_dw_{block_id}")(x)
    x = layers.BatchNormalization(axis=axis, name=f"conv_dw_{block_id}_bn")(x)
    x = layers.ReLU(6.0, name=f"conv_dw_{block_id}_relu")(x)
    x = layers.Conv2D(int(filters * alpha), (1, 1), padding="same", use_bias=False,
                      strides=(1, 1), name=f"conv_pw_{block_id}")(x)
    x = layers.BatchNormalization(axis=axis, name=f"conv_pw_{block_id}_bn")(x)
    return layers.ReLU(6.0, name=f"conv_pw_{block_id}_relu")(x)


def _imagenet_file(alpha: float, depth_multiplier: int, rows, cols, include_top: bool) -> str:
    if depth_multiplier != 1:
        raise ValueError("If imagenet weights are being loaded, depth multiplier must be 1.  "
                         f"Received depth_multiplier={depth_multiplier}")
    if alpha not in (0.25, 0.50, 0.75, 1.0):
        raise ValueError("If imagenet weights are being loaded, alpha can be one of `0.25`, "
                         f"`0.50`, `0.75` or `1.0` only.  Received alpha={alpha}")
    rows = _common.imagenet_rows(rows, cols, _SIZES, stacklevel=3)
    text = {1.0: "1_0", 0.75: "7_5", 0.5: "5_0", 0.25: "2_5"}[alpha]
    return f"mobilenet_{text}_{rows}_tf{'' if include_top else '_no_top'}.h5"


def MobileNet(input_shape=None, alpha: float = 1.0, depth_multiplier: int = 1,
              dropout: float = 1e-3, include_top: bool = True, weights="imagenet",
              input_tensor=None, pooling=None, classes: int = 1000,
              classifier_activation="softmax", name: str | None = None) -> Model:
    _common.check_weights(weights, include_top, classes)
    default_size = 224
    if input_shape is not None:
        rows, cols = _common.spatial(input_shape)
        if rows == cols and rows in _SIZES:
            default_size = rows
    input_shape = imagenet_utils.obtain_input_shape(
        input_shape, default_size=default_size, min_size=32,
        data_format=backend.image_data_format(), require_flatten=include_top, weights=weights)
    rows, cols = _common.spatial(input_shape)
    file_name = None
    if weights == "imagenet":
        file_name = _imagenet_file(alpha, depth_multiplier, rows, cols, include_top)
        _common.check_cached(weights, file_name)
    img_input = _common.image_input(input_shape, input_tensor)
    x = layers.Conv2D(int(32 * alpha), (3, 3), padding="same", use_bias=False, strides=(2, 2),
                      name="conv1")(img_input)
    x = layers.BatchNormalization(axis=_channel_axis(), name="conv1_bn")(x)
    x = layers.ReLU(6.0, name="conv1_relu")(x)
    for block_id, (filters, stride) in enumerate(_BLOCKS, start=1):
        x = _depthwise_conv_block(x, filters, alpha, depth_multiplier, stride, block_id)
    if include_top:
        x = layers.GlobalAveragePooling2D(keepdims=True)(x)
        x = layers.Dropout(dropout, name="dropout")(x)
        x = layers.Conv2D(classes, (1, 1), padding="same", name="conv_preds")(x)
        x = layers.Reshape((classes,), name="reshape_2")(x)
        imagenet_utils.validate_activation(classifier_activation, weights)
        x = layers.Activation(activation=classifier_activation, name="predictions")(x)
    else:
        x = _common.pool(x, pooling, named=False)  # unnamed here, as in Keras
    if name is None:
        name = f"mobilenet_{alpha:0.2f}_{rows}"
    return _common.build_model(img_input, x, input_tensor, name, weights, file_name)


_common.document(MobileNet, "MobileNet", args=_common.MOBILENET_ARGS + """\
    depth_multiplier: the depthwise convolutions' channel multiplier.
    dropout: the dropout rate before the classifier.
""")

__all__ = ["MobileNet", "decode_predictions", "preprocess_input"]
