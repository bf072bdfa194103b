"""``tw.autodiff``: reverse mode (``GradientTape``) and forward mode (``ForwardAccumulator``)."""
from .forward import ForwardAccumulator
from .tape import GradientTape

__all__ = ["ForwardAccumulator", "GradientTape"]
