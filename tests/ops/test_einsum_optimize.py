"""tw.einsum's ``optimize``: the contraction order of three or more operands, one two-input
Einsum op per step (as tf.einsum), the same in eager and traced code; bad values raise."""
import numpy as np
import pytest

import twinflow as tw

RNG = np.random.default_rng(0)
A, B, C = (RNG.normal(size=s).astype(np.float32) for s in ((20, 30), (30, 40), (40, 2)))
EQ = "ij,jk,kl->il"


def _equations(optimize) -> list:
    f = tw.function(lambda a, b, c: tw.einsum(EQ, a, b, c, optimize=optimize))
    ops = f.get_concrete_function(A, B, C).graph.get_operations()
    return [op.get_attr("equation") for op in ops if op.type == "Einsum"]


@pytest.mark.parametrize("optimize", ["greedy", "optimal", "branch-all", "auto", True, None,
                                      False, ((1, 2), (0, 1))])
def test_every_order_gives_the_product_eagerly_and_traced(optimize):
    want = A @ B @ C
    got = tw.einsum(EQ, A, B, C, optimize=optimize)
    f = tw.function(lambda a, b, c: tw.einsum(EQ, a, b, c, optimize=optimize))
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(f(A, B, C).numpy(), want, rtol=1e-4, atol=1e-4)


def test_the_graph_holds_the_chosen_steps():
    # (20x30)(30x40)(40x2): the cheapest order contracts the last two first
    assert _equations("optimal") == ["jk,kl->jl", "ij,jl->il"]
    assert _equations(((0, 1), (0, 1))) == ["ij,jk->ik", "kl,ik->il"]
    assert _equations(False) == [EQ]


def test_the_gradient_flows_through_the_steps():
    x = tw.Variable(A)
    with tw.GradientTape() as tape:
        y = tw.reduce_sum(tw.einsum(EQ, x, B, C, optimize="optimal"))
    np.testing.assert_allclose(tape.gradient(y, x).numpy(),
                               np.ones((20, 2), np.float32) @ (B @ C).T, rtol=1e-4)


def test_diagonals_and_ellipses_keep_their_meaning():
    got = tw.einsum("ii,ij,jk->k", np.eye(2) * 3, np.ones((2, 3)), np.ones((3, 4)))
    np.testing.assert_allclose(got.numpy(), [18.0] * 4)
    got = tw.einsum("...ij,...jk,...kl->...il", np.ones((3, 2, 2)), np.ones((2, 2)),
                    np.ones((1, 2, 2)))
    np.testing.assert_allclose(got.numpy(), np.full((3, 2, 2), 4.0))


def test_bad_values_raise():
    with pytest.raises(KeyError, match="'bogus' not found"):
        tw.einsum("ij,jk->ik", A, B, optimize="bogus")
    with pytest.raises(TypeError, match="optimize must be"):
        tw.einsum(EQ, A, B, C, optimize=3)
    with pytest.raises(ValueError, match="distinct"):
        tw.einsum(EQ, A, B, C, optimize=((0, 0), (0, 1)))
    with pytest.raises(ValueError, match="leaves 2 operands"):
        tw.einsum(EQ, A, B, C, optimize=((0, 1),))
