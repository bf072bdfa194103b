"""``tw.keras.optimizers``."""
from ..configurable import serialize as _serialize
from . import legacy, schedules
from .extra import Lamb, MultiOptimizer, Muon, OptimizerMap, ScheduleFreeAdamW
from .extra import _registry as _extra_registry
from .extra import register_optimizers as _register_optimizers
from .loss_scale import LossScaleOptimizer
from .more import Adadelta, Adafactor, Adamax, Ftrl, Lion, Nadam
from .optimizer import SGD, Adagrad, Adam, AdamW, Optimizer, RMSprop

_BY_NAME = {"sgd": SGD, "adam": Adam, "adamw": AdamW, "rmsprop": RMSprop, "adagrad": Adagrad,
            "adadelta": Adadelta, "adamax": Adamax, "nadam": Nadam, "ftrl": Ftrl, "lion": Lion,
            "adafactor": Adafactor, "lamb": Lamb, "muon": Muon,
            "schedulefreeadamw": ScheduleFreeAdamW, "multioptimizer": MultiOptimizer,
            "lossscaleoptimizer": LossScaleOptimizer}
_register_optimizers(_BY_NAME)


def get(identifier) -> Optimizer:
    """Resolves an optimizer name (``'adam'``), config dict, class or instance.

    Args:
        identifier: the optimizer.

    Returns:
        An Optimizer.
    """
    if isinstance(identifier, Optimizer):
        return identifier
    if isinstance(identifier, dict):
        return deserialize(identifier)
    if isinstance(identifier, str):
        try:
            return _BY_NAME[identifier.lower()]()
        except KeyError:
            raise ValueError(f"Unknown optimizer: {identifier!r}") from None
    if isinstance(identifier, type) and issubclass(identifier, Optimizer):
        return identifier()
    raise ValueError(f"Could not interpret optimizer identifier: {identifier!r}")


def serialize(optimizer: Optimizer) -> dict:
    """``{"class_name", "config"}`` of an optimizer (Keras 3's form).

    Args:
        optimizer: the optimizer.

    Returns:
        The dict.
    """
    return _serialize(optimizer)


def deserialize(config: dict, custom_objects: dict | None = None) -> Optimizer:
    """The optimizer of a ``serialize`` result (class names are case-insensitive).

    Args:
        config: ``{"class_name", "config"}``.
        custom_objects: name -> class for custom optimizers.

    Returns:
        A new optimizer.
    """
    return _extra_registry.deserialize(config, custom_objects)


__all__ = ["schedules", "legacy", "SGD", "Adagrad", "Adam", "AdamW", "Optimizer", "RMSprop",
           "get", "Adadelta", "Adamax", "Nadam", "Ftrl", "Lion", "Adafactor",
           "LossScaleOptimizer", "Lamb", "Muon", "ScheduleFreeAdamW", "MultiOptimizer",
           "OptimizerMap", "serialize", "deserialize"]
