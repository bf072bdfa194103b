"""tw.while_loop: eager, one While op in graphs, structures, invariants, gradients."""
from __future__ import annotations

import collections

import numpy as np
import pytest

import twinflow as tw

from .helpers import check_grad, in_graph, op_types, second_order


def test_eager_while_is_python():
    i, s = tw.while_loop(lambda i, s: i < 5, lambda i, s: (i + 1, s + i),
                         [tw.constant(0), tw.constant(0)])
    assert int(i) == 5 and int(s) == 10
    x = tw.while_loop(lambda x: x < 100, lambda x: x * 2, tw.constant(3))
    assert int(x) == 192
    n = tw.while_loop(lambda x: True, lambda x: x + 1, [tw.constant(0)], maximum_iterations=7)
    assert int(n[0]) == 7


def test_graph_while_runs_for_any_trip_count_one_op():
    def f(n):
        return tw.while_loop(lambda i, s: i < n, lambda i, s: (i + 1, s + i), [0, 0])
    for n in (0, 1, 10):
        (i, s), g = in_graph(f, np.int32(n))
        assert int(i) == n and int(s) == n * (n - 1) // 2
    types = op_types(g)
    assert types.count("StatelessWhile") == 1 and "AddV2" not in types

    tf_f = tw.function(f)
    for n in (3, 30, 300):
        assert int(tf_f(tw.constant(n))[1]) == n * (n - 1) // 2
    assert tf_f.experimental_get_tracing_count() == 1


Pair = collections.namedtuple("Pair", "a b")


def test_nested_loop_vars_and_maximum_iterations():
    def f(x):
        def body(i, st):
            return i + 1, {"p": Pair(st["p"].a * 2.0, st["p"].b + 1), "q": st["q"]}
        return tw.while_loop(lambda i, st: i < 100, body,
                             (0, {"p": Pair(x, 0), "q": x}), maximum_iterations=3,
                             parallel_iterations=4)
    (i, st), _ = in_graph(f, np.float32(1.5))
    assert int(i) == 3 and float(st["p"].a) == 12.0 and int(st["p"].b) == 3
    eager = f(tw.constant(1.5))
    assert int(eager[0]) == 3 and float(eager[1]["p"].a) == 12.0


def test_shape_invariants():
    def f(x):
        def body(i, acc):
            return i + 1, tw.concat([acc, x], axis=0)
        return tw.while_loop(lambda i, acc: i < 3, body, [0, x],
                             shape_invariants=[tw.TensorShape([]), tw.TensorShape([None])])
    (i, acc), _ = in_graph(f, np.array([1.0, 2.0], np.float32))
    np.testing.assert_allclose(acc, [1, 2] * 4)

    def bad(x):
        return tw.while_loop(lambda i, acc: i < 3,
                             lambda i, acc: (i + 1, tw.concat([acc, x], axis=0)), [0, x])
    with pytest.raises(ValueError, match=r"shape \(2,\).*shape_invariants"):
        in_graph(bad, np.array([1.0, 2.0], np.float32))


def test_dtype_change_error_teaches():
    def bad(x):
        return tw.while_loop(lambda v: v < 10, lambda v: tw.cast(v, tw.float32) * 2.0, [x])
    with pytest.raises(TypeError, match=r"int32.*float32.*tw\.cast"):
        in_graph(bad, np.int32(1))


def test_while_gradients_first_order():
    def power(x):
        _, y = tw.while_loop(lambda i, y: i < 4, lambda i, y: (i + 1, y * x),
                             [0, tw.ones_like(x)])
        return tw.reduce_sum(y)
    check_grad(power, np.array([0.5, 1.5, -2.0]))

    def newton_sqrt(a):
        def body(i, x):
            return i + 1, 0.5 * (x + a / x)
        _, x = tw.while_loop(lambda i, x: i < 6, body, [0, tw.ones_like(a)])
        return tw.reduce_sum(x)
    check_grad(newton_sqrt, np.array([2.0, 9.0]), rtol=1e-4)


def test_while_gradient_data_dependent_trip_count():
    def f(x):
        # doubles until the sum exceeds 10: the trip count depends on x
        y = tw.while_loop(lambda y: tw.reduce_sum(y) < 10.0, lambda y: y * 2.0, [x])[0]
        return tw.reduce_sum(y * y)
    check_grad(f, np.array([0.3, 0.4]))
    check_grad(f, np.array([3.0, 4.0]))


def test_while_second_order_gradient_graph_and_eager():
    def cube(x):
        _, y = tw.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, y * x),
                             [0, tw.ones_like(x)])
        return y

    second = second_order(cube)
    a = np.array([1.0, 2.0, 3.0])
    np.testing.assert_allclose(second(tw.constant(a)).numpy(), 6 * a)
    got, _ = in_graph(second, a)
    np.testing.assert_allclose(got, 6 * a)
    np.testing.assert_allclose(tw.function(second)(tw.constant(a)).numpy(), 6 * a)


def test_while_with_variable_and_cond_inside():
    v = tw.Variable(0.0)

    @tw.function
    def f(n):
        def body(i):
            tw.cond(i % 2 == 0, lambda: v.assign_add(1.0), lambda: v.assign_add(0.0))
            return i + 1
        return tw.while_loop(lambda i: i < n, body, [0])
    f(tw.constant(5))
    assert float(v.numpy()) == 3.0
