"""More Keras optimizers: Adadelta, Adamax, Nadam, Ftrl, Lion (Keras 3's update rules)."""
from __future__ import annotations

import numpy as np

from ...core.context import eager_mode
from ...ops import array_ops, math_ops, reduction_ops
from ...ops.variables import Variable
from .optimizer import AdamFamily, Optimizer


class Adadelta(Optimizer):
    """Adadelta: steps scaled by running averages of squared gradients and squared updates.

    Args:
        learning_rate: the step size (Keras 3 default 0.001).
        rho: the decay of the running averages.
        epsilon: added inside the square roots.
        name: the optimizer name.
        **kwargs: Optimizer arguments.
    """

    def __init__(self, learning_rate=0.001, rho: float = 0.95, epsilon: float = 1e-7,
                 name: str = "adadelta", **kwargs) -> None:
        super().__init__(name=name, learning_rate=learning_rate, **kwargs)
        self.rho = float(rho)
        self.epsilon = float(epsilon)

    def _slot_names(self) -> tuple:
        return ("accumulated_grad", "accumulated_delta_var")

    def update_step(self, gradient, variable, learning_rate) -> None:
        acc_g = self.get_slot(variable, "accumulated_grad")
        acc_d = self.get_slot(variable, "accumulated_delta_var")
        rho, eps = self.rho, self.epsilon
        acc_g.assign(rho * acc_g + (1.0 - rho) * math_ops.square(gradient))
        delta = -math_ops.sqrt(acc_d + eps) / math_ops.sqrt(acc_g + eps) * gradient
        acc_d.assign(rho * acc_d + (1.0 - rho) * math_ops.square(delta))
        variable.assign_add(learning_rate * delta)

    _config_keys = ("rho", "epsilon")


class Adamax(AdamFamily):
    """Adamax: Adam with the infinity norm of past gradients instead of their second moment.

    Args:
        beta_2: decay of the infinity norm.
        learning_rate, beta_1, epsilon, name, **kwargs: as in ``Adam``.
    """

    def __init__(self, learning_rate=0.001, beta_1: float = 0.9, beta_2: float = 0.999,
                 epsilon: float = 1e-7, name: str = "adamax", **kwargs) -> None:
        super().__init__(learning_rate, beta_1, beta_2, epsilon, name, **kwargs)

    def _slot_names(self) -> tuple:
        return ("m", "u")

    def update_step(self, gradient, variable, learning_rate) -> None:
        m, u = self.get_slot(variable, "m"), self.get_slot(variable, "u")
        t = self._step_number(variable.dtype)
        self._update_moments(gradient, m, None)
        u.assign(math_ops.maximum(self.beta_2 * u, math_ops.abs(gradient)))
        correction = self._correction(self.beta_1, t, variable.dtype)
        variable.assign_sub(learning_rate * m / (correction * (u + self.epsilon)))


class Nadam(AdamFamily):
    """Nadam: Adam with Nesterov momentum (and Keras' momentum schedule ``0.96 ** t``).

    Args:
        learning_rate, beta_1, beta_2, epsilon, name, **kwargs: as in ``Adam``.
    """

    def __init__(self, learning_rate=0.001, beta_1: float = 0.9, beta_2: float = 0.999,
                 epsilon: float = 1e-7, name: str = "nadam", **kwargs) -> None:
        super().__init__(learning_rate, beta_1, beta_2, epsilon, name, **kwargs)
        with eager_mode():
            self._tw_u_product = Variable(np.float32(1.0), trainable=False, name="u_product")

    def _slot_names(self) -> tuple:
        return ("m", "v")

    @property
    def variables(self) -> list:
        """The optimizer's variables (with the momentum-schedule product)."""
        return super().variables + [self._tw_u_product]

    def _trackable_children(self) -> dict:
        out = super()._trackable_children()
        out["u_product"] = self._tw_u_product
        return out

    def _prepare(self, lr) -> None:
        # Once per step, before the variables' updates (Keras' _backend_update_step).
        t = self._step_number("float32")
        self._tw_u_product.assign(
            self._tw_u_product * self.beta_1 * (1.0 - 0.5 * math_ops.pow(0.96, t)))

    def update_step(self, gradient, variable, learning_rate) -> None:
        dt = variable.dtype
        it = self._tw_iterations.read_value()
        t = math_ops.cast(it + np.int64(1), dt)
        t1 = math_ops.cast(it + np.int64(2), dt)
        u_t = self.beta_1 * (1.0 - 0.5 * math_ops.pow(math_ops.cast(0.96, dt), t))
        u_t_1 = self.beta_1 * (1.0 - 0.5 * math_ops.pow(math_ops.cast(0.96, dt), t1))
        u_prod = math_ops.cast(self._tw_u_product.read_value(), dt)
        u_prod_1 = u_prod * u_t_1
        m, v = self.get_slot(variable, "m"), self.get_slot(variable, "v")
        self._update_moments(gradient, m, v)
        m_hat = u_t_1 * m / (1.0 - u_prod_1) + (1.0 - u_t) * gradient / (1.0 - u_prod)
        v_hat = v / self._correction(self.beta_2, t, dt)
        variable.assign_sub(m_hat * learning_rate / (math_ops.sqrt(v_hat) + self.epsilon))


class Ftrl(Optimizer):
    """Follow-the-regularized-leader (FTRL-Proximal), for wide sparse linear models.

    Args:
        learning_rate: the step size.
        learning_rate_power: the power of the per-coordinate step decay (<= 0).
        initial_accumulator_value: the accumulators' start value (>= 0).
        l1_regularization_strength: L1 strength (>= 0).
        l2_regularization_strength: L2 strength (>= 0).
        l2_shrinkage_regularization_strength: L2 shrinkage on the gradient (>= 0).
        beta: added to the accumulators' denominator.
        name: the optimizer name.
        **kwargs: Optimizer arguments.
    """

    def __init__(self, learning_rate=0.001, learning_rate_power: float = -0.5,
                 initial_accumulator_value: float = 0.1, l1_regularization_strength: float = 0.0,
                 l2_regularization_strength: float = 0.0,
                 l2_shrinkage_regularization_strength: float = 0.0, beta: float = 0.0,
                 name: str = "ftrl", **kwargs) -> None:
        super().__init__(name=name, learning_rate=learning_rate, **kwargs)
        values = {"learning_rate_power": learning_rate_power,
                  "initial_accumulator_value": initial_accumulator_value,
                  "l1_regularization_strength": l1_regularization_strength,
                  "l2_regularization_strength": l2_regularization_strength,
                  "l2_shrinkage_regularization_strength": l2_shrinkage_regularization_strength,
                  "beta": beta}
        for k, v in values.items():
            if v < 0.0 and k not in ("learning_rate_power", "beta"):
                raise ValueError(f"`{k}` needs to be positive or zero. Received: {k}={v}.")
        if learning_rate_power > 0.0:
            raise ValueError(f"`learning_rate_power` needs to be negative or zero. Received: "
                             f"learning_rate_power={learning_rate_power}.")
        for k, v in values.items():  # the _config_keys, as floats
            setattr(self, k, float(v))

    def _slot_names(self) -> tuple:
        return ("accumulator", "linear")

    def add_variable_from_reference(self, model_variable, variable_name,
                                    initial_value=None) -> Variable:
        if variable_name == "accumulator":
            initial_value = np.full(model_variable.shape.as_list(),
                                    self.initial_accumulator_value, model_variable.dtype.np)
        return super().add_variable_from_reference(model_variable, variable_name, initial_value)

    def update_step(self, gradient, variable, learning_rate) -> None:
        lr = learning_rate
        acc = self.get_slot(variable, "accumulator")
        linear = self.get_slot(variable, "linear")
        p = self.learning_rate_power
        l2 = self.l2_regularization_strength + self.beta / (2.0 * lr)
        g = gradient + 2.0 * self.l2_shrinkage_regularization_strength * variable
        new_acc = acc + math_ops.square(gradient)
        linear.assign_add(g - (math_ops.pow(new_acc, -p) - math_ops.pow(acc, -p)) / lr * variable)
        quadratic = math_ops.pow(new_acc, -p) / lr + 2.0 * l2
        l1 = self.l1_regularization_strength
        clipped = math_ops.clip_by_value(linear, -l1, l1)
        variable.assign((clipped - linear) / quadratic)
        acc.assign(new_acc)

    _config_keys = ("learning_rate_power", "initial_accumulator_value",
                    "l1_regularization_strength", "l2_regularization_strength",
                    "l2_shrinkage_regularization_strength", "beta")


class Lion(Optimizer):
    """Lion: steps of size ``learning_rate`` along the sign of an interpolated momentum.

    Args:
        learning_rate: the step size (usually 3-10x smaller than Adam's).
        beta_1: interpolation between momentum and gradient for the step.
        beta_2: decay of the momentum.
        name: the optimizer name.
        **kwargs: Optimizer arguments.
    """

    def __init__(self, learning_rate=0.001, beta_1: float = 0.9, beta_2: float = 0.99,
                 name: str = "lion", **kwargs) -> None:
        super().__init__(name=name, learning_rate=learning_rate, **kwargs)
        if not 0 < beta_1 <= 1:
            raise ValueError(f"Argument `beta_1` must be in the [0, 1] range. Otherwise, the "
                             f"optimizer degenerates to SignSGD. Received: beta_1={beta_1}.")
        self.beta_1, self.beta_2 = float(beta_1), float(beta_2)

    def _slot_names(self) -> tuple:
        return ("momentum",)

    def update_step(self, gradient, variable, learning_rate) -> None:
        m = self.get_slot(variable, "momentum")
        variable.assign_sub(learning_rate * math_ops.sign(m * self.beta_1 +
                                                          gradient * (1.0 - self.beta_1)))
        m.assign(m * self.beta_2 + gradient * (1.0 - self.beta_2))

    _config_keys = ("beta_1", "beta_2")


class Adafactor(Optimizer):
    """Adafactor: Adam-like steps whose second moments of matrices are kept factored (a row
    and a column average), with step sizes relative to the weights' scale.

    Args:
        learning_rate: the step size (capped at ``1/sqrt(step)`` when ``relative_step``).
        beta_2_decay: the second moment's decay exponent (``1 - step**beta_2_decay``).
        epsilon_1: added to squared gradients.
        epsilon_2: the smallest weight scale.
        clip_threshold: the update's RMS cap.
        relative_step: cap the learning rate at ``1/sqrt(step)``.
        name: the optimizer name.
        **kwargs: Optimizer arguments.
    """

    def __init__(self, learning_rate=0.001, beta_2_decay: float = -0.8,
                 epsilon_1: float = 1e-30, epsilon_2: float = 1e-3, clip_threshold: float = 1.0,
                 relative_step: bool = True, name: str = "adafactor", **kwargs) -> None:
        super().__init__(name=name, learning_rate=learning_rate, **kwargs)
        self.beta_2_decay, self.epsilon_1 = float(beta_2_decay), float(epsilon_1)
        self.epsilon_2, self.clip_threshold = float(epsilon_2), float(clip_threshold)
        self.relative_step = bool(relative_step)

    def _slot_names(self) -> tuple:
        return ("r", "c", "velocity")

    def add_variable_from_reference(self, model_variable, variable_name,
                                    initial_value=None) -> Variable:
        dims = model_variable.shape.as_list()
        if variable_name in ("r", "c"):
            # Factored second moments of a matrix: row and column means (scalars otherwise).
            shape = () if len(dims) < 2 else (dims[:-1] if variable_name == "r"
                                              else dims[:-2] + dims[-1:])
            initial_value = np.zeros(shape, model_variable.dtype.np)
        return super().add_variable_from_reference(model_variable, variable_name, initial_value)

    @staticmethod
    def _rms(x):
        return math_ops.sqrt(reduction_ops.reduce_mean(math_ops.square(x)))

    def update_step(self, gradient, variable, learning_rate) -> None:
        dt = variable.dtype
        step = self._step_number(dt)
        lr = learning_rate
        if self.relative_step and isinstance(self._tw_lr, Variable):
            lr = math_ops.minimum(lr, 1.0 / math_ops.sqrt(step))
        r, c, v = (self.get_slot(variable, n) for n in ("r", "c", "velocity"))
        rho = math_ops.minimum(lr, 1.0 / math_ops.sqrt(step))
        alpha = math_ops.maximum(math_ops.cast(self.epsilon_2, dt), self._rms(variable)) * rho
        g2 = math_ops.square(gradient) + self.epsilon_1
        beta = 1.0 - math_ops.pow(step, math_ops.cast(self.beta_2_decay, dt))
        if variable.shape.rank >= 2:
            r.assign(beta * r + (1.0 - beta) * reduction_ops.reduce_mean(g2, axis=-1))
            c.assign(beta * c + (1.0 - beta) * reduction_ops.reduce_mean(g2, axis=-2))
            v.assign(array_ops.expand_dims(
                r / reduction_ops.reduce_mean(r, axis=-1, keepdims=True), -1) *
                array_ops.expand_dims(c, -2))
        else:
            v.assign(beta * v + (1.0 - beta) * g2)
        u = gradient / math_ops.sqrt(v)
        u_hat = u / math_ops.maximum(1.0, self._rms(u) / self.clip_threshold)
        variable.assign_sub(alpha * u_hat)

    _config_keys = ("beta_2_decay", "epsilon_1", "epsilon_2", "clip_threshold", "relative_step")
