"""tf.image beyond the registry cases: float32-only gradients, random augmentations, errors."""
import numpy as np
import pytest

import twinflow as tw
from twinflow import image as I

rng = np.random.default_rng(5)
X = rng.uniform(0, 1, size=(1, 4, 5, 2)).astype(np.float32)


def _grad(fn, x):
    x = tw.constant(x)
    with tw.GradientTape() as tape:
        tape.watch(x)
        y = fn(x)
    return tw.convert_to_tensor(tape.gradient(y, x)).numpy()  # may be IndexedSlices


def _linear_grad(fn, x, w):
    """d sum(w * fn(x)) / dx of a linear fn, column by column (exact up to rounding)."""
    base = np.zeros_like(x)
    g = np.zeros(x.shape, np.float64)
    for i in np.ndindex(x.shape):
        e = base.copy()
        e[i] = 1.0
        g[i] = float(np.sum(w * fn(tw.constant(e)).numpy()))
    return g


@pytest.mark.parametrize("method,aa", [("bilinear", False), ("nearest", False),
                                       ("bicubic", False), ("area", False),
                                       ("lanczos3", True), ("bilinear", True)])
def test_resize_gradient_is_the_adjoint(method, aa):
    def fn(t):
        return I.resize(t, (3, 7), method=method, antialias=aa)
    w = rng.uniform(0.5, 1.5, size=(1, 3, 7, 2)).astype(np.float32)
    got = _grad(lambda t: tw.reduce_sum(fn(t) * w), X)
    np.testing.assert_allclose(got, _linear_grad(fn, X, w), rtol=1e-5, atol=1e-5)


def test_crop_and_resize_gradients_in_image_and_boxes():
    boxes = np.array([[0.1, 0.2, 0.7, 0.9], [0.3, 0.05, 0.8, 0.6]], np.float32)

    def fn(t):
        return I.crop_and_resize(t, boxes, [0, 0], [3, 2])
    w = rng.uniform(0.5, 1.5, size=(2, 3, 2, 2)).astype(np.float32)
    got = _grad(lambda t: tw.reduce_sum(fn(t) * w), X)
    np.testing.assert_allclose(got, _linear_grad(fn, X, w), rtol=1e-5, atol=1e-5)
    b = tw.constant(boxes)
    with tw.GradientTape() as tape:
        tape.watch(b)
        y = tw.reduce_sum(I.crop_and_resize(X, b, [0, 0], [3, 2]) * w)
    gb = tw.convert_to_tensor(tape.gradient(y, b)).numpy()  # gathered rows: IndexedSlices
    eps = 1e-3
    for i in np.ndindex(boxes.shape):
        hi, lo = boxes.copy(), boxes.copy()
        hi[i] += eps
        lo[i] -= eps
        num = (np.sum(I.crop_and_resize(X, hi, [0, 0], [3, 2]).numpy() * w) -
               np.sum(I.crop_and_resize(X, lo, [0, 0], [3, 2]).numpy() * w)) / (2 * eps)
        assert abs(gb[i] - num) < 2e-2 * max(1.0, abs(num)), (i, gb[i], num)


def test_psnr_and_ssim_are_differentiable():
    a = rng.uniform(0, 1, size=(1, 12, 12, 1)).astype(np.float32)
    g = _grad(lambda t: I.ssim(t, a * 0.5, max_val=1.0, filter_size=5), a)
    assert g.shape == a.shape and np.isfinite(g).all() and np.abs(g).sum() > 0
    g = _grad(lambda t: I.psnr(t, a * 0.5, max_val=1.0), a)
    assert np.isfinite(g).all() and np.abs(g).sum() > 0


def test_stateless_augmentations_repeat_and_stateful_ones_vary():
    img = rng.uniform(0, 1, size=(8, 4, 4, 3)).astype(np.float32)
    for fn in (lambda s: I.stateless_random_flip_left_right(img, s),
               lambda s: I.stateless_random_crop(img, [8, 2, 3, 3], s),
               lambda s: I.stateless_random_brightness(img, 0.2, s),
               lambda s: I.stateless_random_contrast(img, 0.5, 1.5, s),
               lambda s: I.stateless_random_saturation(img, 0.5, 1.5, s),
               lambda s: I.stateless_random_hue(img, 0.2, s)):
        np.testing.assert_array_equal(fn([1, 2]).numpy(), fn([1, 2]).numpy())
        assert not np.array_equal(fn([1, 2]).numpy(), fn([3, 4]).numpy())
    flipped = I.random_flip_up_down(img, seed=1).numpy()
    same = [np.array_equal(flipped[i], img[i]) for i in range(8)]
    up = [np.array_equal(flipped[i], img[i, ::-1]) for i in range(8)]
    assert all(s or u for s, u in zip(same, up))
    crop = I.random_crop(img[0], [2, 3, 3]).numpy()
    assert crop.shape == (2, 3, 3)
    assert I.random_hue(img, 0.1).shape == img.shape


def test_bad_calls_raise_clear_errors():
    with pytest.raises(ValueError, match="unknown method"):
        I.resize(X, (2, 2), method="cubic")
    with pytest.raises(ValueError, match="rank 3 or 4"):
        I.resize(X[0, 0], (2, 2))
    with pytest.raises(ValueError, match="does not fit"):
        I.crop_to_bounding_box(X, 2, 0, 3, 2)
    with pytest.raises(ValueError, match="central_fraction"):
        I.central_crop(X, 0.0)
    with pytest.raises(ValueError, match="smaller than filter_size"):
        I.ssim(X, X, 1.0)
    with pytest.raises(ValueError, match="delta"):
        I.adjust_hue(X, 2.0)
    with pytest.raises(TypeError, match="float"):
        I.rgb_to_hsv(np.zeros((2, 2, 3), np.int32))
    with pytest.raises(tw.errors.InvalidArgumentError, match="iou_threshold"):
        I.non_max_suppression([[0.0, 0.0, 1.0, 1.0]], [1.0], 1, iou_threshold=2.0)


def test_unbatched_and_graph_mode():
    img = X[0]
    f = tw.function(lambda t: I.resize(t, (2, 3), method="bicubic"))
    np.testing.assert_allclose(f(tw.constant(img)).numpy(),
                               I.resize(X, (2, 3), method="bicubic").numpy()[0], atol=1e-6)
    g = tw.function(lambda b, s: I.non_max_suppression(b, s, 2))
    boxes = np.array([[0, 0, 1, 1], [0, 0, 1, 0.9], [2, 2, 3, 3]], np.float32)
    np.testing.assert_array_equal(g(boxes, np.array([0.5, 0.9, 0.1], np.float32)).numpy(),
                                  [1, 2])


def test_decoders_are_tf_io_ones():
    assert I.decode_png is tw.io.decode_png and I.encode_jpeg is tw.io.encode_jpeg
