"""The loops over data: ``fit``, ``evaluate``, ``predict`` and the ``*_on_batch`` forms."""
from __future__ import annotations

from typing import Any

import numpy as np

from ...core import nest
from .. import callbacks as _callbacks
from .. import config as _config
from ..declare import refuse_unknown
from ..py_dataset import is_py_dataset
from ..settings import filter_traceback, print_msg
from ..utils import Progbar
from .data import (
    DataHandler,
    _batch_tuple,
    _class_weights,
    _is_dataset,
    _split,
    _to_floats,
    unpack_x_y_sample_weight,
)


class LoopsMixin:
    """Model's loops over the data, calling the per-batch step functions and callbacks."""

    @filter_traceback
    def fit(self, x=None, y=None, batch_size=None, epochs: int = 1, verbose="auto", callbacks=None,
            validation_split: float = 0.0, validation_data=None, shuffle: bool = True,
            class_weight=None, sample_weight=None, initial_epoch: int = 0, steps_per_epoch=None,
            validation_steps=None, validation_batch_size=None, validation_freq: int = 1,
            **kwargs) -> _callbacks.History:
        """Trains the model for ``epochs`` passes over the data.

        Args:
            x: input arrays/tensors (or a structure of them), or a ``tw.data.Dataset`` of
                ``(x, y)`` batches.
            y: target arrays (None with a Dataset).
            batch_size: samples per step (32 by default; not with a Dataset).
            epochs: the last epoch (counting from ``initial_epoch``).
            verbose: 0 silent, 1 progress bar, 2 one line per epoch ('auto': 1).
            callbacks: Callback objects.
            validation_split: the fraction of the arrays held out for validation.
            validation_data: ``(x_val, y_val)`` or a Dataset, evaluated after each epoch.
            shuffle: shuffle the arrays every epoch.
            class_weight: class id -> weight, multiplied into the samples' weights.
            sample_weight: per-sample weights for the arrays.
            initial_epoch: the epoch to start at.
            steps_per_epoch: steps per epoch (default: one pass over the data).
            validation_steps: steps of validation.
            validation_batch_size: the validation batch size.
            validation_freq: validate every this many epochs.
            **kwargs: only ``_epoch_header=False`` (twinflow's demo: hides the "Epoch i/n"
                line); any other keyword raises TypeError, as Keras 3's ``fit`` has none.

        Returns:
            The History callback (``history.history`` maps names to per-epoch values).
        """
        header = kwargs.pop("_epoch_header", True)
        refuse_unknown("fit", kwargs)
        self._check_compiled()
        if class_weight is not None:
            if _is_dataset(x):
                raise NotImplementedError("class_weight with a Dataset is not supported; "
                                          "yield (x, y, sample_weight) instead")
            sample_weight = _class_weights(y, class_weight, sample_weight)
        verbose = 1 if verbose == "auto" else int(verbose)
        if validation_split and validation_data is None:
            if _is_dataset(x) or is_py_dataset(x):
                raise ValueError("validation_split is not supported for Dataset or "
                                 "PyDataset inputs")
            (x, y, sample_weight), validation_data = _split(x, y, sample_weight,
                                                           validation_split)
        if _config.max_epochs() is not None:  # keras.config.set_max_epochs
            epochs = min(epochs, _config.max_epochs())
        cap = _config.max_steps_per_epoch()
        if cap is not None:
            steps_per_epoch = cap if steps_per_epoch is None else min(steps_per_epoch, cap)
        data = DataHandler(x, y, sample_weight, batch_size, shuffle, steps_per_epoch)
        ext = getattr(getattr(self, "_tw_strategy", None), "extended", None)
        if hasattr(ext, "_prepare_fit_input"):  # a multi-worker strategy's input rules
            ext._prepare_fit_input(x, shuffle)
        val = None
        if validation_data is not None:
            vx, vy, vsw = unpack_x_y_sample_weight(validation_data) \
                if not _is_dataset(validation_data) else (validation_data, None, None)
            val = DataHandler(vx, vy, vsw, validation_batch_size or batch_size, False,
                              validation_steps)
        history = _callbacks.History()
        cbs = _callbacks.CallbackList(list(callbacks or []) + [history], model=self,
                                      params={"epochs": epochs, "steps": data.steps,
                                              "verbose": verbose})
        train_fn = self.make_train_function()
        self._tw_stop = False
        self._tw_history = history
        cbs.on_train_begin()
        # BackupAndRestore found an interrupted run: resume after its last finished epoch.
        initial_epoch = max(initial_epoch, self.__dict__.pop("_tw_resume_epoch", 0))
        logs: dict = {}
        for epoch in range(initial_epoch, epochs):
            self.reset_metrics()
            cbs.on_epoch_begin(epoch)
            if verbose and header:
                print_msg(f"Epoch {epoch + 1}/{epochs}")
            bar = Progbar(data.steps, verbose=verbose, stateless_metrics=set())
            step = 0
            for step, batch in enumerate(data.epoch(), start=1):
                cbs.on_train_batch_begin(step - 1)
                logs = _to_floats(train_fn(batch))
                cbs.on_train_batch_end(step - 1, logs)
                bar.update(step, logs, finalize=False)
                if self._tw_stop:
                    break
            epoch_logs = dict(logs)
            if val is not None and (epoch + 1) % validation_freq == 0:
                cbs.on_test_begin()   # (as Keras: SwapEMAWeights validates with averages)
                val_logs = self._evaluate_handler(val)
                cbs.on_test_end(val_logs)
                epoch_logs.update({f"val_{k}": v for k, v in val_logs.items()})
            bar.target = step if data.steps is None else data.steps
            bar.update(step, epoch_logs, finalize=True)
            cbs.on_epoch_end(epoch, epoch_logs)
            logs = epoch_logs
            if self._tw_stop:
                break
        finalize = getattr(self._tw_optimizer, "finalize_variable_values", None)
        if finalize is not None:
            finalize(self.trainable_variables)
        cbs.on_train_end(logs)
        return history

    def _evaluate_handler(self, data: DataHandler, callbacks=None, verbose: int = 0) -> dict:
        test_fn = self.make_test_function()
        self.reset_metrics()
        bar = Progbar(data.steps, verbose=verbose, stateless_metrics=set())
        logs: dict = {}
        step = 0
        for step, batch in enumerate(data.epoch(), start=1):
            if callbacks is not None:
                callbacks.on_test_batch_begin(step - 1)
            logs = _to_floats(test_fn(batch))
            if callbacks is not None:
                callbacks.on_test_batch_end(step - 1, logs)
            bar.update(step, logs, finalize=False)
        bar.target = step
        bar.update(step, logs, finalize=True)
        return logs

    @filter_traceback
    def evaluate(self, x=None, y=None, batch_size=None, verbose="auto", sample_weight=None,
                 steps=None, callbacks=None, return_dict: bool = False, **kwargs) -> Any:
        """Computes the loss and metrics over the data.

        Args:
            x: inputs or a Dataset.
            y: targets.
            batch_size: samples per step.
            verbose: 0 or 1.
            sample_weight: per-sample weights.
            steps: how many batches.
            callbacks: Callback objects.
            return_dict: return ``{name: value}`` instead of a list.
            **kwargs: none is recognised (raises ValueError, as Keras 3).

        Returns:
            The loss (a float) when there are no metrics, else ``[loss, metric...]``, or the
            dict.
        """
        if kwargs:
            raise ValueError(f"Arguments not recognized: {kwargs}")
        self._check_compiled()
        verbose = 1 if verbose == "auto" else int(verbose)
        data = DataHandler(x, y, sample_weight, batch_size, False, steps)
        cbs = _callbacks.CallbackList(callbacks, model=self, params={"steps": data.steps})
        cbs.on_test_begin()
        logs = self._evaluate_handler(data, cbs, verbose)
        cbs.on_test_end(logs)
        if return_dict:
            return logs
        values = [logs[m.name] for m in self.metrics if m.name in logs]
        return values[0] if len(values) == 1 else values

    @filter_traceback
    def predict(self, x, batch_size=None, verbose="auto", steps=None, callbacks=None,
                **kwargs) -> Any:
        """The model's outputs for every sample, as NumPy arrays.

        Args:
            x: inputs or a Dataset.
            batch_size: samples per step.
            verbose: 0 or 1.
            steps: how many batches.
            callbacks: Callback objects.
            **kwargs: none is recognised (raises TypeError, as Keras 3 has none).

        Returns:
            The predictions (arrays in the structure of the model's outputs).
        """
        refuse_unknown("predict", kwargs)
        verbose = 0 if verbose == "auto" else int(verbose)
        data = DataHandler(x, None, None, batch_size, False, steps)
        predict_fn = self.make_predict_function()
        cbs = _callbacks.CallbackList(callbacks, model=self, params={"steps": data.steps})
        cbs.on_predict_begin()
        outs: list = []
        bar = Progbar(data.steps, verbose=verbose, stateless_metrics=set())
        step = 0
        for step, batch in enumerate(data.epoch(), start=1):
            cbs.on_predict_batch_begin(step - 1)
            out = predict_fn(batch)
            outs.append(nest.map_structure(lambda t: np.asarray(t), out))
            cbs.on_predict_batch_end(step - 1, {"outputs": out})
            bar.update(step, finalize=False)
        bar.target = step
        bar.update(step, finalize=True)
        cbs.on_predict_end()
        if not outs:
            raise ValueError("Unexpected result of `predict_function` (Empty batch_outputs). "
                             "Please use `Model.compile(..., run_eagerly=True)`, or "
                             "`tw.config.run_functions_eagerly(True)` for more information.")
        return nest.map_structure(lambda *xs: np.concatenate(xs, axis=0), *outs)

    def train_on_batch(self, x, y=None, sample_weight=None, class_weight=None,
                       reset_metrics: bool = True, return_dict: bool = False) -> Any:
        """One training step on one batch.

        Args:
            x: the inputs.
            y: the targets.
            sample_weight: per-sample weights.
            class_weight: unsupported.
            reset_metrics: reset metrics first (results cover this batch only).
            return_dict: return a dict.

        Returns:
            The loss, ``[loss, metric...]``, or a dict.
        """
        return self._run_on_batch(self.make_train_function, _batch_tuple(x, y, sample_weight),
                                   reset_metrics, return_dict)

    def test_on_batch(self, x, y=None, sample_weight=None, reset_metrics: bool = True,
                      return_dict: bool = False) -> Any:
        """Evaluates one batch.

        Args:
            x: the inputs.
            y: the targets.
            sample_weight: per-sample weights.
            reset_metrics: reset metrics first.
            return_dict: return a dict.

        Returns:
            The loss, ``[loss, metric...]``, or a dict.
        """
        return self._run_on_batch(self.make_test_function, _batch_tuple(x, y, sample_weight),
                                  reset_metrics, return_dict)

    def _run_on_batch(self, make_function, batch, reset_metrics: bool, return_dict: bool):
        """train_on_batch's and test_on_batch's step: one call of the (train or test) step
        function on ``batch``, after resetting the metrics if asked."""
        self._check_compiled()
        if reset_metrics:
            self.reset_metrics()
        return self._format_logs(_to_floats(make_function()(batch)), return_dict)

    def predict_on_batch(self, x) -> Any:
        """The model's outputs on one batch, as NumPy arrays.

        Args:
            x: the inputs.

        Returns:
            The predictions.
        """
        out = self.make_predict_function()(_batch_tuple(x, None, None))
        return nest.map_structure(lambda t: np.asarray(t), out)

    def _format_logs(self, logs: dict, return_dict: bool):
        if return_dict:
            return logs
        values = [logs[m.name] for m in self.metrics if m.name in logs]
        return values[0] if len(values) == 1 else values

