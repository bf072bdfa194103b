"""Cases for lu, lu_solve, lu_reconstruct, lu_matrix_inverse, eig, eigvals."""
import numpy as np

import twinflow as tw

from .harness import Case

rng = np.random.default_rng(17)
A = rng.normal(size=(3, 3))
BA = rng.normal(size=(2, 3, 3))
RHS = rng.normal(size=(3, 2))


def _np_lu(a):
    """The reference: Doolittle with partial pivoting, written out."""
    lu = a.copy()
    p = np.arange(a.shape[0])
    for k in range(a.shape[0]):
        piv = k + np.argmax(np.abs(lu[k:, k]))
        lu[[k, piv]], p[[k, piv]] = lu[[piv, k]], p[[piv, k]]
        lu[k + 1:, k] /= lu[k, k]
        lu[k + 1:, k + 1:] -= np.outer(lu[k + 1:, k], lu[k, k + 1:])
    return lu, p.astype(np.int32)


LU, P = _np_lu(A)
BLU = np.stack([_np_lu(m)[0] for m in BA])
BP = np.stack([_np_lu(m)[1] for m in BA])

CASES = [
    Case(lambda a: tw.linalg.lu(a), [A], _np_lu, name="lu", grad=()),
    Case(lambda a: tw.linalg.lu(a, output_idx_type=tw.int64), [BA],
         lambda a: (BLU, BP.astype(np.int64)), name="lu_batch_int64", grad=()),
    Case(lambda lu, b: tw.linalg.lu_solve(lu, P, b), [LU, RHS],
         lambda lu, b: np.linalg.solve(A, b), name="lu_solve"),
    Case(lambda lu: tw.linalg.lu_reconstruct(lu, P), [LU], lambda lu: A, name="lu_reconstruct"),
    Case(lambda lu: tw.linalg.lu_reconstruct(lu, BP), [BLU], lambda lu: BA,
         name="lu_reconstruct_batch"),
    Case(lambda lu: tw.linalg.lu_matrix_inverse(lu, BP), [BLU], lambda lu: np.linalg.inv(BA),
         name="lu_matrix_inverse_batch"),
    Case(lambda a: tw.linalg.eigvals(a), [A + A.T],
         lambda a: np.linalg.eigvals(a).astype(np.complex128), name="eigvals", grad=()),
    Case(lambda a: tw.abs(tw.linalg.eig(a)[1]), [A.astype(np.float32)],
         lambda a: np.abs(np.linalg.eig(a)[1]).astype(np.float32), name="eig_vectors_f32",
         grad=(), rtol=1e-4, atol=1e-5),
]


def _np_tridiag(d):
    m = d.shape[-1]
    return (d[..., 0, :, None] * np.eye(m, k=1) + d[..., 1, :, None] * np.eye(m)
            + d[..., 2, :, None] * np.eye(m, k=-1))


DIAG = rng.normal(size=(2, 3, 4)) + np.array([0.0, 4.0, 0.0])[:, None]
TRHS = rng.normal(size=(2, 4, 2))

CASES += [
    Case(tw.linalg.tridiagonal_matmul, [DIAG, TRHS], lambda d, b: _np_tridiag(d) @ b,
         name="tridiagonal_matmul", unknown_shapes=False),
    Case(tw.linalg.tridiagonal_solve, [DIAG, TRHS],
         lambda d, b: np.linalg.solve(_np_tridiag(d), b), name="tridiagonal_solve",
         unknown_shapes=False),
    Case(lambda d, b: tw.linalg.tridiagonal_solve(d, b, transpose_rhs=True), [DIAG[0], TRHS[0].T],
         lambda d, b: np.linalg.solve(_np_tridiag(d), b.T), name="tridiagonal_solve_transpose",
         unknown_shapes=False),
]
