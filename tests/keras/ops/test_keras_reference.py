"""keras.ops.nn / linalg / image / core against Keras 3's own results (fixture made by
tests/fixtures/keras_ops/make_fixtures.py), eagerly and inside tw.function."""
from __future__ import annotations

import importlib.util
import pathlib

import numpy as np
import pytest

import twinflow as tw
from twinflow.keras import ops

FIX = pathlib.Path(__file__).parents[2] / "fixtures" / "keras_ops"
_spec = importlib.util.spec_from_file_location("ops_cases", FIX / "ops_cases.py")
CASES_MOD = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(CASES_MOD)
REF = dict(np.load(FIX / "ops_reference.npz", allow_pickle=False))
D = CASES_MOD.derived(CASES_MOD.inputs())
NAMES = sorted(CASES_MOD.CASES)
# Results that are unique only up to sign/order: compared by value elsewhere.
TOL = {"stft": 1e-4, "rfft": 1e-4, "fft": 1e-4, "pinv": 1e-4, "lstsq": 1e-4}


def _resolve(path):
    obj = ops
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


def _arg(v, wrap):
    if isinstance(v, str):
        v = D[v]
    elif isinstance(v, tuple) and v and all(isinstance(t, str) for t in v):
        return tuple(wrap(D[t]) for t in v)
    return wrap(v) if isinstance(v, np.ndarray) else v


def _run(name, wrap=lambda a: a):
    path, args, kwargs = CASES_MOD.CASES[name]
    res = _resolve(path)(*[_arg(a, wrap) for a in args], **kwargs)
    return res if isinstance(res, (tuple, list)) else [res]


def _check(name, got):
    for i, g in enumerate(got):
        want = REF[f"{name}/{i}"]
        g = np.asarray(g.numpy() if hasattr(g, "numpy") else g)
        if name == "eigh_values" and i == 1:  # eigenvectors: unique up to sign
            g, want = np.abs(g), np.abs(want)
        assert g.shape == want.shape, (name, i, g.shape, want.shape)
        if want.dtype.kind in "biu":
            np.testing.assert_array_equal(g, want, err_msg=name)
        else:
            tol = TOL.get(name, 2e-5)
            np.testing.assert_allclose(g, want, rtol=tol, atol=tol, err_msg=name)


@pytest.mark.parametrize("name", NAMES)
def test_matches_keras(name):
    _check(name, _run(name))


@pytest.mark.parametrize("name", NAMES[::4])
def test_matches_keras_in_tw_function(name):
    _check(name, tw.function(lambda: _run(name, tw.constant))())


@pytest.mark.parametrize("name", ["conv2d", "conv_transpose2d", "depthwise", "separable",
                                  "avg_pool_same", "attention_causal", "layer_norm",
                                  "bce_logits", "cce_logits", "adaptive_avg", "unfold"])
def test_gradients_match_finite_differences(name):
    path, args, kwargs = CASES_MOD.CASES[name]
    fn = _resolve(path)
    first = np.asarray(D[args[0]], np.float64)
    rest = [_arg(a, lambda v: np.asarray(v, np.float64) if v.dtype.kind == "f" else v)
            for a in args[1:]]
    x = tw.constant(first)
    with tw.GradientTape() as tape:
        tape.watch(x)
        y = tw.reduce_sum(fn(x, *rest, **kwargs) * 0.37)
    g = tape.gradient(y, x).numpy()
    r = np.random.default_rng(1)
    for _ in range(6):
        i = tuple(r.integers(0, s) for s in first.shape)
        d = np.zeros_like(first)
        d[i] = 1e-6
        num = (float(tw.reduce_sum(fn(first + d, *rest, **kwargs) * 0.37)) -
               float(tw.reduce_sum(fn(first - d, *rest, **kwargs) * 0.37))) / 2e-6
        np.testing.assert_allclose(g[i], num, rtol=1e-4, atol=1e-6, err_msg=name)


def test_sparsemax_is_the_simplex_projection():
    # Keras 3.15's TensorFlow backend computes its threshold from the wrong sum (its
    # outputs do not add up to 1); twinflow follows Martins & Astudillo (2016).
    z = np.array([[0.3, 0.2, -0.5, 1.0, 0.9], [2.0, 0.0, 0.0, 0.0, 0.0]], np.float32)
    out = ops.sparsemax(z).numpy()
    np.testing.assert_allclose(out, [[0, 0, 0, 0.55, 0.45], [1, 0, 0, 0, 0]], atol=1e-6)
    np.testing.assert_allclose(out.sum(1), 1.0, rtol=1e-6)


def test_jvp_is_jacobian_times_tangent():
    x = tw.constant([1.0, 2.0, 3.0], tw.float64)
    t = tw.constant([0.5, -1.0, 2.0], tw.float64)
    out, tangent = ops.jvp(lambda a: ops.sin(a) * a, (x,), (t,))
    xv = x.numpy()
    np.testing.assert_allclose(tangent.numpy(), (np.cos(xv) * xv + np.sin(xv)) * t.numpy())
    np.testing.assert_allclose(out.numpy(), np.sin(xv) * xv)


def test_control_flow_and_scatter():
    assert int(ops.fori_loop(0, 5, lambda i, v: v + i, 0)) == 10
    assert int(ops.while_loop(lambda v: v < 10, lambda v: v * 2, 1)) == 16
    carry, ys = ops.scan(lambda c, x: (c + x, c * x), 0.0, np.arange(1.0, 5.0, dtype=np.float32))
    assert float(carry) == 10.0
    np.testing.assert_allclose(ys.numpy(), [0.0, 2.0, 9.0, 24.0])
    np.testing.assert_allclose(ops.associative_scan(lambda a, b: a + b, np.arange(5.0)).numpy(),
                               np.cumsum(np.arange(5.0)))
    assert float(ops.switch(1, [lambda v: v + 1, lambda v: v * 10], 3.0)) == 30.0
    x = np.zeros((4, 4), np.float32)
    out = ops.slice_update(x, (1, 2), np.ones((2, 2), np.float32))
    want = x.copy()
    want[1:3, 2:4] = 1
    np.testing.assert_array_equal(out.numpy(), want)
    np.testing.assert_array_equal(ops.slice(want, (1, 2), (2, 2)).numpy(), np.ones((2, 2)))
    s = ops.scatter(np.array([[0], [2]]), np.array([5.0, 7.0]), (4,))
    np.testing.assert_array_equal(s.numpy(), [5.0, 0.0, 7.0, 0.0])
    u = ops.scatter_update(np.zeros(3), np.array([[1]]), np.array([4.0]))
    np.testing.assert_array_equal(u.numpy(), [0.0, 4.0, 0.0])
    assert ops.cond(tw.constant(True), lambda: 1.0, lambda: 2.0).numpy() == 1.0


def test_istft_inverts_stft():
    sig = D["sig"]
    re, im = ops.stft(sig, 8, 4, 8)
    back = ops.istft((re, im), 8, 4, 8, length=32)
    np.testing.assert_allclose(back.numpy(), sig, atol=1e-5)
    np.testing.assert_allclose(ops.irfft(ops.rfft(sig)).numpy(), sig, atol=1e-5)


def test_unsupported_options_raise():
    with pytest.raises(ValueError, match="flash_attention"):
        ops.dot_product_attention(D["q"], D["k"], D["v"], flash_attention=True)
    with pytest.raises(ValueError, match="sparse=True"):
        ops.one_hot(D["labels"], 3, sparse=True)
    with pytest.raises(ValueError, match="padding"):
        ops.conv(D["img"], D["k2"], padding="causal")
