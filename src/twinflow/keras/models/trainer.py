"""Compiling a model and its per-batch steps: ``compile``, ``compute_loss``, ``train_step``...

``make_train_function`` wraps ``train_step`` in ``tw.function`` unless ``run_eagerly``, so the
step is traced once into a graph, optimized and compiled.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...autodiff.tape import GradientTape
from ...core import nest
from ...core.context import ctx
from ...core.props import readonly
from ...distribute import strategy as _distribute
from ...distribute import training as _distributed_training
from ...function.function import function as _tw_function
from ...graph.tensor import Tensor
from ...ops import math_ops
from .. import compile_utils as _compile_utils
from .. import losses as _losses
from .. import metrics as _metrics
from .. import mixed_precision as _mixed
from .. import optimizers as _optimizers
from ..declare import refuse_unknown, settable, with_args
from .data import _batch_size, unpack_x_y_sample_weight

_STEP_ARGS = {"data": "``(x, y)`` or ``(x, y, sample_weight)``.", "x": "the inputs.",
              "y": "the targets.", "y_pred": "the predictions.",
              "sample_weight": "per-sample weights."}


def _step_maker(kind: str, summary: str) -> Callable:
    """``Model.make_{kind}_function``: the callable kept for ``{kind}_step``, built on first
    use (``_step_function``)."""
    def make(self, force: bool = False) -> Callable[..., Any]:
        return self._step_function(f"_tw_{kind}_fn", getattr(self, f"{kind}_step"), force)
    make.__name__ = f"make_{kind}_function"
    make.__qualname__ = f"TrainerMixin.{make.__name__}"
    make.__doc__ = f"""{summary}

        Args:
            force: rebuild it even if one exists.

        Returns:
            The callable.
        """
    return make


class TrainerMixin:
    """Model's compile configuration, losses, metrics and per-batch steps."""

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
            **kwargs: none is recognised (raises TypeError, as Keras 3 has none).
        """
        refuse_unknown("compile", kwargs)
        self._tw_optimizer = _optimizers.get(optimizer)
        # Compiled under strategy.scope(): fit/evaluate/predict split batches over its replicas.
        self._tw_strategy = _distribute.get_strategy() if _distribute.has_strategy() else None
        policy = getattr(self, "_tw_policy", None)
        if policy is not None and policy.name == "mixed_float16" and \
                not isinstance(self._tw_optimizer, _mixed.LossScaleOptimizer):
            # As Keras: float16 gradients need loss scaling.
            self._tw_optimizer = _mixed.LossScaleOptimizer(self._tw_optimizer)
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

    loss = readonly("_tw_loss", "The loss given to ``compile``.")
    compiled_loss = readonly("_tw_loss_fn", "The loss ``compile`` made of it.")

    @property
    def run_eagerly(self) -> bool:
        """Whether ``fit`` runs its step eagerly (also when functions run eagerly globally, or
        when a layer was made with tf.keras 2's ``dynamic=True``)."""
        return self._tw_run_eagerly or ctx.run_functions_eagerly or self.dynamic

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

    history = settable("_tw_history", "The History of the last ``fit``.")
    stop_training = settable("_tw_stop", "Set (by a callback) to end ``fit``: checked after "
                             "each batch and epoch.", bool)

    def reset_metrics(self) -> None:
        """Resets every metric's state."""
        for m in self.metrics:
            m.reset_state()

    # ----- steps -----
    @with_args(_STEP_ARGS)
    def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None) -> Tensor:
        """The compiled loss plus any losses added by layers.

        Returns:
            A scalar tensor.
        """
        cfg = self._outputs_config(y_pred)
        if cfg is not None:
            loss, self._tw_last_output_losses = cfg.compute_loss(y, y_pred, sample_weight)
        else:
            loss = None if self._tw_loss_fn is None else \
                self._tw_loss_fn(y, y_pred, sample_weight)
        if loss is None:
            if not self.losses:
                raise ValueError("No loss to compute. Provide a `loss` argument in `compile()`"
                                 f"{'' if cfg is None else ' for at least one output'}.")
            return math_ops.add_n(self.losses)
        extra = self.losses
        return math_ops.add_n([loss] + list(extra)) if extra else loss

    @with_args(_STEP_ARGS)
    def compute_metrics(self, x, y, y_pred, sample_weight=None) -> dict:
        """Updates the compiled metrics and returns every metric's result.

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

    @with_args(_STEP_ARGS)
    def train_step(self, data) -> dict:
        """One optimization step on a batch: forward, loss, gradients, update, metrics.

        Returns:
            A dict of metric name -> value.
        """
        x, y, sw = unpack_x_y_sample_weight(data)
        with GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.compute_loss(x, y, y_pred, sw)
            # Under a strategy: this replica's share of the global batch's mean loss.
            scaled = self._tw_optimizer.scale_loss(
                _distributed_training.scale_loss_for_replica(loss, x))
        variables = self.trainable_variables
        grads = tape.gradient(scaled, variables)
        self._tw_optimizer.apply_gradients(zip(grads, variables))
        self._track_loss(loss, y_pred)
        return self.compute_metrics(x, y, y_pred, sw)

    @with_args(_STEP_ARGS)
    def test_step(self, data) -> dict:
        """Evaluates a batch: forward pass, loss, metric updates.

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

    @property
    def distribute_strategy(self):
        """The strategy the model was compiled under (the current one if none)."""
        return getattr(self, "_tw_strategy", None) or _distribute.get_strategy()

    def _wrap(self, step):
        strategy = getattr(self, "_tw_strategy", None)
        if strategy is not None:
            kind = {"train_step": "train", "test_step": "test"}.get(step.__name__, "predict")
            step = _distributed_training.distributed_step(strategy, self, step, kind)
        if self.run_eagerly:
            return step
        return _tw_function(step, reduce_retracing=True)

    def _step_function(self, attr: str, step, force: bool):
        """The callable kept in ``attr`` for ``step`` (built on first use, or when forced)."""
        if getattr(self, attr) is None or force:
            setattr(self, attr, self._wrap(step))
        return getattr(self, attr)

    make_train_function = _step_maker("train", "The per-batch training callable (a "
                                      "``tw.function`` unless run eagerly).")
    make_test_function = _step_maker("test", "The per-batch evaluation callable.")
    make_predict_function = _step_maker("predict", "The per-batch prediction callable.")

    def _check_compiled(self) -> None:
        if not self._tw_compiled:
            raise RuntimeError("You must compile your model before training/testing. Use "
                               "`model.compile(optimizer, loss)`.")
