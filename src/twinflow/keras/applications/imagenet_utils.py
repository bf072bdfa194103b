"""``tw.keras.applications.imagenet_utils``: what the ImageNet models share.

``preprocess_input`` scales a batch of images as a model's original training did (``caffe``:
RGB to BGR and the ImageNet mean subtracted; ``tf``: to [-1, 1]; ``torch``: to [0, 1], then the
ImageNet mean and standard deviation per channel). ``decode_predictions`` names the top classes
from a class-index JSON file: twinflow downloads nothing, so the file is the one given, or the
one Keras keeps in its cache (``~/.keras/models/imagenet_class_index.json``, or under
``$KERAS_HOME``). ``obtain_input_shape`` validates a model's ``input_shape`` as Keras does.
"""
from __future__ import annotations

import json
import os
import threading
import warnings
from typing import Any

import numpy as np

from ...core import dtypes
from ...ops import array_ops, math_ops
from .. import activations, backend
from ..layers.base import Layer
from ..layers.keras_tensor import KerasTensor
from ..registry import register_object

CLASS_INDEX_FILE = "imagenet_class_index.json"
_MODES = ("caffe", "tf", "torch")
_CAFFE_MEAN = (103.939, 116.779, 123.68)  # BGR order
_TORCH_MEAN = (0.485, 0.456, 0.406)
_TORCH_STD = (0.229, 0.224, 0.225)
_INDEX_CACHE: dict = {}
_INDEX_LOCK = threading.Lock()


def _data_format(data_format: str | None) -> str:
    if data_format is None:
        return backend.image_data_format()
    if data_format not in ("channels_first", "channels_last"):
        raise ValueError("Expected data_format to be one of `channels_first` or "
                         f"`channels_last`. Received: data_format={data_format}")
    return data_format


def _numpy_preprocess(x: np.ndarray, data_format: str, mode: str) -> np.ndarray:
    # As Keras: a floating array is scaled in place (and returned); any other becomes floatx.
    if not np.issubdtype(x.dtype, np.floating):
        x = x.astype(backend.floatx())
    if mode == "tf":
        x /= 127.5
        x -= 1.0
        return x
    first = data_format == "channels_first"
    channel = (0 if x.ndim == 3 else 1) if first else x.ndim - 1
    if x.shape[channel] != 3:
        raise ValueError(f"preprocess_input(mode={mode!r}) needs 3 colour channels on axis "
                         f"{channel} ({data_format}); got an array of shape {x.shape}")
    if mode == "torch":
        x /= 255.0
        mean, std = _TORCH_MEAN, _TORCH_STD
    else:
        index = [slice(None)] * x.ndim
        index[channel] = slice(None, None, -1)
        x = x[tuple(index)]  # RGB -> BGR (a view, as Keras')
        mean, std = _CAFFE_MEAN, None
    shape = [1] * x.ndim
    shape[channel] = 3
    x -= np.asarray(mean, x.dtype).reshape(shape)
    if std is not None:
        x /= np.asarray(std, x.dtype).reshape(shape)
    return x


def _tensor_preprocess(x, data_format: str, mode: str):
    x = math_ops.cast(x, backend.floatx()) if not x.dtype.is_floating else x
    if mode == "tf":
        return x / 127.5 - 1.0
    rank = x.shape.rank
    if rank is None:
        raise ValueError("preprocess_input needs a tensor of known rank (3 or 4)")
    channel = (0 if rank == 3 else 1) if data_format == "channels_first" else rank - 1
    if x.shape[channel] is not None and x.shape[channel] != 3:
        raise ValueError(f"preprocess_input(mode={mode!r}) needs 3 colour channels on axis "
                         f"{channel} ({data_format}); got a tensor of shape {x.shape}")
    shape = [1] * rank
    shape[channel] = 3
    np_dtype = x.dtype.as_numpy_dtype
    if mode == "torch":
        x = x / 255.0
        x = x - np.asarray(_TORCH_MEAN, np_dtype).reshape(shape)
        return x / np.asarray(_TORCH_STD, np_dtype).reshape(shape)
    x = array_ops.reverse(x, [channel])  # RGB -> BGR
    return x - np.asarray(_CAFFE_MEAN, np_dtype).reshape(shape)


def preprocess_input(x, data_format: str | None = None, mode: str = "caffe") -> Any:
    """Preprocesses a batch of images (values in [0, 255]) as an ImageNet model expects.

    A floating NumPy array is written over (and returned), as in Keras; use ``np.copy(x)``
    to keep it. A tensor gives a new tensor; a KerasTensor (inside a functional model) gives
    the output of a ``PreprocessInput`` layer doing the same.

    Args:
        x: a 3D or 4D NumPy array, tensor or KerasTensor with 3 colour channels.
        data_format: ``"channels_last"`` or ``"channels_first"``; None means
            ``keras.backend.image_data_format()``.
        mode: ``"caffe"`` (RGB to BGR, then the ImageNet mean subtracted per channel, no
            scaling), ``"tf"`` (scaled to [-1, 1]) or ``"torch"`` (scaled to [0, 1], then
            normalized with the ImageNet mean and standard deviation per channel).

    Returns:
        The preprocessed images (float32 unless ``x`` was another floating type).

    Raises:
        ValueError: for an unknown ``mode`` or ``data_format``, or not 3 channels.
    """
    if mode not in _MODES:
        raise ValueError("Expected mode to be one of `caffe`, `tf` or `torch`. "
                         f"Received: mode={mode}")
    data_format = _data_format(data_format)
    if isinstance(x, KerasTensor):
        return PreprocessInput(mode=mode, data_format=data_format)(x)
    if isinstance(x, np.ndarray):
        return _numpy_preprocess(x, data_format, mode)
    if isinstance(x, (list, tuple, int, float)):
        return _numpy_preprocess(np.asarray(x), data_format, mode)
    if not hasattr(x, "dtype") or not isinstance(x.dtype, dtypes.DType):
        raise TypeError(f"preprocess_input expects a NumPy array or a tensor, got {type(x)}")
    return _tensor_preprocess(x, data_format, mode)


def register_layer(cls: type) -> type:
    """Makes an applications layer loadable by name without ``custom_objects`` (what
    ``keras.utils.register_keras_serializable(package="twinflow")`` does; keras.utils imports
    the models, which this module comes before).

    Args:
        cls: the layer class.

    Returns:
        ``cls``.
    """
    register_object(f"twinflow>{cls.__name__}", cls)
    register_object(cls.__name__, cls)
    return cls


@register_layer
class PreprocessInput(Layer):
    """``preprocess_input`` as a layer: what it adds to a functional model built on
    KerasTensors (Keras adds operation nodes, which twinflow's functional models do not have;
    this layer saves and loads with the model).

    Args:
        mode: ``"caffe"``, ``"tf"`` or ``"torch"``.
        data_format: ``"channels_last"`` or ``"channels_first"`` (None: the Keras setting).
        **kwargs: Layer arguments.
    """

    def __init__(self, mode: str = "caffe", data_format: str | None = None, **kwargs) -> None:
        super().__init__(**kwargs)
        if mode not in _MODES:
            raise ValueError("Expected mode to be one of `caffe`, `tf` or `torch`. "
                             f"Received: mode={mode}")
        self.mode = mode
        self.data_format = _data_format(data_format)

    def call(self, inputs) -> Any:
        """The preprocessed images.

        Args:
            inputs: a batch of images.

        Returns:
            ``preprocess_input(inputs, data_format, mode)``.
        """
        return _tensor_preprocess(inputs, self.data_format, self.mode)

    _config_keys = ("mode", "data_format")


def class_index_path() -> str:
    """Where Keras keeps the ImageNet class index: ``$KERAS_HOME/models`` (``~/.keras``).

    Returns:
        The path of ``imagenet_class_index.json`` in the Keras cache (it may not exist).
    """
    home = os.environ.get("KERAS_HOME") or os.path.join(os.path.expanduser("~"), ".keras")
    return os.path.join(home, "models", CLASS_INDEX_FILE)


def _load_index(path: str) -> dict:
    path = os.path.abspath(os.fspath(path))
    with _INDEX_LOCK:
        if path in _INDEX_CACHE:
            return _INDEX_CACHE[path]
    if not os.path.exists(path):
        raise FileNotFoundError(
            f"decode_predictions needs the ImageNet class index {path}, which does not "
            "exist. twinflow downloads nothing: copy Keras' imagenet_class_index.json there "
            "(or to ~/.keras/models/), or pass class_index=<path or dict>.")
    with open(path, encoding="utf-8") as f:
        try:
            raw = json.load(f)
        except json.JSONDecodeError as e:
            raise ValueError(f"{path} is not a JSON class index: {e}") from None
    index = _check_index(raw, path)
    with _INDEX_LOCK:
        _INDEX_CACHE[path] = index
    return index


def _check_index(raw: Any, label: str) -> dict:
    """``{"0": [wnid, name], ...}`` checked: keys 0..n-1, each value two strings."""
    if not isinstance(raw, dict) or not raw:
        raise ValueError(f"{label}: a class index is a JSON object "
                         '{"0": ["n01440764", "tench"], ...}')
    index = {}
    for key, value in raw.items():
        if not (isinstance(value, (list, tuple)) and len(value) == 2
                and all(isinstance(v, str) for v in value)):
            raise ValueError(f"{label}: class {key!r} should be [class id, description], "
                             f"got {value!r}")
        index[str(key)] = (value[0], value[1])
    missing = [str(i) for i in range(len(index)) if str(i) not in index]
    if missing:
        raise ValueError(f"{label}: the classes should be numbered 0..{len(index) - 1}; "
                         f"missing {missing[:5]}")
    return index


def decode_predictions(preds, top: int = 5, class_index=None) -> list:
    """Decodes the predictions of an ImageNet model into (class id, name, score) tuples.

    Args:
        preds: a batch of predictions, shape ``(samples, classes)`` (NumPy array or tensor).
        top: how many of the best guesses to return per sample.
        class_index: the class index: a path to a JSON file like Keras'
            ``imagenet_class_index.json`` (``{"0": ["n01440764", "tench"], ...}``) or such a
            dict. None reads the Keras cache (``~/.keras/models/imagenet_class_index.json``);
            twinflow never downloads it.

    Returns:
        One list per sample of ``(class_id, description, score)`` tuples, best first.

    Raises:
        ValueError: if ``preds`` is not 2D with one column per class of the index.
        FileNotFoundError: if no class index is given and the Keras cache has none.
    """
    preds = np.asarray(preds.numpy() if hasattr(preds, "numpy") else preds)
    if preds.ndim != 2:
        raise ValueError("`decode_predictions` expects a batch of predictions (i.e. a 2D "
                         f"array of shape (samples, 1000)). Received array with shape: "
                         f"{preds.shape}")
    if isinstance(class_index, dict):
        index = _check_index(class_index, "class_index")
    else:
        index = _load_index(class_index if class_index is not None else class_index_path())
    if preds.shape[1] != len(index):
        raise ValueError(f"`decode_predictions` expects a batch of predictions of shape "
                         f"(samples, {len(index)}) (one per class of the index). Received "
                         f"array with shape: {preds.shape}")
    if int(top) < 1:
        raise ValueError(f"`top` must be at least 1, got {top}")
    results = []
    for pred in preds:
        best = np.argsort(-pred, kind="stable")[:int(top)]
        results.append([index[str(i)] + (pred[i],) for i in best])
    return results


def obtain_input_shape(input_shape, default_size: int, min_size: int, data_format: str,
                       require_flatten: bool, weights=None) -> tuple:
    """A model's input shape: the default one, or ``input_shape`` validated.

    Args:
        input_shape: None (the default shape) or the shape the user asked for, without the
            batch dimension.
        default_size: the model's default height and width.
        min_size: the smallest height and width it accepts.
        data_format: ``"channels_last"`` or ``"channels_first"``.
        require_flatten: whether the model ends in a classifier that needs a fixed size
            (``include_top=True``).
        weights: None, ``"imagenet"`` or a weights file (with ``"imagenet"`` the input must
            have 3 channels, and the default size with a classifier).

    Returns:
        The shape, a tuple of three entries (None for a free height or width).

    Raises:
        ValueError: if ``input_shape`` is not three entries, is too small, or a classifier
            is asked for with an unknown height or width.
    """
    first = data_format == "channels_first"
    if weights != "imagenet" and input_shape and len(input_shape) == 3:
        channels = input_shape[0] if first else input_shape[-1]
        if channels not in (1, 3):
            warnings.warn("This model usually expects 1 or 3 input channels. However, it was "
                          f"passed an input_shape with {channels} input channels.",
                          stacklevel=2)
        default = ((channels, default_size, default_size) if first
                   else (default_size, default_size, channels))
    else:
        default = (3, default_size, default_size) if first else (default_size, default_size, 3)
    if weights == "imagenet" and require_flatten:
        if input_shape is not None and tuple(input_shape) != default:
            raise ValueError("When setting `include_top=True` and loading `imagenet` weights, "
                             f"`input_shape` should be {default}.  Received: "
                             f"input_shape={input_shape}")
        return default
    if input_shape:
        input_shape = tuple(input_shape)
        if len(input_shape) != 3:
            raise ValueError("`input_shape` must be a tuple of three integers.")
        channels = input_shape[0] if first else input_shape[-1]
        if channels != 3 and weights == "imagenet":
            raise ValueError(f"The input must have 3 channels; Received "
                             f"`input_shape={input_shape}`")
        spatial = input_shape[1:] if first else input_shape[:2]
        if any(d is not None and d < min_size for d in spatial):
            raise ValueError(f"Input size must be at least {min_size}x{min_size}; Received: "
                             f"input_shape={input_shape}")
    elif require_flatten:
        input_shape = default
    else:
        input_shape = (3, None, None) if first else (None, None, 3)
    if require_flatten and None in input_shape:
        raise ValueError("If `include_top` is True, you should specify a static "
                         f"`input_shape`. Received: input_shape={input_shape}")
    return input_shape


def correct_pad(inputs, kernel_size) -> tuple:
    """The zero padding before a strided convolution that 'same' padding would apply.

    Args:
        inputs: the (Keras) tensor to be padded.
        kernel_size: an int or a pair of ints.

    Returns:
        ``((top, bottom), (left, right))``.
    """
    first = backend.image_data_format() == "channels_first"
    size = tuple(inputs.shape)[2:4] if first else tuple(inputs.shape)[1:3]
    if isinstance(kernel_size, int):
        kernel_size = (kernel_size, kernel_size)
    adjust = (1, 1) if size[0] is None else (1 - size[0] % 2, 1 - size[1] % 2)
    correct = (kernel_size[0] // 2, kernel_size[1] // 2)
    return ((correct[0] - adjust[0], correct[0]), (correct[1] - adjust[1], correct[1]))


def validate_activation(classifier_activation, weights) -> None:
    """Pretrained weights allow only ``None`` or ``"softmax"`` as the classifier activation.

    Args:
        classifier_activation: the activation of the top layer (a name or a callable).
        weights: the weights argument of the model (None skips the check).

    Raises:
        ValueError: for another activation with pretrained weights.
    """
    if weights is None:
        return
    act = activations.get(classifier_activation)
    if act not in (activations.get("softmax"), activations.get(None)):
        raise ValueError("Only `None` and `softmax` activations are allowed for the "
                         "`classifier_activation` argument when using pretrained weights, "
                         f"with `include_top=True`; Received: {classifier_activation}")
