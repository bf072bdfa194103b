"""The compile config of a saved model: what ``compile`` was given (optimizer, losses,
metrics) as JSON, and the reverse. Classes are looked up by name (custom objects first), never
evaluated."""
from __future__ import annotations

from . import losses as _losses
from . import metrics as _metrics
from . import optimizers as _optimizers
from .layers.base import Layer
from .optimizers import schedules as _schedules
from .registry import custom as _custom
from .registry import jsonable as _jsonable


def _serialize_fn_or_object(x, what: str):
    if x is None or isinstance(x, (str, bool, int, float)):
        return x
    if isinstance(x, (list, tuple)):
        return [_serialize_fn_or_object(v, what) for v in x]
    if isinstance(x, dict):
        return {str(k): _serialize_fn_or_object(v, what) for k, v in x.items()}
    if isinstance(x, type):
        return {"class_name": x.__name__, "config": {}}
    if hasattr(x, "get_config") and not isinstance(x, Layer) or isinstance(x, _metrics.Metric):
        return {"class_name": type(x).__name__, "config": _jsonable(x.get_config(), what)}
    name = getattr(x, "__name__", None)
    if name and name != "<lambda>":
        return name
    raise TypeError(f"Cannot save the {what} {x!r}: give it a name (a def function) or use a "
                    "Loss/Metric object")


def _module_class(module, name: str, base: type) -> type | None:
    custom = _custom(name)
    if custom is not None:
        return custom
    cls = getattr(module, name, None)
    return cls if isinstance(cls, type) and issubclass(cls, base) else None


def _deserialize_compiled(x, module, base: type, kind: str):
    """A loss (``kind``: "loss", from ``module`` = keras.losses) or metric structure saved in
    the compile config: lists and dicts kept, ``{"class_name", "config"}`` rebuilt, names
    resolved through custom_objects."""
    if x is None:
        return None
    if isinstance(x, list):
        return [_deserialize_compiled(v, module, base, kind) for v in x]
    if isinstance(x, dict) and "class_name" not in x:
        return {k: _deserialize_compiled(v, module, base, kind) for k, v in x.items()}
    if isinstance(x, dict):
        cls = _module_class(module, x["class_name"], base)
        if cls is None:
            raise ValueError(f"Unknown {kind} class {x['class_name']!r}: pass it in "
                             "custom_objects")
        return cls(**x.get("config", {}))
    return _custom(x) or x


def _deserialize_loss(x):
    return _deserialize_compiled(x, _losses, _losses.Loss, "loss")


def _deserialize_metric(x):
    return _deserialize_compiled(x, _metrics, _metrics.Metric, "metric")


def serialize_optimizer(optimizer) -> dict:
    """``{"class_name", "config"}`` of an optimizer (schedules included).

    Args:
        optimizer: the optimizer.

    Returns:
        A JSON-serializable dict.
    """
    cfg = dict(optimizer.get_config())
    lr = cfg.get("learning_rate")
    if isinstance(lr, _schedules.LearningRateSchedule):
        cfg["learning_rate"] = _schedules.serialize(lr)
    elif callable(lr):
        raise TypeError("Cannot save an optimizer whose learning rate is a plain function; "
                        "use a tw.keras.optimizers.schedules.LearningRateSchedule")
    return {"class_name": type(optimizer).__name__,
            "config": _jsonable(cfg, f"optimizer {optimizer.name!r}")}


def deserialize_optimizer(entry: dict):
    """Rebuilds an optimizer from ``serialize_optimizer``'s output.

    Args:
        entry: ``{"class_name", "config"}``.

    Returns:
        The optimizer.
    """
    cls = _module_class(_optimizers, entry["class_name"], _optimizers.Optimizer)
    if cls is None:
        raise ValueError(f"Unknown optimizer class {entry['class_name']!r}: pass it in "
                         "custom_objects")
    return cls.from_config(dict(entry.get("config", {})))


def compile_config(model) -> dict | None:
    """What ``compile`` was given, as JSON (None for a model never compiled).

    Args:
        model: the model.

    Returns:
        The dict, or None.
    """
    if not model._tw_compiled:
        return None
    args = getattr(model, "_tw_compile_args", None) or {"loss": model._tw_loss}
    return {"optimizer": serialize_optimizer(model._tw_optimizer),
            "loss": _serialize_fn_or_object(args.get("loss"), "loss"),
            "metrics": _serialize_fn_or_object(args.get("metrics"), "metric"),
            "loss_weights": _jsonable(args.get("loss_weights"), "loss_weights"),
            "weighted_metrics": _serialize_fn_or_object(args.get("weighted_metrics"),
                                                        "metric"),
            "run_eagerly": bool(model._tw_run_eagerly)}


def compile_from_config(model, config: dict) -> None:
    """Compiles ``model`` as ``compile_config`` recorded.

    Args:
        model: the rebuilt model.
        config: ``compile_config``'s output.
    """
    model.compile(optimizer=deserialize_optimizer(config["optimizer"]),
                  loss=_deserialize_loss(config.get("loss")),
                  metrics=_deserialize_metric(config.get("metrics")),
                  loss_weights=config.get("loss_weights"),
                  weighted_metrics=_deserialize_metric(config.get("weighted_metrics")),
                  run_eagerly=config.get("run_eagerly") or None)
