"""Keras models: ``Model`` (functional and subclassed), ``Sequential``, and the training loop.

``fit`` runs ``train_step`` (forward pass under a GradientTape, loss, ``apply_gradients``,
metric updates) once per batch. Unless ``compile(run_eagerly=True)`` it wraps ``train_step`` in
``tw.function``, so the step is traced once into a graph, optimized and compiled, and every
later batch runs the compiled graph: the user-facing form of the eager/graph switch.
"""
from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Any

import numpy as np

from ..autodiff.tape import GradientTape
from ..core import nest
from ..core.context import ctx
from ..core.shapes import TensorShape
from ..eager.execute import convert_to_tensor
from ..eager.tensor import EagerTensor
from ..function.function import function as _tw_function
from ..graph.tensor import Tensor
from ..ops import array_ops, math_ops
from ..ops.variables import Variable
from ..train import checkpoint as _ckpt
from . import callbacks as _callbacks
from . import compile_utils as _compile_utils
from . import losses as _losses
from . import metrics as _metrics
from . import optimizers as _optimizers
from . import saving as _saving
from .layers.base import InputLayer, KerasTensor, Layer, _call_accepts, symbolic_call
from .utils import Progbar


def _is_dataset(x) -> bool:
    return hasattr(x, "_tw_dataset_iter")


class Model(Layer):
    """A layer with training: ``compile``, ``fit``, ``evaluate``, ``predict``, weights I/O.

    ``Model(inputs, outputs)`` builds a functional model from KerasTensors; subclasses define
    layers in ``__init__`` and the forward pass in ``call(inputs, training=None)``.

    Args:
        inputs: the functional model's Input(s).
        outputs: the KerasTensor(s) computed from them.
        name: the model name.
        **kwargs: Layer arguments.
    """

    def __init__(self, *args, **kwargs) -> None:
        inputs = kwargs.pop("inputs", args[0] if len(args) > 0 else None)
        outputs = kwargs.pop("outputs", args[1] if len(args) > 1 else None)
        super().__init__(name=kwargs.pop("name", None), trainable=kwargs.pop("trainable", True),
                         **{k: v for k, v in kwargs.items() if k in ("dtype",)})
        self._tw_functional = inputs is not None and outputs is not None
        self._tw_layer_list: list = []
        self._tw_compiled = False
        self._tw_optimizer = None
        self._tw_loss = None
        self._tw_loss_fn = None
        self._tw_compiled_metrics: list = []
        self._tw_loss_tracker = None
        self._tw_run_eagerly = False
        self._tw_train_fn = None
        self._tw_test_fn = None
        self._tw_predict_fn = None
        self._tw_history = None
        self._tw_stop = False
        if self._tw_functional:
            self._init_functional(inputs, outputs)

    # ----- functional -----
    def _init_functional(self, inputs, outputs) -> None:
        self._tw_inputs = inputs
        self._tw_outputs = outputs
        flat_in = nest.flatten(inputs)
        flat_out = nest.flatten(outputs)
        for t in flat_in + flat_out:
            if not isinstance(t, KerasTensor):
                raise TypeError(f"Model(inputs, outputs) needs KerasTensors (from "
                                f"tw.keras.Input and layers called on them), got {t!r}")
        nodes: list = []
        seen: set = set()

        def visit(t: KerasTensor) -> None:
            node = t._node
            if node is None or id(node) in seen:
                return
            for p in node.parents:
                visit(p)
            seen.add(id(node))
            nodes.append(node)
        for t in flat_out:
            visit(t)
        input_ids = {id(t) for t in flat_in}
        for node in nodes:
            for p in node.parents:
                if p._node is None and id(p) not in input_ids:
                    raise ValueError(f"Graph disconnected: cannot obtain value for tensor {p} "
                                     f"at layer {node.layer.name!r}. It is not among the "
                                     "model's inputs.")
        self._tw_nodes_order = nodes
        layers: list = [t._layer for t in flat_in if isinstance(t._layer, InputLayer)]
        for node in nodes:
            if not any(node.layer is x for x in layers):
                layers.append(node.layer)
        self._tw_layer_list = layers
        self.built = True
        self._tw_output_shape = nest.map_structure(
            lambda t: tuple(t.shape.as_list()), outputs)

    def _run_functional(self, inputs, training):
        flat_in = nest.flatten(self._tw_inputs)
        values = nest.flatten(inputs) if not isinstance(inputs, dict) or \
            not isinstance(self._tw_inputs, dict) else \
            nest.flatten({k: inputs[k] for k in self._tw_inputs})
        if len(values) != len(flat_in):
            raise ValueError(f"Model {self.name!r} expects {len(flat_in)} input(s), but it "
                             f"received {len(values)} input tensors.")
        env = {id(k): v for k, v in zip(flat_in, values)}

        def lookup(x):
            return env[id(x)] if isinstance(x, KerasTensor) else x
        for node in self._tw_nodes_order:
            args, kwargs = nest.map_structure(lookup, (node.args, node.kwargs))
            kwargs = dict(kwargs)
            if "training" not in kwargs and _call_accepts(type(node.layer), "training"):
                kwargs["training"] = training
            out = node.layer(*args, **kwargs)
            for k, v in zip(nest.flatten(node.outputs), nest.flatten(out)):
                env[id(k)] = v
        return nest.map_structure(lookup, self._tw_outputs)

    def call(self, inputs, training=None, mask=None) -> Any:
        """The forward pass (functional models run their layer graph; subclasses override).

        Args:
            inputs: the input tensor(s).
            training: whether the model is training (Dropout, BatchNormalization).
            mask: ignored.

        Returns:
            The output tensor(s).
        """
        if self._tw_functional:
            return self._run_functional(inputs, training)
        raise NotImplementedError(f"Model {type(self).__name__} must implement call() (or be "
                                  "built as Model(inputs, outputs)).")

    def _maybe_build(self, inputs) -> None:
        if type(self).build is Model.build:
            shapes = nest.map_structure(lambda t: getattr(t, "shape", None), inputs)
            self._tw_input_shape = shapes
            self.built = True
            _ckpt.apply_deferred(self)
            return
        super()._maybe_build(inputs)

    def build(self, input_shape) -> None:
        """Builds a subclassed model by calling it on symbolic inputs of ``input_shape``.

        Args:
            input_shape: the input shape including the batch dimension.
        """
        if self._tw_functional or input_shape is None:
            self.built = True
            return
        spec = KerasTensor(TensorShape(input_shape))
        symbolic_call(lambda x: self(x), (spec,), {})
        self.built = True

    # ----- layers -----
    @property
    def layers(self) -> list:
        """The model's layers (functional: including InputLayers)."""
        if self._tw_functional:
            return list(self._tw_layer_list)
        return [x for x in self._tracked_layers() if isinstance(x, Layer)
                and not isinstance(x, _metrics.Metric)]

    def get_layer(self, name: str | None = None, index: int | None = None) -> Layer:
        """A layer by name or index.

        Args:
            name: the layer name.
            index: the layer index.

        Returns:
            The layer.
        """
        if index is not None:
            return self.layers[index]
        for layer in self.layers:
            if layer.name == name:
                return layer
        raise ValueError(f"No such layer: {name}. Existing layers are: "
                         f"{[x.name for x in self.layers]}.")

    def _tracked_layers(self) -> list:
        base = super()._tracked_layers()
        listed = [x for x in self._tw_layer_list if not any(x is b for b in base)]
        return listed + base

    def _trackable_children(self) -> dict:
        out: dict = {}
        for i, layer in enumerate(self._tw_layer_list):
            out[f"layer-{i}"] = layer
        out.update(super()._trackable_children())
        return out

    @property
    def inputs(self):
        return self._tw_inputs if self._tw_functional else None

    @property
    def outputs(self):
        return self._tw_outputs if self._tw_functional else None

    # ----- summary -----
    def summary(self, line_length: int | None = None, positions=None, print_fn=None,
                expand_nested: bool = False, show_trainable: bool = False) -> None:
        """Prints the layers, their output shapes and parameter counts.

        Args:
            line_length: the table width (65 by default).
            positions: accepted for compatibility.
            print_fn: called with each line (default ``print``).
            expand_nested: accepted for compatibility.
            show_trainable: accepted for compatibility.
        """
        if not self.built:
            raise ValueError("This model has not yet been built. Build the model first by "
                             "calling `build()` or by calling the model on a batch of data.")
        out = print_fn or print
        width = line_length or 80
        cols = [int(width * 0.45), int(width * 0.8)]

        def row(a: str, b: str, c: str) -> str:
            line = a[: cols[0] - 1].ljust(cols[0]) + b[: cols[1] - cols[0] - 1].ljust(
                cols[1] - cols[0]) + c
            return " " + line
        out(f'Model: "{self.name}"')
        out("_" * width)
        out(row("Layer (type)", "Output Shape", "Param #"))
        out("=" * width)
        layers = self.layers
        for i, layer in enumerate(layers):
            shape = layer._tw_output_shape
            text = "multiple" if shape is None or (not self._tw_functional and
                                                   not isinstance(self, Sequential)) \
                else str(_shape_text(shape))
            if isinstance(layer, InputLayer):
                text = str([tuple(layer._tw_batch_input_shape)])
            out(row(f"{layer.name} ({type(layer).__name__})", text,
                    f"{layer.count_params():,}"))
            if i < len(layers) - 1:
                out("")
        out("=" * width)
        trainable = int(sum(int(np.prod(v.shape.as_list())) for v in self.trainable_weights))
        total = self.count_params()
        out(f"Total params: {total:,}")
        out(f"Trainable params: {trainable:,}")
        out(f"Non-trainable params: {total - trainable:,}")
        out("_" * width)

    # ----- compile -----
    def compile(self, optimizer="rmsprop", loss=None, metrics=None, loss_weights=None,
                weighted_metrics=None, run_eagerly=None, steps_per_execution=None,
                jit_compile=None, **kwargs) -> None:
        """Configures the model for training.

        Args:
            optimizer: an Optimizer or a name (``'adam'``).
            loss: a Loss, loss function or name (``'sparse_categorical_crossentropy'``); for a
                model with several outputs, one for all, a list (one per output) or a dict
                keyed by output name.
            metrics: metric names, functions or Metric objects (``['accuracy']``); with several
                outputs a flat list (each output gets each), a list of lists or a dict keyed
                by output name.
            loss_weights: with several outputs, a list or dict of weights of the outputs'
                losses in the total loss.
            weighted_metrics: accepted and treated as metrics.
            run_eagerly: True to run ``train_step`` eagerly instead of as a ``tw.function``.
            steps_per_execution: accepted for compatibility.
            jit_compile: accepted for compatibility.
            **kwargs: ignored.
        """
        self._tw_optimizer = _optimizers.get(optimizer)
        self._tw_loss = loss
        self._tw_loss_tracker = _metrics.Mean(name="loss")
        names = _compile_utils.output_names_of(self)
        self._tw_outputs_cfg = None
        self._tw_last_output_losses = None
        if names is not None and len(names) > 1:
            self._tw_outputs_cfg = _compile_utils.OutputsConfig(
                names, loss, metrics, loss_weights, weighted_metrics)
            self._tw_loss_fn = None
            self._tw_compiled_metrics = []
        elif names is None and isinstance(loss, (list, tuple, dict)):
            # A subclassed model with several outputs: configured on its first call.
            self._tw_loss_fn = None
            self._tw_compiled_metrics = []
        else:
            single = _compile_utils.unwrap_single(loss, names)
            fn = _losses.get(single)
            if fn is not None and not isinstance(fn, _losses.Loss):
                fn = _losses.LossFunctionWrapper(fn, name=getattr(fn, "__name__", "loss"))
            self._tw_loss_fn = fn
            ms = [_compile_utils.unwrap_single(m, names, metrics=True)
                  for m in (metrics, weighted_metrics)]
            if any(isinstance(m, dict) for m in ms):
                raise ValueError(f"metrics dict {ms} for a model whose outputs are unknown: "
                                 "call the model (or use a functional model) first")
            ms = [m if isinstance(m, (list, tuple)) or m is None else [m] for m in ms]
            self._tw_compiled_metrics = [_metrics.get(m, single)
                                         for m in list(ms[0] or []) + list(ms[1] or [])]
        self._tw_run_eagerly = bool(run_eagerly)
        self._tw_compile_args = {"loss": loss, "metrics": metrics, "loss_weights": loss_weights,
                                 "weighted_metrics": weighted_metrics}
        self._tw_compiled = True
        self._tw_train_fn = self._tw_test_fn = self._tw_predict_fn = None

    @property
    def optimizer(self):
        """The compiled optimizer."""
        return self._tw_optimizer

    @optimizer.setter
    def optimizer(self, value) -> None:
        self._tw_optimizer = value
        self._tw_train_fn = None

    @property
    def loss(self):
        """The loss given to ``compile``."""
        return self._tw_loss

    @property
    def compiled_loss(self):
        return self._tw_loss_fn

    @property
    def run_eagerly(self) -> bool:
        """Whether ``fit`` runs its step eagerly (also when functions run eagerly globally)."""
        return self._tw_run_eagerly or ctx.run_functions_eagerly

    @run_eagerly.setter
    def run_eagerly(self, value: bool) -> None:
        self._tw_run_eagerly = bool(value)
        self._tw_train_fn = self._tw_test_fn = self._tw_predict_fn = None

    @property
    def metrics(self) -> list:
        """The loss tracker and the compiled metrics."""
        out = [self._tw_loss_tracker] if self._tw_loss_tracker is not None else []
        cfg = getattr(self, "_tw_outputs_cfg", None)
        out += cfg.all_metrics if cfg is not None else self._tw_compiled_metrics
        for sub in self._tracked_layers():
            if isinstance(sub, _metrics.Metric) and not any(sub is m for m in out):
                out.append(sub)
        return out

    @property
    def metrics_names(self) -> list:
        return [m.name for m in self.metrics]

    @property
    def history(self):
        return self._tw_history

    @history.setter
    def history(self, value) -> None:
        self._tw_history = value

    @property
    def stop_training(self) -> bool:
        return self._tw_stop

    @stop_training.setter
    def stop_training(self, value: bool) -> None:
        self._tw_stop = bool(value)

    def reset_metrics(self) -> None:
        """Resets every metric's state."""
        for m in self.metrics:
            m.reset_state()

    # ----- steps -----
    def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None) -> Tensor:
        """The compiled loss plus any losses added by layers.

        Args:
            x: the inputs.
            y: the targets.
            y_pred: the predictions.
            sample_weight: per-sample weights.

        Returns:
            A scalar tensor.
        """
        cfg = self._outputs_config(y_pred)
        if cfg is not None:
            loss, self._tw_last_output_losses = cfg.compute_loss(y, y_pred, sample_weight)
            if loss is None:
                if not self.losses:
                    raise ValueError("No loss to compute. Provide a `loss` argument in "
                                     "`compile()` for at least one output.")
                return math_ops.add_n(self.losses)
            extra = self.losses
            return math_ops.add_n([loss] + list(extra)) if extra else loss
        if self._tw_loss_fn is None:
            if not self.losses:
                raise ValueError("No loss to compute. Provide a `loss` argument in "
                                 "`compile()`.")
            return math_ops.add_n(self.losses)
        loss = self._tw_loss_fn(y, y_pred, sample_weight)
        extra = self.losses
        if extra:
            loss = math_ops.add_n([loss] + list(extra))
        return loss

    def compute_metrics(self, x, y, y_pred, sample_weight=None) -> dict:
        """Updates the compiled metrics and returns every metric's result.

        Args:
            x: the inputs.
            y: the targets.
            y_pred: the predictions.
            sample_weight: per-sample weights.

        Returns:
            A dict of metric name -> result tensor.
        """
        cfg = self._outputs_config(y_pred)
        if cfg is not None:
            cfg.update_metrics(y, y_pred, sample_weight)
        else:
            for m in self._tw_compiled_metrics:
                m.update_state(y, y_pred, sample_weight=sample_weight)
        return {m.name: m.result() for m in self.metrics}

    def _outputs_config(self, y_pred):
        """The per-output losses and metrics (created on the first call of a subclassed model
        with several outputs), or None for a one-output model."""
        cfg = getattr(self, "_tw_outputs_cfg", None)
        if cfg is not None or not self._tw_compiled or self._tw_functional:
            return cfg
        args = getattr(self, "_tw_compile_args", None) or {}
        structured = isinstance(args.get("loss"), (list, tuple, dict))
        if len(nest.flatten(y_pred)) > 1 or structured:
            names = _compile_utils.names_for_predictions(y_pred)
            cfg = _compile_utils.OutputsConfig(names, args.get("loss"), args.get("metrics"),
                                               args.get("loss_weights"),
                                               args.get("weighted_metrics"))
            self._tw_outputs_cfg = cfg
            self._tw_compiled_metrics = []
        return cfg

    @property
    def output_names(self) -> list | None:
        """The names of the outputs (their layers' names) of a functional model."""
        cfg = getattr(self, "_tw_outputs_cfg", None)
        return list(cfg.names) if cfg is not None else _compile_utils.output_names_of(self)

    def _track_loss(self, loss, y_pred) -> None:
        if self._tw_loss_tracker is not None:
            batch = _batch_size(y_pred)
            self._tw_loss_tracker.update_state(loss, sample_weight=batch)
            cfg = getattr(self, "_tw_outputs_cfg", None)
            per = getattr(self, "_tw_last_output_losses", None)
            if cfg is not None and per is not None:
                for tracker, value in zip(cfg.loss_trackers, per):
                    if tracker is not None and value is not None:
                        tracker.update_state(value, sample_weight=batch)

    def train_step(self, data) -> dict:
        """One optimization step on a batch: forward, loss, gradients, update, metrics.

        Args:
            data: ``(x, y)`` or ``(x, y, sample_weight)``.

        Returns:
            A dict of metric name -> value.
        """
        x, y, sw = unpack_x_y_sample_weight(data)
        with GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.compute_loss(x, y, y_pred, sw)
        variables = self.trainable_variables
        grads = tape.gradient(loss, variables)
        self._tw_optimizer.apply_gradients(zip(grads, variables))
        self._track_loss(loss, y_pred)
        return self.compute_metrics(x, y, y_pred, sw)

    def test_step(self, data) -> dict:
        """Evaluates a batch: forward pass, loss, metric updates.

        Args:
            data: ``(x, y)`` or ``(x, y, sample_weight)``.

        Returns:
            A dict of metric name -> value.
        """
        x, y, sw = unpack_x_y_sample_weight(data)
        y_pred = self(x, training=False)
        loss = self.compute_loss(x, y, y_pred, sw)
        self._track_loss(loss, y_pred)
        return self.compute_metrics(x, y, y_pred, sw)

    def predict_step(self, data) -> Any:
        """The model's output on a batch.

        Args:
            data: ``x`` or ``(x,)``.

        Returns:
            The predictions.
        """
        x, _, _ = unpack_x_y_sample_weight(data)
        return self(x, training=False)

    def _wrap(self, step):
        if self.run_eagerly:
            return step
        return _tw_function(step, reduce_retracing=True)

    def make_train_function(self, force: bool = False) -> Callable[..., Any]:
        """The per-batch training callable (a ``tw.function`` unless run eagerly).

        Args:
            force: rebuild it even if one exists.

        Returns:
            The callable.
        """
        if self._tw_train_fn is None or force:
            self._tw_train_fn = self._wrap(self.train_step)
        return self._tw_train_fn

    def make_test_function(self, force: bool = False) -> Callable[..., Any]:
        """The per-batch evaluation callable.

        Args:
            force: rebuild it even if one exists.

        Returns:
            The callable.
        """
        if self._tw_test_fn is None or force:
            self._tw_test_fn = self._wrap(self.test_step)
        return self._tw_test_fn

    def make_predict_function(self, force: bool = False) -> Callable[..., Any]:
        """The per-batch prediction callable.

        Args:
            force: rebuild it even if one exists.

        Returns:
            The callable.
        """
        if self._tw_predict_fn is None or force:
            self._tw_predict_fn = self._wrap(self.predict_step)
        return self._tw_predict_fn

    def _check_compiled(self) -> None:
        if not self._tw_compiled:
            raise RuntimeError("You must compile your model before training/testing. Use "
                               "`model.compile(optimizer, loss)`.")

    # ----- loops -----
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
            **kwargs: ignored (``_epoch_header=False`` hides the "Epoch i/n" line).

        Returns:
            The History callback (``history.history`` maps names to per-epoch values).
        """
        self._check_compiled()
        if class_weight is not None:
            if _is_dataset(x):
                raise NotImplementedError("class_weight with a Dataset is not supported; "
                                          "yield (x, y, sample_weight) instead")
            sample_weight = _class_weights(y, class_weight, sample_weight)
        verbose = 1 if verbose == "auto" else int(verbose)
        if validation_split and validation_data is None:
            if _is_dataset(x):
                raise ValueError("validation_split is not supported for Dataset inputs")
            (x, y, sample_weight), validation_data = _split(x, y, sample_weight,
                                                           validation_split)
        data = DataHandler(x, y, sample_weight, batch_size, shuffle, steps_per_epoch)
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
        logs: dict = {}
        for epoch in range(initial_epoch, epochs):
            self.reset_metrics()
            cbs.on_epoch_begin(epoch)
            if verbose and kwargs.get("_epoch_header", True):
                print(f"Epoch {epoch + 1}/{epochs}")
                sys.stdout.flush()
            bar = Progbar(data.steps, verbose=verbose)
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
                val_logs = self._evaluate_handler(val)
                epoch_logs.update({f"val_{k}": v for k, v in val_logs.items()})
            bar.target = step if data.steps is None else data.steps
            bar.update(step, epoch_logs, finalize=True)
            cbs.on_epoch_end(epoch, epoch_logs)
            logs = epoch_logs
            if self._tw_stop:
                break
        cbs.on_train_end(logs)
        return history

    def _evaluate_handler(self, data: DataHandler, callbacks=None, verbose: int = 0) -> dict:
        test_fn = self.make_test_function()
        self.reset_metrics()
        bar = Progbar(data.steps, verbose=verbose)
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
            **kwargs: ignored.

        Returns:
            The loss (a float) when there are no metrics, else ``[loss, metric...]``, or the
            dict.
        """
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

    def predict(self, x, batch_size=None, verbose="auto", steps=None, callbacks=None,
                **kwargs) -> Any:
        """The model's outputs for every sample, as NumPy arrays.

        Args:
            x: inputs or a Dataset.
            batch_size: samples per step.
            verbose: 0 or 1.
            steps: how many batches.
            callbacks: Callback objects.
            **kwargs: ignored.

        Returns:
            The predictions (arrays in the structure of the model's outputs).
        """
        verbose = 0 if verbose == "auto" else int(verbose)
        data = DataHandler(x, None, None, batch_size, False, steps)
        predict_fn = self.make_predict_function()
        cbs = _callbacks.CallbackList(callbacks, model=self, params={"steps": data.steps})
        cbs.on_predict_begin()
        outs: list = []
        bar = Progbar(data.steps, verbose=verbose)
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
        self._check_compiled()
        if reset_metrics:
            self.reset_metrics()
        batch = _batch_tuple(x, y, sample_weight)
        logs = _to_floats(self.make_train_function()(batch))
        return self._format_logs(logs, return_dict)

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
        self._check_compiled()
        if reset_metrics:
            self.reset_metrics()
        logs = _to_floats(self.make_test_function()(_batch_tuple(x, y, sample_weight)))
        return self._format_logs(logs, return_dict)

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

    # ----- weights I/O -----
    def save_weights(self, filepath: str, overwrite: bool = True, save_format=None,
                     options=None) -> None:
        """Writes the model's variables as a checkpoint (``filepath.npz`` + index JSON).

        Args:
            filepath: the checkpoint prefix.
            overwrite: accepted (always overwrites).
            save_format: accepted for compatibility.
            options: ignored.
        """
        path = os.fspath(filepath)
        arrays = {p: v.numpy() for p, v in _ckpt.collect_variables(self).items()}
        prefix = _ckpt.write_arrays(path, arrays)
        directory = os.path.dirname(prefix) or "."
        _ckpt.update_checkpoint_state(directory, prefix)

    def load_weights(self, filepath: str, skip_mismatch: bool = False, by_name: bool = False,
                     options=None) -> _ckpt.LoadStatus:
        """Restores variables saved by ``save_weights`` (deferred for unbuilt layers).

        Args:
            filepath: the checkpoint prefix (or a directory with a ``checkpoint`` file).
            skip_mismatch: unsupported (mismatches raise).
            by_name: unsupported.
            options: ignored.

        Returns:
            A load status.
        """
        path = os.fspath(filepath)
        if os.path.isdir(path):
            path = _ckpt.latest_checkpoint(path) or path
        values = _ckpt.read_arrays(path)
        return _ckpt.restore_into(self, values)

    def save(self, filepath: str, overwrite: bool = True, save_format=None, **kwargs) -> None:
        """Saves the whole model: architecture, weights, compile config and optimizer state.

        A path ending in ``.keras`` gets one zip file (Keras 3's format: ``config.json``,
        ``model.weights.npz``, ``metadata.json``), any other path a directory of those files.
        Both are written atomically and hold no pickled or executable data. Reload with
        ``tw.keras.models.load_model``.

        Args:
            filepath: the ``.keras`` file or the directory.
            overwrite: replace an existing file (False raises if it exists).
            save_format: accepted for compatibility.
            **kwargs: ignored.
        """
        _saving.save_model(self, filepath, overwrite=overwrite)

    def to_json(self, **kwargs) -> str:
        """The architecture as JSON (``tw.keras.models.model_from_json`` rebuilds it).

        Args:
            **kwargs: passed to ``json.dumps``.

        Returns:
            The JSON text.
        """
        return _saving.model_to_json(self, **kwargs)

    def get_config(self) -> dict:
        """The model's config: layers and their connections for functional models.

        Returns:
            A JSON-serializable dict.
        """
        if self._tw_functional:
            return _saving.functional_config(self)
        return {"name": self.name}

    @classmethod
    def from_config(cls, config: dict, custom_objects: dict | None = None) -> Model:
        """Rebuilds a model from ``get_config()``'s output (functional: layers and graph).

        Args:
            config: the config.
            custom_objects: name -> class or function for custom objects.

        Returns:
            The model.
        """
        with _saving.custom_object_scope(custom_objects):
            if "input_layers" in config and "layers" in config:
                return _saving.functional_from_config(cls, config)
            return cls(**config)

    def __deepcopy__(self, memo):
        raise TypeError("Keras models cannot be deep-copied; use "
                        "tw.keras.models.clone_model")


def _shape_text(shape):
    if isinstance(shape, list) and shape and all(isinstance(s, (list, tuple)) or s is None
                                                 for s in shape):
        return [tuple(s) if s is not None else None for s in shape]
    return tuple(shape) if isinstance(shape, (list, tuple)) else shape


class Sequential(Model):
    """A linear stack of layers (``tw.keras.Sequential``).

    Args:
        layers: the layers, in order.
        name: the model name.
    """

    def __init__(self, layers=None, name: str | None = None) -> None:
        super().__init__(name=name)
        self._tw_input_batch_shape = None
        self._tw_input_dtype = None
        for layer in layers or []:
            self.add(layer)

    def add(self, layer) -> None:
        """Appends a layer (an ``Input``/``InputLayer`` sets the input shape instead).

        Args:
            layer: a Layer, InputLayer or KerasTensor from ``Input``.
        """
        if isinstance(layer, KerasTensor):
            layer = layer._layer
        if isinstance(layer, InputLayer):
            self._tw_input_batch_shape = tuple(layer._tw_batch_input_shape)
            self._tw_input_dtype = layer._tw_dtype
            self._tw_build_now()
            return
        if not isinstance(layer, Layer) and not isinstance(layer, Model):
            raise TypeError(f"The added layer must be an instance of class Layer. Received: "
                            f"layer={layer} of type {type(layer)}.")
        if any(layer is x for x in self._tw_layer_list):
            raise ValueError(f"Layer {layer.name!r} is already in the model")
        self._tw_layer_list.append(layer)
        if len(self._tw_layer_list) == 1 and self._tw_input_batch_shape is None and \
                layer._tw_batch_input_shape is not None:
            self._tw_input_batch_shape = tuple(layer._tw_batch_input_shape)
        self._tw_train_fn = self._tw_test_fn = self._tw_predict_fn = None
        self._tw_build_now()

    def pop(self) -> Layer:
        """Removes and returns the last layer.

        Returns:
            The removed layer.
        """
        if not self._tw_layer_list:
            raise TypeError("There are no layers in the model.")
        layer = self._tw_layer_list.pop()
        self._tw_train_fn = self._tw_test_fn = self._tw_predict_fn = None
        return layer

    def _tw_build_now(self) -> None:
        if self._tw_input_batch_shape is not None and self._tw_layer_list:
            self.build(self._tw_input_batch_shape)

    @property
    def layers(self) -> list:
        return list(self._tw_layer_list)

    def _maybe_build(self, inputs) -> None:
        shapes = nest.map_structure(lambda t: getattr(t, "shape", None), inputs)
        shape = shapes if isinstance(shapes, TensorShape) else None
        if shape is not None and shape.rank is not None:
            # Keep the batch dimension free so any batch size runs.
            self.build((None,) + tuple(shape.as_list()[1:]))
        else:
            self.built = True
        _ckpt.apply_deferred(self)

    def build(self, input_shape=None) -> None:
        """Builds every layer for inputs of ``input_shape`` (batch dimension included).

        Args:
            input_shape: the input shape; by default the first layer's ``input_shape``.
        """
        shape = input_shape if input_shape is not None else self._tw_input_batch_shape
        if shape is None:
            raise ValueError("You must provide an `input_shape` argument.")
        if self._tw_input_batch_shape is None:
            self._tw_input_batch_shape = tuple(TensorShape(shape).as_list())
        x = KerasTensor(TensorShape(shape), self._tw_input_dtype or "float32")
        self._tw_input_shape = tuple(TensorShape(shape).as_list())
        for layer in self._tw_layer_list:
            spec = symbolic_call(layer.__call__, (x,), {})
            out_shape, dt = spec
            x = KerasTensor(out_shape, dt)
        self._tw_output_shape = tuple(x.shape.as_list())
        self.built = True

    def call(self, inputs, training=None, mask=None) -> Any:
        x = inputs
        for layer in self._tw_layer_list:
            if training is not None and _call_accepts(type(layer), "training"):
                x = layer(x, training=training)
            else:
                x = layer(x)
        return x

    def get_config(self) -> dict:
        """The model's name, its layers' configs and the input shape it was built for.

        Returns:
            A dict.
        """
        cfg = {"name": self.name, "layers": [_saving.serialize_layer(x)
                                             for x in self._tw_layer_list]}
        if self._tw_input_batch_shape is not None:
            cfg["build_input_shape"] = list(self._tw_input_batch_shape)
        if self._tw_input_dtype is not None:
            cfg["input_dtype"] = str(getattr(self._tw_input_dtype, "name", self._tw_input_dtype))
        return cfg

    @classmethod
    def from_config(cls, config: dict, custom_objects: dict | None = None) -> Sequential:
        """Rebuilds a Sequential model (built if it was) from ``get_config()``'s output.

        Args:
            config: the config.
            custom_objects: name -> class or function for custom layers.

        Returns:
            The model.
        """
        with _saving.custom_object_scope(custom_objects):
            model = cls(name=config.get("name"))
            if config.get("input_dtype"):
                model._tw_input_dtype = config["input_dtype"]
            for entry in config.get("layers", []):
                model.add(_saving.deserialize_layer(entry))
            if config.get("build_input_shape") is not None:
                model.build(tuple(config["build_input_shape"]))
        return model


# ---------------------------------------------------------------------------------------------
# Data

def unpack_x_y_sample_weight(data) -> tuple:
    """Splits a batch into ``(x, y, sample_weight)`` (missing parts are None).

    Args:
        data: ``x``, ``(x,)``, ``(x, y)`` or ``(x, y, sample_weight)``.

    Returns:
        A triple.
    """
    if isinstance(data, list):
        data = tuple(data)
    if not isinstance(data, tuple):
        return data, None, None
    if len(data) == 1:
        return data[0], None, None
    if len(data) == 2:
        return data[0], data[1], None
    if len(data) == 3:
        return data
    raise ValueError(f"Data is expected to be in format `x`, `(x,)`, `(x, y)`, or "
                     f"`(x, y, sample_weight)`, found: {data}")


def _class_weights(y, class_weight: dict, sample_weight):
    labels = _as_array(y)
    if labels.ndim > 1 and labels.shape[-1] > 1:
        labels = labels.argmax(axis=-1)
    labels = labels.reshape(len(labels), -1)[:, 0].astype(np.int64)
    table = np.ones(max(int(labels.max()) + 1, max(class_weight) + 1), np.float32)
    for k, w in class_weight.items():
        table[int(k)] = w
    weights = table[labels]
    if sample_weight is not None:
        weights = weights * _as_array(sample_weight).astype(np.float32)
    return weights


def _to_floats(logs) -> dict:
    return {k: float(np.asarray(v)) for k, v in logs.items()}


def _batch_size(t):
    flat = nest.flatten(t)
    first = flat[0]
    dims = first.shape.as_list() if first.shape.rank else [None]
    if dims and dims[0] is not None:
        return float(dims[0])
    return math_ops.cast(array_ops.shape(first)[0], "float32")


def _as_array(x):
    if isinstance(x, Variable):
        return x.numpy()
    if isinstance(x, EagerTensor):
        return x._value
    arr = np.asarray(x)
    if arr.dtype == np.float64:
        arr = arr.astype(np.float32)
    return arr


def _to_tensor(arr):
    return EagerTensor(np.ascontiguousarray(arr)) if isinstance(arr, np.ndarray) else \
        convert_to_tensor(arr)


def _batch_tuple(x, y, sw):
    conv = lambda v: nest.map_structure(lambda a: _to_tensor(_as_array(a)), v)  # noqa: E731
    parts = [conv(x)]
    if y is not None or sw is not None:
        parts.append(conv(y) if y is not None else None)
    if sw is not None:
        parts.append(conv(sw))
    return tuple(parts) if len(parts) > 1 else (parts[0],)


def _split(x, y, sw, fraction: float):
    xs = nest.map_structure(_as_array, x)
    n = len(nest.flatten(xs)[0])
    cut = int(n * (1.0 - fraction))
    take = lambda s, a, b: None if s is None else nest.map_structure(  # noqa: E731
        lambda v: _as_array(v)[a:b], s)
    train = (take(xs, 0, cut), take(y, 0, cut), take(sw, 0, cut))
    val = (take(xs, cut, n), take(y, cut, n)) + ((take(sw, cut, n),) if sw is not None else ())
    return train, val


class DataHandler:
    """Turns arrays or a Dataset into per-epoch iterators of batches of tensors.

    Args:
        x: arrays/tensors (or a structure of them) or a Dataset.
        y: targets (None for a Dataset or prediction).
        sample_weight: per-sample weights.
        batch_size: samples per batch (32 by default).
        shuffle: shuffle arrays each epoch.
        steps: batches per epoch (None: one full pass).
    """

    def __init__(self, x, y, sample_weight, batch_size, shuffle: bool, steps) -> None:
        self._dataset = x if _is_dataset(x) else None
        self._steps_arg = steps
        if self._dataset is not None:
            if y is not None:
                raise ValueError("`y` argument is not supported when using a Dataset as input.")
            if batch_size is not None:
                raise ValueError("The `batch_size` argument must not be specified when using "
                                 "a Dataset as input.")
            card = self._dataset.cardinality()
            n = int(np.asarray(card))
            self.steps = steps if steps is not None else (n if n >= 0 else None)
            self._iter = None
            return
        self._x = nest.map_structure(_as_array, x)
        self._y = None if y is None else nest.map_structure(_as_array, y)
        self._sw = None if sample_weight is None else nest.map_structure(_as_array,
                                                                         sample_weight)
        self._n = len(nest.flatten(self._x)[0])
        for part in (self._y, self._sw):
            if part is not None:
                for a in nest.flatten(part):
                    if len(a) != self._n:
                        raise ValueError(f"Data cardinality is ambiguous: x sizes: {self._n}, "
                                         f"y/sample_weight sizes: {len(a)}. Make sure all "
                                         "arrays contain the same number of samples.")
        self._batch = int(batch_size or 32)
        self._shuffle = shuffle
        full = -(-self._n // self._batch)
        self.steps = min(steps, full) if steps is not None else full

    def epoch(self):
        """Yields this epoch's batches.

        Yields:
            ``(x,)``, ``(x, y)`` or ``(x, y, sample_weight)`` tuples of tensors.
        """
        if self._dataset is not None:
            it = iter(self._dataset) if self._iter is None or self._steps_arg is None \
                else self._iter
            if self._steps_arg is not None:
                self._iter = it
            for i, batch in enumerate(it):
                yield batch if isinstance(batch, tuple) else (batch,)
                if self.steps is not None and i + 1 >= self.steps:
                    return
            if self._steps_arg is not None:
                self._iter = None
            return
        order = np.random.permutation(self._n) if self._shuffle else None
        for i in range(self.steps):
            lo, hi = i * self._batch, min((i + 1) * self._batch, self._n)
            idx = slice(lo, hi) if order is None else order[lo:hi]
            parts = [_take_rows(self._x, idx)]
            if self._y is not None or self._sw is not None:
                parts.append(_take_rows(self._y, idx))
            if self._sw is not None:
                parts.append(_take_rows(self._sw, idx))
            yield tuple(parts)


def _take_rows(structure, idx):
    if structure is None:
        return None
    return nest.map_structure(lambda a: _to_tensor(a[idx]), structure)


def load_model(filepath, custom_objects: dict | None = None, compile: bool = True,  # noqa: A002
               safe_mode: bool = True) -> Model:
    """Loads a model written by ``model.save`` (see ``twinflow.keras.saving.load_model``).

    Args:
        filepath: the ``.keras`` file or directory.
        custom_objects: name -> class or function for custom layers, subclassed models,
            losses and metrics.
        compile: compile the model as it was saved (with its optimizer state).
        safe_mode: accepted; twinflow never loads executable code.

    Returns:
        The model.
    """
    return _saving.load_model(filepath, custom_objects=custom_objects, compile=compile,
                              safe_mode=safe_mode)


def model_from_json(json_string: str, custom_objects: dict | None = None) -> Model:
    """Rebuilds a model (fresh weights) from ``model.to_json()``.

    Args:
        json_string: the JSON text.
        custom_objects: name -> class or function for custom objects.

    Returns:
        The model.
    """
    return _saving.model_from_json(json_string, custom_objects=custom_objects)


def clone_model(model: Model, input_tensors=None, clone_function=None) -> Model:
    """A new model with the same architecture and fresh weights (Sequential models).

    Args:
        model: a Sequential model.
        input_tensors: unsupported.
        clone_function: maps each layer to its clone (default: from its config).

    Returns:
        The clone.
    """
    if not isinstance(model, Sequential):
        raise NotImplementedError("clone_model supports Sequential models")
    fn = clone_function or (lambda layer: type(layer).from_config(
        {k: v for k, v in layer.get_config().items() if k != "name"}))
    clone = Sequential([fn(layer) for layer in model.layers])
    if model._tw_input_batch_shape is not None:
        clone.build(model._tw_input_batch_shape)
    return clone
