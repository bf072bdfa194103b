"""Gradients through tw.function calls (tape outside) and inside traced graphs."""
from __future__ import annotations

import math

import numpy as np

import twinflow as tw


def _f_and_var():
    v = tw.Variable(3.0)

    @tw.function
    def f(x):
        return x * x * v + tw.exp(x)

    return f, v


def test_tape_outside_call_differentiates_through_it():
    f, v = _f_and_var()
    x = tw.constant(2.0)
    with tw.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    dx, dv = tape.gradient(y, [x, v])
    assert np.isclose(y.numpy(), 12 + math.exp(2))
    assert np.isclose(dx.numpy(), 12 + math.exp(2), rtol=1e-6)
    assert np.isclose(dv.numpy(), 4.0)


def test_higher_order_through_call():
    f, _ = _f_and_var()
    x = tw.constant(2.0)
    with tw.GradientTape() as t3:
        t3.watch(x)
        with tw.GradientTape() as t2:
            t2.watch(x)
            with tw.GradientTape() as t1:
                t1.watch(x)
                y = f(x)
            g = t1.gradient(y, x)
        gg = t2.gradient(g, x)
    ggg = t3.gradient(gg, x)
    assert np.isclose(gg.numpy(), 6 + math.exp(2), rtol=1e-6)
    assert np.isclose(ggg.numpy(), math.exp(2), rtol=1e-6)


def test_tape_inside_function_is_symbolic():
    @tw.function
    def grad_of_cube(x):
        with tw.GradientTape() as t:
            t.watch(x)
            y = x * x * x
        return t.gradient(y, x)

    assert grad_of_cube(tw.constant(3.0)).numpy() == 27.0

    @tw.function
    def second(x):
        with tw.GradientTape() as t2:
            t2.watch(x)
            with tw.GradientTape() as t1:
                t1.watch(x)
                y = x * x * x
            g = t1.gradient(y, x)
        return t2.gradient(g, x)

    assert second(tw.constant(2.0)).numpy() == 12.0


def test_training_step_updates_variables():
    w = tw.Variable(np.zeros((2, 1), np.float32))

    @tw.function
    def loss_fn(x, y):
        return tw.reduce_mean((tw.matmul(x, w) - y) * (tw.matmul(x, w) - y))

    x = tw.constant(np.array([[1.0, 2.0], [3.0, 4.0]], np.float32))
    y = tw.constant(np.array([[1.0], [2.0]], np.float32))
    first = None
    for _ in range(50):
        with tw.GradientTape() as tape:
            loss = loss_fn(x, y)
        (g,) = tape.gradient(loss, [w])
        w.assign_sub(0.05 * g)
        first = loss.numpy() if first is None else first
    assert loss.numpy() < first * 0.1
    assert loss_fn.experimental_get_tracing_count() == 1
