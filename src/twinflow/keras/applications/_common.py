"""What every application model does around its architecture: the ``weights`` argument, the
image input, the classifier or pooling on top, and the model at the end.

twinflow downloads nothing. ``weights="imagenet"`` loads the file Keras would have downloaded
if it is already in the Keras cache (``~/.keras/models/<file>`` or ``$KERAS_HOME/models``);
otherwise it raises, naming the file. ``weights=<path>`` loads that file (``.weights.h5``,
Keras' legacy ``.h5`` weights, or a twinflow checkpoint).
"""
from __future__ import annotations

import os

from .. import backend, layers
from ..keras_archive import load_legacy_weights
from ..layers.keras_tensor import KerasTensor
from ..models import Model
from . import imagenet_utils

KERAS_WEIGHTS_URL = "https://storage.googleapis.com/tensorflow/keras-applications/"


def _cache_path(file_name: str) -> str:
    return os.path.join(os.path.dirname(imagenet_utils.class_index_path()), file_name)


def _is_weights_file(path) -> bool:
    if not isinstance(path, (str, os.PathLike)):
        return False
    path = os.fspath(path)
    return os.path.isfile(path) or os.path.isfile(path + ".index")


def check_weights(weights, include_top: bool, classes: int, file_name: str | None) -> None:
    """Validates ``weights`` before anything is built.

    Args:
        weights: None, ``"imagenet"`` or the path of a weights file.
        include_top: whether the model gets its classifier.
        classes: the number of classes of the classifier.
        file_name: the name of the ImageNet weights file Keras would download for this
            configuration (None: Keras has none).

    Raises:
        ValueError: for an unknown ``weights`` value, ``"imagenet"`` with ``classes`` other
            than 1000 and a classifier, or ``"imagenet"`` weights missing from the Keras cache.
    """
    if weights is None or (weights != "imagenet" and _is_weights_file(weights)):
        return
    if weights != "imagenet":
        raise ValueError("The `weights` argument should be either `None` (random "
                         "initialization), 'imagenet' (pre-training on ImageNet), or the path "
                         f"to the weights file to be loaded.  Received: weights={weights}")
    if include_top and classes != 1000:
        raise ValueError("If using `weights='imagenet'` with `include_top=True`, `classes` "
                         f"should be 1000.  Received classes={classes}")
    if file_name is None:
        raise ValueError("Keras publishes no ImageNet weights for this configuration; use "
                         "weights=None or the path of a weights file.")
    if not os.path.isfile(_cache_path(file_name)):
        raise ValueError(
            f"weights='imagenet': twinflow cannot download pretrained weights. Put Keras' "
            f"file {file_name} (from {KERAS_WEIGHTS_URL}) at {_cache_path(file_name)}, or pass "
            "its path as `weights=`, or use weights=None for random initialization.")


def image_input(input_shape: tuple, input_tensor) -> KerasTensor:
    """The model's image input: ``input_tensor`` if given, else a new ``Input``.

    Args:
        input_shape: the validated shape (without the batch dimension).
        input_tensor: None or a KerasTensor to build the model on.

    Returns:
        The KerasTensor the architecture starts from.

    Raises:
        ValueError: if ``input_tensor`` is not a KerasTensor.
    """
    if input_tensor is None:
        return layers.Input(shape=input_shape)
    if not backend.is_keras_tensor(input_tensor):
        raise ValueError("`input_tensor` must be a Keras tensor (the output of "
                         f"`keras.Input()` or of a layer), got {type(input_tensor).__name__}")
    return input_tensor


def source_inputs(tensor: KerasTensor) -> list:
    """The ``Input``s a KerasTensor is computed from (Keras' ``get_source_inputs``).

    Args:
        tensor: a KerasTensor.

    Returns:
        The input KerasTensors, in the order they are first met.
    """
    found: list = []
    seen: set = set()
    stack = [tensor]
    while stack:
        t = stack.pop()
        if id(t) in seen:
            continue
        seen.add(id(t))
        if t._node is None:
            found.append(t)
        else:
            stack.extend(reversed(t._node.parents))
    return found


def classifier_or_pooling(x, include_top: bool, pooling, classes: int,
                          classifier_activation, weights):
    """Keras' usual top: global average pooling and a ``predictions`` Dense layer, or the
    ``pooling`` asked for (``avg_pool``/``max_pool``) without one.

    Args:
        x: the features.
        include_top: whether to add the classifier.
        pooling: None, ``"avg"`` or ``"max"`` (without the classifier).
        classes: the number of classes.
        classifier_activation: the activation of ``predictions``.
        weights: the weights argument (pretrained weights allow only softmax or None).

    Returns:
        The model's output.
    """
    if include_top:
        x = layers.GlobalAveragePooling2D(name="avg_pool")(x)
        imagenet_utils.validate_activation(classifier_activation, weights)
        return layers.Dense(classes, activation=classifier_activation, name="predictions")(x)
    return pool(x, pooling)


def pool(x, pooling):
    """``avg_pool``, ``max_pool`` or nothing, for a model without its classifier.

    Args:
        x: the features.
        pooling: None, ``"avg"`` or ``"max"``.

    Returns:
        The pooled features (``x`` itself for None).

    Raises:
        ValueError: for another value.
    """
    if pooling == "avg":
        return layers.GlobalAveragePooling2D(name="avg_pool")(x)
    if pooling == "max":
        return layers.GlobalMaxPooling2D(name="max_pool")(x)
    if pooling is not None:
        raise ValueError(f"`pooling` should be None, 'avg' or 'max'. Received: {pooling!r}")
    return x


def build_model(img_input, outputs, input_tensor, name: str, weights,
                file_name: str | None) -> Model:
    """The functional model, with its weights loaded if a file was named.

    Args:
        img_input: the KerasTensor the architecture starts from.
        outputs: the model's output.
        input_tensor: the user's ``input_tensor`` (its source ``Input``s become the inputs).
        name: the model's name.
        weights: None, ``"imagenet"`` (the Keras cache's ``file_name``) or a file path.
        file_name: the ImageNet weights file of this configuration.

    Returns:
        The model.
    """
    if input_tensor is not None:
        inputs = source_inputs(input_tensor)
        inputs = inputs[0] if len(inputs) == 1 else inputs
    else:
        inputs = img_input
    model = Model(inputs, outputs, name=name)
    if weights == "imagenet":
        load_weights_file(model, _cache_path(file_name))
    elif weights is not None:
        load_weights_file(model, weights)
    return model


def load_weights_file(model: Model, path) -> None:
    """Loads weights into an application model: Keras 3 ``.weights.h5``, Keras' legacy
    ``.h5`` weights (the ImageNet files; layers with weights in order), or a checkpoint.

    Args:
        model: the model.
        path: the file.
    """
    path = os.fspath(path)
    if path.endswith(".h5") and not path.endswith(".weights.h5"):
        with open(path, "rb") as f:
            load_legacy_weights(model, f.read(), os.path.basename(path))
        return
    model.load_weights(path)

