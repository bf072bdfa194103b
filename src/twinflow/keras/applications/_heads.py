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




_MODEL_DOC = """Instantiates the {title} architecture (Keras 3's layers, names and parameter
counts).

{note}Args:
    include_top: whether to end in the ``classes``-way classifier.
{extra}    weights: None (random initialization), ``"imagenet"`` (only from the Keras cache:
        twinflow downloads nothing) or the local path of a weights file.
    input_tensor: a KerasTensor to use as the image input.
    input_shape: the image shape without the batch (default ``{shape}``).
    pooling: without the top: None, ``"avg"`` or ``"max"`` global pooling.
    classes: the number of classes of the classifier.
    classifier_activation: the classifier's activation (None: logits).
    name: the model name.

Returns:
    A functional ``keras.Model``.
"""
_PREPROCESSING = ("    include_preprocessing: whether the model rescales its ``[0, 255]`` input "
                  "itself.\n")


def model_doc(title: str, size: int, note: str = "", preprocessing: bool = False,
              shape_first: bool = False) -> str:
    """The docstring of an application constructor.

    Args:
        title: the architecture's name.
        size: its default image size.
        note: a paragraph before the arguments (ending in a blank line).
        preprocessing: whether it takes ``include_preprocessing``.
        shape_first: whether ``input_shape`` is its first argument (NASNet).

    Returns:
        The docstring.
    """
    doc = _MODEL_DOC.format(title=title, note=note, shape=f"({size}, {size}, 3)",
                            extra=_PREPROCESSING if preprocessing else "")
    if shape_first:
        line = [x for x in doc.splitlines(keepends=True) if "input_shape:" in x][0]
        doc = doc.replace(line, "").replace("Args:\n", "Args:\n" + line)
    return doc


def preprocessor(mode: str | None):
    """A model module's ``preprocess_input``: ``imagenet_utils.preprocess_input`` in
    ``mode``, or (None) the identity of models that preprocess inside.

    Args:
        mode: ``"tf"``, ``"torch"``, ``"caffe"`` or None.

    Returns:
        The function.
    """
    def preprocess_input(x, data_format: str | None = None) -> Any:
        if mode is None:
            return x
        return imagenet_utils.preprocess_input(x, data_format=data_format, mode=mode)
    if mode is None:
        preprocess_input.__doc__ = """Returns ``x`` unchanged: the models of this module
    preprocess inside (Keras' placeholder).

    Args:
        x: images.
        data_format: unused, as in Keras (either format is accepted).

    Returns:
        ``x``.
    """
    else:
        preprocess_input.__doc__ = f"""Preprocesses images as the models of this module expect
    (``imagenet_utils.preprocess_input`` mode ``"{mode}"``).

    Args:
        x: images (NumPy array or tensor), values in ``[0, 255]``.
        data_format: ``"channels_last"`` or ``"channels_first"``; None for the global setting.

    Returns:
        The preprocessed images.
    """
    return preprocess_input


def decode_predictions(preds, top: int = 5) -> list:
    """The top ImageNet classes of each prediction (``imagenet_utils.decode_predictions``,
    with the class index of the Keras cache).

    Args:
        preds: a ``(samples, 1000)`` array of scores.
        top: how many classes per sample.

    Returns:
        One list per sample of ``(class_id, class_name, score)`` tuples, best first.
    """
    return imagenet_utils.decode_predictions(preds, top=top)
