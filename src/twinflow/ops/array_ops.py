"""The former one-file array module, kept so ``twinflow.ops.array_ops`` imports keep working.

The ops live by family in ``twinflow.ops.array`` (listed in ``ops/__init__.py``); this module
only re-exports them (``__all__`` is the public list).
"""
from __future__ import annotations

from .array import create as _create
from .array import gather as _gather
from .array import join as _join
from .array import layout as _layout
from .array import misc as _misc
from .array import search as _search
from .array import shape as _shape
from .array import slicing as _slicing
from .array import sort as _sort
from .core import reexport

reexport(globals(), _shape, _layout, _join, _slicing, _gather, _create, _sort, _search, _misc)

__all__ = ["identity", "shape", "reshape", "broadcast_to", "stack", "unstack", "zeros_like",
           "ones_like", "transpose", "expand_dims", "squeeze", "reverse", "stop_gradient",
           "size", "rank", "concat", "split", "tile", "pad", "slice", "strided_slice", "gather",
           "gather_nd", "scatter_nd", "tensor_scatter_nd_update", "tensor_scatter_nd_add",
           "boolean_mask", "one_hot", "range", "fill", "zeros", "ones", "eye", "linspace",
           "lin_space", "sort", "argsort", "top_k", "unique", "meshgrid", "repeat",
           "roll", "sequence_mask",
           "searchsorted", "histogram_fixed_width", "histogram_fixed_width_bins",
           "unique_with_counts", "unravel_index", "reverse_sequence", "saturate_cast",
           "shape_n", "parallel_stack", "broadcast_static_shape",
           "broadcast_dynamic_shape", "timestamp"]
