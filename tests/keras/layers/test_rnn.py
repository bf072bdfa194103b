import numpy as np
import pytest

import twinflow as tw

from .checks import check_keras_weights, check_layer

L = tw.keras.layers
RNG = np.random.default_rng(4)
X = RNG.normal(size=(4, 5, 3)).astype(np.float32)


def sig(z):
    return 1 / (1 + np.exp(-z))


def simple_ref(x, w, h=None):
    k, rk, b = w
    h = np.zeros((len(x), rk.shape[0])) if h is None else h
    outs = []
    for t in range(x.shape[1]):
        h = np.tanh(x[:, t] @ k + h @ rk + b)
        outs.append(h)
    return np.stack(outs, 1), [h]


def lstm_ref(x, w, state=None):
    k, rk, b = w
    u = rk.shape[0]
    h, c = (np.zeros((len(x), u)), np.zeros((len(x), u))) if state is None else state
    outs = []
    for t in range(x.shape[1]):
        z = x[:, t] @ k + h @ rk + b
        i, f, g, o = sig(z[:, :u]), sig(z[:, u:2 * u]), np.tanh(z[:, 2 * u:3 * u]), \
            sig(z[:, 3 * u:])
        c = f * c + i * g
        h = o * np.tanh(c)
        outs.append(h)
    return np.stack(outs, 1), [h, c]


def gru_ref(x, w, reset_after=True):
    k, rk, b = w
    u = rk.shape[0]
    h = np.zeros((len(x), u))
    outs = []
    for t in range(x.shape[1]):
        if reset_after:
            mx = x[:, t] @ k + b[0]
            mh = h @ rk + b[1]
            z, r = sig(mx[:, :u] + mh[:, :u]), sig(mx[:, u:2 * u] + mh[:, u:2 * u])
            hh = np.tanh(mx[:, 2 * u:] + r * mh[:, 2 * u:])
        else:
            mx = x[:, t] @ k + b
            z = sig(mx[:, :u] + h @ rk[:, :u])
            r = sig(mx[:, u:2 * u] + h @ rk[:, u:2 * u])
            hh = np.tanh(mx[:, 2 * u:] + (r * h) @ rk[:, 2 * u:])
        h = z * h + (1 - z) * hh
        outs.append(h)
    return np.stack(outs, 1), [h]


@pytest.mark.parametrize("cls, ref, key", [
    (L.SimpleRNN, simple_ref, "SimpleRNN"), (L.LSTM, lstm_ref, "LSTM"),
    (L.GRU, gru_ref, "GRU"),
])
def test_rnn_layers_forward_grad_fit_weights(cls, ref, key):
    check_layer(lambda **k: cls(3, return_sequences=True, **k), [X],
                lambda xs, w: ref(xs[0], w)[0])
    layer = check_layer(lambda **k: cls(3, **k), [X[:, :3]], lambda xs, w: ref(xs[0], w)[0][:, -1],
                        fit=False)
    layer = cls(3)
    layer(np.zeros((2, 5, 4), np.float32))
    check_keras_weights(layer, key)


def test_gru_reset_before():
    check_layer(lambda **k: L.GRU(3, reset_after=False, return_sequences=True, **k), [X],
                lambda xs, w: gru_ref(xs[0], w, reset_after=False)[0], fit=False)
    layer = L.GRU(3, reset_after=False)
    layer(np.zeros((2, 5, 4), np.float32))
    check_keras_weights(layer, "GRU_reset_before")


def test_lstm_forget_bias_starts_at_one():
    layer = L.LSTM(2)
    layer(X)
    np.testing.assert_array_equal(layer.weights[2].numpy(), [0, 0, 1, 1, 0, 0, 0, 0])


def test_return_state_initial_state_go_backwards():
    layer = L.LSTM(3, return_state=True, return_sequences=True)
    h0, c0 = RNG.normal(size=(4, 3)), RNG.normal(size=(4, 3))
    seq, h, c = layer(X, initial_state=[tw.constant(h0, tw.float32), tw.constant(c0,
                                                                                 tw.float32)])
    w = [v.numpy() for v in layer.weights]
    want_seq, (want_h, want_c) = lstm_ref(X, w, (h0, c0))
    np.testing.assert_allclose(seq.numpy(), want_seq, atol=1e-5)
    np.testing.assert_allclose(h.numpy(), want_h, atol=1e-5)
    np.testing.assert_allclose(c.numpy(), want_c, atol=1e-5)
    back = L.SimpleRNN(3, go_backwards=True, return_sequences=True)
    out = back(X).numpy()
    want, _ = simple_ref(X[:, ::-1], [v.numpy() for v in back.weights])
    np.testing.assert_allclose(out, want, atol=1e-5)
    with pytest.raises(ValueError, match="state"):
        layer(X, initial_state=[tw.constant(h0, tw.float32)])


def test_masks_skip_padded_steps():
    ids = np.array([[3, 4, 0, 0], [1, 2, 5, 0]])
    emb = L.Embedding(6, 3, mask_zero=True)
    lstm = L.LSTM(2, return_sequences=True)
    seq = lstm(emb(ids)).numpy()
    vec = emb.embeddings.numpy()[ids]
    w = [v.numpy() for v in lstm.weights]
    short, _ = lstm_ref(vec[:1, :2], w)
    np.testing.assert_allclose(seq[0, :2], short[0], atol=1e-5)
    np.testing.assert_allclose(seq[0, 2], short[0, -1], atol=1e-5)  # repeats the last output
    last = L.GRU(2)
    out = last(emb(ids)).numpy()
    want, _ = gru_ref(vec[1:, :3], [v.numpy() for v in last.weights])
    np.testing.assert_allclose(out[1], want[0, -1], atol=1e-5)
    mask = tw.keras.layers.keras_tensor.get_keras_mask(lstm(emb(ids)))
    np.testing.assert_array_equal(mask.numpy(), ids != 0)


def test_stateful_keeps_states_between_batches():
    layer = L.SimpleRNN(2, stateful=True)
    inp = tw.keras.Input(batch_shape=(4, 5, 3))
    model = tw.keras.Model(inp, layer(inp))
    first = model(X).numpy()
    second = model(X).numpy()
    w = [v.numpy() for v in layer.weights]
    _, (h1,) = simple_ref(X, w)
    _, (h2,) = simple_ref(X, w, h1)
    np.testing.assert_allclose(first, h1, atol=1e-5)
    np.testing.assert_allclose(second, h2, atol=1e-5)
    assert layer.weights == layer.trainable_weights  # the states are not weights
    layer.reset_states()
    np.testing.assert_allclose(model(X).numpy(), h1, atol=1e-5)
    with pytest.raises(ValueError, match="static"):
        L.LSTM(2, stateful=True)(tw.keras.Input((5, 3)))


def test_bidirectional_and_stacked_cells():
    def ref(xs, w):
        f, _ = lstm_ref(xs[0], w[:3])
        b, _ = lstm_ref(xs[0][:, ::-1], w[3:])
        return np.concatenate([f, b[:, ::-1]], -1)
    layer = check_layer(lambda **k: L.Bidirectional(L.LSTM(3, return_sequences=True, **k), **k),
                        [X], ref)
    assert [w.name.split(":")[0].split("/")[-1] for w in layer.weights] == \
        ["kernel", "recurrent_kernel", "bias"] * 2
    bi = L.Bidirectional(L.LSTM(3))
    bi(np.zeros((2, 5, 4), np.float32))
    check_keras_weights(bi, "Bidirectional_LSTM")
    out = L.Bidirectional(L.GRU(2, return_state=True), merge_mode="sum")(X)
    assert len(out) == 3 and out[0].shape.as_list() == [4, 2]

    def stacked(xs, w):
        h, _ = simple_ref(xs[0], w[:3])
        return lstm_ref(h, w[3:])[0][:, -1]
    check_layer(lambda **k: L.RNN([L.SimpleRNNCell(3, **k), L.LSTMCell(2, **k)], **k), [X], stacked)
    rnn = L.RNN(L.StackedRNNCells([L.SimpleRNNCell(3), L.LSTMCell(2)]))
    rnn(np.zeros((2, 5, 4), np.float32))
    check_keras_weights(rnn, "StackedRNN")


class MinimalCell(tw.keras.layers.Layer):
    def __init__(self, units, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.state_size = units

    def build(self, input_shape):
        self.kernel = self.add_weight("kernel", (input_shape[-1], self.units))
        self.built = True

    def call(self, inputs, states):
        h = tw.matmul(inputs, self.kernel) + states[0]
        return h, [h]


def test_custom_cell():
    layer = L.RNN(MinimalCell(2), return_sequences=True)
    out = layer(X).numpy()
    k = layer.weights[0].numpy()
    np.testing.assert_allclose(out, np.cumsum(X @ k, axis=1), atol=1e-5)


def test_unknown_length_runs_as_a_loop_in_graphs():
    inp = tw.keras.Input((None, 3))
    layer = L.GRU(2, return_sequences=True)
    model = tw.keras.Model(inp, layer(inp))
    assert model.output_shape == (None, None, 2)
    fn = tw.function(lambda x: model(x), input_signature=[tw.TensorSpec([None, None, 3])])
    np.testing.assert_allclose(fn(X).numpy(), model(X).numpy(), atol=1e-6)

    @tw.function(input_signature=[tw.TensorSpec([None, None, 3])])
    def grads(x):
        with tw.GradientTape() as tape:
            loss = tw.reduce_sum(model(x) ** 2)
        return tape.gradient(loss, model.trainable_weights)
    with tw.GradientTape() as tape:
        loss = tw.reduce_sum(model(X) ** 2)
    want = tape.gradient(loss, model.trainable_weights)
    for g, e in zip(grads(X), want):
        np.testing.assert_allclose(g.numpy(), e.numpy(), atol=1e-5)


def test_time_distributed():
    def ref(xs, w):
        return xs[0] @ w[0] + w[1]
    check_layer(lambda **k: L.TimeDistributed(L.Dense(3, **k), **k), [X], ref)
    td = L.TimeDistributed(L.Dense(3))
    td(np.zeros((2, 5, 4), np.float32))
    check_keras_weights(td, "TimeDistributed_Dense")


def test_dropout_only_while_training_and_bad_arguments():
    layer = L.LSTM(3, dropout=0.5, recurrent_dropout=0.5, seed=1)
    a = layer(X).numpy()
    np.testing.assert_allclose(layer(X).numpy(), a)
    assert not np.allclose(layer(X, training=True).numpy(), a)
    with pytest.raises(ValueError, match="units"):
        L.LSTM(0)
    with pytest.raises(ValueError, match="dropout"):
        L.GRU(2, dropout=1.5)
    with pytest.raises(ValueError, match="merge mode"):
        L.Bidirectional(L.LSTM(2), merge_mode="max")
