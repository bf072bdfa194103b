"""Codegen inlines If/While into the generated function: same results as eager execution and
as the TF1-style graph compiled without passes; a loop's History is recorded only for a
gradient."""
from __future__ import annotations

import numpy as np
import pytest

import twinflow as tw
from twinflow.compiler import codegen, run_graph

from ..control.helpers import placeholder


def _interpret(fn, arrays):
    g = tw.Graph()
    with g.as_default():
        phs = [placeholder(tw.as_dtype(a.dtype), a.shape) for a in arrays]
        outs = tw.nest.flatten(fn(*phs))
    return run_graph(outs, {id(p): a for p, a in zip(phs, arrays)}, passes=())


def _check(fn, *arrays, reference=True):
    """Compiled == compiled without passes == eager; returns the generated source."""
    f = tw.function(fn)
    tensors = [tw.constant(a) for a in arrays]
    cf = f.get_concrete_function(*tensors)
    got = [t.numpy() for t in tw.nest.flatten(f(*tensors))]
    eager = [t.numpy() for t in tw.nest.flatten(fn(*tensors))]
    ref = _interpret(fn, arrays) if reference else eager
    assert len(got) == len(eager) == len(ref)
    for g, e, r in zip(got, eager, ref):
        np.testing.assert_allclose(g, r, rtol=1e-6)
        np.testing.assert_allclose(g, e, rtol=1e-6)
    return cf.generated_source


def _ops_called(src: str) -> list:
    """The op types on generated lines that call a kernel cell (closures, not inlined)."""
    lines = [ln.split("  # ", 1) for ln in src.splitlines() if "  # " in ln]
    return [note.split(" (", 1)[1].split(")", 1)[0] for code, note in lines if "= k" in code]


def test_while_is_a_python_while_with_loop_variables_as_locals():
    def f(x):
        return tw.while_loop(lambda i, x: i < 1000, lambda i, x: (i + 1, x * 0.99 + 1.0),
                             [0, x])[1]

    src = _check(f, np.float32(1.0))
    assert "while True:" in src
    assert "While" not in _ops_called(src)
    assert ".append(" not in src          # no gradient: no History
    assert " * c" in src                  # a scalar Mul is written as an operator


def test_loop_with_captures_and_data_dependent_trip_count():
    def f(n, x, y):
        def body(i, acc):
            return i + 1, acc * y + x      # x and y are captures
        return tw.while_loop(lambda i, acc: i < n, body, [0, tw.zeros_like(x)])

    x = np.array([1.0, 2.0], np.float32)
    y = np.float32(0.5)
    for n in (0, 1, 7):
        _check(f, np.int32(n), x, y)
    fn = tw.function(f)
    for n in (0, 3, 9):
        i, acc = fn(tw.constant(n), tw.constant(x), tw.constant(y))
        assert int(i) == n
    assert fn.experimental_get_tracing_count() == 1


def test_zero_iteration_loop_returns_its_inputs():
    def f(x):
        return tw.while_loop(lambda v: tw.reduce_sum(v) < 0.0, lambda v: [v * 2.0], [x])

    _check(f, np.array([1.0, 3.0], np.float32))


def test_cond_in_while_and_while_in_cond():
    def collatz(n):
        def body(k, steps):
            k = tw.cond(k % 2 == 0, lambda: k // 2, lambda: 3 * k + 1)
            return k, steps + 1
        return tw.while_loop(lambda k, s: k > 1, body, [n, 0])[1]

    def both(x, n):
        inner = lambda: tw.while_loop(lambda i, v: i < n, lambda i, v: (i + 1, v * 1.5),  # noqa: E731
                                      [0, x])[1]
        return tw.cond(tw.reduce_sum(x) > 0.0, inner, lambda: -x)

    for n in (1, 6, 27):
        src = _check(collatz, np.int32(n))
    assert "while True:" in src and "if " in src and "else:" in src
    x = np.array([1.0, 2.0], np.float32)
    for n in (0, 4):
        _check(both, x, np.int32(n))
        _check(both, -x, np.int32(n))


def test_nested_loops_and_maximum_iterations():
    def f(x, m):
        def outer(i, acc):
            _, s = tw.while_loop(lambda j, s: j < i, lambda j, s: (j + 1, s + x), [0, acc * 0.5])
            return i + 1, s
        return tw.while_loop(lambda i, acc: i < 5, outer, [0, tw.zeros_like(x)],
                             maximum_iterations=m)

    src = ""
    for m in (0, 2, 10):
        src = _check(f, np.array([1.0, -2.0], np.float32), np.int32(m))
    assert src.count("while True:") == 2


def test_deep_nesting_falls_back_to_compiled_closures(monkeypatch):
    monkeypatch.setattr(codegen, "MAX_INLINE_DEPTH", 1)

    def f(x):
        def outer(i, v):
            return i + 1, tw.while_loop(lambda j, w: j < 3, lambda j, w: (j + 1, w * 2.0),
                                        [0, v])[1]
        return tw.while_loop(lambda i, v: i < 2, outer, [0, x])[1]

    src = _check(f, np.float32(1.0))
    assert src.count("while True:") == 1 and _ops_called(src) == ["StatelessWhile"]


def test_large_arrays_in_loops_keep_loop_values_intact():
    n = 1 << 13
    xv = np.linspace(-1.0, 1.0, n).astype(np.float32)

    def f(x):
        def body(i, a, b):
            t = a * 0.5 + b          # a private temporary: may be overwritten in place
            return i + 1, t * t - a, a   # `a` is carried into the next iteration as `b`
        return tw.while_loop(lambda i, a, b: i < 4, body, [0, x, x * 2.0])

    _check(f, xv)

    def loss(x):
        with tw.GradientTape() as tape:
            tape.watch(x)
            y = tw.reduce_sum(f(x)[1])
        return tape.gradient(y, x)

    got = tw.function(loss)(tw.constant(xv))   # the History holds every iteration's arrays
    np.testing.assert_allclose(got.numpy(), loss(tw.constant(xv)).numpy(), rtol=1e-6)


def test_history_is_recorded_only_for_a_gradient():
    w = tw.Variable(0.9)

    def forward(x):
        return tw.while_loop(lambda i, y: i < 5, lambda i, y: (i + 1, y * w + 1.0), [0, x])[1]

    @tw.function
    def with_grad(x):
        with tw.GradientTape() as tape:
            tape.watch(x)
            y = forward(x)
        return y, tape.gradient(y, [x, w])

    src = tw.function(forward).get_concrete_function(tw.constant(1.0)).generated_source
    assert ".append(" not in src
    cf = with_grad.get_concrete_function(tw.constant(1.0))
    assert ".append(" in cf.generated_source
    y, (dx, dw) = with_grad(tw.constant(1.0))
    with tw.GradientTape() as tape:
        x = tw.constant(1.0)
        tape.watch(x)
        ye = forward(x)
    dxe, dwe = tape.gradient(ye, [x, w])
    np.testing.assert_allclose(y.numpy(), ye.numpy(), rtol=1e-6)
    np.testing.assert_allclose(dx.numpy(), dxe.numpy(), rtol=1e-6)
    np.testing.assert_allclose(dw.numpy(), dwe.numpy(), rtol=1e-6)
    # A tape outside the tw.function differentiates through the compiled call too.
    f = tw.function(forward)
    with tw.GradientTape() as tape:
        x = tw.constant(1.0)
        tape.watch(x)
        yf = f(x)
    np.testing.assert_allclose(tape.gradient(yf, x).numpy(), dxe.numpy(), rtol=1e-6)


def test_error_in_an_inlined_loop_names_the_inner_op():
    @tw.function
    def f(x, shape):
        def body(i, v):
            return i + 1, tw.reshape(v, shape)  # bad reshape
        return tw.while_loop(lambda i, v: i < 2, body, [0, x])[1]

    with pytest.raises(tw.errors.InvalidArgumentError, match="Reshape"):
        f(tw.constant([1.0, 2.0]), tw.constant([2]))
        f(tw.constant([1.0, 2.0]), tw.constant([3]))
