"""``tw.keras.utils``: the progress bar, ``to_categorical``, ``pad_sequences``, the registry of
custom objects, ``timeseries_dataset_from_array``, ``set_random_seed``."""
from __future__ import annotations

import os
import random
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from ...core import dtypes as _dtypes
from ...data import Dataset
from ...ops import nn_ops, random_ops
from .. import registry as _registry
from .. import saving as _saving
from .. import settings as _settings
from ..backend import clear_session, is_keras_tensor  # noqa: F401  (tw.keras.utils names)
from ..models.data import unpack_x_y_sample_weight  # noqa: F401  (tw.keras.utils name)
from ..serialization import (  # noqa: F401  (tw.keras.utils names)
    deserialize_keras_object,
    serialize_keras_object,
)
from ..settings import (  # noqa: F401  (tw.keras.utils names, the same functions as config's)
    disable_interactive_logging,
    enable_interactive_logging,
    is_interactive_logging_enabled,
)


def _interactive(stream) -> bool:
    return bool(getattr(stream, "isatty", lambda: False)()) or \
        os.environ.get("TWINFLOW_PROGRESS") == "1"


def _fmt_value(v) -> str:
    v = float(v)
    return f"{v:.4f}" if abs(v) >= 1e-3 or v == 0 else f"{v:.4e}"


def _fmt_time(seconds: float) -> str:
    if seconds >= 3600:
        return f"{int(seconds // 3600)}:{int(seconds % 3600 // 60):02d}:{int(seconds % 60):02d}"
    if seconds >= 60:
        return f"{int(seconds // 60)}:{int(seconds % 60):02d}"
    return f"{int(seconds)}s"


class Progbar:
    """Keras' progress bar: ``12/45 [=====>........] - ETA: 1s - loss: 0.3421``.

    On a terminal the line is redrawn in place; otherwise only the final line of each run is
    printed, so logs stay readable.

    Args:
        target: the number of steps (None: unknown).
        width: the bar's width in characters.
        verbose: 1 for the bar, 2 for one line at the end, 0 for nothing.
        interval: minimum seconds between redraws.
        stateful_metrics: names of the values shown as given; the others are averaged over
            the steps (weighted by the steps each update advanced), as Keras 3.
        stateless_metrics: or else, the names of the values averaged (the others shown as
            given); ``fit`` passes an empty set (its logs are averages already).
        unit_name: the unit in the speed display.
        stream: where to write (stdout by default).
    """

    def __init__(self, target: int | None, width: int = 30, verbose: int = 1,
                 interval: float = 0.05, stateful_metrics=None, stateless_metrics=None,
                 unit_name: str = "step", stream=None) -> None:
        if stateful_metrics is not None and stateless_metrics is not None:
            raise ValueError("Only one of `stateful_metrics` or `stateless_metrics` can be "
                             "provided.")
        self._shown_as_given = None if stateful_metrics is None and \
            stateless_metrics is not None else set(stateful_metrics or ())
        self._averaged = set(stateless_metrics or ())
        self.target, self.width, self.verbose = target, width, verbose
        self.interval, self.unit_name = interval, unit_name
        self.stream = stream or sys.stdout
        self._start = time.perf_counter()
        self._last_update = 0.0
        self._values: dict = {}
        self._interactive = _interactive(self.stream) and \
            _settings.is_interactive_logging_enabled()
        self._prev_len = 0
        self._seen = 0

    def update(self, current: int, values=None, finalize: bool | None = None) -> None:
        """Moves the bar to ``current`` and shows ``values`` (name -> number pairs).

        Args:
            current: the step reached.
            values: a list of ``(name, value)`` pairs or a dict.
            finalize: whether this is the last update (default: ``current >= target``).
        """
        if finalize is None:
            finalize = self.target is not None and current >= self.target
        if values:
            items = values.items() if isinstance(values, dict) else values
            weight = max(current - self._seen, 1)
            for k, v in items:
                averaged = k not in self._shown_as_given if self._shown_as_given is not None \
                    else k in self._averaged
                if not averaged or finalize:
                    self._values[k] = (v, 1)  # Keras: the final update is shown as given
                else:
                    total, count = self._values.get(k, (0.0, 0))
                    self._values[k] = (total + v * weight, count + weight)
        self._seen = current
        if self.verbose == 0:
            return
        now = time.perf_counter()
        if not finalize and (now - self._last_update < self.interval or
                             not self._interactive or self.verbose != 1):
            return
        self._last_update = now
        line = self._line(current, now, finalize)
        if self._interactive and self.verbose == 1:
            pad = max(0, self._prev_len - len(line))
            self.stream.write("\r" + line + " " * pad)
            self._prev_len = len(line)
            if finalize:
                self.stream.write("\n")
        elif finalize and not _settings.is_interactive_logging_enabled():
            _settings.print_msg(line)
            return
        elif finalize:
            self.stream.write(line + "\n")
        self.stream.flush()

    def add(self, n: int, values=None) -> None:
        """Advances the bar by ``n`` steps.

        Args:
            n: steps.
            values: as in ``update``.
        """
        self.update(self._seen + n, values)

    def _line(self, current: int, now: float, finalize: bool) -> str:
        elapsed = now - self._start
        per_step = elapsed / max(current, 1)
        parts = []
        if self.verbose == 1:
            if self.target is not None:
                digits = len(str(self.target))
                bar = f"{current:{digits}d}/{self.target} ["
                filled = int(self.width * min(current, self.target) / max(self.target, 1))
                if filled > 0:
                    bar += "=" * (filled - 1) + (">" if current < self.target else "=")
                bar += "." * (self.width - filled) + "]"
            else:
                bar = f"{current:7d}/Unknown"
            parts.append(bar)
        if finalize or self.target is None:
            unit = f"{per_step * 1e3:.0f}ms/{self.unit_name}" if per_step >= 1e-3 else \
                f"{per_step * 1e6:.0f}us/{self.unit_name}"
            parts.append(f"{_fmt_time(elapsed)} {unit}")
        else:
            parts.append(f"ETA: {_fmt_time(per_step * (self.target - current))}")
        for k, (total, count) in self._values.items():
            parts.append(f"{k}: {_fmt_value(total / count if count != 1 else total)}")
        return " - ".join(parts)


def to_categorical(y, num_classes: int | None = None, dtype: str = "float32") -> np.ndarray:
    """One-hot encodes integer class ids.

    Args:
        y: class ids (any shape; a trailing axis of 1 is dropped).
        num_classes: the number of classes (default: ``max(y) + 1``).
        dtype: the result dtype.

    Returns:
        An array of shape ``y.shape + (num_classes,)``.
    """
    y = np.asarray(y, dtype="int64")
    if y.ndim > 1 and y.shape[-1] == 1:
        y = y.reshape(y.shape[:-1])
    n = int(num_classes) if num_classes is not None else int(y.max()) + 1
    out = np.zeros(y.shape + (n,), dtype=dtype)
    np.put_along_axis(out, y[..., None], 1, axis=-1)
    return out


def set_random_seed(seed: int) -> None:
    """Seeds Python's, NumPy's and twinflow's random generators.

    Args:
        seed: the seed.
    """
    random.seed(seed)
    np.random.seed(seed)
    random_ops.set_seed(int(seed))


def pad_sequences(sequences, maxlen: int | None = None, dtype="int32", padding: str = "pre",
                  truncating: str = "pre", value=0.0) -> np.ndarray:
    """Pads (or truncates) sequences to one length.

    Args:
        sequences: a list of sequences (lists or arrays; their items may be arrays).
        maxlen: the length (default: the longest sequence).
        dtype: the result dtype.
        padding: ``'pre'`` or ``'post'``: where to pad.
        truncating: ``'pre'`` or ``'post'``: which end to cut from longer sequences.
        value: the padding value.

    Returns:
        An array ``(len(sequences), maxlen, *item_shape)``.
    """
    for arg, v in (("padding", padding), ("truncating", truncating)):
        if v not in ("pre", "post"):
            raise ValueError(f'{arg} type "{v}" not understood')
    seqs = [np.asarray(s) for s in sequences]
    lengths = [len(s) for s in seqs]
    n = max(lengths, default=0) if maxlen is None else int(maxlen)
    item = next((s.shape[1:] for s in seqs if len(s)), ())
    is_text = np.issubdtype(np.dtype(dtype), np.str_) or np.dtype(dtype) == object
    if isinstance(value, str) and not is_text:
        raise ValueError(f"`dtype` {dtype} is not compatible with `value`'s type: "
                         f"{type(value)}\nYou should set `dtype=object` for variable length "
                         "strings.")
    out = np.full((len(seqs), n) + tuple(item), value, dtype=dtype)
    for i, s in enumerate(seqs):
        if not len(s) or n == 0:
            continue
        s = s[-n:] if truncating == "pre" else s[:n]
        if s.shape[1:] != tuple(item):
            raise ValueError(f"Shape of sample {s.shape[1:]} of sequence at position {i} is "
                             f"different from expected shape {tuple(item)}")
        if padding == "post":
            out[i, :len(s)] = s
        else:
            out[i, -len(s):] = s
    return out


def normalize(x, axis: int = -1, order: int = 2) -> Any:
    """Scales ``x`` to unit ``order``-norm along ``axis`` (NumPy arrays in, out; tensors too).

    Args:
        x: an array or tensor.
        axis: the axis.
        order: the norm order (2: Euclidean).

    Returns:
        The normalized values.
    """
    if isinstance(x, np.ndarray):
        norm = np.atleast_1d(np.linalg.norm(x, order, axis))
        norm[norm == 0] = 1
        return x / np.expand_dims(norm, axis)
    if order != 2:
        raise NotImplementedError("normalize: tensors support order=2 only")
    return nn_ops.l2_normalize(x, axis=axis)


def register_keras_serializable(package: str = "Custom", name: str | None = None) -> Callable:
    """A class decorator that makes a custom layer/model/loss loadable by name.

    Args:
        package: the package prefix of the registered name.
        name: the name (default: the class or function name).

    Returns:
        The decorator (it returns the object unchanged).
    """
    def decorator(obj):
        key = name or obj.__name__
        full = f"{package}>{key}"
        if full in _registry.REGISTERED and _registry.REGISTERED[full] is not obj:
            raise ValueError(f"{full} has already been registered to "
                             f"{_registry.REGISTERED[full]}")
        if hasattr(obj, "get_config") is False and isinstance(obj, type):
            raise ValueError("Cannot register a class that does not have a get_config() "
                             "method.")
        _registry.register_object(full, obj)
        _registry.register_object(key, obj)
        obj._tw_registered_name = full
        return obj
    return decorator


def get_custom_objects() -> dict:
    """The global registry of custom objects (``register_keras_serializable`` adds to it;
    entries added here are found when loading too).

    Returns:
        The (mutable) dict.
    """
    return _registry.REGISTERED


def get_registered_name(obj) -> str:
    """The name ``obj`` was registered under (``'package>name'``), else its own name.

    Args:
        obj: a class or function.

    Returns:
        The name.
    """
    return getattr(obj, "_tw_registered_name", None) or obj.__name__


def get_registered_object(name: str, custom_objects: dict | None = None,
                          module_objects: dict | None = None) -> Any:
    """The object registered (or given) under ``name``, or None.

    Args:
        name: the registered name.
        custom_objects: a dict to look in first.
        module_objects: a dict to look in last.

    Returns:
        The object or None.
    """
    for table in (custom_objects, _registry.REGISTERED, module_objects):
        if table and name in table:
            return table[name]
    return None


custom_object_scope = _saving.custom_object_scope
CustomObjectScope = _saving.custom_object_scope


def pack_x_y_sample_weight(x, y=None, sample_weight=None) -> Any:
    """Packs the parts of a batch as Keras does: ``x``, ``(x, y)`` or ``(x, y, w)``.

    Args:
        x: the inputs.
        y: the targets.
        sample_weight: the weights.

    Returns:
        ``(x,)`` (a 1-tuple when x alone is a tuple/list), ``(x, y)`` or ``(x, y, w)``.
    """
    if y is None:
        return (x,) if isinstance(x, (tuple, list)) else x
    return (x, y) if sample_weight is None else (x, y, sample_weight)


def timeseries_dataset_from_array(data, targets, sequence_length: int, sequence_stride: int = 1,
                                  sampling_rate: int = 1, batch_size: int | None = 128,
                                  shuffle: bool = False, seed: int | None = None,
                                  start_index: int | None = None,
                                  end_index: int | None = None) -> Any:
    """A ``tw.data.Dataset`` of sliding windows over ``data`` (and the target at each
    window's start).

    Args:
        data: an array ``(time, ...)``.
        targets: an array aligned with ``data`` (``targets[i]`` for the window starting at
            ``i``), or None.
        sequence_length: the window length.
        sequence_stride: the step between window starts.
        sampling_rate: the step between samples inside a window.
        batch_size: windows per batch (None: unbatched).
        shuffle: shuffle the windows.
        seed: the shuffle seed.
        start_index: the first usable index of ``data``.
        end_index: one past the last usable index.

    Returns:
        The dataset.
    """
    for arg, v in (("sequence_length", sequence_length), ("sequence_stride", sequence_stride),
                   ("sampling_rate", sampling_rate)):
        if not isinstance(v, (int, np.integer)) or v <= 0:
            raise ValueError(f"`{arg}` must be a positive integer. Received: {arg}={v}")
    if batch_size is not None and (not isinstance(batch_size, (int, np.integer)) or
                                   batch_size <= 0):
        raise ValueError(f"`batch_size` must be a positive integer or None. Received: "
                         f"batch_size={batch_size}")
    data = np.asarray(data)
    start = 0 if start_index is None else int(start_index)
    end = len(data) if end_index is None else int(end_index)
    if not 0 <= start < end <= len(data):
        raise ValueError(f"start_index/end_index {start}/{end} are out of range for data of "
                         f"length {len(data)}")
    count = end - start - (sequence_length - 1) * sampling_rate
    if targets is not None:
        targets = np.asarray(targets)
        count = min(count, len(targets))
    starts = np.arange(0, max(count, 0), sequence_stride) + start
    if shuffle:
        np.random.default_rng(seed).shuffle(starts)
    idx = starts[:, None] + np.arange(sequence_length) * sampling_rate
    windows = data[idx] if len(starts) else np.zeros((0, sequence_length) + data.shape[1:],
                                                     data.dtype)
    if windows.dtype == np.float64:
        windows = windows.astype(np.float32)
    ds = Dataset.from_tensor_slices(windows if targets is None else (windows, targets[starts]))
    return ds if batch_size is None else ds.batch(int(batch_size))


def standardize_dtype(dtype) -> str:
    """A dtype (name, NumPy dtype, twinflow DType, Python type) as Keras' dtype name.

    Args:
        dtype: the dtype; None gives ``floatx()``.

    Returns:
        The name (``'float32'``...).
    """
    if dtype is None:
        return "float32"
    if hasattr(dtype, "dtype") and not isinstance(dtype, type):
        dtype = dtype.dtype
    return _dtypes.as_dtype(np.dtype(dtype) if isinstance(dtype, np.dtype) else dtype).name


# The rest of ``keras.utils``, one module per area.
from ..file_utils import get_file  # noqa: E402,F401
from ..py_dataset import PyDataset, Sequence  # noqa: E402,F401
from . import bounding_boxes, legacy  # noqa: E402,F401
from .config import Config  # noqa: E402,F401
from .dataset_utils import (  # noqa: E402,F401
    audio_dataset_from_directory,
    image_dataset_from_directory,
    split_dataset,
    text_dataset_from_directory,
)
from .feature_space import FeatureSpace  # noqa: E402,F401
from .image_utils import (  # noqa: E402,F401
    array_to_img,
    img_to_array,
    load_img,
    save_img,
    smart_resize,
)
from .model_utils import get_source_inputs  # noqa: E402,F401
from .model_visualization import model_to_dot, plot_model  # noqa: E402,F401
