"""``tw.compat``: TensorFlow 1 style graphs and sessions (``tw.compat.v1``)."""
from . import v1

__all__ = ["v1"]
