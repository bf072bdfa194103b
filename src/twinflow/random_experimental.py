"""``tw.random.experimental``: TensorFlow's experimental RNG names (re-exports)."""
from .ops.random.stateless import Generator, get_global_generator, set_global_generator
from .ops.random.stateless_dist import Algorithm, create_rng_state, index_shuffle, stateless_shuffle
from .ops.random.stateless_dist import fold_in as stateless_fold_in
from .ops.random.stateless_dist import split as stateless_split

__all__ = ["Algorithm", "Generator", "create_rng_state", "get_global_generator", "index_shuffle",
           "set_global_generator", "stateless_fold_in", "stateless_shuffle", "stateless_split"]
