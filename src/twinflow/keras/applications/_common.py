"""What every application model does around its architecture: the ``weights`` argument, the
image input, the classifier or pooling on top, and the model at the end.

twinflow downloads nothing. ``weights="imagenet"`` loads the file Keras would have downloaded
if it is already in the Keras cache (``~/.keras/models/<file>`` or ``$KERAS_HOME/models``);
otherwise it raises, naming the file. ``weights=<path>`` loads that file (``.weights.h5``,
Keras' legacy ``.h5`` weights, or a twinflow checkpoint).
"""
from __future__ import annotations

import inspect
import os
import warnings
from collections.abc import Callable
from typing import Any

from .. import backend, layers
from ..keras_archive import load_legacy_weights
from ..layers.keras_tensor import KerasTensor
from ..models import Model
from ..utils.model_utils import get_source_inputs
from . import imagenet_utils

KERAS_WEIGHTS_URL = "https://storage.googleapis.com/tensorflow/keras-applications/"


def _cache_path(file_name: str) -> str:
    return os.path.join(os.path.dirname(imagenet_utils.class_index_path()), file_name)


def _is_weights_file(path) -> bool:
    if not isinstance(path, (str, os.PathLike)):
        return False
    path = os.fspath(path)
    return os.path.isfile(path) or os.path.isfile(path + ".index")


def check_weights(weights, include_top: bool, classes: int) -> None:
    """Validates ``weights`` before anything is built.

    Args:
        weights: None, ``"imagenet"`` or the path of a weights file.
        include_top: whether the model gets its classifier.
        classes: the number of classes of the classifier.

    Raises:
        ValueError: for an unknown ``weights`` value, or ``"imagenet"`` with ``classes``
            other than 1000 and a classifier.
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


def check_cached(weights, file_name: str | None) -> None:
    """With ``weights="imagenet"``, the ImageNet file must already be in the Keras cache.

    Args:
        weights: the weights argument (nothing is checked unless ``"imagenet"``).
        file_name: the name of the file Keras would download for this configuration (None:
            Keras publishes none).

    Raises:
        ValueError: if the file is not in the cache (twinflow downloads nothing).
    """
    if weights != "imagenet":
        return
    if file_name is None:
        raise ValueError("Keras publishes no ImageNet weights for this configuration; use "
                         "weights=None or the path of a weights file.")
    if not os.path.isfile(_cache_path(file_name)):
        raise ValueError(
            f"weights='imagenet': twinflow cannot download pretrained weights. Put Keras' "
            f"file {file_name} (from {KERAS_WEIGHTS_URL}) at {_cache_path(file_name)}, or pass "
            "its path as `weights=`, or use weights=None for random initialization.")


def weights_file(stem: str | None, include_top: bool, notop: str = "_notop") -> str | None:
    """The name of Keras' ImageNet weights file: ``<stem>.h5`` or ``<stem><notop>.h5``.

    Args:
        stem: the file name without the suffix (None: Keras publishes no file).
        include_top: whether the model has its classifier.
        notop: what the name adds without the classifier.

    Returns:
        The file name, or None.
    """
    return None if stem is None else f"{stem}{'' if include_top else notop}.h5"



def kernels_file(prefix: str | None, include_top: bool) -> str | None:
    """The older Keras file names: ``<prefix>_weights_tf_dim_ordering_tf_kernels[_notop].h5``.

    Args:
        prefix: the model's prefix (``vgg16``); None: Keras publishes no file.
        include_top: whether the model has its classifier.

    Returns:
        The file name, or None.
    """
    return weights_file(prefix and f"{prefix}_weights_tf_dim_ordering_tf_kernels", include_top)


def model_input(weights, include_top: bool, classes: int, input_shape, input_tensor,
                file_name: str | None, default_size: int = 224, min_size: int = 32) -> tuple:
    """The start of every builder: ``weights`` checked (and the ImageNet file looked up), the
    input shape validated and the image input made.

    Args:
        weights: the weights argument.
        include_top: whether the model gets its classifier.
        classes: the number of classes.
        input_shape: the user's input shape or None.
        input_tensor: the user's KerasTensor or None.
        file_name: Keras' ImageNet file of this configuration (see ``weights_file``), or None.
        default_size: the default image size.
        min_size: the smallest image size.

    Returns:
        ``(image input, validated input shape)``.
    """
    check_weights(weights, include_top, classes)
    check_cached(weights, file_name)
    input_shape = imagenet_utils.obtain_input_shape(
        input_shape, default_size=default_size, min_size=min_size,
        data_format=backend.image_data_format(), require_flatten=include_top, weights=weights)
    return image_input(input_shape, input_tensor), input_shape


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


def classifier_or_pooling(x, include_top: bool, pooling, classes: int,
                          classifier_activation, weights, named: bool = True):
    """Keras' usual top: global average pooling and a ``predictions`` Dense layer, or the
    ``pooling`` asked for (``avg_pool``/``max_pool``) without one.

    Args:
        x: the features.
        include_top: whether to add the classifier.
        pooling: None, ``"avg"`` or ``"max"`` (without the classifier).
        classes: the number of classes.
        classifier_activation: the activation of ``predictions``.
        weights: the weights argument (pretrained weights allow only softmax or None).
        named: whether the pooling layers are named (some Keras models leave them unnamed:
            ``global_average_pooling2d``...).

    Returns:
        The model's output.
    """
    if include_top:
        x = layers.GlobalAveragePooling2D(name="avg_pool" if named else None)(x)
        imagenet_utils.validate_activation(classifier_activation, weights)
        return layers.Dense(classes, activation=classifier_activation, name="predictions")(x)
    return pool(x, pooling, named)


def pool(x, pooling, named: bool = True):
    """``avg_pool``, ``max_pool`` or nothing, for a model without its classifier.

    Args:
        x: the features.
        pooling: None, ``"avg"`` or ``"max"``.
        named: whether the pooling layer is named (else Keras' automatic name).

    Returns:
        The pooled features (``x`` itself for None).

    Raises:
        ValueError: for another value.
    """
    if pooling == "avg":
        return layers.GlobalAveragePooling2D(name="avg_pool" if named else None)(x)
    if pooling == "max":
        return layers.GlobalMaxPooling2D(name="max_pool" if named else None)(x)
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
        inputs = get_source_inputs(input_tensor)
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



_MODEL_DOC = """Instantiates the {title} architecture (Keras 3's layers, names, parameters).

{extra}Args:
{args}    include_top: whether to include the classifier at the top.
    weights: None (random initialization), ``"imagenet"`` (only from the Keras cache:
        twinflow downloads nothing) or the path of a weights file to load.
    input_tensor: an optional KerasTensor (from ``keras.Input``) to build the model on.
    input_shape: an optional shape tuple without the batch dimension; with
        ``include_top=True`` it must be fully known.
    pooling: without the classifier, None (4D feature maps), ``"avg"`` or ``"max"``
        (global pooling).
    classes: the number of classes of the classifier.
    classifier_activation: the activation of the classifier (a name, a callable or None
        for logits).
    name: the model's name.

Returns:
    A ``keras.Model``.
"""


# the arguments the MobileNets add to the shared ones
MOBILENET_ARGS = """\
    input_shape: an optional shape tuple without the batch dimension (at least 32x32).
    alpha: the width multiplier (channels of every layer scaled by it).
"""


def document(fn, title: str, args: str = "", extra: str = ""):
    """Gives an application constructor the shared docstring.

    Args:
        fn: the constructor.
        title: the architecture's name as the docstring says it.
        args: documentation of the arguments it has besides the shared ones (indented lines).
        extra: a paragraph (ending in a blank line) before the arguments.

    Returns:
        ``fn``.
    """
    fn.__doc__ = _MODEL_DOC.format(title=title, args=args, extra=extra)
    return fn



# Keras' defaults of the constructors' shared parameters, and their usual order
_DEFAULTS = {"include_top": True, "include_preprocessing": True, "weights": "imagenet",
             "input_tensor": None, "input_shape": None, "pooling": None, "classes": 1000,
             "classifier_activation": "softmax"}
KERAS_ORDER = ("include_top", "weights", "input_tensor", "input_shape", "pooling", "classes",
               "classifier_activation")


def constructor(title: str, build: Callable[..., Model], name: str,
                order: tuple = KERAS_ORDER, args: str = "", extra: str = "",
                doc_title: str | None = None) -> Callable[..., Model]:
    """A public constructor (``ResNet50``, ``EfficientNetB0``...): the parameters ``order``
    names with Keras' defaults, then ``name`` (default ``name``), all passed to ``build`` by
    keyword.

    Args:
        title: the constructor's ``__name__``.
        build: the builder of this variant, called with every argument by keyword.
        name: the default model name.
        order: the parameters before ``name``, in Keras' order for this model.
        args: documentation of the parameters outside the shared ones (see ``document``).
        extra: a paragraph before the arguments (see ``document``).
        doc_title: the architecture's name in the docstring (default ``title``).

    Returns:
        The constructor, with its real signature and the shared docstring.
    """
    keyword = inspect.Parameter.POSITIONAL_OR_KEYWORD
    signature = inspect.Signature(
        [inspect.Parameter(p, keyword, default=_DEFAULTS[p]) for p in order]
        + [inspect.Parameter("name", keyword, default=name)], return_annotation=Model)

    def make(*positional, **keywords) -> Model:
        bound = signature.bind(*positional, **keywords)
        bound.apply_defaults()
        return build(**bound.arguments)
    make.__signature__ = signature
    make.__name__ = make.__qualname__ = title
    make.__module__ = build.__module__
    return document(make, doc_title or title, args, extra)


def preprocessor(mode: str | None):
    """A model module's ``preprocess_input``: ``imagenet_utils.preprocess_input`` in ``mode``.

    Args:
        mode: the imagenet_utils mode the model was trained with (None: the model
            preprocesses its input itself, and ``preprocess_input`` returns ``x`` unchanged).

    Returns:
        The function.
    """
    def preprocess_input(x, data_format: str | None = None) -> Any:
        if mode is None:
            return x
        return imagenet_utils.preprocess_input(x, data_format=data_format, mode=mode)
    what = (f'``imagenet_utils.preprocess_input`` with ``mode="{mode}"``' if mode else
            "nothing to do: the model rescales its input itself; ``x`` is returned unchanged")
    preprocess_input.__doc__ = f"""Preprocesses a batch of images (values in [0, 255]) for
    this model ({what}).

    Args:
        x: a 3D or 4D NumPy array, tensor or KerasTensor with 3 colour channels (a floating
            NumPy array is written over, as in Keras).
        data_format: ``"channels_last"`` / ``"channels_first"``; None: the Keras setting.

    Returns:
        The preprocessed images.
    """
    return preprocess_input


def spatial(shape) -> tuple:
    """(rows, cols) of an image shape without the batch dimension, per the data format.

    Args:
        shape: a 3-entry shape.

    Returns:
        The two spatial sizes (None where unknown).
    """
    if backend.image_data_format() == "channels_first":
        return shape[1], shape[2]
    return shape[0], shape[1]


def check_tensor_shape(input_shape, input_tensor) -> None:
    """``input_shape`` and ``input_tensor`` given together must agree.

    Args:
        input_shape: the user's shape (without the batch dimension), or None.
        input_tensor: the user's KerasTensor, or None.

    Raises:
        ValueError: if ``input_tensor`` is not a KerasTensor or its shape differs.
    """
    if input_shape is None or input_tensor is None:
        return
    if not backend.is_keras_tensor(input_tensor):
        raise ValueError("input_tensor is not a Keras tensor; Received "
                         f"`input_tensor={input_tensor}`")
    have = tuple(input_tensor.shape)[1:]
    if len(have) != len(input_shape) or any(
            a is not None and b is not None and a != b for a, b in zip(have, input_shape)):
        raise ValueError(f"input_shape {tuple(input_shape)} does not match the shape of "
                         f"input_tensor {tuple(input_tensor.shape)}")


def imagenet_rows(rows, cols, sizes: tuple, stacklevel: int) -> int:
    """The image size of the MobileNet ImageNet file to load: ``rows`` for a square input of
    one of ``sizes``, else 224 (with Keras' warning).

    Args:
        rows: the input's rows.
        cols: the input's columns.
        sizes: the sizes Keras publishes files for.
        stacklevel: the warning's stack level (the user's call).

    Returns:
        The size.
    """
    if rows == cols and rows in sizes:
        return rows
    warnings.warn("`input_shape` is undefined or non-square, or `rows` is not in "
                  f"[{', '.join(map(str, sizes))}]. Weights for input shape (224, 224) will be "
                  "loaded as the default.", stacklevel=stacklevel + 1)
    return 224


def make_divisible(v: float, divisor: int = 8, min_value: int | None = None) -> int:
    """``v`` rounded to a multiple of ``divisor``, never below 90% of ``v`` (MobileNets'
    channel counts).

    Args:
        v: the channel count before rounding.
        divisor: the multiple.
        min_value: the smallest result (``divisor`` by default).

    Returns:
        The rounded count.
    """
    min_value = divisor if min_value is None else min_value
    new_v = max(min_value, int(v + divisor / 2) // divisor * divisor)
    return new_v + divisor if new_v < 0.9 * v else new_v
