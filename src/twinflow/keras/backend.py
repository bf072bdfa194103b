"""``tw.keras.backend``: session-level helpers."""
from __future__ import annotations

from .layers.base import clear_session

_FLOATX = "float32"
_EPSILON = 1e-7


def floatx() -> str:
    """The default float type of Keras layers.

    Returns:
        ``'float32'``.
    """
    return _FLOATX


def epsilon() -> float:
    """The fuzz factor used by losses and metrics.

    Returns:
        1e-7.
    """
    return _EPSILON


__all__ = ["clear_session", "floatx", "epsilon"]
