"""``tw.sets``: set operations on the last dimension of tensors (re-exports)."""
from .ops.sets import difference, intersection, size, union  # noqa: F401
