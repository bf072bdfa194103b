"""Losses and metrics of models with several outputs (Keras' ``compile_utils``).

``compile(loss=[...] or {...}, loss_weights=..., metrics=[...] or {...})`` on a model with
several outputs gives each output its loss, weight and metrics. The total ``loss`` is the
weighted sum of the outputs' losses (plus the layers' regularization losses); each output's
unweighted loss is tracked as ``<output>_loss`` and each of its metrics as
``<output>_<metric>``, with ``<output>`` the name of the layer that makes it (``dense_1_loss``),
or ``output_1``... for subclassed models, as in tf.keras.
"""
from __future__ import annotations

from ..core import nest
from . import losses as _losses
from . import metrics as _metrics


def _loss_fn(identifier):
    fn = _losses.get(identifier)
    if fn is not None and not isinstance(fn, _losses.Loss):
        fn = _losses.LossFunctionWrapper(fn, name=getattr(fn, "__name__", "loss"))
    return fn


def _is_structure(x) -> bool:
    return isinstance(x, (list, tuple, dict))


def output_names_of(model) -> list | None:
    """The names of a functional model's outputs (their layers' names), None otherwise.

    Args:
        model: the model.

    Returns:
        A list of names, or None.
    """
    if not getattr(model, "_tw_functional", False):
        return None
    outputs = model._tw_outputs
    if isinstance(outputs, dict):
        return list(outputs)
    names: list = []
    for t in nest.flatten(outputs):
        name = t._layer.name if t._layer is not None else t.name
        names.append(name if name not in names else f"{name}_{len(names) + 1}")
    return names


def names_for_predictions(y_pred) -> list:
    """Output names for a model whose outputs are known only from a call (subclassed models).

    Args:
        y_pred: the model's output structure.

    Returns:
        Dict keys, or ``output_1``, ``output_2``...
    """
    if isinstance(y_pred, dict):
        return list(y_pred)
    return [f"output_{i + 1}" for i in range(len(nest.flatten(y_pred)))]


def unwrap_single(value, names: list | None, metrics: bool = False):
    """A one-entry list or dict given to a one-output model, as the entry itself.

    Args:
        value: a loss, loss_weights or metrics argument.
        names: the model's output names (None if not known yet).
        metrics: ``value`` is a metrics argument (``['accuracy']`` is then already flat).

    Returns:
        The value, unwrapped when the model has one output.
    """
    if names is None or len(names) != 1:
        return value
    if isinstance(value, dict) and len(value) == 1:
        value = next(iter(value.values()))
        return [value] if metrics and not isinstance(value, (list, tuple)) else value
    if isinstance(value, (list, tuple)) and len(value) == 1 and (
            not metrics or isinstance(value[0], (list, tuple))):
        return value[0]
    return value


def _per_output(value, names: list, what: str, flat_means_each: bool = True) -> list:
    n = len(names)
    if value is None:
        return [None] * n
    if isinstance(value, dict):
        unknown = sorted(set(value) - set(names))
        if unknown:
            raise ValueError(f"Unknown entries in {what} dictionary: {unknown}. Only expected "
                             f"following keys: {names}")
        return [value.get(name) for name in names]
    if isinstance(value, (list, tuple)) and not flat_means_each:
        if len(value) != n:
            raise ValueError(f"When passing a list as {what}, it should have one entry per "
                             f"model output. The model has {n} outputs, but you passed "
                             f"{what}={list(value)!r}")
        return list(value)
    return [value] * n


class OutputsConfig:
    """Per-output losses, loss weights, loss trackers and metrics of one ``compile``.

    Args:
        names: the output names, in the order of the flattened outputs.
        loss: one loss for every output, a list (one per output) or a dict by output name.
        metrics: a flat list (every output gets each), a list of lists (one per output) or a
            dict by output name.
        loss_weights: a list or dict of floats (default 1.0 each).
        weighted_metrics: as ``metrics`` (weighted by the sample weights).
    """

    def __init__(self, names: list, loss, metrics, loss_weights, weighted_metrics) -> None:
        self.names = list(names)
        losses = _per_output(loss, self.names, "loss",
                             flat_means_each=not isinstance(loss, (list, tuple)))
        self.losses = [_loss_fn(x) for x in losses]
        weights = _per_output(loss_weights, self.names, "loss_weights",
                              flat_means_each=not isinstance(loss_weights, (list, tuple)))
        self.weights = [1.0 if w is None else float(w) for w in weights]
        self.loss_trackers = [_metrics.Mean(name=f"{name}_loss") if fn is not None else None
                              for name, fn in zip(self.names, self.losses)]
        self.metrics: list = [[] for _ in self.names]
        used: set = set()
        for arg in (metrics, weighted_metrics):
            for i, entry in enumerate(self._metric_entries(arg)):
                for m in entry:
                    self.metrics[i].append(self._metric(m, i, used))

    def _metric_entries(self, arg) -> list:
        if arg is None:
            return [[] for _ in self.names]
        if isinstance(arg, dict):
            per = _per_output(arg, self.names, "metrics")
        elif isinstance(arg, (list, tuple)) and any(isinstance(x, (list, tuple, dict))
                                                    for x in arg):
            per = _per_output(arg, self.names, "metrics", flat_means_each=False)
        else:
            per = [arg] * len(self.names)
        return [[] if x is None else list(x) if isinstance(x, (list, tuple)) else [x]
                for x in per]

    def _metric(self, identifier, i: int, used: set):
        m = _metrics.get(identifier, self.losses[i])
        if m is identifier or id(m) in used:
            # The user's Metric object keeps its name (it is renamed per output here, and may
            # be given for several outputs): each output gets its own copy.
            try:
                m = type(m)(**m.get_config())
            except TypeError:
                if id(m) in used:
                    raise
        used.add(id(m))
        new = f"{self.names[i]}_{m.name}"
        object.__setattr__(m, "_name", new)
        object.__setattr__(m, "_scope_name", new)
        return m

    @property
    def all_metrics(self) -> list:
        """The loss trackers, then every output's metrics, in Keras' order."""
        out = [t for t in self.loss_trackers if t is not None]
        for ms in self.metrics:
            out.extend(ms)
        return out

    def split(self, y, y_pred, sample_weight) -> tuple:
        """Per-output lists of targets, predictions and sample weights.

        Args:
            y: the targets: a list/tuple (one per output), a dict by output name, or one
                array for a one-output model.
            y_pred: the model's outputs.
            sample_weight: None, one array for all outputs, or a list/dict per output.

        Returns:
            ``(targets, predictions, sample_weights)``, three lists.
        """
        n = len(self.names)
        preds = [y_pred[k] for k in self.names] if isinstance(y_pred, dict) \
            else nest.flatten(y_pred)
        if len(preds) != n:
            raise ValueError(f"The model has {len(preds)} outputs but was compiled for {n} "
                             f"({self.names})")
        if isinstance(y, dict):
            targets = [y.get(k) for k in self.names]
        elif isinstance(y, (list, tuple)) and len(y) == n:
            targets = list(y)
        elif y is None:
            targets = [None] * n
        elif n == 1:
            targets = [y]
        else:
            raise ValueError(f"The model has {n} outputs ({self.names}): pass `y` as a list "
                             "of that many arrays or a dict keyed by the output names")
        if isinstance(sample_weight, dict):
            sws = [sample_weight.get(k) for k in self.names]
        elif isinstance(sample_weight, (list, tuple)) and len(sample_weight) == n:
            sws = list(sample_weight)
        else:
            sws = [sample_weight] * n
        return targets, preds, sws

    def compute_loss(self, y, y_pred, sample_weight) -> tuple:
        """The weighted total of the outputs' losses, and each unweighted loss.

        Args:
            y: the targets.
            y_pred: the predictions.
            sample_weight: the sample weights.

        Returns:
            ``(total or None, [loss or None per output])``.
        """
        targets, preds, sws = self.split(y, y_pred, sample_weight)
        total = None
        per: list = []
        for fn, w, t, p, s in zip(self.losses, self.weights, targets, preds, sws):
            if fn is None or t is None:
                per.append(None)
                continue
            value = fn(t, p, s)
            per.append(value)
            term = value if w == 1.0 else value * w
            total = term if total is None else total + term
        return total, per

    def update_metrics(self, y, y_pred, sample_weight) -> None:
        """Updates every output's metrics.

        Args:
            y: the targets.
            y_pred: the predictions.
            sample_weight: the sample weights.
        """
        targets, preds, sws = self.split(y, y_pred, sample_weight)
        for ms, t, p, s in zip(self.metrics, targets, preds, sws):
            if t is None:
                continue
            for m in ms:
                m.update_state(t, p, sample_weight=s)
