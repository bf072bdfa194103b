"""The registry-driven op check.

Each ``Case`` names a public function, NumPy inputs and a NumPy reference. For every case the
check runs the function:

1. eagerly, against the NumPy reference (values and dtype);
2. traced into a Graph with placeholders of the exact shapes: every op's inferred dtype and
   shape must equal what its kernel produced, and running the graph must match eager;
3. traced with every dimension unknown: inferred shapes must be compatible with the real ones;
4. differentiated by a GradientTape, eagerly and inside the graph, against central finite
   differences of ``sum(w * f(x))`` in float64 (w fixed random weights);
5. inside ``tw.function`` (traced, optimized by the compiler passes, compiled to Python):
   values, dtypes and shapes must match eager, on the first and on a cached call.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

import numpy as np

import twinflow as tw
from twinflow.compiler import run_graph
from twinflow.core import context
from twinflow.eager.execute import bind  # noqa: F401  (re-exported for case files)
from twinflow.graph.core_ops import Placeholder


@dataclasses.dataclass
class Case:
    """One check of one public op function.

    Attributes:
        fn: the twinflow function, taking one tensor per entry of ``args``.
        args: NumPy inputs (their dtypes are used as given).
        ref: the NumPy reference, taking the same arrays; None to skip the value check.
        grad: indices of args to differentiate (default: all float args); () for none.
        name: test id.
        rtol, atol: tolerances for the value check.
        grad_rtol, grad_atol: tolerances for the gradient check.
        eps: finite-difference step.
        unknown_shapes: also trace with unknown dims (set False for ops needing static shapes).
        graph: also check in graph mode.
        stateful_random: outputs are random: check shapes/dtypes only, not values.
    """

    fn: Callable
    args: Sequence[np.ndarray]
    ref: Callable | None = None
    grad: Sequence[int] | None = None
    name: str = ""
    rtol: float = 1e-6
    atol: float = 1e-6
    grad_rtol: float = 1e-4
    grad_atol: float = 1e-5
    eps: float = 1e-6
    unknown_shapes: bool = True
    graph: bool = True
    stateful_random: bool = False

    def __post_init__(self) -> None:
        self.args = [np.asarray(a) for a in self.args]
        if self.grad is None:
            self.grad = [i for i, a in enumerate(self.args) if a.dtype.kind == "f"]

    @property
    def id(self) -> str:
        return self.name or getattr(self.fn, "__name__", "case")


def as_list(x):
    return list(x) if isinstance(x, (list, tuple)) else [x]


def _values(outs):
    return [np.asarray(o) for o in as_list(outs)]


def _plain(a: np.ndarray) -> np.ndarray:
    """The integers of a quantized array (a structured NumPy dtype), else ``a``."""
    return a.view(a.dtype[0]) if a.dtype.names is not None else a


def assert_close(got, expected, rtol: float, atol: float, err_msg: str) -> None:
    """assert_allclose, or exact equality for string (object) arrays."""
    got, expected = _plain(np.asarray(got)), _plain(np.asarray(expected))
    if got.dtype.kind in "OSU" or expected.dtype.kind in "OSU":
        np.testing.assert_array_equal(got, expected, err_msg=err_msg)
    else:
        np.testing.assert_allclose(got, expected, rtol=rtol, atol=atol, err_msg=err_msg)


def trace(case: Case, shapes: list):
    """Builds a Graph calling case.fn on placeholders; returns (graph, placeholders, outputs)."""
    g = tw.Graph()
    with g.as_default():
        phs = [bind(Placeholder, [], {"dtype": tw.as_dtype(a.dtype), "shape": tw.TensorShape(s)})
               for a, s in zip(case.args, shapes)]
        outs = case.fn(*phs)
    return g, phs, outs


def check_eager(case: Case):
    outs = case.fn(*[tw.constant(a) for a in case.args])
    if case.ref is not None and not case.stateful_random:
        expected = as_list(case.ref(*[a.copy() for a in case.args]))
        got = as_list(outs)
        assert len(got) == len(expected), f"{case.id}: {len(got)} outputs, expected " \
                                          f"{len(expected)}"
        for g_, e in zip(got, expected):
            e = np.asarray(e)
            gv = np.asarray(g_)
            assert gv.dtype == e.dtype, f"{case.id}: dtype {gv.dtype}, NumPy gives {e.dtype}"
            assert gv.shape == e.shape, f"{case.id}: shape {gv.shape}, NumPy gives {e.shape}"
            assert_close(gv, e, rtol=case.rtol, atol=case.atol, err_msg=case.id)
    return outs


def check_graph(case: Case, eager_outs) -> None:
    g, phs, outs = trace(case, [a.shape for a in case.args])
    feeds = {id(p): a for p, a in zip(phs, case.args)}
    # Every op's inferred output spec must match what its kernel really produces.
    fetch = [t for op in g.get_operations() if op.type != "Placeholder" for t in op.outputs]
    real = run_graph(fetch, feeds)
    for t, v in zip(fetch, real):
        v = np.asarray(v) if t.dtype is not tw.resource else v
        if t.dtype is tw.resource:
            continue
        assert t.dtype.np == v.dtype, \
            f"{case.id}: {t.op.type} infers dtype {t.dtype.name}, kernel gives {v.dtype}"
        assert t.shape.is_fully_defined(), \
            f"{case.id}: {t.op.type} infers partial shape {t.shape} from known input shapes"
        assert tuple(t.shape.as_list()) == v.shape, \
            f"{case.id}: {t.op.type} infers shape {t.shape}, kernel gives {v.shape}"
    if not case.stateful_random:
        got = run_graph(as_list(outs), feeds)
        for gv, ev in zip(got, _values(eager_outs)):
            assert_close(np.asarray(gv), ev, rtol=case.rtol, atol=case.atol,
                         err_msg=f"{case.id}: graph vs eager")
    if case.unknown_shapes:
        g2, phs2, outs2 = trace(case, [[None] * a.ndim for a in case.args])
        feeds2 = {id(p): a for p, a in zip(phs2, case.args)}
        fetch2 = [t for op in g2.get_operations() if op.type != "Placeholder"
                  for t in op.outputs if t.dtype is not tw.resource]
        for t, v in zip(fetch2, run_graph(fetch2, feeds2)):
            v = np.asarray(v)
            assert t.dtype.np == v.dtype, f"{case.id}: {t.op.type} (unknown shapes) infers " \
                                          f"{t.dtype.name}, kernel gives {v.dtype}"
            assert t.shape.is_compatible_with(v.shape), \
                f"{case.id}: {t.op.type} (unknown shapes) infers {t.shape}, kernel gives {v.shape}"


def _weights(outs) -> list:
    rng = np.random.default_rng(0)
    return [rng.uniform(0.5, 1.5, size=np.shape(o)).astype(np.asarray(o).dtype)
            for o in as_list(outs)]


def _objective(case: Case, weights, tensors):
    outs = as_list(case.fn(*tensors))
    total = None
    for o, w in zip(outs, weights):
        if not o.dtype.is_floating:
            continue
        term = tw.reduce_sum(o * tw.constant(np.asarray(w).astype(o.dtype.np)))
        term = tw.cast(term, tw.float64)
        total = term if total is None else total + term
    return total


def numeric_grad(case: Case, weights, i: int) -> np.ndarray:
    args = [a.astype(np.float64) if a.dtype.kind == "f" else a for a in case.args]
    w64 = [np.asarray(w, dtype=np.float64) if np.asarray(w).dtype.kind == "f" else w
           for w in weights]
    x = args[i]
    g = np.zeros_like(x)
    for j in np.ndindex(x.shape):
        vals = []
        for sgn in (1, -1):
            xs = [a.copy() for a in args]
            xs[i][j] += sgn * case.eps
            vals.append(float(_objective(case, w64, [tw.constant(a) for a in xs])))
        g[j] = (vals[0] - vals[1]) / (2 * case.eps)
    return g


def check_gradients(case: Case, eager_outs) -> None:
    idx = [i for i in case.grad if case.args[i].dtype == np.float64]
    if not idx or case.stateful_random:
        return
    if not any(np.asarray(o).dtype.kind == "f" for o in as_list(eager_outs)):
        return
    weights = _weights(eager_outs)
    tensors = [tw.constant(a) for a in case.args]
    with tw.GradientTape(persistent=True) as tape:
        for i in idx:
            tape.watch(tensors[i])
        obj = _objective(case, weights, tensors)
    grads = tape.gradient(obj, [tensors[i] for i in idx],
                          unconnected_gradients=tw.UnconnectedGradients.ZERO)
    for i, g in zip(idx, grads):
        expected = numeric_grad(case, weights, i)
        np.testing.assert_allclose(np.asarray(g), expected, rtol=case.grad_rtol,
                                   atol=case.grad_atol, err_msg=f"{case.id}: d/darg{i} eager")
    if not case.graph:
        return
    g_ = tw.Graph()
    with g_.as_default():
        phs = [bind(Placeholder, [], {"dtype": tw.as_dtype(a.dtype),
                                      "shape": tw.TensorShape(a.shape)}) for a in case.args]
        with tw.GradientTape() as gtape:
            for i in idx:
                gtape.watch(phs[i])
            gobj = _objective(case, weights, phs)
        ggrads = gtape.gradient(gobj, [phs[i] for i in idx],
                                unconnected_gradients=tw.UnconnectedGradients.ZERO)
        # A gather's gradient is a tw.IndexedSlices: compare its dense value.
        ggrads = [tw.convert_to_tensor(g) for g in ggrads]
    got = run_graph(ggrads, {id(p): a for p, a in zip(phs, case.args)})
    for i, gv, ev in zip(idx, got, grads):
        np.testing.assert_allclose(np.asarray(gv), np.asarray(ev), rtol=1e-6, atol=1e-8,
                                   err_msg=f"{case.id}: d/darg{i} graph vs eager")


def check_function(case: Case, eager_outs) -> None:
    """The case inside ``tw.function`` (traced, optimized, compiled) must match eager."""
    tensors = [tw.constant(a) for a in case.args]
    fn = tw.function(case.fn)
    got = as_list(fn(*tensors))
    expected = as_list(eager_outs)
    assert len(got) == len(expected), f"{case.id}: tw.function gives {len(got)} outputs"
    for gv, ev in zip(got, expected):
        gv, ev = np.asarray(gv), np.asarray(ev)
        assert gv.dtype == ev.dtype, f"{case.id}: tw.function dtype {gv.dtype} vs {ev.dtype}"
        assert gv.shape == ev.shape, f"{case.id}: tw.function shape {gv.shape} vs {ev.shape}"
        if not case.stateful_random:
            assert_close(gv, ev, rtol=case.rtol, atol=case.atol,
                         err_msg=f"{case.id}: tw.function vs eager")
    # Called again, the cached compiled function must give the same values.
    again = as_list(fn(*tensors))
    if not case.stateful_random:
        for a, b in zip(got, again):
            np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


def run_case(case: Case) -> None:
    assert context.ctx.graph is None
    outs = check_eager(case)
    if case.graph:
        check_graph(case, outs)
        check_function(case, outs)
    check_gradients(case, outs)


def op_types_used(case: Case) -> set:
    if not case.graph:
        return set()
    g, _, _ = trace(case, [a.shape for a in case.args])
    return {op.type for op in g.get_operations()}


def grad_of(fn):
    """x -> d sum(fn(x)) / dx: a case on it checks the gradient's own ops (and, through them,
    second derivatives)."""
    def g(x):
        with tw.GradientTape() as tape:
            tape.watch(x)
            y = fn(x)
        return tw.convert_to_tensor(tape.gradient(y, x))
    g.__name__ = f"grad_of_{getattr(fn, '__name__', 'fn')}"
    return g
