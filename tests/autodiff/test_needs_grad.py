"""``op.needs_grad``: gradient rules skip inputs that no source reaches (skip_input_indices)."""
from __future__ import annotations

import numpy as np
import pytest

import twinflow as tw
from twinflow.ops import linalg_ops

RNG = np.random.default_rng(0)
X = RNG.normal(size=(4, 3))
W = RNG.normal(size=(3, 2))


@pytest.fixture
def seen_needs(monkeypatch):
    """The ``needs_grad`` each MatMul gradient call saw."""
    seen = []
    rule = linalg_ops.MatMul.grad

    def spy(op, dy):
        seen.append(op.needs_grad)
        return rule(op, dy)
    monkeypatch.setattr(linalg_ops.MatMul, "grad", spy)
    return seen


def test_matmul_skips_the_input_batch_eagerly(seen_needs):
    x, w = tw.constant(X), tw.Variable(W)
    with tw.GradientTape() as tape:
        loss = tw.reduce_sum(tw.matmul(x, w))
    dw = tape.gradient(loss, w)
    np.testing.assert_allclose(dw.numpy(), X.T @ np.ones((4, 2)))
    assert seen_needs == [(False, True)]


def test_matmul_skips_the_input_batch_in_a_graph(seen_needs):
    g = tw.Graph()
    with g.as_default():
        x, w = tw.constant(X), tw.constant(W)
        with tw.GradientTape() as tape:
            tape.watch(w)
            loss = tw.reduce_sum(tw.matmul(x, w, transpose_b=False))
        tape.gradient(loss, w)
    assert seen_needs == [(False, True)]
    assert [op.type for op in g.get_operations()].count("MatMul") == 2  # forward and dw


@pytest.mark.parametrize("ta, tb", [(False, False), (False, True), (True, False), (True, True)])
def test_matmul_gradients_alone_match_both_together(ta, tb):
    a = tw.constant(X.T if ta else X)
    b = tw.constant(W.T if tb else W)
    with tw.GradientTape(persistent=True) as tape:
        tape.watch([a, b])
        y = tw.matmul(a, b, transpose_a=ta, transpose_b=tb)
        loss = tw.reduce_sum(y * y)
    both = tape.gradient(loss, [a, b])
    np.testing.assert_array_equal(tape.gradient(loss, a).numpy(), both[0].numpy())
    np.testing.assert_array_equal(tape.gradient(loss, b).numpy(), both[1].numpy())


def test_second_order_through_a_skipped_input():
    """The inner tape skips dx; the outer one still differentiates dw with respect to x."""
    def z_of(x_value):
        x, w = tw.constant(x_value), tw.constant(W)
        with tw.GradientTape() as outer:
            outer.watch(x)
            with tw.GradientTape() as inner:
                inner.watch(w)
                loss = tw.reduce_sum(tw.square(tw.matmul(x, w) * x[:, :1] - 1.0))
            dw = inner.gradient(loss, w)
            z = tw.reduce_sum(dw * dw)
        return z, outer.gradient(z, x)

    _, gx = z_of(X)
    eps = 1e-6
    numeric = np.zeros_like(X)
    for i in np.ndindex(X.shape):
        d = np.zeros_like(X)
        d[i] = eps
        numeric[i] = (z_of(X + d)[0].numpy() - z_of(X - d)[0].numpy()) / (2 * eps)
    np.testing.assert_allclose(gx.numpy(), numeric, rtol=1e-6, atol=1e-6)


def test_bias_add_and_binary_ops_skip_unreached_inputs():
    x, b, c = tw.constant(X), tw.Variable(np.zeros(3)), tw.constant(np.full(3, 2.0))
    with tw.GradientTape(persistent=True) as tape:
        y = tw.nn.bias_add(x, b) * c - c + x
        loss = tw.reduce_sum(y * y)
    db = tape.gradient(loss, b)
    np.testing.assert_allclose(db.numpy(), (2 * (X * 2 - 2 + X) * 2).sum(axis=0))
    np.testing.assert_array_equal(db.numpy(), tape.gradient(loss, [b, c, x])[0].numpy())


@pytest.mark.parametrize("fn", [
    tw.add, tw.subtract, tw.multiply, tw.divide, tw.pow, tw.maximum, tw.minimum,
    tw.math.squared_difference, lambda a, b: tw.einsum("ij,j->i", a, b),
    lambda a, b: tw.nn.bias_add(a, b),
    lambda a, b: tw.nn.conv2d(tw.reshape(a, [1, 4, 3, 1]), tw.reshape(b, [1, 3, 1, 1]), 1,
                              "VALID")],
    ids=["add", "sub", "mul", "div", "pow", "max", "min", "sqdiff", "einsum", "bias_add",
         "conv2d"])
def test_one_gradient_alone_equals_it_computed_with_the_other(fn):
    a = tw.constant(np.abs(X) + 0.5)
    b = tw.constant(np.abs(W[:, 0]) + 0.25)
    with tw.GradientTape(persistent=True) as tape:
        tape.watch([a, b])
        loss = tw.reduce_sum(tw.square(fn(a, b)))
    both = tape.gradient(loss, [a, b])
    for i, source in enumerate([a, b]):
        np.testing.assert_array_equal(tape.gradient(loss, source).numpy(), both[i].numpy())
