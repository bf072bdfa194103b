"""``keras.utils``' data set builders: ``image_dataset_from_directory``,
``text_dataset_from_directory``, ``audio_dataset_from_directory`` (files indexed, shuffled
and split as Keras 3 does, then read by a ``tw.data`` pipeline) and ``split_dataset``."""
from __future__ import annotations

import io
import os
import wave
from typing import Any

import numpy as np

from ...data import Dataset
from ...eager.func_graph import TensorSpec
from ...io import image as _io_image
from ...io.codecs import read_file
from ...ops import array_ops, math_ops, string_ops
from ...ops.array.create import one_hot
from ...ops.image.resize import resize as _resize
from ...ops.script_ops import numpy_function
from ..settings import image_data_format

IMAGE_FORMATS = (".bmp", ".gif", ".jpeg", ".jpg", ".png")


def _files_of(directory: str, follow_links: bool, formats: tuple) -> list:
    out = []
    for root, _, files in sorted(os.walk(directory, followlinks=follow_links),
                                 key=lambda t: t[0]):
        out += [os.path.join(root, f) for f in sorted(files) if f.lower().endswith(formats)]
    return out


def index_directory(directory: str, labels, formats: tuple, class_names=None,
                    shuffle: bool = True, seed=None, follow_links: bool = False,
                    verbose: bool = True) -> tuple:
    """The files of ``directory`` with their labels, as Keras indexes them.

    Args:
        directory: the folder (with one sub-folder per class when ``labels="inferred"``).
        labels: "inferred", None or a list of labels (one per file, in sorted path order).
        formats: the accepted file name endings.
        class_names: an explicit subset and order of class folders.
        shuffle: shuffle the files (NumPy ``RandomState(seed)``, as Keras).
        seed: the shuffle seed (default: a random one).
        follow_links: follow symbolic links.
        verbose: print how many files were found.

    Returns:
        ``(file_paths, labels or None, class_names or None)``.
    """
    if not os.path.isdir(directory):
        raise ValueError(f"Could not find directory {directory}")
    if labels == "inferred":
        subdirs = [d for d in sorted(os.listdir(directory))
                   if os.path.isdir(os.path.join(directory, d)) and not d.startswith(".")]
        if class_names is not None:
            if not set(class_names).issubset(subdirs):
                raise ValueError(f"The `class_names` passed did not match the names of the "
                                 f"subdirectories of the target directory. Expected: "
                                 f"{subdirs} (or a subset of it), but received: "
                                 f"class_names={class_names}")
            subdirs = list(class_names)
    else:
        if class_names is not None:
            raise ValueError("When `labels` is not 'inferred', `class_names` cannot be "
                             "specified.")
        subdirs = [""]
    paths, found = [], []
    for k, sub in enumerate(subdirs):
        files = _files_of(os.path.join(directory, sub), follow_links, formats)
        paths += files
        found += [k] * len(files)
    if labels == "inferred":
        label_arr = np.asarray(found, dtype="int32")
        class_names = subdirs
    elif labels is None:
        label_arr, class_names = None, None
    else:
        if len(labels) != len(paths):
            raise ValueError(f"Expected the lengths of `labels` to match the number of files "
                             f"in the target directory. len(labels) is {len(labels)} while "
                             f"we found {len(paths)} files in directory {directory}.")
        label_arr = np.asarray(labels)
        class_names = [str(v) for v in sorted(set(np.asarray(labels).tolist()))]
    if verbose:
        print(f"Found {len(paths)} files." if label_arr is None else
              f"Found {len(paths)} files belonging to {len(class_names)} classes.")
    if shuffle:
        seed = np.random.randint(1e6) if seed is None else seed
        np.random.RandomState(seed).shuffle(paths)
        if label_arr is not None:
            np.random.RandomState(seed).shuffle(label_arr)
    return paths, label_arr, class_names


def _split(paths: list, labels, validation_split, subset) -> tuple:
    if not validation_split:
        return paths, labels
    n_val = int(validation_split * len(paths))
    if subset == "training":
        print(f"Using {len(paths) - n_val} files for training.")
        part = slice(None, len(paths) - n_val)
    elif subset == "validation":
        print(f"Using {n_val} files for validation.")
        part = slice(len(paths) - n_val, None)
    else:
        raise ValueError(f'`subset` must be either "training" or "validation", received: '
                         f"{subset}")
    return paths[part], None if labels is None else labels[part]


def _check_split(validation_split, subset, shuffle: bool, seed) -> None:
    if validation_split is not None and not 0 < validation_split < 1:
        raise ValueError(f"`validation_split` must be between 0 and 1, received: "
                         f"{validation_split}")
    if (validation_split or subset) and not (validation_split and subset):
        raise ValueError("If `subset` is set, `validation_split` must be set, and inversely.")
    if subset not in (None, "training", "validation", "both"):
        raise ValueError(f'`subset` must be either "training", "validation" or "both", '
                         f"received: {subset}")
    if validation_split and shuffle and seed is None:
        raise ValueError("If using `validation_split` and shuffling the data, you must "
                         "provide a `seed` argument, to make sure that there is no overlap "
                         "between the training and validation subset.")


def _label_ds(labels, label_mode: str, num_classes: int) -> Dataset:
    ds = Dataset.from_tensor_slices(np.asarray(labels, dtype="int32"))
    if label_mode == "binary":
        return ds.map(lambda v: array_ops.expand_dims(math_ops.cast(v, "float32"), -1))
    if label_mode == "categorical":
        return ds.map(lambda v: one_hot(v, num_classes))
    return ds


def _finish(ds: Dataset, paths: list, labels, label_mode, class_names, batch_size, shuffle,
            seed, pad_batch=None) -> Dataset:
    if label_mode is not None and labels is not None:
        ds = Dataset.zip((ds, _label_ds(labels, label_mode, len(class_names))))
    if batch_size is not None:
        if shuffle:
            ds = ds.shuffle(buffer_size=batch_size * 8, seed=seed)
        ds = pad_batch(ds, batch_size) if pad_batch else ds.batch(batch_size)
    elif shuffle:
        ds = ds.shuffle(buffer_size=1024, seed=seed)
    ds.class_names = class_names
    ds.file_paths = paths
    return ds


def _build(directory, labels, label_mode, class_names, formats, batch_size, shuffle, seed,
           validation_split, subset, follow_links, verbose, make, pad_batch=None) -> Any:
    if labels not in ("inferred", None) and not isinstance(labels, (list, tuple, np.ndarray)):
        raise ValueError(f"`labels` argument should be a list/tuple of integer labels, of "
                         f"the same size as the number of files in the target directory. If "
                         f"you wish to infer the labels from the subdirectory names in the "
                         f"target directory, pass `labels=\"inferred\"`. If you wish to get "
                         f"a dataset that only contains files (no labels), pass "
                         f"`labels=None`. Received: labels={labels}")
    if label_mode not in ("int", "categorical", "binary", None):
        raise ValueError(f'`label_mode` argument must be one of "int", "categorical", '
                         f'"binary", or None. Received: label_mode={label_mode}')
    if labels is None or label_mode is None:
        labels, label_mode = None, None
    _check_split(validation_split, subset, shuffle, seed)
    paths, label_arr, class_names = index_directory(
        directory, labels, formats, class_names=class_names, shuffle=shuffle, seed=seed,
        follow_links=follow_links, verbose=verbose)
    if label_mode == "binary" and len(class_names) != 2:
        raise ValueError(f'When passing `label_mode="binary"`, there must be exactly 2 '
                         f"class_names. Received: class_names={class_names}")

    def one(part):
        p, lab = _split(paths, label_arr, validation_split, part)
        if not p:
            raise ValueError(f"No files found in directory {directory}. Allowed file "
                             f"formats: {formats}")
        return _finish(make(p), p, lab, label_mode, class_names, batch_size,
                       shuffle and part != "validation" if subset == "both" else shuffle,
                       seed, pad_batch)

    if subset == "both":
        return one("training"), one("validation")
    return one(subset)


def image_dataset_from_directory(directory, labels="inferred", label_mode="int",
                                 class_names=None, color_mode: str = "rgb",
                                 batch_size: int | None = 32, image_size=(256, 256),
                                 shuffle: bool = True, seed=None, validation_split=None,
                                 subset=None, interpolation: str = "bilinear",
                                 follow_links: bool = False,
                                 crop_to_aspect_ratio: bool = False,
                                 pad_to_aspect_ratio: bool = False, data_format=None,
                                 format: str = "tf", verbose: bool = True) -> Any:  # noqa: A002
    """A ``tw.data.Dataset`` of images read from ``directory/<class>/*.png|jpg|...``.

    Args:
        directory: the folder.
        labels: "inferred" (from sub-folder names), None, or a list of labels.
        label_mode: "int", "categorical", "binary" or None.
        class_names: the class folders to use, in label order.
        color_mode: "grayscale", "rgb" or "rgba".
        batch_size: images per batch (None: unbatched).
        image_size: ``(height, width)`` after resizing.
        shuffle: shuffle the files (and each epoch's order).
        seed: the shuffle / split seed.
        validation_split: the fraction for validation.
        subset: "training", "validation" or "both" (a pair of datasets).
        interpolation: the ``tw.image.resize`` method.
        follow_links: follow symbolic links.
        crop_to_aspect_ratio: crop the centre to the target aspect ratio first.
        pad_to_aspect_ratio: pad (with zeros) to the target aspect ratio first.
        data_format: "channels_last" or "channels_first".
        format: "tf" (a ``tw.data.Dataset``); Keras' "grain" is not supported.
        verbose: print what was found.

    Returns:
        The dataset (with ``class_names`` and ``file_paths`` attributes), or a pair.
    """
    if format != "tf":
        raise ValueError(f"image_dataset_from_directory: format={format!r} is not supported "
                         "by twinflow (only 'tf')")
    channels = {"rgb": 3, "rgba": 4, "grayscale": 1}.get(color_mode)
    if channels is None:
        raise ValueError(f'`color_mode` must be one of {{"rgb", "rgba", "grayscale"}}. '
                         f"Received: color_mode={color_mode}")
    if crop_to_aspect_ratio and pad_to_aspect_ratio:
        raise ValueError("Only one of `crop_to_aspect_ratio` and `pad_to_aspect_ratio` can "
                         "be set to `True`.")
    th, tw_ = (int(v) for v in image_size)
    first = (data_format or image_data_format()) == "channels_first"

    def read(path) -> np.ndarray:
        # Eager twinflow ops on one file (image sizes differ, so this runs per element).
        with open(path.decode() if isinstance(path, bytes) else str(path), "rb") as f:
            img = _io_image.decode_image(f.read(), channels=channels,
                                         expand_animations=False)
        if crop_to_aspect_ratio or pad_to_aspect_ratio:
            img = _aspect(img, th, tw_, crop_to_aspect_ratio)
        img = _resize(math_ops.cast(img, "float32")[None], (th, tw_), method=interpolation)[0]
        return np.asarray(img.numpy(), np.float32)

    def load(path):
        img = array_ops.reshape(numpy_function(read, [path], "float32"), [th, tw_, channels])
        return array_ops.transpose(img, [2, 0, 1]) if first else img

    return _build(directory, labels, label_mode, class_names, IMAGE_FORMATS, batch_size,
                  shuffle, seed, validation_split, subset, follow_links, verbose,
                  lambda p: Dataset.from_tensor_slices(p).map(load))


def _aspect(img, th: int, tw_: int, crop: bool):
    """The centred window (crop) or zero-padded frame (pad) with the aspect ratio th:tw_."""
    shape = array_ops.shape(img)
    h, w = math_ops.cast(shape[0], "float32"), math_ops.cast(shape[1], "float32")
    ratio = th / tw_
    if crop:
        ch = math_ops.cast(math_ops.minimum(h, w * ratio), "int32")
        cw = math_ops.cast(math_ops.minimum(w, h / ratio), "int32")
        top = (shape[0] - ch) // 2
        left = (shape[1] - cw) // 2
        return img[top:top + ch, left:left + cw, :]
    ph = math_ops.cast(math_ops.maximum(h, w * ratio), "int32")
    pw = math_ops.cast(math_ops.maximum(w, h / ratio), "int32")
    top = (ph - shape[0]) // 2
    left = (pw - shape[1]) // 2
    return array_ops.pad(img, array_ops.stack([array_ops.stack([top, ph - shape[0] - top]),
                                               array_ops.stack([left, pw - shape[1] - left]),
                                               [0, 0]]))


def text_dataset_from_directory(directory, labels="inferred", label_mode="int",
                                class_names=None, batch_size: int | None = 32,
                                max_length: int | None = None, shuffle: bool = True,
                                seed=None, validation_split=None, subset=None,
                                follow_links: bool = False, format: str = "tf",  # noqa: A002
                                verbose: bool = True) -> Any:
    """A ``tw.data.Dataset`` of the texts in ``directory/<class>/*.txt``.

    Args:
        batch_size: texts per batch (None: unbatched).
        max_length: keep at most this many bytes of each text.
        directory, labels, label_mode, class_names, shuffle, seed, validation_split, subset,
            follow_links, format, verbose: as in ``image_dataset_from_directory``.

    Returns:
        The dataset (with ``class_names`` and ``file_paths``), or a pair.
    """
    if format != "tf":
        raise ValueError(f"text_dataset_from_directory: format={format!r} is not supported "
                         "by twinflow (only 'tf')")

    def load(path):
        text = read_file(path)
        return text if max_length is None else string_ops.substr(text, 0, max_length)

    return _build(directory, labels, label_mode, class_names, (".txt",), batch_size, shuffle,
                  seed, validation_split, subset, follow_links, verbose,
                  lambda p: Dataset.from_tensor_slices(p).map(load))


def read_wav(data: bytes) -> tuple:
    """A PCM WAV file's samples as float32 in [-1, 1], shape (samples, channels).

    Args:
        data: the file's bytes.

    Returns:
        ``(samples, sample_rate)``.
    """
    with wave.open(io.BytesIO(data)) as w:
        width, ch, rate = w.getsampwidth(), w.getnchannels(), w.getframerate()
        raw = w.readframes(w.getnframes())
    if width == 1:
        a = (np.frombuffer(raw, np.uint8).astype(np.float32) - 128.0) / 128.0
    elif width in (2, 4):
        a = np.frombuffer(raw, f"<i{width}").astype(np.float32) / float(2 ** (8 * width - 1))
    elif width == 3:
        b = np.frombuffer(raw, np.uint8).reshape(-1, 3).astype(np.int32)
        v = b[:, 0] | (b[:, 1] << 8) | (b[:, 2] << 16)
        a = (np.where(v >= 2 ** 23, v - 2 ** 24, v) / float(2 ** 23)).astype(np.float32)
    else:
        raise ValueError(f"Unsupported WAV sample width: {width} bytes")
    return a.reshape(-1, ch), rate


def audio_dataset_from_directory(directory, labels="inferred", label_mode="int",
                                 class_names=None, batch_size: int | None = 32,
                                 sampling_rate=None, output_sequence_length=None,
                                 ragged: bool = False, shuffle: bool = True, seed=None,
                                 validation_split=None, subset=None,
                                 follow_links: bool = False, verbose: bool = True) -> Any:
    """A ``tw.data.Dataset`` of the WAV files in ``directory/<class>/*.wav``: float32
    ``(samples, channels)`` in [-1, 1]; a batch is zero-padded to its longest clip.

    Args:
        batch_size: clips per batch (None: unbatched).
        sampling_rate: resampling is not supported (Keras needs tensorflow-io): must be None.
        output_sequence_length: pad or cut every clip to this many samples.
        ragged: batches as RaggedTensors instead of padded.
        directory, labels, label_mode, class_names, shuffle, seed, validation_split, subset,
            follow_links, verbose: as in ``image_dataset_from_directory``.

    Returns:
        The dataset (with ``class_names`` and ``file_paths``), or a pair.
    """
    if sampling_rate is not None:
        raise ValueError("audio_dataset_from_directory: resampling (`sampling_rate`) is not "
                         "supported; pass sampling_rate=None")
    if ragged and output_sequence_length is not None:
        raise ValueError("Cannot set both `ragged` and `output_sequence_length`")
    n_out = output_sequence_length

    def clip(path: str) -> np.ndarray:
        with open(path, "rb") as f:
            a, _ = read_wav(f.read())
        if n_out is not None:
            a = a[:n_out] if len(a) >= n_out else np.pad(a, ((0, n_out - len(a)), (0, 0)))
        return a

    def make(paths):
        clips = [clip(p) for p in paths]
        ch = {c.shape[1] for c in clips}
        if len(ch) != 1:
            raise ValueError(f"audio_dataset_from_directory: the clips have different "
                             f"channel counts {sorted(ch)}")

        def gen():
            yield from clips
        return Dataset.from_generator(gen, output_signature=TensorSpec(
            [n_out, ch.pop()], "float32"))

    def pad_batch(ds, n):
        if ragged:
            return ds.ragged_batch(n)
        return ds.padded_batch(n) if n_out is None else ds.batch(n)

    return _build(directory, labels, label_mode, class_names, (".wav",), batch_size, shuffle,
                  seed, validation_split, subset, follow_links, verbose, make, pad_batch)


def split_dataset(dataset, left_size=None, right_size=None, shuffle: bool = False,
                  seed=None) -> tuple:
    """Splits a data set (arrays, a tuple/dict of arrays, a list or a ``tw.data.Dataset``)
    into two ``tw.data.Dataset``s.

    Args:
        dataset: the data (rows along the first axis).
        left_size: a fraction in (0, 1) or a count for the left part (default: the rest).
        right_size: the same for the right part.
        shuffle: shuffle the rows first.
        seed: the shuffle seed.

    Returns:
        ``(left, right)`` datasets.
    """
    if isinstance(dataset, Dataset):
        rows = list(dataset.as_numpy_iterator())
        if rows and isinstance(rows[0], tuple):
            data = tuple(np.stack([r[k] for r in rows]) for k in range(len(rows[0])))
        elif rows and isinstance(rows[0], dict):
            data = {k: np.stack([r[k] for r in rows]) for k in rows[0]}
        else:
            data = np.stack(rows) if rows else np.zeros((0,))
    elif isinstance(dataset, list):
        data = np.asarray(dataset)
    else:
        data = dataset
    flat = list(data.values()) if isinstance(data, dict) else \
        list(data) if isinstance(data, tuple) else [data]
    n = len(flat[0])
    if any(len(a) != n for a in flat):
        raise ValueError("split_dataset: all arrays must have the same number of rows")
    if n == 0:
        raise ValueError("split_dataset: the dataset is empty")
    size = lambda v: None if v is None else (round(v * n) if isinstance(v, float) else int(v))  # noqa: E731,E501
    for name, v in (("left_size", left_size), ("right_size", right_size)):
        if v is not None and (v <= 0 or (isinstance(v, float) and v >= 1) or
                              (not isinstance(v, float) and v > n)):
            raise ValueError(f"split_dataset: invalid {name}={v} for {n} rows")
    left, right = size(left_size), size(right_size)
    if left is None and right is None:
        raise TypeError("split_dataset: give `left_size` or `right_size`")
    left = n - right if left is None else left
    right = n - left if right is None else right
    if left + right > n:
        raise ValueError(f"split_dataset: left_size + right_size = {left + right} is more "
                         f"than the {n} rows")
    order = np.arange(n)
    if shuffle:
        np.random.default_rng(seed).shuffle(order)

    def take(idx):
        pick = lambda a: np.asarray(a)[idx]  # noqa: E731
        part = {k: pick(v) for k, v in data.items()} if isinstance(data, dict) else \
            tuple(pick(a) for a in data) if isinstance(data, tuple) else pick(data)
        return Dataset.from_tensor_slices(part)

    return take(order[:left]), take(order[left:left + right])
