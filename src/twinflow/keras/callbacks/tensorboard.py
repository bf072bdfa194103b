"""The ``TensorBoard`` callback: epoch/batch scalars, weight histograms, the model config."""
from __future__ import annotations

import os
import time

import numpy as np

from ...summary import extras as _extras
from ...summary import writer as _summary
from ..settings import image_data_format
from .base import Callback


def _check_update_freq(update_freq):
    """Returns ``'epoch'`` or a positive batch count (``'batch'`` means 1), as Keras 3."""
    if update_freq == "batch":
        return 1
    if update_freq == "epoch":
        return update_freq
    if isinstance(update_freq, (int, np.integer)) and not isinstance(update_freq, bool) \
            and update_freq > 0:
        return int(update_freq)
    raise ValueError("TensorBoard: update_freq must be 'batch', 'epoch' or a positive "
                     f"integer. Received: update_freq={update_freq!r}")


def _weight_image(w: np.ndarray):
    """A weight as Keras draws it: ``[k, h, w, 1]`` images, or None when it has no picture."""
    w = np.squeeze(w)
    if w.ndim == 1:  # a bias
        w = w.reshape(1, w.shape[0], 1, 1)
    elif w.ndim == 2:  # a Dense kernel, wider than tall
        if w.shape[0] > w.shape[1]:
            w = w.T
        w = w.reshape(1, w.shape[0], w.shape[1], 1)
    elif w.ndim == 3:  # a convolution kernel: one image per output channel
        if image_data_format() == "channels_last":
            w = np.transpose(w, (2, 0, 1))
        w = w.reshape(w.shape[0], w.shape[1], w.shape[2], 1)
    return w if w.ndim == 4 and w.shape[-1] in (1, 3, 4) else None


class TensorBoard(Callback):
    """Writes training logs as TensorBoard event files, as Keras 3's callback.

    Training logs go to ``log_dir/train``, validation logs to ``log_dir/validation``.
    Profiling and the embedding projector are not available in twinflow: their arguments must
    keep their defaults (anything else raises ``NotImplementedError``).

    Args:
        log_dir: the log directory.
        histogram_freq: write weight histograms (``<weight>/histogram``) every this many
            epochs (0: never).
        write_graph: write the model's JSON config (TensorBoard's Keras conceptual graph)
            once, for Functional and Sequential models.
        write_images: with ``histogram_freq``, also write each weight as an image
            (``<weight>/image``), as Keras.
        write_steps_per_second: also log ``steps_per_second`` (per epoch, and per batch when
            ``update_freq`` is not ``'epoch'``).
        update_freq: ``'epoch'``, ``'batch'`` (every batch) or a number of batches between
            batch-level scalars.
        profile_batch: must be 0 (the profiler is not supported).
        embeddings_freq: must be 0 (the embedding projector is not supported).
        embeddings_metadata: must be None (the embedding projector is not supported).
    """

    def __init__(self, log_dir: str = "logs", histogram_freq: int = 0,
                 write_graph: bool = True, write_images: bool = False,
                 write_steps_per_second: bool = False, update_freq="epoch",
                 profile_batch=0, embeddings_freq: int = 0,
                 embeddings_metadata=None) -> None:
        super().__init__()
        unsupported = {"profile_batch": (profile_batch, 0),
                       "embeddings_freq": (embeddings_freq, 0),
                       "embeddings_metadata": (embeddings_metadata, None)}
        for name, (value, default) in unsupported.items():
            if value is not default and value != default:
                raise NotImplementedError(
                    f"keras.callbacks.TensorBoard: {name}={value!r} is not supported by "
                    f"twinflow (only {name}={default!r}).")
        if not isinstance(histogram_freq, (int, np.integer)) or histogram_freq < 0:
            raise ValueError("TensorBoard: histogram_freq must be a non-negative integer. "
                             f"Received: histogram_freq={histogram_freq!r}")
        self.log_dir = os.fspath(log_dir)
        self.histogram_freq = int(histogram_freq)
        self.write_graph = bool(write_graph)
        self.write_images = bool(write_images)
        self.write_steps_per_second = bool(write_steps_per_second)
        self.update_freq = _check_update_freq(update_freq)
        self.embeddings_freq = embeddings_freq
        self.embeddings_metadata = embeddings_metadata
        self._train = None
        self._val = None
        self._step = 0
        self._batch_start = self._epoch_start = 0.0
        self._epoch_first_step = 0

    def _train_writer(self):
        if self._train is None:
            self._train = _summary.create_file_writer(os.path.join(self.log_dir, "train"))
        return self._train

    def _val_writer(self):
        # Created on first use, so runs without validation data get no empty log directory.
        if self._val is None:
            self._val = _summary.create_file_writer(os.path.join(self.log_dir, "validation"))
        return self._val

    def _write_model_config(self) -> None:
        # Keras writes the JSON config under the "graph_keras_model" plugin (version b"1").
        if type(self.model).__name__ not in ("Functional", "Sequential"):
            return
        with self._train_writer().as_default():
            _extras.write("keras", np.array(self.model.to_json(), dtype=object), step=0,
                          metadata=_summary._metadata("graph_keras_model", content=b"1"))

    def on_train_begin(self, logs=None) -> None:
        self._step = 0
        if self.write_graph:
            self._write_model_config()

    def on_test_end(self, logs=None) -> None:
        # As Keras: each evaluation's results against the optimizer's step count.
        iterations = getattr(getattr(self.model, "optimizer", None), "iterations", None)
        if iterations is None or not logs:
            return
        step = int(np.asarray(iterations))
        with self._val_writer().as_default():
            for k, v in logs.items():
                _summary.scalar(f"evaluation_{k}_vs_iterations", float(v), step=step)
        self._val.flush()  # ``evaluate`` alone never reaches on_train_end

    def on_epoch_begin(self, epoch, logs=None) -> None:
        self._epoch_start = time.perf_counter()
        self._epoch_first_step = self._step

    def on_train_batch_begin(self, batch, logs=None) -> None:
        self._batch_start = time.perf_counter()

    def on_train_batch_end(self, batch, logs=None) -> None:
        self._step += 1
        if self.update_freq == "epoch" or self._step % self.update_freq:
            return
        scalars = dict(logs or {})
        if self.write_steps_per_second:
            elapsed = max(time.perf_counter() - self._batch_start, 1e-9)
            scalars["steps_per_second"] = 1.0 / elapsed
        with self._train_writer().as_default():
            for k, v in scalars.items():
                _summary.scalar(f"batch_{k}", float(v), step=self._step)

    def on_epoch_end(self, epoch, logs=None) -> None:
        logs = dict(logs or {})
        optimizer = getattr(self.model, "optimizer", None)
        if optimizer is not None and hasattr(optimizer, "learning_rate"):
            logs["learning_rate"] = float(np.asarray(optimizer.learning_rate))
        if self.write_steps_per_second:
            elapsed = max(time.perf_counter() - self._epoch_start, 1e-9)
            logs["steps_per_second"] = (self._step - self._epoch_first_step) / elapsed
        for k, v in logs.items():
            w, name = ((self._val_writer(), k[4:]) if k.startswith("val_")
                       else (self._train_writer(), k))
            with w.as_default():
                _summary.scalar(f"epoch_{name}", float(v), step=epoch)
        if self.histogram_freq and epoch % self.histogram_freq == 0:
            self._log_weights(epoch)
        for w in (self._train, self._val):
            if w is not None:
                w.flush()

    def _log_weights(self, epoch: int) -> None:
        # Keras' tags: the weight's path, then "/histogram" (and "/image").
        with self._train_writer().as_default():
            for layer in self.model.layers:
                for v in layer.weights:
                    tag = v.name.split(":")[0].replace(":", "_")
                    value = np.asarray(v.numpy())
                    _summary.histogram(f"{tag}/histogram", value, step=epoch)
                    image = _weight_image(value) if self.write_images else None
                    if image is not None:
                        _summary.image(f"{tag}/image", image, step=epoch)

    def on_train_end(self, logs=None) -> None:
        for w in (self._train, self._val):
            if w is not None:
                w.close()
        self._train = self._val = None
