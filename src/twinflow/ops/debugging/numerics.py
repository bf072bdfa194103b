"""Numeric checks: check_numerics, enable/disable_check_numerics, assert_all_finite."""
from __future__ import annotations

import numpy as np

from ...core.context import ctx
from ...core.devices import set_log_placement
from ...core.errors import InvalidArgumentError
from ...eager.execute import bind, convert_to_tensor
from ...graph.registry import register_op
from ...graph.tensor import Tensor, TensorLike


def _last_op():
    g = ctx.graph
    return None if g is None else g.get_operations()[-1]


# ---------------------------------------------------------------------------------------------
# check_numerics


def _numerics_problem(value):
    v = np.asarray(value)
    if v.dtype.kind not in "fc":
        return None
    if np.isnan(v).any():
        return "NaN"
    if np.isinf(v).any():
        return "Inf"
    return None


@register_op("CheckNumerics", stateful=True)
class CheckNumerics:
    """Passes its input through; raises if it holds NaN or Inf (attr ``message``)."""

    def infer(tensor, *, message):
        if not (tensor.dtype.is_floating or tensor.dtype.is_complex):
            raise InvalidArgumentError(
                None, None, f"check_numerics needs a floating-point tensor, got "
                f"{tensor.dtype.name}")
        return tensor.dtype, tensor.shape

    def kernel(tensor, *, message):
        kind = _numerics_problem(tensor)
        if kind is not None:
            raise InvalidArgumentError(None, None, f"{message} : Tensor had {kind} values "
                                                   "[Op:CheckNumerics]")
        return tensor

    def grad(op, dy):
        return bind(CheckNumerics, [dy], {
            "message": "Not a number (NaN) or infinity (Inf) values detected in gradient. "
                       + op.attrs["message"]})


def check_numerics(tensor: TensorLike, message: str, name: str | None = None) -> Tensor:
    """``tensor`` unchanged, after checking it holds no NaN or Inf.

    Args:
        tensor: a floating-point tensor.
        message: the start of the error message.
        name: the op name in graph mode.

    Returns:
        The same values.
    """
    return bind(CheckNumerics, [convert_to_tensor(tensor)], {"message": str(message)},
                name=name)


def enable_check_numerics(stack_height_limit: int = 30, path_length_limit: int = 50) -> None:
    """Makes every op check its floating-point outputs for NaN/Inf and raise naming the op.

    Eager ops are checked as they run; ops added to a graph while this is on get a
    ``CheckNumerics`` op after them, so the check happens each time the graph runs.

    Args:
        stack_height_limit: accepted for compatibility.
        path_length_limit: accepted for compatibility.
    """
    ctx.check_numerics = True
    ctx.refresh()


def disable_check_numerics() -> None:
    """Turns off ``enable_check_numerics``."""
    ctx.check_numerics = False
    ctx.refresh()


# ---------------------------------------------------------------------------------------------
# assert_all_finite, device placement logging, is_numeric_tensor


def assert_all_finite(x: TensorLike, message, name: str | None = None) -> Tensor:
    """``x`` unchanged, after asserting it holds no NaN or Inf (``tw.debugging``).

    Args:
        x: a floating-point tensor.
        message: the error message.
        name: op name in graph mode.

    Returns:
        The same values.
    """
    return check_numerics(x, message, name=name)


def set_log_device_placement(enabled: bool) -> None:
    """Logs the device of every eager op and of every node of a placed graph (to stderr).

    Args:
        enabled: True to log, False to stop.
    """
    set_log_placement(enabled)


def is_numeric_tensor(tensor: TensorLike) -> bool:
    """True for a tensor of a numeric (int, float, complex) dtype.

    Args:
        tensor: any object.

    Returns:
        Whether it is a numeric tensor.
    """
    return isinstance(tensor, Tensor) and tensor.dtype.is_numeric and not tensor.dtype.is_bool
