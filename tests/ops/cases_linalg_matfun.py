"""Cases for sqrtm, logm and banded_triangular_solve (values against NumPy references built
by eigendecomposition and dense solves; gradients by finite differences)."""
import numpy as np

import twinflow as tw

from .harness import Case

rng = np.random.default_rng(5)
_A = rng.normal(size=(3, 3))
SPD = _A @ _A.T + 3 * np.eye(3)
BANDS = rng.uniform(1, 2, size=(2, 3))
RHS = rng.normal(size=(3, 2))


def _np_sqrtm(a):
    w, v = np.linalg.eigh(a)
    return (v * np.sqrt(w)) @ v.T


def _dense_lower(bands):
    return np.diag(bands[0]) + np.diag(bands[1, 1:], -1)


def _dense_upper(bands):
    return np.diag(bands[1]) + np.diag(bands[0, :-1], 1)


CASES = [
    Case(tw.linalg.sqrtm, [SPD], _np_sqrtm, name="sqrtm", rtol=1e-8),
    Case(tw.linalg.logm, [(SPD + 0j).astype(np.complex128)],
         lambda a: (lambda w, v: (v * np.log(w)) @ v.T)(*np.linalg.eigh(a.real)) + 0j,
         grad=(), name="logm", rtol=1e-8, atol=1e-10),
    Case(lambda b, r: tw.linalg.banded_triangular_solve(b, r), [BANDS, RHS],
         lambda b, r: np.linalg.solve(_dense_lower(b), r), name="banded_triangular_solve"),
    Case(lambda b, r: tw.linalg.banded_triangular_solve(b, r, lower=False, adjoint=True),
         [BANDS, RHS], lambda b, r: np.linalg.solve(_dense_upper(b).T, r),
         name="banded_triangular_solve_upper_adjoint"),
]
