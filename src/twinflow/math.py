"""``tw.math``: elementwise math and reductions (re-exports)."""
from .ops.math_ops import *  # noqa: F401,F403
from .ops.reduction_ops import *  # noqa: F401,F403
