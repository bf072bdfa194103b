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
    assert d.max_abs_diff == 3.  # eager 1 * (2, 3); the graph traced with 2 * (2, 3)
    np.testing.assert_array_equal(d.eager, [2., 3.])
    np.testing.assert_array_equal(d.graph, [4., 6.])


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
    assert seen[0] is True and False in seen[1:]  # eager run, then traced
    assert not tw.config.functions_run_eagerly()
