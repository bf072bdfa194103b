"""``tw.random``: random number generation (re-exports)."""
from . import random_experimental as experimental  # noqa: E402  (tf.random.experimental)
from .ops.misc16 import stateless_parameterized_truncated_normal  # noqa: F401
from .ops.nn.sampled import (
    all_candidate_sampler,
    fixed_unigram_candidate_sampler,
    learned_unigram_candidate_sampler,
    log_uniform_candidate_sampler,
    uniform_candidate_sampler,
)
from .ops.random.stateless_dist import (
    Algorithm,
    create_rng_state,
    fold_in,
    split,
    stateless_binomial,
    stateless_categorical,
    stateless_gamma,
    stateless_poisson,
)
from .ops.random_ops import (
    Generator,
    categorical,
    get_global_generator,
    get_seed,
    set_global_generator,
    set_seed,
    stateless_truncated_normal,
    truncated_normal,
)
from .ops.random_ops import random_gamma as gamma
from .ops.random_ops import random_normal as normal
from .ops.random_ops import random_poisson as poisson
from .ops.random_ops import random_shuffle as shuffle
from .ops.random_ops import random_uniform as uniform
from .ops.random_ops import stateless_random_normal as stateless_normal
from .ops.random_ops import stateless_random_uniform as stateless_uniform

__all__ = ["Algorithm", "Generator", "all_candidate_sampler", "categorical", "create_rng_state",
           "experimental", "fixed_unigram_candidate_sampler", "fold_in", "gamma",
           "get_global_generator", "get_seed", "learned_unigram_candidate_sampler",
           "stateless_parameterized_truncated_normal",
           "log_uniform_candidate_sampler", "normal",
           "poisson", "set_global_generator", "set_seed", "shuffle", "split", "stateless_binomial",
           "stateless_categorical", "stateless_gamma", "stateless_normal", "stateless_poisson",
           "stateless_truncated_normal", "stateless_uniform", "truncated_normal", "uniform",
           "uniform_candidate_sampler"]
