import numpy as np
import pytest

import twinflow as tw

from .checks import check_layer

L = tw.keras.layers
RNG = np.random.default_rng(2)
X1 = RNG.normal(size=(4, 5, 3)).astype(np.float32)
X2 = RNG.normal(size=(4, 5, 6, 3)).astype(np.float32)
X3 = RNG.normal(size=(2, 3, 4, 5, 2)).astype(np.float32)


@pytest.mark.parametrize("make, x, ref", [
    (lambda **k: L.UpSampling1D(3, **k), X1, lambda x: x.repeat(3, 1)),
    (lambda **k: L.UpSampling2D((2, 3), **k), X2, lambda x: x.repeat(2, 1).repeat(3, 2)),
    (lambda **k: L.UpSampling2D(2, data_format="channels_first", **k), X2,
     lambda x: x.repeat(2, 2).repeat(2, 3)),
    (lambda **k: L.UpSampling3D((1, 2, 2), **k), X3, lambda x: x.repeat(2, 2).repeat(2, 3)),
    (lambda **k: L.ZeroPadding1D((1, 2), **k), X1,
     lambda x: np.pad(x, [(0, 0), (1, 2), (0, 0)])),
    (lambda **k: L.ZeroPadding2D(((1, 0), (2, 1)), **k), X2,
     lambda x: np.pad(x, [(0, 0), (1, 0), (2, 1), (0, 0)])),
    (lambda **k: L.ZeroPadding3D(1, **k), X3,
     lambda x: np.pad(x, [(0, 0), (1, 1), (1, 1), (1, 1), (0, 0)])),
    (lambda **k: L.Cropping1D((1, 2), **k), X1, lambda x: x[:, 1:-2]),
    (lambda **k: L.Cropping2D(((1, 0), (2, 1)), **k), X2, lambda x: x[:, 1:, 2:-1]),
    (lambda **k: L.Cropping2D(1, data_format="channels_first", **k), X2,
     lambda x: x[:, :, 1:-1, 1:-1]),
    (lambda **k: L.Cropping3D(((0, 1), (1, 1), (2, 0)), **k), X3,
     lambda x: x[:, :-1, 1:-1, 2:]),
    (lambda **k: L.Permute((2, 1), **k), X1, lambda x: x.transpose(0, 2, 1)),
    (lambda **k: L.Permute((3, 1, 2), **k), X2, lambda x: x.transpose(0, 3, 1, 2)),
    (lambda **k: L.RepeatVector(3, **k), X1[:, 0], lambda x: np.repeat(x[:, None], 3, 1)),
])
def test_reshaping_layers(make, x, ref):
    check_layer(make, [x], lambda xs, w: ref(xs[0]), fit=False)


def test_bad_arguments():
    with pytest.raises(ValueError, match="consecutive"):
        L.Permute((1, 3))
    with pytest.raises(NotImplementedError, match="nearest"):
        L.UpSampling2D(interpolation="bilinear")
    with pytest.raises(ValueError, match="leaves nothing"):
        L.Cropping1D((3, 3))(X1)
    with pytest.raises(ValueError, match="data_format"):
        L.ZeroPadding2D(data_format="nhwc")
    with pytest.raises(TypeError):
        L.RepeatVector(2.5)
