"""``tw.keras``: layers, models, losses, optimizers, metrics, callbacks, datasets."""
from . import (
    activations,
    backend,
    callbacks,
    config,
    constraints,
    datasets,
    dtype_policies,
    initializers,
    layers,
    losses,
    metrics,
    mixed_precision,
    models,
    ops,
    optimizers,
    quantizers,
    random,
    regularizers,
    saving,
    tree,
    utils,
)
from .constraints import Constraint
from .dtype_policies import DTypePolicy, FloatDTypePolicy
from .initializers import Initializer
from .layers import Input, InputLayer, KerasTensor, Layer
from .losses import Loss
from .metrics import Metric
from .models import Model, Sequential
from .optimizers import Optimizer
from .quantizers import Quantizer
from .regularizers import Regularizer

__all__ = ["activations", "backend", "callbacks", "config", "constraints", "dtype_policies",
           "DTypePolicy", "FloatDTypePolicy", "datasets", "initializers",
           "layers", "losses",
           "metrics", "mixed_precision", "models", "ops", "optimizers", "regularizers",
           "saving", "utils", "random", "tree", "quantizers", "Quantizer",
           "Input", "Model", "Sequential", "Constraint", "Initializer", "InputLayer",
           "KerasTensor", "Layer", "Loss", "Metric", "Optimizer", "Regularizer"]
