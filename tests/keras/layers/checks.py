"""One check for every layer: forward against a NumPy reference, gradients (inputs and weights)
against finite differences, eager == tw.function == fit(run_eagerly=True/False), get_config
round-trip, and weight names/shapes against Keras 3 (tests/fixtures/keras/layer_weights.json).
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

import twinflow as tw

keras = tw.keras
_KERAS_WEIGHTS = json.loads((Path(__file__).resolve().parents[2] / "fixtures" / "keras" /
                             "layer_weights.json").read_text())


def _call(layer, xs, kwargs):
    if isinstance(layer, keras.layers.MultiHeadAttention):  # called as layer(query, value)
        return layer(*xs, **kwargs)
    return layer(xs[0] if len(xs) == 1 else list(xs), **kwargs)


def _as_list(out):
    return [np.asarray(o) for o in (out if isinstance(out, (list, tuple)) else [out])]


def check_forward(layer, xs, ref, call_kwargs=None, atol=1e-5):
    """Eager vs ``ref(xs, weights)`` and vs ``tw.function``; returns the eager output."""
    kw = dict(call_kwargs or {})
    out = _call(layer, xs, kw)
    if ref is not None:
        want = ref(xs, [w.numpy() for w in layer.weights])
        for got, exp in zip(_as_list(out), _as_list(want)):
            np.testing.assert_allclose(got, exp, atol=atol, rtol=1e-4)
    graph = tw.function(lambda *a: _call(layer, a, kw))(*xs)
    for got, exp in zip(_as_list(graph), _as_list(out)):
        np.testing.assert_allclose(got, exp, atol=atol, rtol=1e-5)
    return out


def check_config(layer, xs, call_kwargs=None):
    """``from_config(get_config())`` makes the same layer: same config, same outputs."""
    kw = dict(call_kwargs or {})
    cfg = layer.get_config()
    json.dumps(cfg)
    clone = type(layer).from_config(cfg)
    _call(clone, xs, kw)
    clone.set_weights(layer.get_weights())
    for got, exp in zip(_as_list(_call(clone, xs, kw)), _as_list(_call(layer, xs, kw))):
        np.testing.assert_allclose(got, exp, atol=1e-6)
    assert clone.get_config() == cfg


def check_gradients(make, xs, call_kwargs=None, samples: int = 4, seed: int = 0,
                    wrt_inputs=True):
    """Gradients of ``sum(out * r)`` wrt inputs and weights, float64, vs central differences
    at a few random elements of each."""
    kw = dict(call_kwargs or {})
    layer = make(dtype="float64")
    xs = [tw.constant(np.asarray(x, np.float64)) if np.asarray(x).dtype.kind == "f"
          else tw.constant(x) for x in xs]
    outs = _as_list(_call(layer, xs, kw))
    rng = np.random.default_rng(seed)
    rs = [rng.normal(size=o.shape) for o in outs]

    def loss():
        got = _call(layer, xs, kw)
        got = got if isinstance(got, (list, tuple)) else [got]
        return sum(tw.reduce_sum(tw.cast(g, tw.float64) * r) for g, r in zip(got, rs))
    float_xs = [x for x in xs if x.dtype == tw.float64] if wrt_inputs else []
    with tw.GradientTape() as tape:
        for x in float_xs:
            tape.watch(x)
        value = loss()
    targets = float_xs + list(layer.trainable_weights)
    grads = tape.gradient(value, targets)
    assert len(targets) == 0 or any(g is not None for g in grads)
    eps = 1e-6
    for t, g in zip(targets, grads):
        g = np.zeros(t.shape) if g is None else np.asarray(tw.convert_to_tensor(g))
        base = np.array(t.numpy(), copy=True)
        for _ in range(samples):
            idx = tuple(rng.integers(0, max(d, 1)) for d in base.shape)
            num = []
            for step in (eps, -eps):
                moved = np.array(base, copy=True)
                moved[idx] += step
                _set(t, moved, xs)
                num.append(float(loss()))
            _set(t, base, xs)
            want = (num[0] - num[1]) / (2 * eps)
            np.testing.assert_allclose(g[idx], want, rtol=1e-4, atol=1e-6)


def _set(t, value, xs):
    if isinstance(t, tw.Variable):
        t.assign(value)
    else:  # an input tensor: the same object is in xs, so change it in place (test only)
        t._value = np.array(value)


def check_fit_modes(make, xs, y_shape=None, call_kwargs=None):
    """fit(run_eagerly=True) and fit(run_eagerly=False) from the same weights agree."""
    results = []
    for eager in (True, False):
        tw.random.set_seed(1)
        layer = make()
        inputs = [keras.Input(np.asarray(x).shape[1:], dtype=str(np.asarray(x).dtype))
                  for x in xs]
        out = _call(layer, inputs, dict(call_kwargs or {}))
        out = out[0] if isinstance(out, (list, tuple)) else out
        model = keras.Model(inputs if len(inputs) > 1 else inputs[0], out)
        if results:
            model.set_weights(results[0][1])
        start = model.get_weights()
        model.compile(keras.optimizers.SGD(0.05), "mse", run_eagerly=eager)
        target = np.zeros([np.asarray(xs[0]).shape[0]] + out.shape.as_list()[1:], np.float32)
        data = xs[0] if len(xs) == 1 else list(xs)
        hist = model.fit(data, target, batch_size=2, epochs=2, shuffle=False, verbose=0)
        results.append((hist.history["loss"], start, model.get_weights()))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-5, atol=1e-7)
    for a, b in zip(results[0][2], results[1][2]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def check_keras_weights(layer, key: str) -> None:
    """Weight short names and shapes, in order, as Keras 3 makes them."""
    want = [(p.split("/")[-1], tuple(s)) for p, s in _KERAS_WEIGHTS[key]]
    got = [(w.name.split(":")[0].split("/")[-1], tuple(w.shape.as_list()))
           for w in layer.weights]
    assert got == want, (got, want)


def check_layer(make, xs, ref, call_kwargs=None, keras_key=None, grad=True, fit=True,
                atol=1e-5, wrt_inputs=True):
    """All of the above for the layer ``make()`` on inputs ``xs`` (a list of arrays)."""
    layer = make()
    check_forward(layer, xs, ref, call_kwargs, atol=atol)
    check_config(layer, xs, call_kwargs)
    if keras_key is not None:
        check_keras_weights(layer, keras_key)
    if grad:
        check_gradients(make, xs, call_kwargs, wrt_inputs=wrt_inputs)
    if fit:
        check_fit_modes(make, xs, call_kwargs=call_kwargs)
    return layer
