"""What the architectures of part b (EfficientNet, EfficientNetV2, ConvNeXt, Inception,
Xception, NASNet) share beyond ``_common``: their classifier/pooling variants (dropout,
initializers, unnamed pooling layers) and the image-format helpers."""
from __future__ import annotations

from typing import Any

from .. import backend, layers
from . import imagenet_utils


def top(x, include_top: bool, pooling, classes: int, classifier_activation, weights,
        pool_name: str | None = "avg_pool", dense_kwargs: dict | None = None,
        dropout: float = 0.0, pooled_names=(None, None)) -> Any:
    """The end of the network: a classifier, or the chosen global pooling.

    Args:
        x: the features.
        include_top: add ``GlobalAveragePooling2D`` (+ ``Dropout``) + ``Dense(classes)``
            named ``predictions``.
        pooling: without the top: None, ``"avg"`` or ``"max"``.
        classes: the number of classes.
        classifier_activation: the activation of the classifier.
        weights: the ``weights`` argument (pretrained weights allow only softmax or None).
        pool_name: the name of the pooling before the classifier (None: automatic).
        dense_kwargs: more arguments of the classifier (initializers).
        dropout: the rate of a ``top_dropout`` Dropout before the classifier (0: none).
        pooled_names: the names of the avg and max pooling without the top (None:
            automatic, as most Keras applications leave them).

    Returns:
        The output KerasTensor.
    """
    if include_top:
        x = layers.GlobalAveragePooling2D(name=pool_name)(x)
        if dropout > 0:
            x = layers.Dropout(dropout, name="top_dropout")(x)
        imagenet_utils.validate_activation(classifier_activation, weights)
        return layers.Dense(classes, activation=classifier_activation, name="predictions",
                            **(dense_kwargs or {}))(x)
    if pooling == "avg":
        return layers.GlobalAveragePooling2D(name=pooled_names[0])(x)
    if pooling == "max":
        return layers.GlobalMaxPooling2D(name=pooled_names[1])(x)
    if pooling is not None:
        raise ValueError(f"`pooling` should be None, 'avg' or 'max'. Received: {pooling!r}")
    return x


def channel_axis() -> int:
    """The channel axis of 4D images under the global ``image_data_format``.

    Returns:
        3 for channels_last, 1 for channels_first.
    """
    return 3 if backend.image_data_format() == "channels_last" else 1


def data_format() -> str:
    """The global ``image_data_format``.

    Returns:
        ``"channels_last"`` or ``"channels_first"``.
    """
    return backend.image_data_format()


def require_channels_last(model: str) -> None:
    """Raises for ``channels_first``: ``model`` exists only for channels_last images.

    Args:
        model: the architecture's name.

    Raises:
        ValueError: under ``channels_first``.
    """
    if backend.image_data_format() == "channels_first":
        raise ValueError(f"{model} does not support the `channels_first` image data format. "
                         "Switch to `channels_last` (keras.config.set_image_data_format).")


# what the docstrings of the models trained on [-1, 1] images say about their inputs
TO_PLUS_MINUS_ONE = "inputs go through ``preprocess_input`` (to ``[-1, 1]``)"

# the argument EfficientNetV2 and ConvNeXt add to _common.document's shared ones
PREPROCESSING_ARG = ("    include_preprocessing: whether the model rescales its ``[0, 255]`` "
                     "input itself.\n")
