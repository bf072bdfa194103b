"""``tw.keras.applications.vgg16``: VGG16 (Simonyan & Zisserman, 2014) and the VGG builder
that VGG19 shares; layer names and parameter counts as Keras 3."""
from __future__ import annotations

from collections.abc import Callable

from .. import layers
from ..models import Model
from . import _common, imagenet_utils
from .imagenet_utils import decode_predictions

preprocess_input = _common.preprocessor("caffe")


def VGG(convs: tuple, include_top: bool = True, weights="imagenet", input_tensor=None,
        input_shape=None, pooling=None, classes: int = 1000,
        classifier_activation="softmax", name: str = "vgg",
        weights_name: str | None = None) -> Model:
    """Builds a VGG network: five blocks of 3x3 convolutions and 2x2 max pooling, then (with
    ``include_top``) two 4096-unit layers and the classifier.

    Args:
        convs: how many convolutions each of the five blocks has.
        include_top, weights, input_tensor, input_shape, pooling, classes,
            classifier_activation, name: as in ``VGG16``.
        weights_name: the prefix of Keras' ImageNet weights files (``vgg16``, ``vgg19``).

    Returns:
        The model.
    """
    file_name = _common.kernels_file(weights_name, include_top)
    img_input, _ = _common.model_input(weights, include_top, classes, input_shape,
                                       input_tensor, file_name)
    x = img_input
    for block, (filters, n) in enumerate(zip((64, 128, 256, 512, 512), convs), start=1):
        for i in range(1, n + 1):
            x = layers.Conv2D(filters, (3, 3), activation="relu", padding="same",
                              name=f"block{block}_conv{i}")(x)
        x = layers.MaxPooling2D((2, 2), strides=(2, 2), name=f"block{block}_pool")(x)
    if include_top:
        x = layers.Flatten(name="flatten")(x)
        x = layers.Dense(4096, activation="relu", name="fc1")(x)
        x = layers.Dense(4096, activation="relu", name="fc2")(x)
        imagenet_utils.validate_activation(classifier_activation, weights)
        x = layers.Dense(classes, activation=classifier_activation, name="predictions")(x)
    else:
        x = _common.pool(x, pooling, named=False)  # unnamed here, as in Keras
    return _common.build_model(img_input, x, input_tensor, name, weights, file_name)


def vgg_constructor(convs: tuple, model_name: str) -> Callable:
    """``VGG16``/``VGG19``: the public constructor of a VGG depth.

    Args:
        convs: the convolutions per block.
        model_name: the default model name.

    Returns:
        The constructor.
    """
    return _common.constructor(model_name.upper(),
                               lambda **kw: VGG(convs, weights_name=model_name, **kw), model_name)


VGG16 = vgg_constructor((2, 2, 3, 3, 3), "vgg16")

__all__ = ["VGG16", "decode_predictions", "preprocess_input"]
