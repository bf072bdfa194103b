"""``tw.linalg``: linear algebra (re-exports)."""
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
