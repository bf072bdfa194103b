"""tw.debugging.experimental.check_parity: the first op where eager and graph differ."""
from __future__ import annotations

import numpy as np

import twinflow as tw

check = tw.debugging.experimental.check_parity


def test_agreeing_functions_agree_including_nan_and_control_flow():
    v = tw.Variable([1., 2.])

    def f(x):
        y = tw.math.log(x - 1.) * v   # log(0) = -inf, log(-1) = nan in both modes
        if tw.reduce_sum(x) > 0:
            y = y + 1.
        return y, tw.shape(y)

    report = check(f, tw.constant([0., 1.]))
    assert report.agree and bool(report) and report.ops_compared >= 3
    assert "agree" in str(report)
    assert check(tw.function(lambda x: x * 2.), np.ones(3, np.float32)).agree


def test_python_side_effect_is_the_first_difference_with_its_line():
    n = {"calls": 0}

    def f(x):
        y = x + 1.
        n["calls"] += 1
        return y * float(n["calls"])

    report = check(f, tw.constant([1., 2.]))
    d = report.first_difference
    assert not report.agree and d.op_type == "Mul" and "float(n[\"calls\"])" in d.source
    assert d.max_abs_diff == 3.  # traced first with 1 * (2, 3); eager then 2 * (2, 3)
    np.testing.assert_array_equal(d.eager, [4., 6.])
    np.testing.assert_array_equal(d.graph, [2., 3.])


def test_shape_and_dtype_differences():
    def f(x):
        n = 2 if tw.executing_eagerly() else 3
        return tw.zeros([n]) + x

    d = check(f, tw.constant(1.)).first_difference
    assert "shape (2,) eagerly but (3,) in the graph" in d.note

    def g(x):
        return tw.cast(x, tw.float32 if tw.executing_eagerly() else tw.float64)

    assert "dtype float32 eagerly but float64" in check(g, tw.constant(1)).first_difference.note


def test_an_error_in_one_mode_only_is_a_difference():
    def graph_only(x):
        if not tw.executing_eagerly():
            raise ValueError("only graphs check this")
        return x

    r = check(graph_only, tw.constant(1.))
    assert r.first_difference.op_type == "trace" and "only graphs check this" in str(r)

    def eager_only(x):
        if tw.executing_eagerly():
            raise ValueError("only eager checks this")
        return x

    r = check(eager_only, tw.constant(1.))
    assert r.first_difference.op_type == "error" and "eager execution raises" in str(r)

    def both(x):
        raise ValueError("always")

    assert check(both, tw.constant(1.)).agree


def test_tolerances_apply():
    def f(x):
        return x + (1e-6 if tw.executing_eagerly() else 0.)

    assert check(f, tw.constant([1.])).agree
    assert not check(f, tw.constant([1.]), rtol=0., atol=0.).agree


def test_nested_tw_functions_run_eagerly_in_the_eager_run_only_in_this_thread():
    seen: list = []

    @tw.function
    def inner(x):
        seen.append(tw.executing_eagerly())
        return x * 3.

    def outer(x):
        return inner(x) + 1.

    assert check(outer, tw.constant([1.])).agree
    assert seen[0] is False and True in seen[1:]  # traced first, then the eager run
    assert not tw.config.functions_run_eagerly()


def test_a_variable_update_is_compared_and_the_variables_are_left_as_they_were():
    v = tw.Variable([1., 2.])

    def f(x):
        v.assign_add(x)
        return v * 2.

    report = check(f, tw.constant([1., 1.]))
    assert report.agree and report.ops_compared >= 2, report
    np.testing.assert_array_equal(v.numpy(), [1., 2.])


def test_a_variable_update_that_differs_by_mode_is_found():
    v = tw.Variable(0.)

    def f():
        v.assign_add(1. if tw.executing_eagerly() else 2.)
        return v + 0.

    report = check(f)
    assert not report.agree, report
    assert report.first_difference.op_type in ("AssignAddVariableOp", "ReadVariableOp", "AddV2")
    assert v.numpy() == 0.


def test_random_ops_get_the_eager_draws_and_the_ops_after_them_are_compared():
    g = tw.random.Generator.from_seed(1)

    def f(x):
        return x * 2. + tw.random.uniform([2], seed=3) + g.normal([2])

    report = check(f, tw.constant([1., 2.]))
    assert report.agree and report.random_ops == 2 and report.ops_compared >= 2, report
    assert "2 random ops given eager's draws" in str(report)

    def bad(x):
        return tw.random.uniform([2], seed=3) * (1. if tw.executing_eagerly() else 2.) + x

    report = check(bad, tw.constant([1., 2.]))
    assert not report.agree and report.first_difference.op_type == "Mul", report
