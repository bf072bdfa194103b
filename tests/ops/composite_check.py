"""Checks for ops on composite tensors: value against a Python/NumPy reference, eagerly and in
tw.function, and gradients against central finite differences."""
from __future__ import annotations

import numpy as np

import twinflow as tw


def as_py(x):
    """A composite or dense result as plain Python/NumPy for comparison."""
    if isinstance(x, tw.RaggedTensor):
        return ("ragged", x.to_list())
    if isinstance(x, tw.SparseTensor):
        return ("sparse", x.indices.numpy().tolist(), x.values.numpy().tolist(),
                x.dense_shape.numpy().tolist())
    if isinstance(x, (list, tuple)):
        return type(x)(as_py(v) for v in x)
    if isinstance(x, tw.IndexedSlices):
        return ("slices", x.indices.numpy().tolist(), x.values.numpy().tolist())
    return np.asarray(x).tolist()


def close(a, b, tol: float = 1e-5) -> bool:
    """Nested equality with a float tolerance."""
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(close(x, y, tol) for x, y in zip(a, b))
    if isinstance(a, float) or isinstance(b, float):
        return abs(a - b) <= tol * (1 + abs(b)) or (np.isnan(a) and np.isnan(b))
    return a == b


def check(fn, args: tuple, expected) -> None:
    """fn(*args) equals ``expected`` eagerly and inside a tw.function (traced once)."""
    eager = as_py(fn(*args))
    assert close(eager, expected), f"eager {eager} != {expected}"
    graph = as_py(tw.function(fn, autograph=False)(*args))
    assert close(graph, expected), f"graph {graph} != {expected}"


def check_grad(loss_of_values, x0: np.ndarray, eps: float = 1e-3, tol: float = 2e-3) -> None:
    """Gradient of the scalar ``loss_of_values(tensor)`` by GradientTape (eagerly and in a
    tw.function) against central finite differences."""
    x0 = np.asarray(x0, np.float64)

    def tape_grad(x):
        with tw.GradientTape() as t:
            t.watch(x)
            y = loss_of_values(x)
        return tw.convert_to_tensor(t.gradient(y, x))

    x = tw.constant(x0)
    g_eager = tape_grad(x).numpy()
    g_graph = tw.function(tape_grad, autograph=False)(x).numpy()
    num = np.zeros_like(x0)
    for i in np.ndindex(x0.shape):
        d = np.zeros_like(x0)
        d[i] = eps
        num[i] = (float(loss_of_values(tw.constant(x0 + d)))
                  - float(loss_of_values(tw.constant(x0 - d)))) / (2 * eps)
    np.testing.assert_allclose(g_eager, num, rtol=tol, atol=tol)
    np.testing.assert_allclose(g_graph, num, rtol=tol, atol=tol)
