"""tw.linalg.LinearOperator*: every method of every operator against NumPy on its dense
matrix (which is itself checked against a NumPy construction)."""
import numpy as np
import pytest

import twinflow as tw

rng = np.random.default_rng(0)
LO = tw.linalg


def _spd(n, batch=()):
    a = rng.normal(size=batch + (n, n))
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


def _circ(c):
    n = len(c)
    return np.array([[c[(i - j) % n] for j in range(n)] for i in range(n)])


D = rng.uniform(1, 2, size=(2, 3))
FULL = rng.normal(size=(2, 3, 3)) + 3 * np.eye(3)
TRIL = np.tril(rng.normal(size=(3, 3))) + 3 * np.eye(3)
SPD = _spd(3)
V = rng.normal(size=3)
COL, ROW = np.array([4.0, 1.0, 0.5]), np.array([9.0, 2.0, 0.3])
TRI = np.array([[1.0, 0.5, 0.0], [4.0, 5.0, 6.0], [0.0, 0.7, 0.2]])
U = rng.normal(size=(3, 2))
KERNEL = np.array([3.0, 1.0, 0.5, 1.0])      # symmetric: real spectrum
K2 = rng.normal(size=(2, 3))


def _toeplitz(c, r):
    n = len(c)
    return np.array([[c[i - j] if i >= j else r[j - i] for j in range(n)] for i in range(n)])


def _tridiag(t):
    return np.diag(t[1]) + np.diag(t[0][:-1], 1) + np.diag(t[2][1:], -1)


CASES = {
    "full": (lambda: LO.LinearOperatorFullMatrix(FULL), FULL),
    "diag": (lambda: LO.LinearOperatorDiag(D, is_positive_definite=True), D[..., None] *
             np.eye(3)),
    "identity": (lambda: LO.LinearOperatorIdentity(3, batch_shape=[2], dtype=tw.float64),
                 np.broadcast_to(np.eye(3), (2, 3, 3))),
    "scaled_identity": (lambda: LO.LinearOperatorScaledIdentity(3, np.array([2.0, -3.0])),
                        np.array([2.0, -3.0])[:, None, None] * np.eye(3)),
    "lower_triangular": (lambda: LO.LinearOperatorLowerTriangular(TRIL + np.triu(TRIL.T, 1)),
                         TRIL),
    "permutation": (lambda: LO.LinearOperatorPermutation([1, 2, 0], dtype=tw.float64),
                    np.eye(3)[[1, 2, 0]]),
    "householder": (lambda: LO.LinearOperatorHouseholder(V),
                    np.eye(3) - 2 * np.outer(V, V) / V.dot(V)),
    "toeplitz": (lambda: LO.LinearOperatorToeplitz(COL, ROW), _toeplitz(COL, ROW)),
    "tridiag": (lambda: LO.LinearOperatorTridiag(TRI), _tridiag(TRI)),
    "tridiag_matrix": (lambda: LO.LinearOperatorTridiag(_tridiag(TRI), "matrix"),
                       _tridiag(TRI)),
    "circulant": (lambda: LO.LinearOperatorCirculant(np.fft.fft(KERNEL).real,
                                                     input_output_dtype=tw.float64),
                  _circ(KERNEL)),
    "circulant_complex": (lambda: LO.LinearOperatorCirculant(
        np.fft.fft(KERNEL + 1j * np.arange(4)).astype(np.complex128),
        input_output_dtype=tw.complex128), _circ(KERNEL + 1j * np.arange(4))),
    "circulant2d": (lambda: LO.LinearOperatorCirculant2D(
        np.fft.fft2(K2 + 2).astype(np.complex128), input_output_dtype=tw.complex128),
        None),
    "adjoint": (lambda: LO.LinearOperatorAdjoint(LO.LinearOperatorFullMatrix(FULL)),
                np.swapaxes(FULL, -1, -2)),
    "inversion": (lambda: LO.LinearOperatorInversion(LO.LinearOperatorFullMatrix(SPD)),
                  np.linalg.inv(SPD)),
    "composition": (lambda: LO.LinearOperatorComposition(
        [LO.LinearOperatorFullMatrix(FULL), LO.LinearOperatorLowerTriangular(TRIL)]),
        FULL @ TRIL),
    "block_diag": (lambda: LO.LinearOperatorBlockDiag(
        [LO.LinearOperatorFullMatrix(SPD), LO.LinearOperatorDiag(np.array([2.0, 5.0]))]),
        np.block([[SPD, np.zeros((3, 2))], [np.zeros((2, 3)), np.diag([2.0, 5.0])]])),
    "block_lower_triangular": (lambda: LO.LinearOperatorBlockLowerTriangular(
        [[LO.LinearOperatorFullMatrix(SPD)],
         [LO.LinearOperatorFullMatrix(U.T), LO.LinearOperatorDiag(np.array([2.0, 5.0]))]]),
        np.block([[SPD, np.zeros((3, 2))], [U.T, np.diag([2.0, 5.0])]])),
    "kronecker": (lambda: LO.LinearOperatorKronecker(
        [LO.LinearOperatorFullMatrix(TRIL[:2, :2]), LO.LinearOperatorFullMatrix(SPD)]),
        np.kron(TRIL[:2, :2], SPD)),
    "low_rank_update": (lambda: LO.LinearOperatorLowRankUpdate(
        LO.LinearOperatorDiag(np.array([3.0, 4.0, 5.0])), U, diag_update=np.array([1.0, 2.0]),
        is_diag_update_positive=True),
        np.diag([3.0, 4.0, 5.0]) + U @ np.diag([1.0, 2.0]) @ U.T),
}


def _ref_circ2d():
    n0, n1 = K2.shape
    k = K2 + 2
    m = np.zeros((n0 * n1, n0 * n1))
    for i0 in range(n0):
        for i1 in range(n1):
            for j0 in range(n0):
                for j1 in range(n1):
                    m[i0 * n1 + i1, j0 * n1 + j1] = k[(i0 - j0) % n0, (i1 - j1) % n1]
    return m


def _close(a, b, tol=1e-6):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=tol, atol=tol)


@pytest.mark.parametrize("key", sorted(CASES))
def test_operator_matches_numpy(key):
    make, dense = CASES[key]
    op = make()
    dense = _ref_circ2d() if key == "circulant2d" else dense
    _close(op.to_dense(), dense)
    assert op.shape.as_list() == list(dense.shape)
    n = dense.shape[-1]
    x = rng.normal(size=dense.shape[:-2] + (n, 2)).astype(op.dtype.np)
    _close(op.matmul(x), dense @ x)
    _close(op.matmul(x, adjoint=True), np.conj(np.swapaxes(dense, -1, -2)) @ x)
    _close(op.matmul(np.swapaxes(x, -1, -2), adjoint_arg=True), dense @ x)
    _close(op.matvec(x[..., 0]), (dense @ x)[..., 0])
    _close(op @ x, dense @ x)
    _close(op.solve(x), np.linalg.solve(dense, x), 1e-5)
    _close(op.solve(x, adjoint=True), np.linalg.solve(np.conj(np.swapaxes(dense, -1, -2)), x),
           1e-5)
    _close(op.solvevec(x[..., 0]), np.linalg.solve(dense, x)[..., 0], 1e-5)
    _close(op.determinant(), np.linalg.det(dense), 1e-5)
    _close(op.log_abs_determinant(), np.linalg.slogdet(dense)[1], 1e-5)
    _close(op.diag_part(), np.diagonal(dense, axis1=-2, axis2=-1))
    _close(op.trace(), np.trace(dense, axis1=-2, axis2=-1))
    _close(np.sort_complex(np.asarray(op.eigvals()).reshape(-1)),
           np.sort_complex(np.linalg.eigvals(dense).reshape(-1)), 1e-5)
    _close(op.inverse().to_dense(), np.linalg.inv(dense), 1e-5)
    _close(op.adjoint().to_dense(), np.conj(np.swapaxes(dense, -1, -2)))
    _close(op.H.matmul(x), np.conj(np.swapaxes(dense, -1, -2)) @ x)
    _close(op.add_to_tensor(dense), 2 * dense)
    _close(op.cond(), np.linalg.cond(dense), 1e-5)
    assert op.batch_shape.as_list() == list(dense.shape[:-2])
    assert op.domain_dimension == op.range_dimension == n
    assert op.shape_tensor().numpy().tolist() == list(dense.shape)
    if op.is_self_adjoint and op.is_positive_definite:
        _close(op.cholesky().to_dense(), np.linalg.cholesky(dense), 1e-5)


def test_zeros_and_non_square():
    z = LO.LinearOperatorZeros(2, 3, is_square=False, is_self_adjoint=None)
    assert z.shape == (2, 3) and not z.is_square
    _close(z.matmul(np.ones((3, 4), np.float32)), np.zeros((2, 4)))
    with pytest.raises(NotImplementedError, match="expected to be singular"):
        z.solve(np.ones((2, 1), np.float32))
    with pytest.raises(NotImplementedError, match="not be square"):
        z.determinant()
    sq = LO.LinearOperatorZeros(3)
    _close(sq.determinant(), 0.0)
    full = LO.LinearOperatorFullMatrix(U)
    assert full.is_square is False
    with pytest.raises(ValueError, match="non square"):
        full.inverse()


def test_hints_and_composition_of_operators():
    with pytest.raises(ValueError, match="always non-singular"):
        LO.LinearOperatorFullMatrix(SPD, is_positive_definite=True, is_non_singular=False)
    with pytest.raises(ValueError, match="always self adjoint"):
        LO.LinearOperatorDiag([1.0, 2.0], is_self_adjoint=False)
    with pytest.raises(ValueError, match="identity operator is always"):
        LO.LinearOperatorIdentity(2, is_non_singular=False)
    with pytest.raises(ValueError, match="Cholesky"):
        LO.LinearOperatorFullMatrix(SPD).cholesky()
    a = LO.LinearOperatorFullMatrix(SPD, is_self_adjoint=True, is_positive_definite=True)
    assert a.adjoint() is a
    prod = a.matmul(LO.LinearOperatorDiag(np.array([1.0, 2.0, 3.0])))
    assert isinstance(prod, LO.LinearOperatorComposition)
    _close(prod.to_dense(), SPD @ np.diag([1.0, 2.0, 3.0]))
    inv = a.solve(a)
    _close(inv.to_dense(), np.eye(3), 1e-6)
    with pytest.raises(TypeError, match="same dtype"):
        LO.LinearOperatorComposition([a, LO.LinearOperatorIdentity(3)])
    with pytest.raises(ValueError, match="incompatible"):
        LO.LinearOperatorComposition([LO.LinearOperatorFullMatrix(U), a])


def test_gradients_and_graph():
    d = tw.Variable(np.array([1.0, 2.0, 4.0]))
    with tw.GradientTape() as tape:
        op = LO.LinearOperatorLowRankUpdate(LO.LinearOperatorDiag(d), U)
        y = tw.reduce_sum(op.solvevec(np.ones(3))) + op.log_abs_determinant()
    g = tape.gradient(y, d).numpy()

    def f(dd):
        m = np.diag(dd) + U @ U.T
        return np.linalg.solve(m, np.ones(3)).sum() + np.linalg.slogdet(m)[1]

    num = [(f(d.numpy() + e) - f(d.numpy() - e)) / 2e-6 for e in np.eye(3) * 1e-6]
    _close(g, num, 1e-5)

    @tw.function
    def traced(c):
        return LO.LinearOperatorToeplitz(c, ROW).matvec(np.ones(3))

    _close(traced(COL), _toeplitz(COL, ROW) @ np.ones(3))
