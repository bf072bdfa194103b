"""tf.image against outputs TensorFlow 2.21 produced (tests/fixtures/image/make_fixtures.py)."""
import pathlib

import numpy as np
import pytest

import twinflow as tw
from twinflow import image as I

F = np.load(pathlib.Path(__file__).parents[1] / "fixtures" / "image" / "image.npz")
IMG = F["img"]
RESIZE_KEYS = sorted(k for k in F.files if k.startswith("resize_") and k.count("_") == 3)


def _same(got, key, atol=2e-6):
    got = np.asarray(got)
    assert got.dtype == F[key].dtype, f"{key}: dtype {got.dtype}, TensorFlow {F[key].dtype}"
    assert got.shape == F[key].shape, f"{key}: shape {got.shape}, TensorFlow {F[key].shape}"
    np.testing.assert_allclose(got, F[key], atol=atol, rtol=0, err_msg=key)


@pytest.mark.parametrize("key", RESIZE_KEYS)
def test_resize_matches_tensorflow(key):
    _, method, size, aa = key.split("_")
    h, w = map(int, size.split("x"))
    _same(I.resize(IMG[:1, :, :, :2], (h, w), method=method, antialias=bool(int(aa))), key)


def test_resize_variants_match_tensorflow():
    _same(I.resize(IMG, (4, 4), preserve_aspect_ratio=True), "resize_aspect")
    _same(I.resize(F["u8"], (7, 3), method="nearest"), "resize_nearest_u8")
    _same(I.resize_with_pad(IMG, 6, 6), "resize_with_pad")
    _same(I.resize_with_crop_or_pad(IMG, 4, 9), "resize_with_crop_or_pad")
    _same(I.central_crop(IMG, 0.6), "central_crop")


def test_color_matches_tensorflow():
    _same(I.adjust_contrast(IMG, 1.7), "adjust_contrast")
    _same(I.adjust_saturation(IMG, 0.4), "adjust_saturation")
    _same(I.adjust_hue(IMG, 0.23), "adjust_hue")
    _same(I.adjust_gamma(IMG, 1.5, 0.8), "adjust_gamma")
    for key in ("rgb_to_hsv", "hsv_to_rgb", "rgb_to_yuv", "yuv_to_rgb", "rgb_to_yiq",
                "yiq_to_rgb", "rgb_to_grayscale", "per_image_standardization"):
        _same(getattr(I, key)(IMG), key)
    _same(I.convert_image_dtype(F["u8"], tw.float32), "convert_u8_to_f32")
    _same(I.convert_image_dtype(IMG, tw.uint8, saturate=True), "convert_f32_to_u8")


def test_measures_and_filters_match_tensorflow():
    _same(I.psnr(IMG, IMG[::-1], max_val=1.0), "psnr")
    a = F["ssim_a"]
    _same(I.ssim(a, a[::-1] * 0.5 + 0.2, max_val=1.0, filter_size=5), "ssim")
    m = F["msssim_a"]
    _same(I.ssim_multiscale(m, m[::-1] * 0.6 + 0.3, 1.0, power_factors=(0.3, 0.3, 0.4),
                            filter_size=3), "msssim", atol=1e-6)
    _same(I.sobel_edges(IMG), "sobel")
    dy, dx = I.image_gradients(IMG)
    _same(dy, "grad_dy")
    _same(dx, "grad_dx")
    _same(I.total_variation(IMG), "total_variation")
    _same(I.extract_patches(IMG, [1, 2, 3, 1], [1, 2, 2, 1], [1, 1, 1, 1], "VALID"),
          "extract_patches")
    _same(I.extract_patches(IMG, [1, 3, 2, 1], [1, 2, 3, 1], [1, 2, 1, 1], "SAME"),
          "extract_patches_same")


def test_boxes_match_tensorflow():
    for m in ("bilinear", "nearest"):
        _same(I.crop_and_resize(IMG, F["cab_boxes"], [0, 1, 1], [3, 4], method=m,
                                extrapolation_value=0.5), f"crop_and_resize_{m}")
    nb, ns = F["nms_boxes"], F["nms_scores"]
    _same(I.non_max_suppression(nb, ns, 3, 0.5), "nms")
    sel, sc = I.non_max_suppression_with_scores(nb, ns, 6, 0.5, 0.0, soft_nms_sigma=0.5)
    _same(sel, "nms_soft_sel")
    _same(sc, "nms_soft_scores")
    sel, valid = I.non_max_suppression_padded(nb, ns, 5, 0.5, 0.4, pad_to_max_output_size=True)
    _same(sel, "nms_padded_sel")
    _same(valid, "nms_padded_valid")
    colors = np.array([[1, 0, 0, 1], [0, 1, 0, 1]], np.float32)
    _same(I.draw_bounding_boxes(IMG, F["cab_boxes"][None, :2].repeat(2, 0), colors),
          "draw_boxes")
