"""Cases for the reductions: sum, mean, max, min, prod, any, all, logsumexp, variance, std,
argmax, argmin, norm, count_nonzero."""
import numpy as np

import twinflow as tw

from .harness import Case, grad_of

rng = np.random.default_rng(7)
# Distinct values (no ties) so that max/min are differentiable where finite differences probe.
X = rng.permutation(24).reshape(2, 3, 4) * 0.25 - 3.0 + rng.uniform(0, 0.05, (2, 3, 4))
M = rng.normal(size=(3, 4))
POS = rng.uniform(0.5, 1.5, size=(3, 4))
I32 = rng.integers(-9, 10, size=(3, 4)).astype(np.int32)
BOOLS = rng.uniform(size=(3, 4)) > 0.5


def _int_mean(x, axis=None):
    s = np.sum(x, axis=axis, dtype=x.dtype)
    n = x.size // max(np.size(s), 1)
    return (np.sign(s) * (np.abs(s) // n)).astype(x.dtype)


CASES = [
    # --- sum
    Case(lambda x: tw.reduce_sum(x, axis=-1), [X], lambda x: x.sum(-1), name="reduce_sum_neg"),
    Case(lambda x: tw.reduce_sum(x, axis=[2, 0]), [X], lambda x: x.sum((0, 2)),
         name="reduce_sum_list"),
    Case(lambda x: tw.reduce_sum(x, axis=1), [I32], lambda x: x.sum(1, dtype=np.int32),
         name="reduce_sum_i32"),
    Case(lambda x: tw.reduce_sum(x, 0), [M.astype(np.float32)],
         lambda x: x.sum(0, dtype=np.float32), name="reduce_sum_f32", rtol=1e-5),
    # --- mean
    Case(tw.reduce_mean, [X], np.mean, name="reduce_mean_all"),
    Case(lambda x: tw.reduce_mean(x, axis=1), [X], lambda x: x.mean(1), name="reduce_mean_axis"),
    Case(lambda x: tw.reduce_mean(x, axis=[0, -1], keepdims=True), [X],
         lambda x: x.mean((0, 2), keepdims=True), name="reduce_mean_keepdims"),
    Case(lambda x: tw.reduce_mean(x, 0), [M.astype(np.float32)],
         lambda x: x.mean(0, dtype=np.float32), name="reduce_mean_f32", rtol=1e-5),
    Case(lambda x: tw.reduce_mean(x, 1), [I32], lambda x: _int_mean(x, 1),
         name="reduce_mean_i32_truncates"),
    Case(tw.reduce_mean, [I32], _int_mean, name="reduce_mean_i32_all"),
    Case(grad_of(lambda x: tw.reduce_mean(x * x, axis=1)), [M], lambda x: 2 * x / 4,
         name="reduce_mean_second_order"),
    # --- max, min
    Case(tw.reduce_max, [X], np.max, name="reduce_max_all"),
    Case(lambda x: tw.reduce_max(x, axis=1), [X], lambda x: x.max(1), name="reduce_max_axis"),
    Case(lambda x: tw.reduce_max(x, axis=[0, 2], keepdims=True), [X],
         lambda x: x.max((0, 2), keepdims=True), name="reduce_max_keepdims"),
    Case(lambda x: tw.reduce_min(x, axis=-1), [X], lambda x: x.min(-1), name="reduce_min_axis"),
    Case(lambda x: tw.reduce_min(x, axis=0, keepdims=True), [X.astype(np.float32)],
         lambda x: x.min(0, keepdims=True), name="reduce_min_f32"),
    Case(lambda x: tw.reduce_max(x, 1), [I32], lambda x: x.max(1), name="reduce_max_i32"),
    Case(lambda x: tw.reduce_min(x), [I32], lambda x: x.min(), name="reduce_min_i32"),
    # Two-way ties share the gradient equally, which is also what central differences see.
    Case(lambda x: tw.reduce_max(x, axis=1), [np.array([[1.0, 3.0, 3.0], [2.0, 0.5, 1.0]])],
         lambda x: x.max(1), name="reduce_max_tie"),
    Case(grad_of(lambda x: tw.reduce_max(x, axis=0)), [X[0]],
         lambda x: (x == x.max(0)).astype(x.dtype), name="reduce_max_grad_fn"),
    # --- prod
    Case(lambda x: tw.reduce_prod(x, axis=1), [POS], lambda x: x.prod(1), name="reduce_prod"),
    Case(lambda x: tw.reduce_prod(x, axis=[0, 1], keepdims=True), [POS],
         lambda x: x.prod((0, 1), keepdims=True), name="reduce_prod_keepdims"),
    Case(lambda x: tw.reduce_prod(x, 0), [np.array([[0.0, 2.0], [3.0, 0.0], [0.5, 0.0]])],
         lambda x: x.prod(0), name="reduce_prod_zeros"),
    Case(lambda x: tw.reduce_prod(x, 1), [I32], lambda x: x.prod(1, dtype=np.int32),
         name="reduce_prod_i32"),
    Case(lambda x: tw.reduce_prod(x), [POS.astype(np.float32)],
         lambda x: x.prod(dtype=np.float32), name="reduce_prod_f32", rtol=1e-5),
    Case(tw.reduce_any, [BOOLS], np.any, name="reduce_any"),
    Case(lambda x: tw.reduce_any(x, axis=1, keepdims=True), [BOOLS],
         lambda x: x.any(1, keepdims=True), name="reduce_any_axis"),
    Case(lambda x: tw.reduce_all(x, axis=0), [BOOLS], lambda x: x.all(0), name="reduce_all"),
    # --- logsumexp
    Case(lambda x: tw.reduce_logsumexp(x, axis=1), [M],
         lambda x: np.log(np.exp(x).sum(1)), name="reduce_logsumexp"),
    Case(tw.reduce_logsumexp, [M + 1000.0],
         lambda x: np.log(np.exp(x - x.max()).sum()) + x.max(), name="reduce_logsumexp_large"),
    Case(lambda x: tw.reduce_logsumexp(x, axis=0, keepdims=True), [M.astype(np.float32)],
         lambda x: np.log(np.exp(x).sum(0, keepdims=True)), name="reduce_logsumexp_f32",
         rtol=1e-5),
    # --- argmax, argmin
    Case(tw.argmax, [X], lambda x: np.argmax(x, 0), name="argmax_default_axis"),
    Case(lambda x: tw.argmax(x, axis=-1), [X], lambda x: np.argmax(x, -1), name="argmax_neg"),
    Case(lambda x: tw.math.argmin(x, 1, output_type=tw.int32), [X],
         lambda x: np.argmin(x, 1).astype(np.int32), name="argmin_int32"),
    Case(lambda x: tw.argmin(x, 0), [I32], lambda x: np.argmin(x, 0), name="argmin_i32_input"),
]

CASES += [
    Case(lambda x: tw.math.reduce_std(x, axis=1), [M], lambda x: x.std(1),
         name="reduce_std"),
    Case(lambda x: tw.math.reduce_std(x, axis=0, keepdims=True), [M.astype(np.float32)],
         lambda x: x.std(0, keepdims=True), name="reduce_std_f32", rtol=1e-5),
    Case(lambda x: tw.norm(x), [M], lambda x: np.sqrt((x * x).sum()),
         name="norm_euclidean"),
    Case(lambda x: tw.norm(x, axis=1, keepdims=True), [M],
         lambda x: np.linalg.norm(x, axis=1, keepdims=True), name="norm_axis_keepdims"),
    Case(lambda x: tw.linalg.norm(x, ord="fro", axis=[-2, -1]), [X],
         lambda x: np.linalg.norm(x, "fro", axis=(-2, -1)), name="norm_fro"),
    Case(lambda x: tw.norm(x, ord=2, axis=0), [M.astype(np.float32)],
         lambda x: np.linalg.norm(x, 2, axis=0), name="norm_2_f32", rtol=1e-5),
]
CASES += [
Case(lambda x: tw.math.reduce_variance(x, axis=[0, 1]), [X], lambda x: x.var((0, 1)),
     name="reduce_variance"),
Case(tw.math.reduce_variance, [M.astype(np.float32)], lambda x: x.var(),
     name="reduce_variance_f32", rtol=1e-5),
]
CASES += [
    Case(lambda x: tw.norm(x, ord=1, axis=-1), [M], lambda x: np.abs(x).sum(-1),
         name="norm_1"),
    Case(lambda x: tw.norm(x, ord=np.inf), [M], lambda x: np.abs(x).max(),
         name="norm_inf"),
    Case(lambda x: tw.norm(x, ord=1, axis=[0, 1]), [M],
         lambda x: np.linalg.norm(x, 1), name="norm_matrix_1"),
    Case(lambda x: tw.norm(x, ord=np.inf, axis=[0, 1], keepdims=True), [M],
         lambda x: np.linalg.norm(x, np.inf, keepdims=True), name="norm_matrix_inf"),
    Case(lambda x: tw.norm(x, ord=3, axis=1), [M],
         lambda x: (np.abs(x) ** 3).sum(1) ** (1 / 3), name="norm_p3"),
    Case(lambda x: tw.math.reduce_euclidean_norm(x, axis=[0, 2]), [X],
         lambda x: np.sqrt((x * x).sum((0, 2))), name="reduce_euclidean_norm"),
    Case(lambda x: tw.norm(x, axis=1), [M + 1j * POS], lambda x: np.linalg.norm(x, axis=1),
         name="norm_complex"),
    Case(lambda x: tw.math.reduce_variance(x, axis=0), [M + 1j * POS],
         lambda x: x.var(0), name="reduce_variance_complex"),
    Case(lambda x: tw.reduce_sum(x, axis=1), [M + 1j * POS], lambda x: x.sum(1),
         name="reduce_sum_complex"),
    Case(lambda x: tw.reduce_mean(x), [(M + 1j * POS).astype(np.complex64)],
         lambda x: x.mean(dtype=np.complex64), name="reduce_mean_complex64", rtol=1e-5),
    Case(grad_of(lambda x: tw.reduce_prod(x, axis=1)), [POS],
         lambda x: x.prod(1, keepdims=True) / x, name="reduce_prod_second_order"),
    Case(lambda x: tw.math.count_nonzero(x, axis=1), [I32 * (I32 > 2)],
         lambda x: np.count_nonzero(x, axis=1).astype(np.int64), name="count_nonzero"),
    Case(tw.math.count_nonzero, [BOOLS], lambda x: np.int64(np.count_nonzero(x)),
         name="count_nonzero_bool"),
]

COVERED_ELSEWHERE = {
    "ReciprocalReducedSize": "reduce_mean_second_order (gradient of reduce_mean)",
    "ExtremumWeights": "reduce_max_grad_fn (gradient of reduce_max)",
    "ProdOthers": "reduce_prod_second_order (gradient of reduce_prod)",
}
