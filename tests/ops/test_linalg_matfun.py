"""sqrtm, logm, banded_triangular_solve, eigh_tridiagonal and conjugate_gradient against
TensorFlow 2.21's numbers (tests/fixtures/linalg/linalg.npz)."""
import pathlib

import numpy as np
import pytest

import twinflow as tw

F = np.load(pathlib.Path(__file__).parents[1] / "fixtures" / "linalg" / "linalg.npz")


def test_sqrtm_and_gradient_match_tensorflow():
    x = tw.constant(F["spd"])
    with tw.GradientTape() as tape:
        tape.watch(x)
        r = tw.linalg.sqrtm(x)
        y = tw.reduce_sum(r * np.arange(9.0).reshape(3, 3))
    np.testing.assert_allclose(r.numpy(), F["sqrtm"], rtol=1e-10)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), F["sqrtm_grad"], rtol=1e-8)
    assert tw.matrix_square_root is tw.linalg.sqrtm is tw.linalg.matrix_square_root


def test_logm_matches_tensorflow_and_inverts_expm():
    got = tw.linalg.logm(F["cplx"]).numpy()
    np.testing.assert_allclose(got, F["logm"], rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(tw.linalg.expm(got).numpy(), F["cplx"], atol=1e-10)
    with pytest.raises(tw.errors.InvalidArgumentError, match="complex"):
        tw.linalg.logm(np.eye(2))


@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("adjoint", [True, False])
def test_banded_triangular_solve_matches_tensorflow(lower, adjoint):
    got = tw.linalg.banded_triangular_solve(F["bands"], F["rhs"], lower=lower, adjoint=adjoint)
    np.testing.assert_allclose(got.numpy(), F[f"banded_{lower}_{adjoint}"], rtol=1e-10)


def test_eigh_tridiagonal_matches_tensorflow():
    a, b = F["alpha"], F["beta"]
    np.testing.assert_allclose(tw.linalg.eigh_tridiagonal(a, b).numpy(), F["eigh_all"],
                               rtol=1e-10)
    np.testing.assert_allclose(tw.linalg.eigh_tridiagonal(a, b, select="i",
                                                          select_range=[1, 3]).numpy(),
                               F["eigh_i"], rtol=1e-10)
    np.testing.assert_allclose(tw.linalg.eigh_tridiagonal(a, b, select="v",
                                                          select_range=[-0.5, 1.0]).numpy(),
                               F["eigh_v"], rtol=1e-10)
    w, v = tw.linalg.eigh_tridiagonal(a, b, eigvals_only=False)
    t = np.diag(a) + np.diag(b, 1) + np.diag(b, -1)
    np.testing.assert_allclose(t @ v.numpy(), v.numpy() * w.numpy(), atol=1e-10)
    with pytest.raises(ValueError, match="select"):
        tw.linalg.eigh_tridiagonal(a, b, select="x")


def test_conjugate_gradient_matches_tensorflow_eager_and_traced():
    op = tw.linalg.LinearOperatorFullMatrix(F["spd"], is_self_adjoint=True,
                                            is_positive_definite=True)
    st = tw.linalg.experimental.conjugate_gradient(op, F["cg_rhs"], max_iter=2)
    np.testing.assert_allclose(st.x.numpy(), F["cg2_x"], rtol=1e-10)
    assert int(st.i) == int(F["cg2_i"])
    st = tw.linalg.experimental.conjugate_gradient(op, F["cg_rhs"], tol=1e-8)
    np.testing.assert_allclose(st.x.numpy(), F["cg_x"], rtol=1e-8)
    assert int(st.i) == int(F["cg_i"])
    traced = tw.function(lambda b: tw.linalg.experimental.conjugate_gradient(
        op, b, tol=1e-8))(F["cg_rhs"])
    np.testing.assert_allclose(traced.x.numpy(), F["cg_x"], rtol=1e-8)
    assert int(traced.i) == int(F["cg_i"])
    with pytest.raises(ValueError, match="positive definite"):
        tw.linalg.experimental.conjugate_gradient(tw.linalg.LinearOperatorFullMatrix(
            F["spd"]), F["cg_rhs"])
