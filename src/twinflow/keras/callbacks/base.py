"""``tw.keras.callbacks``: hooks called by ``fit``/``evaluate``/``predict``."""
from __future__ import annotations

import math
import os
from collections.abc import Callable

import numpy as np

from ...core.context import eager_mode
from ...ops.variables import Variable
from ...train.checkpoint import Checkpoint, CheckpointManager

_INDEX_DOCS = {"epoch": "the epoch index", "batch": "the batch index"}


def _hook(when: str, index: str | None = None) -> Callable[..., None]:
    """A ``Callback`` hook that does nothing, documented as called when ``when``.

    Args:
        when: what has just happened, e.g. "training starts".
        index: "epoch" or "batch" when the hook receives that index before ``logs``.

    Returns:
        The method.
    """
    # The argument is named as in Keras: callers may pass epoch=... or batch=....
    if index == "epoch":
        def hook(self, epoch, logs=None) -> None:
            pass
    elif index == "batch":
        def hook(self, batch, logs=None) -> None:
            pass
    else:
        def hook(self, logs=None) -> None:
            pass
    args = f"            {index}: {_INDEX_DOCS[index]}.\n" if index else ""
    hook.__doc__ = (f"Called when {when}.\n\n        Args:\n{args}"
                    "            logs: a dict of metric values.\n        ")
    return hook


class Callback:
    """Base class: override the ``on_*`` hooks you need; ``self.model`` is the model."""

    def __init__(self) -> None:
        self.model = None
        self.params: dict = {}

    def set_model(self, model) -> None:
        """Attaches the model being trained.

        Args:
            model: the model.
        """
        self.model = model

    def set_params(self, params: dict) -> None:
        """Receives ``epochs``, ``steps`` and ``verbose``.

        Args:
            params: the training parameters.
        """
        self.params = params

    # The hooks do nothing here; a subclass overrides those it needs.
    on_train_begin = _hook("training starts")
    on_train_end = _hook("training ends")
    on_epoch_begin = _hook("an epoch starts", "epoch")
    on_epoch_end = _hook("an epoch ends (``logs`` has the epoch's metrics)", "epoch")
    on_train_batch_begin = _hook("a training batch starts", "batch")
    on_train_batch_end = _hook("a training batch ends (``logs`` has running metrics)", "batch")
    on_test_begin = _hook("evaluation starts")
    on_test_end = _hook("evaluation ends")
    on_test_batch_begin = _hook("an evaluation batch starts", "batch")
    on_test_batch_end = _hook("an evaluation batch ends", "batch")
    on_predict_begin = _hook("prediction starts")
    on_predict_end = _hook("prediction ends")
    on_predict_batch_begin = _hook("a prediction batch starts", "batch")
    on_predict_batch_end = _hook("a prediction batch ends", "batch")

    def on_batch_begin(self, batch, logs=None) -> None:
        """Keras 1's name of ``on_train_batch_begin``.

        Args:
            batch: the batch index.
            logs: a dict of metric values.
        """
        self.on_train_batch_begin(batch, logs)

    def on_batch_end(self, batch, logs=None) -> None:
        """Keras 1's name of ``on_train_batch_end``.

        Args:
            batch: the batch index.
            logs: a dict of metric values.
        """
        self.on_train_batch_end(batch, logs)


class CallbackList:
    """Calls a hook on every callback in order.

    Args:
        callbacks: the callbacks.
        model: the model they observe.
        params: training parameters.
    """

    def __init__(self, callbacks=None, model=None, params: dict | None = None) -> None:
        self.callbacks = list(callbacks or [])
        for cb in self.callbacks:
            if model is not None:
                cb.set_model(model)
            cb.set_params(params or {})

    def __getattr__(self, hook: str) -> Callable:
        if not hook.startswith("on_"):
            raise AttributeError(hook)

        def call(*args, **kwargs) -> None:
            for cb in self.callbacks:
                getattr(cb, hook)(*args, **kwargs)
        return call


class History(Callback):
    """Records the logs of every epoch in ``history`` (name -> list of values)."""

    def __init__(self) -> None:
        super().__init__()
        self.history: dict = {}
        self.epoch: list = []

    def on_train_begin(self, logs=None) -> None:
        self.epoch = []
        self.history = {}

    def on_epoch_end(self, epoch, logs=None) -> None:
        self.epoch.append(epoch)
        for k, v in (logs or {}).items():
            self.history.setdefault(k, []).append(v)


def _monitor_mode(monitor: str, mode: str) -> str:
    if mode not in ("auto", "min", "max"):
        raise ValueError(f"mode must be 'auto', 'min' or 'max', got {mode!r}")
    if mode != "auto":
        return mode
    return "max" if ("acc" in monitor or monitor.startswith("fmeasure")
                     or "auc" in monitor) else "min"


class _MonitorCallback(Callback):
    """What EarlyStopping and ReduceLROnPlateau share: one logged quantity watched for
    improvement by at least ``min_delta``, with ``patience`` epochs of waiting."""

    def __init__(self, monitor: str, min_delta: float, patience: int, verbose: int,
                 mode: str) -> None:
        super().__init__()
        self.monitor = monitor
        self.min_delta = min_delta
        self.patience = patience
        self.verbose = verbose
        self.mode = _monitor_mode(monitor, mode)

    def _better(self, current: float, reference: float) -> bool:
        if self.mode == "min":
            return current < reference - self.min_delta
        return current > reference + self.min_delta

    def _reset(self) -> None:
        """Forgets the best value and the epochs waited (at the start of training)."""
        self.wait = 0
        self.best = math.inf if self.mode == "min" else -math.inf


class EarlyStopping(_MonitorCallback):
    """Stops training when ``monitor`` stops improving for ``patience`` epochs.

    Args:
        monitor: the logged quantity (``val_loss``...).
        min_delta: the smallest change counted as an improvement.
        patience: epochs without improvement before stopping.
        verbose: print a message when stopping.
        mode: ``'min'``, ``'max'`` or ``'auto'`` (max for accuracies).
        baseline: a value the quantity must beat.
        restore_best_weights: put back the best epoch's weights when stopping.
        start_from_epoch: epochs to wait before monitoring.
    """

    def __init__(self, monitor: str = "val_loss", min_delta: float = 0.0, patience: int = 0,
                 verbose: int = 0, mode: str = "auto", baseline=None,
                 restore_best_weights: bool = False, start_from_epoch: int = 0) -> None:
        super().__init__(monitor, abs(min_delta), patience, verbose, mode)
        self.baseline = baseline
        self.restore_best_weights = restore_best_weights
        self.start_from_epoch = start_from_epoch
        self.stopped_epoch = 0
        self.best_epoch = 0

    def on_train_begin(self, logs=None) -> None:
        self._reset()
        self.stopped_epoch = 0
        self.best_weights = None
        self.best_epoch = 0

    def on_epoch_end(self, epoch, logs=None) -> None:
        current = (logs or {}).get(self.monitor)
        if current is None or epoch < self.start_from_epoch:
            return
        current = float(current)
        if self.restore_best_weights and self.best_weights is None:
            self.best_weights = self.model.get_weights()
        self.wait += 1
        if self._better(current, self.best):
            self.best = current
            self.best_epoch = epoch
            if self.restore_best_weights:
                self.best_weights = self.model.get_weights()
            if self.baseline is None or self._better(current, self.baseline):
                self.wait = 0
            return
        if self.wait >= self.patience and epoch > 0:
            self.stopped_epoch = epoch
            self.model.stop_training = True
            if self.restore_best_weights and self.best_weights is not None:
                if self.verbose:
                    print("Restoring model weights from the end of the best epoch: "
                          f"{self.best_epoch + 1}.")
                self.model.set_weights(self.best_weights)

    def on_train_end(self, logs=None) -> None:
        if self.stopped_epoch > 0 and self.verbose:
            print(f"Epoch {self.stopped_epoch + 1}: early stopping")


def _writes_checkpoints(model) -> bool:
    """Whether this process writes checkpoints: under a multi-worker strategy only the chief
    (worker 0) does, as in TensorFlow; the other workers restore what it wrote."""
    strategy = getattr(model, "distribute_strategy", None)
    return strategy is None or strategy.extended.should_checkpoint


class ModelCheckpoint(_MonitorCallback):
    """Saves the model's weights after epochs (optionally only when ``monitor`` improves).

    ``filepath`` may contain ``{epoch}`` and log names (``ckpt-{epoch:02d}-{val_loss:.2f}``).

    Args:
        filepath: where to save.
        monitor: the quantity for ``save_best_only``.
        verbose: print a message on each save.
        save_best_only: save only when ``monitor`` improves.
        save_weights_only: True writes a weights checkpoint (``save_weights``); False writes
            the whole model (``model.save``) when ``filepath`` ends in ``.keras``, else a
            weights checkpoint.
        mode: ``'min'``, ``'max'`` or ``'auto'``.
        save_freq: ``'epoch'`` or a number of batches.
        initial_value_threshold: the value to beat first.
    """

    def __init__(self, filepath: str, monitor: str = "val_loss", verbose: int = 0,
                 save_best_only: bool = False, save_weights_only: bool = False,
                 mode: str = "auto", save_freq="epoch", options=None,
                 initial_value_threshold=None) -> None:
        super().__init__(monitor, 0.0, 0, verbose, mode)
        self.filepath = os.fspath(filepath)
        self.save_best_only = save_best_only
        self.save_weights_only = save_weights_only
        self.save_freq = save_freq
        self._reset()
        if initial_value_threshold is not None:
            self.best = initial_value_threshold
        self._batches = 0
        self._epoch = 0

    def _save(self, epoch: int, logs: dict | None, batch: int | None = None) -> None:
        logs = logs or {}
        if self.save_best_only:
            current = logs.get(self.monitor)
            if current is None:
                return
            current = float(current)
            if not self._better(current, self.best):
                return
            if self.verbose:
                print(f"\nEpoch {epoch + 1}: {self.monitor} improved from {self.best:.5f} to "
                      f"{current:.5f}, saving model to {self.filepath}")
            self.best = current
        path = self.filepath.format(epoch=epoch + 1, batch=batch, **logs)
        if self.verbose and not self.save_best_only:
            print(f"\nEpoch {epoch + 1}: saving model to {path}")
        if not _writes_checkpoints(self.model):
            return
        if not self.save_weights_only and path.endswith(".keras"):
            self.model.save(path)
        else:
            self.model.save_weights(path)

    def on_epoch_begin(self, epoch, logs=None) -> None:
        self._epoch = epoch

    def on_epoch_end(self, epoch, logs=None) -> None:
        if self.save_freq == "epoch":
            self._save(epoch, logs)

    def on_train_batch_end(self, batch, logs=None) -> None:
        if isinstance(self.save_freq, int):
            self._batches += 1
            if self._batches % self.save_freq == 0:
                self._save(self._epoch, logs, batch)


class LambdaCallback(Callback):
    """A callback from plain functions (``on_epoch_end=lambda epoch, logs: ...``).

    Args:
        **hooks: functions named after the hooks they implement.
    """

    def __init__(self, on_epoch_begin=None, on_epoch_end=None, on_batch_begin=None,
                 on_batch_end=None, on_train_begin=None, on_train_end=None, **kwargs) -> None:
        super().__init__()
        hooks = dict(on_epoch_begin=on_epoch_begin, on_epoch_end=on_epoch_end,
                     on_train_batch_begin=on_batch_begin, on_train_batch_end=on_batch_end,
                     on_train_begin=on_train_begin, on_train_end=on_train_end, **kwargs)
        for name, fn in hooks.items():
            if fn is not None:
                setattr(self, name, fn)


class LearningRateScheduler(Callback):
    """Sets the optimizer's learning rate at each epoch from ``schedule(epoch, lr)``.

    Args:
        schedule: a function of the epoch (and the current rate).
        verbose: print the new rate.
    """

    def __init__(self, schedule: Callable, verbose: int = 0) -> None:
        super().__init__()
        self.schedule = schedule
        self.verbose = verbose

    def on_epoch_begin(self, epoch, logs=None) -> None:
        opt = self.model.optimizer
        current = float(np.asarray(opt.learning_rate))
        try:
            lr = self.schedule(epoch, current)
        except TypeError:
            lr = self.schedule(epoch)
        opt.learning_rate = float(lr)
        if self.verbose:
            print(f"\nEpoch {epoch + 1}: LearningRateScheduler setting learning rate to {lr}.")

    def on_epoch_end(self, epoch, logs=None) -> None:
        if logs is not None:
            logs["learning_rate"] = float(np.asarray(self.model.optimizer.learning_rate))


class ReduceLROnPlateau(_MonitorCallback):
    """Multiplies the learning rate by ``factor`` when ``monitor`` stops improving.

    Args:
        monitor: the logged quantity.
        factor: the multiplier (< 1).
        patience: epochs without improvement before reducing.
        verbose: print a message on each reduction.
        mode: ``'min'``, ``'max'`` or ``'auto'``.
        min_delta: the smallest change counted as an improvement.
        cooldown: epochs to wait after a reduction.
        min_lr: the lower bound of the learning rate.
    """

    def __init__(self, monitor: str = "val_loss", factor: float = 0.1, patience: int = 10,
                 verbose: int = 0, mode: str = "auto", min_delta: float = 1e-4,
                 cooldown: int = 0, min_lr: float = 0.0, **kwargs) -> None:
        if factor >= 1.0:
            raise ValueError("ReduceLROnPlateau does not support a factor >= 1.0.")
        super().__init__(monitor, min_delta, patience, verbose, mode)
        self.factor = factor
        self.cooldown = cooldown
        self.min_lr = min_lr

    def on_train_begin(self, logs=None) -> None:
        self._reset()
        self.cooldown_counter = 0

    def on_epoch_end(self, epoch, logs=None) -> None:
        logs = logs if logs is not None else {}
        opt = self.model.optimizer
        logs["learning_rate"] = float(np.asarray(opt.learning_rate))
        current = logs.get(self.monitor)
        if current is None:
            return
        current = float(current)
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            self.wait = 0
        if self._better(current, self.best):
            self.best = current
            self.wait = 0
        elif self.cooldown_counter <= 0:
            self.wait += 1
            if self.wait >= self.patience:
                old = float(np.asarray(opt.learning_rate))
                new = max(old * self.factor, self.min_lr)
                if old > new:
                    opt.learning_rate = new
                    if self.verbose:
                        print(f"\nEpoch {epoch + 1}: ReduceLROnPlateau reducing learning "
                              f"rate to {new}.")
                    self.cooldown_counter = self.cooldown
                    self.wait = 0


class BackupAndRestore(Callback):
    """Backs the model and optimizer up after every epoch; a ``fit`` that starts with a backup
    in ``backup_dir`` (one that was interrupted) restores it and resumes at the next epoch.

    Args:
        backup_dir: the folder of the backup (twinflow checkpoint files).
        save_freq: ``'epoch'`` (batch-level backups are not supported).
        double_checkpoint: accepted; the backup is written atomically anyway, so an
            interrupted save leaves the previous backup readable.
        delete_checkpoint: delete the backup files when training finishes.
    """

    def __init__(self, backup_dir: str, save_freq="epoch", double_checkpoint: bool = False,
                 delete_checkpoint: bool = True) -> None:
        super().__init__()
        if not backup_dir:
            raise ValueError("Empty `backup_dir` argument passed")
        if save_freq != "epoch":
            raise NotImplementedError("BackupAndRestore(save_freq=<batches>) is not supported; "
                                      "use save_freq='epoch'")
        self.backup_dir = os.fspath(backup_dir)
        self.save_freq = save_freq
        self.double_checkpoint = double_checkpoint
        self.delete_checkpoint = delete_checkpoint
        self._tw_manager = None

    def _manager(self):
        if self._tw_manager is None:
            with eager_mode():
                self._tw_epoch = Variable(np.int64(-1), trainable=False, name="epoch")
            self._tw_ckpt = Checkpoint(model=self.model, optimizer=self.model.optimizer,
                                       epoch=self._tw_epoch)
            self._tw_manager = CheckpointManager(self._tw_ckpt, self.backup_dir, max_to_keep=1,
                                                 checkpoint_name="backup")
        return self._tw_manager

    def on_train_begin(self, logs=None) -> None:
        manager = self._manager()
        path = manager.latest_checkpoint
        if path is not None:
            self._tw_ckpt.restore(path)
            self.model._tw_resume_epoch = int(self._tw_epoch.numpy()) + 1

    def on_epoch_end(self, epoch, logs=None) -> None:
        self._tw_epoch.assign(np.int64(epoch))
        manager = self._manager()
        if _writes_checkpoints(self.model):  # every worker restores; the chief writes
            manager.save()

    def on_train_end(self, logs=None) -> None:
        if not self.delete_checkpoint or self._tw_manager is None:
            return
        if not _writes_checkpoints(self.model):
            self._tw_manager = None
            return
        # Only the files this callback wrote: backup_dir may hold other things.
        for prefix in list(self._tw_manager.checkpoints):
            for suffix in (".npz", ".index.json"):
                if os.path.exists(prefix + suffix):
                    os.remove(prefix + suffix)
        state = os.path.join(self.backup_dir, "checkpoint")
        if os.path.exists(state):
            os.remove(state)
        self._tw_manager = None


class CSVLogger(Callback):
    """Writes each epoch's logs as a row of a CSV file.

    Args:
        filename: the file.
        separator: the column separator.
        append: append to an existing file instead of overwriting it.
    """

    def __init__(self, filename: str, separator: str = ",", append: bool = False) -> None:
        super().__init__()
        self.filename = os.fspath(filename)
        self.sep = separator
        self.append = append
        self._keys = None
        self._header = True
        self._file = None

    def on_train_begin(self, logs=None) -> None:
        has_rows = self.append and os.path.exists(self.filename) and \
            os.path.getsize(self.filename) > 0
        self._file = open(self.filename, "a" if self.append else "w")  # noqa: SIM115
        self._header = not has_rows
        self._keys = None

    def on_epoch_end(self, epoch, logs=None) -> None:
        logs = logs or {}
        if self._keys is None:
            self._keys = sorted(logs)
            if self._header:
                self._file.write(self.sep.join(["epoch"] + self._keys) + "\n")
        row = [str(epoch)] + [repr(float(logs[k])) if k in logs else "" for k in self._keys]
        self._file.write(self.sep.join(row) + "\n")
        self._file.flush()

    def on_train_end(self, logs=None) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


class TerminateOnNaN(Callback):
    """Stops training when the loss becomes NaN or infinite."""

    def on_train_batch_end(self, batch, logs=None) -> None:
        loss = (logs or {}).get("loss")
        if loss is not None and not np.isfinite(loss):
            print(f"Batch {batch}: Invalid loss, terminating training")
            self.model.stop_training = True


class ProgbarLogger(Callback):
    """Kept for compatibility: ``fit`` draws its own progress bar (``verbose=1``)."""
