"""Neural-network workloads of ``twinflow bench`` (issue 10): the seed 004 convnet training step
and a softmax cross-entropy step, each against the best plain NumPy code for the same work, and
TensorFlow / PyTorch / JAX versions used when they import.
"""
from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

import twinflow as tw

Step = object

# ----- seed 004 convnet: Conv2D(16, 3x3, relu) x2, GlobalAveragePooling2D, Dense(10), Adam ------


def convnet_setup() -> dict:
    """A batch of 32 28x28x1 images, labels, and the initial weights."""
    rng = np.random.default_rng(5)
    inp = {"x": rng.random((32, 28, 28, 1), dtype=np.float32),
           "labels": rng.integers(0, 10, 32).astype(np.int64)}
    for name, shape_ in (("w1", (3, 3, 1, 16)), ("w2", (3, 3, 16, 16)), ("wd", (16, 10))):
        fan = int(np.prod(shape_[:-1]))
        inp[name] = (rng.normal(size=shape_) * np.sqrt(2.0 / fan)).astype(np.float32)
    for name, n in (("b1", 16), ("b2", 16), ("bd", 10)):
        inp[name] = np.zeros(n, np.float32)
    return inp


_PARAMS = ("w1", "b1", "w2", "b2", "wd", "bd")


def _cols(x, k: int):
    """im2col of a VALID 3x3 stride-1 convolution: [N * OH * OW, k * k * C]."""
    win = sliding_window_view(x, (k, k), axis=(1, 2))          # [N, OH, OW, C, k, k]
    return win.transpose(0, 1, 2, 4, 5, 3).reshape(-1, k * k * x.shape[3])


def convnet_np(inp: dict):
    """The step written by hand in NumPy: im2col products, the input gradient of the second
    convolution by adding the nine column slices back, Adam."""
    params = [inp[k].copy() for k in _PARAMS]
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    x, labels = inp["x"], inp["labels"]
    n = x.shape[0]
    onehot = np.eye(10, dtype=np.float32)[labels]
    b1, b2, eps, lr = np.float32(0.9), np.float32(0.999), np.float32(1e-7), np.float32(1e-3)
    t = [0]

    def step():
        w1, c1, w2, c2, wd, cd = params
        cols1 = _cols(x, 3)
        z1 = (cols1 @ w1.reshape(-1, 16)).reshape(n, 26, 26, 16)
        z1 += c1
        h1 = np.maximum(z1, 0)
        cols2 = _cols(h1, 3)
        z2 = (cols2 @ w2.reshape(-1, 16)).reshape(n, 24, 24, 16)
        z2 += c2
        h2 = np.maximum(z2, 0)
        g = h2.mean(axis=(1, 2))
        logits = g @ wd + cd
        shifted = logits - logits.max(axis=1, keepdims=True)
        e = np.exp(shifted)
        s = e.sum(axis=1, keepdims=True)
        loss = -np.mean(np.sum(onehot * (shifted - np.log(s)), axis=1))
        dlog = (e / s - onehot) / np.float32(n)
        grads = [None] * 6
        grads[4], grads[5] = g.T @ dlog, dlog.sum(axis=0)
        dz2 = np.broadcast_to((dlog @ wd.T)[:, None, None, :] / np.float32(24 * 24),
                              z2.shape) * (z2 > 0)
        dz2m = dz2.reshape(-1, 16)
        grads[2], grads[3] = (cols2.T @ dz2m).reshape(w2.shape), dz2m.sum(axis=0)
        dcols = (dz2m @ w2.reshape(-1, 16).T).reshape(n, 24, 24, 3, 3, 16)
        dh1 = np.zeros_like(h1)
        for i in range(3):
            for j in range(3):
                dh1[:, i:i + 24, j:j + 24] += dcols[:, :, :, i, j]
        dz1m = (dh1 * (z1 > 0)).reshape(-1, 16)
        grads[0], grads[1] = (cols1.T @ dz1m).reshape(w1.shape), dz1m.sum(axis=0)
        t[0] += 1
        alpha = lr * np.sqrt(1 - b2 ** t[0]) / (1 - b1 ** t[0])
        for i, gr in enumerate(grads):
            m[i] += (gr - m[i]) * (1 - b1)
            v[i] += (gr * gr - v[i]) * (1 - b2)
            params[i] -= alpha * m[i] / (np.sqrt(v[i]) + eps)
        return loss
    return step


def _convnet_model(lib, inp: dict):
    layers = lib.keras.layers
    model = lib.keras.Sequential([
        layers.Conv2D(16, [3, 3], activation="relu", input_shape=(None, None, 1)),
        layers.Conv2D(16, [3, 3], activation="relu"),
        layers.GlobalAveragePooling2D(),
        layers.Dense(10)])
    model(inp["x"][:1])
    model.set_weights([inp[k] for k in _PARAMS])
    return model


def convnet_tw(inp: dict, mode: str):
    """The seed 004 ``train_step`` (Keras model, Adam, sparse cross-entropy) in twinflow."""
    return _convnet_step(tw, inp, mode)


def convnet_tf(tf, inp: dict):
    """The same step in TensorFlow (graph, ``tf.function``)."""
    return _convnet_step(tf, inp, "function")


def _convnet_step(lib, inp: dict, mode: str):
    model = _convnet_model(lib, inp)
    opt = lib.keras.optimizers.Adam()
    loss_object = lib.keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    def train_step(images, labels):
        with lib.GradientTape() as tape:
            logits = model(images, training=True)
            loss = loss_object(labels, logits)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        return loss
    fn = lib.function(train_step) if mode == "function" else train_step
    x, labels = lib.constant(inp["x"]), lib.constant(inp["labels"])
    return lambda: fn(x, labels)


def convnet_torch(torch, inp: dict):
    """The same step in PyTorch (eager)."""
    nn = torch.nn
    model = nn.Sequential(nn.Conv2d(1, 16, 3), nn.ReLU(), nn.Conv2d(16, 16, 3), nn.ReLU(),
                          nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, 10))
    opt = torch.optim.Adam(model.parameters(), eps=1e-7)
    x = torch.from_numpy(inp["x"].transpose(0, 3, 1, 2).copy())
    y = torch.from_numpy(inp["labels"])
    loss_fn = nn.CrossEntropyLoss()

    def step():
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        return loss
    return step


# ----- softmax cross-entropy: loss and gradient of 512 x 1000 logits ---------------------------

def xent_setup() -> dict:
    """512 rows of 1000 float32 logits and their labels."""
    rng = np.random.default_rng(6)
    return {"logits": rng.normal(size=(512, 1000)).astype(np.float32),
            "labels": rng.integers(0, 1000, 512).astype(np.int32)}


def xent_np(inp: dict):
    """Mean sparse softmax cross-entropy and its gradient (returned), stable, in place."""
    logits, labels = inp["logits"], inp["labels"]
    rows = np.arange(len(labels))
    n = np.float32(len(labels))
    losses = [None]

    def step():
        shifted = logits - logits.max(axis=1, keepdims=True)
        e = np.exp(shifted)
        s = e.sum(axis=1, keepdims=True)
        losses[0] = np.mean(np.log(s[:, 0]) - shifted[rows, labels])
        e /= s
        e[rows, labels] -= 1
        e /= n
        return e     # (the loss is computed too, as by the others)
    return step


def _xent_step(lib, inp: dict, mode: str):
    logits, labels = lib.constant(inp["logits"]), lib.constant(inp["labels"])

    def step(logits, labels):
        with lib.GradientTape() as tape:
            tape.watch(logits)
            loss = lib.reduce_mean(lib.nn.sparse_softmax_cross_entropy_with_logits(
                labels=labels, logits=logits))
        return loss, tape.gradient(loss, logits)
    fn = lib.function(step) if mode == "function" else step
    return lambda: fn(logits, labels)[1]


def xent_tw(inp: dict, mode: str):
    """The loss and gradient through a GradientTape in twinflow."""
    return _xent_step(tw, inp, mode)


def xent_tf(tf, inp: dict):
    """The same in TensorFlow (``tf.function``)."""
    return _xent_step(tf, inp, "function")


def xent_torch(torch, inp: dict):
    """The same in PyTorch (eager autograd)."""
    labels = torch.from_numpy(inp["labels"].astype(np.int64))
    base = torch.from_numpy(inp["logits"])

    def step():
        logits = base.detach().requires_grad_(True)
        loss = torch.nn.functional.cross_entropy(logits, labels)
        loss.backward()
        return logits.grad
    return step


def xent_jax(jax, inp: dict):
    """The same in JAX (``jax.jit`` of ``value_and_grad``)."""
    jnp = jax.numpy
    logits, labels = jnp.asarray(inp["logits"]), jnp.asarray(inp["labels"])

    def loss(z):
        return -jnp.mean(jax.nn.log_softmax(z)[jnp.arange(z.shape[0]), labels])
    f = jax.jit(jax.value_and_grad(loss))
    return lambda: jax.block_until_ready(f(logits))[1]
