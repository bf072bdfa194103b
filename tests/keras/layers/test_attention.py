import pathlib

import numpy as np
import pytest

import twinflow as tw

from .checks import check_gradients, check_keras_weights, check_layer

L = tw.keras.layers
RNG = np.random.default_rng(5)
Q = RNG.normal(size=(3, 4, 5)).astype(np.float32)
V = RNG.normal(size=(3, 6, 5)).astype(np.float32)
K = RNG.normal(size=(3, 6, 5)).astype(np.float32)


def softmax(s, mask=None):
    if mask is not None:
        s = s - 1e9 * (~mask)
    e = np.exp(s - s.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def test_attention_dot_and_scale():
    check_layer(lambda **k: L.Attention(**k), [Q, V],
                lambda xs, w: softmax(xs[0] @ xs[1].transpose(0, 2, 1)) @ xs[1], fit=False)
    check_layer(lambda **k: L.Attention(use_scale=True, **k), [Q, V, K],
                lambda xs, w: softmax(w[0] * xs[0] @ xs[2].transpose(0, 2, 1)) @ xs[1])
    layer = L.Attention(use_scale=True)
    layer([Q, V])
    check_keras_weights(layer, "Attention_scale")


def test_attention_concat_scores():
    def ref(xs, w):
        s = np.tanh(xs[0][:, :, None] + xs[1][:, None]).sum(-1) * w[0]
        return softmax(s) @ xs[1]
    check_layer(lambda **k: L.Attention(score_mode="concat", **k), [Q, V], ref)


def test_additive_attention():
    def ref(xs, w):
        s = (w[0] * np.tanh(xs[0][:, :, None] + xs[1][:, None])).sum(-1)
        return softmax(s) @ xs[1]
    check_layer(lambda **k: L.AdditiveAttention(**k), [Q, V], ref)
    layer = L.AdditiveAttention()
    layer([np.zeros((2, 5, 4), np.float32), np.zeros((2, 6, 4), np.float32)])
    check_keras_weights(layer, "AdditiveAttention")


def test_attention_masks_causal_and_scores():
    qm = np.array([[1, 1, 1, 0]] * 3, bool)
    vm = np.array([[1, 1, 0, 1, 0, 1]] * 3, bool)
    out, w = L.Attention()([Q, V], mask=[tw.constant(qm), tw.constant(vm)],
                           return_attention_scores=True)
    want_w = softmax(Q @ V.transpose(0, 2, 1), np.broadcast_to(vm[:, None], (3, 4, 6)))
    np.testing.assert_allclose(w.numpy(), want_w, atol=1e-6)
    np.testing.assert_allclose(out.numpy(), (want_w @ V) * qm[..., None], atol=1e-5)
    out = L.Attention()([Q, Q], use_causal_mask=True).numpy()
    causal = np.tril(np.ones((4, 4), bool))
    np.testing.assert_allclose(out, softmax(Q @ Q.transpose(0, 2, 1), causal) @ Q, atol=1e-5)
    with pytest.raises(ValueError, match="list of inputs"):
        L.Attention()(Q)


def mha_ref(q, v, w, heads, mask=None):
    wq, bq, wk, bk, wv, bv, wo, bo = w
    qp = np.einsum("abc,cde->abde", q, wq) + bq
    kp = np.einsum("abc,cde->abde", v, wk) + bk
    vp = np.einsum("abc,cde->abde", v, wv) + bv
    s = np.einsum("aecd,abcd->acbe", kp, qp / np.sqrt(wq.shape[-1]))
    p = softmax(s, None if mask is None else mask[:, None])
    if mask is not None:
        p = p * mask[:, None]
    return np.einsum("abcd,cde->abe", np.einsum("acbe,aecd->abcd", p, vp), wo) + bo, p


def test_multi_head_attention():
    layer = check_layer(lambda **k: L.MultiHeadAttention(2, 3, **k), [Q, V],
                        lambda xs, w: mha_ref(xs[0], xs[1], w, 2)[0])
    mha = L.MultiHeadAttention(num_heads=2, key_dim=3)
    mha(np.zeros((2, 5, 4), np.float32), np.zeros((2, 6, 4), np.float32))
    check_keras_weights(mha, "MultiHeadAttention")
    w = [v.numpy() for v in layer.weights]
    causal = np.broadcast_to(np.tril(np.ones((4, 4), bool)), (3, 4, 4))
    out, scores = layer(Q, Q, use_causal_mask=True, return_attention_scores=True)
    want, want_p = mha_ref(Q, Q, w, 2, causal)
    np.testing.assert_allclose(out.numpy(), want, atol=1e-5)
    np.testing.assert_allclose(scores.numpy(), want_p, atol=1e-6)
    am = RNG.random((3, 4, 6)) > 0.3
    am[:, :, 0] = True
    out = layer(Q, V, attention_mask=tw.constant(am))
    np.testing.assert_allclose(out.numpy(), mha_ref(Q, V, w, 2, am)[0], atol=1e-5)


def test_multi_head_attention_uses_keras_masks_in_a_model():
    ids = tw.keras.Input((4,), dtype="int32")
    x = L.Embedding(10, 6, mask_zero=True)(ids)
    y = L.MultiHeadAttention(2, 3)(x, x)
    model = tw.keras.Model(ids, y)
    data = np.array([[1, 2, 0, 0], [3, 4, 5, 0]])
    out = model(data).numpy()
    emb, mha = model.layers[1], model.layers[2]
    vec = emb.embeddings.numpy()[data]
    mask = (data != 0)[:, :, None] & (data != 0)[:, None, :]
    w = [v.numpy() for v in mha.weights]
    np.testing.assert_allclose(out, mha_ref(vec, vec, w, 2, mask)[0], atol=1e-5)
    with pytest.raises(ValueError, match="num_heads"):
        L.MultiHeadAttention(0, 3)
    with pytest.raises(NotImplementedError):
        L.MultiHeadAttention(2, 3, attention_axes=(1, 2))


def test_einsum_dense():
    def ref(xs, w):
        return np.einsum("abc,cd->abd", xs[0], w[0]) + w[1]
    layer = check_layer(lambda **k: L.EinsumDense("abc,cd->abd", (None, 7), bias_axes="d",
                                                  **k), [V], ref)
    assert layer.kernel.shape.as_list() == [5, 7] and layer.bias.shape.as_list() == [7]


def test_group_query_attention_matches_keras():
    """Weights, outputs and scores of a Keras 3 GroupQueryAttention (fixture made by
    tests/fixtures/keras_ops/make_fixtures.py)."""
    fix = np.load(pathlib.Path(__file__).parents[2] / "fixtures" / "keras_ops" / "gqa.npz")
    layer = tw.keras.layers.GroupQueryAttention(head_dim=4, num_query_heads=4,
                                                num_key_value_heads=2)
    out, scores = layer(fix["q"], fix["v"], return_attention_scores=True)
    assert [(w.name.split(":")[0].split("/")[-2:], tuple(w.shape.as_list()))
            for w in layer.weights][0] == (["query", "kernel"], (8, 4, 4))
    layer.set_weights([fix[f"w{i}"] for i in range(8)])
    out, scores = layer(fix["q"], fix["v"], return_attention_scores=True)
    np.testing.assert_allclose(out.numpy(), fix["out"], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(scores.numpy(), fix["scores"], rtol=1e-5, atol=1e-6)
    causal = layer(fix["q"], fix["q"][:, :, :6], use_causal_mask=True)
    np.testing.assert_allclose(causal.numpy(), fix["causal"], rtol=1e-5, atol=1e-5)
    graph = tw.function(lambda a, b: layer(a, b))(tw.constant(fix["q"]), tw.constant(fix["v"]))
    np.testing.assert_allclose(graph.numpy(), fix["out"], rtol=1e-5, atol=1e-5)
    check_gradients(lambda **kw: tw.keras.layers.GroupQueryAttention(2, 4, 2, **kw),
                    [fix["q"][:1, :3], fix["v"][:1]], samples=2)
    again = tw.keras.layers.GroupQueryAttention.from_config(layer.get_config())
    assert again.get_config() == layer.get_config()
    with pytest.raises(ValueError, match="multiple"):
        tw.keras.layers.GroupQueryAttention(4, 4, 3)
