"""``tw.linalg``: linear algebra (re-exports)."""
import importlib as _importlib

from . import linalg_experimental as experimental  # noqa: F401
from .ops.array_ops import eye  # noqa: F401
from .ops.linalg_compose import (  # noqa: F401
    cholesky_solve,
    cross,
    diag,
    logdet,
    lstsq,
    matrix_rank,
    normalize,
    pinv,
    set_diag,
    tensor_diag,
    tensor_diag_part,
)
from .ops.linalg_decomp import (  # noqa: F401
    eigh,
    eigvalsh,
    expm,
    qr,
    slogdet,
    svd,
    triangular_solve,
)
from .ops.linalg_lu import (  # noqa: F401
    eig,
    eigvals,
    lu,
    lu_matrix_inverse,
    lu_reconstruct,
    lu_solve,
)
from .ops.linalg_matfun import (  # noqa: F401
    banded_triangular_solve,
    eigh_tridiagonal,
    logm,
    sqrtm,
)
from .ops.linalg_matfun import sqrtm as matrix_square_root  # noqa: F401
from .ops.linalg_ops import *  # noqa: F401,F403
from .ops.linalg_ops import (  # noqa: F401
    adjoint,
    band_part,
    cholesky,
    det,
    diag_part,
    inv,
    matrix_transpose,
    matvec,
    solve,
    trace,
)
from .ops.linalg_tridiag import tridiagonal_matmul, tridiagonal_solve  # noqa: F401
from .ops.math_ops import global_norm  # noqa: F401
from .ops.nn_ops import l2_normalize  # noqa: F401
from .ops.reduction_ops import norm  # noqa: F401

# The LinearOperator classes load on first use (``import twinflow`` stays fast).
_OPERATORS = frozenset([
    "LinearOperator", "LinearOperatorAdjoint", "LinearOperatorBlockDiag",
    "LinearOperatorBlockLowerTriangular", "LinearOperatorCirculant", "LinearOperatorCirculant2D",
    "LinearOperatorCirculant3D", "LinearOperatorComposition", "LinearOperatorDiag",
    "LinearOperatorFullMatrix", "LinearOperatorHouseholder", "LinearOperatorIdentity",
    "LinearOperatorInversion", "LinearOperatorKronecker", "LinearOperatorLowRankUpdate",
    "LinearOperatorLowerTriangular", "LinearOperatorPermutation", "LinearOperatorScaledIdentity",
    "LinearOperatorToeplitz", "LinearOperatorTridiag", "LinearOperatorZeros"])


def __getattr__(name: str):
    if name in _OPERATORS:
        value = getattr(_importlib.import_module(".ops.linear_operator", __package__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'twinflow.linalg' has no attribute {name!r}")


def __dir__() -> list:
    return sorted(set(globals()) | _OPERATORS)
