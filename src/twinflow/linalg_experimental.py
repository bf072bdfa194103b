"""``tw.linalg.experimental``: iterative solvers (re-exports)."""
from .ops.linalg_matfun import conjugate_gradient  # noqa: F401

__all__ = ["conjugate_gradient"]
