"""``tw.nn``: neural-network ops (re-exports)."""
import importlib as _importlib

from . import nn_experimental as experimental  # noqa: F401
from .ops.array.batch_space import space_to_batch  # noqa: F401
from .ops.array_ops import top_k
from .ops.math_ops import sigmoid, tanh
from .ops.nn.compose16 import (
    atrous_conv2d_transpose,
    safe_embedding_lookup_sparse,
    with_space_to_batch,
)
from .ops.nn.conv_nd import (
    avg_pool3d,
    conv3d,
    conv3d_transpose,
    depthwise_conv2d_backprop_filter,
    depthwise_conv2d_backprop_input,
    max_pool3d,
)
from .ops.nn.ctc import (
    collapse_repeated,
    ctc_beam_search_decoder,
    ctc_greedy_decoder,
    ctc_loss,
    ctc_unique_labels,
)
from .ops.nn.fractional import fractional_avg_pool, fractional_max_pool
from .ops.nn.isotonic_approx import approx_max_k, approx_min_k, isotonic_regression
from .ops.nn.morphology import dilation2d, erosion2d, max_pool_with_argmax
from .ops.nn.sampled import (
    all_candidate_sampler,
    compute_accidental_hits,
    fixed_unigram_candidate_sampler,
    learned_unigram_candidate_sampler,
    log_uniform_candidate_sampler,
    nce_loss,
    sampled_softmax_loss,
    uniform_candidate_sampler,
)
from .ops.nn.statistics import (
    batch_norm_with_global_normalization,
    depth_to_space,
    local_response_normalization,
    lrn,
    space_to_depth,
    sufficient_statistics,
    weighted_moments,
)
from .ops.nn_ops import (
    atrous_conv2d,
    avg_pool,
    avg_pool1d,
    avg_pool2d,
    batch_normalization,
    bias_add,
    compute_average_loss,
    conv1d,
    conv1d_transpose,
    conv2d,
    conv2d_transpose,
    conv_transpose,
    convolution,
    crelu,
    depthwise_conv2d,
    dropout,
    elu,
    embedding_lookup,
    gelu,
    in_top_k,
    l2_loss,
    l2_normalize,
    leaky_relu,
    log_poisson_loss,
    log_softmax,
    max_pool,
    max_pool1d,
    max_pool2d,
    moments,
    normalize_moments,
    pool,
    relu,
    relu6,
    scale_regularization_loss,
    selu,
    separable_conv2d,
    sigmoid_cross_entropy_with_logits,
    silu,
    softmax,
    softmax_cross_entropy_with_logits,
    softplus,
    softsign,
    sparse_softmax_cross_entropy_with_logits,
    swish,
    weighted_cross_entropy_with_logits,
    zero_fraction,
)
from .ops.sparse.math import embedding_lookup_sparse

__all__ = ["atrous_conv2d", "avg_pool", "avg_pool1d", "avg_pool2d", "avg_pool3d", "conv3d",
           "conv3d_transpose", "depthwise_conv2d_backprop_filter",
           "depthwise_conv2d_backprop_input", "max_pool3d", "batch_normalization",
           "bias_add", "compute_average_loss", "conv1d", "conv1d_transpose", "conv_transpose",
           "pool", "conv2d", "conv2d_transpose",
           "convolution", "crelu", "depthwise_conv2d", "dropout", "elu", "embedding_lookup",
           "embedding_lookup_sparse",
           "gelu", "in_top_k", "l2_loss", "l2_normalize", "leaky_relu", "log_poisson_loss",
           "log_softmax",
           "max_pool", "max_pool1d", "max_pool2d", "moments", "normalize_moments", "relu",
           "relu6", "scale_regularization_loss", "selu", "separable_conv2d", "sigmoid",
           "sigmoid_cross_entropy_with_logits", "silu", "softmax",
           "softmax_cross_entropy_with_logits", "softplus", "softsign",
           "sparse_softmax_cross_entropy_with_logits", "swish", "tanh", "top_k",
           "weighted_cross_entropy_with_logits", "zero_fraction",
           "batch_norm_with_global_normalization", "depth_to_space",
           "local_response_normalization", "lrn", "space_to_depth", "sufficient_statistics",
           "weighted_moments", "all_candidate_sampler", "compute_accidental_hits",
           "fixed_unigram_candidate_sampler", "log_uniform_candidate_sampler", "nce_loss",
           "sampled_softmax_loss", "uniform_candidate_sampler", "collapse_repeated",
           "ctc_beam_search_decoder", "ctc_greedy_decoder", "ctc_loss", "ctc_unique_labels",
           "dilation2d", "erosion2d", "max_pool_with_argmax",
           "atrous_conv2d_transpose", "safe_embedding_lookup_sparse", "with_space_to_batch",
           "approx_max_k", "approx_min_k", "isotonic_regression",
           "learned_unigram_candidate_sampler", "fractional_avg_pool", "fractional_max_pool"]

# TensorFlow 2's tf.nn RNN cell wrappers are Keras layers: loaded with Keras, on first use.
_KERAS_WRAPPERS = ("RNNCellDeviceWrapper", "RNNCellDropoutWrapper", "RNNCellResidualWrapper")


def __getattr__(name: str):
    if name in _KERAS_WRAPPERS:
        mod = _importlib.import_module(".keras.layers.rnn.cell_wrappers", __package__)
        value = getattr(mod, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'twinflow.nn' has no attribute {name!r}")


def __dir__() -> list:
    return sorted(set(globals()) | set(_KERAS_WRAPPERS))
