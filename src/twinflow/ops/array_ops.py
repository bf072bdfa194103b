"""The former one-file array module, kept so ``twinflow.ops.array_ops`` imports keep working.

The ops live by family in ``twinflow.ops.array`` (see docs/architecture.md); this module only
re-exports them (``__all__`` is the public list).
"""
from __future__ import annotations

from .array import create, gather, join, layout, shape, slicing, sort
from .core import reexport

reexport(globals(), shape, layout, join, slicing, gather, create, sort)

__all__ = ["identity", "shape", "reshape", "broadcast_to", "stack", "unstack", "zeros_like",
           "ones_like", "transpose", "expand_dims", "squeeze", "reverse", "stop_gradient",
           "size", "rank", "concat", "split", "tile", "pad", "slice", "strided_slice", "gather",
           "gather_nd", "scatter_nd", "tensor_scatter_nd_update", "tensor_scatter_nd_add",
           "boolean_mask", "one_hot", "range", "fill", "zeros", "ones", "eye", "linspace",
           "lin_space", "sort", "argsort", "top_k", "unique", "meshgrid", "repeat"]
