import numpy as np
import pytest

import twinflow as tw

from .checks import check_layer

L = tw.keras.layers
RNG = np.random.default_rng(7)
X1 = RNG.normal(size=(2, 8, 3)).astype(np.float32)
X2 = RNG.normal(size=(2, 6, 8, 3)).astype(np.float32)
X3 = RNG.normal(size=(2, 3, 4, 5, 3)).astype(np.float32)


def pool_ref(x, size, reduce):
    b, h, w, c = x.shape
    return reduce(x[:, :h // size[0] * size[0], :w // size[1] * size[1]].reshape(
        b, h // size[0], size[0], w // size[1], size[1], c), axis=(2, 4))


@pytest.mark.parametrize("make, x, ref", [
    (lambda **k: L.MaxPooling2D(**k), X2, lambda x: pool_ref(x, (2, 2), np.max)),
    (lambda **k: L.AveragePooling2D((3, 2), **k), X2, lambda x: pool_ref(x, (3, 2), np.mean)),
    (lambda **k: L.MaxPooling1D(2, **k), X1, lambda x: pool_ref(x[:, None], (1, 2), np.max)[:, 0]),
    (lambda **k: L.AveragePooling1D(4, **k), X1,
     lambda x: pool_ref(x[:, None], (1, 4), np.mean)[:, 0]),
    (lambda **k: L.MaxPooling2D(data_format="channels_first", **k), X2.transpose(0, 3, 1, 2),
     lambda x: pool_ref(x.transpose(0, 2, 3, 1), (2, 2), np.max).transpose(0, 3, 1, 2)),
    (lambda **k: L.GlobalAveragePooling1D(**k), X1, lambda x: x.mean(1)),
    (lambda **k: L.GlobalMaxPooling1D(keepdims=True, **k), X1, lambda x: x.max(1, keepdims=True)),
    (lambda **k: L.GlobalAveragePooling2D(**k), X2, lambda x: x.mean((1, 2))),
    (lambda **k: L.GlobalMaxPooling2D(data_format="channels_first", **k), X2,
     lambda x: x.max((2, 3))),
    (lambda **k: L.GlobalAveragePooling3D(**k), X3, lambda x: x.mean((1, 2, 3))),
    (lambda **k: L.GlobalMaxPooling3D(**k), X3, lambda x: x.max((1, 2, 3))),
])
def test_pooling(make, x, ref):
    check_layer(make, [x], lambda xs, w: ref(xs[0]), fit=False)


def test_masked_global_average_pooling():
    ids = np.array([[1, 2, 0, 0], [3, 0, 0, 0]])
    emb = L.Embedding(5, 2, mask_zero=True)
    out = L.GlobalAveragePooling1D()(emb(ids)).numpy()
    table = emb.embeddings.numpy()
    np.testing.assert_allclose(out, [table[[1, 2]].mean(0), table[3]], rtol=1e-6)
    with pytest.raises(ValueError, match="rank"):
        L.GlobalAveragePooling2D()(X1)
