"""``tw.keras``: layers, models, losses, optimizers, metrics, callbacks, datasets."""
from . import (
    activations,
    applications,
    backend,
    callbacks,
    config,
    constraints,
    datasets,
    distillation,
    dtype_policies,
    export,
    initializers,
    layers,
    legacy,
    losses,
    metrics,
    mixed_precision,
    models,
    ops,
    optimizers,
    preprocessing,
    quantizers,
    random,
    regularizers,
    saving,
    tree,
    utils,
    visualization,
    wrappers,
)
from .constraints import Constraint
from .dtype_policies import DTypePolicy, FloatDTypePolicy
from .initializers import Initializer
from .layers import Input, InputLayer, InputSpec, KerasTensor, Layer
from .losses import Loss
from .metrics import Metric
from .models import Model, Sequential
from .optimizers import Optimizer
from .quantizers import Quantizer
from .regularizers import Regularizer
from .toplevel import (
    Function,
    Operation,
    RematScope,
    StatelessScope,
    SymbolicScope,
    Variable,
    device,
    name_scope,
    remat,
    version,
)

__all__ = ["activations", "applications", "backend", "callbacks", "config", "constraints",
           "dtype_policies",
           "DTypePolicy", "FloatDTypePolicy", "datasets", "distillation", "export", "initializers",
           "layers", "legacy", "losses", "preprocessing",
           "metrics", "mixed_precision", "models", "ops", "optimizers", "regularizers",
           "saving", "utils", "random", "tree", "visualization", "wrappers",
           "quantizers", "Quantizer",
           "Input", "Model", "Sequential", "Constraint", "Initializer", "InputLayer",
           "KerasTensor", "Layer", "Loss", "Metric", "Optimizer", "Regularizer",
           "Function", "InputSpec", "Operation", "RematScope", "StatelessScope", "SymbolicScope",
           "Variable", "device", "name_scope", "remat", "version"]
