"""Dynamic loss scaling for float16 training: ``LossScaleOptimizer`` (Keras 3's
``keras.optimizers.LossScaleOptimizer``, also ``keras.mixed_precision.LossScaleOptimizer``).

float16 gradients underflow, so the loss is multiplied by a large scale before
differentiating and the gradients divided by it before the update. A step whose gradients are
not all finite is skipped and halves the scale; ``dynamic_growth_steps`` finite steps in a row
double it. The skip is a ``tw.cond``, so the step traces into one graph.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ...control import cond as _cond
from ...core.context import eager_mode
from ...distribute import training as _distributed_training
from ...graph.graph import name_scoped
from ...graph.tensor import Tensor
from ...ops import array_ops, math_ops, reduction_ops
from ...ops.variables import Variable
from ...train.module import Module
from . import more as _more
from . import optimizer as _base
from .optimizer import Optimizer


def _inner(name: str, doc: str, settable: bool = True) -> property:
    """A property reading (and setting) the attribute ``name`` of the inner optimizer."""
    def read(self) -> Any:
        return getattr(self.inner_optimizer, name)

    def write(self, value) -> None:
        setattr(self.inner_optimizer, name, value)
    return property(read, write if settable else None, doc=doc)


class LossScaleOptimizer(Optimizer):
    """Wraps an optimizer with dynamic loss scaling (Keras 3's ``LossScaleOptimizer``).

    Args:
        inner_optimizer: the optimizer that applies the updates.
        initial_scale: the first loss scale.
        dynamic_growth_steps: double the scale after this many finite steps in a row.
        name: the optimizer's name.
        **kwargs: ``dynamic`` (tf.keras 2: False keeps the scale fixed).
    """

    def __init__(self, inner_optimizer: Optimizer, initial_scale: float = 2.0 ** 15,
                 dynamic_growth_steps: int = 2000, name: str | None = None,
                 **kwargs) -> None:
        dynamic = kwargs.pop("dynamic", True)
        if kwargs:
            raise TypeError(f"LossScaleOptimizer: unexpected arguments {sorted(kwargs)}")
        if not isinstance(inner_optimizer, Optimizer):
            raise TypeError(f"LossScaleOptimizer needs a keras Optimizer to wrap, got "
                            f"{inner_optimizer!r}")
        if initial_scale is None:
            initial_scale = 2.0 ** 15
        if float(initial_scale) <= 0 or int(dynamic_growth_steps) < 1:
            raise ValueError(f"LossScaleOptimizer: initial_scale must be > 0 and "
                             f"dynamic_growth_steps >= 1, got {initial_scale}, "
                             f"{dynamic_growth_steps}")
        self.__dict__["inner_optimizer"] = inner_optimizer
        Module.__init__(self, name=name or "loss_scale_optimizer")
        self.inner_optimizer = inner_optimizer
        self.initial_scale = float(initial_scale)
        self.dynamic_growth_steps = int(dynamic_growth_steps)
        self.dynamic = bool(dynamic)
        with eager_mode():
            self.dynamic_scale = Variable(np.float32(initial_scale), trainable=False,
                                          name="dynamic_scale")
            self.step_counter = Variable(np.int64(0), trainable=False, name="step_counter")

    # ----- delegated state -----
    iterations = _inner("iterations", "The inner optimizer's step count (skipped steps do not "
                        "count).")
    learning_rate = _inner("learning_rate", "The inner optimizer's learning rate.")
    _learning_rate = _inner("_learning_rate", "The inner optimizer's rate or schedule.",
                            settable=False)

    @property
    def loss_scale(self) -> Variable:
        """The current scale (tf.keras 2's name of ``dynamic_scale``)."""
        return self.dynamic_scale

    def _slot_names(self) -> tuple:
        return self.inner_optimizer._slot_names()

    def build(self, var_list: list) -> None:
        """Builds the inner optimizer's slots for ``var_list``.

        Args:
            var_list: the variables.
        """
        self.inner_optimizer.build(var_list)

    def get_slot(self, var: Variable, slot_name: str) -> Variable:
        """The inner optimizer's slot ``slot_name`` of ``var``.

        Args:
            var, slot_name: as for ``Optimizer.get_slot``.

        Returns:
            The slot variable.
        """
        return self.inner_optimizer.get_slot(var, slot_name)

    def get_slot_names(self) -> list:
        """The inner optimizer's slot names.

        Returns:
            A list of names.
        """
        return self.inner_optimizer.get_slot_names()

    @property
    def variables(self) -> list:
        """The scale, the counter and the inner optimizer's variables."""
        return [self.dynamic_scale, self.step_counter] + list(self.inner_optimizer.variables)

    def _trackable_children(self) -> dict:
        return {"inner_optimizer": self.inner_optimizer, "dynamic_scale": self.dynamic_scale,
                "step_counter": self.step_counter}

    # ----- scaling -----
    def scale_loss(self, loss) -> Tensor:
        """``loss`` times the current scale (compute gradients of this).

        Args:
            loss: the loss.

        Returns:
            The scaled loss.
        """
        scale = self.dynamic_scale.read_value()
        return loss * math_ops.cast(scale, loss.dtype) if hasattr(loss, "dtype") else \
            loss * scale

    get_scaled_loss = scale_loss

    def get_unscaled_gradients(self, grads) -> list:
        """Gradients divided by the current scale (tf.keras 2).

        Args:
            grads: gradients of a scaled loss (None entries stay None).

        Returns:
            The unscaled gradients.
        """
        inv = 1.0 / self.dynamic_scale.read_value()
        return [None if g is None else g * math_ops.cast(inv, g.dtype) for g in grads]

    @name_scoped
    def apply_gradients(self, grads_and_vars, name: str | None = None, **kwargs) -> Variable:
        """Unscales the gradients and applies them if all are finite; adapts the scale.

        Args:
            grads_and_vars: pairs ``(gradient of the scaled loss, variable)``.
            **kwargs: ``skip_gradients_aggregation=True``: under a strategy, the gradients
                were already summed over the replicas.

        Returns:
            The ``iterations`` variable.
        """
        pairs = [(g, v) for g, v in grads_and_vars if g is not None]
        if not pairs:
            raise ValueError("No gradients provided for any variable.")
        grads = self.get_unscaled_gradients([g for g, _ in pairs])
        if not kwargs.get("skip_gradients_aggregation", False):
            # Under a strategy: sum the replicas' gradients before the finite check, so every
            # replica takes the same branch (and no collective runs inside the cond).
            grads = _distributed_training.all_reduce_gradients(grads)
        var_list = [v for _, v in pairs]
        self.inner_optimizer.build(var_list)
        finite = reduction_ops.reduce_all(array_ops.stack(
            [reduction_ops.reduce_all(math_ops.is_finite(g)) for g in grads]))

        def finite_step():
            self.inner_optimizer.apply_gradients(zip(grads, var_list),
                                                 skip_gradients_aggregation=True)
            if self.dynamic:
                grow = math_ops.greater_equal(self.step_counter.read_value() + np.int64(1),
                                              np.int64(self.dynamic_growth_steps))
                self.dynamic_scale.assign(math_ops.where(
                    grow, self.dynamic_scale.read_value() * 2.0,
                    self.dynamic_scale.read_value()))
                self.step_counter.assign(math_ops.where(
                    grow, np.int64(0), self.step_counter.read_value() + np.int64(1)))
            return array_ops.identity(np.int32(1))

        def skip_step():
            if self.dynamic:
                self.dynamic_scale.assign(math_ops.maximum(
                    self.dynamic_scale.read_value() * 0.5, np.float32(1.0)))
                self.step_counter.assign(np.int64(0))
            return array_ops.identity(np.int32(0))

        _cond.cond(finite, finite_step, skip_step)
        return self.iterations

    def apply(self, grads, trainable_variables=None) -> Variable:
        """Keras 3's form of ``apply_gradients``.

        Args:
            grads: gradients of the scaled loss.
            trainable_variables: the variables.

        Returns:
            The ``iterations`` variable.
        """
        if trainable_variables is None:
            trainable_variables = self.inner_optimizer._tw_tracked
        return self.apply_gradients(zip(list(grads), list(trainable_variables)))

    def finalize_variable_values(self, var_list) -> None:
        """Delegates to the inner optimizer (EMA copies).

        Args:
            var_list: the variables.
        """
        self.inner_optimizer.finalize_variable_values(var_list)

    def get_config(self) -> dict:
        """The constructor arguments (the inner optimizer serialized).

        Returns:
            A dict.
        """
        inner = self.inner_optimizer
        return {"name": self.name, "initial_scale": self.initial_scale,
                "dynamic_growth_steps": self.dynamic_growth_steps,
                "inner_optimizer": {"module": "keras.optimizers",
                                    "class_name": type(inner).__name__,
                                    "config": inner.get_config(), "registered_name": None}}

    @classmethod
    def from_config(cls, config: dict, custom_objects: dict | None = None) -> Optimizer:
        """Rebuilds from ``get_config()``.

        Args:
            config: the config.
            custom_objects: unused.

        Returns:
            The optimizer.
        """
        config = dict(config)
        inner = config.pop("inner_optimizer")
        if isinstance(inner, dict):
            klass = _inner_class(inner.get("class_name"))
            inner = klass.from_config(inner.get("config", {}))
        return cls(inner, **config)

    def __getattr__(self, name: str):
        inner = self.__dict__.get("inner_optimizer")
        if inner is None or name.startswith("__"):
            raise AttributeError(name)
        return getattr(inner, name)


def _inner_class(name) -> type:
    klass = getattr(_base, str(name), None) or getattr(_more, str(name), None)
    if not (isinstance(klass, type) and issubclass(klass, Optimizer)):
        raise ValueError(f"LossScaleOptimizer: unknown inner optimizer {name!r}")
    return klass
