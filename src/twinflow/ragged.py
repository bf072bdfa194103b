"""``tw.ragged``: building RaggedTensors and ragged operations (re-exports)."""
from .ops.ragged.array import stack  # noqa: F401
from .ops.ragged.cross import ragged_cross as cross  # noqa: F401
from .ops.ragged.cross import ragged_cross_hashed as cross_hashed  # noqa: F401
from .ops.ragged.ops import (  # noqa: F401
    RaggedTensor,
    RaggedTensorSpec,
    boolean_mask,
    constant,
    map_flat_values,
    range,
    row_splits_to_segment_ids,
    segment_ids_to_row_splits,
    stack_dynamic_partitions,
)

__all__ = ["RaggedTensor", "RaggedTensorSpec", "boolean_mask", "constant", "cross",
           "cross_hashed", "map_flat_values",
           "range", "row_splits_to_segment_ids", "segment_ids_to_row_splits", "stack",
           "stack_dynamic_partitions"]
