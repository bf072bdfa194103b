"""The former one-file nn module, kept so ``twinflow.ops.nn_ops`` imports keep working.

The ops live by family in ``twinflow.ops.nn`` (listed in ``ops/__init__.py``); this module only
re-exports them (``__all__`` is the public ``tw.nn`` list).
"""
from __future__ import annotations

from .core import reexport
from .nn import activations as _activations
from .nn import conv as _conv
from .nn import generic as _generic
from .nn import geometry as _geometry
from .nn import losses as _losses
from .nn import normalization as _normalization
from .nn import pool as _pool

reexport(globals(), _activations, _losses, _geometry, _conv, _pool, _normalization,
          _generic)

__all__ = ["relu", "relu6", "leaky_relu", "elu", "selu", "gelu", "softplus", "softsign", "silu",
           "swish", "softmax", "log_softmax", "bias_add", "sigmoid_cross_entropy_with_logits",
           "softmax_cross_entropy_with_logits", "sparse_softmax_cross_entropy_with_logits",
           "l2_loss", "dropout", "conv2d", "conv2d_transpose", "max_pool2d", "avg_pool2d",
           "max_pool", "avg_pool", "moments", "batch_normalization", "l2_normalize", "conv1d",
           "max_pool1d", "avg_pool1d", "depthwise_conv2d", "separable_conv2d", "atrous_conv2d",
           "convolution", "crelu", "weighted_cross_entropy_with_logits", "log_poisson_loss",
           "embedding_lookup", "compute_average_loss", "scale_regularization_loss",
           "zero_fraction", "normalize_moments", "in_top_k", "pool", "conv_transpose",
           "conv1d_transpose"]
