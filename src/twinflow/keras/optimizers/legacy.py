"""``tw.keras.optimizers.legacy``: the tf.keras 2 (``optimizer_v2``) optimizers.

Keras 3 refuses these names; twinflow keeps them for TF-Keras programs: the same classes as
Keras 3's with TF-Keras' extras: ``decay`` (the rate is ``lr / (1 + decay * iterations)``),
TF-Keras' default names, RMSprop's TF-Keras epsilon (outside the square root without
momentum), and the ``optimizer_v2`` subclassing API (``_create_slots``, ``add_slot``,
``_resource_apply_dense``, ``_set_hyper``/``_get_hyper``, ``_decayed_lr``).
"""
from __future__ import annotations

import numpy as np

from ...ops import math_ops
from . import optimizer as _v3
from .more import Ftrl as _Ftrl


class Optimizer(_v3.Optimizer):
    """Base class of the legacy optimizers; subclasses override ``_create_slots`` and
    ``_resource_apply_dense`` (or ``update_step``).

    Args:
        name: the optimizer name.
        learning_rate: the rate (or schedule).
        decay: inverse time decay of the rate per iteration.
        **kwargs: Keras optimizer arguments (``clipnorm``...).
    """

    def __init__(self, name: str, learning_rate=0.001, decay: float = 0.0, **kwargs) -> None:
        super().__init__(name=name, learning_rate=learning_rate, **kwargs)
        self.decay = float(decay)
        self._hyper: dict = {}

    # ----- the optimizer_v2 subclassing API -----
    def _set_hyper(self, name: str, value) -> None:
        """Stores a hyperparameter (``learning_rate`` sets the rate)."""
        if name in ("learning_rate", "lr"):
            self.learning_rate = value
        else:
            self._hyper[name] = value

    def _get_hyper(self, name: str, dtype=None):
        """A hyperparameter (the rate for ``learning_rate``), cast to ``dtype``."""
        value = self._current_lr() if name in ("learning_rate", "lr") else self._hyper[name]
        if callable(value):
            value = value()
        return value if dtype is None else math_ops.cast(value, dtype)

    def _decayed_lr(self, var_dtype):
        """The rate after ``decay``: ``lr / (1 + decay * iterations)``."""
        return math_ops.cast(self._current_lr(), var_dtype)

    def add_slot(self, var, slot_name: str, initializer="zeros"):
        """Creates (once) the slot ``slot_name`` of ``var``.

        Args:
            var: the trained variable.
            slot_name: the slot's name.
            initializer: ``'zeros'``, a float fill value or an array.

        Returns:
            The slot variable.
        """
        slots = self._tw_slots[self._tw_index[id(var)]]
        if slot_name not in slots:
            shape, dt = var.shape.as_list(), var.dtype.np
            value = np.zeros(shape, dt) if initializer in ("zeros", None) else \
                np.broadcast_to(np.asarray(initializer, dt), shape).copy()
            slots[slot_name] = self.add_variable_from_reference(var, slot_name, value)
        return slots[slot_name]

    def _create_slots(self, var_list: list) -> None:
        """Creates the slots of new variables (override)."""

    def build(self, var_list: list) -> None:
        new = [v for v in var_list if id(v) not in self._tw_index]
        super().build(var_list)
        if new:
            self._create_slots(new)

    def _current_lr(self):
        lr = super()._current_lr()
        if not self.decay:
            return lr
        it = math_ops.cast(self.iterations.read_value(), lr.dtype)
        return lr / (1.0 + self.decay * it)

    def update_step(self, gradient, variable, learning_rate) -> None:
        self._resource_apply_dense(gradient, variable, None)

    def _resource_apply_dense(self, grad, var, apply_state) -> None:
        """Updates ``var`` from ``grad`` (override).

        Args:
            grad: the gradient.
            var: the variable.
            apply_state: unused (TF-Keras' per-device cache).
        """
        raise NotImplementedError(f"{type(self).__name__} must define _resource_apply_dense")

    def get_config(self) -> dict:
        cfg = super().get_config()
        cfg["decay"] = self.decay
        return cfg


def _legacy(base: type, default_name: str, doc: str) -> type:
    def __init__(self, *args, name: str = default_name, decay: float = 0.0, **kwargs) -> None:
        """Creates the optimizer.

        Args:
            *args: the Keras optimizer's positional arguments (the rate first).
            name: the optimizer name.
            decay: inverse time decay of the rate per iteration.
            **kwargs: the Keras optimizer's arguments.
        """
        base.__init__(self, *args, name=name, **kwargs)
        self.decay = float(decay)
        self._hyper = {}
    return type(default_name, (Optimizer, base), {
        "__init__": __init__, "__module__": __name__,
        "update_step": base.update_step,
        "__doc__": f"{doc}\n\n    Args:\n        *args: as the Keras 3 class.\n"
                   "        name: the optimizer name.\n        decay: inverse time decay "
                   "of the rate per iteration.\n        **kwargs: as the Keras 3 class.\n"})


SGD = _legacy(_v3.SGD, "SGD", "TF-Keras' SGD (with ``decay``).")
Adam = _legacy(_v3.Adam, "Adam", "TF-Keras' Adam (with ``decay``).")
Adagrad = _legacy(_v3.Adagrad, "Adagrad", "TF-Keras' Adagrad (with ``decay``).")
Ftrl = _legacy(_Ftrl, "Ftrl", "TF-Keras' Ftrl (with ``decay``).")
_RMSpropBase = _legacy(_v3.RMSprop, "RMSprop", "TF-Keras' RMSprop.")


class RMSprop(_RMSpropBase):
    """TF-Keras' RMSprop (with ``decay``): without momentum the epsilon is added after the
    square root (``var -= lr * g / (sqrt(ms) + eps)``), with momentum inside it, as
    TF-Keras' kernels do.

    Args:
        *args: as Keras 3's RMSprop.
        **kwargs: as Keras 3's RMSprop, plus ``decay`` and ``name``.
    """

    def update_step(self, gradient, variable, learning_rate) -> None:
        if self.momentum or self.centered:
            return _v3.RMSprop.update_step(self, gradient, variable, learning_rate)
        ms = self.get_slot(variable, "velocity")
        ms.assign(self.rho * ms + (1.0 - self.rho) * math_ops.square(gradient))
        variable.assign_sub(learning_rate * gradient / (math_ops.sqrt(ms) + self.epsilon))


__all__ = ["Optimizer", "SGD", "Adam", "Adagrad", "Ftrl", "RMSprop"]
