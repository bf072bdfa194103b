"""Cases for the decompositions and their compositions: eigh, svd, qr, slogdet, triangular
solves, expm, pinv, logdet, cholesky_solve, lstsq, matrix_rank, cross, normalize, diag, set_diag,
tensor_diag(_part)."""
import numpy as np

import twinflow as tw

from .harness import Case

rng = np.random.default_rng(23)
SQ = rng.normal(size=(3, 3))
BSQ = rng.normal(size=(2, 3, 3))
TALL = rng.normal(size=(4, 3))
WIDE = rng.normal(size=(2, 4))
RHS = rng.normal(size=(3, 2))
TRI = np.tril(SQ) + 3 * np.eye(3)
SPD = SQ @ SQ.T + 3 * np.eye(3)


def _np_expm(a):
    """exp(A) by its Taylor series (plenty of terms for these small norms)."""
    out = term = np.eye(a.shape[-1])
    for k in range(1, 40):
        term = term @ a / k
        out = out + term
    return out


def _eigh_recon(x):
    e, v = tw.linalg.eigh(x)
    return tw.matmul(v * tw.expand_dims(e, -2), v, adjoint_b=True)


def _np_recon_lower(x):
    low = np.tril(x)
    return low + np.swapaxes(np.tril(x, -1), -1, -2)


def _svd_recon(x):
    s, u, v = tw.linalg.svd(x)
    return tw.matmul(u * tw.expand_dims(s, -2), v, adjoint_b=True)


CASES = [
    # --- eigh: values, vectors (sign-free: squared), reconstruction
    Case(lambda x: tw.linalg.eigh(x)[0], [SPD], np.linalg.eigvalsh, name="eigh_values"),
    Case(tw.linalg.eigvalsh, [BSQ + np.swapaxes(BSQ, -1, -2)], np.linalg.eigvalsh,
         name="eigvalsh_batch", rtol=1e-5, atol=1e-8),
    Case(lambda x: tw.square(tw.linalg.eigh(x)[1]), [SPD],
         lambda x: np.square(np.linalg.eigh(x)[1]), name="eigh_vectors_squared",
         rtol=1e-5, atol=1e-8),
    Case(_eigh_recon, [SQ], _np_recon_lower, name="eigh_reads_lower_triangle",
         rtol=1e-5, atol=1e-8),
    Case(tw.linalg.eigvalsh, [SPD.astype(np.float32)],
         lambda x: np.linalg.eigvalsh(x).astype(np.float32), name="eigvalsh_f32", rtol=1e-4,
         atol=1e-5),
    # --- svd: singular values (differentiable) and the reconstruction
    Case(lambda x: tw.linalg.svd(x, compute_uv=False), [TALL],
         lambda x: np.linalg.svd(x, compute_uv=False), name="svd_values"),
    Case(lambda x: tw.linalg.svd(x, compute_uv=False), [rng.normal(size=(2, 2, 3))],
         lambda x: np.linalg.svd(x, compute_uv=False), name="svd_values_batch_wide"),
    Case(_svd_recon, [WIDE], lambda x: x, name="svd_reconstruct", grad=()),
    Case(lambda x: tw.abs(tw.linalg.svd(x, full_matrices=True)[1]), [TALL],
         lambda x: np.abs(np.linalg.svd(x)[0]), name="svd_full_u", grad=()),
    # --- qr
    Case(lambda x: tw.linalg.qr(x), [TALL], lambda x: np.linalg.qr(x), name="qr_tall",
         rtol=1e-5, atol=1e-8),
    Case(lambda x: tw.linalg.qr(x), [BSQ], lambda x: np.linalg.qr(x), name="qr_square_batch",
         rtol=1e-5, atol=1e-8),
    Case(lambda x: tw.linalg.qr(x, full_matrices=True), [WIDE],
         lambda x: np.linalg.qr(x, mode="complete"), name="qr_wide_full", grad=()),
    # --- determinants
    Case(lambda x: tw.linalg.slogdet(x), [BSQ], lambda x: tuple(np.linalg.slogdet(x)),
         name="slogdet"),
    Case(lambda x: tw.linalg.logdet(tw.matmul(x, x, transpose_b=True) + 3 * np.eye(3)), [SQ],
         lambda x: np.linalg.slogdet(x @ x.T + 3 * np.eye(3))[1], name="logdet"),
    # --- triangular solves
    Case(tw.linalg.triangular_solve, [TRI, RHS], lambda a, b: np.linalg.solve(np.tril(a), b),
         name="triangular_solve_lower"),
    Case(lambda a, b: tw.linalg.triangular_solve(a, b, lower=False, adjoint=True),
         [TRI.T + np.tril(SQ, -1), RHS], lambda a, b: np.linalg.solve(np.triu(a).T, b),
         name="triangular_solve_upper_adjoint"),
    Case(tw.linalg.triangular_solve, [np.tril(BSQ) + 3 * np.eye(3), RHS],
         lambda a, b: np.linalg.solve(np.tril(a), b), name="triangular_solve_broadcast"),
    Case(tw.linalg.cholesky_solve, [np.linalg.cholesky(SPD), RHS],
         lambda c, b: np.linalg.solve(c @ c.T, b), name="cholesky_solve", grad=[1]),
    Case(tw.linalg.lstsq, [TALL, rng.normal(size=(4, 2))],
         lambda a, b: np.linalg.lstsq(a, b, rcond=None)[0], name="lstsq_tall",
         unknown_shapes=False),
    Case(lambda a, b: tw.linalg.lstsq(a, b, l2_regularizer=0.5), [WIDE, rng.normal(size=(2, 1))],
         lambda a, b: a.T @ np.linalg.solve(a @ a.T + 0.5 * np.eye(2), b),
         name="lstsq_wide_regularized", unknown_shapes=False),
    # --- matrix functions
    Case(tw.linalg.expm, [0.5 * SQ], _np_expm, name="expm"),
    Case(tw.linalg.expm, [3.0 * BSQ], lambda x: np.stack([_np_expm(m) for m in x]),
         name="expm_scaled_batch", rtol=1e-5, grad_rtol=1e-3),
    Case(tw.linalg.pinv, [TALL], np.linalg.pinv, name="pinv_tall"),
    Case(tw.linalg.pinv, [WIDE], np.linalg.pinv, name="pinv_wide"),
    Case(tw.linalg.matrix_rank, [np.outer(TALL[:, 0], TALL[0])],
         lambda x: np.int32(1), name="matrix_rank_one"),
    Case(tw.linalg.matrix_rank, [BSQ], lambda x: np.array([3, 3], np.int32),
         name="matrix_rank_batch"),
    # --- vector helpers and diagonals
    Case(tw.linalg.cross, [rng.normal(size=(2, 3)), rng.normal(size=(2, 3))], np.cross,
         name="cross"),
    Case(lambda x: tw.linalg.normalize(x, axis=-1), [TALL],
         lambda x: (x / np.linalg.norm(x, axis=-1, keepdims=True),
                    np.linalg.norm(x, axis=-1, keepdims=True)), name="normalize"),
    Case(tw.linalg.diag, [rng.normal(size=(2, 3))],
         lambda d: d[..., None] * np.eye(3), name="diag"),
    Case(tw.linalg.set_diag, [BSQ, rng.normal(size=(2, 3))],
         lambda x, d: x * (1 - np.eye(3)) + d[..., None] * np.eye(3), name="set_diag"),
    Case(tw.linalg.tensor_diag, [rng.normal(size=(2, 2))],
         lambda d: np.diag(d.ravel()).reshape(2, 2, 2, 2), name="tensor_diag",
         unknown_shapes=False),
    Case(tw.linalg.tensor_diag_part, [rng.normal(size=(2, 3, 2, 3))],
         lambda x: np.einsum("ijij->ij", x), name="tensor_diag_part", unknown_shapes=False),
]
