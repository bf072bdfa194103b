"""Keras optimizers: SGD (momentum, Nesterov), Adam, AdamW, RMSprop, Adagrad.

Every update is written with variable assignments and twinflow ops, so ``apply_gradients`` runs
eagerly or inside a traced train step alike. Slot variables (momenta) are created on first use,
always eagerly (they outlive any trace), and restored from a checkpoint if one is pending.
"""
from __future__ import annotations

import numpy as np

from ...autodiff.tape import GradientTape
from ...core import dtypes
from ...core.context import eager_mode
from ...distribute import training as _distributed_training
from ...graph.graph import name_scoped
from ...graph.tensor import Tensor
from ...ops import math_ops
from ...ops.optimizer_ops import keras_adam_update
from ...ops.variables import Variable
from ...train.checkpoint import apply_deferred
from ...train.module import Module
from ..configurable import Configurable
from ..declare import refuse_unknown
from . import fused_adam as _fused_adam
from . import schedules as _schedules
from .schedules import LearningRateSchedule


def _deserialize_lr(lr):
    if isinstance(lr, dict) and "class_name" in lr:
        return getattr(_schedules, lr["class_name"])(**lr["config"])
    return lr


class Optimizer(Module, Configurable):
    """Base class of optimizers.

    Args:
        name: the optimizer name.
        learning_rate: a float or a LearningRateSchedule.
        weight_decay: decoupled weight decay (``var -= lr * weight_decay * var``).
        clipnorm: clip each gradient to this norm.
        clipvalue: clip each gradient element to ``[-clipvalue, clipvalue]``.
        global_clipnorm: clip all gradients together to this global norm.
        use_ema: keep an exponential moving average of each variable (``ema`` slots);
            ``finalize_variable_values`` (called at the end of ``fit``) copies it in.
        ema_momentum: the average's momentum.
        ema_overwrite_frequency: every this many steps, copy the averages into the variables.
        gradient_accumulation_steps: apply the mean gradient of this many steps once, every
            this many steps (``iterations`` still counts every step).
        **kwargs: ``lr`` (old alias of learning_rate), ``decay`` and
            ``is_legacy_optimizer`` (tf.keras 2 arguments, which must be unset); any other
            (``jit_compile`` too, which Keras 3 refuses) is a TypeError.
    """

    def __init__(self, name: str, learning_rate=0.001, weight_decay=None, clipnorm=None,
                 clipvalue=None, global_clipnorm=None, use_ema: bool = False,
                 ema_momentum: float = 0.99, ema_overwrite_frequency=None,
                 gradient_accumulation_steps=None, **kwargs) -> None:
        if "lr" in kwargs:
            learning_rate = kwargs.pop("lr")
        if kwargs.pop("decay", None):
            raise ValueError("`decay` is deprecated in Keras 3; use a learning rate schedule")
        kwargs.pop("is_legacy_optimizer", None)
        if kwargs:
            raise TypeError(f"{name}: unexpected keyword arguments {sorted(kwargs)}")
        if gradient_accumulation_steps is not None and (
                isinstance(gradient_accumulation_steps, bool) or
                not isinstance(gradient_accumulation_steps, int) or
                gradient_accumulation_steps < 2):
            raise ValueError(f"`gradient_accumulation_steps` must be an integer >= 2. "
                             f"Received: {gradient_accumulation_steps}")
        if not 0 <= ema_momentum <= 1:
            raise ValueError(f"`ema_momentum` must be in the range [0, 1]. Received: "
                             f"ema_momentum={ema_momentum}")
        self.use_ema = bool(use_ema)
        self.ema_momentum = float(ema_momentum)
        self.ema_overwrite_frequency = ema_overwrite_frequency
        self.gradient_accumulation_steps = gradient_accumulation_steps
        if sum(x is not None for x in (clipnorm, clipvalue, global_clipnorm)) > 1:
            raise ValueError("Only one of `clipnorm`, `clipvalue` and `global_clipnorm` can "
                             "be set.")
        super().__init__(name=name)
        self.weight_decay = weight_decay
        self.clipnorm = clipnorm
        self.clipvalue = clipvalue
        self.global_clipnorm = global_clipnorm
        with eager_mode():
            self._tw_iterations = Variable(np.int64(0), trainable=False, name="iteration")
            learning_rate = _deserialize_lr(learning_rate)
            if isinstance(learning_rate, LearningRateSchedule) or callable(learning_rate):
                self._tw_lr = learning_rate
            else:
                self._tw_lr = Variable(np.float32(learning_rate), trainable=False,
                                       name="learning_rate")
        self._tw_index: dict = {}       # id(variable) -> slot index
        self._tw_tracked: list = []     # the variables, in first-seen order (kept alive)
        self._tw_slots: list = []       # per index: slot name -> Variable

    # ----- hyperparameters -----
    @property
    def iterations(self) -> Variable:
        """How many times ``apply_gradients`` ran (an int64 variable)."""
        return self._tw_iterations

    @iterations.setter
    def iterations(self, value) -> None:
        self._tw_iterations.assign(np.int64(int(value)))

    def _step_number(self, dtype):
        """The 1-based number of the step being applied, as ``dtype`` (bias corrections)."""
        return math_ops.cast(self._tw_iterations.read_value() + np.int64(1), dtype)

    @property
    def learning_rate(self):
        """The current learning rate: the float32 variable, or a schedule's value now (Keras 3;
        the schedule itself is ``_learning_rate``)."""
        if isinstance(self._tw_lr, Variable):
            return self._tw_lr
        return self._current_lr()

    @learning_rate.setter
    def learning_rate(self, value) -> None:
        if isinstance(value, LearningRateSchedule) or callable(value):
            self._tw_lr = value
        elif not isinstance(self._tw_lr, Variable):
            raise TypeError("This optimizer was created with a `LearningRateSchedule` object as "
                            "its `learning_rate` constructor argument, hence its learning rate "
                            "is not settable. If you need the learning rate to be settable, "
                            "you should instantiate the optimizer with a float "
                            "`learning_rate` argument.")
        elif isinstance(self._tw_lr, Variable):
            self._tw_lr.assign(np.float32(float(value)))
        else:
            with eager_mode():
                self._tw_lr = Variable(np.float32(float(value)), trainable=False,
                                       name="learning_rate")

    lr = learning_rate

    @property
    def _learning_rate(self):
        """The learning rate as given: the variable or the schedule."""
        return self._tw_lr

    def _current_lr(self):
        lr = self._tw_lr
        if isinstance(lr, Variable):
            return lr.read_value()
        value = lr(self._tw_iterations.read_value()) if isinstance(lr, LearningRateSchedule) \
            else lr()
        return value if isinstance(value, Tensor) else math_ops.cast(value, dtypes.float32)

    # ----- slots -----
    def add_variable_from_reference(self, model_variable: Variable, variable_name: str,
                                    initial_value=None) -> Variable:
        """Creates a slot variable shaped like ``model_variable`` (zeros by default).

        Args:
            model_variable: the trained variable.
            variable_name: the slot name (``m``, ``v``, ``momentum``).
            initial_value: the initial value.

        Returns:
            The slot variable.
        """
        value = np.zeros(model_variable.shape.as_list(), model_variable.dtype.np) \
            if initial_value is None else initial_value
        base = model_variable.name.split(":")[0]
        with eager_mode():
            return Variable(value, trainable=False, name=f"{self.name}/{base}/{variable_name}")

    def _slot_names(self) -> tuple:
        return ()

    def _slot_names_for(self, var) -> tuple:
        """The slots of one variable (all of ``_slot_names`` unless a subclass differs)."""
        return self._slot_names()

    def _all_slot_names(self) -> tuple:
        extra = (("ema",) if self.use_ema else ()) + \
            (("accumulated_grad",) if self.gradient_accumulation_steps else ())
        return self._slot_names() + extra

    def build(self, var_list: list) -> None:
        """Creates the slots of any variable in ``var_list`` not seen before.

        Args:
            var_list: trained variables.
        """
        new = False
        for var in var_list:
            if id(var) in self._tw_index:
                continue
            self._tw_index[id(var)] = len(self._tw_tracked)
            self._tw_tracked.append(var)
            slots = {n: self.add_variable_from_reference(var, n)
                     for n in self._slot_names_for(var)}
            if self.use_ema:
                # zeros: the first update sets it to the variable (momentum 0 at step 0)
                slots["ema"] = Optimizer.add_variable_from_reference(self, var, "ema")
            if self.gradient_accumulation_steps:
                slots["accumulated_grad"] = Optimizer.add_variable_from_reference(
                    self, var, "accumulated_grad")
            self._tw_slots.append(slots)
            new = True
        if new:
            apply_deferred(self)

    def get_slot(self, var: Variable, slot_name: str) -> Variable:
        """The slot ``slot_name`` of ``var``.

        Args:
            var: a trained variable.
            slot_name: the slot's name.

        Returns:
            The slot variable.
        """
        return self._tw_slots[self._tw_index[id(var)]][slot_name]

    def get_slot_names(self) -> list:
        """The names of this optimizer's slots.

        Returns:
            A list of names.
        """
        return list(self._slot_names())

    @property
    def variables(self) -> list:
        """The optimizer's own variables: iterations, learning rate and slots."""
        out = [self._tw_iterations]
        if isinstance(self._tw_lr, Variable):
            out.append(self._tw_lr)
        for slots in self._tw_slots:
            out.extend(slots.values())
        return out

    def _trackable_children(self) -> dict:
        out: dict = {"iter": self._tw_iterations}
        if isinstance(self._tw_lr, Variable):
            out["learning_rate"] = self._tw_lr
        for i, slots in enumerate(self._tw_slots):
            for n, v in slots.items():
                out[f"{n}/{i}"] = v
        return out

    # ----- applying gradients -----
    def _clip(self, grads: list) -> list:
        if self.clipvalue is not None:
            c = float(self.clipvalue)
            return [None if g is None else math_ops.clip_by_value(g, -c, c) for g in grads]
        if self.clipnorm is not None:
            return [None if g is None else math_ops.clip_by_norm(g, float(self.clipnorm))
                    for g in grads]
        if self.global_clipnorm is not None:
            present = [g for g in grads if g is not None]
            clipped, _ = math_ops.clip_by_global_norm(present, float(self.global_clipnorm))
            it = iter(clipped)
            return [None if g is None else next(it) for g in grads]
        return grads

    @name_scoped
    def apply_gradients(self, grads_and_vars, name: str | None = None,
                        skip_gradients_aggregation: bool = False, **kwargs) -> Variable:
        """Updates each variable from its gradient and increments ``iterations``.

        Args:
            grads_and_vars: pairs ``(gradient, variable)``; pairs with a None gradient are
                skipped.
            skip_gradients_aggregation: under a strategy, do not sum the gradients of the
                replicas (they were already).
            **kwargs: ``experimental_aggregate_gradients`` (TF-Keras 2's name: False is
                ``skip_gradients_aggregation=True``); any other keyword raises TypeError.

        Returns:
            The ``iterations`` variable.
        """
        if "experimental_aggregate_gradients" in kwargs:
            skip_gradients_aggregation = not kwargs.pop("experimental_aggregate_gradients")
        refuse_unknown("apply_gradients", kwargs)
        pairs = list(grads_and_vars)
        kept = [(g, v) for g, v in pairs if g is not None]
        if not kept:
            names = [getattr(v, "name", v) for _, v in pairs]
            raise ValueError(f"No gradients provided for any variable: {names}. Check that "
                             "the loss depends on the variables and is computed inside the "
                             "GradientTape.")
        var_list = [v for _, v in kept]
        for var in var_list:
            if not isinstance(var, Variable):
                raise TypeError(f"apply_gradients needs tw.Variables, got {var!r}")
        self.build(var_list)
        grads = [g if g.dtype is v.dtype else math_ops.cast(g, v.dtype)
                 for g, v in ((g, v) for g, v in kept)]
        if not skip_gradients_aggregation:  # several replicas: sum their gradients
            grads = _distributed_training.all_reduce_gradients(grads)
        grads, var_list = self._overwrite_with_gradients(grads, var_list)
        if not var_list:
            self._tw_iterations.assign_add(np.int64(1))
            return self._tw_iterations
        n = self.gradient_accumulation_steps
        if n:
            self._accumulated_update(grads, var_list, n)
        else:
            self._update(self._clip(grads), var_list)
        if self.use_ema:
            self._update_ema(var_list)
        self._tw_iterations.assign_add(np.int64(1))
        return self._tw_iterations

    def _overwrite_with_gradients(self, grads: list, var_list: list) -> tuple:
        """Assigns their gradient to the variables made with
        ``add_weight(overwrite_with_gradient=True)`` (Keras 3's float8 scales); returns the
        other pairs."""
        if not any(getattr(v, "_tw_overwrite_with_gradient", False) for v in var_list):
            return grads, var_list
        if self.gradient_accumulation_steps:
            raise NotImplementedError("overwrite_with_gradient variables with "
                                      "gradient_accumulation_steps are not supported")
        keep = []
        for g, v in zip(grads, var_list):
            if getattr(v, "_tw_overwrite_with_gradient", False):
                v.assign(g)
            else:
                keep.append((g, v))
        return [g for g, _ in keep], [v for _, v in keep]

    def apply(self, grads, trainable_variables=None) -> Variable:
        """Applies ``grads`` to ``trainable_variables`` (Keras 3's form of apply_gradients).

        Args:
            grads: the gradients, one per variable.
            trainable_variables: the variables (default: those of an earlier ``build``).

        Returns:
            The ``iterations`` variable.
        """
        if trainable_variables is None:
            if not self._tw_tracked:
                raise ValueError("When passing `grads` without `variables`, the optimizer must "
                                 "already be built on a list of variables. Call "
                                 "`optimizer.build(trainable_variables)` first.")
            trainable_variables = self._tw_tracked
        grads, variables = list(grads), list(trainable_variables)
        if len(grads) != len(variables):
            raise ValueError(f"apply: {len(grads)} gradients for {len(variables)} variables")
        return self.apply_gradients(zip(grads, variables))

    def _update(self, grads: list, var_list: list) -> None:
        lr = self._current_lr()
        self._prepare(lr)
        for g, var in zip(grads, var_list):
            lr_v = lr if lr.dtype is var.dtype else math_ops.cast(lr, var.dtype)
            if self.weight_decay:
                var.assign_sub(var * (lr_v * float(self.weight_decay)))
            self.update_step(g, var, lr_v)
            if var.constraint is not None:  # Keras: constraints project after each update
                var.assign(var.constraint(var.read_value()))

    def _accumulated_update(self, grads: list, var_list: list, n: int) -> None:
        """Adds the gradients to the accumulators; every ``n``-th step applies their mean.

        The update runs every step and is blended away (``keep`` 0) on the steps that only
        accumulate, so the same ops run eagerly and in a graph, without a conditional."""
        it = self._tw_iterations.read_value()
        step = math_ops.cast(math_ops.equal(math_ops.floormod(it + np.int64(1), np.int64(n)),
                                            np.int64(0)), "float32")
        accs = [self.get_slot(v, "accumulated_grad") for v in var_list]
        means = [(a + g) * (1.0 / n) for a, g in zip(accs, grads)]
        state = [v for v in self.variables if v is not self._tw_iterations] + list(var_list)
        state = [v for v in state if not any(v is a for a in accs)]
        before = [v.read_value() for v in state]
        self._update(self._clip(means), var_list)
        for v, old in zip(state, before):
            keep = math_ops.cast(step, v.dtype)
            v.assign(old + (v.read_value() - old) * keep)
        for a, g in zip(accs, grads):
            keep = math_ops.cast(step, a.dtype)
            a.assign((a + g) * (1.0 - keep))

    def _update_ema(self, var_list: list) -> None:
        it = self._tw_iterations.read_value()
        first = math_ops.cast(math_ops.equal(it, np.int64(0)), "float32")
        freq = self.ema_overwrite_frequency
        for var in var_list:
            ema = self.get_slot(var, "ema")
            momentum = math_ops.cast(self.ema_momentum * (1.0 - first), var.dtype)
            ema.assign(momentum * ema + (1.0 - momentum) * var)
            if freq:
                now = math_ops.cast(math_ops.equal(math_ops.floormod(
                    it + np.int64(1), np.int64(int(freq))), np.int64(0)), var.dtype)
                var.assign(var + (ema - var) * now)

    def finalize_variable_values(self, var_list) -> None:
        """With ``use_ema``, sets each variable to its moving average (end of training).

        Args:
            var_list: the trained variables.
        """
        if not self.use_ema:
            return
        for var in var_list:
            if id(var) in self._tw_index:
                var.assign(self.get_slot(var, "ema"))

    def _prepare(self, lr) -> None:
        """Per-step values shared by every variable's update (override)."""

    def update_step(self, gradient, variable: Variable, learning_rate) -> None:
        """Updates ``variable`` from ``gradient`` (override).

        Args:
            gradient: the gradient.
            variable: the variable.
            learning_rate: the learning rate as a tensor of the variable's dtype.
        """
        raise NotImplementedError

    def scale_loss(self, loss) -> Tensor:
        """The loss to differentiate: ``loss`` itself (``LossScaleOptimizer`` scales it).

        Args:
            loss: the loss.

        Returns:
            The same loss.
        """
        return loss

    def minimize(self, loss, var_list, tape: GradientTape | None = None) -> Variable:
        """Computes gradients of ``loss`` (through ``scale_loss``: ``LossScaleOptimizer``
        scales it) and applies them.

        Args:
            loss: a tensor (with ``tape``) or a zero-argument callable.
            var_list: the variables (or a callable returning them).
            tape: the tape that recorded ``loss``.

        Returns:
            The ``iterations`` variable.
        """
        if tape is None:
            if not callable(loss):
                raise ValueError("`tape` is required when a `Tensor` loss is passed.")
            tape = GradientTape()
        with tape:
            loss = self.scale_loss(loss() if callable(loss) else loss)
        var_list = list(var_list() if callable(var_list) else var_list)
        return self.apply_gradients(zip(tape.gradient(loss, var_list), var_list))

    def get_config(self) -> dict:
        """The constructor arguments.

        Returns:
            A dict.
        """
        lr = self._tw_lr
        cfg = {"name": self.name,
               "learning_rate": float(lr.numpy()) if isinstance(lr, Variable) else lr,
               "weight_decay": self.weight_decay, "clipnorm": self.clipnorm,
               "clipvalue": self.clipvalue, "global_clipnorm": self.global_clipnorm,
               "use_ema": self.use_ema, "ema_momentum": self.ema_momentum,
               "ema_overwrite_frequency": self.ema_overwrite_frequency,
               "gradient_accumulation_steps": self.gradient_accumulation_steps}
        cfg.update(Configurable.get_config(self))  # the subclass's _config_keys
        return cfg


class SGD(Optimizer):
    """Gradient descent with optional (Nesterov) momentum.

    ``m = momentum * m - lr * g``; ``var += m`` (Nesterov: ``var += momentum * m - lr * g``).

    Args:
        learning_rate: the step size.
        momentum: the momentum factor (0: plain gradient descent).
        nesterov: use Nesterov momentum.
        name: the optimizer name.
        **kwargs: Optimizer arguments (clipping, weight decay).
    """

    def __init__(self, learning_rate=0.01, momentum: float = 0.0, nesterov: bool = False,
                 name: str = "SGD", **kwargs) -> None:
        if not 0 <= momentum <= 1:
            raise ValueError(f"`momentum` must be between [0, 1]. Received: momentum={momentum}")
        super().__init__(name=name, learning_rate=learning_rate, **kwargs)
        self.momentum = float(momentum)
        self.nesterov = nesterov

    def _slot_names(self) -> tuple:
        return ("momentum",) if self.momentum else ()

    def update_step(self, gradient, variable, learning_rate) -> None:
        if not self.momentum:
            variable.assign_sub(gradient * learning_rate)
            return
        m = self.get_slot(variable, "momentum")
        step = gradient * learning_rate
        new_m = m * self.momentum - step
        m.assign(new_m)
        if self.nesterov:
            variable.assign_add(new_m * self.momentum - step)
        else:
            variable.assign_add(new_m)

    _config_keys = ("momentum", "nesterov")


class AdamFamily(Optimizer):
    """The base of Adam and its relatives (Adamax, Nadam, Lamb): ``beta_1``, ``beta_2`` and
    ``epsilon``, the moving averages of the gradient and of its square, their bias
    corrections.

    Args:
        learning_rate: the step size.
        beta_1: decay of the first moment.
        beta_2: decay of the second moment.
        epsilon: added to the denominator.
        name: the optimizer name.
        **kwargs: Optimizer arguments (clipping, weight decay).
    """

    def __init__(self, learning_rate, beta_1: float, beta_2: float, epsilon: float, name: str,
                 **kwargs) -> None:
        super().__init__(name=name, learning_rate=learning_rate, **kwargs)
        self.beta_1, self.beta_2, self.epsilon = float(beta_1), float(beta_2), float(epsilon)

    def _update_moments(self, gradient, m: Variable, v: Variable | None) -> None:
        """``m += (g - m)(1 - beta_1)``; unless ``v`` is None, ``v += (g² - v)(1 - beta_2)``."""
        m.assign_add((gradient - m) * (1.0 - self.beta_1))
        if v is not None:
            v.assign_add((math_ops.square(gradient) - v) * (1.0 - self.beta_2))

    @staticmethod
    def _correction(beta: float, t, dtype) -> Tensor:
        """The bias correction ``1 - beta^t`` of a moving average after ``t`` steps."""
        return 1.0 - math_ops.pow(math_ops.cast(beta, dtype), t)

    _config_keys = ("beta_1", "beta_2", "epsilon")


class Adam(AdamFamily):
    """Adam: per-weight step sizes from running moments of the gradient.

    ``m += (g - m)(1 - b1)``; ``v += (g² - v)(1 - b2)``;
    ``var -= lr * sqrt(1 - b2^t) / (1 - b1^t) * m / (sqrt(v) + eps)``.

    Args:
        learning_rate: the step size.
        beta_1: decay of the first moment.
        beta_2: decay of the second moment.
        epsilon: added to the denominator.
        amsgrad: use the maximum of past second moments.
        name: the optimizer name.
        **kwargs: Optimizer arguments (clipping, weight decay).
    """

    def __init__(self, learning_rate=0.001, beta_1: float = 0.9, beta_2: float = 0.999,
                 epsilon: float = 1e-7, amsgrad: bool = False, name: str = "Adam",
                 **kwargs) -> None:
        super().__init__(learning_rate, beta_1, beta_2, epsilon, name, **kwargs)
        self.amsgrad = amsgrad
        self._tw_alpha = None

    def _slot_names(self) -> tuple:
        return ("m", "v", "vhat") if self.amsgrad else ("m", "v")

    def _prepare(self, lr) -> None:
        t = self._step_number(lr.dtype)
        self._tw_alpha = (lr * math_ops.sqrt(self._correction(self.beta_2, t, lr.dtype))
                          / self._correction(self.beta_1, t, lr.dtype))

    def update_step(self, gradient, variable, learning_rate) -> None:
        m = self.get_slot(variable, "m")
        v = self.get_slot(variable, "v")
        vhat = self.get_slot(variable, "vhat") if self.amsgrad else None
        alpha = self._tw_alpha
        if alpha.dtype is not variable.dtype:
            alpha = math_ops.cast(alpha, variable.dtype)
        if _fused_adam.applies(gradient, variable, m, v, vhat):
            keras_adam_update(variable, m, v, vhat, alpha, gradient, self.beta_1,
                              self.beta_2, self.epsilon)
            return
        self._update_moments(gradient, m, v)
        v_used = v
        if self.amsgrad:
            vhat.assign(math_ops.maximum(vhat, v))
            v_used = vhat
        variable.assign_sub((m * alpha) / (math_ops.sqrt(v_used) + self.epsilon))

    _config_keys = AdamFamily._config_keys + ("amsgrad",)


class AdamW(Adam):
    """Adam with decoupled weight decay (``var -= lr * weight_decay * var`` each step).

    Args:
        weight_decay: the decay factor.
        learning_rate, beta_1, beta_2, epsilon, amsgrad, name, **kwargs: as in ``Adam``.
    """

    def __init__(self, learning_rate=0.001, weight_decay: float = 0.004, beta_1: float = 0.9,
                 beta_2: float = 0.999, epsilon: float = 1e-7, amsgrad: bool = False,
                 name: str = "AdamW", **kwargs) -> None:
        super().__init__(learning_rate=learning_rate, beta_1=beta_1, beta_2=beta_2,
                         epsilon=epsilon, amsgrad=amsgrad, name=name,
                         weight_decay=weight_decay, **kwargs)


class RMSprop(Optimizer):
    """RMSprop: divides the step by a running root-mean-square of the gradient.

    Args:
        learning_rate: the step size.
        rho: decay of the squared-gradient average.
        momentum: momentum factor (0: none).
        epsilon: added inside the square root.
        centered: normalize by the variance instead of the second moment.
        name: the optimizer name.
        **kwargs: Optimizer arguments.
    """

    def __init__(self, learning_rate=0.001, rho: float = 0.9, momentum: float = 0.0,
                 epsilon: float = 1e-7, centered: bool = False, name: str = "RMSprop",
                 **kwargs) -> None:
        super().__init__(name=name, learning_rate=learning_rate, **kwargs)
        self.rho = float(rho)
        self.momentum = float(momentum)
        self.epsilon = float(epsilon)
        self.centered = centered

    def _slot_names(self) -> tuple:
        names = ["velocity"]
        if self.momentum:
            names.append("momentum")
        if self.centered:
            names.append("average_gradient")
        return tuple(names)

    def update_step(self, gradient, variable, learning_rate) -> None:
        vel = self.get_slot(variable, "velocity")
        rho = self.rho
        vel.assign(vel * rho + math_ops.square(gradient) * (1.0 - rho))
        denom = vel.read_value()
        if self.centered:
            avg = self.get_slot(variable, "average_gradient")
            avg.assign(avg * rho + gradient * (1.0 - rho))
            denom = denom - math_ops.square(avg.read_value())
        increment = gradient * learning_rate * math_ops.rsqrt(denom + self.epsilon)
        if self.momentum:
            mom = self.get_slot(variable, "momentum")
            mom.assign(mom * self.momentum + increment)
            variable.assign_sub(mom.read_value())
        else:
            variable.assign_sub(increment)

    _config_keys = ("rho", "momentum", "epsilon", "centered")


class Adagrad(Optimizer):
    """Adagrad: steps scaled by the root of the summed squared gradients.

    Args:
        learning_rate: the step size.
        initial_accumulator_value: the accumulators' start value.
        epsilon: added to the accumulator under the square root, as Keras 3.
        name: the optimizer name.
        **kwargs: Optimizer arguments.
    """

    def __init__(self, learning_rate=0.001, initial_accumulator_value: float = 0.1,
                 epsilon: float = 1e-7, name: str = "Adagrad", **kwargs) -> None:
        super().__init__(name=name, learning_rate=learning_rate, **kwargs)
        self.initial_accumulator_value = float(initial_accumulator_value)
        self.epsilon = float(epsilon)

    def _slot_names(self) -> tuple:
        return ("accumulator",)

    def add_variable_from_reference(self, model_variable, variable_name,
                                    initial_value=None) -> Variable:
        value = np.full(model_variable.shape.as_list(), self.initial_accumulator_value,
                        model_variable.dtype.np)
        return super().add_variable_from_reference(model_variable, variable_name, value)

    def update_step(self, gradient, variable, learning_rate) -> None:
        acc = self.get_slot(variable, "accumulator")
        acc.assign_add(math_ops.square(gradient))
        # Keras 3 adds epsilon under the root (TF-Keras 2 added it outside).
        variable.assign_sub(gradient * learning_rate / math_ops.sqrt(acc + self.epsilon))
