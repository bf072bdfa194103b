"""SwapEMAWeights, RemoteMonitor (against a local HTTP server), OrthogonalRegularizer and the
STFT / alias initializers in models."""
import http.server
import json
import threading
import urllib.parse

import numpy as np
import pytest

import twinflow as tw

keras = tw.keras


def _model(opt):
    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
    model.compile(opt, "mse")
    return model


def test_swap_ema_weights_evaluates_with_averages():
    x = np.random.RandomState(0).randn(16, 2).astype("float32")
    y = x @ np.array([[1.0], [-2.0]], np.float32)
    model = _model(keras.optimizers.SGD(0.1, use_ema=True, ema_momentum=0.5))
    model.fit(x, y, epochs=2, batch_size=4, verbose=0)
    opt = model.optimizer
    kernel = model.trainable_variables[0]
    trained = kernel.numpy().copy()
    ema = opt.get_slot(kernel, "ema").numpy().copy()
    seen = []

    class Peek(keras.callbacks.Callback):
        def on_test_batch_begin(self, batch, logs=None):
            seen.append(self.model.trainable_variables[0].numpy().copy())

    swap = keras.callbacks.SwapEMAWeights()
    model.evaluate(x, y, verbose=0, callbacks=[swap, Peek()])
    np.testing.assert_allclose(seen[0], ema)                 # evaluated with the averages
    np.testing.assert_allclose(kernel.numpy(), trained)       # and swapped back
    np.testing.assert_allclose(opt.get_slot(kernel, "ema").numpy(), ema)
    model.predict(x, verbose=0, callbacks=[swap])
    np.testing.assert_allclose(kernel.numpy(), trained)
    # swap_on_epoch: the averages are in the model after each epoch (and after training)
    model.fit(x, y, epochs=2, batch_size=4, verbose=0,
              callbacks=[keras.callbacks.SwapEMAWeights(swap_on_epoch=True)])
    np.testing.assert_allclose(kernel.numpy(), opt.get_slot(kernel, "ema").numpy())
    with pytest.raises(ValueError, match="use_ema"):
        plain = _model("sgd")
        plain.evaluate(x, y, verbose=0, callbacks=[keras.callbacks.SwapEMAWeights()])


class _Handler(http.server.BaseHTTPRequestHandler):
    received: list = []

    def do_POST(self):  # noqa: N802  (http.server's name)
        body = self.rfile.read(int(self.headers["Content-Length"]))
        _Handler.received.append((self.path, self.headers["Content-Type"], body))
        self.send_response(200)
        self.end_headers()

    def log_message(self, *args):
        pass


def test_remote_monitor_posts_json():
    server = http.server.HTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        root = f"http://127.0.0.1:{server.server_port}"
        model = _model("sgd")
        x, y = np.ones((4, 2), np.float32), np.ones((4, 1), np.float32)
        model.fit(x, y, epochs=2, verbose=0,
                  callbacks=[keras.callbacks.RemoteMonitor(root, path="/ep")])
        keras.callbacks.RemoteMonitor(root, send_as_json=True).on_epoch_end(
            5, {"loss": np.float32(0.5)})
    finally:
        server.shutdown()
        server.server_close()
    (p0, t0, b0), _, (p2, t2, b2) = _Handler.received
    assert p0 == "/ep" and t0 == "application/x-www-form-urlencoded"
    sent = json.loads(urllib.parse.parse_qs(b0.decode())["data"][0])
    assert sent["epoch"] == 0 and "loss" in sent
    assert t2 == "application/json" and json.loads(b2) == {"epoch": 5, "loss": 0.5}


def test_remote_monitor_unreachable_warns():
    mon = keras.callbacks.RemoteMonitor("http://127.0.0.1:9", timeout=2)
    with pytest.warns(UserWarning, match="Could not reach RemoteMonitor"):
        mon.on_epoch_end(0, {"loss": 1.0})
    with pytest.raises(ValueError, match="http"):
        keras.callbacks.RemoteMonitor("file:///etc/passwd")


def test_orthogonal_regularizer():
    w = np.random.RandomState(0).randn(4, 3).astype("float32")
    u = w / np.linalg.norm(w, axis=1, keepdims=True)
    prod = u @ u.T
    want = 0.1 * 0.5 * np.abs(prod - np.diag(np.diag(prod))).sum() / 6.0
    reg = keras.regularizers.OrthogonalRegularizer(0.1)
    np.testing.assert_allclose(float(reg(tw.constant(w))), want, rtol=1e-5)
    again = keras.regularizers.deserialize(keras.regularizers.serialize(reg))
    assert isinstance(again, keras.regularizers.OrthogonalRegularizer)
    assert again.get_config() == {"factor": 0.1, "mode": "rows"}
    assert keras.regularizers.orthogonal_regularizer is keras.regularizers.OrthogonalRegularizer
    layer = keras.layers.Dense(3, kernel_regularizer=keras.regularizers.get(
        "orthogonal_regularizer"))
    model = keras.Sequential([keras.Input((4,)), layer])
    model.compile("sgd", "mse")
    model.fit(np.ones((4, 4)), np.ones((4, 3)), verbose=0)
    assert len(model.losses) == 1
    with pytest.raises(ValueError, match="rank 2"):
        reg(tw.ones([2, 2, 2]))
    with pytest.raises(ValueError, match="mode"):
        keras.regularizers.OrthogonalRegularizer(mode="diagonal")


def test_initializer_aliases_and_stft():
    assert keras.initializers.IdentityInitializer is keras.initializers.Identity
    assert keras.initializers.OrthogonalInitializer is keras.initializers.Orthogonal
    assert keras.initializers.STFTInitializer is keras.initializers.STFT
    assert keras.initializers.stft is keras.initializers.STFT
    init = keras.initializers.STFT("imag", "hann", None, periodic=True)
    kernel = init((8, 1, 5)).numpy()
    t, f = np.arange(8)[:, None], np.arange(5)[None, :]
    win = np.hanning(9)[:8]
    np.testing.assert_allclose(kernel[:, 0, :], np.sin(-2 * np.pi * t * f / 8) * win[:, None],
                               atol=1e-6)
    again = keras.initializers.get({"class_name": "STFT", "config": init.get_config()})
    np.testing.assert_allclose(again((8, 1, 5)).numpy(), kernel)
    layer = keras.layers.Conv1D(5, 8, kernel_initializer=keras.initializers.STFT())
    assert layer(tw.ones([1, 16, 1])).shape == (1, 9, 5)
    with pytest.raises(ValueError, match="window"):
        keras.initializers.STFT(window="kaiser")
