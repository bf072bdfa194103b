"""Cases for the special functions (references: SciPy where installed, else the case is
skipped by ``pytest.importorskip`` below) and the tw.math odds and ends."""
import numpy as np
import pytest

import twinflow as tw

from .harness import Case

special = pytest.importorskip("scipy.special")

rng = np.random.default_rng(5)
POS = rng.uniform(0.5, 3.0, size=(2, 3))
UNIT = rng.uniform(-0.9, 0.9, size=(2, 3))
PROB = rng.uniform(0.05, 0.95, size=(2, 3))
M = tw.math
S = tw.math.special


def _u(fn, ref, x=POS, name=None, **kw):
    return Case(fn, [x], ref, name=name or fn.__name__, **kw)


CASES = [
    _u(M.lgamma, special.gammaln),
    _u(M.lgamma, special.gammaln, x=POS.astype(np.float32), name="lgamma_f32", rtol=1e-5),
    _u(M.digamma, special.digamma),
    _u(M.erfinv, special.erfinv, x=UNIT),
    _u(M.erfcinv, special.erfcinv, x=UNIT + 1),
    _u(M.ndtri, special.ndtri, x=PROB),
    _u(M.bessel_i0, special.i0, x=UNIT * 3),
    _u(M.bessel_i0e, special.i0e, x=UNIT * 3),
    _u(M.bessel_i1, special.i1, x=UNIT * 3),
    _u(M.bessel_i1e, special.i1e, x=UNIT * 3),
    _u(S.bessel_j0, special.j0), _u(S.bessel_j1, special.j1),
    _u(S.bessel_y0, special.y0), _u(S.bessel_y1, special.y1),
    _u(S.bessel_k0, special.k0), _u(S.bessel_k0e, special.k0e),
    _u(S.bessel_k1, special.k1), _u(S.bessel_k1e, special.k1e),
    _u(S.dawsn, special.dawsn, x=UNIT * 2), _u(S.expint, special.expi),
    _u(S.fresnel_cos, lambda x: special.fresnel(x)[1], x=UNIT),
    _u(S.fresnel_sin, lambda x: special.fresnel(x)[0], x=UNIT),
    _u(S.spence, special.spence),
    Case(M.xlog1py, [np.array([0.0, 1.0, 2.0]), np.array([-0.5, 0.5, 3.0])],
         lambda x, y: np.array([0.0, np.log1p(0.5), 2 * np.log1p(3.0)]), name="xlog1py",
         grad=[1]),
    Case(M.igamma, [POS, POS[::-1]], special.gammainc, name="igamma", grad=[1]),
    Case(M.igammac, [POS, POS[0]], special.gammaincc, name="igammac_broadcast", grad=[1]),
    Case(M.polygamma, [np.array([0.0, 1.0, 2.0]), POS[0]], special.polygamma, name="polygamma",
         grad=[1]),
    Case(M.zeta, [POS + 1.5, POS], special.zeta, name="zeta", grad=[1]),
    Case(M.nextafter, [POS, np.zeros_like(POS)], np.nextafter, name="nextafter", grad=()),
    # compositions and small ops
    Case(M.lbeta, [POS], lambda x: np.sum(special.gammaln(x), -1) - special.gammaln(x.sum(-1)),
         name="lbeta"),
    Case(M.angle, [UNIT + 1j * POS], np.angle, name="angle_complex", grad=()),
    Case(M.angle, [UNIT], np.angle, name="angle_real", grad=()),
    Case(M.zero_fraction, [np.array([[0, 1], [2, 0]], np.int32)], lambda x: np.float32(0.5),
         name="zero_fraction"),
    Case(lambda x: M.cumulative_logsumexp(x, axis=1), [UNIT * 50],
         lambda x: np.logaddexp.accumulate(x, axis=1), name="cumulative_logsumexp"),
    Case(lambda x: M.cumulative_logsumexp(x, exclusive=True, reverse=True), [UNIT],
         lambda x: np.concatenate([np.logaddexp.accumulate(x[::-1], axis=0)[::-1][1:],
                                   np.full((1, 3), -np.inf)]),
         name="cumulative_logsumexp_exclusive_reverse", grad=()),
    Case(M.invert_permutation, [np.array([2, 0, 3, 1], np.int32)],
         lambda x: np.argsort(x).astype(np.int32), name="invert_permutation"),
    Case(M.is_non_decreasing, [np.array([1, 2, 2, 5])], lambda x: np.bool_(True),
         name="is_non_decreasing"),
    Case(M.is_strictly_increasing, [np.array([1, 2, 2, 5])], lambda x: np.bool_(False),
         name="is_strictly_increasing"),
    Case(lambda a, b, w: M.confusion_matrix(a, b, num_classes=3, weights=w,
                                                dtype=tw.float64),
         [np.array([0, 1, 2, 2]), np.array([0, 2, 2, 2]), np.array([1.0, 2.0, 3.0, 4.0])],
         lambda a, b, w: np.array([[1.0, 0, 0], [0, 0, 2], [0, 0, 7]]),
         name="confusion_matrix_weighted"),
    Case(M.confusion_matrix, [np.array([0, 1]), np.array([1, 1])],
         lambda a, b: np.array([[0, 1], [0, 1]], np.int32), name="confusion_matrix",
         graph=False),
]
