"""Keras' legacy ``ImageDataGenerator``: random affine / colour augmentation and
normalization of NumPy images, batched by ``flow``, ``flow_from_directory`` and
``flow_from_dataframe`` (iterators that ``fit`` takes directly)."""
from __future__ import annotations

import math
import warnings

import numpy as np

from ..settings import image_data_format
from .image_iterators import DataFrameIterator, DirectoryIterator, NumpyArrayIterator
from .image_transforms import (
    apply_affine_transform,
    apply_brightness_shift,
    apply_channel_shift,
    flip_axis,
)

__all__ = ["ImageDataGenerator"]


def _shift(spec, size: int) -> float:
    """A shift drawn from ``spec``: a float range (fractions below 1) or a list/int of
    pixel values (a random sign)."""
    if isinstance(spec, (float, np.floating)) and not isinstance(spec, bool):
        v = np.random.uniform(-spec, spec)
    else:
        v = np.random.choice(spec) * np.random.choice([-1, 1])
    return v * size if np.max(spec) < 1 else v


class ImageDataGenerator:
    """Generates batches of augmented images (Keras' legacy API).

    Args:
        featurewise_center: subtract the data set mean (learned by ``fit``).
        samplewise_center: subtract each image's mean.
        featurewise_std_normalization: divide by the data set std (``fit``).
        samplewise_std_normalization: divide each image by its std.
        zca_whitening: apply ZCA whitening (``fit``).
        zca_epsilon: the whitening epsilon.
        rotation_range: degrees of random rotation.
        width_shift_range: a fraction of the width (< 1), pixels (>= 1) or a list of pixels.
        height_shift_range: the same for the height.
        brightness_range: ``(low, high)`` brightness factors.
        shear_range: shear angle range, in degrees.
        zoom_range: ``f`` (``[1 - f, 1 + f]``) or ``(low, high)``.
        channel_shift_range: range of random channel shifts.
        fill_mode: "constant", "nearest", "reflect" or "wrap".
        cval: the fill value for "constant".
        horizontal_flip: flip left-right at random.
        vertical_flip: flip up-down at random.
        rescale: a factor multiplied in first (after ``preprocessing_function``).
        preprocessing_function: a function of one image array, run first.
        data_format: "channels_last" or "channels_first".
        validation_split: the fraction reserved for ``subset="validation"``.
        interpolation_order: the spline order of the affine sampling.
        dtype: the image dtype.
    """

    def __init__(self, featurewise_center: bool = False, samplewise_center: bool = False,
                 featurewise_std_normalization: bool = False,
                 samplewise_std_normalization: bool = False, zca_whitening: bool = False,
                 zca_epsilon: float = 1e-6, rotation_range: float = 0,
                 width_shift_range=0.0, height_shift_range=0.0, brightness_range=None,
                 shear_range: float = 0.0, zoom_range=0.0, channel_shift_range: float = 0.0,
                 fill_mode: str = "nearest", cval: float = 0.0, horizontal_flip: bool = False,
                 vertical_flip: bool = False, rescale=None, preprocessing_function=None,
                 data_format=None, validation_split: float = 0.0,
                 interpolation_order: int = 1, dtype=None) -> None:
        data_format = data_format or image_data_format()
        if data_format not in ("channels_last", "channels_first"):
            raise ValueError(f"`data_format` should be \"channels_last\" (channel after row "
                             f"and column) or \"channels_first\" (channel before row and "
                             f"column). Received: {data_format}")
        if validation_split and not 0 < validation_split < 1:
            raise ValueError(f"`validation_split` must be strictly between 0 and 1. "
                             f"Received: {validation_split}")
        if isinstance(zoom_range, (float, int)):
            zoom = [1 - zoom_range, 1 + zoom_range]
        elif len(zoom_range) == 2 and all(isinstance(v, (float, int)) for v in zoom_range):
            zoom = [zoom_range[0], zoom_range[1]]
        else:
            raise ValueError(f"`zoom_range` should be a float or a tuple or list of two "
                             f"floats. Received: {zoom_range}")
        if brightness_range is not None and (not isinstance(brightness_range, (tuple, list))
                                             or len(brightness_range) != 2):
            raise ValueError(f"`brightness_range should be tuple or list of two floats. "
                             f"Received: {brightness_range}")
        self.featurewise_center = featurewise_center or zca_whitening or \
            (featurewise_std_normalization and not zca_whitening)
        self.samplewise_center = samplewise_center or samplewise_std_normalization
        self.featurewise_std_normalization = featurewise_std_normalization and \
            not zca_whitening
        self.samplewise_std_normalization = samplewise_std_normalization
        if self.featurewise_center != featurewise_center or \
                self.samplewise_center != samplewise_center:
            warnings.warn("The requested normalization implies centering, which was turned "
                          "on.", stacklevel=2)
        self.zca_whitening, self.zca_epsilon = zca_whitening, zca_epsilon
        self.rotation_range = rotation_range
        self.width_shift_range, self.height_shift_range = width_shift_range, height_shift_range
        self.shear_range, self.zoom_range = shear_range, zoom
        self.channel_shift_range = channel_shift_range
        self.fill_mode, self.cval = fill_mode, cval
        self.horizontal_flip, self.vertical_flip = horizontal_flip, vertical_flip
        self.rescale, self.preprocessing_function = rescale, preprocessing_function
        self.dtype = dtype or "float32"
        self.interpolation_order = interpolation_order
        self.data_format = data_format
        self.channel_axis, self.row_axis, self.col_axis = (3, 1, 2) \
            if data_format == "channels_last" else (1, 2, 3)
        self._validation_split = validation_split
        self.mean = self.std = self.zca_whitening_matrix = None
        self.brightness_range = brightness_range

    def flow(self, x, y=None, batch_size: int = 32, shuffle: bool = True, sample_weight=None,
             seed=None, save_to_dir=None, save_prefix: str = "", save_format: str = "png",
             ignore_class_split: bool = False, subset=None) -> NumpyArrayIterator:
        """Batches of augmented images from arrays.

        Args:
            x: a rank-4 array (or ``(images, other_arrays)``).
            y: labels.
            batch_size: samples per batch.
            shuffle: reshuffle every epoch.
            sample_weight: per-sample weights.
            seed: the seed.
            save_to_dir: a folder to save the augmented images to.
            save_prefix: their file name prefix.
            save_format: their format.
            ignore_class_split: allow a split whose parts have different classes.
            subset: "training" or "validation".

        Returns:
            A ``NumpyArrayIterator``.
        """
        return NumpyArrayIterator(x, y, self, batch_size=batch_size, shuffle=shuffle,
                                  sample_weight=sample_weight, seed=seed,
                                  data_format=self.data_format, save_to_dir=save_to_dir,
                                  save_prefix=save_prefix, save_format=save_format,
                                  ignore_class_split=ignore_class_split, subset=subset,
                                  dtype=self.dtype)

    def flow_from_directory(self, directory, target_size=(256, 256), color_mode: str = "rgb",
                            classes=None, class_mode="categorical", batch_size: int = 32,
                            shuffle: bool = True, seed=None, save_to_dir=None,
                            save_prefix: str = "", save_format: str = "png",
                            follow_links: bool = False, subset=None,
                            interpolation: str = "nearest",
                            keep_aspect_ratio: bool = False) -> DirectoryIterator:
        """Batches of augmented images from ``directory/<class>/...``.

        Args:
            directory: the folder.
            target_size: ``(height, width)``.
            color_mode: "rgb", "rgba" or "grayscale".
            classes: the class folder names.
            class_mode: "categorical", "binary", "sparse", "input" or None.
            batch_size: samples per batch.
            shuffle: reshuffle every epoch.
            seed: the seed.
            save_to_dir: a folder to save augmented images to.
            save_prefix: their prefix.
            save_format: their format.
            follow_links: follow symbolic links.
            subset: "training" or "validation".
            interpolation: the Pillow resampling method.
            keep_aspect_ratio: crop to the aspect ratio before resizing.

        Returns:
            A ``DirectoryIterator``.
        """
        return DirectoryIterator(directory, self, target_size=target_size,
                                 color_mode=color_mode, keep_aspect_ratio=keep_aspect_ratio,
                                 classes=classes, class_mode=class_mode,
                                 data_format=self.data_format, batch_size=batch_size,
                                 shuffle=shuffle, seed=seed, save_to_dir=save_to_dir,
                                 save_prefix=save_prefix, save_format=save_format,
                                 follow_links=follow_links, subset=subset,
                                 interpolation=interpolation, dtype=self.dtype)

    def flow_from_dataframe(self, dataframe, directory=None, x_col: str = "filename",
                            y_col="class", weight_col=None, target_size=(256, 256),
                            color_mode: str = "rgb", classes=None, class_mode="categorical",
                            batch_size: int = 32, shuffle: bool = True, seed=None,
                            save_to_dir=None, save_prefix: str = "",
                            save_format: str = "png", subset=None,
                            interpolation: str = "nearest", validate_filenames: bool = True,
                            **kwargs) -> DataFrameIterator:
        """Batches of augmented images listed in a data frame.

        Args:
            dataframe: a pandas DataFrame (or a mapping of column name to values).
            directory: the folder the names are relative to.
            x_col: the file name column.
            y_col: the label column(s).
            weight_col: a sample weight column.
            classes: the classes to keep.
            class_mode: as in ``DataFrameIterator`` ("other" means "raw").
            validate_filenames: drop rows whose file is missing.
            target_size, color_mode, batch_size, shuffle, seed, save_to_dir, save_prefix,
                save_format, subset, interpolation: as in ``flow_from_directory``.
            **kwargs: Keras' deprecated ``has_ext``/``sort``/``drop_duplicates`` (refused).

        Returns:
            A ``DataFrameIterator``.
        """
        if kwargs:
            raise TypeError(f"flow_from_dataframe: unsupported arguments {sorted(kwargs)} "
                            "(removed from Keras' API)")
        if class_mode == "other":
            class_mode = "raw"
        return DataFrameIterator(dataframe, directory, self, x_col=x_col, y_col=y_col,
                                 weight_col=weight_col, target_size=target_size,
                                 color_mode=color_mode, classes=classes,
                                 class_mode=class_mode, data_format=self.data_format,
                                 batch_size=batch_size, shuffle=shuffle, seed=seed,
                                 save_to_dir=save_to_dir, save_prefix=save_prefix,
                                 save_format=save_format, subset=subset,
                                 interpolation=interpolation,
                                 validate_filenames=validate_filenames, dtype=self.dtype)

    def standardize(self, x: np.ndarray) -> np.ndarray:
        """Applies ``preprocessing_function``, ``rescale`` and the normalizations (in place
        when ``x`` is a float array, as Keras).

        Args:
            x: one image or a batch.

        Returns:
            The normalized array.
        """
        if self.preprocessing_function:
            x = self.preprocessing_function(x)
        if self.rescale:
            x *= self.rescale
        if self.samplewise_center:
            x -= np.mean(x, keepdims=True)
        if self.samplewise_std_normalization:
            x /= np.std(x, keepdims=True) + 1e-6
        if self._fitted("featurewise_center", self.mean):
            x -= self.mean
        if self._fitted("featurewise_std_normalization", self.std):
            x /= self.std + 1e-6
        if self._fitted("zca_whitening", self.zca_whitening_matrix):
            flat = x.reshape(-1, math.prod(x.shape[-3:]))
            x = np.reshape(flat @ self.zca_whitening_matrix, x.shape)
        return x

    def _fitted(self, option: str, statistic) -> bool:
        """Whether ``option`` is on and ``fit`` computed its ``statistic`` (on but not fitted:
        a warning, and the option is skipped)."""
        if not getattr(self, option):
            return False
        if statistic is None:
            warnings.warn(f"This ImageDataGenerator specifies `{option}`, but it hasn't been "
                          "fit on any training data. Fit it first by calling "
                          "`.fit(numpy_data)`.", stacklevel=3)
            return False
        return True

    def get_random_transform(self, img_shape, seed=None) -> dict:
        """Draws the parameters of one random transform (NumPy's global generator).

        Args:
            img_shape: the image's shape (3D).
            seed: reseeds the generator first.

        Returns:
            A dict: theta, tx, ty, shear, zx, zy, flip_horizontal, flip_vertical,
            channel_shift_intensity, brightness.
        """
        if seed is not None:
            np.random.seed(seed)
        rng = np.random
        theta = rng.uniform(-self.rotation_range, self.rotation_range) \
            if self.rotation_range else 0
        tx = _shift(self.height_shift_range, img_shape[self.row_axis - 1]) \
            if self.height_shift_range else 0
        ty = _shift(self.width_shift_range, img_shape[self.col_axis - 1]) \
            if self.width_shift_range else 0
        shear = rng.uniform(-self.shear_range, self.shear_range) if self.shear_range else 0
        if self.zoom_range[0] == 1 and self.zoom_range[1] == 1:
            zx, zy = 1, 1
        else:
            zx, zy = rng.uniform(self.zoom_range[0], self.zoom_range[1], 2)
        flip_h = (rng.random() < 0.5) * self.horizontal_flip
        flip_v = (rng.random() < 0.5) * self.vertical_flip
        shift = rng.uniform(-self.channel_shift_range, self.channel_shift_range) \
            if self.channel_shift_range != 0 else None
        bright = rng.uniform(*self.brightness_range) if self.brightness_range is not None \
            else None
        return {"theta": theta, "tx": tx, "ty": ty, "shear": shear, "zx": zx, "zy": zy,
                "flip_horizontal": flip_h, "flip_vertical": flip_v,
                "channel_shift_intensity": shift, "brightness": bright}

    def apply_transform(self, x: np.ndarray, transform_parameters: dict) -> np.ndarray:
        """Applies the parameters of ``get_random_transform`` to one image.

        Args:
            x: a 3D image.
            transform_parameters: the dict.

        Returns:
            The transformed image.
        """
        p = transform_parameters
        row, col, ch = self.row_axis - 1, self.col_axis - 1, self.channel_axis - 1
        x = apply_affine_transform(x, p.get("theta", 0), p.get("tx", 0), p.get("ty", 0),
                                   p.get("shear", 0), p.get("zx", 1), p.get("zy", 1),
                                   row_axis=row, col_axis=col, channel_axis=ch,
                                   fill_mode=self.fill_mode, cval=self.cval,
                                   order=self.interpolation_order)
        if p.get("channel_shift_intensity") is not None:
            x = apply_channel_shift(x, p["channel_shift_intensity"], ch)
        if p.get("flip_horizontal", False):
            x = flip_axis(x, col)
        if p.get("flip_vertical", False):
            x = flip_axis(x, row)
        if p.get("brightness") is not None:
            x = apply_brightness_shift(x, p["brightness"], False)
        return x

    def random_transform(self, x: np.ndarray, seed=None) -> np.ndarray:
        """One random transform of one image.

        Args:
            x: a 3D image.
            seed: reseeds NumPy's generator first.

        Returns:
            The transformed image.
        """
        return self.apply_transform(x, self.get_random_transform(x.shape, seed))

    def fit(self, x, augment: bool = False, rounds: int = 1, seed=None) -> None:
        """Learns the data set statistics the feature-wise normalizations need.

        Args:
            x: a rank-4 array of images.
            augment: also fit on ``rounds`` random augmentations of each image.
            rounds: augmentation rounds.
            seed: reseeds NumPy's generator first.

        Returns:
            None.
        """
        x = np.array(x, dtype=self.dtype)
        if x.ndim != 4:
            raise ValueError(f"Input to `.fit()` should have rank 4. Got array with shape: "
                             f"{x.shape}")
        if seed is not None:
            np.random.seed(seed)
        if self.rescale:
            x *= self.rescale
        if augment:
            x = np.stack([self.random_transform(x[i]) for _ in range(rounds)
                          for i in range(len(x))]).astype(self.dtype)
        axes = (0, self.row_axis, self.col_axis)
        shape = [1, 1, 1]
        shape[self.channel_axis - 1] = x.shape[self.channel_axis]
        if self.featurewise_center:
            self.mean = np.reshape(np.mean(x, axis=axes), shape)
            x -= self.mean
        if self.featurewise_std_normalization:
            self.std = np.reshape(np.std(x, axis=axes), shape)
            x /= self.std + 1e-6
        if self.zca_whitening:
            flat = np.reshape(x, (len(x), -1))
            u, s, _ = np.linalg.svd(flat.T, full_matrices=False)
            s_inv = np.sqrt(len(x)) / (s + self.zca_epsilon)
            self.zca_whitening_matrix = (u * s_inv) @ u.T
