"""The former one-file random module, kept so ``twinflow.ops.random_ops`` imports keep
working.

The ops live by family in ``twinflow.ops.random`` (listed in ``ops/__init__.py``); this module
only re-exports them (``__all__`` is the public list).
"""
from __future__ import annotations

from .core import reexport
from .random import seeds as _seeds
from .random import stateful as _stateful
from .random import stateless as _stateless

reexport(globals(), _seeds, _stateful, _stateless)

__all__ = ["set_seed", "get_seed", "random_normal", "random_uniform", "truncated_normal",
           "categorical", "random_shuffle", "stateless_random_normal",
           "stateless_random_uniform", "Generator", "get_global_generator",
           "set_global_generator", "random_gamma", "random_poisson",
           "stateless_truncated_normal"]
