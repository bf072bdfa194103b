"""The former one-file random module, kept so ``twinflow.ops.random_ops`` imports keep
working.

The ops live by family in ``twinflow.ops.random`` (see docs/architecture.md); this module only
re-exports them (``__all__`` is the public list).
"""
from __future__ import annotations

from .core import reexport
from .random import seeds, stateful, stateless

reexport(globals(), seeds, stateful, stateless)

__all__ = ["set_seed", "get_seed", "random_normal", "random_uniform", "truncated_normal",
           "categorical", "random_shuffle", "stateless_random_normal",
           "stateless_random_uniform", "Generator", "get_global_generator",
           "set_global_generator", "random_gamma", "random_poisson",
           "stateless_truncated_normal"]
