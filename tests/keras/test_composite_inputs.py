"""Keras with composite inputs: Input(ragged=True) / Input(sparse=True) in functional models;
Embedding on ragged ids, GlobalAverage/MaxPooling1D over the ragged dimension, Dense on ragged
(flat values) and sparse inputs; fit/predict on them. Against NumPy references, eagerly and in
tw.function, with gradients by finite differences."""
from __future__ import annotations

import numpy as np
import pytest

import twinflow as tw

keras = tw.keras
IDS = [[1, 2], [3], [4, 5, 6], [0]]


def _model(pool):
    x = keras.Input(shape=(None,), ragged=True, dtype="int32")
    e = keras.layers.Embedding(7, 3)(x)
    h = keras.layers.Dense(2)(e)  # on ragged: applies to the flat values
    return keras.Model(x, pool()(h)), x, e, h


def _reference(model, ids, reduce):
    table = model.layers[1].embeddings.numpy()
    k, b = (w.numpy() for w in model.layers[2].weights)
    return np.stack([reduce(table[np.array(r)] @ k + b, axis=0) for r in ids])


def test_ragged_input_keras_tensors():
    _, x, e, h = _model(keras.layers.GlobalAveragePooling1D)
    assert x.ragged and not x.sparse and x.shape.as_list() == [None, None]
    assert x.type_spec == tw.RaggedTensorSpec([None, None], tw.int32, 1)
    assert e.ragged and e.shape.as_list() == [None, None, 3]
    assert h.ragged and h.shape.as_list() == [None, None, 2]
    assert "ragged=True" in repr(x)
    assert keras.Input(shape=(None, None), ragged=True).type_spec.ragged_rank == 2


@pytest.mark.parametrize("pool,reduce", [(keras.layers.GlobalAveragePooling1D, np.mean),
                                         (keras.layers.GlobalMaxPooling1D, np.max)])
def test_ragged_pipeline_matches_numpy(pool, reduce):
    model, *_ = _model(pool)
    ids = tw.ragged.constant(IDS)
    want = _reference(model, IDS, reduce)
    np.testing.assert_allclose(model(ids).numpy(), want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(tw.function(model)(ids).numpy(), want, rtol=1e-5, atol=1e-6)
    emb = model.layers[1](ids)
    assert isinstance(emb, tw.RaggedTensor) and emb.row_lengths().numpy().tolist() == [2, 1, 3, 1]


def test_ragged_gradients_by_finite_differences():
    model, *_ = _model(keras.layers.GlobalAveragePooling1D)
    ids = tw.ragged.constant(IDS)
    kernel = model.layers[2].kernel

    def loss():
        return float(tw.reduce_sum(model(ids) ** 2))

    with tw.GradientTape() as tape:
        out = tw.reduce_sum(model(ids) ** 2)
    g = tape.gradient(out, kernel).numpy()
    k0, eps = kernel.numpy(), 1e-3
    num = np.zeros_like(k0)
    for i in np.ndindex(k0.shape):
        d = np.zeros_like(k0)
        d[i] = eps
        kernel.assign(k0 + d)
        up = loss()
        kernel.assign(k0 - d)
        num[i] = (up - loss()) / (2 * eps)
    kernel.assign(k0)
    np.testing.assert_allclose(g, num, rtol=2e-2, atol=2e-3)
    with tw.GradientTape() as tape:
        out = tw.reduce_sum(model(ids))
    assert isinstance(tape.gradient(out, model.layers[1].embeddings), tw.IndexedSlices)


def test_fit_and_predict_on_ragged():
    model, *_ = _model(keras.layers.GlobalAveragePooling1D)
    ids = tw.ragged.constant(IDS)
    y = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [0.0, 0.0]], np.float32)
    model.compile(keras.optimizers.SGD(0.2), "mse")
    hist = model.fit(ids, y, epochs=15, batch_size=2, shuffle=True, verbose=0).history["loss"]
    assert hist[-1] < hist[0]
    np.testing.assert_allclose(model.predict(ids, verbose=0),
                               _reference(model, IDS, np.mean), rtol=1e-4, atol=1e-5)


def test_sparse_input_dense_and_fit():
    x = keras.Input(shape=(4,), sparse=True)
    assert x.sparse and x.type_spec == tw.SparseTensorSpec([None, 4], tw.float32)
    model = keras.Model(x, keras.layers.Dense(2)(x))
    dense = np.array([[0, 2, 0, 0], [1, 0, 0, 3], [0, 0, 0, 0]], np.float32)
    sp = tw.sparse.from_dense(tw.constant(dense))
    k, b = (w.numpy() for w in model.layers[1].weights)
    np.testing.assert_allclose(model(sp).numpy(), dense @ k + b, rtol=1e-5)
    np.testing.assert_allclose(tw.function(model)(sp).numpy(), dense @ k + b, rtol=1e-5)
    model.compile(keras.optimizers.SGD(0.1), "mse")
    y = np.ones((3, 2), np.float32)
    hist = model.fit(sp, y, epochs=5, batch_size=2, shuffle=True, verbose=0).history["loss"]
    assert hist[-1] < hist[0]
    assert model.predict(sp, batch_size=2, verbose=0).shape == (3, 2)


def test_bad_composite_inputs():
    with pytest.raises(ValueError, match="both sparse and ragged"):
        keras.Input(shape=(3,), sparse=True, ragged=True)
    with pytest.raises(NotImplementedError, match="type_spec"):
        keras.Input(type_spec=tw.TensorSpec([None, 3]))
    with pytest.raises(ValueError, match="rank 2"):
        keras.layers.Dense(2)(tw.sparse.from_dense(tw.ones([2, 2, 2])))
