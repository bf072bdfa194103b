"""Optimizers against NumPy references, learning-rate schedules, losses and metrics."""
from __future__ import annotations

import numpy as np
import pytest

import twinflow as tw

K = tw.keras


def _run(opt, grads_seq, start):
    w = tw.Variable(np.array(start, np.float32))
    for g in grads_seq:
        opt.apply_gradients([(tw.constant(np.array(g, np.float32)), w)])
    return w.numpy()


GRADS = [[0.5, -1.0], [0.2, 0.3], [-0.4, 0.1]]
START = [1.0, 2.0]


def test_sgd_plain_momentum_nesterov():
    w = np.array(START)
    for g in GRADS:
        w = w - 0.1 * np.array(g)
    np.testing.assert_allclose(_run(K.optimizers.SGD(0.1), GRADS, START), w, rtol=1e-6)
    for nesterov in (False, True):
        w, m = np.array(START), np.zeros(2)
        for g in GRADS:
            g = np.array(g)
            m = 0.9 * m - 0.1 * g
            w = w + (0.9 * m - 0.1 * g if nesterov else m)
        got = _run(K.optimizers.SGD(0.1, momentum=0.9, nesterov=nesterov), GRADS, START)
        np.testing.assert_allclose(got, w, rtol=1e-5)


def _adam_ref(lr=0.01, b1=0.9, b2=0.999, eps=1e-7, wd=0.0):
    w, m, v = np.array(START), np.zeros(2), np.zeros(2)
    for t, g in enumerate(GRADS, start=1):
        g = np.array(g)
        w = w - lr * wd * w
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        alpha = lr * np.sqrt(1 - b2 ** t) / (1 - b1 ** t)
        w = w - alpha * m / (np.sqrt(v) + eps)
    return w


def test_adam_and_adamw():
    np.testing.assert_allclose(_run(K.optimizers.Adam(0.01), GRADS, START), _adam_ref(),
                               rtol=1e-5)
    np.testing.assert_allclose(_run(K.optimizers.AdamW(0.01, weight_decay=0.1), GRADS, START),
                               _adam_ref(wd=0.1), rtol=1e-5)


def test_rmsprop():
    w, v = np.array(START), np.zeros(2)
    for g in GRADS:
        g = np.array(g)
        v = 0.9 * v + 0.1 * g * g
        w = w - 0.01 * g / np.sqrt(v + 1e-7)
    np.testing.assert_allclose(_run(K.optimizers.RMSprop(0.01), GRADS, START), w, rtol=1e-5)


def test_clipping():
    got = _run(K.optimizers.SGD(1.0, clipvalue=0.25), GRADS[:1], START)
    np.testing.assert_allclose(got, [0.75, 2.25], rtol=1e-6)
    got = _run(K.optimizers.SGD(1.0, clipnorm=0.5), [[3.0, 4.0]], START)
    np.testing.assert_allclose(got, [0.7, 1.6], rtol=1e-5)
    w1, w2 = tw.Variable([0.0]), tw.Variable([0.0])
    K.optimizers.SGD(1.0, global_clipnorm=1.0).apply_gradients(
        [(tw.constant([3.0]), w1), (tw.constant([4.0]), w2)])
    np.testing.assert_allclose([w1.numpy()[0], w2.numpy()[0]], [-0.6, -0.8], rtol=1e-5)
    with pytest.raises(ValueError):
        K.optimizers.SGD(clipnorm=1.0, clipvalue=1.0)


def test_schedules():
    s = K.optimizers.schedules.ExponentialDecay(0.1, decay_steps=10, decay_rate=0.5)
    np.testing.assert_allclose(float(s(5)), 0.1 * 0.5 ** 0.5, rtol=1e-6)
    s = K.optimizers.schedules.ExponentialDecay(0.1, 10, 0.5, staircase=True)
    np.testing.assert_allclose(float(s(15)), 0.05, rtol=1e-6)
    p = K.optimizers.schedules.PiecewiseConstantDecay([10, 20], [1.0, 0.5, 0.1])
    assert [float(p(i)) for i in (0, 10, 11, 20, 30)] == pytest.approx([1, 1, .5, .5, .1])
    opt = K.optimizers.SGD(K.optimizers.schedules.PiecewiseConstantDecay([0], [1.0, 0.5]))
    np.testing.assert_allclose(_run(opt, [[1.0, 1.0]] * 2, [0.0, 0.0]), [-1.5, -1.5])


def test_schedule_name_scopes_its_ops_in_a_graph_and_round_trips():
    s = K.optimizers.schedules.CosineDecay(0.1, 10, name="lr")
    names = []

    @tw.function(autograph=False)
    def f(step):
        out = s(step)
        names.append(out.name)
        return out

    np.testing.assert_allclose(float(f(tw.constant(0.0))), 0.1, rtol=1e-6)
    assert names[0].startswith("lr/")
    unnamed = K.optimizers.schedules.PolynomialDecay(0.1, 10)
    assert tw.function(unnamed, autograph=False).get_concrete_function(
        tw.TensorSpec([], tw.float32)).graph.get_operations()[-1].name.startswith(
        "PolynomialDecay/")
    again = type(s).from_config(s.get_config())
    assert again.name == "lr" and float(again(0)) == pytest.approx(0.1)


def test_minimize_and_no_gradients_error():
    w = tw.Variable(3.0)
    opt = K.optimizers.SGD(0.5)
    opt.minimize(lambda: w * w, [w])
    assert float(w.numpy()) == pytest.approx(0.0)
    with pytest.raises(ValueError, match="No gradients"):
        opt.apply_gradients([(None, w)])


def test_losses_against_numpy():
    yt = np.array([[0., 1.], [1., 0.]], np.float32)
    yp = np.array([[0.2, 0.7], [0.6, 0.1]], np.float32)
    np.testing.assert_allclose(float(K.losses.MeanSquaredError()(yt, yp)),
                               ((yt - yp) ** 2).mean(), rtol=1e-6)
    np.testing.assert_allclose(float(K.losses.MeanAbsoluteError()(yt, yp)),
                               np.abs(yt - yp).mean(), rtol=1e-6)
    err = np.abs(yt - yp)
    hub = np.where(err <= 0.5, 0.5 * err ** 2, 0.5 * (0.5 * 0.5) + 0.5 * (err - 0.5))
    np.testing.assert_allclose(float(K.losses.Huber(delta=0.5)(yt, yp)), hub.mean(), rtol=1e-5)
    bce = -(yt * np.log(yp) + (1 - yt) * np.log(1 - yp)).mean()
    np.testing.assert_allclose(float(K.losses.BinaryCrossentropy()(yt, yp)), bce, rtol=1e-5)
    logits = np.array([[1., 2., 3.], [1., 0., -1.]], np.float32)
    logp = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
    labels = np.array([2, 0])
    np.testing.assert_allclose(
        float(K.losses.SparseCategoricalCrossentropy(from_logits=True)(labels, logits)),
        -logp[[0, 1], labels].mean(), rtol=1e-5)
    probs = np.exp(logp)
    np.testing.assert_allclose(
        float(K.losses.SparseCategoricalCrossentropy()(labels, probs)),
        -logp[[0, 1], labels].mean(), rtol=1e-4)
    onehot = np.eye(3, dtype=np.float32)[labels]
    np.testing.assert_allclose(
        float(K.losses.CategoricalCrossentropy(from_logits=True)(onehot, logits)),
        -logp[[0, 1], labels].mean(), rtol=1e-5)
    np.testing.assert_allclose(
        K.losses.sparse_categorical_crossentropy(labels, logits, from_logits=True).numpy(),
        -logp[[0, 1], labels], rtol=1e-5)
    weighted = K.losses.MeanSquaredError()(yt, yp, sample_weight=np.array([1., 0.]))
    np.testing.assert_allclose(float(weighted), ((yt - yp) ** 2).mean(-1)[0] / 2, rtol=1e-6)


def test_metrics_seed_form():
    m = K.metrics.Mean("loss")
    m(0)
    m(5)
    assert float(m.result()) == 2.5
    m([8, 9])
    assert float(m.result()) == 5.5
    m.reset_state()
    assert float(m.result()) == 0.0
    s = K.metrics.Sum()
    s([1, 2, 3])
    assert float(s.result()) == 6.0


def test_accuracy_metrics():
    a = K.metrics.SparseCategoricalAccuracy()
    a.update_state([1, 2], [[0.1, 0.8, 0.1], [0.9, 0.05, 0.05]])
    assert float(a.result()) == 0.5
    c = K.metrics.CategoricalAccuracy()
    c.update_state([[0, 1], [1, 0]], [[0.2, 0.8], [0.7, 0.3]])
    assert float(c.result()) == 1.0
    acc = K.metrics.Accuracy()
    acc.update_state([1, 2, 3, 4], [1, 2, 0, 4])
    assert float(acc.result()) == 0.75
    b = K.metrics.BinaryAccuracy()
    b.update_state([[1.], [0.]], [[0.7], [0.6]])
    assert float(b.result()) == 0.5
    w = K.metrics.Mean()
    w.update_state([1.0, 3.0], sample_weight=[3.0, 1.0])
    assert float(w.result()) == 1.5
