"""Shared helpers: run a function eagerly, in a TF1 graph (compiled by ``run_graph``) and as a
tw.function; finite-difference gradients."""
from __future__ import annotations

import numpy as np

import twinflow as tw
from twinflow.compiler import run_graph
from twinflow.eager.execute import bind
from twinflow.graph.core_ops import Placeholder


def placeholder(dtype, shape):
    return bind(Placeholder, [], {"dtype": tw.as_dtype(dtype), "shape": tw.TensorShape(shape)})


def in_graph(fn, *arrays, shapes=None):
    """Traces ``fn`` on placeholders of a plain Graph and runs it with ``run_graph``."""
    g = tw.Graph()
    with g.as_default():
        phs = [placeholder(a.dtype, a.shape if shapes is None else s)
               for a, s in zip(arrays, shapes or arrays)]
        outs = fn(*phs)
    flat = tw.nest.flatten(outs)
    vals = run_graph(flat, {id(p): a for p, a in zip(phs, arrays)})
    return tw.nest.pack_sequence_as(outs, vals), g


def numeric_grad(f, x: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    """d f(x) / dx by central differences (f: float64 array -> float)."""
    g = np.zeros_like(x)
    for j in np.ndindex(x.shape):
        xp, xm = x.copy(), x.copy()
        xp[j] += eps
        xm[j] -= eps
        g[j] = (f(xp) - f(xm)) / (2 * eps)
    return g


def check_grad(fn, x: np.ndarray, rtol=1e-5, atol=1e-7):
    """fn: tensor -> scalar tensor. Checks tape gradients eagerly and in a graph against
    finite differences; returns the eager gradient."""
    x = x.astype(np.float64)
    expected = numeric_grad(lambda v: float(fn(tw.constant(v))), x)
    t = tw.constant(x)
    with tw.GradientTape() as tape:
        tape.watch(t)
        y = fn(t)
    eager = tape.gradient(y, t).numpy()
    np.testing.assert_allclose(eager, expected, rtol=rtol, atol=atol, err_msg="eager")

    def graph_fn(p):
        with tw.GradientTape() as tape:
            tape.watch(p)
            y = fn(p)
        return tape.gradient(y, p)
    graph, _ = in_graph(graph_fn, x)
    np.testing.assert_allclose(graph, expected, rtol=rtol, atol=atol, err_msg="graph")
    fgraph = tw.function(graph_fn)(tw.constant(x)).numpy()
    np.testing.assert_allclose(fgraph, expected, rtol=rtol, atol=atol, err_msg="tw.function")
    return eager


def second_order(build):
    """x -> d/dx sum(d/dx sum(build(x))), with nested tapes."""
    def second(x):
        with tw.GradientTape() as t1:
            t1.watch(x)
            with tw.GradientTape() as t2:
                t2.watch(x)
                y = tw.reduce_sum(build(x))
            g = tw.reduce_sum(t2.gradient(y, x))
        return t1.gradient(g, x)
    return second


def op_types(g) -> list:
    return [op.type for op in g.get_operations()]
