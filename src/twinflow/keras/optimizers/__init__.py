"""``tw.keras.optimizers``."""
from . import schedules
from .loss_scale import LossScaleOptimizer
from .more import Adadelta, Adafactor, Adamax, Ftrl, Lion, Nadam
from .optimizer import SGD, Adagrad, Adam, AdamW, Optimizer, RMSprop

_BY_NAME = {"sgd": SGD, "adam": Adam, "adamw": AdamW, "rmsprop": RMSprop, "adagrad": Adagrad,
            "adadelta": Adadelta, "adamax": Adamax, "nadam": Nadam, "ftrl": Ftrl, "lion": Lion,
            "adafactor": Adafactor}


def get(identifier) -> Optimizer:
    """Resolves an optimizer name (``'adam'``), class or instance.

    Args:
        identifier: the optimizer.

    Returns:
        An Optimizer.
    """
    if isinstance(identifier, Optimizer):
        return identifier
    if isinstance(identifier, str):
        try:
            return _BY_NAME[identifier.lower()]()
        except KeyError:
            raise ValueError(f"Unknown optimizer: {identifier!r}") from None
    if isinstance(identifier, type) and issubclass(identifier, Optimizer):
        return identifier()
    raise ValueError(f"Could not interpret optimizer identifier: {identifier!r}")


__all__ = ["schedules", "SGD", "Adagrad", "Adam", "AdamW", "Optimizer", "RMSprop", "get",
           "Adadelta", "Adamax", "Nadam", "Ftrl", "Lion", "Adafactor", "LossScaleOptimizer"]
