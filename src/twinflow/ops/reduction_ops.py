"""The former one-file reductions module, kept so ``twinflow.ops.reduction_ops`` imports keep
working: the reductions live in ``twinflow.ops.math.reduce`` and ``.reduce_stats``."""
from __future__ import annotations

from .core import reexport
from .math import reduce as _reduce
from .math import reduce_stats as _reduce_stats

reexport(globals(), _reduce, _reduce_stats)

__all__ = ["reduce_sum", "reduce_mean", "reduce_prod", "reduce_max", "reduce_min", "reduce_any",
           "reduce_all", "reduce_logsumexp", "reduce_variance", "reduce_std", "argmax", "argmin",
           "norm", "count_nonzero", "reduce_euclidean_norm"]
