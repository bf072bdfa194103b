"""Normalization, Discretization, CategoryEncoding, Hashing, HashedCrossing, Rescaling,
Resizing, CenterCrop against Keras 3's outputs (values noted from Keras 3.15)."""
import numpy as np
import pytest

import twinflow as tw

from .helpers import agree, round_trip

L = tw.keras.layers
DATA = np.array([[1.0, 2], [3, 5], [5, 9]], np.float32)


def test_normalization_adapt_and_invert():
    n = L.Normalization()
    n.adapt(DATA)
    np.testing.assert_allclose(n.mean, [[3.0, 16 / 3]], rtol=1e-6)
    np.testing.assert_allclose(n.variance, DATA.var(0, keepdims=True), rtol=1e-6)
    out = agree(n, DATA)
    np.testing.assert_allclose(out, (DATA - DATA.mean(0)) / DATA.std(0), rtol=1e-5)
    inv = L.Normalization(mean=n.mean, variance=n.variance, invert=True)
    np.testing.assert_allclose(inv(out).numpy(), DATA, rtol=1e-5)
    round_trip(inv, DATA)
    assert [w.name.split("/")[-1].split(":")[0] for w in n.weights] == ["mean", "variance",
                                                                          "count"]


def test_normalization_axis_none_and_dataset():
    n = L.Normalization(axis=None)
    n.adapt(tw.data.Dataset.from_tensor_slices(DATA).batch(2))
    np.testing.assert_allclose(n.mean, [[DATA.mean()]], rtol=1e-6)
    np.testing.assert_allclose(n(DATA[:1]).numpy(), [[-1.2138654, -0.83053946]], rtol=1e-5)
    with pytest.raises(ValueError, match="both `mean` and `variance`"):
        L.Normalization(mean=1.0)


def test_discretization():
    d = L.Discretization(bin_boundaries=[0.0, 1.0])
    out = agree(d, np.array([[-1.0, 0.0, 0.5, 1.0, 2.0]], np.float32))
    np.testing.assert_array_equal(out, [[0, 1, 1, 2, 2]])
    assert out.dtype == np.int32
    d = L.Discretization(num_bins=4)
    d.adapt(np.arange(20.0))
    assert d.bin_boundaries == [4.0, 9.0, 14.0]
    d = L.Discretization(num_bins=3)
    d.adapt(tw.data.Dataset.from_tensor_slices(np.arange(1.0, 9.0).reshape(2, 4)))
    np.testing.assert_allclose(d.bin_boundaries, [2.6666667461395264, 5.333333492279053])
    round_trip(d, np.array([0.0, 3.0, 9.0], np.float32))
    oh = L.Discretization(bin_boundaries=[0.0], output_mode="one_hot")
    np.testing.assert_array_equal(oh(np.array([-1.0, 1.0])).numpy(), [[1, 0], [0, 1]])
    with pytest.raises(ValueError, match="use `num_bins`"):
        L.Discretization(bin_boundaries=[0.0]).adapt(np.zeros(3))


def test_category_encoding():
    c = L.CategoryEncoding(num_tokens=4, output_mode="count")
    out = agree(c, np.array([[0, 1, 1], [3, 3, 2]]))
    np.testing.assert_array_equal(out, [[1, 2, 0, 0], [0, 0, 1, 2]])
    oh = L.CategoryEncoding(num_tokens=4, output_mode="one_hot")
    np.testing.assert_array_equal(oh(np.array([[0], [1]])).numpy(), np.eye(4)[:2])
    np.testing.assert_array_equal(L.CategoryEncoding(4)(np.array([0, 1, 3])).numpy(),
                                  [1, 1, 0, 1])
    round_trip(c)
    with pytest.raises(tw.errors.InvalidArgumentError, match="num_tokens=4"):
        c(np.array([[4]]))
    with pytest.raises(NotImplementedError, match="sparse=True"):
        L.CategoryEncoding(4, sparse=True)


def test_hashing_matches_tensorflow():
    words = np.array([["a"], ["b"], ["c"]])
    np.testing.assert_array_equal(agree(L.Hashing(num_bins=5), words), [[4], [2], [2]])
    np.testing.assert_array_equal(L.Hashing(5)(np.array([1, 2, 3])).numpy(), [4, 4, 1])
    salted = L.Hashing(num_bins=5, salt=133)
    np.testing.assert_array_equal(agree(salted, words), [[2], [4], [1]])
    masked = L.Hashing(num_bins=5, mask_value="")
    np.testing.assert_array_equal(masked(np.array([["a"], [""], ["c"]])).numpy(),
                                  [[4], [0], [1]])
    round_trip(salted, words)
    assert L.Hashing(5).get_config()["dtype"] == "int64"
    with pytest.raises(ValueError, match="string or integer"):
        L.Hashing(5)(np.array([1.5]))


def test_hashed_crossing_and_rescaling():
    h = L.HashedCrossing(num_bins=7)
    out = h((tw.constant(["a", "b"]), tw.constant([1, 2])))
    np.testing.assert_array_equal(out.numpy(), [2, 4])
    fn = tw.function(lambda a, b: h((a, b)))
    np.testing.assert_array_equal(fn(tw.constant(["a", "b"]), tw.constant([1, 2])).numpy(),
                                  [2, 4])
    round_trip(h)
    r = L.Rescaling(1 / 255.0, offset=-1.0)
    np.testing.assert_allclose(agree(r, np.array([255, 0], np.uint8)), [0.0, -1.0])
    round_trip(r)


IMG = np.arange(2 * 5 * 7, dtype=np.float32).reshape(2, 5, 7, 1)


def test_center_crop_and_resizing():
    np.testing.assert_array_equal(agree(L.CenterCrop(3, 4), IMG)[0, ..., 0],
                                  [[8, 9, 10, 11], [15, 16, 17, 18], [22, 23, 24, 25]])
    up = L.CenterCrop(6, 4)(IMG).numpy()[0, :, 0, 0]  # smaller: crop to ratio, resize up
    np.testing.assert_allclose(up, [2.0, 7.25, 13.083333, 18.916666, 24.75, 30.0], rtol=1e-5)
    np.testing.assert_allclose(agree(L.Resizing(3, 4), IMG)[0, 0, :, 0],
                               [2.7083333, 4.458333, 6.208333, 7.958333], rtol=1e-5)
    crop = L.Resizing(3, 3, crop_to_aspect_ratio=True)(IMG).numpy()[0, 0, :, 0]
    np.testing.assert_allclose(crop, [3.6666665, 5.333333, 6.9999995], rtol=1e-5)
    pad = L.Resizing(3, 3, pad_to_aspect_ratio=True)(IMG).numpy()[0, :, 0, 0]
    np.testing.assert_allclose(pad, [0.4444444, 14.666667, 19.11112], rtol=1e-5)
    assert L.Resizing(3, 4)(IMG.astype(np.uint8)).dtype == tw.uint8
    first = L.Resizing(3, 4, data_format="channels_first")(np.transpose(IMG, (0, 3, 1, 2)))
    np.testing.assert_allclose(first.numpy()[:, 0], L.Resizing(3, 4)(IMG).numpy()[..., 0])
    round_trip(L.Resizing(3, 4, interpolation="nearest"), IMG)
    round_trip(L.CenterCrop(2, 2), IMG)


def test_in_a_model():
    norm = L.Normalization()
    norm.adapt(DATA)
    inp = tw.keras.Input((2,))
    model = tw.keras.Model(inp, L.Dense(1, kernel_initializer="ones")(norm(inp)))
    want = ((DATA - DATA.mean(0)) / DATA.std(0)).sum(1, keepdims=True)
    np.testing.assert_allclose(model.predict(DATA, verbose=0), want, rtol=1e-5, atol=1e-6)
