"""``tw.keras.mixed_precision``: dtype policies and dynamic loss scaling.

Under ``'mixed_float16'`` layers compute in float16 with float32 variables (see
``dtype_policies``). float16 gradients underflow, so the loss is multiplied by a large scale
before differentiating and the gradients divided by it before the update:
``LossScaleOptimizer`` does both, and adapts the scale: a step whose gradients are not all
finite is skipped and halves the scale; ``dynamic_growth_steps`` finite steps in a row double
it. ``Model.compile`` wraps the optimizer in one when the model's policy is
``'mixed_float16'``, as Keras does, and ``fit``'s step scales the loss.
"""
from __future__ import annotations

from .dtype_policies import DTypePolicy, dtype_policy, global_policy, set_dtype_policy
from .optimizers.loss_scale import LossScaleOptimizer

Policy = DTypePolicy


def set_global_policy(policy) -> None:
    """Sets the policy of layers created from now on (``'mixed_float16'``, ``'float32'``...).

    Args:
        policy: a DTypePolicy or its name.
    """
    set_dtype_policy(policy)


__all__ = ["Policy", "DTypePolicy", "LossScaleOptimizer", "global_policy",
           "set_global_policy", "dtype_policy", "set_dtype_policy"]
