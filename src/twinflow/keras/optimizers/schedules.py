"""``tw.keras.optimizers.schedules``: learning rates as functions of the step.

Schedules are written with twinflow ops on the step tensor, so the same schedule works in an
eager loop and inside a traced train step.
"""
from __future__ import annotations

import math

from ...core import dtypes
from ...core.context import ctx
from ...ops import math_ops
from ..configurable import Configurable
from ..configurable import serialize as _serialize
from ..losses import _tensor


def _step(step):
    return _tensor(step, dtypes.float32)


class LearningRateSchedule(Configurable):
    """Base class: ``schedule(step)`` returns the learning rate at ``step``.

    The built-in schedules define ``_rate(step)``; in a graph its ops go in a name scope named
    after the schedule (its ``name``, else its class name), as in Keras.
    """

    name: str | None = None

    def __call__(self, step):
        g = ctx.graph
        if g is None:
            return self._rate(step)
        with g.name_scope(self.name or type(self).__name__):
            return self._rate(step)

    def _rate(self, step):
        raise NotImplementedError(f"{type(self).__name__} must define __call__(step)")


class _Decay(LearningRateSchedule):
    """The arguments of the schedules that decay ``initial_learning_rate`` over
    ``decay_steps`` (which must be positive, as in Keras 3)."""

    def __init__(self, initial_learning_rate: float, decay_steps: int,
                 name: str | None) -> None:
        if decay_steps <= 0:
            raise ValueError(f"Argument `decay_steps` must be > 0. Received: "
                             f"decay_steps={decay_steps}")
        self.name = name
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps


class _RateDecay(_Decay):
    """The arguments ExponentialDecay and InverseTimeDecay share, and their progress
    ``step / decay_steps`` (floored with ``staircase``)."""

    _config_keys = ("initial_learning_rate", "decay_steps", "decay_rate", "staircase", "name")

    def __init__(self, initial_learning_rate: float, decay_steps: int, decay_rate: float,
                 staircase: bool = False, name: str | None = None) -> None:
        super().__init__(initial_learning_rate, decay_steps, name)
        self.decay_rate = decay_rate
        self.staircase = staircase

    def _progress(self, step):
        p = _step(step) / float(self.decay_steps)
        return math_ops.floor(p) if self.staircase else p


class ExponentialDecay(_RateDecay):
    """``initial * decay_rate ** (step / decay_steps)`` (floored exponent with staircase).

    Args:
        initial_learning_rate: the rate at step 0.
        decay_steps: the steps per factor of ``decay_rate``.
        decay_rate: the decay factor.
        staircase: decay in discrete intervals.
        name: the name scope of its ops in a graph.
    """

    def __init__(self, initial_learning_rate: float, decay_steps: int, decay_rate: float,
                 staircase: bool = False, name: str = "ExponentialDecay") -> None:
        super().__init__(initial_learning_rate, decay_steps, decay_rate, staircase, name)

    def _rate(self, step):
        return float(self.initial_learning_rate) * math_ops.pow(
            _tensor(float(self.decay_rate), dtypes.float32), self._progress(step))


class InverseTimeDecay(_RateDecay):
    """``initial / (1 + decay_rate * step / decay_steps)``.

    Args:
        initial_learning_rate: the rate at step 0.
        decay_steps: the step scale.
        decay_rate: the decay factor.
        staircase: floor ``step / decay_steps``.
        name: the name scope of its ops in a graph.
    """

    def __init__(self, initial_learning_rate: float, decay_steps: int, decay_rate: float,
                 staircase: bool = False, name: str = "InverseTimeDecay") -> None:
        super().__init__(initial_learning_rate, decay_steps, decay_rate, staircase, name)

    def _rate(self, step):
        return float(self.initial_learning_rate) / (
            1.0 + float(self.decay_rate) * self._progress(step))


class PiecewiseConstantDecay(LearningRateSchedule):
    """``values[i]`` while ``boundaries[i-1] < step <= boundaries[i]``.

    Args:
        boundaries: increasing step boundaries.
        values: one more value than boundaries.
        name: the name scope of its ops in a graph (default: the class name).
    """

    def __init__(self, boundaries: list, values: list, name: str = "PiecewiseConstant") -> None:
        self.name = name
        if len(values) != len(boundaries) + 1:
            raise ValueError("The length of boundaries should be 1 less than the length of "
                             f"values (got {len(boundaries)} boundaries, {len(values)} values)")
        self.boundaries = list(boundaries)
        self.values = list(values)

    def _rate(self, step):
        s = _step(step)
        out = _tensor(float(self.values[-1]), dtypes.float32)
        for b, v in zip(reversed(self.boundaries), reversed(self.values[:-1])):
            out = math_ops.where(math_ops.less_equal(s, float(b)),
                                 _tensor(float(v), dtypes.float32), out)
        return out

    _config_keys = ("boundaries", "values", "name")


class PolynomialDecay(_Decay):
    """Decays from ``initial`` to ``end`` over ``decay_steps`` along a power curve.

    Args:
        initial_learning_rate: the rate at step 0.
        decay_steps: steps to reach ``end_learning_rate``.
        end_learning_rate: the final rate.
        power: the curve's exponent.
        cycle: after ``decay_steps``, decay again over the next multiple of ``decay_steps``
            (Keras: the decay length is ``decay_steps * ceil(step / decay_steps)``).
        name: the name scope of its ops in a graph.
    """

    def __init__(self, initial_learning_rate: float, decay_steps: int,
                 end_learning_rate: float = 0.0001, power: float = 1.0, cycle: bool = False,
                 name: str = "PolynomialDecay") -> None:
        super().__init__(initial_learning_rate, decay_steps, name)
        self.end_learning_rate = end_learning_rate
        self.power = power
        self.cycle = cycle

    def _rate(self, step):
        s, steps = _step(step), float(self.decay_steps)
        if self.cycle:  # the first multiple of decay_steps >= step (1 at step 0)
            length = steps * math_ops.maximum(math_ops.ceil(s / steps), 1.0)
        else:
            s, length = math_ops.minimum(s, steps), steps
        return (float(self.initial_learning_rate) - self.end_learning_rate) * math_ops.pow(
            1.0 - s / length, _tensor(float(self.power), dtypes.float32)) + \
            self.end_learning_rate

    _config_keys = ("initial_learning_rate", "decay_steps", "end_learning_rate", "power",
                    "cycle", "name")


class CosineDecay(_Decay):
    """Cosine decay from ``initial`` to ``alpha * initial`` over ``decay_steps``; with
    ``warmup_target``, first a linear warmup from ``initial`` to ``warmup_target`` over
    ``warmup_steps``, then the cosine decay from ``warmup_target`` (Keras 3's formula).

    Args:
        initial_learning_rate: the rate at step 0.
        decay_steps: steps of the decay.
        alpha: the final fraction of the rate.
        name: the name scope of its ops in a graph.
        warmup_target: the rate at the end of the warmup; None: no warmup.
        warmup_steps: the steps of the warmup.
    """

    def __init__(self, initial_learning_rate: float, decay_steps: int, alpha: float = 0.0,
                 name: str = "CosineDecay", warmup_target: float | None = None,
                 warmup_steps: int = 0) -> None:
        super().__init__(initial_learning_rate, decay_steps, name)
        self.alpha = alpha
        self.warmup_target = warmup_target
        self.warmup_steps = warmup_steps

    def _rate(self, step):
        s, steps = _step(step), float(self.decay_steps)
        initial = float(self.initial_learning_rate)
        if self.warmup_target is None:
            return self._decay(math_ops.minimum(s, steps), steps, initial)
        target, warmup = float(self.warmup_target), float(self.warmup_steps)
        s = math_ops.minimum(s, steps + warmup)
        # Both sides are cheap and finite where chosen; warmup_steps 0 never takes the first.
        return math_ops.where(math_ops.less(s, warmup),
                              (target - initial) * (s / warmup) + initial,
                              self._decay(s - warmup, steps, target))

    def _decay(self, s, steps: float, start: float):
        cos = 0.5 * (1.0 + math_ops.cos(math.pi * (s / steps)))
        return start * ((1.0 - self.alpha) * cos + self.alpha)

    _config_keys = ("initial_learning_rate", "decay_steps", "alpha", "name", "warmup_target",
                    "warmup_steps")


class CosineDecayRestarts(LearningRateSchedule):
    """Cosine decay with warm restarts (SGDR, Loshchilov & Hutter): the first period lasts
    ``first_decay_steps``, each next one ``t_mul`` times longer and starting ``m_mul`` times
    lower.

    Args:
        initial_learning_rate: the rate at step 0.
        first_decay_steps: the length of the first period.
        t_mul: how much longer each period is than the one before.
        m_mul: how much lower each period starts than the one before.
        alpha: the final fraction of each period's rate.
        name: the name scope of its ops in a graph.
    """

    def __init__(self, initial_learning_rate: float, first_decay_steps: int,
                 t_mul: float = 2.0, m_mul: float = 1.0, alpha: float = 0.0,
                 name: str = "SGDRDecay") -> None:
        if first_decay_steps <= 0:
            raise ValueError("Argument `first_decay_steps` must be > 0. Received: "
                             f"first_decay_steps={first_decay_steps}")
        self.name = name
        self.initial_learning_rate = initial_learning_rate
        self.first_decay_steps = first_decay_steps
        self.t_mul, self.m_mul, self.alpha = t_mul, m_mul, alpha

    def _rate(self, step):
        frac = _step(step) / float(self.first_decay_steps)
        t_mul = float(self.t_mul)
        if t_mul == 1.0:    # equal periods (a Python constant: no conditional op needed)
            restart = math_ops.floor(frac)
            frac = frac - restart
        else:               # period i starts after (1 - t**i) / (1 - t) first periods
            restart = math_ops.floor(math_ops.log(1.0 - frac * (1.0 - t_mul)) /
                                     math.log(t_mul))
            done = (1.0 - math_ops.pow(t_mul, restart)) / (1.0 - t_mul)
            frac = (frac - done) / math_ops.pow(t_mul, restart)
        cos = 0.5 * math_ops.pow(float(self.m_mul), restart) * (1.0 + math_ops.cos(
            math.pi * frac))
        return float(self.initial_learning_rate) * ((1.0 - self.alpha) * cos + self.alpha)

    _config_keys = ("initial_learning_rate", "first_decay_steps", "t_mul", "m_mul", "alpha",
                    "name")


def serialize(learning_rate_schedule: LearningRateSchedule) -> dict:
    """The config of ``learning_rate_schedule``.

    Args:
        learning_rate_schedule: a schedule.

    Returns:
        ``{"class_name": ..., "config": ...}``.
    """
    return _serialize(learning_rate_schedule)


def deserialize(config: dict, custom_objects: dict | None = None) -> LearningRateSchedule:
    """The schedule of a ``serialize`` result.

    Args:
        config: ``{"class_name": ..., "config": ...}``.
        custom_objects: name -> class for custom schedules.

    Returns:
        The schedule.

    Raises:
        ValueError: for an unknown class name.
    """
    name = config.get("class_name") if isinstance(config, dict) else None
    cls = (custom_objects or {}).get(name) or globals().get(name)
    if not (isinstance(cls, type) and issubclass(cls, LearningRateSchedule)):
        raise ValueError(f"Unknown learning rate schedule: {name!r}")
    return cls(**config.get("config", {}))
