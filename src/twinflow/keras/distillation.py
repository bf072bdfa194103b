"""``tw.keras.distillation``: knowledge distillation as Keras 3.15 defines it: a ``Distiller``
model trains a student on a weighted sum of its own loss and distillation losses against a
frozen teacher (``LogitsDistillation``: temperature-softened logits; ``FeatureDistillation``:
outputs of chosen layers)."""
from __future__ import annotations

from typing import Any

from ..core import nest
from ..eager.execute import convert_to_tensor
from ..ops import array_ops, math_ops, nn_ops, reduction_ops
from . import losses as _losses
from . import metrics as _metrics
from .configurable import Configurable
from .layers import Input
from .models import Model, Sequential
from .serialization import deserialize_keras_object, serialize_keras_object


def _as_loss(item) -> Any:
    if item is None:
        return None
    if isinstance(item, str):
        return _losses.get(item)
    if isinstance(item, dict):
        return _losses.deserialize(item)
    return item


def _map(fn, *structures):
    flat = [nest.flatten(s) for s in structures]
    return [fn(*args) for args in zip(*flat)]


def _serialize_losses(loss):
    return nest.map_structure(lambda item: None if item is None else
                              _losses.serialize(item), loss)


def _sum(values) -> Any:
    return reduction_ops.reduce_sum(array_ops.stack(
        [math_ops.cast(convert_to_tensor(v), "float32") for v in values]))


def _symbolic(model):
    """``(inputs, layer_output)`` of a model as a graph of layer calls: a functional model's
    own; a built Sequential is replayed once on a new ``Input`` (its layers then have
    ``output``); None for a subclassed model."""
    if getattr(model, "_tw_functional", False) or (
            not isinstance(model, Sequential) and getattr(model, "inputs", None) is not None):
        return model.inputs
    if isinstance(model, Sequential):
        shape = getattr(model, "_tw_input_shape", None)
        if shape is None:
            return None
        if getattr(model, "_tw_replayed", None) is None:
            x = inp = Input(tuple(shape[1:]))
            for layer in model.layers:
                x = layer(x)
            model._tw_replayed = [inp]
        return model._tw_replayed
    return None


class DistillationLoss(Configurable):
    """Base class: ``compute_loss(teacher_outputs, student_outputs)`` returns a scalar
    (``from_config`` is ``Configurable``'s: the class called with ``get_config()``)."""

    def compute_loss(self, teacher_outputs, student_outputs, **kwargs) -> Any:
        """The distillation loss (override).

        Args:
            teacher_outputs: the teacher's outputs (a tensor or a structure).
            student_outputs: the student's, of the same structure.
            **kwargs: loss-specific arguments.

        Returns:
            A scalar tensor.
        """
        raise NotImplementedError("Subclasses must implement compute_loss")

    def validate_outputs(self, teacher_outputs, student_outputs) -> None:
        """Checks that both have the same structure.

        Args:
            teacher_outputs: the teacher's outputs.
            student_outputs: the student's.

        Raises:
            ValueError: different structures.
        """
        nest.assert_same_structure(teacher_outputs, student_outputs)

    def validate_model_compatibility(self, teacher, student) -> None:
        """Checks the models suit this loss (nothing to check here).

        Args:
            teacher: the teacher model.
            student: the student model.
        """

    def _sum_over_losses(self, one, teacher_outputs, student_outputs) -> Any:
        """``one(loss, teacher, student)`` for the loss of each output (``self.loss`` a
        structure like the outputs), summed; or for the one loss of a single output."""
        if not isinstance(self.loss, (list, tuple, dict)):
            return one(self.loss, teacher_outputs, student_outputs)
        return _sum(_map(one, self.loss, teacher_outputs, student_outputs))

    def get_config(self) -> dict:
        """The constructor arguments (``_config_keys``), the losses serialized.

        Returns:
            A dict.
        """
        return {**super().get_config(), "loss": _serialize_losses(self.loss)}


class FeatureDistillation(DistillationLoss):
    """The loss (``'mse'`` by default) between the outputs of a teacher layer and a student
    layer (the final outputs when no layer is named), averaged.

    Args:
        loss: a loss (name, object, or a structure of them; None skips an output).
        teacher_layer_name: the teacher layer whose output is distilled.
        student_layer_name: the student layer matched to it.
    """

    def __init__(self, loss="mse", teacher_layer_name: str | None = None,
                 student_layer_name: str | None = None) -> None:
        self.teacher_layer_name = teacher_layer_name
        self.student_layer_name = student_layer_name
        self.loss = nest.map_structure(_as_loss, loss)
        if all(item is None for item in nest.flatten(self.loss)):
            raise ValueError("The `loss` argument in `FeatureDistillation` must contain at "
                             "least one non-`None` value.")

    def validate_model_compatibility(self, teacher, student) -> None:
        named = self.teacher_layer_name is not None or self.student_layer_name is not None
        if named:
            sub = [n for n, m in (("teacher", teacher), ("student", student))
                   if _symbolic(m) is None]
            if sub:
                raise ValueError(
                    "FeatureDistillation with specific layer names requires Functional or "
                    f"Sequential models. The {' and '.join(sub)} model(s) appear to be "
                    "subclassed (no symbolic inputs/outputs).")
        for which, model, name in (("teacher", teacher, self.teacher_layer_name),
                                   ("student", student, self.student_layer_name)):
            if name is not None:
                try:
                    model.get_layer(name=name)
                except ValueError as e:
                    raise ValueError(f"In {which} model: {e}") from None

    def compute_loss(self, teacher_outputs, student_outputs, **kwargs) -> Any:
        def one(fn, t, s):
            return 0.0 if fn is None else reduction_ops.reduce_mean(fn(t, s))
        return self._sum_over_losses(one, teacher_outputs, student_outputs)

    _config_keys = ("loss", "teacher_layer_name", "student_layer_name")


class LogitsDistillation(DistillationLoss):
    """Distillation of logits divided by ``temperature``: a ``KLDivergence`` object compares
    their softmaxes (times ``temperature ** 2``); any other loss compares the scaled logits
    themselves (as Keras does, so ``'kl_divergence'`` by name sees logits).

    Args:
        temperature: the softening temperature (> 0).
        loss: a loss (name, object, or a structure; None skips an output).
    """

    def __init__(self, temperature: float = 3.0, loss="kl_divergence") -> None:
        self.temperature = temperature
        self.loss = nest.map_structure(_as_loss, loss)
        if all(item is None for item in nest.flatten(self.loss)):
            raise ValueError("At least one loss must be non-`None`.")
        if isinstance(temperature, bool) or not isinstance(temperature, (int, float)):
            raise ValueError(f"temperature must be a number, got {type(temperature)}")
        if temperature <= 0.0:
            raise ValueError("temperature must be positive.")

    def compute_loss(self, teacher_outputs, student_outputs, **kwargs) -> Any:
        t = float(self.temperature)

        def one(fn, teacher, student):
            if fn is None:
                return 0.0
            teacher, student = teacher / t, student / t
            if isinstance(fn, _losses.KLDivergence):
                value = reduction_ops.reduce_mean(fn(nn_ops.softmax(teacher, axis=-1),
                                                     nn_ops.softmax(student, axis=-1)))
                return value * (t ** 2)
            return reduction_ops.reduce_mean(fn(teacher, student))
        return self._sum_over_losses(one, teacher_outputs, student_outputs)

    _config_keys = ("temperature", "loss")


_DISTILLATION_LOSSES = {"LogitsDistillation": LogitsDistillation,
                        "FeatureDistillation": FeatureDistillation}


class Distiller(Model):
    """Trains ``student`` on ``student_loss_weight * student_loss + (1 - student_loss_weight)
    * sum(weight_i * distillation_loss_i)``; the teacher is frozen. Calling the distiller
    calls the student. ``compile(optimizer, loss)`` takes the student's loss; ``fit`` logs
    ``student_loss``, ``distillation_loss`` and ``total_loss`` besides ``loss``.

    Args:
        teacher: the trained teacher model.
        student: the student model.
        distillation_losses: a DistillationLoss or a list of them.
        distillation_loss_weights: one weight per distillation loss (default 1 each).
        student_loss_weight: in [0, 1].
        name: the model name.
        **kwargs: Model arguments.
    """

    def __init__(self, teacher, student, distillation_losses, distillation_loss_weights=None,
                 student_loss_weight: float = 0.5, name: str = "distiller", **kwargs) -> None:
        super().__init__(name=name, **kwargs)
        self.teacher, self.student = teacher, student
        if isinstance(student_loss_weight, bool) or \
                not isinstance(student_loss_weight, (int, float)):
            raise ValueError(f"student_loss_weight must be a number, got "
                             f"{type(student_loss_weight)}")
        if not 0.0 <= student_loss_weight <= 1.0:
            raise ValueError(f"student_loss_weight must be between 0.0 and 1.0, got "
                             f"{student_loss_weight}")
        self.student_loss_weight = student_loss_weight
        if distillation_losses is None:
            raise ValueError("'distillation_losses' cannot be `None`. Provide a distillation "
                             "loss (e.g., LogitsDistillation or FeatureDistillation) or a list "
                             "of distillation losses.")
        if not isinstance(distillation_losses, (list, tuple)):
            distillation_losses, distillation_loss_weights = [distillation_losses], [1.0]
        distillation_losses = [_DISTILLATION_LOSSES[d["class_name"]].from_config(d["config"])
                               if isinstance(d, dict) else d for d in distillation_losses]
        weights = [1.0] * len(distillation_losses) if distillation_loss_weights is None \
            else list(distillation_loss_weights)
        if len(weights) != len(distillation_losses):
            raise ValueError(f"Number of distillation_loss_weights ({len(weights)}) must "
                             f"match number of distillation_losses "
                             f"({len(distillation_losses)})")
        self.distillation_losses, self.distillation_loss_weights = \
            list(distillation_losses), weights
        for d in self.distillation_losses:
            d.validate_model_compatibility(teacher, student)
        self._teacher_features = self._extractor(teacher, [
            d.teacher_layer_name for d in self.distillation_losses
            if getattr(d, "teacher_layer_name", None)])
        self._student_features = self._extractor(student, [
            d.student_layer_name for d in self.distillation_losses
            if getattr(d, "student_layer_name", None)])
        self.teacher.trainable = False
        self.student_loss_tracker = _metrics.Mean(name="student_loss")
        self.distillation_loss_tracker = _metrics.Mean(name="distillation_loss")
        self.total_loss_tracker = _metrics.Mean(name="total_loss")
        self._student_loss = None

    @staticmethod
    def _extractor(model, names: list):
        if not names:
            return None
        inputs = _symbolic(model)
        if inputs is None:
            raise ValueError(f"Cannot create feature extractor for {model.name}. The model "
                             "has no symbolic inputs attribute.")
        final = model.layers[-1].output if isinstance(model, Sequential) else model.output
        outputs = {"final_output": final}
        for n in names:
            outputs[n] = model.get_layer(name=n).output
        return Model(inputs, outputs, name=f"{model.name}_multi_feature_extractor")

    def compile(self, optimizer="adam", loss=None, metrics=None, **kwargs) -> None:
        """Configures training: ``loss`` is the student's loss (required).

        Args:
            optimizer: the student's optimizer.
            loss: the student's loss (a name, object or structure).
            metrics: a list of metrics.
            **kwargs: Model.compile arguments.
        """
        if loss is None:
            raise ValueError("'loss' cannot be `None`.")
        if metrics is not None and not isinstance(metrics, (list, tuple)):
            raise ValueError(f"metrics must be a list or tuple, got {type(metrics)}")
        self._student_loss = nest.map_structure(_as_loss, loss)
        super().compile(optimizer=optimizer, loss=None, metrics=metrics, **kwargs)

    def call(self, inputs, training=None) -> Any:
        return self.student(inputs, training=training)

    def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None,
                     training: bool = True) -> Any:
        """The combined loss; also updates the three loss trackers.

        Args:
            x: the inputs.
            y: the targets.
            y_pred: the student's predictions.
            sample_weight: unused (as in Keras).
            training: whether training.

        Returns:
            A scalar tensor.
        """
        if y_pred is None:
            y_pred = self(x, training=training)
        student_loss: Any = 0.0
        if self.student_loss_weight > 0.0 and y is not None:
            if not isinstance(self._student_loss, (list, tuple, dict)):
                values = [self._student_loss(y, y_pred)]
            else:
                values = _map(lambda fn, t, p: fn(t, p), self._student_loss, y, y_pred)
            student_loss = values[0] if len(values) == 1 else _sum(values)
            if getattr(student_loss, "shape", None) is not None and student_loss.shape.rank:
                student_loss = reduction_ops.reduce_mean(student_loss)
        distillation: Any = 0.0
        if self.student_loss_weight < 1.0:
            t_feats = self._teacher_features(x, training=False) \
                if self._teacher_features is not None else \
                {"final_output": self.teacher(x, training=False)}
            s_feats = self._student_features(x, training=True) \
                if self._student_features is not None else {"final_output": y_pred}
            for d, w in zip(self.distillation_losses, self.distillation_loss_weights):
                if getattr(d, "teacher_layer_name", None) is not None:
                    t_out = t_feats[d.teacher_layer_name]
                    s_out = s_feats[d.student_layer_name or "final_output"]
                else:
                    t_out, s_out = t_feats["final_output"], y_pred
                d.validate_outputs(t_out, s_out)
                value = d.compute_loss(t_out, s_out)
                if getattr(value, "shape", None) is not None and value.shape.rank:
                    raise ValueError(f"Distillation loss {type(d).__name__} returned a "
                                     f"non-scalar loss with shape {value.shape}. The "
                                     "compute_loss method must return a scalar tensor.")
                distillation = distillation + w * value
        a = float(self.student_loss_weight)
        total = a * student_loss + (1.0 - a) * distillation
        self.student_loss_tracker.update_state(student_loss)
        self.distillation_loss_tracker.update_state(distillation)
        self.total_loss_tracker.update_state(total)
        extra = self.losses
        return math_ops.add_n([total] + list(extra)) if extra else total

    def get_config(self) -> dict:
        return {"name": self.name,
                "teacher": serialize_keras_object(self.teacher),
                "student": serialize_keras_object(self.student),
                "distillation_losses": [{"class_name": type(d).__name__,
                                         "config": d.get_config()}
                                        for d in self.distillation_losses],
                "distillation_loss_weights": self.distillation_loss_weights,
                "student_loss_weight": self.student_loss_weight}

    @classmethod
    def from_config(cls, config: dict, custom_objects: dict | None = None) -> Distiller:
        """Rebuilds the distiller (teacher and student from their configs, new weights).

        Args:
            config: ``get_config``'s dict.
            custom_objects: name -> class for custom layers.

        Returns:
            The distiller.
        """
        config = dict(config)
        config["teacher"] = deserialize_keras_object(config["teacher"], custom_objects)
        config["student"] = deserialize_keras_object(config["student"], custom_objects)
        return cls(**config)
