"""Keras 3.15's newer optimizers: Lamb, Muon, ScheduleFreeAdamW, and MultiOptimizer with its
OptimizerMap (variables routed to sub-optimizers by path)."""
from __future__ import annotations

import re
from collections.abc import MutableMapping

import numpy as np

from ...core.context import eager_mode
from ...graph.tensor import Tensor
from ...ops import array_ops, linalg_ops, math_ops, reduction_ops
from ...ops.variables import Variable
from ..configurable import serialize
from .loss_scale import LossScaleOptimizer
from .optimizer import AdamFamily, Optimizer


def variable_path(var) -> str:
    """A variable's Keras path (``dense/kernel``): its name without the ``:0`` suffix."""
    return getattr(var, "path", None) or var.name.split(":")[0]


class Lamb(AdamFamily):
    """LAMB (You et al., 2019): Adam's step rescaled per variable by the trust ratio
    ``||w|| / ||step||``.

    Args:
        learning_rate, beta_1, beta_2, epsilon, name, **kwargs: as in ``Adam``.
    """

    def __init__(self, learning_rate=0.001, beta_1: float = 0.9, beta_2: float = 0.999,
                 epsilon: float = 1e-7, name: str = "lamb", **kwargs) -> None:
        super().__init__(learning_rate, beta_1, beta_2, epsilon, name, **kwargs)

    def _slot_names(self) -> tuple:
        return ("momentum", "velocity")

    def update_step(self, gradient, variable, learning_rate) -> None:
        m, v = self.get_slot(variable, "momentum"), self.get_slot(variable, "velocity")
        t = self._step_number(variable.dtype)
        self._update_moments(gradient, m, v)
        m_hat = m / self._correction(self.beta_1, t, variable.dtype)
        v_hat = v / self._correction(self.beta_2, t, variable.dtype)
        update = m_hat / (math_ops.sqrt(v_hat) + self.epsilon)
        w_norm = math_ops.sqrt(reduction_ops.reduce_sum(math_ops.square(variable)))
        g_norm = math_ops.sqrt(reduction_ops.reduce_sum(math_ops.square(update)))
        one = array_ops.ones_like(w_norm)
        ratio = math_ops.where(math_ops.greater(w_norm, 0.0), math_ops.where(
            math_ops.greater(g_norm, 0.0), math_ops.div_no_nan(w_norm, g_norm), one), one)
        variable.assign_sub(ratio * learning_rate * update)


class Muon(Optimizer):
    """Muon (Jordan et al., 2024): momentum orthogonalized by a Newton-Schulz iteration for
    2-D weights; AdamW for the others (biases, embeddings, ``exclude_layers``).

    Args:
        learning_rate: the step size.
        adam_beta_1: AdamW's first-moment decay.
        adam_beta_2: AdamW's second-moment decay.
        adam_weight_decay: the decoupled weight decay of the AdamW variables.
        epsilon: AdamW's denominator term.
        weight_decay: the decoupled weight decay of the Muon variables.
        name: the optimizer name.
        exclude_layers: regular expressions of variable paths updated by AdamW.
        exclude_embeddings: update variables whose path contains ``embedding`` with AdamW.
        muon_a: Newton-Schulz coefficient ``a``.
        muon_b: Newton-Schulz coefficient ``b``.
        muon_c: Newton-Schulz coefficient ``c``.
        adam_lr_ratio: AdamW's learning rate as a multiple of ``learning_rate``.
        momentum: Muon's momentum.
        ns_steps: Newton-Schulz iterations.
        nesterov: Nesterov momentum.
        rms_rate: scales the update by ``sqrt(max(n, m)) * rms_rate`` (None: no scaling).
        **kwargs: Optimizer arguments.
    """

    def __init__(self, learning_rate=0.001, adam_beta_1: float = 0.9,
                 adam_beta_2: float = 0.999, adam_weight_decay: float = 0.004,
                 epsilon: float = 1e-7, weight_decay: float = 0.004, name: str = "muon",
                 exclude_layers=None, exclude_embeddings: bool = True,
                 muon_a: float = 3.4445, muon_b: float = -4.7750, muon_c: float = 2.0315,
                 adam_lr_ratio: float = 1, momentum: float = 0.95, ns_steps: int = 5,
                 nesterov: bool = True, rms_rate: float | None = 0.2, **kwargs) -> None:
        super().__init__(name=name, learning_rate=learning_rate, **kwargs)
        self.muon_weight_decay = weight_decay   # applied per variable in update_step
        self.adam_beta_1, self.adam_beta_2 = adam_beta_1, adam_beta_2
        self.adam_weight_decay, self.epsilon = adam_weight_decay, epsilon
        self.exclude_layers = list(exclude_layers or [])
        self.exclude_embeddings = exclude_embeddings
        self.muon_a, self.muon_b, self.muon_c = muon_a, muon_b, muon_c
        self.adam_lr_ratio, self.momentum, self.ns_steps = adam_lr_ratio, momentum, ns_steps
        self.nesterov, self.rms_rate = nesterov, rms_rate

    def _slot_names(self) -> tuple:
        return ("momentum", "velocity")

    def _slot_names_for(self, var) -> tuple:
        # As Keras: a velocity only for the variables AdamW updates.
        return ("momentum", "velocity") if self._should_use_adamw(var) else ("momentum",)

    def _should_use_adamw(self, variable) -> bool:
        if variable.shape.rank != 2:
            return True
        path = variable_path(variable)
        if self.exclude_embeddings and "embedding" in path.lower():
            return True
        return any(re.search(k, path) for k in self.exclude_layers)

    def update_step(self, gradient, variable, learning_rate) -> None:
        adamw = self._should_use_adamw(variable)
        decay = self.adam_weight_decay if adamw else self.muon_weight_decay
        if decay:  # decoupled, before the step, with the base learning rate (as Keras)
            variable.assign_sub(variable * (learning_rate * float(decay)))
        m = self.get_slot(variable, "momentum")
        if adamw:
            self._adamw_step(gradient, variable, learning_rate * float(self.adam_lr_ratio), m,
                             self.get_slot(variable, "velocity"))
            return
        m.assign_add(gradient + m * (self.momentum - 1.0))
        g = gradient + self.momentum * m if self.nesterov else m.read_value()
        update = self.zeropower_via_newtonschulz5(g, self.ns_steps)
        step = learning_rate * update
        if self.rms_rate is not None:
            n, k = variable.shape.as_list()
            step = step * (float(np.sqrt(max(n, k))) * self.rms_rate)
        variable.assign_sub(step)

    def _adamw_step(self, gradient, variable, lr, m, v) -> None:
        t = self._step_number(variable.dtype)
        b1p = math_ops.pow(math_ops.cast(self.adam_beta_1, variable.dtype), t)
        b2p = math_ops.pow(math_ops.cast(self.adam_beta_2, variable.dtype), t)
        alpha = lr * math_ops.sqrt(1.0 - b2p) / (1.0 - b1p)
        m.assign_add((gradient - m) * (1.0 - self.adam_beta_1))
        v.assign_add((math_ops.square(gradient) - v) * (1.0 - self.adam_beta_2))
        variable.assign_sub(m * alpha / (math_ops.sqrt(v) + self.epsilon))

    def zeropower_via_newtonschulz5(self, x, steps: int) -> Tensor:
        """An approximate orthogonalization ``U S' V^T`` of ``x`` by the quintic
        Newton-Schulz iteration.

        Args:
            x: a tensor of rank >= 2.
            steps: the iterations.

        Returns:
            The orthogonalized tensor.
        """
        rank = x.shape.rank
        if rank is None or rank < 2:
            raise ValueError("Expected gradient or momentum to have at least 2 dimensions. "
                             f"Received: shape={x.shape}")
        perm = list(range(rank - 2)) + [rank - 1, rank - 2]
        dims = x.shape.as_list()
        tall = dims[-2] > dims[-1]
        if tall:
            x = array_ops.transpose(x, perm)
        a, b, c = self.muon_a, self.muon_b, self.muon_c
        norm = math_ops.sqrt(reduction_ops.reduce_sum(math_ops.square(x), axis=[-2, -1],
                                                      keepdims=True))
        x = x / (norm + 1e-7)
        for _ in range(steps):
            xxt = linalg_ops.matmul(x, array_ops.transpose(x, perm))
            x = a * x + linalg_ops.matmul(b * xxt + c * linalg_ops.matmul(xxt, xxt), x)
        return array_ops.transpose(x, perm) if tall else x

    def get_config(self) -> dict:
        cfg = super().get_config()
        cfg["weight_decay"] = self.muon_weight_decay
        return cfg

    _config_keys = ("adam_beta_1", "adam_beta_2", "epsilon", "exclude_layers", "muon_a",
                    "muon_b", "muon_c", "adam_lr_ratio", "momentum", "ns_steps", "nesterov",
                    "exclude_embeddings", "adam_weight_decay", "rms_rate")


class ScheduleFreeAdamW(Optimizer):
    """Schedule-Free AdamW (Defazio et al., 2024): no learning-rate schedule; the weights are
    an interpolation between the gradient sequence (``momentum`` slot) and its running
    average.

    Args:
        learning_rate: the step size.
        beta_1: the interpolation between the two sequences.
        beta_2: decay of the second moment.
        epsilon: added to the denominator.
        warmup_steps: steps over which the rate rises linearly from 0.
        name: the optimizer name.
        **kwargs: Optimizer arguments.
    """

    def __init__(self, learning_rate=0.0025, beta_1: float = 0.9, beta_2: float = 0.999,
                 epsilon: float = 1e-8, warmup_steps: int = 0,
                 name: str = "schedule_free_adamw", **kwargs) -> None:
        super().__init__(name=name, learning_rate=learning_rate, **kwargs)
        self.beta_1, self.beta_2, self.epsilon = float(beta_1), float(beta_2), float(epsilon)
        self.warmup_steps = int(warmup_steps)

    def _slot_names(self) -> tuple:
        return ("momentum", "velocity")

    def add_variable_from_reference(self, model_variable: Variable, variable_name: str,
                                    initial_value=None) -> Variable:
        if variable_name == "momentum" and initial_value is None:
            with eager_mode():   # the gradient sequence starts at the weights
                initial_value = np.array(model_variable.numpy())
        return super().add_variable_from_reference(model_variable, variable_name,
                                                   initial_value)

    def update_step(self, gradient, variable, learning_rate) -> None:
        t = self._step_number(variable.dtype)
        lr = learning_rate
        if self.warmup_steps > 0:
            lr = lr * math_ops.minimum(t / float(self.warmup_steps), 1.0)
        z, v = self.get_slot(variable, "momentum"), self.get_slot(variable, "velocity")
        v.assign_add((math_ops.square(gradient) - v) * (1.0 - self.beta_2))
        b2 = 1.0 - math_ops.pow(math_ops.cast(self.beta_2, variable.dtype), t)
        z.assign_sub(lr * gradient / (math_ops.sqrt(v / b2) + self.epsilon))
        b1, weight = self.beta_1, 1.0 / t
        # Keras 3.15 reads the gradient sequence after its update here (its `momentum.value`
        # is the variable itself on the TensorFlow backend); twinflow matches its numbers.
        x_old = (variable - (1.0 - b1) * z) / b1
        x_new = (1.0 - weight) * x_old + weight * z
        variable.assign((1.0 - b1) * z + b1 * x_new)

    _config_keys = ("beta_1", "beta_2", "epsilon", "warmup_steps")


class OptimizerMap(MutableMapping):
    """Maps variable paths (exact, else regular expressions matched whole) to optimizers.

    Args:
        default_optimizer: the optimizer of variables no key matches.
        optimizer_map: ``{path or pattern: optimizer}``.
    """

    def __init__(self, default_optimizer: Optimizer, optimizer_map: dict | None = None) -> None:
        if not isinstance(default_optimizer, Optimizer):
            raise TypeError("default_optimizer must be a Keras Optimizer instance. "
                            f"Received: {default_optimizer}")
        if optimizer_map is not None and not isinstance(optimizer_map, dict):
            raise TypeError(f"optimizer_map must be a dictionary. Received: {optimizer_map}")
        self._default_optimizer = default_optimizer
        self._optimizer_map: dict = {}
        for k, v in (optimizer_map or {}).items():
            self[k] = v

    @property
    def default_optimizer(self) -> Optimizer:
        """The optimizer of unmatched variables."""
        return self._default_optimizer

    def __getitem__(self, key: str) -> Optimizer:
        if key in self._optimizer_map:
            return self._optimizer_map[key]
        hits = [p for p in self._optimizer_map if re.fullmatch(p, key)]
        if len(hits) > 1:
            raise ValueError(f"Multiple optimizers assigned to variable {key}.")
        return self._optimizer_map[hits[0]] if hits else self._default_optimizer

    def __setitem__(self, key: str, optimizer: Optimizer) -> None:
        if key in self._optimizer_map:
            raise ValueError(f"'{key}' already exists in the OptimizerMap with value "
                             f"{self._optimizer_map[key]}. Please make sure to not use "
                             "duplicated keys.")
        if not isinstance(key, str):
            raise ValueError(f"key must be a string. Received: {key}")
        if not isinstance(optimizer, Optimizer):
            raise ValueError(f"optimizer must be a Keras Optimizer instance. Received: "
                             f"{optimizer}")
        if isinstance(optimizer, (LossScaleOptimizer, MultiOptimizer)):
            raise ValueError(f"optimizer cannot be {type(optimizer).__name__}.")
        self._optimizer_map[key] = optimizer

    def __delitem__(self, key: str) -> None:
        del self._optimizer_map[key]

    def __len__(self) -> int:
        return len(self._optimizer_map)

    def __iter__(self):
        return iter(self._optimizer_map)

    def __call__(self, variable) -> Optimizer:
        """The optimizer of ``variable`` (by its path).

        Args:
            variable: a trained variable.

        Returns:
            The optimizer.
        """
        return self[variable_path(variable)]

    def get_config(self) -> dict:
        """The default optimizer and the map, serialized.

        Returns:
            A dict.
        """
        return {"default_optimizer": serialize(self._default_optimizer),
                "optimizer_map": {k: serialize(v) for k, v in self._optimizer_map.items()}}

    @classmethod
    def from_config(cls, config: dict, custom_objects: dict | None = None) -> OptimizerMap:
        """Rebuilds a map from ``get_config``.

        Args:
            config: the dict.
            custom_objects: name -> class for custom optimizers.

        Returns:
            The map.
        """
        de = _registry.deserialize
        return cls(de(config["default_optimizer"], custom_objects),
                   {k: de(v, custom_objects) for k, v in config["optimizer_map"].items()})


class MultiOptimizer(Optimizer):
    """Routes each variable to an optimizer chosen by an ``OptimizerMap`` or a function of the
    variable; each sub-optimizer updates its variables; ``iterations`` counts the steps.

    Args:
        optimizer_map: an ``OptimizerMap`` or ``fn(variable) -> Optimizer``.
        loss_scale_factor: must be None (twinflow scales losses with LossScaleOptimizer).
        name: the optimizer name.
    """

    def __init__(self, optimizer_map, loss_scale_factor=None,
                 name: str = "multi_optimizer") -> None:
        if loss_scale_factor is not None:
            raise NotImplementedError("twinflow's optimizers have no loss_scale_factor; wrap "
                                      "the model's optimizer in LossScaleOptimizer instead")
        if not (isinstance(optimizer_map, OptimizerMap) or callable(optimizer_map)):
            raise TypeError("optimizer_map must be an OptimizerMap or a function of the "
                            f"variable. Received: {optimizer_map!r}")
        super().__init__(name=name, learning_rate=0.0)
        self.loss_scale_factor = None
        self._optimizer_map = optimizer_map
        self._inner: list = []
        if isinstance(optimizer_map, OptimizerMap):
            for opt in list(optimizer_map.values()) + [optimizer_map.default_optimizer]:
                if not any(opt is o for o in self._inner):
                    self._inner.append(opt)
        self._route: dict = {}      # id(variable) -> index in _inner

    @property
    def optimizers(self) -> list:
        """The sub-optimizers."""
        return self._inner

    @property
    def learning_rate(self):
        """Refuses: each sub-optimizer has its own rate."""
        raise AttributeError("Learning rate cannot be accessed on a MultiOptimizer. Access "
                             "the learning rate on the individual sub-optimizers instead.")

    @learning_rate.setter
    def learning_rate(self, value) -> None:
        raise AttributeError("Learning rate cannot be set on a MultiOptimizer. Set the "
                             "learning rate on the individual sub-optimizers instead.")

    def _index(self, var) -> int:
        if id(var) in self._route:
            return self._route[id(var)]
        opt = self._optimizer_map(var)
        if not isinstance(opt, Optimizer):
            raise ValueError(f"Optimizer for variable {var.name} is not an Optimizer instance.")
        if isinstance(opt, (LossScaleOptimizer, MultiOptimizer)):
            raise ValueError(f"{type(opt).__name__} cannot be used inside a MultiOptimizer.")
        if not any(opt is o for o in self._inner):
            self._inner.append(opt)
        i = next(k for k, o in enumerate(self._inner) if o is opt)
        self._route[id(var)] = i
        return i

    def _groups(self, var_list: list) -> list:
        groups: list = [[] for _ in self._inner]
        for var in var_list:
            i = self._index(var)
            groups.extend([] for _ in range(len(self._inner) - len(groups)))
            groups[i].append(var)
        return groups

    def build(self, var_list: list) -> None:
        """Routes the variables and builds each sub-optimizer on its own.

        Args:
            var_list: the trained variables.
        """
        for var in var_list:
            if id(var) not in self._tw_index:
                self._tw_index[id(var)] = len(self._tw_tracked)
                self._tw_tracked.append(var)
                self._tw_slots.append({})
        for opt, group in zip(self._inner, self._groups(list(var_list))):
            if group:
                opt.build(group)

    @property
    def variables(self) -> list:
        """``iterations``, then each sub-optimizer's variables."""
        out = [self._tw_iterations]
        for opt in self._inner:
            out.extend(opt.variables)
        return out

    def _trackable_children(self) -> dict:
        out: dict = {"iter": self._tw_iterations}
        for i, opt in enumerate(self._inner):
            out[f"optimizer_{i}"] = opt
        return out

    def apply_gradients(self, grads_and_vars, name: str | None = None, **kwargs) -> Variable:
        """Hands each sub-optimizer its (gradient, variable) pairs, then counts the step.

        Args:
            grads_and_vars: pairs ``(gradient, variable)``.
            name: unused (each sub-optimizer scopes its own ops).
            **kwargs: passed to the sub-optimizers.

        Returns:
            The ``iterations`` variable.
        """
        pairs = [(g, v) for g, v in grads_and_vars if g is not None]
        self.build([v for _, v in pairs])
        per: list = [[] for _ in self._inner]
        for g, v in pairs:
            per[self._index(v)].append((g, v))
        for opt, sub in zip(self._inner, per):
            if sub:
                opt.apply_gradients(sub, **kwargs)
        self._tw_iterations.assign_add(np.int64(1))
        return self._tw_iterations

    def finalize_variable_values(self, var_list) -> None:
        for opt, group in zip(self._inner, self._groups(list(var_list))):
            if group:
                opt.finalize_variable_values(group)

    def get_config(self) -> dict:
        if not isinstance(self._optimizer_map, OptimizerMap):
            raise TypeError("A MultiOptimizer built on a function cannot be serialized; use "
                            "an OptimizerMap")
        return {"optimizer_map": {"class_name": "OptimizerMap",
                                  "config": self._optimizer_map.get_config()},
                "loss_scale_factor": None, "name": self.name}

    @classmethod
    def from_config(cls, config: dict, custom_objects: dict | None = None) -> MultiOptimizer:
        """Rebuilds the optimizer from ``get_config`` (its map by ``OptimizerMap.from_config``).

        Args:
            config, custom_objects: as in ``OptimizerMap.from_config``.

        Returns:
            The optimizer.
        """
        config = dict(config)
        omap = config.pop("optimizer_map")
        return cls(OptimizerMap.from_config(omap.get("config", omap), custom_objects),
                   **config)


class _Registry:
    """The name -> class table of ``optimizers/__init__.py``, declared there through
    ``register_optimizers`` (that module imports this one)."""

    def __init__(self) -> None:
        self.classes: dict = {}

    def deserialize(self, config, custom_objects: dict | None = None) -> Optimizer:
        if isinstance(config, Optimizer):
            return config
        name = config.get("class_name") if isinstance(config, dict) else None
        cls = (custom_objects or {}).get(name) or self.classes.get(str(name).lower())
        if cls is None:
            raise ValueError(f"Unknown optimizer: {name!r}")
        cfg = dict(config.get("config", {}))
        if hasattr(cls, "from_config") and cls in (MultiOptimizer,):
            return cls.from_config(cfg, custom_objects)
        return cls(**cfg)


_registry = _Registry()


def register_optimizers(classes: dict[str, type]) -> None:
    """Declares the optimizer classes ``deserialize`` knows (lower-case name -> class).

    Args:
        classes: the table.
    """
    _registry.classes.update(classes)

