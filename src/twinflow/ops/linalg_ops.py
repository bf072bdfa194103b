"""The former one-file linear-algebra module, kept so ``twinflow.ops.linalg_ops`` imports keep
working: the ops live in ``twinflow.ops.linalg`` (``products``, ``matrix``)."""
from __future__ import annotations

from .core import reexport
from .linalg import matrix, products

reexport(globals(), products, matrix)

__all__ = ["matmul", "einsum", "tensordot"]

# ``tw.linalg`` exports these too (TensorFlow keeps them out of the top level).
LINALG_ONLY = ["matvec", "trace", "diag_part", "band_part", "inv", "det", "solve", "cholesky",
               "matrix_transpose", "adjoint"]
