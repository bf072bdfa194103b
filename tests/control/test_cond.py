"""tw.cond / tw.case / tw.switch_case: eager, graph (one If/Case op), gradients."""
from __future__ import annotations

import numpy as np
import pytest

import twinflow as tw

from .helpers import check_grad, in_graph, op_types


def test_cond_eager_is_python():
    x = tw.constant(2.0)
    assert float(tw.cond(x > 1.0, lambda: x * 3.0, lambda: x)) == 6.0
    assert float(tw.cond(False, lambda: x * 3.0, lambda: x)) == 2.0
    assert tw.cond(x > 1.0, lambda: (x, {"a": x}), lambda: (x, {"a": x}))[1]["a"] is x


def test_cond_graph_one_if_op_both_ways():
    def f(x):
        return tw.cond(tw.reduce_sum(x) > 0.0, lambda: x * x, lambda: -x)
    for v in ([1.0, 2.0], [-1.0, -3.0]):
        a = np.array(v, np.float32)
        got, g = in_graph(f, a)
        np.testing.assert_allclose(got, f(tw.constant(a)).numpy())
    assert op_types(g).count("StatelessIf") == 1
    assert "Mul" not in op_types(g)  # the branches live in sub-graphs, not unrolled


def test_cond_nested_structures_and_python_numbers():
    def f(x):
        return tw.cond(x[0] > 0.0, lambda: {"a": x, "b": (x[0], 1.0)},
                       lambda: {"a": -x, "b": (x[1], 2.0)})
    a = np.array([1.0, 5.0], np.float32)
    got, _ = in_graph(f, a)
    np.testing.assert_allclose(got["a"], a)
    assert float(got["b"][1]) == 1.0


def test_cond_dtype_mismatch_error_teaches():
    def f(x):
        return tw.cond(x > 0, lambda: x, lambda: tw.cast(x, tw.float32))
    with pytest.raises(TypeError, match=r"int32.*float32.*tw\.cast"):
        in_graph(f, np.int32(1))


def test_cond_gradients_first_and_second_order():
    def f(x):
        return tw.reduce_sum(tw.cond(tw.reduce_sum(x) > 0.0, lambda: x * x * x,
                                     lambda: tw.exp(x)))
    check_grad(f, np.array([1.0, 2.0]))
    check_grad(f, np.array([-1.0, -2.0]))

    def second(x):
        with tw.GradientTape() as t1:
            t1.watch(x)
            with tw.GradientTape() as t2:
                t2.watch(x)
                y = f(x)
            g = t2.gradient(y, x)
            s = tw.reduce_sum(g)
        return t1.gradient(s, x)
    a = np.array([1.0, 2.0])
    np.testing.assert_allclose(second(tw.constant(a)).numpy(), 6 * a)
    got, _ = in_graph(second, a)
    np.testing.assert_allclose(got, 6 * a)
    b = np.array([-1.0, -2.0])
    got, _ = in_graph(second, b)
    np.testing.assert_allclose(got, np.exp(b))


def test_cond_captures_outer_tensors_and_variables():
    v = tw.Variable(3.0)

    @tw.function
    def f(x):
        y = x * 2.0
        return tw.cond(x > 0.0, lambda: y + v, lambda: y - v)
    assert float(f(tw.constant(1.0))) == 5.0
    assert float(f(tw.constant(-1.0))) == -5.0
    v.assign(10.0)
    assert float(f(tw.constant(1.0))) == 12.0


def test_switch_case_and_case():
    def f(i, x):
        return tw.switch_case(i, [lambda: x, lambda: x * 2.0, lambda: x * 3.0])
    for i in range(-1, 4):
        want = [1, 2, 3][i] if 0 <= i < 3 else 3
        got, g = in_graph(f, np.int32(i), np.float32(1.0))
        assert float(got) == want
        assert float(f(tw.constant(i), tw.constant(1.0))) == want
    assert "StatelessCase" in op_types(g)

    def h(x):
        return tw.case([(x < 0.0, lambda: -x), (x < 10.0, lambda: x * 2.0)],
                       default=lambda: x)
    for v, want in ((-2.0, 2.0), (3.0, 6.0), (20.0, 20.0)):
        got, _ = in_graph(h, np.float32(v))
        assert float(got) == want
        assert float(h(tw.constant(v))) == want

    def s(x):
        return tw.reduce_sum(tw.switch_case(tw.cast(tw.reduce_sum(x) > 0.0, tw.int32),
                                            [lambda: tw.exp(x), lambda: x * x]))
    check_grad(s, np.array([1.0, 2.0]))
    check_grad(s, np.array([-1.0, -2.0]))


def test_stateful_branch_runs_only_when_chosen(capsys):
    @tw.function
    def f(x):
        return tw.cond(x > 0.0, lambda: tw.identity(x), lambda: _print_and(x))

    def _print_and(x):
        tw.print("negative")
        return x
    f(tw.constant(1.0))
    f(tw.constant(-1.0))
    out = capsys.readouterr()
    assert (out.out + out.err).count("negative") == 1


def test_stateful_switch_case_is_a_case_op_and_runs_only_the_chosen_branch(capsys):
    def f(i, x):
        def noisy():
            tw.print("branch one")
            return x * 2.0
        return tw.switch_case(i, [lambda: x, noisy])
    got, g = in_graph(f, np.int32(1), np.float32(1.0))
    assert float(got) == 2.0 and "Case" in op_types(g)
    got, _ = in_graph(f, np.int32(0), np.float32(1.0))
    assert float(got) == 1.0
    out = capsys.readouterr()
    assert (out.out + out.err).count("branch one") == 1
