"""``tw.sparse``: SparseTensor and its operations (re-exports)."""
from .ops.ragged.cross import sparse_cross as cross  # noqa: F401
from .ops.ragged.cross import sparse_cross_hashed as cross_hashed  # noqa: F401
from .ops.sparse.math import (  # noqa: F401
    add,
    bincount,
    eye,
    map_values,
    mask,
    reduce_max,
    reduce_sum,
    sampled_addmm,
    segment_mean,
    segment_sqrt_n,
    segment_sum,
    softmax,
    sparse_dense_matmul,
)
from .ops.sparse.math import maximum_sparse as maximum  # noqa: F401
from .ops.sparse.math import minimum_sparse as minimum  # noqa: F401
from .ops.sparse.ops import (  # noqa: F401
    SparseTensor,
    SparseTensorSpec,
    fill_empty_rows,
    from_dense,
    reorder,
    reset_shape,
    retain,
    split,
    to_dense,
    to_indicator,
)
from .ops.sparse.ops import concat_sparse as concat  # noqa: F401
from .ops.sparse.ops import expand_dims_sparse as expand_dims  # noqa: F401
from .ops.sparse.ops import reshape_sparse as reshape  # noqa: F401
from .ops.sparse.ops import slice_sparse as slice  # noqa: F401,A004
from .ops.sparse.ops import transpose_sparse as transpose  # noqa: F401

__all__ = ["SparseTensor", "SparseTensorSpec", "add", "bincount", "sampled_addmm", "cross",
           "cross_hashed", "concat", "expand_dims", "eye",
           "fill_empty_rows", "from_dense", "map_values", "mask", "maximum", "minimum",
           "reduce_max", "reduce_sum", "reorder", "reset_shape", "reshape", "retain",
           "segment_mean", "segment_sqrt_n", "segment_sum", "slice", "softmax",
           "sparse_dense_matmul", "split", "to_dense", "to_indicator", "transpose"]
