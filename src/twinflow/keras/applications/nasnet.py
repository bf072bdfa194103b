"""NASNet-A Mobile and Large (Zoph et al., 2018), as ``keras.applications.nasnet``.

Cells found by architecture search: "normal" cells keep the resolution, "reduction" cells halve
it; each mixes separable convolutions and poolings of the cell's input and of the previous
cell's output, adjusted to the same shape. Layer names, order and parameter counts are
Keras 3's. Only ``channels_last``.
"""
from __future__ import annotations

from collections.abc import Callable

from .. import layers
from ..layers.keras_tensor import KerasTensor
from ..models import Model
from . import _common, _heads, imagenet_utils
from .imagenet_utils import decode_predictions  # noqa: F401  (the module's, as in Keras)

_BN = {"axis": -1, "momentum": 0.9997, "epsilon": 1e-3}


def _bn(name: str | None = None) -> layers.BatchNormalization:
    return layers.BatchNormalization(name=name, **_BN)


def _conv1x1(x, filters: int, name: str) -> KerasTensor:
    return layers.Conv2D(filters, (1, 1), strides=(1, 1), padding="same", use_bias=False,
                         name=name, kernel_initializer="he_normal")(x)


def separable_conv_block(x, filters: int, kernel_size=(3, 3), strides=(1, 1),
                         block_id: str = "") -> KerasTensor:
    """ReLU, SeparableConv2D (strided and padded if asked), BN, ReLU, SeparableConv2D, BN.

    Args:
        x: the input.
        filters: the output channels.
        kernel_size: the kernel size.
        strides: ``(1, 1)`` or ``(2, 2)``.
        block_id: the names' suffix.

    Returns:
        The output.
    """
    x = layers.Activation("relu")(x)
    padding = "same"
    if strides == (2, 2):
        x = layers.ZeroPadding2D(imagenet_utils.correct_pad(x, kernel_size),
                                 name=f"separable_conv_1_pad_{block_id}")(x)
        padding = "valid"
    x = layers.SeparableConv2D(filters, kernel_size, strides=strides, padding=padding,
                               use_bias=False, name=f"separable_conv_1_{block_id}")(x)
    x = _bn(f"separable_conv_1_bn_{block_id}")(x)
    x = layers.Activation("relu")(x)
    x = layers.SeparableConv2D(filters, kernel_size, padding="same", use_bias=False,
                               name=f"separable_conv_2_{block_id}")(x)
    return _bn(f"separable_conv_2_bn_{block_id}")(x)


def adjust_block(p, ip, filters: int, block_id: str) -> KerasTensor:
    """The previous cell's output ``p`` brought to the shape of ``ip`` with ``filters``
    channels (halved resolution: two offset strided 1x1 paths; other channels: a projection).

    Args:
        p: the previous cell's output (None: use ``ip``).
        ip: this cell's input.
        filters: the channels wanted.
        block_id: the names' suffix.

    Returns:
        The adjusted ``p``.
    """
    if p is None:
        return ip
    if p.shape[-2] != ip.shape[-2]:
        p = layers.Activation("relu", name=f"adjust_relu_1_{block_id}")(p)
        p1 = layers.AveragePooling2D((1, 1), strides=(2, 2), padding="valid",
                                     name=f"adjust_avg_pool_1_{block_id}")(p)
        p1 = _conv1x1(p1, filters // 2, f"adjust_conv_1_{block_id}")
        p2 = layers.ZeroPadding2D(padding=((0, 1), (0, 1)))(p)
        p2 = layers.Cropping2D(cropping=((1, 0), (1, 0)))(p2)
        p2 = layers.AveragePooling2D((1, 1), strides=(2, 2), padding="valid",
                                     name=f"adjust_avg_pool_2_{block_id}")(p2)
        p2 = _conv1x1(p2, filters // 2, f"adjust_conv_2_{block_id}")
        p = layers.concatenate([p1, p2], axis=-1)
        return _bn(f"adjust_bn_{block_id}")(p)
    if p.shape[-1] != filters:
        p = layers.Activation("relu")(p)
        p = _conv1x1(p, filters, f"adjust_conv_projection_{block_id}")
        return _bn(f"adjust_bn_{block_id}")(p)
    return p


def _avg3(x, strides, padding: str, name: str) -> KerasTensor:
    return layers.AveragePooling2D((3, 3), strides=strides, padding=padding, name=name)(x)


def _cell_inputs(ip, p, filters: int, kind: str, block_id: str) -> tuple:
    """What a cell mixes: ``p`` adjusted to ``ip``, and ``ip`` through ReLU, 1x1 conv, BN."""
    p = adjust_block(p, ip, filters, block_id)
    h = layers.Activation("relu")(ip)
    h = _conv1x1(h, filters, f"{kind}_conv_1_{block_id}")
    return p, _bn(f"{kind}_bn_1_{block_id}")(h)


def normal_a_cell(ip, p, filters: int, block_id: str) -> tuple:
    """A normal cell (same resolution).

    Args:
        ip: the cell's input.
        p: the previous cell's output.
        filters: the channels of each branch.
        block_id: the names' suffix.

    Returns:
        ``(output, ip)``: the output and the "previous output" of the next cell.
    """
    p, h = _cell_inputs(ip, p, filters, "normal", block_id)
    b = block_id
    x1 = layers.add([separable_conv_block(h, filters, (5, 5), block_id=f"normal_left1_{b}"),
                     separable_conv_block(p, filters, block_id=f"normal_right1_{b}")],
                    name=f"normal_add_1_{b}")
    x2 = layers.add([separable_conv_block(p, filters, (5, 5), block_id=f"normal_left2_{b}"),
                     separable_conv_block(p, filters, (3, 3), block_id=f"normal_right2_{b}")],
                    name=f"normal_add_2_{b}")
    x3 = layers.add([_avg3(h, (1, 1), "same", f"normal_left3_{b}"), p],
                    name=f"normal_add_3_{b}")
    x4 = layers.add([_avg3(p, (1, 1), "same", f"normal_left4_{b}"),
                     _avg3(p, (1, 1), "same", f"normal_right4_{b}")], name=f"normal_add_4_{b}")
    x5 = layers.add([separable_conv_block(h, filters, block_id=f"normal_left5_{b}"), h],
                    name=f"normal_add_5_{b}")
    x = layers.concatenate([p, x1, x2, x3, x4, x5], axis=-1, name=f"normal_concat_{b}")
    return x, ip


def reduction_a_cell(ip, p, filters: int, block_id: str) -> tuple:
    """A reduction cell: as ``normal_a_cell`` (same arguments and results), but halving the
    resolution.

    Args:
        ip, p, filters, block_id: as in ``normal_a_cell``.

    Returns:
        ``(output, ip)``, as ``normal_a_cell``.
    """
    p, h = _cell_inputs(ip, p, filters, "reduction", block_id)
    b = block_id
    h3 = layers.ZeroPadding2D(imagenet_utils.correct_pad(h, 3), name=f"reduction_pad_1_{b}")(h)
    two = (2, 2)
    x1 = layers.add([
        separable_conv_block(h, filters, (5, 5), two, block_id=f"reduction_left1_{b}"),
        separable_conv_block(p, filters, (7, 7), two, block_id=f"reduction_right1_{b}")],
        name=f"reduction_add_1_{b}")
    x2 = layers.add([
        layers.MaxPooling2D((3, 3), strides=two, padding="valid",
                            name=f"reduction_left2_{b}")(h3),
        separable_conv_block(p, filters, (7, 7), two, block_id=f"reduction_right2_{b}")],
        name=f"reduction_add_2_{b}")
    x3 = layers.add([
        _avg3(h3, two, "valid", f"reduction_left3_{b}"),
        separable_conv_block(p, filters, (5, 5), two, block_id=f"reduction_right3_{b}")],
        name=f"reduction_add3_{b}")
    x4 = layers.add([x2, _avg3(x1, (1, 1), "same", f"reduction_left4_{b}")])
    x5 = layers.add([
        separable_conv_block(x1, filters, (3, 3), block_id=f"reduction_left4_{b}"),
        layers.MaxPooling2D((3, 3), strides=two, padding="valid",
                            name=f"reduction_right5_{b}")(h3)],
        name=f"reduction_add4_{b}")
    x = layers.concatenate([x2, x3, x4, x5], axis=-1, name=f"reduction_concat_{b}")
    return x, ip


def nasnet(input_shape=None, penultimate_filters: int = 4032, num_blocks: int = 6,
           stem_block_filters: int = 96, skip_reduction: bool = True,
           filter_multiplier: int = 2, include_top=True, weights=None, input_tensor=None,
           pooling=None, classes=1000, default_size: int = 331,
           classifier_activation="softmax", name="NASNet") -> Model:
    """A NASNet-A network (Keras' ``NASNet``).

    Args:
        input_shape: the image shape without the batch (default: ``default_size`` square).
        penultimate_filters: the channels before the classifier (a multiple of
            ``24 * filter_multiplier ** 2``).
        num_blocks: the normal cells between reductions.
        stem_block_filters: the channels of the first convolution.
        skip_reduction: whether the cells after a reduction see the cell before it.
        filter_multiplier: the channel growth at each reduction.
        include_top: whether to end in the ``classes``-way classifier.
        weights: None or the local path of a weights file.
        input_tensor: a KerasTensor to use as the image input.
        pooling: without the top: None, ``"avg"`` or ``"max"``.
        classes: the number of classes.
        default_size: the default image size.
        classifier_activation: the classifier's activation.
        name: the model name.

    Returns:
        The Keras model.
    """
    _heads.require_channels_last("NASNet")
    file_name = _common.weights_file(
        {224: "nasnet_mobile", 331: "nasnet_large"}.get(default_size), include_top, "_no_top")
    img_input, _ = _common.model_input(weights, include_top, classes, input_shape,
                                       input_tensor, file_name, default_size=default_size)
    if penultimate_filters % (24 * filter_multiplier ** 2) != 0:
        raise ValueError("For NASNet-A models, the `penultimate_filters` must be a multiple of "
                         f"24 * (`filter_multiplier` ** 2). Current value: {penultimate_filters}")
    filters = penultimate_filters // 24
    x = layers.Conv2D(stem_block_filters, (3, 3), strides=(2, 2), padding="valid",
                      use_bias=False, name="stem_conv1", kernel_initializer="he_normal")(img_input)
    x = _bn("stem_bn1")(x)
    x, p = reduction_a_cell(x, None, filters // filter_multiplier ** 2, block_id="stem_1")
    x, p = reduction_a_cell(x, p, filters // filter_multiplier, block_id="stem_2")
    for stage in range(3):
        width = filters * filter_multiplier ** stage
        if stage:
            x, p0 = reduction_a_cell(x, p, width, block_id=f"reduce_{stage * num_blocks}")
            p = p if skip_reduction else p0
        for i in range(num_blocks):
            block = f"{stage * num_blocks + i + (1 if stage else 0)}"
            x, p = normal_a_cell(x, p, width, block_id=block)
    x = layers.Activation("relu")(x)
    x = _heads.top(x, include_top, pooling, classes, classifier_activation, weights,
                    pool_name=None)
    return _common.build_model(img_input, x, input_tensor, name, weights, file_name)


# penultimate filters, normal cells per stage, stem filters, skip reduction, default size
_VARIANTS = {"mobile": (1056, 4, 32, False, 224), "large": (4032, 6, 96, True, 331)}


def _variant(v: str) -> Callable:
    penultimate, blocks, stem, skip, size = _VARIANTS[v]

    def build(input_shape, **kw) -> Model:
        if v == "mobile" and not kw["include_top"] and input_shape is None:
            input_shape = (224, 224, 3)  # Keras fixes the mobile size even without the top
        return nasnet(input_shape, penultimate_filters=penultimate, num_blocks=blocks,
                      stem_block_filters=stem, skip_reduction=skip, filter_multiplier=2,
                      default_size=size, **kw)
    return _common.constructor(
        f"NASNet{v.capitalize()}", build, f"nasnet_{v}",
        ("input_shape", "include_top", "weights", "input_tensor", "pooling", "classes",
         "classifier_activation"),
        doc_title=f"NASNet-A {v.capitalize()}",
        extra=f"Default input {size}x{size}; {_heads.TO_PLUS_MINUS_ONE}; channels_last only.\n\n")


NASNetMobile = _variant("mobile")
NASNetLarge = _variant("large")


preprocess_input = _common.preprocessor("tf")
