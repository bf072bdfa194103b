"""``tw.keras.regularizers``: weight penalties added to the training loss."""
from __future__ import annotations

import math
from collections.abc import Callable

from ..eager.execute import convert_to_tensor
from ..ops import array_ops, linalg_ops, math_ops, nn_ops, reduction_ops
from ..ops.variables import Variable
from .configurable import Configurable
from .named import serializers


class Regularizer(Configurable):
    """Base class: ``regularizer(weight)`` returns a scalar penalty."""

    def __call__(self, x) -> float:
        """The penalty of the weight ``x`` (none for the base class).

        Args:
            x: the weight.

        Returns:
            The penalty.
        """
        return 0.0


class L1L2(Regularizer):
    """``l1 * sum(|w|) + l2 * sum(w²)``.

    Args:
        l1: the L1 factor.
        l2: the L2 factor.
    """

    def __init__(self, l1: float = 0.0, l2: float = 0.0) -> None:
        self.l1 = float(l1)
        self.l2 = float(l2)

    def __call__(self, x):
        penalty = None
        if self.l1:
            penalty = self.l1 * reduction_ops.reduce_sum(math_ops.abs(x))
        if self.l2:
            term = self.l2 * reduction_ops.reduce_sum(math_ops.square(x))
            penalty = term if penalty is None else penalty + term
        return penalty if penalty is not None else \
            reduction_ops.reduce_sum(math_ops.square(x)) * 0.0

    _config_keys = ("l1", "l2")


class L1(L1L2):
    """``l1 * sum(|w|)``."""

    def __init__(self, l1: float = 0.01, **kwargs) -> None:
        super().__init__(l1=kwargs.get("l", l1))


class L2(L1L2):
    """``l2 * sum(w²)``."""

    def __init__(self, l2: float = 0.01, **kwargs) -> None:
        super().__init__(l2=kwargs.get("l", l2))


class OrthogonalRegularizer(Regularizer):
    """Pushes the rows (or columns) of a 2-D weight towards orthogonality: ``factor * 0.5 *
    sum(|off-diagonal of U U^T|) / (n (n - 1) / 2)`` of the L2-normalized rows ``U``.

    Args:
        factor: the penalty's factor.
        mode: ``'rows'`` or ``'columns'``.
    """

    def __init__(self, factor: float = 0.01, mode: str = "rows") -> None:
        if isinstance(factor, bool) or not isinstance(factor, (int, float)) or \
                math.isinf(factor) or math.isnan(factor):
            raise ValueError(f"Invalid value for argument factor: expected a float. "
                             f"Received: factor={factor}")
        if mode not in ("rows", "columns"):
            raise ValueError('Invalid value for argument `mode`. Expected one of {"rows", '
                             f'"columns"}}. Received: mode={mode}')
        self.factor, self.mode = float(factor), mode

    def __call__(self, x):
        x = convert_to_tensor(x.read_value() if isinstance(x, Variable) else x)
        if x.shape.rank != 2:
            raise ValueError("Inputs to OrthogonalRegularizer must have rank 2. Received: "
                             f"inputs.shape={x.shape}")
        axis = 1 if self.mode == "rows" else 0
        u = nn_ops.l2_normalize(x, axis=axis)
        product = linalg_ops.matmul(u, u, transpose_b=True) if axis == 1 else \
            linalg_ops.matmul(u, u, transpose_a=True)
        size = x.shape.as_list()[1 - axis]
        off = product * (1.0 - array_ops.eye(size, dtype=x.dtype))
        pairs = size * (size - 1.0) / 2.0
        return self.factor * 0.5 * reduction_ops.reduce_sum(math_ops.abs(off)) / pairs

    _config_keys = ("factor", "mode")


orthogonal_regularizer = OrthogonalRegularizer


def l1(l1: float = 0.01) -> L1:  # noqa: E741
    """An L1 regularizer.

    Args:
        l1: the factor.

    Returns:
        The regularizer.
    """
    return L1(l1)


def l2(l2: float = 0.01) -> L2:
    """An L2 regularizer.

    Args:
        l2: the factor.

    Returns:
        The regularizer.
    """
    return L2(l2)


def l1_l2(l1: float = 0.01, l2: float = 0.01) -> L1L2:  # noqa: E741
    """An L1 + L2 regularizer.

    Args:
        l1: the L1 factor.
        l2: the L2 factor.

    Returns:
        The regularizer.
    """
    return L1L2(l1, l2)


def get(identifier) -> Callable | None:
    """Resolves a regularizer name (``'l2'``), object or callable.

    Args:
        identifier: the regularizer (None gives None).

    Returns:
        A callable or None.
    """
    if identifier is None or callable(identifier):
        return identifier
    if isinstance(identifier, dict):  # serialize()'s output
        table = {"L1L2": L1L2, "L1": L1L2, "L2": L1L2,
                 "OrthogonalRegularizer": OrthogonalRegularizer}
        name = identifier.get("class_name")
        if name not in table:
            raise ValueError(f"Unknown regularizer: {name!r}")
        return table[name](**identifier.get("config", {}))
    if isinstance(identifier, str):
        table = {"l1": L1, "l2": L2, "l1_l2": L1L2,
                 "orthogonal_regularizer": OrthogonalRegularizer}
        if identifier.lower() not in table:
            raise ValueError(f"Unknown regularizer: {identifier!r}")
        return table[identifier.lower()]()
    raise ValueError(f"Could not interpret regularizer identifier: {identifier!r}")


serialize, deserialize = serializers("regularizer", __name__, lambda config, _: get(config),
                                     Regularizer, names=("regularizer", "config"))
