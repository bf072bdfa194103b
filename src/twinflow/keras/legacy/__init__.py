"""``tw.keras.legacy``: TF-Keras 2 compatibility (``legacy.saving``)."""
from . import saving

__all__ = ["saving"]
