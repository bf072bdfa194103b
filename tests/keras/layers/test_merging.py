import functools

import numpy as np
import pytest

import twinflow as tw

from .checks import check_layer

L = tw.keras.layers
RNG = np.random.default_rng(1)
A, B, C = (RNG.normal(size=(4, 3)).astype(np.float32) for _ in range(3))


@pytest.mark.parametrize("cls, fn, ref", [
    (L.Add, L.add, lambda xs: functools.reduce(np.add, xs)),
    (L.Multiply, L.multiply, lambda xs: functools.reduce(np.multiply, xs)),
    (L.Average, L.average, lambda xs: functools.reduce(np.add, xs) / len(xs)),
    (L.Maximum, L.maximum, lambda xs: functools.reduce(np.maximum, xs)),
    (L.Minimum, L.minimum, lambda xs: functools.reduce(np.minimum, xs)),
    (L.Concatenate, L.concatenate, lambda xs: np.concatenate(xs, -1)),
])
def test_merge_layers_and_functions(cls, fn, ref):
    check_layer(lambda **k: cls(**k), [A, B, C], lambda xs, w: ref(xs), fit=False)
    np.testing.assert_allclose(fn([A, B, C]).numpy(), ref([A, B, C]), rtol=1e-6)
    a, b = tw.keras.Input((3,)), tw.keras.Input((3,))
    model = tw.keras.Model([a, b], fn([a, b]))
    np.testing.assert_allclose(model.predict([A, B], verbose=0), ref([A, B]), rtol=1e-6)


def test_subtract_and_errors():
    check_layer(lambda **k: L.Subtract(**k), [A, B], lambda xs, w: xs[0] - xs[1], fit=False)
    with pytest.raises(ValueError, match="exactly 2"):
        L.Subtract()([A, B, C])
    with pytest.raises(ValueError, match="list of inputs"):
        L.Add()(A)
    with pytest.raises(ValueError, match="batch sizes"):
        L.Add()([A, A[:2]])


@pytest.mark.parametrize("axes, normalize, shapes", [
    (1, False, [(4, 3), (4, 3)]),
    (-1, True, [(4, 3), (4, 3)]),
    ([2, 2], False, [(4, 5, 3), (4, 6, 3)]),
    ([1, 2], False, [(4, 5, 3), (4, 2, 5)]),
])
def test_dot(axes, normalize, shapes):
    xs = [RNG.normal(size=s).astype(np.float32) for s in shapes]

    def ref(xs, w):
        x, y = xs
        pair = [axes, axes] if isinstance(axes, int) else axes
        pair = [a % x.ndim if a < 0 else a for a in pair]
        if normalize:
            x = x / np.linalg.norm(x, axis=pair[0], keepdims=True)
            y = y / np.linalg.norm(y, axis=pair[1], keepdims=True)
        out = np.stack([np.tensordot(x[i], y[i], axes=(pair[0] - 1, pair[1] - 1))
                        for i in range(len(x))])
        return out.reshape(len(x), -1) if out.ndim == 1 else out
    check_layer(lambda **k: L.Dot(axes, normalize=normalize, **k), xs, ref, fit=False)


def test_masks_are_combined():
    emb = L.Embedding(5, 3, mask_zero=True)
    ids_a = np.array([[1, 2, 0]])
    ids_b = np.array([[1, 0, 3]])
    out = L.Add()([emb(ids_a), emb(ids_b)])
    mask = tw.keras.layers.keras_tensor.get_keras_mask(out)
    np.testing.assert_array_equal(mask.numpy(), [[True, False, False]])
    cat = L.Concatenate(axis=1)([emb(ids_a), emb(ids_b)])
    mask = tw.keras.layers.keras_tensor.get_keras_mask(cat)
    np.testing.assert_array_equal(mask.numpy(), [[True, True, False, True, False, True]])
