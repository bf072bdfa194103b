import numpy as np

import twinflow as tw

from .checks import check_keras_weights, check_layer

L = tw.keras.layers
get_mask = tw.keras.layers.keras_tensor.get_keras_mask


def test_identity():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    check_layer(lambda **k: L.Identity(**k), [x], lambda xs, w: xs[0], fit=False)


def test_masking_zeroes_and_masks_padded_steps():
    x = np.ones((2, 4, 3), np.float32)
    x[0, 2:] = 0.0
    x[1, 1] = -1.0
    out = L.Masking(-1.0)(x)
    np.testing.assert_array_equal(get_mask(out).numpy(), [[1, 1, 1, 1], [1, 0, 1, 1]])
    np.testing.assert_array_equal(out.numpy()[1, 1], 0.0)
    check_layer(lambda **k: L.Masking(**k), [x],
                lambda xs, w: xs[0] * (xs[0] != 0).any(-1, keepdims=True), fit=False,
                grad=False)  # the mask is a step function of the input
    # the mask follows the tensor through layers that support masking
    dense = L.Dense(2)(L.Masking()(x))
    np.testing.assert_array_equal(get_mask(dense).numpy(), [[1, 1, 0, 0], [1, 1, 1, 1]])
    assert get_mask(L.Flatten()(L.Masking()(x))) is None


def test_embedding_mask_zero_and_weights():
    emb = L.Embedding(10, 3, mask_zero=True)
    out = emb(np.array([[1, 0, 2], [0, 0, 3]]))
    np.testing.assert_array_equal(get_mask(out).numpy(), [[1, 0, 1], [0, 0, 1]])
    assert get_mask(L.Embedding(10, 3)(np.array([[1, 0]]))) is None
    layer = L.Embedding(10, 3)
    layer(np.zeros((2, 5), np.int32))
    check_keras_weights(layer, "Embedding")


def test_masks_propagate_in_functional_models_and_tw_function():
    inp = tw.keras.Input((3,), dtype="int32")
    emb = L.Embedding(5, 2, mask_zero=True)(inp)
    out = L.Dense(1)(emb)
    model = tw.keras.Model(inp, out)
    ids = np.array([[1, 2, 0]])
    np.testing.assert_array_equal(get_mask(model(ids)).numpy(), [[1, 1, 0]])

    @tw.function
    def f(x):
        y = model(x)
        return get_mask(y)
    np.testing.assert_array_equal(f(tw.constant(ids)).numpy(), [[1, 1, 0]])


def test_lambda_masks():
    x = np.ones((2, 3, 2), np.float32)
    x[0, 2] = 0.0
    masked = L.Masking()(x)
    kept = L.Lambda(lambda t: t * 2.0)(masked)
    np.testing.assert_array_equal(get_mask(kept).numpy(), [[1, 1, 0], [1, 1, 1]])
    custom = L.Lambda(lambda t: t, mask=lambda t, m: tw.logical_not(m))(masked)
    np.testing.assert_array_equal(get_mask(custom).numpy(), [[0, 0, 1], [0, 0, 0]])


def test_losses_leave_masked_steps_out_as_keras_3():
    emb = L.Embedding(6, 2, mask_zero=True)
    dense = L.Dense(1)
    ids = np.array([[1, 2, 0], [3, 0, 0]])
    y_pred = dense(emb(ids))
    y_true = np.ones((2, 3, 1), np.float32)
    per_step = ((y_pred.numpy() - 1.0) ** 2)[..., 0]
    kept = ids != 0
    loss = tw.keras.losses.MeanSquaredError()(y_true, y_pred)
    np.testing.assert_allclose(float(loss), per_step[kept].mean(), rtol=1e-6)
    total = tw.keras.losses.MeanSquaredError(reduction="sum")(y_true, y_pred)
    np.testing.assert_allclose(float(total), per_step[kept].sum(), rtol=1e-6)
    weighted = tw.keras.losses.MeanSquaredError()(y_true, y_pred, sample_weight=[1.0, 3.0])
    want = (per_step * kept * np.array([[1.0], [3.0]])).sum() / kept.sum()
    np.testing.assert_allclose(float(weighted), want, rtol=1e-6)
    inp = tw.keras.Input((3,), dtype="int32")
    model = tw.keras.Model(inp, L.Dense(1)(L.Embedding(6, 2, mask_zero=True)(inp)))
    model.compile("sgd", "mse")
    out = model(ids).numpy()[..., 0]
    got = model.evaluate(ids, y_true, verbose=0)
    np.testing.assert_allclose(got, ((out - 1.0) ** 2)[kept].mean(), rtol=1e-5)
