"""The benchmark workloads: each is the same computation in raw NumPy and in twinflow.

A workload is one ``Workload`` entry in ``WORKLOADS``. Its ``setup`` builds the inputs once (as
NumPy arrays); ``numpy`` and ``twinflow`` are factories that take those inputs (and, for
twinflow, the execution mode) and return a zero-argument callable doing one unit of work. A
graph-mode variant is one more entry with ``mode="function"``: the twinflow factory then wraps
its step in ``tw.function``. ``others`` optionally holds factories for TensorFlow, PyTorch or
JAX; they are only used when that library imports.
"""
from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Callable

import numpy as np

import twinflow as tw
from twinflow.core.workers import run_calls

from .graph_workloads import chain_setup, chain_tw, while_np, while_setup, while_tw
from .nn_workloads import (
    convnet_np,
    convnet_setup,
    convnet_tf,
    convnet_torch,
    convnet_tw,
    xent_jax,
    xent_np,
    xent_setup,
    xent_tf,
    xent_torch,
    xent_tw,
)

Step = Callable[[], object]


@dataclasses.dataclass
class Workload:
    """One benchmark row.

    Attributes:
        name: short identifier (``--only`` matches it).
        description: one line for the report.
        setup: returns a dict of NumPy inputs, built once per run.
        numpy: factory(inputs) -> step doing the work in raw NumPy; None for a workload
            with no NumPy counterpart (tracing), judged by its absolute time alone.
        twinflow: factory(inputs, mode) -> step doing the same work in twinflow.
        mode: ``"eager"``, or ``"function"`` for a ``tw.function`` variant.
        target: the goal for twinflow time / NumPy time (None: no ratio goal).
        target_us: the goal for twinflow's absolute time per step in µs (None: none).
        others: {"tensorflow"|"torch"|"jax": factory(module, inputs) -> step}.
    """

    name: str
    description: str
    setup: Callable[[], dict]
    numpy: Callable[[dict], Step] | None
    twinflow: Callable[[dict, str], Step]
    mode: str = "eager"
    target: float | None = None
    target_us: float | None = None
    others: dict = dataclasses.field(default_factory=dict)

    @property
    def label(self) -> str:
        return f"{self.name} [{self.mode}]"


def maybe_function(fn: Callable, mode: str) -> Callable:
    """``fn`` itself for eager mode, ``tw.function(fn)`` for ``mode == "function"``.

    Args:
        fn: the step's Python function.
        mode: ``"eager"`` or ``"function"``.

    Returns:
        The callable to time.
    """
    if mode == "eager":
        return fn
    if mode == "function":
        return tw.function(fn)
    raise ValueError(f"unknown bench mode {mode!r}")


def optional_module(name: str):
    """The module ``name`` if it imports, else None (frameworks to compare against).

    Args:
        name: ``"tensorflow"``, ``"torch"`` or ``"jax"``.

    Returns:
        The module or None.
    """
    try:
        return importlib.import_module(name)
    except Exception:  # noqa: BLE001 - any failure to import means "not available"
        return None


# ----- power(x, 100): the seed's eager-vs-graph example ------------------------------------

def _power_setup() -> dict:
    rng = np.random.default_rng(0)
    q, _ = np.linalg.qr(rng.normal(size=(10, 10)))
    return {"x": q.astype(np.float32)}  # orthogonal: powers stay bounded


def _power_np(inp: dict) -> Step:
    x = inp["x"]
    eye = np.eye(10, dtype=np.float32)

    def step():
        result = eye
        for _ in range(100):
            result = np.matmul(x, result)
        return result
    return step


def _power_tw(inp: dict, mode: str) -> Step:
    x = tw.constant(inp["x"])

    def power(x, y):
        result = tw.eye(10, dtype=tw.float32)
        for _ in range(y):
            result = tw.matmul(x, result)
        return result
    fn = maybe_function(power, mode)
    return lambda: fn(x, 100)


def _power_lib(lib, inp: dict) -> Step:
    """The step in TensorFlow or PyTorch (``lib``: the module; both spell it alike)."""
    x = lib.from_numpy(inp["x"]) if lib.__name__ == "torch" else lib.constant(inp["x"])

    def step():
        result = lib.eye(10, dtype=lib.float32)
        for _ in range(100):
            result = lib.matmul(x, result)
        return result
    return step


# ----- x + y on 2-element tensors: per-op overhead --------------------------------------------

def _add_setup() -> dict:
    return {"x": np.array([1.0, 2.0], np.float32), "y": np.array([3.0, 4.0], np.float32)}


def _add_np(inp: dict) -> Step:
    x, y = inp["x"], inp["y"]
    return lambda: x + y


def _add_tw(inp: dict, mode: str) -> Step:
    x, y = tw.constant(inp["x"]), tw.constant(inp["y"])
    if mode == "eager":
        return lambda: x + y

    def add(a, b):
        return a + b
    fn = maybe_function(add, mode)
    return lambda: fn(x, y)


def _add_torch(torch, inp: dict) -> Step:
    x, y = torch.from_numpy(inp["x"]), torch.from_numpy(inp["y"])
    return lambda: x + y


def _add_tf(tf, inp: dict) -> Step:
    x, y = tf.constant(inp["x"]), tf.constant(inp["y"])
    return lambda: x + y


def _add_jax(jax, inp: dict) -> Step:
    x, y = jax.numpy.asarray(inp["x"]), jax.numpy.asarray(inp["y"])
    return lambda: (x + y).block_until_ready()


# ----- 512 x 512 matmul ------------------------------------------------------------------------

def _matmul_setup() -> dict:
    rng = np.random.default_rng(1)
    return {"a": rng.normal(size=(512, 512)).astype(np.float32),
            "b": rng.normal(size=(512, 512)).astype(np.float32)}


def _matmul_np(inp: dict) -> Step:
    a, b = inp["a"], inp["b"]
    return lambda: np.matmul(a, b)


def _matmul_tw(inp: dict, mode: str) -> Step:
    a, b = tw.constant(inp["a"]), tw.constant(inp["b"])
    fn = maybe_function(tw.matmul, mode)
    return lambda: fn(a, b)


def _matmul_torch(torch, inp: dict) -> Step:
    a, b = torch.from_numpy(inp["a"]), torch.from_numpy(inp["b"])
    return lambda: torch.matmul(a, b)


def _matmul_tf(tf, inp: dict) -> Step:
    a, b = tf.constant(inp["a"]), tf.constant(inp["b"])
    return lambda: tf.matmul(a, b).numpy()


def _matmul_jax(jax, inp: dict) -> Step:
    a, b = jax.numpy.asarray(inp["a"]), jax.numpy.asarray(inp["b"])
    return lambda: jax.numpy.matmul(a, b).block_until_ready()


# ----- GELU (tanh approximation) on 1M floats ------------------------------------------------

_C = float(np.sqrt(2.0 / np.pi))


def _gelu_setup() -> dict:
    return {"x": np.random.default_rng(2).normal(size=1_000_000).astype(np.float32)}


_GELU_CONSTANTS = tuple(np.float32(v) for v in (_C, 0.044715, 0.5, 1.0))


def _gelu_chain(x: np.ndarray, t: np.ndarray) -> None:
    """The best plain NumPy GELU of x into t: every op in place (``out=``)."""
    c, k, half, one = _GELU_CONSTANTS
    np.multiply(x, x, out=t)
    np.multiply(t, x, out=t)
    np.multiply(t, k, out=t)
    np.add(t, x, out=t)
    np.multiply(t, c, out=t)
    np.tanh(t, out=t)
    np.add(t, one, out=t)
    np.multiply(t, x, out=t)
    np.multiply(t, half, out=t)


def _gelu_np(inp: dict) -> Step:
    """The best plain NumPy: one temporary, every op in place."""
    x = inp["x"]

    def step():
        t = np.empty_like(x)
        _gelu_chain(x, t)
        return t
    return step


def _gelu_halves(inp: dict, mode: str) -> Step:
    """The machine's ceiling for threaded NumPy: ``_gelu_chain`` on each half of x, the halves
    run at once on twinflow's worker threads (no ops, no dispatch). A fused block shared over
    threads cannot beat this ratio."""
    x = inp["x"]

    def step():
        t = np.empty_like(x)
        h = x.size // 2
        run_calls([(_gelu_chain, (x[:h], t[:h])), (_gelu_chain, (x[h:], t[h:]))], 2)
        return t
    return step


def _gelu(x):
    return 0.5 * x * (1.0 + tw.tanh(_C * (x + 0.044715 * x * x * x)))


def _gelu_tw(inp: dict, mode: str) -> Step:
    x = tw.constant(inp["x"])
    fn = maybe_function(_gelu, mode)
    return lambda: fn(x)


def _gelu_tw_jit(inp: dict, mode: str) -> Step:
    """``tw.function(jit_compile=True)``, as the TensorFlow column's XLA (numba if installed)."""
    x = tw.constant(inp["x"])
    fn = tw.function(_gelu, jit_compile=True)
    return lambda: fn(x)


def _gelu_torch(torch, inp: dict) -> Step:
    x = torch.from_numpy(inp["x"])
    return lambda: 0.5 * x * (1.0 + torch.tanh(_C * (x + 0.044715 * x * x * x)))


def _gelu_tf(tf, inp: dict) -> Step:
    x = tf.constant(inp["x"])

    @tf.function(jit_compile=True)
    def gelu(x):
        return 0.5 * x * (1.0 + tf.tanh(_C * (x + 0.044715 * x * x * x)))
    return lambda: gelu(x).numpy()


def _gelu_jax(jax, inp: dict) -> Step:
    x = jax.numpy.asarray(inp["x"])
    f = jax.jit(lambda x: 0.5 * x * (1.0 + jax.numpy.tanh(_C * (x + 0.044715 * x * x * x))))
    return lambda: f(x).block_until_ready()


# ----- MLP 784-256-128-10 training step, batch 64 ---------------------------------------------

_SIZES = (784, 256, 128, 10)


def _mlp_setup() -> dict:
    rng = np.random.default_rng(3)
    inp = {"x": rng.normal(size=(64, 784)).astype(np.float32),
           "labels": rng.integers(0, 10, size=64).astype(np.int32)}
    for i, (m, n) in enumerate(zip(_SIZES[:-1], _SIZES[1:])):
        inp[f"w{i}"] = (rng.normal(size=(m, n)) * np.sqrt(2.0 / m)).astype(np.float32)
        inp[f"b{i}"] = np.zeros(n, np.float32)
    return inp


def _mlp_np(inp: dict) -> Step:
    params = [inp[f"{k}{i}"].copy() for i in range(3) for k in ("w", "b")]
    x, labels = inp["x"], inp["labels"]
    onehot = np.eye(10, dtype=np.float32)[labels]
    lr = np.float32(0.01)

    def step():
        w0, b0, w1, b1, w2, b2 = params
        z0 = x @ w0 + b0
        h0 = np.maximum(z0, 0)
        z1 = h0 @ w1 + b1
        h1 = np.maximum(z1, 0)
        logits = h1 @ w2 + b2
        shifted = logits - logits.max(axis=1, keepdims=True)
        e = np.exp(shifted)
        sm = e / e.sum(axis=1, keepdims=True)
        loss = -np.mean(np.sum(onehot * (shifted - np.log(e.sum(axis=1, keepdims=True))),
                               axis=1))
        d_logits = (sm - onehot) / np.float32(x.shape[0])
        grads = [None] * 6
        grads[4], grads[5] = h1.T @ d_logits, d_logits.sum(axis=0)
        d_h1 = (d_logits @ w2.T) * (z1 > 0)
        grads[2], grads[3] = h0.T @ d_h1, d_h1.sum(axis=0)
        d_h0 = (d_h1 @ w1.T) * (z0 > 0)
        grads[0], grads[1] = x.T @ d_h0, d_h0.sum(axis=0)
        for i, g in enumerate(grads):
            params[i] = params[i] - lr * g
        return loss
    return step


def mlp_loss(params: list, x, labels):
    """The MLP's mean cross-entropy on a batch (``params``: w0, b0, w1, b1, w2, b2).

    Args:
        params: the six weight and bias variables.
        x: the inputs, ``[batch, 784]``.
        labels: the int32 class ids, ``[batch]``.

    Returns:
        The scalar loss.
    """
    w0, b0, w1, b1, w2, b2 = params
    h = tw.nn.relu(tw.matmul(x, w0) + b0)
    h = tw.nn.relu(tw.matmul(h, w1) + b1)
    logits = tw.matmul(h, w2) + b2
    return tw.reduce_mean(tw.nn.sparse_softmax_cross_entropy_with_logits(labels=labels,
                                                                         logits=logits))


def _mlp_tw(inp: dict, mode: str) -> Step:
    params = [tw.Variable(inp[f"{k}{i}"]) for i in range(3) for k in ("w", "b")]
    x, labels = tw.constant(inp["x"]), tw.constant(inp["labels"])

    def train_step(x, labels):
        with tw.GradientTape() as tape:
            loss = mlp_loss(params, x, labels)
        grads = tape.gradient(loss, params)
        for p, g in zip(params, grads):
            p.assign_sub(0.01 * g)
        return loss
    fn = maybe_function(train_step, mode)
    return lambda: fn(x, labels)


# ----- the seed's linear regression (W*x + B, 2000 points), one SGD step ----------------------

def _linreg_setup() -> dict:
    rng = np.random.default_rng(4)
    x = rng.normal(size=2000).astype(np.float32)
    return {"x": x, "y": (x * 3 + 2 + rng.normal(size=2000)).astype(np.float32)}


def _linreg_np(inp: dict) -> Step:
    x, y = inp["x"], inp["y"]
    state = [np.float32(5.0), np.float32(10.0)]
    lr = np.float32(0.01)

    def step():
        w, b = state
        err = x * w + b - y
        loss = np.mean(err * err)
        scale = np.float32(2.0 / x.size)
        dw, db = scale * np.sum(err * x), scale * np.sum(err)
        state[0], state[1] = w - lr * dw, b - lr * db
        return loss
    return step


def _linreg_tw(inp: dict, mode: str) -> Step:
    x, y = tw.constant(inp["x"]), tw.constant(inp["y"])
    w, b = tw.Variable(5.0, name="weight"), tw.Variable(10.0, name="bias")

    def train_step(x, y):
        with tw.GradientTape() as tape:
            loss = tw.reduce_mean(tw.square(x * w + b - y))
        dw, db = tape.gradient(loss, [w, b])
        w.assign_sub(0.01 * dw)
        b.assign_sub(0.01 * db)
        return loss
    fn = maybe_function(train_step, mode)
    return lambda: fn(x, y)


WORKLOADS: list = [
    Workload("power100", "seed 001: power(x, 100), 100 matmuls of 10x10 float32",
             _power_setup, _power_np, _power_tw, target=1.8,
             others={"torch": _power_lib, "tensorflow": _power_lib}),
    Workload("add2", "x + y on 2-element float32 tensors (per-op overhead)",
             _add_setup, _add_np, _add_tw, target_us=1.0,
             others={"torch": _add_torch, "tensorflow": _add_tf, "jax": _add_jax}),
    Workload("matmul512", "512x512 float32 matmul", _matmul_setup, _matmul_np, _matmul_tw,
             target=1.05, others={"torch": _matmul_torch, "tensorflow": _matmul_tf,
                                  "jax": _matmul_jax}),
    Workload("gelu1m", "GELU (tanh form) on 1M float32 (vs in-place NumPy)", _gelu_setup,
             _gelu_np, _gelu_tw, others={"torch": _gelu_torch}),
    Workload("mlp_step", "MLP 784-256-128-10 training step, batch 64 (vs hand-written NumPy)",
             _mlp_setup, _mlp_np, _mlp_tw),
    Workload("linreg_step", "seed 004: linear regression SGD step on 2000 points",
             _linreg_setup, _linreg_np, _linreg_tw),
    # Graph-mode variants (mode="function"): one long line each, so a variant is added or
    # removed by one line.
    Workload("power100", "seed 001: power(x, 100) as a tw.function", _power_setup, _power_np, _power_tw, mode="function", target=1.1),  # noqa: E501
    Workload("add2", "tw.function of one add, two tensor args (call overhead)", _add_setup, _add_np, _add_tw, mode="function", target_us=5.0),  # noqa: E501
    Workload("gelu1m", "issue 10: GELU on 1M float32 as a tw.function (fused)", _gelu_setup, _gelu_np, _gelu_tw, mode="function", target=0.5, others={"tensorflow": _gelu_tf, "jax": _gelu_jax, "torch": _gelu_torch}),  # noqa: E501
    Workload("gelu1m_2thr", "machine ceiling: the NumPy GELU chain in two halves on two threads (no twinflow ops)", _gelu_setup, _gelu_np, _gelu_halves, mode="function"),  # noqa: E501
    Workload("gelu1m_jit", "GELU on 1M float32, tw.function(jit_compile=True) (TF: XLA)", _gelu_setup, _gelu_np, _gelu_tw_jit, mode="function", others={"tensorflow": _gelu_tf, "jax": _gelu_jax}),  # noqa: E501
    Workload("mlp_step", "issue 10: MLP training step as a tw.function", _mlp_setup, _mlp_np, _mlp_tw, mode="function", target=0.85),  # noqa: E501
    Workload("convnet_step", "issue 10: seed 004 convnet training step (batch 32, 28x28) as a tw.function", convnet_setup, convnet_np, convnet_tw, mode="function", others={"tensorflow": convnet_tf, "torch": convnet_torch}),  # noqa: E501
    Workload("xent", "issue 10: softmax cross-entropy loss+gradient, 512x1000, as a tw.function", xent_setup, xent_np, xent_tw, mode="function", others={"tensorflow": xent_tf, "torch": xent_torch, "jax": xent_jax}),  # noqa: E501
    Workload("linreg_step", "linear regression step as a tw.function", _linreg_setup, _linreg_np, _linreg_tw, mode="function"),  # noqa: E501
    Workload("while1000", "issue 4: tw.while_loop of 1000 scalar updates vs a Python loop on NumPy scalars", while_setup, while_np, while_tw, mode="function", target=1.5),  # noqa: E501
    Workload("trace1000", "trace+optimize+compile a 1000-op function (absolute time)", chain_setup, None, chain_tw, mode="function", target_us=500000.0),  # noqa: E501
]
