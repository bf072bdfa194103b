"""The iterators of Keras' legacy ``ImageDataGenerator``: ``Iterator`` (a ``PyDataset``, so
``fit`` takes one), ``NumpyArrayIterator`` (``flow``), ``DirectoryIterator``
(``flow_from_directory``) and ``DataFrameIterator`` (``flow_from_dataframe``: a pandas
DataFrame, or any mapping of column name to values). Shuffling and seeding use NumPy's global
generator, as Keras does."""
from __future__ import annotations

import os
import threading
import warnings

import numpy as np

from ...core.props import readonly
from ..py_dataset import PyDataset
from ..settings import image_data_format
from ..utils.image_utils import array_to_img, img_to_array, load_img

__all__ = ["DataFrameIterator", "DirectoryIterator", "Iterator", "NumpyArrayIterator"]

WHITE_LIST_FORMATS = ("png", "jpg", "jpeg", "bmp", "ppm", "tif", "tiff")


class Iterator(PyDataset):
    """Batches of ``n`` samples in (optionally shuffled) order; subclasses build a batch
    from its sample indices in ``_get_batches_of_transformed_samples``.

    Args:
        n: the number of samples.
        batch_size: samples per batch.
        shuffle: reshuffle at every epoch.
        seed: reseeds NumPy's generator with ``seed + batches seen`` before each batch.
        **kwargs: ``PyDataset`` arguments.
    """

    white_list_formats = WHITE_LIST_FORMATS

    def __init__(self, n: int, batch_size: int, shuffle: bool, seed, **kwargs) -> None:
        super().__init__(**kwargs)
        self.n, self.batch_size, self.seed, self.shuffle = n, batch_size, seed, shuffle
        self.batch_index = 0
        self.total_batches_seen = 0
        self.lock = threading.Lock()
        self.index_array = None

    def _set_index_array(self) -> None:
        self.index_array = np.random.permutation(self.n) if self.shuffle else \
            np.arange(self.n)

    def __getitem__(self, idx: int):
        if idx >= len(self):
            raise ValueError(f"Asked to retrieve element {idx}, but the Sequence has length "
                             f"{len(self)}")
        with self.lock:
            if self.seed is not None:
                np.random.seed(self.seed + self.total_batches_seen)
            self.total_batches_seen += 1
            if self.index_array is None:
                self._set_index_array()
            index_array = self.index_array[self.batch_size * idx:self.batch_size * (idx + 1)]
        return self._get_batches_of_transformed_samples(index_array)

    def __len__(self) -> int:
        return (self.n + self.batch_size - 1) // self.batch_size

    def on_epoch_end(self) -> None:
        """Reshuffles the sample order.

        Returns:
            None.
        """
        self._set_index_array()

    def reset(self) -> None:
        """Restarts the endless iteration (``next``) at the first batch.

        Returns:
            None.
        """
        self.batch_index = 0

    def __iter__(self):
        return self

    def __next__(self):
        with self.lock:
            if self.seed is not None:
                np.random.seed(self.seed + self.total_batches_seen)
            if self.batch_index == 0:
                self._set_index_array()
            current = (self.batch_index * self.batch_size) % self.n if self.n else 0
            self.batch_index = self.batch_index + 1 if self.n > current + self.batch_size \
                else 0
            self.total_batches_seen += 1
            index_array = self.index_array[current:current + self.batch_size]
        return self._get_batches_of_transformed_samples(index_array)

    def _get_batches_of_transformed_samples(self, index_array):
        raise NotImplementedError


def _save_batch(it, batch_x: np.ndarray, index_array, bound: int) -> None:
    for i, j in enumerate(index_array):
        img = array_to_img(batch_x[i], it.data_format, scale=True)
        fname = f"{it.save_prefix}_{j}_{np.random.randint(bound)}.{it.save_format}"
        img.save(os.path.join(it.save_to_dir, fname))


class NumpyArrayIterator(Iterator):
    """Batches of (augmented) images from arrays: ``ImageDataGenerator.flow``.

    Args:
        x: a rank-4 image array, or ``(images, other_arrays)`` whose other arrays are passed
            through.
        y: labels or None.
        image_data_generator: the ``ImageDataGenerator``.
        batch_size: samples per batch.
        shuffle: reshuffle every epoch.
        sample_weight: per-sample weights.
        seed: the seed.
        data_format: "channels_last" or "channels_first".
        save_to_dir: a folder to save the augmented images to (for inspection).
        save_prefix: their file name prefix.
        save_format: their format.
        subset: "training" or "validation" (with the generator's ``validation_split``).
        ignore_class_split: allow a split whose parts have different classes.
        dtype: the image dtype.
    """

    def __init__(self, x, y, image_data_generator, batch_size: int = 32,
                 shuffle: bool = False, sample_weight=None, seed=None, data_format=None,
                 save_to_dir=None, save_prefix: str = "", save_format: str = "png",
                 subset=None, ignore_class_split: bool = False, dtype=None) -> None:
        self.dtype = dtype or "float32"
        x_misc = []
        if isinstance(x, (tuple, list)):
            x_misc = [np.asarray(v) for v in (x[1] if isinstance(x[1], list) else [x[1]])]
            x = x[0]
            for v in x_misc:
                if len(v) != len(x):
                    raise ValueError(f"All of the arrays in `x` should have the same length. "
                                     f"Found a pair with: len(x[0]) = {len(x)}, len(x[?]) = "
                                     f"{len(v)}")
        if y is not None and len(x) != len(y):
            raise ValueError(f"`x` (images tensor) and `y` (labels) should have the same "
                             f"length. Found: x.shape = {np.asarray(x).shape}, y.shape = "
                             f"{np.asarray(y).shape}")
        if sample_weight is not None and len(x) != len(sample_weight):
            raise ValueError(f"`x` (images tensor) and `sample_weight` should have the same "
                             f"length. Found: x.shape = {np.asarray(x).shape}, "
                             f"sample_weight.shape = {np.asarray(sample_weight).shape}")
        if subset is not None:
            if subset not in ("training", "validation"):
                raise ValueError(f"Invalid subset name: {subset}; expected \"training\" or "
                                 "\"validation\".")
            cut = int(len(x) * image_data_generator._validation_split)
            if y is not None and not ignore_class_split and \
                    not np.array_equal(np.unique(y[:cut]), np.unique(y[cut:])):
                raise ValueError("Training and validation subsets have different number of "
                                 "classes after the split. If your numpy arrays are sorted "
                                 "by the label, you might want to shuffle them.")
            part = slice(None, cut) if subset == "validation" else slice(cut, None)
            x, x_misc = x[part], [v[part] for v in x_misc]
            y = None if y is None else y[part]
            sample_weight = None if sample_weight is None else sample_weight[part]
        self.x = np.asarray(x, dtype=self.dtype)
        self.x_misc = x_misc
        if self.x.ndim != 4:
            raise ValueError(f"Input data in `NumpyArrayIterator` should have rank 4. You "
                             f"passed an array with shape {self.x.shape}")
        self.data_format = data_format or image_data_format()
        ch_axis = 3 if self.data_format == "channels_last" else 1
        if self.x.shape[ch_axis] not in (1, 3, 4):
            warnings.warn(f"NumpyArrayIterator is set to use the data format convention "
                          f"\"{self.data_format}\" (channels on axis {ch_axis}), i.e. "
                          f"expected either 1, 3, or 4 channels on axis {ch_axis}. However, "
                          f"it was passed an array with shape {self.x.shape} "
                          f"({self.x.shape[ch_axis]} channels).", stacklevel=2)
        self.y = None if y is None else np.asarray(y)
        self.sample_weight = None if sample_weight is None else np.asarray(sample_weight)
        self.image_data_generator = image_data_generator
        self.save_to_dir, self.save_prefix = save_to_dir, save_prefix
        self.save_format = save_format
        super().__init__(self.x.shape[0], batch_size, shuffle, seed)

    def _get_batches_of_transformed_samples(self, index_array):
        gen = self.image_data_generator
        batch_x = np.zeros((len(index_array),) + self.x.shape[1:], dtype=self.dtype)
        for i, j in enumerate(index_array):
            x = self.x[j]
            params = gen.get_random_transform(x.shape)
            batch_x[i] = gen.standardize(gen.apply_transform(x.astype(self.dtype), params))
        if self.save_to_dir:
            _save_batch(self, batch_x, index_array, 10**4)
        misc = [v[index_array] for v in self.x_misc]
        first = batch_x if not misc else [batch_x] + misc
        if self.y is None:
            return first
        out = (first, self.y[index_array])
        return out if self.sample_weight is None else out + (self.sample_weight[index_array],)


class _FromFiles(Iterator):
    """What the directory and data-frame iterators share: loading, augmenting and labelling
    the images of a batch of file paths."""

    def _set_processing_attrs(self, image_data_generator, target_size, color_mode,
                              data_format, save_to_dir, save_prefix, save_format, subset,
                              interpolation, keep_aspect_ratio, class_mode) -> None:
        self.image_data_generator = image_data_generator
        self.target_size = tuple(target_size)
        self.keep_aspect_ratio = keep_aspect_ratio
        channels = {"rgba": 4, "rgb": 3, "grayscale": 1}
        if color_mode not in channels:
            raise ValueError(f"Invalid color mode: {color_mode}; expected \"rgb\", \"rgba\", "
                             "or \"grayscale\".")
        self.color_mode = color_mode
        self.data_format = data_format or image_data_format()
        c = channels[color_mode]
        self.image_shape = self.target_size + (c,) if self.data_format == "channels_last" \
            else (c,) + self.target_size
        self.save_to_dir, self.save_prefix = save_to_dir, save_prefix
        self.save_format, self.interpolation = save_format, interpolation
        split = None
        if subset is not None:
            v = image_data_generator._validation_split
            if subset not in ("training", "validation"):
                raise ValueError(f"Invalid subset name: {subset};expected \"training\" or "
                                 "\"validation\"")
            split = (0, v) if subset == "validation" else (v, 1)
        self.split, self.subset = split, subset
        if class_mode not in self.allowed_class_modes:
            raise ValueError(f"Invalid class_mode: {class_mode}; expected one of: "
                             f"{self.allowed_class_modes}")

    def _get_batches_of_transformed_samples(self, index_array):
        gen = self.image_data_generator
        batch_x = np.zeros((len(index_array),) + self.image_shape, dtype=self.dtype)
        for i, j in enumerate(index_array):
            img = load_img(self.filepaths[j], color_mode=self.color_mode,
                           target_size=self.target_size, interpolation=self.interpolation,
                           keep_aspect_ratio=self.keep_aspect_ratio)
            x = img_to_array(img, data_format=self.data_format)
            img.close()
            if gen:
                x = gen.standardize(gen.apply_transform(x, gen.get_random_transform(x.shape)))
            batch_x[i] = x
        if self.save_to_dir:
            _save_batch(self, batch_x, index_array, 10**7)
        mode = self.class_mode
        if mode == "input":
            batch_y = batch_x.copy()
        elif mode in ("binary", "sparse"):
            batch_y = np.asarray([self.classes[k] for k in index_array], dtype=self.dtype)
        elif mode == "categorical":
            batch_y = np.zeros((len(batch_x), len(self.class_indices)), dtype=self.dtype)
            for i, k in enumerate(index_array):
                batch_y[i, self.classes[k]] = 1.0
        elif mode == "multi_output":
            batch_y = [out[index_array] for out in self.labels]
        elif mode == "raw":
            batch_y = self.labels[index_array]
        else:
            return batch_x
        w = self.sample_weight
        return (batch_x, batch_y) if w is None else (batch_x, batch_y, w[index_array])

    filepaths = readonly("_filepaths", "The full path of every sample.")


def _valid_files(directory: str, follow_links: bool):
    for root, _, files in sorted(os.walk(directory, followlinks=follow_links),
                                 key=lambda t: t[0]):
        for fname in sorted(files):
            if fname.lower().endswith(WHITE_LIST_FORMATS):
                yield root, fname


class DirectoryIterator(_FromFiles):
    """Batches of images read from ``directory/<class>/...``: ``flow_from_directory``.

    Args:
        directory: the folder with one sub-folder per class.
        image_data_generator: the ``ImageDataGenerator`` (or None: no augmentation).
        target_size: ``(height, width)``.
        color_mode: "rgb", "rgba" or "grayscale".
        classes: class sub-folder names (default: every sub-folder, sorted).
        class_mode: "categorical", "binary", "sparse", "input" or None.
        batch_size: samples per batch.
        shuffle: reshuffle every epoch.
        seed: the seed.
        data_format: "channels_last" or "channels_first".
        save_to_dir: a folder to save augmented images to.
        save_prefix: their file name prefix.
        save_format: their format.
        follow_links: follow symbolic links.
        subset: "training" or "validation".
        interpolation: the Pillow resampling method.
        keep_aspect_ratio: crop to the target aspect ratio before resizing.
        dtype: the image dtype.
    """

    allowed_class_modes = {"categorical", "binary", "sparse", "input", None}

    def __init__(self, directory, image_data_generator, target_size=(256, 256),
                 color_mode: str = "rgb", classes=None, class_mode="categorical",
                 batch_size: int = 32, shuffle: bool = True, seed=None, data_format=None,
                 save_to_dir=None, save_prefix: str = "", save_format: str = "png",
                 follow_links: bool = False, subset=None, interpolation: str = "nearest",
                 keep_aspect_ratio: bool = False, dtype=None) -> None:
        self._set_processing_attrs(image_data_generator, target_size, color_mode,
                                   data_format, save_to_dir, save_prefix, save_format, subset,
                                   interpolation, keep_aspect_ratio, class_mode)
        self.directory, self.class_mode, self.dtype = directory, class_mode, dtype or "float32"
        if not classes:
            classes = [d for d in sorted(os.listdir(directory))
                       if os.path.isdir(os.path.join(directory, d))]
        self.num_classes = len(classes)
        self.class_indices = {c: i for i, c in enumerate(classes)}
        self.filenames, labels = [], []
        for cls in classes:
            sub = os.path.join(directory, cls)
            found = list(_valid_files(sub, follow_links))
            if self.split:
                found = found[int(self.split[0] * len(found)):int(self.split[1] * len(found))]
            for root, fname in found:
                self.filenames.append(os.path.join(cls, os.path.relpath(
                    os.path.join(root, fname), sub)))
                labels.append(self.class_indices[cls])
        self.samples = len(self.filenames)
        self.classes = np.asarray(labels, dtype="int32")
        print(f"Found {self.samples} images belonging to {self.num_classes} classes.")
        self._filepaths = [os.path.join(directory, f) for f in self.filenames]
        super().__init__(self.samples, batch_size, shuffle, seed)

    labels = readonly("classes", "The class index of every sample.")
    sample_weight = None  # directories carry no weights


class DataFrameIterator(_FromFiles):
    """Batches of images listed in a data frame: ``flow_from_dataframe``.

    Args:
        dataframe: a pandas DataFrame, or a mapping of column name to a list of values.
        directory: the folder the file names are relative to (None: as given).
        image_data_generator: the ``ImageDataGenerator`` (or None).
        x_col: the column of file names.
        y_col: the label column (a list of columns for "multi_output").
        weight_col: a column of sample weights.
        classes: the class names to keep (default: every label, sorted).
        class_mode: "binary", "categorical", "input", "multi_output", "raw", "sparse" or None.
        validate_filenames: drop rows whose file is missing or not an image.
        target_size, color_mode, batch_size, shuffle, seed, data_format, save_to_dir,
            save_prefix, save_format, subset, interpolation, keep_aspect_ratio, dtype: as in
            ``DirectoryIterator``.
    """

    allowed_class_modes = {"binary", "categorical", "input", "multi_output", "raw", "sparse",
                           None}

    def __init__(self, dataframe, directory=None, image_data_generator=None,
                 x_col: str = "filename", y_col="class", weight_col=None,
                 target_size=(256, 256), color_mode: str = "rgb", classes=None,
                 class_mode="categorical", batch_size: int = 32, shuffle: bool = True,
                 seed=None, data_format="channels_last", save_to_dir=None,
                 save_prefix: str = "", save_format: str = "png", subset=None,
                 interpolation: str = "nearest", keep_aspect_ratio: bool = False,
                 dtype="float32", validate_filenames: bool = True) -> None:
        self._set_processing_attrs(image_data_generator, target_size, color_mode,
                                   data_format, save_to_dir, save_prefix, save_format, subset,
                                   interpolation, keep_aspect_ratio, class_mode)
        if class_mode == "multi_output" and not isinstance(y_col, list):
            raise TypeError(f"If class_mode=\"multi_output\", y_col must be a list. Received "
                            f"{type(y_col).__name__}.")
        self.directory, self.class_mode, self.dtype = directory or "", class_mode, dtype
        col = lambda c: list(dataframe[c])  # noqa: E731  (pandas Series or list)
        names = col(x_col)
        if not all(isinstance(f, str) for f in names):
            raise TypeError(f"All values in column x_col={x_col} must be strings.")
        ycols = (y_col if isinstance(y_col, list) else [y_col]) \
            if class_mode not in ("input", None) else []
        rows = list(zip(names, *(col(c) for c in ycols),
                        *([col(weight_col)] if weight_col else [])))
        if validate_filenames:
            rows = [r for r in rows if r[0].lower().endswith(WHITE_LIST_FORMATS) and
                    os.path.isfile(os.path.join(self.directory, r[0]))]
        labelled = class_mode not in ("input", "multi_output", "raw", None)
        if labelled:
            rows, classes = self._filter_classes(rows, classes)
            self.class_indices = {c: i for i, c in enumerate(classes)}
        if self.split:
            rows = rows[int(self.split[0] * len(rows)):int(self.split[1] * len(rows))]
        if labelled:
            self.classes = [[self.class_indices[v] for v in r[1]]
                            if isinstance(r[1], (list, tuple)) else self.class_indices[r[1]]
                            for r in rows]
        self.filenames = [r[0] for r in rows]
        self._sample_weight = np.asarray([r[-1] for r in rows]) if weight_col else None
        if class_mode == "multi_output":
            self._targets = [np.array([r[1 + k] for r in rows]) for k in range(len(ycols))]
        elif class_mode == "raw":
            self._targets = np.asarray([r[1] for r in rows])
        self.samples = len(self.filenames)
        if labelled:
            print(f"Found {self.samples} validated image filenames belonging to "
                  f"{len(self.class_indices)} classes.")
        else:
            print(f"Found {self.samples} validated image filenames.")
        self._filepaths = [os.path.join(self.directory, f) for f in self.filenames]
        super().__init__(self.samples, batch_size, shuffle, seed)

    @staticmethod
    def _filter_classes(rows: list, classes) -> tuple:
        if classes:
            classes = list(dict.fromkeys(classes))
            keep = set(classes)
            out = []
            for r in rows:
                v = r[1]
                v = [c for c in v if c in keep] or None if isinstance(v, (list, tuple)) \
                    else (v if v in keep else None)
                if v is not None:
                    out.append((r[0], v) + tuple(r[2:]))
            return out, classes
        found: set = set()
        for r in rows:
            found.update(r[1] if isinstance(r[1], (list, tuple)) else [r[1]])
        return rows, sorted(found)

    @property
    def labels(self):
        """The targets: class indices, or the raw / multi-output columns."""
        return self._targets if self.class_mode in ("multi_output", "raw") else self.classes

    sample_weight = readonly("_sample_weight", "The weight column's values, or None.")
