"""Gradients of ``tw.experimental.numpy`` functions against central finite differences (the
ops harness's check: eagerly and in a graph), for a representative subset of each family."""
from __future__ import annotations

import numpy as np
import pytest

import twinflow as tw
from twinflow.numpy_api import behavior

from ..ops.harness import Case, check_gradients

tnp = tw.experimental.numpy
rng = np.random.default_rng(3)
X = rng.uniform(0.3, 0.9, size=(2, 3))
Y = rng.uniform(0.3, 0.9, size=(2, 3))
V = rng.uniform(0.3, 0.9, size=(3,))
S = rng.uniform(0.3, 0.9, size=(3, 3))

UNARY = "sin tanh exp2 expm1 cbrt log2 log10 log1p sqrt sinc arcsin arctanh square " \
    "reciprocal deg2rad abs".split()
BINARY = "add subtract multiply true_divide power float_power hypot arctan2 logaddexp " \
    "logaddexp2 maximum minimum".split()

CASES = (
    [Case(getattr(tnp, n), [X], name=n) for n in UNARY]
    + [Case(getattr(tnp, n), [X, Y], name=n) for n in BINARY]
    + [Case(lambda x: tnp.sum(x, axis=1), [X], name="sum"),
       Case(lambda x: tnp.mean(x, axis=0, keepdims=True), [X], name="mean"),
       Case(lambda x: tnp.std(x), [X], name="std"),
       Case(lambda x: tnp.var(x, axis=1, ddof=1), [X], name="var"),
       Case(lambda x: tnp.prod(x, axis=0), [X], name="prod"),
       Case(lambda x: tnp.amax(x, axis=1), [X], name="amax"),
       Case(lambda x: tnp.ptp(x, axis=0), [X], name="ptp"),
       Case(lambda x, w: tnp.average(x, axis=1, weights=w), [X, V], name="average"),
       Case(lambda x: tnp.cumsum(x, axis=1), [X], name="cumsum"),
       Case(lambda x: tnp.cumprod(x), [X], name="cumprod"),
       Case(lambda x: tnp.nanmean(x, axis=1), [X], name="nanmean"),
       Case(lambda x: tnp.reshape(x, (3, 2), order="F"), [X], name="reshape"),
       Case(lambda x: tnp.moveaxis(x, 0, 1), [X], name="moveaxis"),
       Case(lambda x, y: tnp.concatenate([x, y], axis=1), [X, Y], name="concatenate"),
       Case(lambda x, y: tnp.stack([x, y]), [X, Y], name="stack"),
       Case(lambda x: tnp.split(x, 3, axis=1), [X], name="split"),
       Case(lambda x: tnp.take(x, [2, 0], axis=1), [X], name="take"),
       Case(lambda x: tnp.take_along_axis(x, np.array([[0, 2], [1, 1]]), 1), [X],
            name="take_along_axis"),
       Case(lambda x, y: tnp.where(x > 0.5, x, y), [X, Y], name="where"),
       Case(lambda v: tnp.diag(v, k=1), [V], name="diag"),
       Case(lambda s: tnp.trace(s, offset=1), [S], name="trace"),
       Case(lambda s: tnp.tril(s), [S], name="tril"),
       Case(lambda s, t: tnp.kron(s, t), [S, S], name="kron"),
       Case(lambda a, b: tnp.cross(a, b), [X, Y], name="cross"),
       Case(lambda a, b: tnp.dot(a, b), [X, S], name="dot"),
       Case(lambda a, b: tnp.matmul(a, b), [X, V], name="matmul"),
       Case(lambda a, b: tnp.tensordot(a, b, axes=([1], [1])), [X, Y], name="tensordot"),
       Case(lambda a, b: tnp.einsum("ij,kj->ik", a, b), [X, Y], name="einsum"),
       Case(lambda a, b: tnp.outer(a, b), [V, V], name="outer"),
       Case(lambda a, b: tnp.vdot(a, b), [X, Y], name="vdot"),
       Case(lambda x: tnp.pad(x, [[1, 0], [2, 1]], "reflect"), [X], name="pad"),
       Case(lambda x: tnp.rot90(x), [X], name="rot90"),
       Case(lambda x: tnp.repeat(x, 2, axis=0), [X], name="repeat"),
       Case(lambda x: tnp.sort(x, axis=1), [X], name="sort"),
       Case(lambda x: tnp.diff(x, axis=1), [X], name="diff"),
       Case(lambda p, v: tnp.polyval([p[0, 0], p[0, 1], 1.0], v), [X, V], name="polyval"),
       Case(lambda x: tnp.clip(x, 0.4, 0.8), [X], name="clip"),
       Case(lambda v: tnp.vander(v), [V], name="vander"),
       Case(lambda x: tnp.compress([True, False, True], x, axis=1), [X], name="compress"),
       Case(lambda a, b: tnp.linspace(a[0], b[0], 4), [V, V], name="linspace"),
       ])


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_gradient(case):
    outs = case.fn(*[tw.constant(a) for a in case.args])
    check_gradients(case, outs)


def test_gradient_through_numpy_indexing():
    tnp.experimental_enable_numpy_behavior()
    try:
        case = Case(lambda x: x[:, [2, 0, 2]] * tnp.sum(x[x > 0.5]), [X], name="getitem")
        check_gradients(case, case.fn(tw.constant(X)))
        case = Case(lambda x: (x.T * 2.0).reshape(6), [X], name="methods")
        check_gradients(case, case.fn(tw.constant(X)))
    finally:
        behavior.disable_numpy_behavior()
