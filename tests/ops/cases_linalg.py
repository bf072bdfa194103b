"""Cases for linear algebra: matmul, einsum, tensordot, matvec, trace, diag_part, band_part,
inv, det, solve, cholesky."""
import numpy as np

import twinflow as tw

from .harness import Case, grad_of

rng = np.random.default_rng(11)
A = rng.normal(size=(3, 4))
B = rng.normal(size=(4, 5))
BA = rng.normal(size=(2, 3, 4))
BB = rng.normal(size=(2, 4, 5))
V = rng.normal(size=(4,))
SQ = rng.normal(size=(3, 3)) + 3 * np.eye(3)
BSQ = rng.normal(size=(2, 3, 3)) + 3 * np.eye(3)
I32A = rng.integers(-3, 4, size=(3, 4)).astype(np.int32)
I32B = rng.integers(-3, 4, size=(4, 2)).astype(np.int32)


def _spd(x):
    """A symmetric positive-definite matrix built from any square ``x`` of static shape."""
    n = x.shape[-1]
    return tw.matmul(x, x, transpose_b=True) + tw.constant(n * np.eye(n, dtype=x.dtype.np))


CASES = [
    # --- matmul
    Case(tw.matmul, [BA, BB], np.matmul, name="matmul_batch"),
    Case(tw.matmul, [A.astype(np.float32), B.astype(np.float32)], np.matmul,
         name="matmul_f32", rtol=1e-5),
    Case(tw.matmul, [I32A, I32B], np.matmul, name="matmul_i32"),
    Case(lambda a, b: tw.matmul(a, b, transpose_a=True), [BA, rng.normal(size=(3, 5))],
         lambda a, b: np.swapaxes(a, -1, -2) @ b, name="matmul_batch_ta"),
    Case(lambda a, b: tw.linalg.matmul(a, b, adjoint_b=True), [A, A],
         lambda a, b: a @ b.T, name="matmul_adjoint_real"),
    Case(lambda a, b: a @ b, [A, B], np.matmul, name="matmul_operator"),
    Case(lambda a, b: tw.matmul(a, b, adjoint_a=True), [A + 1j * A, A[:, :2] - 2j * A[:, 1:3]],
         lambda a, b: a.conj().T @ b, name="matmul_adjoint_complex"),
    # --- einsum
    Case(lambda a, b: tw.einsum("ij,jk->ik", a, b), [A, B], np.matmul, name="einsum_matmul"),
    Case(lambda a, b: tw.einsum("ij,jk", a, b), [A, B], np.matmul, name="einsum_implicit"),
    Case(lambda a, b: tw.einsum("bij,bjk->bik", a, b), [BA, BB], np.matmul, name="einsum_batch"),
    Case(lambda a, b: tw.einsum("...ij,jk->...ik", a, b), [BA, B],
         lambda a, b: np.einsum("...ij,jk->...ik", a, b), name="einsum_ellipsis"),
    Case(lambda a, b: tw.einsum("...ij,...jk->...ik", a, b),
         [rng.normal(size=(2, 1, 3, 4)), rng.normal(size=(5, 4, 2))],
         lambda a, b: np.einsum("...ij,...jk->...ik", a, b), name="einsum_ellipsis_broadcast"),
    Case(lambda a: tw.einsum("ij->ji", a), [A], lambda a: a.T, name="einsum_transpose"),
    Case(lambda a: tw.einsum("ij->", a), [A], np.sum, name="einsum_sum"),
    Case(lambda a, b: tw.einsum("ij,k->ik", a, b), [A, V],
         lambda a, b: np.einsum("ij,k->ik", a, b), name="einsum_summed_label"),
    Case(lambda a, b: tw.einsum("i,j->ij", a, b), [V, A[0]], np.outer, name="einsum_outer"),
    Case(lambda a, b, c: tw.einsum("ij,jk,kl->il", a, b, c), [A, B, rng.normal(size=(5, 2))],
         lambda a, b, c: a @ b @ c, name="einsum_three"),
    Case(lambda a: tw.einsum("ii->i", a), [SQ], np.diag, name="einsum_diag"),
    Case(lambda a, b: tw.einsum("ij,ij->i", a, b), [I32A, I32A],
         lambda a, b: np.einsum("ij,ij->i", a, b), name="einsum_i32"),
    Case(lambda a, b: tw.einsum("bij,bkj->bik", a, b),
         [BA.astype(np.float32), rng.normal(size=(2, 5, 4)).astype(np.float32)],
         lambda a, b: np.einsum("bij,bkj->bik", a, b), name="einsum_f32", rtol=1e-5),
    Case(lambda a, b: tw.einsum("ij,jk->ik", a, b), [A + 2j * A, B - 1j],
         lambda a, b: a @ b, name="einsum_complex"),
    # --- tensordot, matvec
    Case(lambda a, b: tw.tensordot(a, b, 1), [A, B], np.matmul, name="tensordot_int"),
    Case(lambda a, b: tw.tensordot(a, b, axes=[[1, 2], [1, 0]]), [BA, rng.normal(size=(4, 3))],
         lambda a, b: np.tensordot(a, b, axes=([1, 2], [1, 0])), name="tensordot_lists"),
    Case(lambda a, b: tw.tensordot(a, b, 0), [V, A[0]], np.multiply.outer,
         name="tensordot_outer"),
    Case(tw.linalg.matvec, [BA, V], lambda a, b: a @ b, name="matvec"),
    Case(lambda a, b: tw.linalg.matvec(a, b, transpose_a=True), [A, A[:, 0].copy()],
         lambda a, b: a.T @ b, name="matvec_ta"),
    # --- trace, diag_part, band_part
    Case(tw.linalg.trace, [BSQ], lambda x: np.trace(x, axis1=-2, axis2=-1), name="trace"),
    Case(tw.linalg.diag_part, [BSQ], lambda x: np.diagonal(x, axis1=-2, axis2=-1),
         name="diag_part"),
    Case(lambda x: tw.linalg.band_part(x, 1, 0), [A], lambda x: np.tril(np.triu(x, -1)),
         name="band_part"),
    Case(lambda x: tw.linalg.band_part(x, -1, 1), [BA], lambda x: np.triu(np.tril(x, 1), -9),
         name="band_part_all_lower"),
    # --- inv, det, solve, cholesky
    Case(tw.linalg.inv, [SQ], np.linalg.inv, name="inv", rtol=1e-5),
    Case(lambda x: tw.linalg.inv(x, adjoint=True), [BSQ],
         lambda x: np.linalg.inv(np.swapaxes(x, -1, -2)), name="inv_adjoint", rtol=1e-5),
    Case(tw.linalg.inv, [SQ.astype(np.float32)], np.linalg.inv, name="inv_f32", rtol=1e-4,
         atol=1e-5),
    Case(tw.linalg.det, [BSQ], np.linalg.det, name="det", rtol=1e-5),
    Case(tw.linalg.solve, [BSQ, rng.normal(size=(2, 3, 2))], np.linalg.solve, name="solve",
         rtol=1e-5),
    Case(lambda a, b: tw.linalg.solve(a, b, adjoint=True), [SQ, rng.normal(size=(3, 1))],
         lambda a, b: np.linalg.solve(a.T, b), name="solve_adjoint", rtol=1e-5),
    Case(lambda x: tw.linalg.cholesky(_spd(x)), [SQ],
         lambda x: np.linalg.cholesky(x @ x.T + 3 * np.eye(3)), name="cholesky", rtol=1e-5,
         unknown_shapes=False),
    Case(lambda x: tw.linalg.cholesky(_spd(x)), [BSQ.astype(np.float32)],
         lambda x: np.linalg.cholesky(x @ np.swapaxes(x, -1, -2) + 3 * np.eye(3,
                                                                             dtype=np.float32)),
         name="cholesky_f32", rtol=1e-4, atol=1e-5, unknown_shapes=False),
    Case(grad_of(lambda x: tw.linalg.cholesky(_spd(x))), [SQ], None,
         name="cholesky_second_order", grad_rtol=1e-3, grad_atol=1e-4, unknown_shapes=False),
]

COVERED_ELSEWHERE = {
    "DiagonalMask": "einsum_diag / trace (gradient of a repeated einsum label)",
    "CholeskyGradMiddle": "cholesky_second_order (gradient of cholesky)",
}
