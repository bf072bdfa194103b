"""``tw.keras.constraints``: projections applied to a weight after each optimizer update
(``Dense(kernel_constraint=MaxNorm(2))``)."""
from __future__ import annotations

from collections.abc import Callable

from ..graph.tensor import Tensor
from ..ops import math_ops, nn_ops, reduction_ops
from .configurable import Configurable


class Constraint(Configurable):
    """Base class: ``constraint(w)`` returns the projected weight."""

    def __call__(self, w: Tensor) -> Tensor:
        """Projects ``w``.

        Args:
            w: the weight's value.

        Returns:
            The projected value.
        """
        return w


def _norms(w, axis):
    return math_ops.sqrt(reduction_ops.reduce_sum(math_ops.square(w), axis=axis, keepdims=True))


class MaxNorm(Constraint):
    """Rescales each slice along ``axis`` whose L2 norm exceeds ``max_value``.

    Args:
        max_value: the largest norm.
        axis: the axis (or axes) the norm is taken over (0: per output unit of a Dense
            kernel).
    """

    def __init__(self, max_value: float = 2.0, axis=0) -> None:
        self.max_value, self.axis = float(max_value), axis

    def __call__(self, w: Tensor) -> Tensor:
        norms = _norms(w, self.axis)
        desired = math_ops.clip_by_value(norms, 0.0, self.max_value)
        return w * (desired / (1e-7 + norms))

    _config_keys = ("max_value", "axis")


class MinMaxNorm(Constraint):
    """Moves each slice's L2 norm into ``[min_value, max_value]`` (``rate`` of the way).

    Args:
        min_value: the smallest norm.
        max_value: the largest norm.
        rate: 1.0 projects fully; less moves part of the way.
        axis: the axis (or axes) of the norm.
    """

    def __init__(self, min_value: float = 0.0, max_value: float = 1.0, rate: float = 1.0,
                 axis=0) -> None:
        self.min_value, self.max_value = float(min_value), float(max_value)
        self.rate, self.axis = float(rate), axis

    def __call__(self, w: Tensor) -> Tensor:
        norms = _norms(w, self.axis)
        desired = self.rate * math_ops.clip_by_value(norms, self.min_value, self.max_value) + \
            (1.0 - self.rate) * norms
        return w * (desired / (1e-7 + norms))

    _config_keys = ("min_value", "max_value", "rate", "axis")


class NonNeg(Constraint):
    """Zeroes negative weights."""

    def __call__(self, w: Tensor) -> Tensor:
        return nn_ops.relu(w)


class UnitNorm(Constraint):
    """Scales each slice along ``axis`` to unit L2 norm.

    Args:
        axis: the axis (or axes) of the norm.
    """

    def __init__(self, axis=0) -> None:
        self.axis = axis

    def __call__(self, w: Tensor) -> Tensor:
        return w / (1e-7 + _norms(w, self.axis))

    _config_keys = ("axis",)


max_norm = MaxNorm
min_max_norm = MinMaxNorm
non_neg = NonNeg
unit_norm = UnitNorm

_BY_NAME = {"max_norm": MaxNorm, "min_max_norm": MinMaxNorm, "non_neg": NonNeg,
            "unit_norm": UnitNorm, "MaxNorm": MaxNorm, "MinMaxNorm": MinMaxNorm,
            "NonNeg": NonNeg, "UnitNorm": UnitNorm}


def serialize(constraint: Constraint | None) -> dict | None:
    """``{"class_name", "config"}`` of a constraint.

    Args:
        constraint: the constraint (None gives None).

    Returns:
        The dict.
    """
    if constraint is None:
        return None
    return {"class_name": type(constraint).__name__, "config": constraint.get_config()}


def deserialize(config: dict) -> Constraint:
    """Rebuilds a constraint from ``serialize``'s output.

    Args:
        config: ``{"class_name", "config"}``.

    Returns:
        The constraint.
    """
    try:
        cls = _BY_NAME[config["class_name"]]
    except KeyError:
        raise ValueError(f"Unknown constraint: {config.get('class_name')!r}") from None
    return cls.from_config(config.get("config") or {})


def get(identifier) -> Callable | None:
    """Resolves a name (``'non_neg'``), config dict, class, instance or callable.

    Args:
        identifier: the constraint.

    Returns:
        A callable constraint or None.
    """
    if identifier is None or isinstance(identifier, Constraint):
        return identifier
    if isinstance(identifier, str):
        if identifier not in _BY_NAME:
            raise ValueError(f"Unknown constraint: {identifier!r}")
        return _BY_NAME[identifier]()
    if isinstance(identifier, dict):
        return deserialize(identifier)
    if isinstance(identifier, type) and issubclass(identifier, Constraint):
        return identifier()
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret constraint identifier: {identifier!r}")


__all__ = ["Constraint", "MaxNorm", "MinMaxNorm", "NonNeg", "UnitNorm", "max_norm",
           "min_max_norm", "non_neg", "unit_norm", "serialize", "deserialize", "get"]
