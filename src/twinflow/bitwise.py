"""``tw.bitwise``: bitwise operations on integer tensors (re-exports)."""
from .ops.math.comparison import (  # noqa: F401
    bitwise_and,
    bitwise_or,
    bitwise_xor,
    invert,
    left_shift,
    right_shift,
)
