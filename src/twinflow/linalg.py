"""``tw.linalg``: linear algebra (re-exports)."""
from .ops.linalg_ops import *  # noqa: F401,F403
