"""``tw.keras``: layers, models, losses, optimizers, metrics, callbacks, datasets."""
from . import (
    activations,
    backend,
    callbacks,
    constraints,
    datasets,
    initializers,
    layers,
    losses,
    metrics,
    mixed_precision,
    models,
    optimizers,
    regularizers,
    saving,
    utils,
)
from .layers import Input
from .models import Model, Sequential

__all__ = ["activations", "backend", "callbacks", "constraints", "datasets", "initializers",
           "layers", "losses",
           "metrics", "mixed_precision", "models", "optimizers", "regularizers", "saving", "utils",
           "Input", "Model", "Sequential"]
