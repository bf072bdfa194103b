"""``tw.keras.mixed_precision``: dtype policies, accepted and recorded.

twinflow computes in the layers' own dtype (float32 by default): NumPy on a CPU gains nothing
from float16 arithmetic, so ``'mixed_float16'`` is accepted, reported by ``global_policy()``,
and changes no results. ``LossScaleOptimizer`` therefore scales by 1.
"""
from __future__ import annotations

from .optimizers.optimizer import Optimizer

_KNOWN = {"float32": ("float32", "float32"), "float64": ("float64", "float64"),
          "float16": ("float16", "float16"), "bfloat16": ("bfloat16", "bfloat16"),
          "mixed_float16": ("float16", "float32"), "mixed_bfloat16": ("bfloat16", "float32")}


class Policy:
    """A dtype policy: the dtype layers compute in and the dtype of their variables.

    Args:
        name: ``'float32'``, ``'mixed_float16'``, ``'mixed_bfloat16'``...
    """

    def __init__(self, name: str) -> None:
        if name not in _KNOWN:
            raise ValueError(f"Cannot convert value {name!r} to a mixed precision Policy. "
                             f"Valid policies: {sorted(_KNOWN)}")
        self.name = name
        self._compute, self._variable = _KNOWN[name]

    @property
    def compute_dtype(self) -> str:
        """The dtype a layer would compute in under this policy."""
        return self._compute

    @property
    def variable_dtype(self) -> str:
        """The dtype of a layer's variables under this policy."""
        return self._variable

    def __repr__(self) -> str:
        return f'<Policy "{self.name}">'


_GLOBAL = [Policy("float32")]


def set_global_policy(policy) -> None:
    """Records the global dtype policy (twinflow keeps computing in float32).

    Args:
        policy: a Policy or its name.
    """
    _GLOBAL[0] = policy if isinstance(policy, Policy) else Policy(str(policy))


def global_policy() -> Policy:
    """The policy set by ``set_global_policy`` (``'float32'`` by default).

    Returns:
        The Policy.
    """
    return _GLOBAL[0]


class LossScaleOptimizer:
    """Wraps an optimizer for loss scaling; with float32 compute the scale is 1.

    Args:
        inner_optimizer: the optimizer that applies the updates.
        dynamic: accepted.
        initial_scale: accepted.
        dynamic_growth_steps: accepted.
    """

    def __init__(self, inner_optimizer: Optimizer, dynamic: bool = True, initial_scale=None,
                 dynamic_growth_steps=None) -> None:
        self.inner_optimizer = inner_optimizer
        self.loss_scale = 1.0

    def get_scaled_loss(self, loss):
        """The loss times the loss scale (1).

        Args:
            loss: the loss.

        Returns:
            The same loss.
        """
        return loss

    def get_unscaled_gradients(self, grads):
        """Gradients divided by the loss scale (1).

        Args:
            grads: gradients.

        Returns:
            The same gradients.
        """
        return grads

    def __getattr__(self, name: str):
        return getattr(self.__dict__["inner_optimizer"], name)
