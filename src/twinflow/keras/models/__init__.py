"""Keras models: ``Model`` (functional and subclassed), ``Sequential``, and the training loop.

``fit`` runs ``train_step`` (forward pass under a GradientTape, loss, ``apply_gradients``,
metric updates) once per batch. Unless ``compile(run_eagerly=True)`` it wraps ``train_step`` in
``tw.function``, so the step is traced once into a graph, optimized and compiled, and every
later batch runs the compiled graph: the user-facing form of the eager/graph switch.

The package: ``model.py`` (the Model class), ``functional.py`` (graphs of layer calls),
``trainer.py`` (compile and per-batch steps), ``loops.py`` (fit/evaluate/predict),
``data.py`` (batching arrays and Datasets), ``summary.py``, ``sequential.py``.
"""
from __future__ import annotations

from .. import saving as _saving
from .data import DataHandler, unpack_x_y_sample_weight
from .model import Model
from .sequential import Sequential, clone_model


def save_model(model, filepath, overwrite: bool = True, **kwargs) -> None:
    """Saves ``model`` (``model.save``): a ``.keras`` archive in Keras 3's layout.

    Args:
        model: the model.
        filepath: the ``.keras`` file (or a directory, twinflow's layout).
        overwrite: replace an existing file.
        **kwargs: ``zipped``/``include_optimizer`` at their defaults (True).
    """
    bad = {k: v for k, v in kwargs.items() if v is not True}
    if bad:
        raise ValueError(f"save_model: unsupported arguments {bad}")
    _saving.save_model(model, filepath, overwrite=overwrite)


def load_model(filepath, custom_objects: dict | None = None, compile: bool = True,  # noqa: A002
               safe_mode: bool = True) -> Model:
    """Loads a model written by ``model.save`` (see ``twinflow.keras.saving.load_model``).

    Args:
        filepath: the ``.keras`` file or directory.
        custom_objects: name -> class or function for custom layers, subclassed models,
            losses and metrics.
        compile: compile the model as it was saved (with its optimizer state).
        safe_mode: accepted; twinflow never loads executable code.

    Returns:
        The model.
    """
    return _saving.load_model(filepath, custom_objects=custom_objects, compile=compile,
                              safe_mode=safe_mode)


def model_from_json(json_string: str, custom_objects: dict | None = None) -> Model:
    """Rebuilds a model (fresh weights) from ``model.to_json()``.

    Args:
        json_string: the JSON text.
        custom_objects: name -> class or function for custom objects.

    Returns:
        The model.
    """
    return _saving.model_from_json(json_string, custom_objects=custom_objects)


__all__ = ["Model", "Sequential", "load_model", "save_model", "model_from_json", "clone_model",
           "DataHandler", "unpack_x_y_sample_weight"]
